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

"""Annotate a frame with what the extractor saw: contour, polygon, defects, landmarks."""

from typing import Optional

import cv2
import numpy as np

from .extractors import FrameObservation

_BONES = ((0, 1), (1, 2), (2, 3), (3, 4), (0, 5), (5, 6), (6, 7), (7, 8), (5, 9), (9, 10),
          (10, 11), (11, 12), (9, 13), (13, 14), (14, 15), (15, 16), (13, 17), (0, 17),
          (17, 18), (18, 19), (19, 20))


def draw_observation(bgr: np.ndarray, obs: Optional[FrameObservation], text: str = '',
                     progress: float = 0.0) -> np.ndarray:
    """Return a copy of ``bgr`` with the observation drawn on it (for the debug image)."""
    out = cv2.cvtColor(bgr, cv2.COLOR_GRAY2BGR) if bgr.ndim == 2 else bgr.copy()
    if obs is not None:
        seg = obs.segmentation
        if seg is not None and seg.contour is not None:
            cv2.polylines(out, [_int(seg.contour)], True, (0, 255, 0), 1, cv2.LINE_AA)
        if obs.shape is not None:
            cv2.polylines(out, [_int(obs.shape.polygon)], True, (255, 200, 0), 2, cv2.LINE_AA)
            centre = tuple(int(v) for v in obs.shape.palm_centre)
            cv2.circle(out, centre, int(obs.shape.palm_radius), (255, 0, 255), 1, cv2.LINE_AA)
            for x, y, _ in obs.shape.defects:
                cv2.circle(out, (int(x), int(y)), 4, (0, 0, 255), -1, cv2.LINE_AA)
        if obs.landmarks is not None:
            pts = obs.landmarks[:, :2]
            for a, b in _BONES:
                cv2.line(out, tuple(int(v) for v in pts[a]), tuple(int(v) for v in pts[b]),
                         (0, 255, 255), 1, cv2.LINE_AA)
            for p in pts:
                cv2.circle(out, tuple(int(v) for v in p), 2, (0, 128, 255), -1)
        label = text or (f'fingers {obs.finger_count}' if obs.finger_count is not None
                         else obs.reason)
        text = label
    if text:
        cv2.putText(out, text, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3,
                    cv2.LINE_AA)
        cv2.putText(out, text, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1,
                    cv2.LINE_AA)
    if progress > 0:
        w = out.shape[1]
        cv2.rectangle(out, (0, 0), (int(w * min(progress, 1.0)), 4), (0, 255, 0), -1)
    return out


def _int(points: np.ndarray) -> np.ndarray:
    return np.round(points).astype(np.int32).reshape(-1, 1, 2)
