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
teacher_node: a simulated person who answers each question with yes/no.

It knows the true label of each observation from the label topic (published just before the
observation's features) and answers every question the learner asks about it (the details
message carries the interaction id and question number) after ``delay`` seconds, with flip
noise ``rho0``/``rho1`` on every answer, label noise and a probability of saying nothing.
The decisions are ``learning.protocol.simulated_teacher.SimulatedTeacher``'s; this node only
carries messages.
"""

from typing import Any, Dict, List

from banditlearn_ros.learning import HyperparameterError, TeacherModel
from banditlearn_ros.learning.protocol.simulated_teacher import SimulatedTeacher, TeacherProgress
from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.events import read_event
from rclpy.parameter import Parameter
from std_msgs.msg import Bool, String

NOISE_PARAMETERS = ('label_noise', 'rho0', 'rho1', 'no_answer')


class TeacherNode(common.GuardedNode):
    """Answer predictions from the true labels, with the noise a real person has."""

    def __init__(self, node_name: str = 'teacher_node', **kwargs):
        super().__init__(node_name, **kwargs)
        d = common.declare
        labels = d(self, 'labels', [], 'label names label noise draws from; [] = the names '
                   'seen on the label topic so far')
        d(self, 'label_noise', 0.0, 'probability that the label in mind is a random one',
          low=0.0, high=1.0)
        d(self, 'rho0', 0.0, 'probability of saying "right" for a wrong prediction',
          low=0.0, high=1.0, constraints='< 1; rho0 + rho1 < 1')
        d(self, 'rho1', 0.0, 'probability of saying "wrong" for a right prediction',
          low=0.0, high=1.0, constraints='< 1; rho0 + rho1 < 1')
        d(self, 'no_answer', 0.0, 'probability of saying nothing', low=0.0, high=1.0)
        d(self, 'delay', 0.0, 'seconds between a prediction and its answer', low=0.0,
          high=3600.0)
        seed = d(self, 'seed', 0, 'seed of the noise', read_only=True, low=0, high=2 ** 31 - 1)
        window = d(self, 'stats_window', 100, 'rounds in the windowed true mistake rate',
                   read_only=True, low=1, high=1_000_000)
        period = d(self, 'diagnostics_period', 1.0, 'seconds between /diagnostics messages',
                   read_only=True, low=0.01, high=3600.0)
        self.teacher = SimulatedTeacher(self._model({}), seed=seed, labels=labels,
                                        window=window)
        self.counters = common.Counters(('answers_published', 'parameter_rejections',
                                         'bad_details'))
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self._pending_timers: List[Any] = []
        # Fixed relative names: namespaces and remapping move them.
        self._feedback_pub = self.create_publisher(Bool, 'gesture_feedback', qos.EVENTS_OUT)
        # Created first so that a label and its question, ready together, run in order.
        qos.subscribe_events(self, String, 'gesture_label', self._on_label)
        qos.subscribe_events(self, String, 'gesture_prediction_details', self._on_question)
        self.diagnostics = common.Diagnostics(self, 'banditlearn_ros: teacher_node',
                                              self._collect, period=period)
        self.get_logger().info(f'simulated teacher ready (seed {seed}); '
                               f'{common.topics_line(self)}')

    def _model(self, changes: Dict[str, Any]) -> TeacherModel:
        values = {name: changes.get(name, None) for name in NOISE_PARAMETERS}
        for name in NOISE_PARAMETERS:
            if values[name] is None:
                values[name] = self.get_parameter(name).value
        return TeacherModel(**values)

    def _on_set_parameters(self, params: List[Parameter]):
        changes = {p.name: p.value for p in params}
        try:
            model = self._model(changes)
        except HyperparameterError as exc:
            self.counters.add('parameter_rejections')
            return common.ParameterChanges.of(self).refuse(str(exc))
        self.teacher.model = model
        if 'labels' in changes:
            self.teacher.labels = [str(v) for v in changes['labels'] or []]
        return common.accept()

    def progress(self) -> TeacherProgress:
        """Return what a bring-up reports of this teacher now (``SimulatedTeacher.progress``)."""
        return self.teacher.progress()

    def _on_label(self, msg: String) -> None:
        self.teacher.observe(msg.data)

    def _on_question(self, msg: String) -> None:
        try:
            details = read_event(msg.data)
            label, question = str(details['label']), int(details.get('question', 1))
            interaction = details.get('id')
        except (ValueError, KeyError, TypeError) as exc:
            self.counters.add('bad_details')
            self.get_logger().warning(f'unreadable question details ({exc})',
                                      throttle_duration_sec=5.0)
            return
        result = self.teacher.answer(label, question, interaction)
        if result.answer is None:
            return
        delay = self.get_parameter('delay').value
        if delay <= 0:
            self._publish(result.answer)
            return
        timer = None

        def fire():
            timer.cancel()
            self._pending_timers.remove(timer)
            self.destroy_timer(timer)
            self._publish(result.answer)
        timer = self.create_timer(delay, fire)
        self._pending_timers.append(timer)

    def _publish(self, answer: bool) -> None:
        self._feedback_pub.publish(Bool(data=bool(answer)))
        self.counters.add('answers_published')

    def _collect(self):
        values = dict(self.teacher.stats())
        values.update(self.counters.snapshot())
        values['answers_waiting'] = len(self._pending_timers)
        return common.OK, 'answering' if values['rounds'] else 'waiting for predictions', values


def main(args=None) -> None:
    """Run teacher_node until Ctrl-C."""
    common.run_node(TeacherNode, args=args, name='teacher_node')


if __name__ == '__main__':
    main()
