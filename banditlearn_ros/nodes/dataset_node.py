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
dataset_node: plays a data set as a gesture stream (features + true label), for demos and tests.

For each example it publishes the true label on the label topic and then the feature vector.
In lock-step it waits for the learner's prediction and the teacher's answer (or a timeout)
before the next example, so a run is exactly the offline protocol: same seed, same order.
When the learner announces finished interactions (``gesture_interaction``), the wait lasts
until the interaction is over, every question of it answered.
"""

import os
import time

from banditlearn_ros.learning.offline import dataset_parameters
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.protocol.simulated_teacher import stream_order
from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.events import read_event
import numpy as np
from std_msgs.msg import Bool, Float32MultiArray, MultiArrayDimension, String


class DatasetNode(common.GuardedNode):
    """Publish one labelled example after another, paced by rate or by lock-step."""

    def __init__(self, node_name: str = 'dataset_node', **kwargs):
        super().__init__(node_name, **kwargs)
        v = common.declare_specs(self, dataset_parameters.SPECS)
        name = v['dataset']
        feature_set = v['feature_set']
        self.rate = v['rate']
        self.lockstep = v['lockstep']
        self.answer_wait = v['answer_wait']
        self.prediction_wait = v['prediction_wait']
        shuffle = v['shuffle']
        seed = v['seed']
        passes = v['passes']
        max_examples = v['max_examples']
        self.wait_for_learner = v['wait_for_learner']
        self.wait_for_teacher = v['wait_for_teacher']
        self.start_delay = v['start_delay']
        self.exit_when_done = v['exit_when_done']
        period = v['diagnostics_period']
        if not self.lockstep and self.rate <= 0:
            raise ValueError('dataset_node: lockstep false needs rate > 0')

        self.X, self.y, self.label_names = load_dataset(name)
        self.feature_set = feature_set or os.path.splitext(os.path.basename(name))[0]
        self.order = stream_order(len(self.X), passes=passes, shuffle=shuffle, seed=seed,
                                  max_examples=max_examples)
        self.counters = common.Counters(
            ('examples_sent', 'answered', 'unanswered', 'no_prediction', 'feedback_unexpected',
             'interactions_ended'))
        self.sent = 0
        self.finished = False
        self._round = None
        self._ready_at = None
        self._last_sent = -1e9
        # Fixed relative names: namespaces and remapping move them (rclpy resolves them).
        self._features_pub = self.create_publisher(Float32MultiArray, 'gesture_features',
                                                   qos.EVENTS_OUT)
        self._label_pub = self.create_publisher(String, 'gesture_label', qos.EVENTS_OUT)
        self._feedback_sub = qos.subscribe_answers(self, self._on_feedback)
        self._prediction_sub = qos.subscribe_events(self, String, 'gesture_prediction',
                                                    self._on_prediction)
        self._interaction_sub = qos.subscribe_events(self, String, 'gesture_interaction',
                                                     self._on_interaction)
        self._timer = self.create_timer(1.0 / self.rate if self.rate > 0 else 0.01, self._tick)
        self.diagnostics = common.Diagnostics(self, 'banditlearn_ros: dataset_node',
                                              self._collect, period=period)
        self.get_logger().info(
            f'{self.feature_set}: {len(self.order)} examples of {self.X.shape[1]} features, '
            f'{len(self.label_names)} labels {self.label_names}; {common.topics_line(self)}')

    # -- pacing --------------------------------------------------------------------------
    def _tick(self) -> None:
        self._maybe_send(time.monotonic())

    def _maybe_send(self, now: float) -> None:
        if self.finished:
            return
        if self._round is not None:
            if not self._round_over(now):
                return
            self._round = None
        if self.sent >= len(self.order):
            self.finished = True
            c = self.counters.snapshot()
            self.get_logger().info(
                f'stream finished after {self.sent} examples ({c["answered"]} answers, '
                f'{c["unanswered"]} unanswered, {c["no_prediction"]} without a prediction)')
            return
        if self.rate > 0 and now - self._last_sent < 1.0 / self.rate - 1e-4:
            return
        if self._ready_at is None:
            missing = self._missing_peers()
            if missing:
                self.get_logger().info(f'waiting for {missing}', throttle_duration_sec=5.0)
                return
            self._ready_at = now + self.start_delay
        if now < self._ready_at:
            return
        self._send(now)

    def _missing_peers(self) -> str:
        # Counted on the endpoints themselves: the names after namespace and remapping.
        if self.wait_for_learner and self._features_pub.get_subscription_count() == 0:
            return f'a learner subscribed to {self._features_pub.topic_name}'
        if self.lockstep and self.wait_for_teacher:
            if self._label_pub.get_subscription_count() == 0:
                return f'a teacher subscribed to {self._label_pub.topic_name}'
            for sub in (self._prediction_sub, self._feedback_sub):
                if sub.get_publisher_count() == 0:
                    return f'a publisher on {sub.topic_name}'
        return ''

    def _round_over(self, now: float) -> bool:
        r = self._round
        if r['answered']:
            return True
        if r['predicted'] is not None:
            if now - r['predicted'] >= self.answer_wait:
                self.counters.add('unanswered')
                return True
            return False
        if now - r['sent'] >= self.prediction_wait:
            self.counters.add('no_prediction')
            return True
        return False

    def _send(self, now: float) -> None:
        i = int(self.order[self.sent])
        x = self.X[i].astype(np.float32)
        msg = Float32MultiArray()
        msg.layout.dim = [MultiArrayDimension(label=self.feature_set, size=x.size,
                                              stride=x.size)]
        msg.data = x.tolist()
        self._label_pub.publish(String(data=self.label_names[int(self.y[i])]))
        self._features_pub.publish(msg)
        self.sent += 1
        self._last_sent = now
        self.counters.add('examples_sent')
        if self.lockstep:
            self._round = {'sent': now, 'predicted': None, 'answered': False, 'asked': False}

    def _on_prediction(self, msg: String) -> None:
        # Every question (re)starts the wait for its answer.
        if self._round is not None and not self._round['answered']:
            self._round['predicted'] = time.monotonic()
            self._round['asked'] = True

    def _on_feedback(self, msg: Bool) -> None:
        r = self._round
        if r is None or r['predicted'] is None or r['answered'] or not r['asked']:
            self.counters.add('feedback_unexpected')
            return
        self.counters.add('answered')
        r['asked'] = False
        if self._interaction_sub.get_publisher_count() > 0:
            # The learner says when the interaction is over (it may ask again): wait for
            # that, or for the next question, at most answer_wait.
            r['predicted'] = time.monotonic()
            return
        self._end_round()

    def _on_interaction(self, msg: String) -> None:
        # An interaction that timed out may be announced during a later round (when the
        # next gesture cut it short): only an answered end closes the current round.
        try:
            if read_event(msg.data).get('outcome') == 'timed_out':
                return
        except (ValueError, AttributeError):
            return
        if self._round is not None and self._round['predicted'] is not None:
            self.counters.add('interactions_ended')
            self._end_round()

    def _end_round(self) -> None:
        if self._round is None or self._round['answered']:
            return
        self._round['answered'] = True
        if self.rate <= 0:
            self._maybe_send(time.monotonic())

    def _collect(self):
        values = self.counters.snapshot()
        values.update(dataset=self.feature_set, examples_total=len(self.order),
                      finished=self.finished)
        return common.OK, 'finished' if self.finished else 'playing', values


def main(args=None) -> None:
    """Run dataset_node; with exit_when_done it ends after the stream."""
    common.run_node(DatasetNode, args=args, name='dataset_node',
                    until=lambda node: node.exit_when_done and node.finished)


if __name__ == '__main__':
    main()
