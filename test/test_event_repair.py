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

"""The shipped Fast DDS profile repairs a missed gesture event well inside its lifespan."""

import os
from pathlib import Path
import subprocess
import sys
import xml.etree.ElementTree as ET

from banditlearn_ros.nodes import qos
import pytest

PROFILE = Path(__file__).resolve().parents[1] / 'config' / 'fastdds_profile.xml'
NS = {'dds': 'http://www.eprosima.com'}


def _seconds(element) -> float:
    return int(element.find('dds:sec', NS).text) + int(element.find('dds:nanosec', NS).text) / 1e9


def test_the_default_writers_heartbeat_comes_several_times_inside_the_events_lifespan():
    root = ET.parse(PROFILE).getroot()
    writers = [w for w in root.iter('{http://www.eprosima.com}data_writer')
               if w.get('is_default_profile') == 'true']
    assert len(writers) == 1
    period = _seconds(writers[0].find('dds:times/dds:heartbeat_period', NS))
    lifespan = qos.EVENT_LIFESPAN.nanoseconds / 1e9
    # A missed sample is asked for after a heartbeat and resent: several chances in 1 s.
    assert 0 < period <= lifespan / 5


@pytest.mark.ros
def test_fast_dds_reads_the_profile_without_an_error():
    code = ('import rclpy; from std_msgs.msg import String; '
            'from banditlearn_ros.nodes import qos; rclpy.init(); n = rclpy.create_node("p"); '
            'n.create_publisher(String, "t", qos.EVENTS_OUT).publish(String(data="x")); '
            'n.destroy_node(); rclpy.shutdown(); print("done")')
    env = dict(os.environ, FASTDDS_DEFAULT_PROFILES_FILE=str(PROFILE))
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0 and out.stdout.strip() == 'done', out.stderr
    assert 'XMLPARSER' not in out.stderr and 'Error' not in out.stderr, out.stderr
