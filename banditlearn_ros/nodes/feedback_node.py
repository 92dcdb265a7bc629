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

Camera images -> head pose (Face Mesh + solvePnP) -> nod/shake detector -> std_msgs/Bool on
``gesture_feedback`` (nod = true = right), the decision's confidence on ``feedback_confidence``.
With ``listen_on_prediction`` head motion counts only inside a window that opens when a
question is published (every question of an interaction: the learner asks again after
a "no"; ``feedback_listening`` says when); each question starts the detector afresh, so
its window never starts deaf from the last answer's refractory block. Buttons answer too:
sensor_msgs/Joy (two button indices), y/n typed in the terminal (``keyboard``), and any
std_msgs/Bool topics listed in ``bool_topics``. The vision work is in
``banditlearn_ros.vision``; this node only carries messages.
"""

import math
import sys
import threading
import time
from typing import Any, Dict, Optional

from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.bridge import image_to_array, ImageFormatError, \
    UnsupportedEncodingError
from banditlearn_ros.vision.head_gesture import HeadGestureDetector
from sensor_msgs.msg import Image, Joy
from std_msgs.msg import Bool, Float32, String

# Detector parameters that may change at runtime: name -> (default, low, high, description).
DETECTOR_PARAMETERS = {
    'min_swing': (5.0, 1.0, 60.0, 'smallest counted head swing, extreme to extreme (deg)'),
    'min_speed': (12.0, 1.0, 500.0, 'smallest mean angular speed of a counted swing (deg/s)'),
    'max_swing_duration': (0.7, 0.1, 5.0, 'longest counted swing (s); slower = looking around'),
    'min_reversals': (2, 1, 10, 'direction reversals a nod/shake needs'),
    'max_duration': (3.5, 0.5, 20.0, 'longest nod/shake (s)'),
    'max_cross_ratio': (0.9, 0.05, 10.0,
                        'other-axis / own-axis motion at which the confidence reaches 0'),
    'min_confidence': (0.5, 0.0, 1.0, 'decisions below this confidence are dropped'),
    'min_contrast': (4.0, 1.01, 100.0, "how many times the head's motion spread in the "
                     'previous 4 s the largest swing must be for full confidence'),
    'refractory': (1.0, 0.0, 30.0, 'seconds after a decision before the next one'),
}


def parse_answer(text: str) -> Optional[bool]:
    """Return True for y/yes, False for n/no (any case), None for anything else."""
    word = text.strip().lower()
    if word in ('y', 'yes'):
        return True
    if word in ('n', 'no'):
        return False
    return None


class FeedbackNode(common.GuardedNode):
    """Publish right/wrong from head gestures, a joystick, the keyboard or Bool topics."""

    def __init__(self, node_name: str = 'feedback_node', **kwargs):
        super().__init__(node_name, **kwargs)
        d = common.declare
        self.bool_topics = d(self, 'bool_topics', [], 'std_msgs/Bool topics passed through to '
                             'the feedback topic (true = right)', read_only=True)
        self.use_camera = d(self, 'use_camera', True, 'answer from head nods/shakes in the '
                            'camera images', read_only=True)
        self.listen_on_prediction = d(
            self, 'listen_on_prediction', True, 'count head gestures only in a window opened '
            'by a prediction; false = always listen')
        self.listen_window = d(self, 'listen_window', 8.0, 'seconds the window stays open '
                               'after a prediction', low=0.5, high=600.0)
        self.close_on_answer = d(self, 'close_on_answer', True, 'close the window once '
                                 'an answer (any source) was published')
        self.idle_every = d(self, 'idle_every', 3, 'outside the window, process every n-th '
                            'frame only (keeps the face track and neutral pose fresh)',
                            low=1, high=1000)
        self.joy_right = d(self, 'joy_right_button', 0, 'Joy button index meaning "right"',
                           low=0, high=255)
        self.joy_wrong = d(self, 'joy_wrong_button', 1, 'Joy button index meaning "wrong"',
                           low=0, high=255, constraints='differs from joy_right_button')
        keyboard = d(self, 'keyboard', False, 'read y/n lines from the terminal (only when '
                     'stdin is a terminal)', read_only=True)
        max_faces = d(self, 'max_faces', 3, 'faces Face Mesh looks for; the answering one is '
                      'the biggest, most central, then tracked', read_only=True, low=1, high=10)
        focal = d(self, 'focal_length', 0.0, 'camera focal length in pixels; 0 = image width',
                  read_only=True, low=0.0, high=1e5)
        warmup = d(self, 'baseline_frames', 10, "frames that define a new person's neutral "
                   'head pose', read_only=True, low=1, high=1000)
        period = d(self, 'diagnostics_period', 1.0, 'seconds between /diagnostics messages',
                   read_only=True, low=0.01, high=3600.0)
        detector_args = {}
        for name, (default, low, high, text) in DETECTOR_PARAMETERS.items():
            detector_args[name] = d(self, name, default, text, low=low, high=high)
        if self.joy_right == self.joy_wrong:
            raise ValueError('joy_right_button and joy_wrong_button must differ')
        self.detector = HeadGestureDetector(**detector_args)
        self.counters = common.Counters((
            'frames', 'frames_skipped', 'frames_no_face', 'unsupported_encoding', 'bad_image',
            'pose_errors', 'nods', 'shakes', 'gestures_ignored', 'joy_answers',
            'keyboard_answers', 'bool_answers', 'predictions', 'windows_timed_out',
            'parameter_rejections'))
        self._lock = threading.Lock()
        self._pose = None
        self._pose_args = {'max_faces': max_faces, 'focal': focal or None,
                           'baseline_warmup': warmup}
        self._last_buttons: Dict[int, int] = {}
        self._listening = not self.listen_on_prediction
        self._window_end = math.inf if self._listening else -math.inf
        self._frame_index = 0
        self._last_decision = None
        self._last_faces = 0
        self._proc_ms = 0.0
        self._rate = common.RateMeter()
        self._last_warn: Dict[str, float] = {}
        self.add_on_set_parameters_callback(self._on_set_parameters)

        # Fixed relative names: namespaces and remapping move them.
        self._feedback_pub = self.create_publisher(Bool, 'gesture_feedback', qos.EVENTS_OUT)
        self._confidence_pub = self.create_publisher(Float32, 'feedback_confidence',
                                                     qos.EVENTS_OUT)
        self._listening_pub = self.create_publisher(Bool, 'feedback_listening', qos.LATCHED)
        if self.use_camera:
            self.create_subscription(Image, 'image_raw', self._on_image, qos.IMAGES)
        qos.subscribe_events(self, String, 'gesture_prediction', self._on_prediction)
        qos.subscribe_events(self, Joy, 'joy', self._on_joy)
        for topic in self.bool_topics:
            if self.resolve_topic_name(topic) == self._feedback_pub.topic_name:
                self.get_logger().error(f'bool_topics: {topic!r} is the output topic; skipped '
                                        '(it would echo every answer forever)')
                continue
            qos.subscribe_events(self, Bool, topic, self._on_bool)
        self._publish_listening()
        self.create_timer(0.05, self._check_window)
        self.diagnostics = common.Diagnostics(self, 'banditlearn_ros: feedback_node',
                                              self._collect, period=period)
        self._keyboard_thread = None
        self._stop = threading.Event()
        if keyboard:
            if sys.stdin is not None and sys.stdin.isatty():
                # A daemon thread: a blocked readline() must not keep the process alive.
                self._keyboard_thread = threading.Thread(target=self._read_keyboard,
                                                         daemon=True)
                self._keyboard_thread.start()
                self.get_logger().info('keyboard answers on: type y (right) or n (wrong) '
                                       'and Enter')
            else:
                self.get_logger().warning('keyboard is true but stdin is not a terminal; '
                                          'keyboard answers are off')
        self.get_logger().info(
            f'feedback ready (camera {"on" if self.use_camera else "off"}, keyboard '
            f'{"on" if self._keyboard_thread else "off"}); {common.topics_line(self)}')

    # -- answers -----------------------------------------------------------------------
    def publish_answer(self, right: bool, confidence: float, source: str) -> None:
        """Publish one yes/no and its confidence; close the listening window if configured."""
        self._feedback_pub.publish(Bool(data=bool(right)))
        self._confidence_pub.publish(Float32(data=float(confidence)))
        self.get_logger().info(f'answer: {"right" if right else "wrong"} from {source} '
                               f'(confidence {confidence:.2f})')
        if self.listen_on_prediction and self.close_on_answer:
            self._set_listening(False)

    def _on_joy(self, msg: Joy) -> None:
        for index, right in ((self.joy_right, True), (self.joy_wrong, False)):
            pressed = int(msg.buttons[index]) if index < len(msg.buttons) else 0
            was = self._last_buttons.get(index, 0)
            self._last_buttons[index] = pressed
            if pressed and not was:  # a press, not a held button
                self.counters.add('joy_answers')
                self.publish_answer(right, 1.0, f'joy button {index}')

    def _on_bool(self, msg: Bool) -> None:
        self.counters.add('bool_answers')
        self.publish_answer(bool(msg.data), 1.0, 'Bool topic')

    def _read_keyboard(self) -> None:
        while not self._stop.is_set():
            line = sys.stdin.readline()
            if not line:
                return
            answer = parse_answer(line)
            if answer is not None:
                self.counters.add('keyboard_answers')
                self.publish_answer(answer, 1.0, 'keyboard')
            elif line.strip():
                print('type y (right) or n (wrong)', file=sys.stderr)

    # -- listening window --------------------------------------------------------------
    def _on_prediction(self, msg: String) -> None:
        self.counters.add('predictions')
        if self.listen_on_prediction:
            # A new question: motion before it answers nothing, and the last answer's
            # refractory block must not make its window start deaf.
            self.detector.reset()
            self._window_end = time.monotonic() + self.listen_window
            self._set_listening(True)

    def _set_listening(self, listening: bool) -> None:
        if listening and not self._listening:
            # Motion before the question is no answer: start the detector afresh.
            self.detector.reset()
        if not listening:
            self._window_end = -math.inf
        changed = listening != self._listening
        self._listening = listening
        if changed:
            self._publish_listening()

    def _publish_listening(self) -> None:
        self._listening_pub.publish(Bool(data=self._listening))

    def _check_window(self) -> None:
        if self.listen_on_prediction and self._listening and time.monotonic() > self._window_end:
            self.counters.add('windows_timed_out')
            self._set_listening(False)

    @property
    def listening(self) -> bool:
        """Return whether head gestures count now."""
        return self._listening

    # -- camera ------------------------------------------------------------------------
    def _warn(self, key: str, text: str) -> None:
        now = time.monotonic()
        if now - self._last_warn.get(key, -math.inf) >= 5.0:
            self._last_warn[key] = now
            self.get_logger().warning(text)

    def _stamp(self, msg: Image) -> float:
        stamp = msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec
        if stamp > 0:
            return stamp
        return self.get_clock().now().nanoseconds * 1e-9

    def _on_image(self, msg: Image) -> None:
        try:
            frame = image_to_array(msg)
        except UnsupportedEncodingError as exc:
            self.counters.add('unsupported_encoding')
            self._warn('encoding', f'image dropped: {exc}')
            return
        except ImageFormatError as exc:
            self.counters.add('bad_image')
            self._warn('format', f'image dropped: {exc}')
            return
        if frame.dtype != 'uint8':  # mono16: scale to 8 bits for Face Mesh
            frame = (frame >> 8).astype('uint8')
        self._frame_index += 1
        if not self._listening and self._frame_index % self.idle_every:
            self.counters.add('frames_skipped')
            return
        self.counters.add('frames')
        self._rate.tick()
        start = time.perf_counter()
        try:
            if self._pose is None:
                from banditlearn_ros.vision.head_pose import FaceMeshHeadPose
                self._pose = FaceMeshHeadPose(**self._pose_args)
            pose = self._pose.process(frame, self._stamp(msg))
        except Exception as exc:  # noqa: B902 - MediaPipe raises plain RuntimeErrors
            self.counters.add('pose_errors')
            self._warn('pose', f'head pose failed: {exc}')
            return
        self._proc_ms = 0.9 * self._proc_ms + 0.1 * 1e3 * (time.perf_counter() - start) \
            if self._proc_ms else 1e3 * (time.perf_counter() - start)
        self._last_faces = pose.faces
        if pose.new_person:
            self.detector.reset()
        if not pose.found or pose.relative is None:
            if not pose.found:
                self.counters.add('frames_no_face')
            self.detector.lost(self._stamp(msg))
            return
        self.feed_pose(self._stamp(msg), pose.yaw, pose.pitch)

    def feed_pose(self, stamp: float, yaw: float, pitch: float):
        """Give the detector one relative pose; publish a decision when listening."""
        decision = self.detector.update(stamp, yaw, pitch)
        if decision is None:
            return None
        if not self._listening:
            self.counters.add('gestures_ignored')
            return None
        self._last_decision = decision
        self.counters.add('nods' if decision.answer else 'shakes')
        self.publish_answer(decision.answer, decision.confidence, decision.kind)
        return decision

    # -- parameters and diagnostics ----------------------------------------------------
    def _on_set_parameters(self, params) -> Any:
        values = {p.name: p.value for p in params}
        refuse = common.ParameterChanges.of(self).refuse  # logs WARN and counts
        right = values.get('joy_right_button', self.joy_right)
        wrong = values.get('joy_wrong_button', self.joy_wrong)
        if right == wrong:
            self.counters.add('parameter_rejections')
            return refuse('joy_right_button and joy_wrong_button must differ')
        for name, value in values.items():
            if name in DETECTOR_PARAMETERS:
                low, high = DETECTOR_PARAMETERS[name][1:3]
                if value is None or not low <= value <= high:
                    self.counters.add('parameter_rejections')
                    return refuse(f'{name} must be in [{low}, {high}]')
        self.joy_right, self.joy_wrong = right, wrong
        for name, value in values.items():
            if name in DETECTOR_PARAMETERS:
                setattr(self.detector, name, type(DETECTOR_PARAMETERS[name][0])(value))
            elif name == 'listen_window':
                self.listen_window = float(value)
            elif name == 'close_on_answer':
                self.close_on_answer = bool(value)
            elif name == 'idle_every':
                self.idle_every = int(value)
            elif name == 'listen_on_prediction':
                self.listen_on_prediction = bool(value)
                self._window_end = math.inf if not value else -math.inf
                self._set_listening(not value)
        return common.accept()

    def _collect(self):
        values: Dict[str, Any] = dict(self.counters.snapshot())
        values['listening'] = self._listening
        values['frame_rate'] = self._rate.rate()
        values['pose_ms'] = self._proc_ms
        values['faces_in_view'] = self._last_faces
        decision = self._last_decision
        if decision is not None:
            values['last_gesture'] = decision.kind
            values['last_confidence'] = decision.confidence
            values['last_nod_confidence'] = decision.nod_confidence
            values['last_shake_confidence'] = decision.shake_confidence
        level, message = common.OK, 'listening' if self._listening else 'idle'
        bad = self.counters.get('unsupported_encoding') + self.counters.get('bad_image')
        if bad:
            level, message = common.WARN, f'{bad} images dropped (encoding/format)'
        if self.counters.get('pose_errors'):
            level, message = common.WARN, 'head pose errors'
        return level, message, values

    def close(self) -> None:
        """Release MediaPipe and stop the keyboard reader."""
        self._stop.set()
        if self._pose is not None:
            self._pose.close()
            self._pose = None


NODE_CLASS = FeedbackNode


def main(args=None) -> None:
    """Run the feedback node."""
    common.run_node(FeedbackNode, args=args, name='feedback_node')


if __name__ == '__main__':
    main()
