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

from banditlearn_ros.learning import HyperparameterError
from banditlearn_ros.learning.protocol import teacher_parameters as teacher
from banditlearn_ros.learning.protocol.simulated_teacher import SimulatedTeacher, TeacherProgress
from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.events import read_event
from std_msgs.msg import Bool, String


class TeacherNode(common.GuardedNode):
    """Answer predictions from the true labels, with the noise a real person has."""

    def __init__(self, node_name: str = 'teacher_node', **kwargs):
        super().__init__(node_name, **kwargs)
        v = common.declare_specs(self, teacher.SPECS)
        seed, period = v['seed'], v['diagnostics_period']
        self.teacher = SimulatedTeacher(teacher.teacher_model(v.get), seed=seed,
                                        labels=v['labels'], window=v['stats_window'])
        self.counters = common.Counters(('answers_published', 'parameter_rejections',
                                         'bad_details'))
        common.watch_changes(self, self._check_change, self._apply_change,
                             errors=(HyperparameterError,))
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

    def _check_change(self, changes: Dict[str, Any]) -> None:
        """Refuse noise no person could have (on-set: the model of the new values)."""
        try:
            teacher.teacher_model(self._value, changes)
        except HyperparameterError:
            self.counters.add('parameter_rejections')
            raise

    def _apply_change(self, changes: Dict[str, Any]) -> None:
        """Take a stored change (post-set): the new answer model, the new labels."""
        self.teacher.model = teacher.teacher_model(self._value)
        if 'labels' in changes:
            self.teacher.labels = [str(v) for v in changes['labels'] or []]

    def _value(self, name: str) -> Any:
        return self.get_parameter(name).value

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
