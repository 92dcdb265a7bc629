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

"""The learner's typed topics: each question by named fields, the figures a plot tool reads."""

import json

from banditlearn_ros.learning.protocol.session import SessionLog
from banditlearn_ros.nodes.learning_topics import WINDOW
from diagnostic_msgs.msg import DiagnosticStatus
import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import Float32, UInt32
from test_learner_node import Driver, learner

pytestmark = pytest.mark.ros

LABELS = ['fist', 'palm', 'point']


def test_questions_and_figures_match_the_session_summary(ros):
    node = learner(ros, labels=list(LABELS), max_questions=3, centring='running')
    drive = Driver(ros)
    questions = ros.listen(DiagnosticStatus, 'gesture_question', 1000)
    latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
    figures = {name: [] for name in ('right_last_50', 'right', 'questions_per_interaction')}
    for name, values in figures.items():
        ros.probe.create_subscription(Float32, f'gesture_learning/{name}',
                                      lambda m, v=values: v.append(m.data), latched)
    counts = []
    ros.probe.create_subscription(UInt32, 'gesture_learning/interactions',
                                  lambda m: counts.append(m.data), latched)
    log = SessionLog(window=WINDOW)  # what the session summary computes, from the same words
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(3, 6)) * 3
    n = 70
    for i in range(n):
        truth = int(rng.integers(3))
        details = drive.ask(centres[truth] + rng.normal(size=6) * 0.3)
        while True:
            assert details['id'] == i
            log.on_question(details['label'], details['id'], details['question'])
            right = details['label'] == LABELS[truth]
            wrong_answer = rng.random() < 0.1  # a person who slips now and then
            said = right != wrong_answer
            log.on_answer(said)
            if said or details['final']:
                drive.answer(said, node)
                break
            before = len(drive.details)
            drive.answer(said)
            assert ros.spin_until(lambda: len(drive.details) > before)
            details = json.loads(drive.details[-1].data)
    assert ros.spin_until(lambda: counts and counts[-1] == n)
    assert ros.spin_until(lambda: len(questions) == sum(len(r.questions) for r in log.records))
    assert log.accuracy(50) == pytest.approx(figures['right_last_50'][-1], abs=1e-6)
    assert log.accuracy() == pytest.approx(figures['right'][-1], abs=1e-6)
    assert log.questions_per_interaction() == pytest.approx(
        figures['questions_per_interaction'][-1], abs=1e-6)
    # Each question by name, as ros2 topic echo shows it.
    last = questions[-1]
    fields = {kv.key: kv.value for kv in last.values}
    assert last.message == log.records[-1].questions[-1]
    assert fields['interaction'] == str(n - 1)
    assert fields['question'] == str(len(log.records[-1].questions))
    assert set(fields) == {'interaction', 'question', 'final', 'explored', 'score', 'bound',
                           'probability', 'rejected'}
    # A late subscriber (a plot opened now) gets the latest figures at once.
    late = []
    ros.probe.create_subscription(Float32, 'gesture_learning/right_last_50',
                                  lambda m: late.append(m.data), latched)
    assert ros.spin_until(lambda: late) and late[-1] == figures['right_last_50'][-1]
