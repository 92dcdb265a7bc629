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

"""Over DDS: a gesture label appended mid-stream (SetParameters) or named is learned."""

import array
import json

from banditlearn_ros.learning import TeacherModel, UCWL
from banditlearn_ros.learning.algorithms.centring import Centring
from banditlearn_ros.learning.protocol.ask_again import (
    DEFAULT_PROBATION, DEFAULT_REVEAL_STEP, run_interaction)
from banditlearn_ros.nodes.learner_node import LearnerNode
from banditlearn_ros.nodes.session_node import SessionNode
from banditlearn_ros.nodes.teacher_node import TeacherNode
import numpy as np
import pytest
from rcl_interfaces.msg import Parameter as ParameterMsg
from rcl_interfaces.msg import ParameterType, ParameterValue
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from std_msgs.msg import Bool, Float32MultiArray, String

pytestmark = pytest.mark.ros
KNOWN = ['a', 'b', 'c']
NEW = 'd'
BEFORE, AFTER, NOISE, TEACHER_SEED = 150, 250, 0.1, 11


def gesture_stream(seed=1, d=8):
    """Return three classes for BEFORE rounds, then four: noisy clusters on a shared offset."""
    rng = np.random.default_rng(seed)
    centres = np.eye(4, d) + 0.5
    y = np.concatenate([rng.integers(0, 3, BEFORE), rng.integers(0, 4, AFTER)])
    X = centres[y] + rng.normal(0, 0.15, (y.size, d))
    return X.astype(np.float32).astype(np.float64), y  # what a Float32MultiArray carries


def offline(X, y, max_questions):
    """Run the same interactions with the core alone; return (first guesses, questions)."""
    learner = UCWL(list(KNOWN), X.shape[1], seed=0)
    model, rng = TeacherModel(rho0=NOISE, rho1=NOISE), np.random.default_rng(TEACHER_SEED)
    ties = np.random.default_rng(0)  # the learner node's tie-breaks between next questions
    centring = Centring('running')  # the node's default: the running mean taken out first
    first, asked = [], []
    for t, (x, c) in enumerate(zip(X, y)):
        if t == BEFORE:
            learner.add_label(NEW)
        x = centring.apply(x)
        q = run_interaction(learner, x, lambda label, _, c=c: model.answer(label, int(c), rng),
                            max_questions, DEFAULT_REVEAL_STEP, ties, DEFAULT_PROBATION)
        first.append(q.first.label)
        asked.append(len(q.asked))
    return first, asked


def append_label(ros, name):
    """Append a label the way ``ros2 param set`` does: one SetParameters call."""
    client = ros.probe.create_client(SetParameters, '/learner_node/set_parameters')
    value = ParameterValue(type=ParameterType.PARAMETER_STRING_ARRAY,
                           string_array_value=KNOWN + [name])
    request = SetParameters.Request(parameters=[ParameterMsg(name='labels', value=value)])
    result = ros.call(client, request).results[0]
    ros.probe.destroy_client(client)
    return result


@pytest.mark.parametrize('max_questions', [1, 3])
def test_label_appended_mid_stream_is_learned_and_the_known_ones_keep_their_accuracy(
        ros, max_questions):
    X, y = gesture_stream()
    names = KNOWN + [NEW]
    node = ros.add(LearnerNode(context=ros.context, parameter_overrides=[
        Parameter('labels', value=list(KNOWN)), Parameter('model_path', value=''),
        Parameter('max_questions', value=max_questions),
        Parameter('seed', value=0)]))
    ros.add(TeacherNode(context=ros.context, parameter_overrides=[
        Parameter('rho0', value=NOISE), Parameter('rho1', value=NOISE),
        Parameter('seed', value=TEACHER_SEED)]))
    label_pub = ros.probe.create_publisher(String, 'gesture_label', 10)
    features_pub = ros.probe.create_publisher(Float32MultiArray, 'gesture_features', 10)
    ended = ros.listen(String, 'gesture_interaction', 1000)
    ros.connect(label_pub)
    ros.connect(features_pub)
    for t, (x, c) in enumerate(zip(X, y)):
        if t == BEFORE:
            kept = {k: v[:3].copy() for k, v in node.live.interaction.learner.state_dict()[
                'arrays'].items()}
            result = append_label(ros, NEW)
            assert result.successful, result.reason
            arrays = node.live.interaction.learner.state_dict()['arrays']
            for key, rows in kept.items():
                np.testing.assert_array_equal(arrays[key][:3], rows)
        label_pub.publish(String(data=names[c]))
        msg = Float32MultiArray()
        msg.data = array.array('f', x.astype(np.float32).tobytes())
        features_pub.publish(msg)
        assert ros.spin_until(lambda: len(ended) == t + 1), \
            f'interaction {t} did not end: {dict(node.live.interaction.counts)}'
    interactions = [json.loads(m.data) for m in ended]
    online = [i['first_guess'] for i in interactions]
    assert (online, [i['questions'] for i in interactions]) == offline(X, y, max_questions)
    right = np.array([s == names[c] for s, c in zip(online, y)])
    new_shown = np.flatnonzero(y == 3)
    known_last = np.arange(len(y) - 100, len(y))[y[-100:] != 3]
    # The new gesture is learned: right on most of its last 20 showings.
    assert right[new_shown[-20:]].mean() >= 0.85
    # Nothing lost for the others: their last 100 rounds are as good as the 50 before.
    assert right[known_last].mean() >= right[BEFORE - 50:BEFORE].mean() - 0.05
    assert right[known_last].mean() >= 0.9
    assert node.live.counts['labels_added'] == 1


