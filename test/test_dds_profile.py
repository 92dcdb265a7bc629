# Copyright 2026 banditlearn_ros contributors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.


"""The Fast DDS profile: the user's wins, another middleware is left alone, set before init."""

import os
from pathlib import Path
import xml.etree.ElementTree as ElementTree

from banditlearn_ros.support import dds_profile
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = str(ROOT / 'config' / 'fastdds_profile.xml')
NS = {'f': 'http://www.eprosima.com'}


def test_the_packages_profile_when_the_user_set_none(tmp_path):
    choice = dds_profile.choose({}, SHIPPED, cwd=str(tmp_path))
    assert choice.path == SHIPPED and "the package's" in choice.line
    choice = dds_profile.choose({'RMW_IMPLEMENTATION': 'rmw_fastrtps_cpp'}, SHIPPED,
                                cwd=str(tmp_path))
    assert choice.path == SHIPPED


@pytest.mark.parametrize('variable', dds_profile.USER_VARIABLES)
def test_the_users_profile_wins(variable, tmp_path):
    choice = dds_profile.choose({variable: '/robot/dds.xml'}, SHIPPED, cwd=str(tmp_path))
    assert choice.path is None
    assert '/robot/dds.xml' in choice.line and variable in choice.line


def test_fast_dds_default_file_in_the_working_folder_is_the_users(tmp_path):
    (tmp_path / 'DEFAULT_FASTDDS_PROFILES.xml').write_text('<dds/>')
    choice = dds_profile.choose({}, SHIPPED, cwd=str(tmp_path))
    assert choice.path is None and 'DEFAULT_FASTDDS_PROFILES.xml' in choice.line


@pytest.mark.parametrize('rmw', ['rmw_cyclonedds_cpp', 'rmw_zenoh_cpp', 'rmw_connextdds'])
def test_another_middleware_is_left_alone(rmw, tmp_path):
    environ = {'RMW_IMPLEMENTATION': rmw}
    choice = dds_profile.choose(environ, SHIPPED, cwd=str(tmp_path))
    assert choice.path is None and rmw in choice.line
    assert dds_profile.VARIABLE not in environ


def test_apply_sets_the_variable_only_when_the_package_chooses(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    environ = {}
    assert dds_profile.apply(environ).path == environ[dds_profile.VARIABLE]
    assert Path(environ[dds_profile.VARIABLE]).name == 'fastdds_profile.xml'
    environ = {'RMW_IMPLEMENTATION': 'rmw_cyclonedds_cpp'}
    dds_profile.apply(environ)
    assert environ == {'RMW_IMPLEMENTATION': 'rmw_cyclonedds_cpp'}
    environ = {'BANDITLEARN_DDS_PROFILE': 'off'}
    dds_profile.apply(environ)
    assert dds_profile.VARIABLE not in environ


def test_a_node_script_sets_the_profile_before_rclpy_init(monkeypatch, tmp_path):
    """run_node (every node's main) chooses before rclpy.init: Fast DDS reads it then."""
    import rclpy
    from banditlearn_ros.nodes.run import run_node
    monkeypatch.chdir(tmp_path)
    for name in dds_profile.USER_VARIABLES + ('RMW_IMPLEMENTATION',):
        monkeypatch.setenv(name, '')  # so that teardown restores what run_node sets
        monkeypatch.delenv(name)
    seen = []

    def init(*args, **kwargs):
        seen.append(os.environ.get(dds_profile.VARIABLE))
        raise KeyboardInterrupt  # as a signal before the node exists: exit 0

    monkeypatch.setattr(rclpy, 'init', init)
    with pytest.raises(SystemExit) as ended:
        run_node(lambda: None, args=[], name='probe')
    assert ended.value.code == 0
    assert seen and seen[0] is not None and Path(seen[0]).name == 'fastdds_profile.xml'


def test_shipped_profile_has_a_big_segment_and_its_transports_only():
    root = ElementTree.parse(SHIPPED).getroot()
    assert root.tag == '{http://www.eprosima.com}dds'
    descriptors = {d.findtext('f:transport_id', namespaces=NS): d for d in root.iterfind(
        'f:profiles/f:transport_descriptors/f:transport_descriptor', NS)}
    kinds = {name: d.findtext('f:type', namespaces=NS) for name, d in descriptors.items()}
    assert sorted(kinds.values()) == ['SHM', 'UDPv4']
    shm = next(d for d in descriptors.values() if d.findtext('f:type', namespaces=NS) == 'SHM')
    frame = 640 * 480 * 3
    assert int(shm.findtext('f:segment_size', namespaces=NS)) >= 8 * frame
    participant = root.find('f:profiles/f:participant', NS)
    assert participant.get('is_default_profile') == 'true'
    used = [t.text for t in participant.iterfind('f:rtps/f:userTransports/f:transport_id', NS)]
    assert sorted(used) == sorted(descriptors)
    assert participant.findtext('f:rtps/f:useBuiltinTransports', namespaces=NS) == 'false'
