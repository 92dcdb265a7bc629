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
Gesture episodes: one observation per presented gesture, not one per frame.

A person holds a gesture up; the detector waits until a hand has been present and steady
for ``stable_frames`` frames, emits the mean feature vector of that window once, and then
stays quiet until the hand leaves (``absent_frames`` frames without a hand) or changes
(features far from the emitted ones for ``stable_frames`` frames), which re-arms it.
``mode='frame'`` emits every frame that shows a hand instead.

With ``stable_seconds`` (and ``absent_seconds``) the same is measured in time, on the
frames' stamps: a hand held still for that long gives its gesture however many frames the
node found time to look at (a loaded machine processes fewer), and a hand gone that long
re-arms.
"""

from collections import deque
from dataclasses import dataclass
from typing import Deque, Optional

import numpy as np


@dataclass
class Episode:
    """One presented gesture."""

    features: np.ndarray
    """Mean feature vector over the stable window."""
    frames: int
    """Frames the mean was taken over."""
    index: int
    """Running number of the episode."""
    stamp: float
    """Time of the last frame of the window (the caller's clock)."""
    spread: float
    """Largest relative distance of a window frame from the mean (0 = perfectly still)."""


class EpisodeDetector:
    """
    Turn a stream of per-frame features (None = no hand) into gesture episodes.

    Parameters
    ----------
    stable_frames : int
        Frames a hand must be present and steady before an episode is emitted.
    tolerance : float
        Steady means every frame in the window is within this relative distance
        (``|x - mean| / |mean|``) of the window mean.
    absent_frames : int
        Frames without a hand that end a presentation and re-arm the detector.
    change_tolerance : float
        A held hand whose features move this far (relative) from the emitted episode,
        steadily, counts as a new gesture.
    mode : {'episode', 'frame'}
        One observation per presentation, or one per frame with a hand.
    stable_seconds : float
        When > 0, the steady window is this long in frame time (its first to its last
        stamp, at least ``MIN_FRAMES`` frames) instead of ``stable_frames`` frames.
    absent_seconds : float
        When > 0, a hand absent this long in frame time (and at least one frame without a
        hand) re-arms, instead of ``absent_frames`` frames.

    Examples
    --------
    >>> det = EpisodeDetector(stable_frames=3)
    >>> [det.update([1.0, 2.0]) is not None for _ in range(5)]
    [False, False, True, False, False]

    """

    MIN_FRAMES = 2
    """Frames a window in time holds at least (one frame shows no steadiness)."""

    def __init__(self, stable_frames: int = 8, tolerance: float = 0.15,
                 absent_frames: int = 5, change_tolerance: float = 0.35,
                 mode: str = 'episode', stable_seconds: float = 0.0,
                 absent_seconds: float = 0.0):
        if mode not in ('episode', 'frame'):
            raise ValueError(f"mode must be 'episode' or 'frame', got {mode!r}")
        if stable_frames < 1 or absent_frames < 1:
            raise ValueError('stable_frames and absent_frames must be >= 1')
        if tolerance <= 0 or change_tolerance <= 0:
            raise ValueError('tolerances must be > 0')
        if not (stable_seconds >= 0 and absent_seconds >= 0):
            raise ValueError('stable_seconds and absent_seconds must be >= 0')
        self.stable_seconds = float(stable_seconds)
        self.absent_seconds = float(absent_seconds)
        self.stable_frames = int(stable_frames)
        self.tolerance = float(tolerance)
        self.absent_frames = int(absent_frames)
        self.change_tolerance = float(change_tolerance)
        self.mode = mode
        self.reset()

    def reset(self) -> None:
        """Forget the window and re-arm."""
        timed = self.stable_seconds > 0
        self._window: Deque[np.ndarray] = deque(maxlen=None if timed else self.stable_frames)
        self._stamps: Deque[float] = deque()
        self._armed = True
        self._absent = 0
        self._last_hand: Optional[float] = None
        self._emitted: Optional[np.ndarray] = None
        self.count = 0

    @property
    def armed(self) -> bool:
        """Return True when the next steady hand will give an episode."""
        return self._armed

    @property
    def progress(self) -> float:
        """Return the fraction of the stable window filled (for a debug display)."""
        if self.stable_seconds > 0:
            held = self._stamps[-1] - self._stamps[0] if self._stamps else 0.0
            return min(1.0, held / self.stable_seconds)
        return len(self._window) / float(self.stable_frames)

    def update(self, features, stamp: float = 0.0) -> Optional[Episode]:
        """Feed one frame's features (None when no hand); return an Episode when one ends."""
        if features is None:
            self._absent += 1
            self._window.clear()
            self._stamps.clear()
            if self._gone(stamp):
                self._armed = True
                self._emitted = None
            return None
        x = np.asarray(features, dtype=np.float64)
        self._absent = 0
        self._last_hand = stamp
        if self.mode == 'frame':
            self.count += 1
            return Episode(x.copy(), 1, self.count, stamp, 0.0)
        if self._window and self._window[0].shape != x.shape:
            self._window.clear()
            self._stamps.clear()
        self._window.append(x)
        self._stamps.append(stamp)
        if not self._long_enough():
            return None
        stack = np.stack(self._window)
        mean = stack.mean(axis=0)
        norm = float(np.linalg.norm(mean)) + 1e-12
        spread = float(np.max(np.linalg.norm(stack - mean, axis=1))) / norm
        if spread > self.tolerance:
            return None
        if not self._armed:
            # Held still after an episode: a new one only when the gesture changed.
            moved = float(np.linalg.norm(mean - self._emitted)) / norm
            if moved <= self.change_tolerance:
                return None
        self._armed = False
        self._emitted = mean
        self._window.clear()
        self._stamps.clear()
        self.count += 1
        return Episode(mean, len(stack), self.count, stamp, spread)

    def _gone(self, stamp: float) -> bool:
        """Return whether the hand has been absent long enough to re-arm."""
        if self.absent_seconds <= 0:
            return self._absent >= self.absent_frames
        return self._last_hand is None or stamp - self._last_hand >= self.absent_seconds

    def _long_enough(self) -> bool:
        """Return whether the window is full; in time, drop the frames it no longer needs."""
        if self.stable_seconds <= 0:
            while len(self._stamps) > len(self._window):
                self._stamps.popleft()
            return len(self._window) >= self.stable_frames
        # Keep the newest frames that span stable_seconds and no older one.
        while len(self._stamps) > self.MIN_FRAMES and \
                self._stamps[-1] - self._stamps[1] >= self.stable_seconds:
            self._stamps.popleft()
            self._window.popleft()
        return len(self._window) >= self.MIN_FRAMES and \
            self._stamps[-1] - self._stamps[0] >= self.stable_seconds
