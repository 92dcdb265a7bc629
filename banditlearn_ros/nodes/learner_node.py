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
learner_node: feature vectors in, spoken labels out, yes/no back into the model.

After a "no" it asks its next-best label (up to ``max_questions``); with no "yes" it asks a
name (``gesture_unknown``). Questions, learning and feedback rule sit behind ``LiveLearner``.
"""

import json
import os
import time

from banditlearn_ros.learning import HyperparameterError, ModelFileError
from banditlearn_ros.learning.live import learner_parameters as lp
from banditlearn_ros.learning.live import session_config
from banditlearn_ros.learning.live.live_learner import LiveLearner, Progress, SIZE_REASONS
from banditlearn_ros.learning.protocol.details import details_json
from banditlearn_ros.learning.protocol.labels import clipped
from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.fleet_link import FleetLink
from banditlearn_ros.nodes.learning_topics import LearningTopics
from banditlearn_ros.nodes.name_clash import NamesakeWatch
from banditlearn_ros.support import shutdown
from rclpy.parameter import Parameter
from std_msgs.msg import Bool, Float32MultiArray, String
from std_srvs.srv import Trigger


class LearnerNode(common.GuardedNode):
    """Select a label for each feature message and learn from the yes/no that follows."""

    def __init__(self, node_name: str = 'learner_node', **kwargs):
        super().__init__(node_name, **kwargs)
        self.counters = common.Counters(('features_received', 'saves', 'save_failures'))
        lp.check_algorithm(common.declare_specs(self, lp.HEAD_SPECS)['algorithm'])
        common.declare_specs(self, tuple(lp.hyperparameter_specs()) + lp.TAIL_SPECS)
        self._times = common.ProcessingTimes()
        path = os.path.expanduser(self.get_parameter('model_path').value)
        self.live = LiveLearner(lambda name: self.get_parameter(name).value, path,
                                self.get_logger())
        if self.live.labels_from_file:
            self.set_parameters([Parameter('labels', value=list(self.live.labels))])
        self.fleet = FleetLink(self, self.live)  # its parameters declared before the checks
        # On-set: a change to refuse is refused with the reason; post-set: applied.
        self._parameter_changes = common.watch_changes(self, self.live.check_change,
                                                       self._after_set_parameters)
        self._input = common.RecentRefusals()
        # Answers run before a vector ready with them; gesture_answer: answer_key; qos.py: lost
        for name, kind, callback in (('feedback', Bool, self._on_feedback),
                                     ('answer', String, self._on_feedback),
                                     ('features', Float32MultiArray, self._on_features)):
            self.counters.add(name + '_lost', 0)
            qos.subscribe_events(self, kind, 'gesture_' + name, callback,
                                 lambda n, lost=name + '_lost': self.counters.add(lost, n))
        self._pubs = {topic: self.create_publisher(String, 'gesture_' + topic, qos.EVENTS_OUT)
                      for topic in ('prediction', 'prediction_details', 'interaction', 'unknown')}
        self._typed = LearningTopics(self)  # typed messages and numbers to plot
        self.create_timer(0.25, self._publish_ended)  # interactions that timed out
        self.create_subscription(String, 'gesture_name', self._on_name, qos.EVENTS_IN)
        self.create_service(Trigger, '~/save_model', self._on_save)
        self.create_service(Trigger, '~/reset_model', self._on_reset)
        self._config_pub = self.create_publisher(String, session_config.TOPIC, qos.LATCHED)
        self.live.start_config(self._now())
        self._publish_config()
        self.namesakes = NamesakeWatch(self)  # a second learner of this name: said once
        self.diagnostics = common.Diagnostics(self, 'banditlearn_ros: learner_node', self._collect,
                                              self.get_parameter('diagnostics_period').value)
        self.live.started()  # the compiled UCWL steps load from now
        shutdown.raise_on_signal(False)  # ready: a signal now asks, and close() saves
        for line in self.live.start_lines(common.topics_line(self)):
            self.get_logger().info(line)

    def _after_set_parameters(self, changes) -> None:
        """Apply a change rclpy has stored (post-set); it was validated in on-set."""
        self.live.apply_change(changes, self._now())  # logs the labels it appended
        self._publish_config()

    def _publish_config(self) -> None:
        self._config_pub.publish(String(data=self.live.config_text()))

    def save(self) -> str:
        """Save the model atomically; return where (raises OSError or ValueError)."""
        path = self.live.save()
        self.counters.add('saves')
        return path

    def close(self) -> bool:
        """Save on shutdown when asked to (``run_node``, the bring-up); False if that failed."""
        try:
            path = self.live.close(self.get_parameter('save_on_shutdown').value)
        except (OSError, ValueError) as exc:
            self.counters.add('save_failures')
            common.shutdown_logger(self).error(f'could not save the model on shutdown: {exc}')
            return False
        if path:
            self.counters.add('saves')
            common.shutdown_logger(self).info(f'model saved to {path} on shutdown')
        return True

    def progress(self) -> Progress:
        """Return what a bring-up reports of this learner now (``LiveLearner.progress``)."""
        return self.live.progress()

    # -- callbacks -----------------------------------------------------------------------
    def _on_features(self, msg: Float32MultiArray) -> None:
        start = time.perf_counter()
        self.counters.add('features_received')
        data = msg.data[msg.layout.data_offset:] if msg.layout.data_offset else msg.data
        item, reason, what = self.live.predict(data)
        self._input.add(item is None, f'{reason}: {what}')
        if reason not in SIZE_REASONS:
            self._publish_ended()  # the interaction this gesture cut short
        if item is None:
            self.get_logger().warning(f'feature message refused ({reason}: {what})',
                                      throttle_duration_sec=5.0)
            return
        self._ask(item)
        self._times.add(time.perf_counter() - start)

    def _ask(self, item) -> None:
        """Say one question: the label for speech, then its details with the ids."""
        if item.questions.declined:  # rejected as never taught: gesture_unknown asks its name
            return
        self._pubs['prediction'].publish(String(data=item.prediction.label))
        self._pubs['prediction_details'].publish(String(data=details_json(
            item, self._now(), self.get_parameter('details_top').value, self.live.inputs())))
        self._typed.question(item)

    def _now(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9  # the node's clock, in seconds

    def _publish_ended(self) -> None:
        """Announce finished interactions, and those a person may name (gesture_unknown)."""
        for said in self.live.take_ended(self._now()):
            self._pubs['interaction'].publish(String(data=json.dumps(said.interaction)))
            if said.unknown is not None:
                self._pubs['unknown'].publish(String(data=json.dumps(said.unknown)))
            if said.note:
                self.get_logger().info(said.note)
            self._typed.ended(said.interaction)

    def _on_feedback(self, msg) -> None:
        """Take a Bool (the latest open question) or a keyed answer (its question only)."""
        said, result = self.live.answer(msg.data)
        self._typed.answer(said, result.outcome)  # what counted, or a keyed one refused
        if result.outcome != 'matched':
            self.get_logger().info(f'feedback dropped ({result.outcome})',
                                   throttle_duration_sec=5.0)
            return
        if result.next_round is not None:
            self._ask(result.next_round)
        self._publish_ended()  # a due autosave runs in the writer thread (live.autosaves)

    def _on_name(self, msg: String) -> None:
        """Learn the name said for the latest gesture without a "yes"; ``labels`` follows."""
        name = msg.data.strip()
        try:
            labels, added = self.live.name_unknown(name, self._now())
        except ValueError as exc:  # throttled and clipped: a repeated bad name cannot flood
            self.get_logger().warning(f'gesture name {clipped(name)} refused: {exc}',
                                      throttle_duration_sec=5.0)
            return
        self._publish_config()
        if added:
            self.set_parameters([Parameter('labels', Parameter.Type.STRING_ARRAY, labels)])

    def _on_save(self, request, response):
        try:
            response.success, response.message = True, f'saved to {self.save()}'
        except (OSError, ValueError) as exc:
            self.counters.add('save_failures')
            response.success, response.message = False, f'not saved: {exc}'
        return response

    def _on_reset(self, request, response):
        response.success, response.message = self.live.reset_answer(self._now())
        self._publish_config()
        (self.get_logger().info if response.success else self.get_logger().warning)(
            response.message)
        return response

    def _collect(self):
        values = {**self.live.status(), **self.counters.snapshot(), **self._times.values(),
                  **self.live.file_status(), 'namesakes': self.namesakes.found,
                  'parameter_changes': self._parameter_changes.accepted,
                  'parameter_rejections': self._parameter_changes.refused}
        input_level, input_message = self._input.level()
        failed = self.live.save_error_now(self.get_parameter('save_error_seconds').value)
        for level, message in (  # the first that applies, the worst first
                (common.ERROR, failed and 'saving the model failed'),
                (common.WARN, self.namesakes.found and f'another node is named '
                                                       f'{self.namesakes.name}'),
                (input_level, input_level != common.OK and input_message),
                (common.WARN, self.live.problem or self.live.learning_problem())):
            if message:
                return level, message, values
        return common.OK, 'learning' if values['predictions'] else 'waiting for features', values


def main(args=None) -> None:
    """Run learner_node; a bad model file or parameter ends it with one readable line."""
    common.run_node(LearnerNode, args=args, name='learner_node',
                    errors=common.START_ERRORS + (ModelFileError, HyperparameterError))


if __name__ == '__main__':
    main()
