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
A rendered face turned by a head pose: camera images of a simulated person nodding or shaking.

The package ships no face photo, so the bring-up's simulated person needs a face of its own:
a head made of two ellipsoids (skull and nose), ray-cast per pixel through a pinhole camera
(focal length = image width, as :func:`head_pose.camera_matrix` assumes) with Lambert
shading, its eyes, brows, lips and hair painted on the surface in head coordinates.
Turning it by (yaw, pitch, roll) moves the nose against the outline the way a real head does,
which is what Face Mesh reads as a pose. Angles follow :mod:`head_pose`:
``R = Ry(yaw) @ Rx(pitch) @ Rz(roll)``, pitch > 0 face down, yaw > 0 nose to the image's left.
"""

from collections import OrderedDict
from typing import Tuple

import numpy as np

from .head_pose import euler_to_rotation

SKIN = np.array([120.0, 160.0, 215.0])  # BGR
HAIR = np.array([40.0, 55.0, 70.0])
LIPS = np.array([90.0, 80.0, 170.0])
BROW = np.array([35.0, 45.0, 60.0])
EYE_WHITE = np.array([235.0, 235.0, 235.0])
IRIS = np.array([60.0, 80.0, 100.0])
PUPIL = np.array([20.0, 20.0, 20.0])

HEAD = np.array([75.0, 100.0, 90.0])  # semi-axes (mm): x across, y down, z toward the back
NOSE_CENTRE = np.array([0.0, 12.0, -80.0])
NOSE = np.array([11.0, 24.0, 18.0])
LIGHT = np.array([-0.35, -0.45, -0.82])


def _ellipsoid_hits(origin: np.ndarray, direction: np.ndarray, centre: np.ndarray,
                    axes: np.ndarray) -> np.ndarray:
    """Return the ray parameter of the nearest hit per ray (inf for a miss), one origin."""
    o = (origin - centre) / axes
    d = direction / axes
    a = np.einsum('ij,ij->i', d, d)
    b = 2.0 * d @ o
    c = float(o @ o) - 1.0
    disc = b * b - 4.0 * a * c
    out = np.full(len(d), np.inf)
    hit = disc >= 0
    out[hit] = (-b[hit] - np.sqrt(disc[hit])) / (2.0 * a[hit])
    return out


def _ellipse(x: np.ndarray, y: np.ndarray, cx: float, cy: float, rx: float,
             ry: float) -> np.ndarray:
    return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1.0


class FaceRenderer:
    """
    Render a face at a given head pose into a BGR image.

    Parameters
    ----------
    width, height : int
        Image size (pixels).
    face_height : float
        Height of the head in the image (pixels).
    background : tuple of int
        BGR colour of the backdrop (a gentle vertical gradient is added).
    step : float
        Angles are rounded to this many degrees and the images of the last ``cache`` poses
        kept (0: no rounding, no cache); a nodding head revisits the same poses, and a
        render takes tens of milliseconds.
    cache : int
        Poses whose images are kept.

    Examples
    --------
    >>> FaceRenderer(160, 120).render(10.0, 0.0).shape
    (120, 160, 3)

    """

    def __init__(self, width: int = 320, height: int = 240, face_height: float = 170.0,
                 background: Tuple[int, int, int] = (150, 140, 130), step: float = 0.0,
                 cache: int = 0):
        if width < 16 or height < 16:
            raise ValueError('the image must be at least 16 x 16 pixels')
        self.step = float(step)
        self.cache = int(cache)
        self._images: 'OrderedDict[Tuple[float, float, float], np.ndarray]' = OrderedDict()
        self.width, self.height = int(width), int(height)
        focal = float(self.width)
        self.distance = focal * 2.0 * HEAD[1] / float(face_height)  # camera to head (mm)
        xs = (np.arange(self.width) + 0.5 - self.width / 2.0) / focal
        ys = (np.arange(self.height) + 0.5 - self.height / 2.0) / focal
        gx, gy = np.meshgrid(xs, ys)
        self._rays = np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)], axis=1)
        ramp = np.linspace(0.85, 1.1, self.height)[:, None, None]
        self._background = np.clip(np.asarray(background, float)[None, None, :] * ramp, 0, 255)

    def render(self, yaw: float, pitch: float, roll: float = 0.0) -> np.ndarray:
        """Return the face turned by yaw/pitch/roll (deg) as a uint8 BGR image (read-only)."""
        if self.step > 0:
            key = tuple(round(a / self.step) * self.step for a in (yaw, pitch, roll))
            image = self._images.get(key)
            if image is None:
                image = self._draw(*key)
                image.flags.writeable = False
                self._images[key] = image
                while len(self._images) > max(self.cache, 1):
                    self._images.popitem(last=False)
            else:
                self._images.move_to_end(key)
            return image
        return self._draw(yaw, pitch, roll)

    def _draw(self, yaw: float, pitch: float, roll: float) -> np.ndarray:
        rot = euler_to_rotation(yaw, pitch, roll)
        # Rays in head coordinates: camera point = R @ head point + (0, 0, distance).
        origin = rot.T @ np.array([0.0, 0.0, -self.distance])
        direction = self._rays @ rot  # rows: R.T @ ray
        t_head = _ellipsoid_hits(origin, direction, np.zeros(3), HEAD)
        t_nose = _ellipsoid_hits(origin, direction, NOSE_CENTRE, NOSE)
        nose = t_nose < t_head
        t = np.minimum(t_head, t_nose)
        hit = np.isfinite(t)
        p = origin + t[hit, None] * direction[hit]
        normal = np.where(nose[hit, None], (p - NOSE_CENTRE) / NOSE ** 2, p / HEAD ** 2)
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        light = LIGHT / np.linalg.norm(LIGHT)
        shade = 0.35 + 0.65 * np.clip((normal @ rot.T) @ light, 0.0, 1.0)
        colour = np.tile(SKIN, (len(p), 1))
        x, y, z = p[:, 0], p[:, 1], p[:, 2]
        front = (z < -20.0) & ~nose[hit]
        colour[(y < -55.0) | (z > 10.0) & (y < 20.0)] = HAIR
        for side in (-1.0, 1.0):
            cx = side * 30.0
            socket = front & _ellipse(x, y, cx, -14.0, 24.0, 15.0)
            colour[socket] *= 0.78
            white = front & _ellipse(x, y, cx, -12.0, 15.0, 7.5)
            colour[white] = EYE_WHITE
            colour[white & _ellipse(x, y, cx, -12.0, 7.0, 7.0)] = IRIS
            colour[white & _ellipse(x, y, cx, -12.0, 3.5, 3.5)] = PUPIL
            colour[front & _ellipse(x, y, cx, -19.5, 15.0, 1.3)] = BROW  # upper lid
            colour[front & _ellipse(x, y, cx + side * 2.0, -31.0, 19.0, 4.5)] = BROW
            nostril = nose[hit] & _ellipse(x, y, side * 5.5, NOSE_CENTRE[1] + 19.0, 3.5, 2.5)
            colour[nostril] = PUPIL * 2.0
        colour[front & _ellipse(x, y, 0.0, 53.0, 23.0, 7.5)] = LIPS
        colour[front & _ellipse(x, y, 0.0, 53.0, 22.0, 1.5)] = LIPS * 0.4
        image = np.broadcast_to(self._background, (self.height, self.width, 3))
        image = image.reshape(-1, 3).copy()
        image[hit] = colour * shade[:, None]
        return np.clip(image, 0, 255).astype(np.uint8).reshape(self.height, self.width, 3)
