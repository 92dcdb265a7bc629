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
A person's yes/no, the rules without ROS: parameters, typed words, buttons, when to listen.

``feedback_node`` carries the messages; what counts as an answer and when head motion is
listened to is here, so it is tested without DDS.  The nod/shake detector itself is
``vision.head_gesture``.
"""

import math
import sys
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

from banditlearn_ros.parameter_spec import Spec

# Detector parameters that may change at runtime: name -> (default, low, high, description);
# a bool has no range (None).
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
    'contrast_per_reversal': (0.6, 0.05, 1.0, 'factor on that contrast (above 1x) for each '
                              'reversal beyond min_reversals; 1 = the same for all'),
    'hold_ends_follow': (True, None, None, 'after an answer or question, a hold longer than '
                         'max_pause that shows up inside a growing swing ends the motion followed '
                         'there, so a gesture that starts out of it counts; false = the rule '
                         'before'),
    'follow_growth': (2.0, 0.0, 100.0, 'a swing followed after an answer or question that is '
                      'more than this many times the largest one followed before starts a new '
                      'gesture; 0 = never, the rule before'),
    'follow_regrowth': (2.0, 0.0, 100.0, 'a swing followed after a question that is more '
                        'than this many times the smallest one followed since the largest (a '
                        'shake started as the last one fades) starts a new gesture; 0 = never, '
                        'the rule before'),
    'refractory': (1.0, 0.0, 30.0, 'seconds after a decision before the next one'),
}

SPECS = (
    Spec('bool_topics', [], 'std_msgs/Bool topics passed through to the feedback topic '
         '(true = right)', read_only=True),
    Spec('use_camera', True, 'answer from head nods/shakes in the camera images',
         read_only=True),
    Spec('listen_on_prediction', True, 'count head gestures only in a window opened by a '
         'prediction; false = always listen'),
    Spec('listen_window', 8.0, 'seconds the window stays open after a prediction, on the '
         "camera's frame time (without a camera: the node's clock)", low=0.5, high=600.0),
    Spec('close_on_answer', True, 'close the window once an answer (any source) was '
         'published'),
    Spec('idle_every', 3, 'outside the window, process one frame per n/30 s of frame time '
         '(every n-th of a 30 fps camera; keeps the face track and neutral pose fresh); every '
         'frame while an answered gesture is followed to its end', low=1, high=1000),
    Spec('joy_right_button', 0, 'Joy button index meaning "right"', low=0, high=255),
    Spec('joy_wrong_button', 1, 'Joy button index meaning "wrong"', low=0, high=255,
         constraints='differs from joy_right_button'),
    Spec('keyboard', False, 'read y/n lines from the terminal (only when stdin is a '
         'terminal)', read_only=True),
    Spec('max_faces', 3, 'faces Face Mesh looks for; the answering one is the biggest, most '
         'central, then tracked', read_only=True, low=1, high=10),
    Spec('focal_length', 0.0, 'camera focal length in pixels; 0 = image width',
         read_only=True, low=0.0, high=1e5),
    Spec('baseline_frames', 10, "frames that define a new person's neutral head pose",
         read_only=True, low=1, high=1000),
    Spec('max_frame_bytes', 64 * 2 ** 20, 'largest camera image taken, in bytes of pixels '
         '(height x width x bytes per pixel); larger ones are counted (frame_too_large) '
         'and skipped before anything is allocated', low=1024, high=2 ** 31),
    Spec('image_transport', 'raw', "'raw': sensor_msgs/Image on image_raw; 'compressed': "
         'sensor_msgs/CompressedImage (JPEG or PNG) on image_raw/compressed',
         read_only=True, constraints='raw | compressed'),
    Spec('diagnostics_period', 1.0, 'seconds between /diagnostics messages',
         read_only=True, low=0.01, high=3600.0),
    Spec('ros4hri', True, 'with hri_msgs installed and a camera: publish every nod and shake '
         'as facial action units 85 / 84 on /humans/faces/<id>/facs (REP-155) and take '
         'engagement statuses', read_only=True),
    Spec('engagement_gate', 'auto', "which head answers count (ros4hri): 'on' only from "
         "the face of a person ENGAGED or ENGAGING; 'off' all, as without ROS4HRI; 'auto' "
         "'on' while engagement statuses arrive, open after 3 s without any",
         read_only=True, constraints='auto | on | off'),
) + tuple(Spec(name, default, text, low=low, high=high)
          for name, (default, low, high, text) in DETECTOR_PARAMETERS.items())
"""The feedback node's parameters, in the order they are declared."""


def parse_answer(text: str) -> Optional[bool]:
    """Return True for y/yes, False for n/no (any case), None for anything else."""
    word = text.strip().lower()
    if word in ('y', 'yes'):
        return True
    if word in ('n', 'no'):
        return False
    return None