def test_unknown_gesture_named_on_gesture_name_is_learned_from_that_observation(ros):
    rng = np.random.default_rng(3)
    centres = np.eye(4, 8) - 0.25  # centred, as camera_node publishes (feature_offsets)
    names = KNOWN + [NEW]
    node = ros.add(LearnerNode(context=ros.context, parameter_overrides=[
        Parameter('labels', value=list(KNOWN)), Parameter('model_path', value=''),
        Parameter('seed', value=0), Parameter('max_questions', value=0)]))
    ros.add(TeacherNode(context=ros.context))
    label_pub = ros.probe.create_publisher(String, 'gesture_label', 10)
    features_pub = ros.probe.create_publisher(Float32MultiArray, 'gesture_features', 10)
    name_pub = ros.probe.create_publisher(String, 'gesture_name', 10)
    ended = ros.listen(String, 'gesture_interaction', 1000)
    unknown = ros.listen(String, 'gesture_unknown')
    for pub in (label_pub, features_pub, name_pub):
        ros.connect(pub)

    def show(c):
        n = len(ended)
        label_pub.publish(String(data=names[c]))
        msg = Float32MultiArray()
        msg.data = array.array('f', (centres[c] + rng.normal(0, 0.15, 8)).astype(
            np.float32).tobytes())
        features_pub.publish(msg)
        assert ros.spin_until(lambda: len(ended) > n), f'interaction {n} did not end'
        return json.loads(ended[-1].data)

    for _ in range(60):
        show(int(rng.integers(3)))
    assert not unknown
    first = show(3)
    assert first['outcome'] == 'all_rejected'
    assert ros.spin_until(lambda: len(unknown) == 1)
    assert json.loads(unknown[0].data)['id'] == first['id']
    name_pub.publish(String(data=NEW))
    assert ros.spin_until(lambda: node.get_parameter('labels').value == names), \
        node.get_parameter('labels').value
    assert node.live.interaction.learner.labels == names
    assert node.live.counts['gestures_named'] == 1
    name_pub.publish(String(data='e'))  # named already: refused, nothing changes
    assert ros.spin_until(lambda: node.live.counts['names_refused'] == 1)
    assert node.live.interaction.learner.labels == names
    shown = [int(rng.integers(4)) for _ in range(80)]
    guesses = [show(c)['first_guess'] for c in shown]
    right = np.array([g == names[c] for g, c in zip(guesses, shown)])
    is_new = np.array(shown) == 3
    # Named from one observation, the new gesture is soon the first guess (from its 6th
    # showing on, as the benchmark counts), the known ones keep theirs, and no interaction
    # rejects every label again.
    assert right[is_new][5:].mean() >= 0.9, right[is_new]
    assert right[~is_new].mean() >= 0.9
    assert len(unknown) == 1


