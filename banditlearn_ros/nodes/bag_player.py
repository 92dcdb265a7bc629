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
bag_player: a recorded teaching session played to the learner, one gesture at a time.

The package's own player for the replay system (``banditlearn_bringup --system replay``,
``launch/replay.launch.py`` uses ``ros2 bag play`` instead).  In lock-step it publishes a
gesture's label and features, waits for the learner's question and answers it with the
recorded yes/no (``answers: recorded``), or leaves the answer to teacher_node (``answers:
teacher``), before the next gesture; so a run over DDS gives the figures of
``banditlearn_bag replay`` on the same bag whatever the machine's speed.  A round ends on the
learner's word that the gesture's interaction ended (``gesture_interaction``, whose ids the
question details carry), not on a clock: ``prediction_wait`` and ``answer_wait`` only bound
the wait for a learner that says nothing (a refused vector, a silent teacher).
"""

import time
from typing import List, Optional

from banditlearn_ros.bags import bag_player_parameters
from banditlearn_ros.bags.recorded_session import sample_session_path
from banditlearn_ros.learning.offline.replay import FEATURES, FEEDBACK, LABEL
from banditlearn_ros.nodes import common
from banditlearn_ros.nodes.events import read_event
from rclpy.duration import Duration
from std_msgs.msg import Bool, Float32MultiArray, MultiArrayDimension, String


class Gesture:
    """One recorded gesture: its true label, features and the answers that followed it."""

    def __init__(self, label: Optional[str], features: List[float], stamp: float):
        self.label = label
        self.features = features
        self.stamp = stamp
        self.answers: List[bool] = []


def gestures_of(events) -> List[Gesture]:
    """Group session events into gestures (answers before the first gesture are dropped)."""
    out: List[Gesture] = []
    label = None
    for event in events:
        if event.kind == LABEL:
            label = str(event.value)
        elif event.kind == FEATURES:
            out.append(Gesture(label, list(event.value), event.stamp))
            label = None
        elif event.kind == FEEDBACK and out:
            out[-1].answers.append(bool(event.value))
    return out


class BagPlayerNode(common.GuardedNode):
    """Play a bag's gestures to the learner in lock-step (or at the recorded pace)."""

    def __init__(self, node_name: str = 'bag_player', **kwargs):
        super().__init__(node_name, **kwargs)
        v = common.declare_specs(self, bag_player_parameters.SPECS)
        path = v['bag']
        self.answers = v['answers']
        self.lockstep = v['lockstep']
        self.rate = v['rate']
        # Bounds, not pacing: a loaded machine took more than 5 s to ask (then the next
        # gesture cut the question short and the figures changed).
        self.prediction_wait = v['prediction_wait']
        self.answer_wait = v['answer_wait']
        self.start_delay = v['start_delay']
        self.exit_when_done = v['exit_when_done']
        period = v['diagnostics_period']
        if self.answers not in ('recorded', 'teacher'):
            raise ValueError(f"bag_player: answers {self.answers!r}: use 'recorded' or "
                             "'teacher'")
        from banditlearn_ros import bags as bagio
        from banditlearn_ros.bags.changes import RecordedChanges
        from banditlearn_ros.bags.recorded_session import read_events, recorded_config
        self.path = path or sample_session_path()
        with bagio.open_bag(self.path) as bag:
            events, _ = read_events(bag)
            self.feature_set = bag.custom_data.get(bagio.CUSTOM_FEATURE_SET, 'bag')
            recorded = recorded_config(bag)
        # The learner's recorded changes, made again at their counts (lock-step only).
        self.changes = RecordedChanges(self, recorded['changes']) if recorded and \
            recorded['changes'] and self.lockstep else None
        self.answers_played = 0
        self.gestures = gestures_of(events)
        if not self.gestures:
            raise ValueError(f'bag_player: {self.path} holds no gesture to play')
        self.counters = common.Counters(('gestures_sent', 'questions', 'answers_sent',
                                         'no_question', 'answers_received', 'no_answer'))
        self.sent = 0
        self.finished = False
        self._round = None
        self._start_at: Optional[float] = None
        self._first: Optional[float] = None
        # Topic names are relative and changed by remapping only, as in every node here.
        self._features_pub = self.create_publisher(Float32MultiArray, 'gesture_features', 10)
        self._label_pub = self.create_publisher(String, 'gesture_label', 10)
        self._feedback_pub = self.create_publisher(Bool, 'gesture_feedback', 10)
        self.create_subscription(String, 'gesture_prediction', self._on_question, 10)
        if self.answers == 'teacher':
            self.create_subscription(Bool, 'gesture_feedback', self._on_answer, 10)
        # The learner's interaction ids: the highest heard, and the ends of interactions.
        self._last_id = -1
        self.create_subscription(String, 'gesture_prediction_details', self._on_details, 10)
        self._ends = self.create_subscription(String, 'gesture_interaction', self._on_end, 10)
        self._timer = self.create_timer(0.01, self._tick)
        self.diagnostics = common.Diagnostics(self, 'banditlearn_ros: bag_player',
                                              self._collect, period=period)
        self.get_logger().info(f'{self.path}: {len(self.gestures)} gestures, answers '
                               f'{self.answers}, {"lock-step" if self.lockstep else "paced"}')

    # -- pacing --------------------------------------------------------------------------
    def _tick(self) -> None:
        now = time.monotonic()
        if self.finished:
            return
        if self._start_at is None:
            if self._features_pub.get_subscription_count() == 0:
                return
            self._start_at = now + self.start_delay
        if now < self._start_at:
            return
        if self._round is not None and self._round.get('deferred'):
            if not self.changes.busy(self.sent, self.answers_played):
                self._round['deferred'] = False
                self._answer(now)
            return
        if self._round is not None and not self._round_over(now):
            return
        self._round = None
        if self.changes is not None and self.changes.busy(self.sent, self.answers_played):
            return  # a change the learner made before this gesture: first
        if self.sent >= len(self.gestures):
            self.finished = True
            self.get_logger().info(f'played {self.sent} gestures')
            return
        gesture = self.gestures[self.sent]
        if not self.lockstep:
            if self._first is None:
                self._first = gesture.stamp - (now - self._start_at) * self.rate
            if (gesture.stamp - self._first) / self.rate > now - self._start_at:
                return
        self._send(gesture, now)

    def _send(self, gesture: Gesture, now: float) -> None:
        if gesture.label is not None:
            self._label_pub.publish(String(data=gesture.label))
        msg = Float32MultiArray()
        size = len(gesture.features)
        msg.layout.dim = [MultiArrayDimension(label=self.feature_set, size=size, stride=size)]
        msg.data = [float(v) for v in gesture.features]
        self._features_pub.publish(msg)
        self.sent += 1
        self.counters.add('gestures_sent')
        self._round = {'gesture': gesture, 'asked_at': now, 'questions': 0, 'answered': 0,
                       'done': False, 'after': self._last_id, 'ended': False}
        if not self.lockstep and self.answers == 'recorded':
            for answer in gesture.answers:
                self._feedback_pub.publish(Bool(data=answer))
                self.counters.add('answers_sent')
                self.answers_played += 1
            self._round['done'] = True

    def _round_over(self, now: float) -> bool:
        r = self._round
        if r['done']:
            return True
        if self.answers == 'recorded':
            if r['answered'] >= len(r['gesture'].answers):
                return (r['answered'] > 0 or r['questions'] > 0 or r['ended']
                        or now - r['asked_at'] >= self.prediction_wait)
            if r['ended'] or now - r['asked_at'] >= self.prediction_wait:
                # No (further) question comes: answer anyway, as the recording did (the
                # learner drops it).
                self.counters.add('no_question')
                self._answer(now)
            return False
        if r['ended']:  # the learner has every answer of this gesture
            return True
        if now - r['asked_at'] >= (self.answer_wait if r['questions'] else self.prediction_wait):
            self.counters.add('no_question' if not r['questions'] else 'no_answer')
            return True
        return False

    def _answer(self, now: float) -> None:
        r = self._round
        answer = r['gesture'].answers[r['answered']]
        r['answered'] += 1
        self.answers_played += 1
        r['asked_at'] = now
        self._feedback_pub.publish(Bool(data=answer))
        self.counters.add('answers_sent')
        # The learner must hold this answer before the next gesture's features reach it.
        self._feedback_pub.wait_for_all_acked(Duration(seconds=2.0))

    def _on_question(self, msg: String) -> None:
        r = self._round
        if r is None or r['done']:
            return
        self.counters.add('questions')
        r['questions'] += 1
        r['asked_at'] = time.monotonic()
        if self.answers == 'recorded' and self.lockstep and \
                r['answered'] < len(r['gesture'].answers):
            if self.changes is not None and self.changes.busy(self.sent, self.answers_played):
                r['deferred'] = True  # a change the learner made before this answer: first
                return
            self._answer(time.monotonic())

    def _on_answer(self, msg: Bool) -> None:
        r = self._round
        if r is None or r['done'] or not r['questions']:
            return
        self.counters.add('answers_received')
        r['asked_at'] = time.monotonic()
        if self._ends.get_publisher_count() == 0:  # a learner that announces no ends
            r['done'] = True

    def _interaction_id(self, msg: String) -> Optional[int]:
        try:
            return int(read_event(msg.data)['id'])
        except (ValueError, KeyError, TypeError, OverflowError):
            return None

    def _on_details(self, msg: String) -> None:
        ident = self._interaction_id(msg)
        if ident is not None:
            self._last_id = max(self._last_id, ident)

    def _on_end(self, msg: String) -> None:
        """End the round when an interaction begun after its gesture was sent ended."""
        ident = self._interaction_id(msg)
        if ident is None:
            return
        self._last_id = max(self._last_id, ident)
        r = self._round
        if r is not None and ident > r['after']:
            r['ended'] = True

    @property
    def rounds_done(self) -> int:
        """Return the gestures whose round is over (their answers in)."""
        return self.sent - (1 if self._round is not None and not self.finished else 0)

    def _collect(self):
        values = self.counters.snapshot()
        values.update(bag=self.path, gestures_total=len(self.gestures), finished=self.finished)
        return common.OK, 'finished' if self.finished else 'playing', values


NODE_CLASS = BagPlayerNode


def main(args=None) -> None:
    """Run bag_player until it has played the bag (exit_when_done), Ctrl-C or SIGTERM."""
    common.run_node(BagPlayerNode, args=args, name='bag_player',
                    until=lambda node: node.exit_when_done and node.finished)


if __name__ == '__main__':
    main()
