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

"""System files and the bring-up's options, read and checked without ROS."""

import subprocess
import sys

from banditlearn_ros.systems import options as bringup_options, system_file
from banditlearn_ros.systems.options import in_declared_type
from banditlearn_ros.systems.system_file import BringupError
import pytest


def write(path, text):
    path.write_text(text, encoding='utf-8')
    return path


@pytest.fixture
def demo(tmp_path):
    """Return a system of a learner and a teacher over one parameter file."""
    write(tmp_path / 'p.yaml', '/**:\n  ros__parameters:\n    seed: 3\n'
          '/**/learner_node:\n  ros__parameters:\n    k: 1.0\n    labels: [a, b]\n')
    return write(tmp_path / 'demo.system.yaml',
                 'description: two nodes\nparams_files: p.yaml\n'
                 'nodes: [learner_node, {node: teacher_node, parameters: {rho0: 0.1}}]\n')


def test_a_system_file_is_read_with_absolute_paths_and_defaults(demo):
    system = system_file.load_system(demo)
    assert system['params_files'] == [demo.parent / 'p.yaml']
    assert [e['name'] for e in system['nodes']] == ['learner_node', 'teacher_node']
    assert system['nodes'][1]['parameters'] == {'rho0': 0.1}
    assert system['every'] == 100 and system['description'] == 'two nodes'
    files = system['params_files']
    assert system_file.file_value(files, 'learner_node', 'k') == 1.0
    assert system_file.file_value(files, 'teacher_node', 'seed') == 3  # from /**
    assert system_file.file_value(files, 'teacher_node', 'k', 'none') == 'none'


@pytest.mark.parametrize('text, message', [
    ('nodes: []\n', 'non-empty list'),
    ('nodes: [learner_node, learner_node]\n', 'two nodes are named'),
    ('nodes: [{node: learner_node, colour: red}]\n', "unknown keys ['colour']"),
    ('nodes: [learner_node]\nextra: 1\n', "unknown keys ['extra']"),
    ('nodes: [1]\n', 'needs "node: <name>"'),
    ('nodes: [learner_node\n', 'not valid YAML'),
])
def test_a_bad_system_file_says_what_is_wrong(tmp_path, text, message):
    with pytest.raises(BringupError, match=message.replace('[', r'\[').replace(']', r'\]')):
        system_file.load_system(write(tmp_path / 'bad.system.yaml', text))


def test_sections_name_nodes_in_any_namespace():
    assert system_file.section_node('/**/learner_node') == 'learner_node'
    assert system_file.section_node('/robot1/learner_node') == 'learner_node'
    assert system_file.section_node('/**') == '*' and system_file.section_node('/*') == '*'
    assert system_file.coerce(2, 1.0) == 2.0 and isinstance(system_file.coerce(2, 1.0), float)
    assert system_file.coerce(True, 1.0) is True and system_file.coerce(2, 'x') == 2


def test_the_shipped_systems_are_found_by_name():
    names = system_file.list_systems()
    assert {'gestures', 'camera', 'teach_sim'} <= set(names)
    assert system_file.find_system('teach_sim').name == 'teach_sim.system.yaml'
    with pytest.raises(BringupError, match="no system 'nope'"):
        system_file.find_system('nope')


def test_options_become_node_parameters(demo):
    system = system_file.load_system(demo)
    options = bringup_options.build_parser().parse_args(
        ['--noise', '0.2', '--seed', '7', '--set', 'learner_node.k=2',
         '--set', 'learner_node.labels=[a, 1]', '--namespace', '/r1', '--remap', 'a:=b'])
    bringup_options.apply_options(system, options)
    learner, teacher = (e['parameters'] for e in system['nodes'])
    assert teacher == {'rho0': 0.2, 'rho1': 0.2, 'seed': 7}
    assert learner == {'seed': 7, 'k': 2, 'labels': ['a', '1']}  # one kind: strings
    assert system['ros_args'] == ['-r', '__ns:=/r1', '-r', 'a:=b']
    assert [s[:4] for s in system['settings']] == [
        ('learner_node.k=2', 'learner_node', 'k', 2),
        ('learner_node.labels=[a, 1]', 'learner_node', 'labels', ['a', '1'])]


@pytest.mark.parametrize('args, message', [
    (['--set', 'learner_node.k'], 'write NODE.PARAM=VALUE'),
    (['--set', 'nobody.k=1'], "no node 'nobody'"),
    (['--remap', 'a=b'], 'write FROM:=TO'),
    (['--dataset', 'iris'], 'has no dataset_node'),
    (['--algorithm', 'mscw'], 'is not one of'),
])
def test_bad_options_are_one_error(demo, args, message):
    system = system_file.load_system(demo)
    options = bringup_options.build_parser().parse_args(args)
    with pytest.raises(BringupError, match=message):
        bringup_options.apply_options(system, options)


def test_a_set_value_is_taken_in_the_declared_type_only_where_nothing_is_lost():
    double, string, doubles, strings, integer = 3, 4, 8, 9, 2
    assert in_declared_type(2, '2', double) == 2.0
    assert in_declared_type(True, 'true', double) is None
    assert in_declared_type([1, 2.5], '[1, 2.5]', doubles) == [1.0, 2.5]
    assert in_declared_type([], '[]', doubles) is None
    assert in_declared_type(12, '012', string) == '012'  # as typed
    assert in_declared_type([1, 'b'], '[1, b]', strings) == ['1', 'b']
    assert in_declared_type([[1]], '[[1]]', strings) is None
    assert in_declared_type(2.5, '2.5', integer) is None


def test_the_rules_beside_the_nodes_run_without_rclpy():
    code = ('import sys; sys.modules["rclpy"] = None\n'
            'from banditlearn_ros import parameter_spec\n'
            'from banditlearn_ros.support import launch_arguments\n'
            'from banditlearn_ros.systems import options as bringup_options, system_file\n'
            'from banditlearn_ros.vision import feedback_parameters\n'
            'system_file.load_system(system_file.find_system("teach_sim"))\n'
            'bringup_options.build_parser().parse_args(["--noise", "0.1"])\n')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
