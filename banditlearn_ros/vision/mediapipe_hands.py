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
MediaPipe Hands (0.10.21 legacy ``solutions.hands``), imported only when first used.

The models ship inside the mediapipe wheel, so this works offline.  Landmarks come back in
pixels (x, y) with z in the same pixel scale (MediaPipe's z is relative to the image width).
"""

from dataclasses import dataclass
import importlib.util
import os
import threading
from typing import List, Optional

import cv2
import numpy as np


def mediapipe_available() -> bool:
    """
    Return True when mediapipe and its hand solution are installed, without importing them.

    ``import mediapipe`` takes about a second (it imports matplotlib), which the camera
    node's start should not pay to choose its extractor: the package and the legacy
    ``solutions/hands.py`` are looked up on the path instead.  An install that is there but
    does not import fails later, when the worker loads it (``MediaPipeHands.load``), and
    camera_node's /diagnostics says so.
    """
    try:
        spec = importlib.util.find_spec('mediapipe')
    except (ImportError, ValueError):
        return False
    folders = (spec.submodule_search_locations or []) if spec is not None else []
    return any(os.path.isfile(os.path.join(folder, 'python', 'solutions', 'hands.py'))
               for folder in folders)


def import_mediapipe():
    """
    Import mediapipe and return it: about a second of CPU (it imports matplotlib).

    A managed node calls it in a thread when it is configured, so that activating it only
    builds MediaPipe's graphs (about 0.01 s) and the first frames wait for no import.
    """
    try:
        import mediapipe
    except ImportError as exc:
        raise RuntimeError('MediaPipe is not installed (pip install "mediapipe==0.10.21")'
                           ) from exc
    return mediapipe


def _blank(rgb: np.ndarray) -> bool:
    """Return True for a frame of one colour (a covered lens, a black gap): no second look."""
    small = rgb[::8, ::8]
    return int(small.max()) - int(small.min()) < 16


@dataclass
class DetectedHand:
    """One hand MediaPipe found."""

    landmarks: np.ndarray
    """(21, 3): x, y in pixels, z in pixels relative to the wrist (negative = nearer)."""
    handedness: str
    score: float


class MediaPipeHands:
    """
    Find hand landmarks with MediaPipe; one detector per instance, thread-safe.

    Parameters
    ----------
    static_image_mode : bool
        True for unrelated photos (detect every time), False for a video stream (track).
    max_num_hands : int
        Most hands to return.
    min_detection_confidence, min_tracking_confidence : float
        MediaPipe's thresholds.
    model_complexity : int
        0 (lite, faster) or 1 (full).
    retry_margin : float
        When a frame shows no hand, look again in a copy with this fraction of its size
        added on every side (replicated border) by a detector of its own in static mode;
        0 = no second look; a frame of one colour gets none.  MediaPipe's palm detector
        misses hands that fill the frame, and a shrunk copy finds many of them
        (docs/benchmarks.md, "Real photos").

    """

    def __init__(self, static_image_mode: bool = False, max_num_hands: int = 1,
                 min_detection_confidence: float = 0.5, min_tracking_confidence: float = 0.5,
                 model_complexity: int = 1, retry_margin: float = 0.0):
        self.static_image_mode = bool(static_image_mode)
        self.max_num_hands = int(max_num_hands)
        self.min_detection_confidence = float(min_detection_confidence)
        self.min_tracking_confidence = float(min_tracking_confidence)
        self.model_complexity = int(model_complexity)
        if not 0.0 <= float(retry_margin) <= 4.0:
            raise ValueError(f'retry_margin must be in [0, 4], got {retry_margin}')
        self.retry_margin = float(retry_margin)
        self.retries = 0
        """Frames looked at twice (nothing found at first)."""
        self.retry_found = 0
        """Frames whose hand only the second look found."""
        self._hands = None
        self._retry = None
        self._lock = threading.Lock()

    def _make(self, static: bool):
        try:
            mp = import_mediapipe()
        except RuntimeError as exc:
            raise RuntimeError(f'{exc}; use the contour extractor') from exc
        return mp.solutions.hands.Hands(
            static_image_mode=static, max_num_hands=self.max_num_hands,
            min_detection_confidence=self.min_detection_confidence,
            min_tracking_confidence=self.min_tracking_confidence,
            model_complexity=self.model_complexity)

    def _detector(self):
        if self._hands is None:
            self._hands = self._make(self.static_image_mode)
        return self._hands

    def detect(self, bgr: np.ndarray) -> List[DetectedHand]:
        """Return the hands in a BGR (or grey) image, best first."""
        return self._look(bgr, fresh=False)

    def look_afresh(self, bgr: np.ndarray) -> List[DetectedHand]:
        """
        Return the hands of one image as found without any earlier frame (static mode).

        In tracking mode each frame's landmarks start from the last ones: a still hand's
        drift for several frames (measured on the sign-digit photos: 0.05-0.6 in feature
        distance, as far as the next photo's), so what a frame gives depends on how many
        came before it.  Tracking is left as it was.
        """
        return self._look(bgr, fresh=True)

    def _look(self, bgr: np.ndarray, fresh: bool) -> List[DetectedHand]:
        if bgr.ndim == 2:
            rgb = cv2.cvtColor(bgr, cv2.COLOR_GRAY2RGB)
        else:
            rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        with self._lock:
            graph = self._static() if fresh and not self.static_image_mode else self._detector()
            hands = self._hands_in(graph.process(rgb), rgb.shape, 0, 0)
            if hands or self.retry_margin <= 0 or _blank(rgb):
                return hands
            self.retries += 1
            h, w = rgb.shape[:2]
            top, side = int(round(h * self.retry_margin)), int(round(w * self.retry_margin))
            padded = cv2.copyMakeBorder(rgb, top, top, side, side, cv2.BORDER_REPLICATE)
            hands = self._hands_in(self._static().process(padded), padded.shape, side, top)
            self.retry_found += bool(hands)
            return hands

    def _static(self):
        """Return the static-mode graph (the second look's, and a fresh look's)."""
        if self._retry is None:
            self._retry = self._make(True)
        return self._retry

    @staticmethod
    def _hands_in(result, shape, dx: int, dy: int) -> List[DetectedHand]:
        """Return MediaPipe's hands in pixels of the frame a copy padded by dx, dy came from."""
        h, w = shape[:2]
        hands = []
        if not result.multi_hand_landmarks:
            return hands
        sides = result.multi_handedness or []
        for i, lms in enumerate(result.multi_hand_landmarks):
            arr = np.array([[p.x * w - dx, p.y * h - dy, p.z * w] for p in lms.landmark],
                           np.float64)
            side, score = 'unknown', 1.0
            if i < len(sides) and sides[i].classification:
                side = sides[i].classification[0].label.lower()
                score = float(sides[i].classification[0].score)
            hands.append(DetectedHand(arr, side, score))
        hands.sort(key=lambda hand: -hand.score)
        return hands

    def load(self) -> None:
        """Load MediaPipe's graph now rather than on the first frame (a node's activation)."""
        with self._lock:
            self._detector()

    def best(self, bgr: np.ndarray) -> Optional[DetectedHand]:
        """Return the most confident hand, or None."""
        hands = self.detect(bgr)
        return hands[0] if hands else None

    def close(self) -> None:
        """Release MediaPipe's graph."""
        with self._lock:
            for hands in (self._hands, self._retry):
                if hands is not None:
                    hands.close()
            self._hands = self._retry = None
