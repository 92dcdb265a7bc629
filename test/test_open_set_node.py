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

"""learner_node with rejection of never-taught gestures on: over DDS, as a person meets it."""

import json

import numpy as np
import pytest
from rcl_interfaces.msg import Parameter as ParameterMsg
from rcl_interfaces.msg import ParameterType, ParameterValue
from rcl_interfaces.srv import SetParameters
from std_msgs.msg import String
from test_learner_node import Driver, learner

pytestmark = pytest.mark.ros
CENTRES = {'fist': [1.0, 0.0, 0.0], 'palm': [0.0, 1.0, 0.0], 'point': [0.0, 0.0, 1.0]}


def _set(ros, name, value, ptype):
    client = ros.probe.create_client(SetParameters, '/learner_node/set_parameters')
    field = {ParameterType.PARAMETER_DOUBLE: 'double_value',
             ParameterType.PARAMETER_BOOL: 'bool_value',
             ParameterType.PARAMETER_INTEGER: 'integer_value'}[ptype]
    request = SetParameters.Request(parameters=[ParameterMsg(
        name=name, value=ParameterValue(type=ptype, **{field: value}))])
    result = ros.call(client, request).results[0]
    ros.probe.destroy_client(client)
    return result


def teach(node, n=90, seed=0):
    """Teach the three gestures through the node's own interaction, a faultless person."""
    rng = np.random.default_rng(seed)
    inter = node.live.interaction
    for t in range(n):
        truth = list(CENTRES)[t % 3]
        with node.live.lock:
            item, _ = inter.predict(np.array(CENTRES[truth]) + rng.normal(0, 0.05, 3))
            while not item.questions.declined:
                result = inter.feedback(item.prediction.label == truth)
                if result.next_round is None:
                    break
                item = result.next_round
            if item.questions.revealed is None:
                inter.name_unknown(truth)
    inter.take_ended()


def test_a_never_taught_gesture_is_asked_its_name_before_any_label(ros):
    # The learner is sure of 'palm' for the far gesture below: keep_confident would keep it.
    node = learner(ros, max_questions=3, unknown_rejection=True, unknown_warmup=10,
                   unknown_min_yes=3, unknown_keep_confident=False)
    drive = Driver(ros)
    unknown = ros.listen(String, 'gesture_unknown')
    names = ros.probe.create_publisher(String, 'gesture_name', 10)
    ros.connect(names)
    teach(node)
    # Teaching may itself have rejected a taught gesture (about the target rate): count from here.
    before = {**node.live.interaction.counts, **node.live.interaction.open_set.counts}
    known = drive.ask([1.0, 0.02, 0.0])  # a fist: asked, and its details carry the verdict
    assert known['label'] == 'fist'
    assert known['unknown']['armed'] and not known['unknown']['rejected']
    drive.answer(True, node)
    said, told = len(drive.predictions), len(drive.details)
    drive.send([-2.0, 3.0, -1.0])
    assert ros.spin_until(lambda: len(unknown) == 1)
    event = json.loads(unknown[0].data)
    assert event['outcome'] == 'unknown' and event['labels'] == []
    assert event['unknown_score'] < event['unknown_threshold']
    ros.spin_for(0.2)
    assert (len(drive.predictions), len(drive.details)) == (said, told)  # nothing was asked
    values = drive.diag(
        lambda v: v['interactions_unknown'] == str(before['interactions_unknown'] + 1))
    assert values['unknown_gestures'] == '1'
    assert values['unknown_kept_confident'] == '0'  # keep_confident is off here
    assert values['unknown_rejected'] == str(before['rejected'] + 1)
    # It was a palm after all: a false rejection, which the threshold learns from.
    names.publish(String(data='palm'))
    values = drive.diag(lambda v: v['gestures_told'] == '1')
    assert values['unknown_false_rejections'] == str(before['false_rejections'] + 1)
    # Live-tunable and checked.
    integer, double = ParameterType.PARAMETER_INTEGER, ParameterType.PARAMETER_DOUBLE
    assert not _set(ros, 'unknown_target', 0.7, double).successful
    assert _set(ros, 'unknown_target', 0.02, double).successful
    assert node.live.interaction.open_set.target == 0.02
    assert not _set(ros, 'unknown_min_yes', -1, integer).successful
    assert _set(ros, 'unknown_rejection', False, ParameterType.PARAMETER_BOOL).successful
    assert not node.live.interaction.open_set.enabled
    details = drive.ask([-2.0, 3.0, -1.0])
    assert 'unknown' not in details and drive.predictions[-1].data == details['label']