def test_out_of_questions_a_name_tells_a_known_gesture_or_adds_a_new_one(ros):
    """With fewer questions than labels (the default 3 of 5 here, 2 of 4 in this test)."""
    labels = ['a', 'b', 'c', 'd']
    # One hand-made vector: centred, the first vector is all zeros and teaches nothing.
    node = ros.add(LearnerNode(context=ros.context, parameter_overrides=[
        Parameter('labels', value=labels), Parameter('model_path', value=''),
        Parameter('seed', value=0), Parameter('max_questions', value=2),
        Parameter('centring', value='none')]))
    features_pub = ros.probe.create_publisher(Float32MultiArray, 'gesture_features', 10)
    answer_pub = ros.probe.create_publisher(Bool, 'gesture_feedback', 10)
    name_pub = ros.probe.create_publisher(String, 'gesture_name', 10)
    details = ros.listen(String, 'gesture_prediction_details', 1000)
    ended = ros.listen(String, 'gesture_interaction', 1000)
    unknown = ros.listen(String, 'gesture_unknown')
    for pub in (features_pub, answer_pub, name_pub):
        ros.connect(pub)
    x = np.eye(5, 8)[4] - 0.2
    msg = Float32MultiArray()
    msg.data = array.array('f', x.astype(np.float32).tobytes())
    features_pub.publish(msg)
    for question in (1, 2):  # "no" to both questions
        assert ros.spin_until(lambda: len(details) == question)
        answer_pub.publish(Bool(data=False))
    assert ros.spin_until(lambda: len(unknown) == 1)
    event = json.loads(unknown[0].data)
    assert event['outcome'] == 'out_of_questions' and len(event['labels']) == 2
    assert json.loads(ended[-1].data)['outcome'] == 'out_of_questions'
    asked = [json.loads(m.data)['label'] for m in details]
    told = next(lb for lb in labels if lb not in asked)
    learner = node.live.interaction.learner
    before = learner.scores(x.astype(np.float32).astype(np.float64))[labels.index(told)]
    name_pub.publish(String(data=told))
    assert ros.spin_until(lambda: node.live.counts['gestures_told'] == 1)
    assert learner.labels == labels and node.get_parameter('labels').value == labels
    after = learner.scores(x.astype(np.float32).astype(np.float64))[labels.index(told)]
    assert after > before
    # The next gesture runs out of questions too; a new name adds it, learned from it.
    features_pub.publish(msg)
    for question in (3, 4):
        assert ros.spin_until(lambda: len(details) == question)
        answer_pub.publish(Bool(data=False))
    assert ros.spin_until(lambda: len(unknown) == 2)
    name_pub.publish(String(data='e'))
    assert ros.spin_until(lambda: node.get_parameter('labels').value == labels + ['e'])
    assert learner.labels == labels + ['e'] and learner.confirmations == {'e': 1}
    assert node.live.counts['gestures_named'] == 1 and node.live.counts['unknown_gestures'] == 0


def test_terminal_plus_name_after_an_unknown_gesture_names_it(ros):
    rng = np.random.default_rng(4)
    centres = np.eye(4, 8) - 0.25  # centred, as camera_node publishes (feature_offsets)
    names = KNOWN + [NEW]
    node = ros.add(LearnerNode(context=ros.context, parameter_overrides=[
        Parameter('labels', value=list(KNOWN)), Parameter('model_path', value=''),
        Parameter('max_questions', value=0)]))
    ros.add(TeacherNode(context=ros.context))
    session = ros.add(SessionNode(context=ros.context, parameter_overrides=[
        Parameter('keyboard', value=False)]))
    label_pub = ros.probe.create_publisher(String, 'gesture_label', 10)
    features_pub = ros.probe.create_publisher(Float32MultiArray, 'gesture_features', 10)
    ended = ros.listen(String, 'gesture_interaction', 1000)
    for pub in (label_pub, features_pub):
        ros.connect(pub, subscribers=2 if pub is label_pub else 1)
    xs = []

    def show(c):
        n = len(ended)
        label_pub.publish(String(data=names[c]))
        xs.append(centres[c] + rng.normal(0, 0.15, 8))
        msg = Float32MultiArray()
        msg.data = array.array('f', xs[-1].astype(np.float32).tobytes())
        features_pub.publish(msg)
        assert ros.spin_until(lambda: len(ended) > n), f'interaction {n} did not end'
        return json.loads(ended[-1].data)

    for _ in range(30):
        show(int(rng.integers(3)))
    session.handle_key_line('+early\n')  # nothing unknown yet: a plain labels append
    assert ros.spin_until(lambda: 'early' in node.live.interaction.learner.labels)
    names.insert(3, 'early')
    centres = np.vstack([centres[:3], np.full(8, 9.0), centres[3:]])
    assert show(4)['outcome'] == 'all_rejected'
    assert ros.spin_until(lambda: session._unknown is not None)
    session.handle_key_line('+d\n')
    assert ros.spin_until(lambda: node.live.interaction.learner.labels == names)
    x = xs[-1].astype(np.float32).astype(np.float64)
    assert node.live.interaction.learner.select(x).label == NEW  # learned from that observation
    assert node.live.counts['gestures_named'] == 1
