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

"""Shared 2-D geometry for the vision layer: contours, resampling, angles, rotations."""

from typing import Optional, Tuple

import cv2
import numpy as np


def largest_contour(mask: np.ndarray) -> Optional[np.ndarray]:
    """Return the largest outer contour of a binary mask as an (n, 2) float array, or None."""
    contours, _ = cv2.findContours((mask > 0).astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    best = max(contours, key=cv2.contourArea)
    if len(best) < 3:
        return None
    return best.reshape(-1, 2).astype(np.float64)


def fit_polygon(contour: np.ndarray, relative_epsilon: float = 0.004) -> np.ndarray:
    """
    Fit a polygon to a contour (Douglas-Peucker) to smooth rough silhouette edges.

    The tolerance is a fraction of the perimeter, so the fit does not depend on scale
    (Ngo et al. 2013, section 5: "a polygon was fitted to the blob contour").
    """
    pts = np.asarray(contour, dtype=np.float32).reshape(-1, 1, 2)
    eps = relative_epsilon * cv2.arcLength(pts, True)
    poly = cv2.approxPolyDP(pts, eps, True).reshape(-1, 2).astype(np.float64)
    return poly if len(poly) >= 3 else np.asarray(contour, dtype=np.float64).reshape(-1, 2)


def resample_closed(points: np.ndarray, n: int) -> np.ndarray:
    """Resample a closed polyline to n points equally spaced along its length."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    closed = np.vstack([pts, pts[:1]])
    seg = np.hypot(*np.diff(closed, axis=0).T)
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    total = cum[-1]
    if total <= 0:
        return np.repeat(pts[:1], n, axis=0)
    t = np.linspace(0.0, total, n, endpoint=False)
    return np.column_stack([np.interp(t, cum, closed[:, 0]), np.interp(t, cum, closed[:, 1])])


def angle_at(vertex: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the angle (radians) at ``vertex`` between the rays to ``a`` and to ``b``."""
    u = np.asarray(a, dtype=np.float64) - vertex
    v = np.asarray(b, dtype=np.float64) - vertex
    dot = np.sum(u * v, axis=-1)
    norm = np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1)
    return np.arccos(np.clip(dot / np.maximum(norm, 1e-12), -1.0, 1.0))


def palm_circle(mask: np.ndarray) -> Tuple[np.ndarray, float]:
    """
    Return the centre and radius of the largest circle inside a mask (the palm).

    The centre is the mean of the near-maximal distance-transform plateau, not its argmax,
    so a broad palm does not make it jump between pixels when the shape moves or turns.
    """
    dist = cv2.distanceTransform((mask > 0).astype(np.uint8), cv2.DIST_L2, 5)
    radius = float(dist.max())
    if radius <= 0:
        return np.zeros(2), 0.0
    ys, xs = np.nonzero(dist >= 0.95 * radius)
    return np.array([xs.mean(), ys.mean()], dtype=np.float64), radius
