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
feedback_node: a person's yes/no for the last prediction, from a nod/shake or a button.

Camera images -> head pose (Face Mesh + solvePnP) -> nod/shake detector -> a yes/no (nod =
true = right) keyed with the question heard last on ``gesture_answer`` (``answer_key``; a
std_msgs/Bool on ``gesture_feedback`` before any question was heard), the decision's
confidence on ``feedback_confidence``.
With ``listen_on_prediction`` head motion counts only inside a window that opens when a
question is published (every question of an interaction: the learner asks again after
a "no"; ``feedback_listening`` says when). Listening always or in a window, an answer
belongs to its question: each question tells the detector (``HeadGestureDetector.question``)
that motion begun before it, such as the rest of the shake that answered the last one,
must not answer it, and lifts the last answer's refractory block. Buttons answer too:
sensor_msgs/Joy (two button indices), y/n typed in the terminal (``keyboard``), and any
std_msgs/Bool topics listed in ``bool_topics``. With hri_msgs installed, every face's nods
and shakes also go out as ROS4HRI action units and engagement gates the answers
(``hri_bridge``). The vision work is in ``banditlearn_ros.vision``; this node only carries
messages.
"""

import math
from operator import methodcaller
import time
from typing import Any, Dict

from banditlearn_ros.learning.protocol import answer_key
from banditlearn_ros.nodes import common, hri_bridge, qos
from banditlearn_ros.nodes.bridge import check_transport, frame_of, FrameWatch
from banditlearn_ros.nodes.events import read_event
from banditlearn_ros.nodes.managed import ManagedNode
from banditlearn_ros.vision import feedback_parameters as rules
from banditlearn_ros.vision.frame_source import BackgroundLoad, IMPORT_DELAY, LOAD_WAIT
from banditlearn_ros.vision.head_answers import HeadAnswers, Released
from banditlearn_ros.vision.head_gesture import HeadGestureDetector
from banditlearn_ros.vision.hri_faces import GATE_MODES
from banditlearn_ros.vision.mediapipe_hands import import_mediapipe
from sensor_msgs.msg import Joy
from std_msgs.msg import Bool, Float32, String


class FeedbackNode(ManagedNode):
    """
    Publish right/wrong from head gestures, a joystick, the keyboard or Bool topics.

    A managed node: configure makes the detector of the parameters and imports MediaPipe
    (in a thread); activate takes the subscriptions, the keyboard and Face Mesh's graph;
    deactivate releases them, so waking costs a graph (0.01 s), not an import.
    """

    def __init__(self, node_name: str = 'feedback_node', **kwargs):
        super().__init__(node_name, **kwargs)
        v = common.declare_specs(self, rules.SPECS)
        self.bool_topics, self.use_camera = v['bool_topics'], v['use_camera']
        if v['joy_right_button'] == v['joy_wrong_button']:
            raise ValueError('joy_right_button and joy_wrong_button must differ')
        check_transport(v['image_transport'])
        if v['engagement_gate'] not in GATE_MODES:
            raise ValueError(f"engagement_gate must be one of {' | '.join(GATE_MODES)}")
        self._watch = FrameWatch(self.get_logger())
        self.counters = common.Counters((
            'frames', 'frames_skipped', 'frames_no_face', 'unsupported_encoding', 'bad_image',
            'frame_too_large', 'pose_errors', 'nods', 'shakes', 'gestures_ignored', 'joy_answers',
            'keyboard_answers', 'bool_answers', 'predictions', 'windows_timed_out',
            'parameter_rejections', 'action_units_published', 'answers_not_engaged',
            'gestures_of_unnamed_faces', 'gestures_of_other_faces'))
        self.head = self._last_decision = self._keyboard_thread = self._import = None
        self.hri, self._frame_header, self._hri_line = None, None, 'ROS4HRI bridge off: no camera'
        self._heard = answer_key.HeardQuestion()
        self._taken, self._timer, self._keyboard = [], None, None
        self._rate = common.RateMeter()
        self._last_warn: Dict[str, float] = {}
        common.watch_changes(self, self._check_change, self._apply_change)

        # Fixed relative names: namespaces and remapping move them.
        self._feedback_pub = self.create_publisher(Bool, 'gesture_feedback', qos.EVENTS_OUT)
        self._answer_pub = self.create_publisher(String, answer_key.TOPIC, qos.EVENTS_OUT)
        self._confidence_pub = self.create_publisher(Float32, 'feedback_confidence',
                                                     qos.EVENTS_OUT)
        self._listening_pub = self.create_publisher(Bool, 'feedback_listening', qos.LATCHED)
        self.diagnostics = common.Diagnostics(self, 'banditlearn_ros: feedback_node',
                                              self._collect, period=v['diagnostics_period'])
        self.start()

    # -- lifecycle ---------------------------------------------------------------------
    def configure(self) -> None:
        """Make the buttons, the nod/shake detector, the listening window; import MediaPipe."""
        v = common.values_of(self, [spec.name for spec in rules.SPECS])
        self.listen_window, self.close_on_answer = v['listen_window'], v['close_on_answer']
        self.buttons = rules.ButtonPresses(v['joy_right_button'], v['joy_wrong_button'])
        self.detector = HeadGestureDetector(**{k: v[k] for k in rules.DETECTOR_PARAMETERS})
        self.head = HeadAnswers(self.detector, {
            'max_faces': v['max_faces'], 'focal': v['focal_length'] or None,
            'baseline_warmup': v['baseline_frames']}, v['idle_every'])
        self.window = rules.ListeningWindow(v['listen_on_prediction'], self._question)
        if self.use_camera:  # about a second of CPU, in a thread; /diagnostics says when
            self._import = BackgroundLoad(import_mediapipe, 'mediapipe_import', IMPORT_DELAY)

    def activate(self) -> None:
        """Open Face Mesh, take the subscriptions, the window's timer and the keyboard."""
        subscribe = self._taken.append
        if self.use_camera:  # Face Mesh loads in a thread; /diagnostics says when it failed
            self.head.restart()  # a new stream: the person followed before the pause is gone
            self.head.start_loading(after=self._import.wait)  # not before the import
            subscribe(self._watch.subscribe(self, self.get_parameter('image_transport').value,
                                            self._on_image, qos.IMAGES))
            self.hri, self._hri_line = hri_bridge.start(self)
        subscribe(qos.subscribe_events(self, String, 'gesture_prediction', self._on_prediction))
        subscribe(qos.subscribe_events(self, String, 'gesture_prediction_details',
                                       self._on_details))
        subscribe(qos.subscribe_events(self, Joy, 'joy', self._on_joy))
        for topic in self.bool_topics:
            if self.resolve_topic_name(topic) == self._feedback_pub.topic_name:
                self.get_logger().error(f'bool_topics: {topic!r} is the output topic; skipped '
                                        '(it would echo every answer forever)')
                continue
            subscribe(qos.subscribe_events(self, Bool, topic, self._on_bool))
        self._publish_listening()
        self._timer = self.create_timer(0.05, self._check_window)
        self._keyboard = rules.KeyboardAnswers(self._on_key)
        if self.get_parameter('keyboard').value:
            if self._keyboard.available():
                self._keyboard_thread = self._keyboard.start()
                self.get_logger().info('keyboard answers on: type y (right) or n (wrong) '
                                       'and Enter')
            else:
                self.get_logger().warning('keyboard is true but stdin is not a terminal; '
                                          'keyboard answers are off')
        self.get_logger().info(
            f'feedback ready (camera {"on" if self.use_camera else "off"}, keyboard '
            f'{"on" if self._keyboard_thread else "off"}, {self._hri_line}); '
            f'{common.topics_line(self)}')

    def deactivate(self) -> None:
        """Drop the subscriptions, the timer and the keyboard; release Face Mesh."""
        for sub in self._taken:
            self.destroy_subscription(sub)
        self._taken = []
        self.release('_timer', self.destroy_timer)
        self.release('_keyboard', methodcaller('stop'), forget=False)
        self._keyboard_thread = None
        self.release('head', methodcaller('close'), forget=False)
        self.release('hri', methodcaller('close'))

    def cleanup(self) -> None:
        """Forget the detector (configure makes it again of the parameters)."""
        self.deactivate()
        self.release('_import', methodcaller('join', LOAD_WAIT))
        self.head = None

    # -- answers -----------------------------------------------------------------------
    def publish_answer(self, right: bool, confidence: float, source: str,
                       keyed: bool = True) -> None:
        """
        Publish one yes/no and its confidence; close the listening window if configured.

        Keyed with the question heard last (``gesture_answer``), so a page tap at the same
        moment is not a second answer; a Bool passed on (``keyed`` False: its publisher's
        question is unknown here) or one before any question goes to the latest open one.
        """
        text = self._heard.answer(right, source) if keyed else None
        if text is None:
            self._feedback_pub.publish(Bool(data=bool(right)))
        else:
            self._answer_pub.publish(String(data=text))
        self._confidence_pub.publish(Float32(data=float(confidence)))
        self.get_logger().info(f'answer: {"right" if right else "wrong"} from {source} '
                               f'(confidence {confidence:.2f})')
        if self.window.on_prediction and self.close_on_answer:
            self._set_listening(False)

    def _on_joy(self, msg: Joy) -> None:
        for index, right in self.buttons.presses(msg.buttons):
            self.counters.add('joy_answers')
            self.publish_answer(right, 1.0, f'joy button {index}')

    def _on_bool(self, msg: Bool) -> None:
        self.counters.add('bool_answers')
        self.publish_answer(bool(msg.data), 1.0, 'Bool topic', keyed=False)

    def _on_key(self, answer: bool) -> None:
        self.counters.add('keyboard_answers')
        self.publish_answer(answer, 1.0, 'keyboard')

    # -- listening window --------------------------------------------------------------
    def _on_prediction(self, msg: String) -> None:
        self.counters.add('predictions')
        # A new question: motion begun before it answers nothing, and the last answer's
        # refractory block must not make its window start deaf.
        if not self.window.on_prediction:
            self._question()
        elif self.window.question(None if self.use_camera else self._now(), self.listen_window):
            self._publish_listening()  # with a camera, from the next frame's stamp on

    def _question(self) -> None:
        self.head.question()
        if self.hri is not None:
            self.hri.question()

    def _on_details(self, msg: String) -> None:
        """Keep the (interaction, question) asked last: the answers name it (answer_key)."""
        try:
            event = read_event(msg.data)
        except ValueError:
            event = None  # unreadable: answers go out as Bools (latest open question)
        self._heard.heard(event)

    def _set_listening(self, listening: bool) -> None:
        if self.window.switch(listening):
            self._publish_listening()

    def _publish_listening(self) -> None:
        self._listening_pub.publish(Bool(data=self.window.listening))

    def _now(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _check_window(self, stamp=None) -> None:
        # With a camera the window runs on frame time (each frame calls this), as the detector.
        if stamp is not None or not self.use_camera:
            if self.window.at_frame(self._now() if stamp is None else stamp):
                self.counters.add('windows_timed_out')
                self._publish_listening()

    @property
    def listening(self) -> bool:
        """Return whether head gestures count now."""
        return self.window.listening

    # -- camera ------------------------------------------------------------------------
    def _warn(self, key: str, text: str) -> None:
        now = time.monotonic()
        if now - self._last_warn.get(key, -math.inf) >= 5.0:
            self._last_warn[key] = now
            self.get_logger().warning(text)

    def _stamp(self, msg) -> float:
        stamp = msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec
        return stamp if stamp > 0 else self._now()

    def _on_image(self, msg) -> None:
        self._watch.frame(msg)
        frame = frame_of(msg, self.get_parameter('max_frame_bytes').value, self.counters,
                         lambda kind, exc: self._warn(kind, f'image dropped: {exc}'))
        if frame is None:
            return
        stamp = self._stamp(msg)
        self._check_window(stamp)
        if self.head.loading or not self.head.due(self.window.listening, stamp):
            self.counters.add('frames_skipped')
            return
        self.counters.add('frames')
        self._rate.tick()
        try:
            pose = self.head.pose(frame, stamp)
        except Released:  # deactivated while this frame was on its way: nothing to look at
            self.counters.add('frames_skipped')
            return
        except Exception as exc:  # noqa: B902 - MediaPipe raises plain RuntimeErrors
            self.counters.add('pose_errors')
            self._warn('pose', f'head pose failed: {exc}')
            return
        if self.hri is not None:  # the other faces' nods and shakes; their ids
            self._frame_header = msg.header
            for decision in self.hri.frame(msg.header, stamp, frame.shape[1::-1], pose):
                self._answer(decision)
        if not pose.found or pose.relative is None:
            if not pose.found:
                self.counters.add('frames_no_face')
            self.head.lost(stamp)
            return
        self.feed_pose(stamp, pose.yaw, pose.pitch)

    def feed_pose(self, stamp: float, yaw: float, pitch: float):
        """Give the detector one relative pose; publish a decision when listening."""
        self._check_window(stamp)
        decision = self.head.update(stamp, yaw, pitch)
        if decision is None or self.hri is not None and not self.hri.followed(
                decision, self._frame_header):
            return None
        return self._answer(decision)

    def _answer(self, decision):
        if not self.window.listening:
            self.counters.add('gestures_ignored')
            return None
        self._last_decision = decision
        self.counters.add('nods' if decision.answer else 'shakes')
        self.publish_answer(decision.answer, decision.confidence, decision.kind)
        return decision

    # -- parameters and diagnostics ----------------------------------------------------
    def _check_change(self, changes: Dict[str, Any]) -> None:
        """Refuse equal buttons or a detector value out of range (on-set; the rules')."""
        problem = rules.refusal(changes, *(self.get_parameter(f'joy_{k}_button').value
                                           for k in ('right', 'wrong')))
        if problem:
            self.counters.add('parameter_rejections')
            raise ValueError(problem)

    def _apply_change(self, changes: Dict[str, Any]) -> None:
        """Take a stored change (post-set); unconfigured, configure reads the new values."""
        if self.head is None:
            return
        self.buttons.right = changes.get('joy_right_button', self.buttons.right)
        self.buttons.wrong = changes.get('joy_wrong_button', self.buttons.wrong)
        for name, value in changes.items():
            if name in rules.DETECTOR_PARAMETERS:
                setattr(self.detector, name, rules.detector_value(name, value))
            elif name == 'listen_window':
                self.listen_window = float(value)
            elif name == 'close_on_answer':
                self.close_on_answer = bool(value)
            elif name == 'idle_every':
                self.head.idle_every = int(value)
            elif name == 'listen_on_prediction' and self.window.follow(bool(value)):
                self._publish_listening()

    def _collect(self):
        values: Dict[str, Any] = dict(self.counters.snapshot(), **self.lifecycle_values())
        if self.head is None:
            return common.OK, values['lifecycle_state'], values
        values['listening'] = self.window.listening
        values['frame_rate'] = self._rate.rate()
        values.update(self.head.values())
        values.update(self.hri.values() if self.hri else {'ros4hri': self._hri_line})
        values['mediapipe_loaded'] = values['face_mesh'] == 'loaded'
        if self._import is not None:  # imported at configure: waking builds only the graph
            values['mediapipe_imported'] = self._import.done and self._import.error is None
        decision = self._last_decision
        if decision is not None:
            values.update(decision.values())
        level, message = common.OK, 'listening' if self.window.listening else 'idle'
        if not self._taken:
            message = values['lifecycle_state']
        bad = self.counters.get('unsupported_encoding') + self.counters.get('bad_image')
        if bad:
            level, message = common.WARN, f'{bad} images dropped (encoding/format)'
        if self.counters.get('pose_errors'):
            level, message = common.WARN, 'head pose errors'
        if self.use_camera and self._taken:
            rates, lost = self._watch.status()
            values.update(rates)
            if lost:
                level, message = common.WARN, lost
        if self._taken and self.head.face_warning(self.window.listening):
            level, message = common.WARN, self.head.face_warning(True)
        if self.head.loading:
            message = 'loading Face Mesh'
        elif self._taken and self.head.load_error is not None:
            level, message = common.WARN, f'Face Mesh cannot load: {self.head.load_error}'
        return level, message, values


NODE_CLASS = FeedbackNode


def main(args=None) -> None:
    """Run the feedback node."""
    common.run_node(FeedbackNode, args=args, name='feedback_node')


if __name__ == '__main__':
    main()
