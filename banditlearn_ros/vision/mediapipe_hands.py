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
import threading
from typing import List, Optional

import cv2
import numpy as np


def mediapipe_available() -> bool:
    """Return True when mediapipe and its hand solution can be imported."""
    try:
        import mediapipe as mp  # noqa: F401
        return hasattr(mp, 'solutions') and hasattr(mp.solutions, 'hands')
    except Exception:  # mediapipe raises more than ImportError on broken installs
        return False


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

    """

    def __init__(self, static_image_mode: bool = False, max_num_hands: int = 1,
                 min_detection_confidence: float = 0.5, min_tracking_confidence: float = 0.5,
                 model_complexity: int = 1):
        self.static_image_mode = bool(static_image_mode)
        self.max_num_hands = int(max_num_hands)
        self.min_detection_confidence = float(min_detection_confidence)
        self.min_tracking_confidence = float(min_tracking_confidence)
        self.model_complexity = int(model_complexity)
        self._hands = None
        self._lock = threading.Lock()

    def _detector(self):
        if self._hands is None:
            try:
                import mediapipe as mp
            except ImportError as exc:
                raise RuntimeError('MediaPipe is not installed (pip install '
                                   '"mediapipe==0.10.21"); use the contour extractor') from exc
            self._hands = mp.solutions.hands.Hands(
                static_image_mode=self.static_image_mode, max_num_hands=self.max_num_hands,
                min_detection_confidence=self.min_detection_confidence,
                min_tracking_confidence=self.min_tracking_confidence,
                model_complexity=self.model_complexity)
        return self._hands

    def detect(self, bgr: np.ndarray) -> List[DetectedHand]:
        """Return the hands in a BGR (or grey) image, best first."""
        if bgr.ndim == 2:
            rgb = cv2.cvtColor(bgr, cv2.COLOR_GRAY2RGB)
        else:
            rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        h, w = rgb.shape[:2]
        with self._lock:
            result = self._detector().process(rgb)
        hands = []
        if not result.multi_hand_landmarks:
            return hands
        sides = result.multi_handedness or []
        for i, lms in enumerate(result.multi_hand_landmarks):
            arr = np.array([[p.x * w, p.y * h, p.z * w] for p in lms.landmark], np.float64)
            side, score = 'unknown', 1.0
            if i < len(sides) and sides[i].classification:
                side = sides[i].classification[0].label.lower()
                score = float(sides[i].classification[0].score)
            hands.append(DetectedHand(arr, side, score))
        hands.sort(key=lambda hand: -hand.score)
        return hands

    def best(self, bgr: np.ndarray) -> Optional[DetectedHand]:
        """Return the most confident hand, or None."""
        hands = self.detect(bgr)
        return hands[0] if hands else None

    def close(self) -> None:
        """Release MediaPipe's graph."""
        with self._lock:
            if self._hands is not None:
                self._hands.close()
                self._hands = None