def refusal(values: Dict[str, Any], right: int, wrong: int) -> str:
    """Return why a parameter change is refused ('' if it is not); buttons as they are now."""
    if values.get('joy_right_button', right) == values.get('joy_wrong_button', wrong):
        return 'joy_right_button and joy_wrong_button must differ'
    for name, value in values.items():
        if name in DETECTOR_PARAMETERS:
            low, high = DETECTOR_PARAMETERS[name][1:3]
            if value is None or (low is not None and not low <= value <= high):
                return f'{name} must be in [{low}, {high}]'
    return ''


def detector_value(name: str, value: Any) -> Any:
    """Return a detector parameter's value in the type of its default (an int stays int)."""
    return type(DETECTOR_PARAMETERS[name][0])(value)


class ButtonPresses:
    """Joy buttons as presses: a button counts when it goes down, not while it is held."""

    def __init__(self, right: int, wrong: int):
        self.right, self.wrong = right, wrong
        self._last: Dict[int, int] = {}

    def presses(self, buttons: List[int]) -> List[Tuple[int, bool]]:
        """Return ``(index, right)`` for each answer button pressed since the last call."""
        out = []
        for index, right in ((self.right, True), (self.wrong, False)):
            pressed = int(buttons[index]) if index < len(buttons) else 0
            was = self._last.get(index, 0)
            self._last[index] = pressed
            if pressed and not was:
                out.append((index, right))
        return out


class ListeningWindow:
    """
    When head motion counts as an answer: always, or in a window a question opens.

    ``on_open`` runs whenever listening starts (a new question for the detector: motion begun
    before it is no answer). Each method returns True when listening changed.

    The window runs on the camera's frame time, as the detector does: a question asked with
    no time opens it at the next frame's stamp (:meth:`at_frame`), so a loaded machine that
    works through late frames still has the whole window for the gesture in them, and a
    camera that paused does not close it before its frames come.
    """

    def __init__(self, on_prediction: bool, on_open: Callable[[], None]):
        self.on_prediction = on_prediction
        self._on_open = on_open
        self.listening = not on_prediction
        self.end = math.inf if self.listening else -math.inf
        self._length: Optional[float] = None  # seconds of a window that starts at a frame

    def question(self, now: Optional[float], seconds: float) -> bool:
        """Listen for ``seconds`` from ``now`` (None: the next frame's stamp), afresh."""
        self._on_open()
        self._length = seconds if now is None else None
        self.end = math.inf if now is None else now + seconds
        return self.switch(True)

    def at_frame(self, stamp: float) -> bool:
        """
        Take a frame's stamp as the time; return True when the window has just timed out.

        A window waiting for its first frame starts at this one.
        """
        if self._length is not None and self.listening:
            self.end, self._length = stamp + self._length, None
        if self.expired(stamp):
            return self.switch(False)
        return False

    def switch(self, listening: bool) -> bool:
        """Start or stop listening."""
        if listening and not self.listening:
            self._on_open()
        if not listening:
            self.end, self._length = -math.inf, None
        changed = listening != self.listening
        self.listening = listening
        return changed

    def expired(self, now: float) -> bool:
        """Return True when a window a question opened has passed its end."""
        return self.on_prediction and self.listening and now > self.end

    def follow(self, on_prediction: bool) -> bool:
        """Listen on questions only, or always (``listen_on_prediction`` changed)."""
        self.on_prediction = on_prediction
        self.end = math.inf if not on_prediction else -math.inf
        self._length = None
        return self.switch(not on_prediction)


class KeyboardAnswers:
    """
    y/n lines typed in a terminal, read on a daemon thread; each answer goes to ``on_answer``.

    A daemon thread: a blocked ``readline()`` must not keep the process alive.  Any other
    non-empty line gets a one-line hint on ``hints``.
    """

    def __init__(self, on_answer: Callable[[bool], None], stream=None, hints=None):
        self._on_answer = on_answer
        self._stream = stream if stream is not None else sys.stdin
        self._hints = hints if hints is not None else sys.stderr
        self._stop = threading.Event()

    def available(self) -> bool:
        """Return True when the stream is a terminal a person can type in."""
        return self._stream is not None and self._stream.isatty()

    def start(self) -> threading.Thread:
        """Start reading; return the thread."""
        thread = threading.Thread(target=self.read, daemon=True)
        thread.start()
        return thread

    def read(self) -> None:
        """Read lines until the stream ends or ``stop``."""
        while not self._stop.is_set():
            line = self._stream.readline()
            if not line:
                return
            answer = parse_answer(line)
            if answer is not None:
                self._on_answer(answer)
            elif line.strip():
                print('type y (right) or n (wrong)', file=self._hints)

    def stop(self) -> None:
        """Stop after the line being read."""
        self._stop.set()
