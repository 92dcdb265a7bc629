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

"""
learner_node's ``fleet: off`` as a robotics user writes it: YAML reads ``off`` as false.

A parameter file, ``-p fleet:=off`` and ``ros2 param set`` all go through YAML, so the
node gets the boolean false; it must mean ``off``, and anything not a mode is refused with
one line.
"""

import subprocess
import sys

from banditlearn_ros.learning import HyperparameterError
from banditlearn_ros.learning.protocol.live_fleet import fleet_mode
from banditlearn_ros.nodes.learner_node import LearnerNode
import pytest
import rclpy
from rclpy.context import Context
from rclpy.parameter import Parameter

pytestmark = pytest.mark.ros


def test_off_false_and_the_old_none_mean_off_and_other_values_are_refused():
    assert [fleet_mode(v) for v in ('off', False, 'none', 'share', 'take', 'both')] == [
        'off', 'off', 'off', 'share', 'take', 'both']
    for value, words in (('sometimes', 'one of off, share, take, both'),
                         (True, 'write both'), (3, 'fleet=3 is not'), ('x' * 500, 'chars')):
        with pytest.raises(HyperparameterError, match=words) as info:
            fleet_mode(value)
        assert '\n' not in str(info.value) and len(str(info.value)) < 200


def node_from(args, tmp_path):
    """Return learner_node's fleet mode and link made from ``--ros-args`` as a shell gives."""
    context = Context()
    rclpy.init(context=context, args=['--ros-args', '-p', "model_path:=''", '-p',
                                      'labels:=[fist,palm]', *args])
    try:
        node = LearnerNode(context=context)
        try:
            return node.get_parameter('fleet').value, node.fleet.fleet
        finally:
            node.destroy_node()
    finally:
        rclpy.shutdown(context=context)


def test_fleet_off_from_a_parameter_file_and_the_command_line(tmp_path):
    params = tmp_path / 'params.yaml'
    params.write_text('learner_node:\n  ros__parameters:\n    fleet: off\n')
    for args in ([], ['--params-file', str(params)], ['-p', 'fleet:=off'],
                 ['-p', 'fleet:=none']):
        value, fleet = node_from(args, tmp_path)
        assert fleet is None and fleet_mode(value) == 'off', (args, value)
    value, fleet = node_from(['-p', 'fleet:=both', '-p', 'robot_id:=r1'], tmp_path)
    assert value == 'both' and fleet.mode == 'both' and fleet.evidence.robot == 'r1'


def test_ros2_param_set_fleet_off_says_it_is_read_only(ros):
    node = ros.add(LearnerNode(context=ros.context, parameter_overrides=[
        Parameter('model_path', value=''), Parameter('labels', value=['fist', 'palm'])]))
    result = node.set_parameters([Parameter('fleet', value=False)])[0]  # `ros2 param set`
    assert not result.successful and 'read-only' in result.reason, result.reason


def test_a_value_not_a_mode_ends_the_node_with_one_line():
    result = subprocess.run(
        [sys.executable, '-m', 'banditlearn_ros.nodes.learner_node', '--ros-args',
         '-p', "model_path:=''", '-p', 'fleet:=sometimes'],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and 'Traceback' not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert "fleet='sometimes' is not one of off, share, take, both" in last, result.stderr


def test_a_learner_says_when_another_robot_is_on_the_fleet_topic(ros):
    # What a test or an operator waits for before teaching: robots that learn apart for
    # long before they meet merge less well (docs/robot.md).
    def fleet_node(robot_id, mode):
        return ros.add(LearnerNode(context=ros.context, parameter_overrides=[
            Parameter('model_path', value=''), Parameter('labels', value=['fist', 'palm']),
            Parameter('fleet', value=mode), Parameter('robot_id', value=robot_id),
            Parameter('fleet_name', value=f'peers_{id(ros)}')]))
    a = fleet_node('a', 'both')
    assert ros.spin_until(lambda: a.fleet.fleet.peers == 0)
    b = fleet_node('b', 'share')
    assert ros.spin_until(lambda: a.fleet.fleet.peers == 1 and b.fleet.fleet.peers == 1)
    assert a.live.status()['fleet_peers'] == 1
    ros.remove(b)
    assert ros.spin_until(lambda: a.fleet.fleet.peers == 0)
