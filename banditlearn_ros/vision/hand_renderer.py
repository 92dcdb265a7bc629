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
Seeded synthetic hand images with ground truth, for tests, the demo and feature data sets.

A hand is built from a skeleton (palm, wrist, five fingers of two or three joints) in
units of the palm width, posed for a gesture, then placed with a random position, scale,
rotation, skin tone and lighting on a cluttered background, blurred and made noisy.  The
ground truth holds the gesture, its finger count, the silhouette and the 21 landmarks in
MediaPipe's order (wrist; thumb CMC..tip; index, middle, ring, little MCP..tip).
"""

from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

import cv2
import numpy as np

GESTURES: Tuple[str, ...] = ('fist', 'one', 'two', 'three', 'four', 'five', 'thumbs_up')
"""The gestures the renderer draws, in label order."""

FINGER_COUNT: Dict[str, int] = {'fist': 0, 'one': 1, 'two': 2, 'three': 3, 'four': 4,
                                'five': 5, 'thumbs_up': 1}
"""How many fingers (thumb included) each gesture extends."""

# Which of (thumb, index, middle, ring, little) each gesture extends.
_EXTENDED = {
    'fist': (0, 0, 0, 0, 0), 'one': (0, 1, 0, 0, 0), 'two': (0, 1, 1, 0, 0),
    'three': (0, 1, 1, 1, 0), 'four': (0, 1, 1, 1, 1), 'five': (1, 1, 1, 1, 1),
    'thumbs_up': (1, 0, 0, 0, 0),
}
# Finger bases (x, y), fan angles (degrees from "up", + towards the thumb), lengths, widths,
# in palm widths; the hand points up (-y) with the thumb on the +x side.
_BASES = np.array([[0.42, 0.30], [0.32, -0.45], [0.10, -0.48], [-0.12, -0.46], [-0.33, -0.40]])
_ANGLES = np.array([55.0, 9.0, 0.0, -9.0, -18.0])
_LENGTHS = np.array([0.78, 0.90, 1.00, 0.93, 0.72])
_WIDTHS = np.array([0.25, 0.20, 0.21, 0.20, 0.17])
# Joint positions along an extended finger (fractions of its length) for MCP/PIP/DIP/TIP.
_JOINTS = np.array([0.0, 0.45, 0.72, 1.0])
_SKIN_BGR = np.array([[170, 200, 235], [140, 175, 225], [120, 160, 210], [95, 135, 190],
                      [70, 105, 160], [50, 75, 120], [160, 185, 225], [110, 150, 200]])


@dataclass
class RenderedHand:
    """One synthetic image and its ground truth."""

    image: np.ndarray
    """BGR uint8 image."""
    mask: np.ndarray
    """uint8 silhouette of the hand (255 inside)."""
    gesture: str
    label: int
    """Index of ``gesture`` in the renderer's gesture list."""
    finger_count: int
    landmarks: np.ndarray
    """(21, 3) landmark positions in pixels (z negative = nearer the camera)."""
    centre: Tuple[float, float]
    scale: float
    """Palm width in pixels."""
    angle: float
    """Rotation of the hand in degrees (counter-clockwise on screen)."""
    skin_bgr: Tuple[int, int, int]


