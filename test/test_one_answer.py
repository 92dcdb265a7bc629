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

"""Over DDS: a page tap and a nod for one question at the same moment are one answer."""

import array
import json

from banditlearn_ros.learning.protocol import answer_key
from banditlearn_ros.nodes.learner_node import LearnerNode
import numpy as np
import pytest
from rclpy.parameter import Parameter
from ros_harness import BOUND
from std_msgs.msg import Bool, Float32MultiArray, String

pytestmark = pytest.mark.ros
LABELS = ['fist', 'palm', 'point', 'five']


def start(ros):
    overrides = [Parameter(k, value=v) for k, v in (
        ('labels', LABELS), ('model_path', ''), ('centring', 'none'), ('max_questions', 3),
        ('diagnostics_period', 0.2))]
    node = ros.add(LearnerNode(context=ros.context, parameter_overrides=overrides))
    features = ros.probe.create_publisher(Float32MultiArray, 'gesture_features', 10)
    # Two writers, as the page node and the feedback node are two.
    page = ros.probe.create_publisher(String, answer_key.TOPIC, 10)
    head = ros.probe.create_publisher(String, answer_key.TOPIC, 10)
    plain = ros.probe.create_publisher(Bool, 'gesture_feedback', 10)
    details = ros.listen(String, 'gesture_prediction_details', 100)
    taken = ros.listen(String, answer_key.RESULT_TOPIC, 100)
    for pub in (features, page, head, plain):
        ros.connect(pub)
    msg = Float32MultiArray()
    msg.data = array.array('f', np.asarray([0.9, 0.1, 0.4], np.float32).tobytes())
    features.publish(msg)
    assert ros.spin_until(lambda: len(details) == 1), 'no question asked'
    asked = json.loads(details[0].data)
    return node, (asked['id'], asked['question']), page, head, plain, details, taken


def keyed(key, yes, source):
    return String(data=answer_key.answer_json(*key, yes, source))


@pytest.mark.parametrize('page_first', [True, False])
@pytest.mark.parametrize('page_yes, nod_yes', [(False, False), (True, False), (False, True)])
def test_a_tap_and_a_nod_in_the_same_millisecond_make_one_update(ros, page_first, page_yes,
                                                                 nod_yes):
    node, key, page, head, _, details, taken = start(ros)
    sends = [(page, keyed(key, page_yes, 'page')), (head, keyed(key, nod_yes, 'nod'))]
    for pub, message in (sends if page_first else sends[::-1]):
        pub.publish(message)  # back to back: well within a millisecond of each other
    counts = node.live.interaction.counts
    assert ros.spin_until(lambda: counts['feedback_received'] == 2 and len(taken) == 2)
    first_yes = page_yes if page_first else nod_yes
    assert counts['feedback_matched'] == 1 and counts['feedback_dropped_duplicate'] == 1
    assert counts['updates_applied'] >= 1  # the one answer taught the model
    results = [json.loads(m.data) for m in taken]
    assert sorted(r['outcome'] for r in results) == ['duplicate', 'matched']
    counted = next(r for r in results if r['outcome'] == 'matched')
    assert (counted['source'], counted['yes']) == (('page', page_yes) if page_first else
                                                   ('nod', nod_yes))
    # A "no" asked again: question 2 is open and nothing answered it.
    ros.spin_for(0.2)
    assert len(details) == (1 if first_yes else 2)
    assert node.live.interaction.unanswered == (0 if first_yes else 1)


def test_a_plain_yes_no_first_makes_the_page_tap_the_refused_second(ros):
    node, key, page, _, plain, details, taken = start(ros)
    plain.publish(Bool(data=False))
    page.publish(keyed(key, False, 'page'))
    counts = node.live.interaction.counts
    assert ros.spin_until(lambda: counts['feedback_received'] == 2 and len(taken) == 2,
                          BOUND)
    assert counts['feedback_matched'] == 1 and counts['feedback_dropped_duplicate'] == 1
    assert {json.loads(m.data)['source']: json.loads(m.data)['outcome'] for m in taken} == \
        {'feedback': 'matched', 'page': 'duplicate'}
