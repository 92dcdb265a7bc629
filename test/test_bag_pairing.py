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
A recording that lost messages says so; the recorder's queues drop nothing a session needs.

Crafted bags (no DDS) of a session's messages, whole or with a label, an answer or a
question taken out: ``banditlearn_bag info`` and ``replay`` must warn for the ones with
holes and stay quiet for the whole one.  The recorder's QoS and its drain at a stop are
checked without DDS too (rclpy's QoS classes only).
"""

import json

import numpy as np
import pytest

pytest.importorskip('rosbags')


def _session_bag(path, gestures=6, drop=None, lost=None):
    """
    Write a session as learner_node and dataset_node publish it: label, features, question.

    Each gesture is answered "no" then "yes" (two questions); ``drop`` is ``(topic,
    index)`` of one message left out, as a recorder that missed it would.
    """
    from banditlearn_ros import bags as bagio
    from banditlearn_ros.bags.recorded_qos import qos_dict, recorded_qos
    from banditlearn_ros.bags.growing_bag import Recording
    store = bagio.builtin_typestore()
    types = {'/gesture_label': 'std_msgs/msg/String',
             '/gesture_features': 'std_msgs/msg/Float32MultiArray',
             '/gesture_prediction': 'std_msgs/msg/String',
             '/gesture_prediction_details': 'std_msgs/msg/String',
             '/gesture_feedback': 'std_msgs/msg/Bool',
             '/gesture_interaction': 'std_msgs/msg/String'}
    rec = Recording(path)
    if lost:
        rec.custom_data[bagio.constants.CUSTOM_LOST] = json.dumps(lost)
    for topic, msgtype in types.items():
        rec.add_topic(topic, msgtype, [qos_dict(recorded_qos())])
    seen = {}

    def put(topic, stamp, msg):
        index = seen.get(topic, 0)
        seen[topic] = index + 1
        if drop == (topic, index):
            return
        rec.write(topic, stamp, store.serialize_cdr(msg, types[topic]))

    def text(value):
        return store.types['std_msgs/msg/String'](data=value)
    dim = store.types['std_msgs/msg/MultiArrayDimension'](label='x', size=2, stride=2)
    features = feedback = 0
    t = 10 ** 9
    for i in range(gestures):
        put('/gesture_label', t, text('a'))
        put('/gesture_features', t + 1, store.types['std_msgs/msg/Float32MultiArray'](
            layout=store.types['std_msgs/msg/MultiArrayLayout'](dim=[dim], data_offset=0),
            data=np.array([1.0, i], dtype=np.float32)))
        features += 1
        for question, answer in ((1, False), (2, True)):
            t += 10 ** 7
            put('/gesture_prediction', t, text('b' if question == 1 else 'a'))
            put('/gesture_prediction_details', t + 1, text(json.dumps(
                {'id': i, 'question': question, 'label': 'b' if question == 1 else 'a',
                 'index': 1 if question == 1 else 0,
                 'inputs': {'features': features, 'feedback': feedback}})))
            put('/gesture_feedback', t + 2, store.types['std_msgs/msg/Bool'](data=answer))
            feedback += 1
        put('/gesture_interaction', t + 3, text(json.dumps(
            {'id': i, 'outcome': 'yes', 'questions': 2, 'answers': 2})))
        t += 10 ** 9
    rec.close()
    return path


def _problems(path):
    from banditlearn_ros import bags as bagio
    from banditlearn_ros.bags.pairing import pairing_problems
    with bagio.open_bag(path) as bag:
        return pairing_problems(bag)


def test_a_whole_session_pairs_up_and_info_says_nothing(tmp_path, capsys):
    from banditlearn_ros.tools import bag as cli
    bag = _session_bag(tmp_path / 'whole')
    assert _problems(bag) == []
    assert cli.main(['info', str(bag)]) == 0
    assert 'warning' not in capsys.readouterr().out
    assert cli.main(['info', str(bag), '--json']) == 0
    assert json.loads(capsys.readouterr().out)['pairing'] == []


@pytest.mark.parametrize('drop, words', [
    (('/gesture_label', 0), '5 true labels for 6 gestures'),
    (('/gesture_feedback', 4), 'the finished interactions took 12 answers; the bag holds 11'),
    (('/gesture_features', 5), 'the learner had taken 6 gestures by its last question; the '
                               'bag holds 5'),
    (('/gesture_prediction_details', 3), '1 question(s) of finished interactions'),
])
def test_a_session_with_a_hole_is_said_by_info_and_replay(tmp_path, capsys, drop, words):
    from banditlearn_ros.tools import bag as cli
    bag = _session_bag(tmp_path / 'holed', drop=drop)
    assert any(words in p for p in _problems(bag)), _problems(bag)
    assert cli.main(['info', str(bag)]) == 0
    out = capsys.readouterr().out
    assert any(line.startswith('warning:') and words in line for line in out.splitlines()), out
    cli.main(['replay', str(bag), '--set', 'labels=[a, b]'])
    out = capsys.readouterr().out
    assert any(line.startswith('warning:') and words in line for line in out.splitlines()), out


def test_messages_the_recorder_was_told_were_lost_are_said(tmp_path):
    bag = _session_bag(tmp_path / 'told', lost={'/gesture_feedback': 2, '/image_raw': 1})
    assert _problems(bag) == [
        'the recorder was told that 2 message(s) on /gesture_feedback were lost: a replay '
        'cannot match the session',
        'the recorder was told that 1 message(s) on /image_raw were lost (a replay does not '
        'need them)']


def test_the_recorder_keeps_every_session_message_until_written():
    rclpy_qos = pytest.importorskip('rclpy.qos')
    from banditlearn_ros.bags.rclpy_record import _subscription_qos, EVENT_TOPICS, IMAGE_TYPE
    for topic in sorted(EVENT_TOPICS):
        qos = _subscription_qos([], 'std_msgs/msg/String', topic == '/learner_config', topic)
        assert qos.history == rclpy_qos.HistoryPolicy.KEEP_ALL, topic
        assert qos.reliability == rclpy_qos.ReliabilityPolicy.RELIABLE, topic
    image = _subscription_qos([], IMAGE_TYPE, False, '/image_raw')
    assert image.reliability == rclpy_qos.ReliabilityPolicy.BEST_EFFORT
    assert (image.history, image.depth) == (rclpy_qos.HistoryPolicy.KEEP_LAST, 10)


class _Queued:
    """An executor whose subscriptions hold ``waiting`` messages when the stop comes."""

    def __init__(self, recorder, waiting):
        self.recorder, self.waiting = recorder, waiting

    def spin_once(self, timeout_sec=None):
        if self.waiting:
            self.waiting -= 1
            self.recorder.calls += 1


def test_a_stop_writes_what_the_middleware_already_holds():
    from banditlearn_ros.bags.rclpy_record import _drain

    class Recorder:
        calls = 0
    recorder = Recorder()
    executor = _Queued(recorder, 250)
    _drain(executor, recorder, quiet_s=0.2, limit_s=30.0)
    assert executor.waiting == 0 and recorder.calls == 250