class HandRenderer:
    """
    Draw seeded synthetic hand gestures.

    Parameters
    ----------
    width, height : int
        Image size.
    gestures : sequence of str
        Which of ``GESTURES`` to draw; labels follow this order.
    scale_range : (float, float)
        Palm width in pixels, as a fraction of the image height.
    rotation_range : float
        Largest rotation in degrees either way.
    clutter : int
        Largest number of background objects.
    blur, noise : float
        Largest Gaussian blur sigma (pixels) and noise standard deviation (grey levels).
    seed : int
        Seed of the generator used when ``render`` is given no generator.

    Examples
    --------
    >>> hand = HandRenderer(seed=1).render('two')
    >>> hand.finger_count, hand.image.shape
    (2, (480, 640, 3))

    """

    def __init__(self, width: int = 640, height: int = 480,
                 gestures: Sequence[str] = GESTURES[:6] + ('thumbs_up',),
                 scale_range: Tuple[float, float] = (0.13, 0.24), rotation_range: float = 30.0,
                 clutter: int = 12, blur: float = 1.2, noise: float = 6.0, seed: int = 0):
        unknown = [g for g in gestures if g not in _EXTENDED]
        if unknown:
            raise ValueError(f'unknown gestures {unknown}; choose from {GESTURES}')
        if width < 64 or height < 64:
            raise ValueError('the image must be at least 64 x 64')
        self.width, self.height = int(width), int(height)
        self.gestures = tuple(gestures)
        self.scale_range = scale_range
        self.rotation_range = float(rotation_range)
        self.clutter, self.blur, self.noise = int(clutter), float(blur), float(noise)
        self._rng = np.random.default_rng(seed)

    def render(self, gesture: Optional[str] = None,
               rng: Optional[np.random.Generator] = None,
               background: Optional[np.ndarray] = None) -> RenderedHand:
        """Render one gesture (a random one when None) with random pose and appearance."""
        rng = self._rng if rng is None else rng
        if gesture is None:
            gesture = self.gestures[int(rng.integers(len(self.gestures)))]
        if gesture not in self.gestures:
            raise ValueError(f'gesture {gesture!r} is not one of {self.gestures}')
        shapes, landmarks = _pose(gesture, rng)
        for _ in range(50):
            scale = self.height * rng.uniform(*self.scale_range)
            angle = rng.uniform(-self.rotation_range, self.rotation_range)
            if gesture == 'thumbs_up':
                angle += 90.0  # the fist lies on its side, the thumb points up
            transform = _transform(scale, angle, (0.0, 0.0))
            pts = np.vstack([_apply(transform, p) for p, _ in shapes])
            lo, hi = pts.min(axis=0), pts.max(axis=0)
            margin = 0.25 * scale
            span = np.array([self.width, self.height]) - (hi - lo) - 2 * margin
            if np.all(span > 0):
                break
        else:
            raise ValueError('the image is too small for the hand')
        offset = margin - lo + rng.uniform(0, 1, 2) * span
        transform = _transform(scale, angle, offset)
        mask = self._silhouette(shapes, transform)
        lm = landmarks.copy()
        lm[:, :2] = _apply(transform, landmarks[:, :2])
        lm[:, 2] *= scale  # z in pixels, as MediaPipe gives it
        skin = self._skin(rng)
        image = self._background(rng) if background is None else background.copy()
        image = self._paint(image, mask, skin, transform, shapes, rng)
        image = self._degrade(image, rng)
        centre = _apply(transform, np.zeros((1, 2)))[0]
        return RenderedHand(image=image, mask=mask, gesture=gesture,
                            label=self.gestures.index(gesture),
                            finger_count=FINGER_COUNT[gesture], landmarks=lm,
                            centre=(float(centre[0]), float(centre[1])), scale=float(scale),
                            angle=float(angle), skin_bgr=tuple(int(c) for c in skin))

    def background(self, rng: Optional[np.random.Generator] = None) -> np.ndarray:
        """Return a scene without a hand: the backgrounds ``render`` draws hands on."""
        return self._background(self._rng if rng is None else rng)

    def _silhouette(self, shapes, transform) -> np.ndarray:
        mask = np.zeros((self.height, self.width), np.uint8)
        scale = np.hypot(*transform[:, 0])
        for pts, width in shapes:
            _draw_shape(mask, _apply(transform, pts), width * scale, 255)
        return mask

    def _skin(self, rng: np.random.Generator) -> np.ndarray:
        base = _SKIN_BGR[int(rng.integers(len(_SKIN_BGR)))].astype(np.float64)
        return np.clip(base * rng.uniform(0.9, 1.1) + rng.normal(0, 6, 3), 0, 255)

    def _background(self, rng: np.random.Generator) -> np.ndarray:
        h, w = self.height, self.width
        # Background colours are drawn away from skin: greys, blues, greens and purples.
        base = _non_skin_colour(rng).astype(np.float32)
        other = _non_skin_colour(rng).astype(np.float32)
        if rng.random() < 0.5:
            t = np.linspace(0, 1, w, dtype=np.float32)[:, None]
            row = base * (1 - t) + other * t
            img = np.broadcast_to(row[None], (h, w, 3))
        else:
            t = np.linspace(0, 1, h, dtype=np.float32)[:, None]
            col = base * (1 - t) + other * t
            img = np.broadcast_to(col[:, None], (h, w, 3))
        img = np.ascontiguousarray(img.astype(np.uint8))
        for _ in range(int(rng.integers(0, self.clutter + 1))):
            colour = tuple(int(c) for c in _non_skin_colour(rng))
            kind = rng.integers(3)
            x, y = int(rng.integers(w)), int(rng.integers(h))
            size = int(rng.uniform(0.03, 0.2) * h)
            if kind == 0:
                cv2.rectangle(img, (x, y), (x + size, y + int(size * rng.uniform(0.3, 2))),
                              colour, -1)
            elif kind == 1:
                cv2.circle(img, (x, y), size // 2, colour, -1, cv2.LINE_AA)
            else:
                end = (int(rng.integers(w)), int(rng.integers(h)))
                cv2.line(img, (x, y), end, colour, int(rng.integers(1, 6)), cv2.LINE_AA)
        return img

    def _paint(self, image, mask, skin, transform, shapes, rng) -> np.ndarray:
        h, w = mask.shape
        x, y, bw, bh = cv2.boundingRect(mask)
        x0, y0 = max(x - 2, 0), max(y - 2, 0)
        x1, y1 = min(x + bw + 2, w), min(y + bh + 2, h)
        roi = mask[y0:y1, x0:x1]
        # Shading: darker near the silhouette's edge (roundness) and a lighting gradient.
        dist = cv2.distanceTransform(roi, cv2.DIST_L2, 3)
        scale = np.hypot(*transform[:, 0])
        shade = 0.72 + 0.28 * np.minimum(dist / np.float32(0.12 * scale + 1e-9), 1.0)
        direction = rng.normal(size=2)
        direction /= np.linalg.norm(direction) + 1e-12
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        ramp = (xx / w - 0.5) * direction[0] + (yy / h - 0.5) * direction[1]
        light = 1.0 + np.float32(rng.uniform(0.0, 0.25)) * ramp
        hand = skin.astype(np.float32)[None, None, :] * (shade * light)[:, :, None]
        # Creases between fingers: thin darker lines along each finger's outline.
        crease = np.zeros_like(mask)
        for pts, width in shapes[2:]:
            _draw_shape(crease, _apply(transform, pts), width * scale, 255, outline=True)
        hand[crease[y0:y1, x0:x1] > 0] *= 0.85
        alpha = cv2.GaussianBlur(roi, (3, 3), 0).astype(np.float32)[:, :, None] / 255.0
        out = image.copy()
        patch = image[y0:y1, x0:x1].astype(np.float32) * (1 - alpha) + hand * alpha
        out[y0:y1, x0:x1] = np.clip(patch, 0, 255).astype(np.uint8)
        return out

    def _degrade(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        gain, bias = rng.uniform(0.8, 1.15), rng.uniform(-15, 15)
        out = cv2.addWeighted(image, gain, image, 0.0, bias)  # saturating gain and offset
        sigma = rng.uniform(0.0, self.blur)
        if sigma > 0.3:
            out = cv2.GaussianBlur(out, (0, 0), sigma)
        if self.noise > 0:
            # OpenCV's generator is ~10x faster than numpy's here; seeded from ours.
            noise = np.empty(out.shape, np.int16)
            cv2.setRNGSeed(int(rng.integers(2 ** 31)))
            cv2.randn(noise, 0.0, float(rng.uniform(0, self.noise)))
            out = cv2.add(out, noise, dtype=cv2.CV_8U)
        return out


def _non_skin_colour(rng: np.random.Generator) -> np.ndarray:
    """Return a BGR colour outside the usual skin range (greys, blues, greens, purples)."""
    kind = rng.integers(4)
    if kind == 0:
        return np.full(3, rng.uniform(30, 230))
    hue = [rng.uniform(35, 90), rng.uniform(90, 130), rng.uniform(130, 165)][kind - 1]
    hsv = np.uint8([[[hue, rng.uniform(60, 255), rng.uniform(60, 240)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float64)


def _pose(gesture: str, rng: np.random.Generator):
    """Return the hand's shapes [(points, width)] and (21, 3) landmarks in palm units."""
    extended = _EXTENDED[gesture]
    spread = rng.uniform(1.0, 1.8)
    shapes = []
    # Palm as a rounded quadrilateral, wrist as a short stub below it.
    palm = np.array([[-0.45, -0.40], [-0.30, -0.52], [0.30, -0.55], [0.45, -0.42],
                     [0.48, 0.25], [0.30, 0.50], [-0.30, 0.50], [-0.45, 0.25]])
    palm = palm * rng.uniform(0.95, 1.05, 2)
    shapes.append((palm, 0.12))
    wrist_len = rng.uniform(0.65, 0.8)
    shapes.append((np.array([[0.0, 0.35], [0.0, wrist_len]]), 0.62))
    landmarks = np.zeros((21, 3))
    landmarks[0, :2] = (0.0, 0.62)
    for f in range(5):
        base = _BASES[f] + rng.normal(0, 0.015, 2)
        length = _LENGTHS[f] * rng.uniform(0.92, 1.08)
        width = _WIDTHS[f] * rng.uniform(0.92, 1.08)
        if f == 0:
            angle = _ANGLES[0] + rng.uniform(-10, 10)
            if gesture == 'thumbs_up':
                angle = 90.0 + rng.uniform(-12, 12)
                length *= 1.1
        else:
            angle = _ANGLES[f] * spread + rng.uniform(-3, 3)
        # Angles turn from "up" (-y) towards the thumb side (+x).
        direction = np.array([np.sin(np.radians(angle)), -np.cos(np.radians(angle))])
        idx = 1 + 4 * f
        if extended[f]:
            joints = base + np.outer(_JOINTS, direction) * length
            shapes.append((joints[[0, 1]], width))
            shapes.append((joints[[1, 3]], width * 0.88))
            landmarks[idx:idx + 4, :2] = joints
        elif f == 0:
            # The folded thumb lies across the palm, inside the silhouette.
            tip = np.array([0.0, -0.05]) + rng.normal(0, 0.03, 2)
            joints = base + np.outer(_JOINTS, tip - base)
            shapes.append((joints[[0, 3]], width))
            landmarks[idx:idx + 4, :2] = joints
            landmarks[idx + 1:idx + 4, 2] = -0.15
        else:
            # A folded finger shows as a knuckle bump; its joints curl back over the palm.
            bump = base + direction * 0.07
            shapes.append((np.array([bump, bump]), width * 1.05))
            landmarks[idx:idx + 4, :2] = [base, base + direction * 0.12,
                                          base - direction * 0.04, base - direction * 0.18]
            landmarks[idx + 1:idx + 4, 2] = [-0.2, -0.3, -0.25]
    return shapes, landmarks


def _transform(scale: float, angle_deg: float, offset) -> np.ndarray:
    """Return the 2x3 affine map from palm units to pixels (rotation on screen, y down)."""
    a = np.radians(angle_deg)
    c, s = np.cos(a) * scale, np.sin(a) * scale
    return np.array([[c, s, offset[0]], [-s, c, offset[1]]])


def _apply(transform: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    return pts @ transform[:, :2].T + transform[:, 2]


def _draw_shape(mask, pts, width, value, outline=False):
    """Draw a polygon (more than 2 points) or a capsule (2 points) of the given width."""
    shift = 4
    scaled = np.round(pts * (1 << shift)).astype(np.int32)
    thickness = max(int(round(width)), 1)
    if len(pts) > 2:
        if outline:
            return
        cv2.fillPoly(mask, [scaled.reshape(-1, 1, 2)], value, cv2.LINE_8, shift)
        cv2.polylines(mask, [scaled.reshape(-1, 1, 2)], True, value, thickness, cv2.LINE_8,
                      shift)
        return
    p0, p1 = (tuple(int(v) for v in scaled[0]), tuple(int(v) for v in scaled[1]))
    if outline:
        cv2.line(mask, p0, p1, value, thickness + 2, cv2.LINE_8, shift)
        cv2.line(mask, p0, p1, 0, max(thickness - 2, 1), cv2.LINE_8, shift)
        return
    cv2.line(mask, p0, p1, value, thickness, cv2.LINE_8, shift)
