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

After a "no" it asks its next-best label itself (up to ``max_questions`` per gesture), and
announces how each interaction ended (``gesture_interaction``) and when it ended without a
"yes" (``gesture_unknown``: every label rejected, out of questions, or with
``unknown_rejection`` a gesture that looks never taught, before any question), after which a
name on ``gesture_name`` teaches the gesture (a known label, or a new one).  The node converts
messages and parameters; the questions, the learning and the feedback-matching rule live in
``banditlearn_ros.learning`` (``ask_again``, ``interaction.Interaction``), so they are tested
without DDS.
"""

from collections import deque
import json
import os
import time
from typing import List

from banditlearn_ros.learning import HyperparameterError, LearnerInputError, ModelFileError
from banditlearn_ros.learning import learner_parameters as lp, session_config
from banditlearn_ros.learning.ask_again import NAMEABLE
from banditlearn_ros.learning.details import details_json
from banditlearn_ros.learning.labels import clipped
from banditlearn_ros.learning.live_learner import LiveLearner
from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.namesake import NamesakeWatch
from rclpy.parameter import Parameter
from std_msgs.msg import Bool, Float32MultiArray, String
from std_srvs.srv import Trigger


class LearnerNode(common.GuardedNode):
    """Select a label for each feature message and learn from the yes/no that follows."""

    def __init__(self, node_name: str = 'learner_node', **kwargs):
        super().__init__(node_name, **kwargs)
        self.counters = common.Counters(
            ('features_received', 'features_too_long', 'features_model_too_large', 'saves',
             'save_failures', 'resets', 'labels_added', 'unknown_gestures',
             'gestures_named', 'gestures_told', 'names_refused'))
        lp.check_algorithm(common.declare_specs(self, lp.HEAD_SPECS)['algorithm'])
        common.declare_specs(self, tuple(lp.hyperparameter_specs()) + lp.TAIL_SPECS)
        self._times = deque(maxlen=200)
        path = self.get_parameter('model_path').value
        self.live = LiveLearner(lambda name: self.get_parameter(name).value,
                                os.path.expanduser(path) if path else '', self.get_logger())
        self.interaction = self.live.interaction
        if self.live.labels_from_file:
            self._set_labels(self.live.labels)
        if self.live.loaded_from:
            learner = self.interaction.learner
            self.get_logger().info(
                f'loaded {learner.name} model with {learner.n_labels} labels, '
                f'{learner.n_features} features, {learner.n_updates} updates from '
                f'{self.live.loaded_from}')
        self._details_top = self.get_parameter('details_top').value
        self._parameter_changes = common.ParameterChanges.of(self)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.add_post_set_parameters_callback(self._after_set_parameters)
        self._input = common.RecentRefusals()

        # Topic names are fixed and relative: namespaces and remapping move them.
        # The feedback subscription is created first: when a yes/no and the next feature
        # vector are ready together, the executor runs the yes/no first.
        # Messages their publishers gave up on during a network drop-out (see qos.py).
        for name in ('feedback_lost', 'features_lost'):
            self.counters.add(name, 0)
        self._feedback_sub = qos.subscribe_events(
            self, Bool, 'gesture_feedback', self._on_feedback,
            lambda n: self.counters.add('feedback_lost', n))
        self._features_sub = qos.subscribe_events(
            self, Float32MultiArray, 'gesture_features', self._on_features,
            lambda n: self.counters.add('features_lost', n))
        self._prediction_pub = self.create_publisher(String, 'gesture_prediction',
                                                     qos.EVENTS_OUT)
        self._details_pub = self.create_publisher(String, 'gesture_prediction_details',
                                                  qos.EVENTS_OUT)
        self._interaction_pub = self.create_publisher(String, 'gesture_interaction',
                                                      qos.EVENTS_OUT)
        self._unknown_pub = self.create_publisher(String, 'gesture_unknown', qos.EVENTS_OUT)
        self.create_timer(0.25, self._publish_ended)  # interactions that timed out
        # A person names the gesture every label was rejected for (gesture_unknown).
        self.create_subscription(String, 'gesture_name', self._on_name, qos.EVENTS_IN)
        self.create_service(Trigger, '~/save_model', self._on_save)
        self.create_service(Trigger, '~/reset_model', self._on_reset)
        # What a recording needs to replay this learner: latched, so a late recorder has it.
        self._config_pub = self.create_publisher(String, session_config.TOPIC, qos.LATCHED)
        self.live.start_config(self._now())
        self._publish_config()
        self.namesakes = NamesakeWatch(self)  # a second learner of this name: said once
        self.diagnostics = common.Diagnostics(
            self, 'banditlearn_ros: learner_node', self._collect,
            period=self.get_parameter('diagnostics_period').value)
        self.live.started()  # the compiled UCWL steps load from now
        self.get_logger().info(
            f'{self.live.algorithm} learner ready: labels {self.live.labels}, '
            f'{self.interaction.n_features or "feature size from the first message"}, '
            f'model file {self.live.saves.path or "(none: memory only)"}; '
            f'{common.topics_line(self)}')

    # -- parameters ----------------------------------------------------------------------
    def _on_set_parameters(self, params: List[Parameter]):
        """Validate a change (on-set): refuse it with the reason, change nothing."""
        try:
            self.live.check_change({p.name: p.value for p in params})
        except (HyperparameterError, ValueError, TypeError) as exc:
            return self._parameter_changes.refuse(str(exc))
        return common.accept()

    def _after_set_parameters(self, params: List[Parameter]) -> None:
        """Apply a change rclpy has stored (post-set); it was validated in on-set."""
        new_labels = self.live.apply_change({p.name: p.value for p in params})
        self.live.note_change(session_config.PARAMETERS, self._now(),
                              changed={p.name: p.value for p in params})
        self._publish_config()
        if new_labels:
            self.counters.add('labels_added', len(new_labels))
            self.get_logger().info(f'labels added: {new_labels}')

    def _publish_config(self) -> None:
        self._config_pub.publish(String(data=self.live.config.text()))

    def _set_labels(self, labels: List[str]) -> None:
        self.set_parameters([Parameter('labels', Parameter.Type.STRING_ARRAY, list(labels))])

    # -- model file ----------------------------------------------------------------------
    def save(self) -> str:
        """Save the model atomically; return where (raises OSError or ValueError)."""
        path = self.live.save()
        self.counters.add('saves')
        return path

    def close(self) -> bool:
        """Save on shutdown when asked to (``run_node``, the bring-up); False if that failed."""
        self.live.autosaves.close()  # an autosave under way ends first
        if not self.get_parameter('save_on_shutdown').value:
            return True
        if self.live.saves.path and self.interaction.learner is not None:
            logger = common.shutdown_logger(self)
            try:
                self.save()
                logger.info(f'model saved to {self.live.saves.path} on shutdown')
            except (OSError, ValueError) as exc:
                self.counters.add('save_failures')
                logger.error(f'could not save the model on shutdown: {exc}')
                return False
        return True

    # -- callbacks -----------------------------------------------------------------------
    def _on_features(self, msg: Float32MultiArray) -> None:
        start = time.perf_counter()
        self.counters.add('features_received')
        self.live.features_seen += 1
        data = msg.data[msg.layout.data_offset:] if msg.layout.data_offset else msg.data
        reason = self.live.size_problem(len(data))
        if reason:
            self.counters.add('features_' + reason)
            self._input.add(True, f'{reason}: {len(data)} values')
            self.get_logger().warning(
                f'feature message refused ({reason}: {len(data)} values)',
                throttle_duration_sec=5.0)
            return
        with self.live.lock:
            item, reason = self.interaction.predict(data)
        expected = f'{len(data)} values, {self.interaction.n_features or "any"} expected'
        self._input.add(item is None, f'{reason}: {expected}')
        self._publish_ended()  # the interaction this gesture cut short
        if item is None:
            self.get_logger().warning(f'feature message refused ({reason}: {expected})',
                                      throttle_duration_sec=5.0)
            return
        self._ask(item)
        self._times.append(time.perf_counter() - start)

    def _ask(self, item) -> None:
        """Say one question: the label for speech, then its details with the ids."""
        if item.questions.declined:  # rejected as never taught: gesture_unknown asks its name
            return
        self._prediction_pub.publish(String(data=item.prediction.label))
        # The input counts let a replay take a recording's messages in this order.
        inputs = (self.live.features_seen, self.interaction.counts['feedback_received'])
        self._details_pub.publish(String(data=details_json(item, self._now(),
                                                           self._details_top, inputs)))

    def _now(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _publish_ended(self) -> None:
        """Announce finished interactions, and those a person may name (gesture_unknown)."""
        for ended in self.interaction.take_ended():
            info = {**ended.as_dict(), 'stamp': self._now()}
            self._interaction_pub.publish(String(data=json.dumps(info)))
            if ended.outcome in NAMEABLE:
                self._unknown_pub.publish(String(data=json.dumps(
                    {'id': ended.id, 'labels': info['rejected'], 'outcome': ended.outcome,
                     'stamp': info['stamp'], **{k: v for k, v in info.items()
                                                if k.startswith('unknown_')}})))
            if ended.outcome == 'unknown':
                self.counters.add('unknown_gestures')
                self.get_logger().info(f'interaction {ended.id}: looks never taught (score '
                                       f'{info["unknown_score"]}, threshold '
                                       f'{info["unknown_threshold"]}): what is it?')
            if ended.outcome == 'all_rejected':
                self.counters.add('unknown_gestures')
                self.get_logger().info(f'interaction {ended.id}: every label was rejected '
                                       '(an unknown gesture?)')

    def _on_feedback(self, msg: Bool) -> None:
        result, _ = self.live.feedback(bool(msg.data))
        if result.outcome != 'matched':
            self.get_logger().info(f'feedback dropped ({result.outcome})',
                                   throttle_duration_sec=5.0)
            return
        if result.next_round is not None:
            self._ask(result.next_round)
        self._publish_ended()  # a due autosave runs in the writer thread (live.autosaves)

    def _on_name(self, msg: String) -> None:
        """Learn the name said for the latest gesture without a "yes" (known or new label)."""
        name = msg.data.strip()
        try:
            labels, added = self.live.name_unknown(name)
        except (LearnerInputError, ValueError) as exc:
            self.counters.add('names_refused')
            # Throttled and clipped: a sender repeating a bad name cannot flood the log.
            self.get_logger().warning(f'gesture name {clipped(name)} refused: {exc}',
                                      throttle_duration_sec=5.0)
            return
        self.live.note_change(session_config.NAMED, self._now(), name=name)
        self._publish_config()
        if not added:
            self.counters.add('gestures_told')
            self.get_logger().info(f'told: the last gesture was {name!r}')
            return
        self.counters.add('gestures_named')
        self.counters.add('labels_added')
        # The parameter follows; the learner has the label already, so nothing is added twice.
        self._set_labels(labels)
        self.get_logger().info(f'the unknown gesture is now {name!r}: labels {labels}')

    def _on_save(self, request, response):
        try:
            path = self.save()
        except (OSError, ValueError) as exc:
            self.counters.add('save_failures')
            response.success, response.message = False, f'not saved: {exc}'
        else:
            response.success, response.message = True, f'saved to {path}'
        return response

    def _on_reset(self, request, response):
        self.live.reset()
        self.live.note_change(session_config.RESET, self._now())
        self._publish_config()
        self.counters.add('resets')
        response.success = True
        response.message = ('model reset to a fresh one; the model file is replaced at the '
                            'next save')
        self.get_logger().info(response.message)
        return response

    # -- diagnostics ---------------------------------------------------------------------
    def _collect(self):
        values = self.live.status()
        values.update(self.counters.snapshot())
        values['parameter_changes'] = self._parameter_changes.accepted
        values['parameter_rejections'] = self._parameter_changes.refused
        times = list(self._times)
        values['processing_ms_mean'] = 1e3 * sum(times) / len(times) if times else 0.0
        values['processing_ms_max'] = 1e3 * max(times) if times else 0.0
        values.update(self.live.file_status())
        level, message = common.OK, 'learning'
        input_level, input_message = self._input.level()
        values['namesakes'] = self.namesakes.found
        if self.live.saves.error_now(self.get_parameter('save_error_seconds').value):
            level, message = common.ERROR, 'saving the model failed'
        elif self.namesakes.found:
            level, message = common.WARN, f'another node is named {self.namesakes.name}'
        elif input_level != common.OK:
            level, message = input_level, input_message
        elif self.live.problem:
            level, message = common.WARN, self.live.problem
        elif (not_learning := self.live.learning_problem()):
            level, message = common.WARN, not_learning
        elif values['predictions'] == 0:
            message = 'waiting for features'
        return level, message, values


def main(args=None) -> None:
    """Run learner_node; a bad model file or parameter ends it with one readable line."""
    common.run_node(LearnerNode, args=args, name='learner_node',
                    errors=common.START_ERRORS + (ModelFileError, HyperparameterError))


if __name__ == '__main__':
    main()
