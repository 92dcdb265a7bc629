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
The learner's words as standard typed messages: named fields to echo, numbers to plot.

The JSON topics (``gesture_prediction_details``, ``gesture_interaction``) carry everything
but are one string to ``ros2 topic echo`` and nothing to rqt_plot, PlotJuggler or Foxglove.
Beside them, with standard interfaces only (the package installs from PyPI wheels, where a
message package of its own would have to be generated):

- ``gesture_question`` (diagnostic_msgs/DiagnosticStatus): each question, ``message`` the
  label said, ``values`` its fields by name (``interaction``, ``question``, ``final``,
  ``explored``, ``score``, ``bound``, ``probability``, ``rejected``);
- ``gesture_learning/right_last_50``, ``gesture_learning/right`` and
  ``gesture_learning/questions_per_interaction`` (std_msgs/Float32), after each finished
  interaction, from the answers heard (``answer_figures``); ``gesture_learning/interactions``
  (std_msgs/UInt32);
- ``gesture_answer_taken`` (std_msgs/String, ``answer_key.result_json``): each answer that
  counted, keyed with the question it answered and its source, and each keyed answer refused
  (a second answer to one question), so the page can say which answer counted.
"""

import math

from banditlearn_ros.learning.protocol import answer_key
from banditlearn_ros.learning.protocol.answer_figures import AnswerFigures
from banditlearn_ros.nodes import qos
from diagnostic_msgs.msg import DiagnosticStatus, KeyValue
from std_msgs.msg import Float32, String, UInt32

WINDOW = 50
"""Judged interactions in ``right_last_50`` (the session summary's ``accuracy_last_50``)."""

FIGURES = ('right_last_50', 'right', 'questions_per_interaction')


class LearningTopics:
    """Publish each question and the learning figures of a learner node."""

    def __init__(self, node):
        self.node = node
        self.figures = AnswerFigures(WINDOW)
        self._question = node.create_publisher(DiagnosticStatus, 'gesture_question',
                                               qos.EVENTS_OUT)
        self._numbers = {name: node.create_publisher(Float32, f'gesture_learning/{name}',
                                                     qos.LATCHED) for name in FIGURES}
        self._count = node.create_publisher(UInt32, 'gesture_learning/interactions',
                                            qos.LATCHED)
        self._answer = node.create_publisher(String, answer_key.RESULT_TOPIC, qos.EVENTS_OUT)

    def answer(self, said, outcome: str) -> None:
        """Say what became of a yes/no ``said`` (an ``answer_key.Answer``; None: nothing)."""
        if said is not None:
            self._answer.publish(String(data=answer_key.result_json(said, outcome)))

    def question(self, item) -> None:
        """Publish one question of ``item`` (a ``rounds.Round``), its fields by name."""
        p = item.prediction
        questions = item.questions
        rejected = ([questions.learner.labels[i] for i in questions.rejected]
                    if questions is not None and questions.rejected else [])
        fields = {'interaction': item.id, 'question': item.question, 'final': item.final,
                  'explored': bool(p.explored), 'score': float(p.scores[p.index]),
                  'bound': float(p.bounds[p.index]), 'probability': float(p.probability),
                  'rejected': ','.join(rejected)}
        self._question.publish(DiagnosticStatus(
            level=DiagnosticStatus.OK, name='gesture_question', message=p.label,
            hardware_id=self.node.get_fully_qualified_name(),
            values=[KeyValue(key=k, value=str(v)) for k, v in fields.items()]))

    def ended(self, interaction: dict) -> None:
        """Take a finished interaction; publish the figures when a question was asked."""
        if not self.figures.add(interaction):
            return
        values = (self.figures.right_window(), self.figures.right(),
                  self.figures.questions_per_interaction())
        for name, value in zip(FIGURES, values):
            if math.isfinite(value):
                self._numbers[name].publish(Float32(data=float(value)))
        self._count.publish(UInt32(data=self.figures.interactions))
