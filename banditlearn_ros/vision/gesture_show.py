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
A rendered person in front of a camera: presentations of hand gestures, frame by frame.

For the out-of-the-box session: each presentation is one scene (a rendered background) shown
empty for a few frames, then with a rendered hand held in it until the camera has published
its gesture, then nothing while the robot asks and the simulated person answers.  Every
frame gets fresh sensor noise, so the camera's stability check sees a real (still) hand.
``ShowSchedule`` is the timing, without images; ``GestureShow`` makes the images.
"""

from dataclasses import dataclass
import math
from typing import List, Optional, Sequence

import cv2
import numpy as np

from .hand_renderer import HandRenderer


@dataclass
class Presentation:
    """One gesture in one scene."""

    gesture: str
    scene: np.ndarray
    """BGR image of the scene without the hand."""
    hand: np.ndarray
    """BGR image of the same scene with the hand."""


class GestureShow:
    """
    Render presentations of gestures in a balanced random order.

    Parameters
    ----------
    gestures : sequence of str
        Gestures of ``hand_renderer.GESTURES`` to show; each block of ``len(gestures)``
        presentations shows every gesture once, in a seeded random order.
    width, height : int
        Image size.
    noise : float
        Standard deviation (grey levels) of the sensor noise added to every frame.
    clutter : int
        Largest number of background objects in a scene (0 = a plain gradient wall).
    supersample : int
        Render at this many times the size, then shrink (pixel areas averaged): smooth
        edges like a camera's, at the cost of the small image only per frame.
    seed : int
        Seed of the order, the rendering and the noise.

    Examples
    --------
    >>> show = GestureShow(['fist', 'five'], width=160, height=120, seed=1)
    >>> sorted(show.present().gesture for _ in range(2))
    ['fist', 'five']

    """

    def __init__(self, gestures: Sequence[str], width: int = 320, height: int = 240,
                 noise: float = 3.0, clutter: int = 12, supersample: int = 1,
                 seed: int = 0):
        if not gestures:
            raise ValueError('at least one gesture is needed')
        if supersample < 1:
            raise ValueError('supersample must be >= 1')
        self.size = (int(width), int(height))
        self.renderer = HandRenderer(width * supersample, height * supersample,
                                     gestures=tuple(gestures), clutter=clutter, seed=seed)
        self.gestures = tuple(gestures)
        self.noise = float(noise)
        self._rng = np.random.default_rng(seed)
        # Frames have their own generator: ``frame`` and ``present`` may run in two threads.
        self._noise_rng = np.random.default_rng([seed, 1])
        self._order: List[str] = []

    def next_gesture(self) -> str:
        """Return the next gesture of the balanced order."""
        if not self._order:
            self._order = [self.gestures[i] for i in self._rng.permutation(len(self.gestures))]
        return self._order.pop(0)

    def present(self, gesture: Optional[str] = None) -> Presentation:
        """Render a new scene and the gesture (the next of the order when None) in it."""
        gesture = self.next_gesture() if gesture is None else gesture
        scene = self.renderer.background(self._rng)
        hand = self.renderer.render(gesture, rng=self._rng, background=scene)
        return Presentation(gesture, self._shrink(scene), self._shrink(hand.image))

    def _shrink(self, image: np.ndarray) -> np.ndarray:
        if image.shape[1::-1] == self.size:
            return image
        return cv2.resize(image, self.size, interpolation=cv2.INTER_AREA)

    def frame(self, image: np.ndarray) -> np.ndarray:
        """Return one camera frame of ``image``: the image with fresh sensor noise."""
        if self.noise <= 0:
            return image.copy()
        noise = np.empty(image.shape, np.int16)
        cv2.setRNGSeed(int(self._noise_rng.integers(2 ** 31)))  # OpenCV's RNG is per thread
        cv2.randn(noise, 0.0, self.noise)
        return cv2.add(image, noise, dtype=cv2.CV_8U)


class ShowSchedule:
    """
    When to show the empty scene, the hand, or nothing; no images, no clock of its own.

    A presentation starts with ``absent_frames`` frames of the empty scene (so the camera
    sees the hand leave and re-arms), then shows the hand until the camera publishes a
    gesture (``on_features``) or ``show_timeout`` seconds pass (counted as missed).  Then it
    waits while the robot asks: the interaction is over once an answer is ``settle``
    seconds old with no question after it (unless it was a "no" to a question that is not
    the last: the robot asks again), when ``on_interaction_end`` says so, or after
    ``answer_timeout`` seconds without an answer.

    The end message of an interaction asked about before this presentation's hand appeared
    (the one the camera's new gesture cut short) does not end this presentation: the
    learner announces that end just as it starts the new interaction, and taking it for the
    new one would end every later wait at once, so the hands would follow each other
    without waiting for any answer.

    Parameters
    ----------
    absent_frames : int
        Frames of the empty scene before each hand.
    show_timeout, answer_timeout, settle : float
        Seconds, as above.
    presentations : int
        Presentations to make; 0 = no end.
    rate : float, optional
        Frames per second of the show: a hand not taken is shown for ``show_timeout``
        seconds *and* ``show_timeout * rate`` frames, so a busy machine that gets fewer frames
        out (and to the camera) does not cut the hand short.

    """

    def __init__(self, absent_frames: int = 3, show_timeout: float = 3.0,
                 answer_timeout: float = 10.0, settle: float = 0.15,
                 presentations: int = 0, rate: Optional[float] = None):
        if absent_frames < 1:
            raise ValueError('absent_frames must be >= 1')
        if min(show_timeout, answer_timeout, settle) <= 0:
            raise ValueError('show_timeout, answer_timeout and settle must be > 0')
        self.absent_frames = int(absent_frames)
        self.show_timeout, self.answer_timeout = float(show_timeout), float(answer_timeout)
        self.settle = float(settle)
        self.presentations = int(presentations)
        self.rate = None if rate is None else float(rate)
        self.phase = 'absent'  # absent (the empty scene) | show (until taken) | wait (answers)
        self.started = 0
        self.taken = 0
        self.missed = 0
        self.unanswered = 0
        self._frames = 0
        self._since = -math.inf
        self._last_answer = -math.inf
        self._last_question = -math.inf
        self._last_no = False  # the last answer was a "no"
        self._final = True  # the last question's "no" ends the interaction (unknown: True)
        self._asked = -1  # the highest interaction id asked about so far
        self._before = -1  # ... when this presentation's hand appeared

    @property
    def finished(self) -> bool:
        """Return True when every presentation was made and its interaction is over."""
        return bool(self.presentations) and self.started >= self.presentations and \
            self.phase == 'absent'

    def tick(self, now: float) -> Optional[str]:
        """
        Advance; return what the camera sees now.

        Returns
        -------
        str or None
            'scene', 'new' (the hand of a new presentation: render it and publish its
            label first), 'hand', or None (nothing to publish).

        """
        if self.phase == 'absent':
            if self.finished:
                return None
            if self._frames < self.absent_frames:
                self._frames += 1
                return 'scene'
            self.phase, self._since, self._frames = 'show', now, 0
            self._before, self._final = self._asked, True
            self.started += 1
            return 'new'
        if self.phase == 'show':
            self._frames += 1
            if now - self._since > self.show_timeout and \
                    (self.rate is None or self._frames > self.show_timeout * self.rate):
                self.missed += 1
                self._end()
                return 'scene'
            return 'hand'
        answered = self._last_answer >= self._since
        settled = answered and self._last_question <= self._last_answer
        asked_again = settled and self._last_no and not self._final  # a question will come
        if settled and not asked_again:
            if now - self._last_answer >= self.settle:
                self._end()
            return None
        # Waiting for a first answer, for the question asked again, or for its answer.
        waiting = max(self._last_answer, self._last_question) if answered else self._since
        if now - waiting > self.answer_timeout:
            self.unanswered += not answered
            self._end()
        return None

    def on_features(self, now: float) -> None:
        """Take note that the camera published a gesture: stop the hand, wait for answers."""
        if self.phase == 'show':
            self.taken += 1
            self.phase, self._since = 'wait', now

    def on_question(self, now: float) -> None:
        """Take note that the robot asked (a prediction)."""
        self._last_question = now

    def on_details(self, interaction: int, final: bool) -> None:
        """
        Take note of a question's interaction id and whether a "no" to it ends the interaction.

        Optional: without details every "no" is taken as the last answer (``settle``).
        """
        self._asked = max(self._asked, int(interaction))
        if int(interaction) > self._before:
            self._final = bool(final)

    def on_answer(self, now: float, right: Optional[bool] = None) -> None:
        """Take note that a yes/no went to the robot (``right``: which, when known)."""
        self._last_answer = now
        self._last_no = right is False

    def on_interaction_end(self, interaction: Optional[int] = None) -> None:
        """
        End the wait: the learner announced that an interaction is over.

        ``interaction`` (its id, when known) must not be one asked about before this
        presentation's hand appeared.
        """
        if interaction is not None and int(interaction) <= self._before:
            return
        if self.phase == 'wait':
            self._end()

    def _end(self) -> None:
        self.phase, self._frames = 'absent', 0
