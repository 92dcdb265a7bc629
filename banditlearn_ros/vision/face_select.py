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
Choose "the person answering" among the faces in view and keep them across frames.

A new person is chosen by size and closeness to the image centre (the one facing the robot);
once chosen, that face is followed by overlap with its last box even when another face is
bigger, so a passer-by cannot take over an answer. After a while without a match (1.5 s of
frame time, or a number of frames when no stamps are given) the track ends and the next
choice is a new person (their neutral pose must be learnt again): a face that leaves the
frame for a second mid-answer comes back as the same person, at any frame rate.
"""

from dataclasses import dataclass
import math
from typing import Optional, Sequence, Tuple

import numpy as np

Box = Tuple[float, float, float, float]
"""x0, y0, x1, y1 in pixels."""


def iou(a: Box, b: Box) -> float:
    """Return the intersection over union of two boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def box_of(points: np.ndarray) -> Box:
    """Return the bounding box of N x 2 pixel points."""
    x0, y0 = points.min(axis=0)[:2]
    x1, y1 = points.max(axis=0)[:2]
    return float(x0), float(y0), float(x1), float(y1)


@dataclass
class Selection:
    """The chosen face: its index in this frame, the track id, and whether the track is new."""

    index: int
    track_id: int
    new_person: bool
    box: Box


class FaceTracker:
    """
    Pick and follow one face.

    Parameters
    ----------
    centre_weight : float
        How strongly distance from the image centre lowers a face's score when choosing
        (0 = size only).
    min_iou : float
        Overlap with the last box that still counts as the same face.
    max_missed : int
        Frames without a match before the track ends, when frames come without stamps.
    max_missing : float
        Seconds of frame time without a match before the track ends (frames with stamps).

    """

    def __init__(self, centre_weight: float = 1.0, min_iou: float = 0.3, max_missed: int = 10,
                 max_missing: float = 1.5):
        self.centre_weight = float(centre_weight)
        self.min_iou = float(min_iou)
        self.max_missed = int(max_missed)
        self.max_missing = float(max_missing)
        self._box: Optional[Box] = None
        self._track_id = 0
        self._missed = 0
        self._seen = -math.inf

    @property
    def tracking(self) -> bool:
        """Return whether a person is being followed."""
        return self._box is not None

    def reset(self) -> None:
        """Drop the current person."""
        self._box = None
        self._missed = 0

    def score(self, box: Box, image_size: Tuple[int, int]) -> float:
        """Return how likely a face is the one answering: big and central."""
        w, h = image_size
        area = (box[2] - box[0]) * (box[3] - box[1]) / float(w * h)
        cx, cy = (box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0
        off = np.hypot((cx - w / 2.0) / (w / 2.0), (cy - h / 2.0) / (h / 2.0)) / np.sqrt(2.0)
        return float(area * max(0.0, 1.0 - self.centre_weight * 0.75 * off))

    def update(self, boxes: Sequence[Box], image_size: Tuple[int, int],
               stamp: Optional[float] = None) -> Optional[Selection]:
        """
        Return the face to use among this frame's boxes, or None.

        ``image_size`` is (width, height); ``stamp`` the frame's time (s), if known.
        """
        if self._box is not None:
            overlaps = [iou(self._box, b) for b in boxes]
            best = int(np.argmax(overlaps)) if overlaps else -1
            if best >= 0 and overlaps[best] >= self.min_iou:
                self._box = tuple(boxes[best])
                self._missed, self._seen = 0, self._seen if stamp is None else stamp
                return Selection(best, self._track_id, False, self._box)
            self._missed += 1
            if stamp is None and self._missed <= self.max_missed or \
                    stamp is not None and stamp - self._seen <= self.max_missing:
                return None
            self.reset()
        if not boxes:
            return None
        scores = [self.score(b, image_size) for b in boxes]
        best = int(np.argmax(scores))
        self._box = tuple(boxes[best])
        self._missed, self._seen = 0, -math.inf if stamp is None else stamp
        self._track_id += 1
        return Selection(best, self._track_id, True, self._box)
