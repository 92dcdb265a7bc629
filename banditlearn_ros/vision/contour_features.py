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
Geometric hand-shape features from a silhouette contour (Ngo et al. 2013's GESTURE recipe).

A polygon is fitted to the blob contour to smooth rough edges, then about 110 named
features are computed from it: Hu moments, normalised central moments, area, perimeter and
hull ratios, ellipse eccentricity, convexity-defect statistics with a finger count, a
rotation-normalised centroid-distance signature and Fourier descriptors.  Every feature is
invariant to translation and scale (the contour is normalised to unit area first); the
Hu moments, ratios, defects, signature and Fourier magnitudes are rotation invariant too,
while the central moments and the orientation terms keep the hand's direction on purpose
(a thumb up and a thumb down are different gestures).
"""

from dataclasses import dataclass
from typing import List, Tuple

import cv2
import numpy as np

from .geometry import angle_at, fit_polygon, palm_circle, resample_closed

N_SIGNATURE = 32
N_FOURIER = 16
# Degree of each Hu invariant in the normalised moments, for a signed root that keeps the
# seven values on one scale and continuous through zero (a log is not).
_HU_DEGREE = np.array([1, 2, 2, 2, 4, 3, 4], dtype=np.float64)
_CANVAS_SIDE = 64.0  # sqrt(area) of the normalised silhouette when rasterised, pixels


def _names() -> List[str]:
    names = ['bias']
    names += [f'hu_{i}' for i in range(1, 8)]
    names += ['nu_20', 'nu_11', 'nu_02', 'nu_30', 'nu_21', 'nu_12', 'nu_03']
    names += ['solidity', 'extent', 'rect_extent', 'circularity', 'convexity',
              'rect_aspect', 'bbox_aspect', 'ellipse_eccentricity', 'ellipse_axis_ratio',
              'enclosing_circle_fill', 'equivalent_diameter_over_major_axis',
              'polygon_vertices', 'hull_vertices', 'orientation_cos2', 'orientation_sin2',
              'palm_radius', 'max_centroid_distance', 'palm_centre_offset']
    names += [f'fingers_is_{k}' for k in range(6)]
    names += ['finger_count', 'deep_defects', 'all_defects', 'defect_depth_max',
              'defect_depth_mean', 'defect_depth_std', 'defect_depth_sum']
    names += [f'defect_depth_top{i}' for i in range(1, 6)]
    names += ['defect_angle_mean', 'defect_angle_min', 'defect_far_distance_mean',
              'fingertip_distance_max', 'fingertip_distance_mean']
    names += [f'signature_{i:02d}' for i in range(N_SIGNATURE)]
    names += ['signature_mean', 'signature_std', 'signature_min', 'signature_peaks']
    names += [f'fourier_p{k:02d}' for k in range(1, N_FOURIER + 1)]
    names += [f'fourier_m{k:02d}' for k in range(1, N_FOURIER + 1)]
    return names


FEATURE_NAMES: Tuple[str, ...] = tuple(_names())
"""Names of the contour features, in vector order."""


@dataclass
class ContourShape:
    """The fitted polygon and the facts the finger count rests on, in image pixels."""

    polygon: np.ndarray
    palm_centre: np.ndarray
    palm_radius: float
    finger_count: int
    defects: np.ndarray
    """(k, 3) far points (x, y) and depths of the deep convexity defects."""


class ContourFeatures:
    """
    Turn a hand contour into ``len(FEATURE_NAMES)`` geometric features.

    Parameters
    ----------
    polygon_epsilon : float
        Douglas-Peucker tolerance as a fraction of the perimeter.
    defect_depth : float
        A convexity defect counts as a gap between fingers when it is deeper than this many
        palm radii ...
    defect_angle : float
        ... and the angle at its far point is below this (degrees).
    protrusion : float
        With no such gap, one finger is up when a hull point lies this many palm radii
        from the palm centre.

    Examples
    --------
    >>> import numpy as np
    >>> square = np.array([[0, 0], [40, 0], [40, 40], [0, 40]], dtype=float)
    >>> x = ContourFeatures().features(square)
    >>> x.shape == (len(FEATURE_NAMES),)
    True

    """

    name = 'contour'
    names = FEATURE_NAMES

    def __init__(self, polygon_epsilon: float = 0.004, defect_depth: float = 0.9,
                 defect_angle: float = 80.0, protrusion: float = 2.3):
        self.polygon_epsilon = float(polygon_epsilon)
        self.defect_depth = float(defect_depth)
        self.defect_angle = float(defect_angle)
        self.protrusion = float(protrusion)

    @property
    def dim(self) -> int:
        """Length of the feature vector."""
        return len(FEATURE_NAMES)

    def features(self, contour: np.ndarray) -> np.ndarray:
        """Return the feature vector of a contour ((n, 2) points, any translation or scale)."""
        return self.analyse(contour)[0]

    def analyse(self, contour: np.ndarray) -> Tuple[np.ndarray, ContourShape]:
        """Return the feature vector and the fitted shape (for drawing and finger counts)."""
        raw = np.asarray(contour, dtype=np.float64).reshape(-1, 2)
        if len(raw) < 3:
            raise ValueError('a contour needs at least 3 points')
        # Centroid and area in float64 (shoelace), so shifting or scaling the input changes
        # the normalised points only at rounding level.
        x, y = raw[:, 0] - raw[0, 0], raw[:, 1] - raw[0, 1]
        cross = x * np.roll(y, -1) - np.roll(x, -1) * y
        area_signed = 0.5 * cross.sum()
        if abs(area_signed) < 1e-9:
            raise ValueError('the contour encloses no area')
        centre = np.array([((x + np.roll(x, -1)) * cross).sum(),
                           ((y + np.roll(y, -1)) * cross).sum()]) / (6.0 * area_signed)
        centre = centre + raw[0]
        scale = _CANVAS_SIDE / np.sqrt(abs(area_signed))
        pts = (raw - centre) * scale
        poly = fit_polygon(pts, self.polygon_epsilon)
        if _signed_area(poly) < 0:
            poly = poly[::-1]
        values, shape = self._compute(poly)
        shape.polygon = shape.polygon / scale + centre
        shape.palm_centre = shape.palm_centre / scale + centre
        shape.palm_radius = shape.palm_radius / scale
        if len(shape.defects):
            shape.defects[:, :2] = shape.defects[:, :2] / scale + centre
            shape.defects[:, 2] /= scale
        vec = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0, posinf=0.0,
                            neginf=0.0)
        return vec, shape

    # The polygon arrives centred on its centroid with sqrt(area) close to _CANVAS_SIDE.
    def _compute(self, poly: np.ndarray):
        p32 = poly.astype(np.float32)
        m = cv2.moments(p32)
        area = max(abs(m['m00']), 1e-9)
        side = np.sqrt(area)
        perimeter = cv2.arcLength(p32, True)
        hull = cv2.convexHull(p32).reshape(-1, 2)
        hull_area = max(cv2.contourArea(hull), 1e-9)
        hull_perimeter = cv2.arcLength(hull.reshape(-1, 1, 2), True)
        x0, y0, w, h = cv2.boundingRect(p32)
        (_, _), (rw, rh), _ = cv2.minAreaRect(p32)
        (_, _), radius = cv2.minEnclosingCircle(p32)
        mu20, mu02, mu11 = m['mu20'] / area, m['mu02'] / area, m['mu11'] / area
        common = np.sqrt(max((mu20 - mu02) ** 2 + 4 * mu11 ** 2, 0.0))
        lam1, lam2 = (mu20 + mu02 + common) / 2, max((mu20 + mu02 - common) / 2, 0.0)
        major, minor = 4 * np.sqrt(lam1), 4 * np.sqrt(lam2)
        theta = 0.5 * np.arctan2(2 * mu11, mu20 - mu02)
        hu = cv2.HuMoments(m).ravel()
        hu = np.sign(hu) * np.abs(hu) ** (1.0 / _HU_DEGREE)
        nu = np.array([m['nu20'], m['nu11'], m['nu02'], m['nu30'], m['nu21'], m['nu12'],
                       m['nu03']])
        nu[3:] = np.sign(nu[3:]) * np.sqrt(np.abs(nu[3:]))

        # Raster facts: the palm is the largest inscribed circle.
        offset = poly.min(axis=0) - 2.0
        size = np.ceil(poly.max(axis=0) - offset + 2.0).astype(int)
        canvas = np.zeros((size[1], size[0]), np.uint8)
        cv2.fillPoly(canvas, [np.round(poly - offset).astype(np.int32).reshape(-1, 1, 2)], 255)
        palm_centre, palm_radius = palm_circle(canvas)
        palm_centre = palm_centre + offset
        palm_radius = max(palm_radius, 1e-6)

        defects, deep, finger_count, tip_dist = self._defects(poly, palm_centre, palm_radius)
        depths = np.sort(defects[:, 2])[::-1] if len(defects) else np.zeros(0)
        deep_depths = deep[:, 2] if len(deep) else np.zeros(0)
        top = np.zeros(5)
        top[:min(5, len(depths))] = depths[:5] / palm_radius
        angles = deep[:, 3] if len(deep) else np.array([np.pi])
        far_dist = (np.linalg.norm(deep[:, :2] - palm_centre, axis=1) / palm_radius
                    if len(deep) else np.zeros(1))

        signature, sig_stats = _signature(poly, side, theta)
        fourier = _fourier(poly)
        dist_centroid = np.linalg.norm(poly, axis=1)
        values = [1.0]
        values += list(hu * np.array([4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0]))
        values += list(nu * np.array([4.0, 8.0, 4.0, 4.0, 4.0, 4.0, 4.0]))
        values += [area / hull_area, area / max(w * h, 1e-9),
                   area / max(rw * rh, 1e-9), 4 * np.pi * area / max(perimeter ** 2, 1e-9),
                   hull_perimeter / max(perimeter, 1e-9),
                   min(rw, rh) / max(rw, rh, 1e-9), w / max(w + h, 1e-9),
                   np.sqrt(max(1 - lam2 / max(lam1, 1e-12), 0.0)),
                   minor / max(major, 1e-9), area / (np.pi * radius ** 2 + 1e-9),
                   np.sqrt(4 * area / np.pi) / max(major, 1e-9),
                   min(len(poly), 60) / 60.0, min(len(hull), 30) / 30.0,
                   np.cos(2 * theta), np.sin(2 * theta),
                   palm_radius / side, dist_centroid.max() / side / 2.0,
                   np.linalg.norm(palm_centre) / side]
        # One indicator per count as well: a linear learner cannot pick a middle value of
        # one ordinal feature easily, but it can weigh an indicator.
        values += [float(finger_count == k) for k in range(6)]
        values += [finger_count / 5.0, min(len(deep), 5) / 5.0, min(len(defects), 20) / 20.0,
                   depths.max() / palm_radius / 3.0 if len(depths) else 0.0,
                   deep_depths.mean() / palm_radius / 3.0 if len(deep_depths) else 0.0,
                   deep_depths.std() / palm_radius / 3.0 if len(deep_depths) else 0.0,
                   deep_depths.sum() / palm_radius / 12.0]
        values += list(top / 3.0)
        values += [angles.mean() / np.pi, angles.min() / np.pi, far_dist.mean() / 3.0,
                   tip_dist.max() / 4.0, tip_dist.mean() / 4.0]
        values += list(signature)
        values += list(sig_stats)
        values += list(fourier)
        shape = ContourShape(polygon=poly.copy(), palm_centre=palm_centre,
                             palm_radius=palm_radius, finger_count=finger_count,
                             defects=deep[:, :3].copy() if len(deep) else np.zeros((0, 3)))
        return values, shape

    def _defects(self, poly: np.ndarray, palm_centre: np.ndarray, palm_radius: float):
        """Return all defects, the deep ones (x, y, depth, angle), the finger count, tips."""
        pts = np.round(poly * 4).astype(np.int32)  # quarter-pixel integer coordinates
        hull_idx = cv2.convexHull(pts.reshape(-1, 1, 2), returnPoints=False)
        rows = np.zeros((0, 4))
        if hull_idx is not None and len(hull_idx) > 3:
            hull_idx = np.ascontiguousarray(np.sort(hull_idx.ravel())[::-1], np.int32)
            try:
                found = cv2.convexityDefects(pts.reshape(-1, 1, 2), hull_idx.reshape(-1, 1))
            except cv2.error:
                found = None
            if found is not None:
                found = found.reshape(-1, 4)
                start, end, far = poly[found[:, 0]], poly[found[:, 1]], poly[found[:, 2]]
                depth = found[:, 3] / 256.0 / 4.0
                rows = np.column_stack([far, depth, angle_at(far, start, end)])
        deep_sel = ((rows[:, 2] > self.defect_depth * palm_radius)
                    & (rows[:, 3] < np.radians(self.defect_angle))) if len(rows) else []
        deep = rows[deep_sel] if len(rows) else rows
        hull_pts = cv2.convexHull(poly.astype(np.float32)).reshape(-1, 2)
        tip_dist = np.linalg.norm(hull_pts - palm_centre, axis=1) / palm_radius
        if len(deep):
            count = min(len(deep) + 1, 5)
        else:
            count = int(tip_dist.max() > self.protrusion)
        return rows, deep, count, tip_dist


def _signed_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def _signature(poly: np.ndarray, side: float, theta: float):
    """Return the centroid-distance profile over angle from the major axis, and its stats."""
    pts = resample_closed(poly, 256)
    dist = np.linalg.norm(pts, axis=1) / side
    ang = np.arctan2(pts[:, 1], pts[:, 0]) - theta
    # The major axis has two ends; take the one the shape's third moment leans to.
    along = pts @ np.array([np.cos(theta), np.sin(theta)])
    if np.mean(along ** 3) < 0:
        ang = ang + np.pi
    bins = np.floor((np.mod(ang, 2 * np.pi) / (2 * np.pi)) * N_SIGNATURE).astype(int)
    bins = np.clip(bins, 0, N_SIGNATURE - 1)
    profile = np.zeros(N_SIGNATURE)
    np.maximum.at(profile, bins, dist)
    empty = profile == 0
    if empty.any() and not empty.all():
        idx = np.arange(N_SIGNATURE)
        profile[empty] = np.interp(idx[empty], idx[~empty], profile[~empty], period=N_SIGNATURE)
    smooth = np.convolve(np.concatenate([dist[-2:], dist, dist[:2]]), np.ones(5) / 5, 'valid')
    peaks = (smooth > np.roll(smooth, 1)) & (smooth >= np.roll(smooth, -1)) \
        & (smooth > smooth.mean() + 0.5 * smooth.std())
    stats = [dist.mean(), dist.std(), dist.min(), min(int(peaks.sum()), 10) / 10.0]
    return profile / 2.0, stats


def _fourier(poly: np.ndarray) -> np.ndarray:
    """Return Fourier-descriptor magnitudes for +k and -k, normalised by the first pair."""
    pts = resample_closed(poly, 128)
    z = np.fft.fft(pts[:, 0] + 1j * pts[:, 1]) / len(pts)
    norm = np.abs(z[1]) + np.abs(z[-1]) + 1e-12
    plus = np.abs(z[1:N_FOURIER + 1]) / norm
    minus = np.abs(z[-1:-N_FOURIER - 1:-1]) / norm
    return np.concatenate([plus, minus])
