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
Hand segmentation: an adaptive skin-colour model, hand landmarks as a guide, and a fallback.

Three ways to the hand's silhouette, tried in this order:

1. landmark-guided (when MediaPipe found the hand): the skeleton of the 21 landmarks, made
   thick, bounds the region and its own pixels give the colour model, so faces and
   skin-coloured backgrounds next to the hand are cut away;
2. skin colour in YCrCb: a (Cr, Cb) Gaussian that starts from the usual skin box and adapts
   to the accepted hand pixels (or is calibrated once), optionally combined with background
   subtraction, cleaned by morphology, then the largest *plausible* blob;
3. when the skin mask is implausible (a skin-coloured floor covers the frame), GrabCut on a
   small copy, with the frame border as background.

Work happens on a copy whose longer side is ``work_size`` pixels; contours come back in
the input image's pixels.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

import cv2
import numpy as np

from .geometry import largest_contour

# The classic skin box in (Cr, Cb) and a looser one that bounds adaptation.
SKIN_BOX = ((133, 173), (77, 127))
_LOOSE_BOX = ((125, 185), (65, 135))
# Landmark chains of MediaPipe's hand model, and the palm polygon.
_CHAINS = ((0, 1, 2, 3, 4), (0, 5, 6, 7, 8), (9, 10, 11, 12), (13, 14, 15, 16),
           (0, 17, 18, 19, 20))
_PALM = (0, 1, 5, 9, 13, 17)


@dataclass
class Segmentation:
    """The hand found in one image (or why none was)."""

    mask: np.ndarray
    """uint8 mask in input pixels (255 = hand)."""
    contour: Optional[np.ndarray]
    """(n, 2) outer contour of the hand in input pixels, or None."""
    method: str
    """'landmarks', 'skin', 'grabcut' or 'none'."""
    area_fraction: float
    reason: str = ''
    landmarks: Optional[np.ndarray] = None

    @property
    def found(self) -> bool:
        """Return True when a hand contour was found."""
        return self.contour is not None


class SkinModel:
    """
    A Gaussian skin-colour model over (Cr, Cb) with a lookup table for speed.

    Parameters
    ----------
    threshold : float
        Mahalanobis distance that still counts as skin.
    adapt_rate : float
        Weight of new evidence in ``update`` (0 freezes the model).

    """

    def __init__(self, threshold: float = 2.8, adapt_rate: float = 0.05):
        self.threshold = float(threshold)
        self.adapt_rate = float(adapt_rate)
        self.reset()

    def reset(self) -> None:
        """Forget adaptation and calibration: back to the generic skin box."""
        (cr0, cr1), (cb0, cb1) = SKIN_BOX
        self.mean = np.array([(cr0 + cr1) / 2.0, (cb0 + cb1) / 2.0])
        self.cov = np.diag([((cr1 - cr0) / 4.0) ** 2, ((cb1 - cb0) / 4.0) ** 2])
        self.calibrated = False
        self.adapted = False
        self._build()

    def set_threshold(self, threshold: float) -> None:
        """Use another skin threshold; what the model learned is kept (the table is rebuilt)."""
        self.threshold = threshold
        self._build()

    def _build(self) -> None:
        grid = np.arange(0, 256, 2, dtype=np.float64) + 0.5
        cr, cb = np.meshgrid(grid, grid, indexing='ij')
        (cr0, cr1), (cb0, cb1) = SKIN_BOX
        box = (cr >= cr0) & (cr <= cr1) & (cb >= cb0) & (cb <= cb1)
        if not self.adapted and not self.calibrated:
            lut = box
        else:
            inv = np.linalg.inv(self.cov + np.eye(2) * 4.0)
            d = np.stack([cr - self.mean[0], cb - self.mean[1]], axis=-1)
            dist2 = np.einsum('...i,ij,...j->...', d, inv, d)
            lut = dist2 <= self.threshold ** 2
            if not self.calibrated:
                # Adaptation adds the person's colours to the classic box, within a looser
                # box; it never removes skin, so a second person is still found.
                (lr0, lr1), (lb0, lb1) = _LOOSE_BOX
                lut = box | (lut & (cr >= lr0) & (cr <= lr1) & (cb >= lb0) & (cb <= lb1))
        self._lut = np.where(lut, 255, 0).astype(np.uint8).ravel()

    def mask(self, ycrcb: np.ndarray) -> np.ndarray:
        """Return the skin pixels (uint8 0/255) of a YCrCb image."""
        idx = (ycrcb[:, :, 1] >> 1).astype(np.intp) * 128 + (ycrcb[:, :, 2] >> 1)
        return self._lut[idx]

    def _fit(self, ycrcb: np.ndarray,
             region: np.ndarray) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        pix = ycrcb[region > 0][:, 1:3].astype(np.float64)
        if len(pix) < 30:
            return None
        if len(pix) > 4000:
            pix = pix[np.linspace(0, len(pix) - 1, 4000).astype(int)]
        return pix.mean(axis=0), np.cov(pix.T) + np.eye(2)

    def update(self, ycrcb: np.ndarray, region: np.ndarray, rate: Optional[float] = None) -> bool:
        """Blend the colour of ``region`` into the model (automatic adaptation)."""
        rate = self.adapt_rate if rate is None else float(rate)
        fit = self._fit(ycrcb, region) if rate > 0 else None
        if fit is None:
            return False
        mean, cov = fit
        if not self.calibrated:
            (cr0, cr1), (cb0, cb1) = _LOOSE_BOX
            if not (cr0 <= mean[0] <= cr1 and cb0 <= mean[1] <= cb1):
                return False  # not skin-like: never drift towards a background
        if not self.adapted and not self.calibrated:
            rate = max(rate, 0.5)
        self.mean = (1 - rate) * self.mean + rate * mean
        self.cov = (1 - rate) * self.cov + rate * cov
        self.adapted = True
        self._build()
        return True

    def calibrate(self, bgr: np.ndarray, region: np.ndarray) -> bool:
        """Set the model from the pixels of ``region`` in a BGR image (a calibration step)."""
        fit = self._fit(cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb), region)
        if fit is None:
            return False
        self.mean, self.cov = fit
        self.cov = self.cov * 1.5
        self.calibrated = True
        self._build()
        return True


class HandSegmenter:
    """
    Find the hand's silhouette in a BGR image.

    Parameters
    ----------
    work_size : int
        Longer side of the working copy in pixels.
    min_area, max_area : float
        Plausible hand area as fractions of the image.
    max_borders : int
        A plausible hand touches at most this many image borders (the forearm leaves one).
    min_solidity : float
        Plausible hands fill at least this fraction of their convex hull.
    adapt : bool
        Adapt the skin model to each accepted hand.
    skin_threshold : float
        Mahalanobis distance of the adapted skin model.
    background_subtraction : bool
        Keep only skin that also differs from a learned background (MOG2).
    fallback : {'grabcut', 'none'}
        What to do when the skin mask is implausible.

    """

    def __init__(self, work_size: int = 320, min_area: float = 0.005, max_area: float = 0.6,
                 max_borders: int = 2, min_solidity: float = 0.3, adapt: bool = True,
                 adapt_rate: float = 0.05, skin_threshold: float = 2.8,
                 background_subtraction: bool = False, fallback: str = 'grabcut'):
        if fallback not in ('grabcut', 'none'):
            raise ValueError(f"fallback must be 'grabcut' or 'none', got {fallback!r}")
        if not 0 <= min_area < max_area <= 1:
            raise ValueError('need 0 <= min_area < max_area <= 1')
        self.work_size = int(work_size)
        self.min_area, self.max_area = float(min_area), float(max_area)
        self.max_borders = int(max_borders)
        self.min_solidity = float(min_solidity)
        self.adapt = bool(adapt)
        self.fallback = fallback
        self.skin = SkinModel(threshold=skin_threshold, adapt_rate=adapt_rate)
        self.background_subtraction = bool(background_subtraction)
        self._bg = None

    def segment(self, bgr: np.ndarray, landmarks: Optional[np.ndarray] = None) -> Segmentation:
        """Return the hand in ``bgr``; ``landmarks`` ((21, 2+) pixels) guide it when given."""
        if bgr.ndim == 2:
            bgr = cv2.cvtColor(bgr, cv2.COLOR_GRAY2BGR)
        h, w = bgr.shape[:2]
        scale = min(1.0, self.work_size / float(max(h, w)))
        small = bgr if scale == 1.0 else cv2.resize(bgr, (max(1, round(w * scale)),
                                                          max(1, round(h * scale))),
                                                    interpolation=cv2.INTER_AREA)
        ycrcb = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)
        if landmarks is not None:
            mask, reason = self._by_landmarks(ycrcb, np.asarray(landmarks)[:, :2] * scale)
            method = 'landmarks'
        else:
            mask, reason, implausible = self._by_skin(small, ycrcb)
            method = 'skin'
            if mask is None and implausible and self.fallback == 'grabcut':
                mask, reason = self._by_grabcut(small)
                method = 'grabcut'
        if mask is None:
            return Segmentation(np.zeros((h, w), np.uint8), None, 'none', 0.0, reason,
                                landmarks)
        contour = largest_contour(mask)
        if contour is None:
            return Segmentation(np.zeros((h, w), np.uint8), None, 'none', 0.0,
                                'no contour', landmarks)
        contour = (contour + 0.5) / scale - 0.5
        full = mask if scale == 1.0 else cv2.resize(mask, (w, h),
                                                    interpolation=cv2.INTER_NEAREST)
        frac = float(np.count_nonzero(mask)) / mask.size
        return Segmentation(full, contour, method, frac, reason, landmarks)

    def calibrate(self, bgr: np.ndarray, region: np.ndarray) -> bool:
        """Calibrate the skin model from a hand region (uint8 mask of ``bgr``'s size)."""
        return self.skin.calibrate(bgr, region)

    # -- the three methods -------------------------------------------------------------
    def _by_skin(self, small: np.ndarray, ycrcb: np.ndarray):
        skin = self.skin.mask(ycrcb)
        if self.background_subtraction:
            if self._bg is None:
                self._bg = cv2.createBackgroundSubtractorMOG2(history=300, varThreshold=25,
                                                              detectShadows=False)
            moving = self._bg.apply(small)  # learning rate 1/frames, then 1/history
            moving = cv2.dilate(moving, _kernel(small, 0.03))
            skin = cv2.bitwise_and(skin, moving)
        skin = _clean(skin, small)
        covered = np.count_nonzero(skin) / float(skin.size)
        if covered > self.max_area:
            # A skin-coloured scene (floor, wall): no blob of it can be trusted.
            return None, f'skin colour covers {covered:.2f} of the image', True
        mask, reason, implausible = self._pick(skin)
        if mask is not None and self.adapt:
            core = cv2.erode(mask, _kernel(small, 0.015))
            self.skin.update(ycrcb, core)
        return mask, reason, implausible

    def _by_landmarks(self, ycrcb: np.ndarray, lm: np.ndarray):
        h, w = ycrcb.shape[:2]
        palm = float(np.linalg.norm(lm[9] - lm[0])) + 1e-6
        # The skeleton, made as thick as fingers, is a first silhouette and a colour sample.
        skeleton = np.zeros((h, w), np.uint8)
        pts = np.round(lm).astype(np.int32)
        cv2.fillPoly(skeleton, [pts[list(_PALM)].reshape(-1, 1, 2)], 255)
        thick = max(int(round(0.28 * palm)), 2)
        for chain in _CHAINS:
            line = lm[list(chain)].copy()
            # The tip landmark sits on the finger pad; the finger ends a little further on.
            line[-1] = line[-1] + 0.5 * (line[-1] - line[-2])
            line = np.round(line).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(skeleton, [line], False, 255, thick)
        # The palm polygon is the most reliable colour sample (finger landmarks can stray).
        palm_region = np.zeros((h, w), np.uint8)
        cv2.fillPoly(palm_region, [pts[list(_PALM)].reshape(-1, 1, 2)], 255)
        sample = cv2.erode(palm_region, _kernel_px(max(thick // 3, 1)))
        fit = self.skin._fit(ycrcb, sample)
        region = cv2.dilate(skeleton, _kernel_px(max(int(0.2 * palm), 2)))
        mask = skeleton
        x, y, bw, bh = cv2.boundingRect(region)
        if fit is not None and bw > 0 and bh > 0:
            mean, cov = fit
            inv = np.linalg.inv(cov * 1.5 + np.eye(2) * 4.0)
            roi = (slice(y, y + bh), slice(x, x + bw))
            d0 = ycrcb[roi][:, :, 1].astype(np.float32) - np.float32(mean[0])
            d1 = ycrcb[roi][:, :, 2].astype(np.float32) - np.float32(mean[1])
            dist2 = inv[0, 0] * d0 * d0 + 2 * inv[0, 1] * d0 * d1 + inv[1, 1] * d1 * d1
            colour = np.zeros((h, w), np.uint8)
            colour[roi] = _clean(np.where((dist2 <= 9.0) & (region[roi] > 0), 255, 0)
                                 .astype(np.uint8), ycrcb)
            # Trust the colour only where it agrees with most of the skeleton.
            overlap = np.count_nonzero(colour & skeleton) / max(np.count_nonzero(skeleton), 1)
            if overlap > 0.5:
                mask = colour
            if self.adapt:
                self.skin.update(ycrcb, sample)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        if n <= 1:
            return None, 'landmarks gave an empty region'
        inside = np.clip(pts, [0, 0], [w - 1, h - 1])
        votes = np.bincount(labels[inside[:, 1], inside[:, 0]], minlength=n)
        votes[0] = 0
        best = int(np.argmax(votes)) if votes.max() > 0 else \
            1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        return np.where(labels == best, 255, 0).astype(np.uint8), 'landmark skeleton'

    def _by_grabcut(self, small: np.ndarray):
        h, w = small.shape[:2]
        scale = min(1.0, 160.0 / max(h, w))
        tiny = cv2.resize(small, (max(8, round(w * scale)), max(8, round(h * scale))),
                          interpolation=cv2.INTER_AREA) if scale < 1 else small
        th, tw = tiny.shape[:2]
        b = max(2, int(0.04 * max(th, tw)))
        gc = np.zeros((th, tw), np.uint8)
        bgd, fgd = np.zeros((1, 65)), np.zeros((1, 65))
        try:
            cv2.grabCut(tiny, gc, (b, b, tw - 2 * b, th - 2 * b), bgd, fgd, 4,
                        cv2.GC_INIT_WITH_RECT)
        except cv2.error as exc:
            return None, f'grabcut failed: {exc}'
        fg = np.where((gc == cv2.GC_FGD) | (gc == cv2.GC_PR_FGD), 255, 0).astype(np.uint8)
        if scale < 1:
            fg = cv2.resize(fg, (w, h), interpolation=cv2.INTER_LINEAR)
            fg = np.where(fg > 127, 255, 0).astype(np.uint8)
        fg = _clean(fg, small)
        mask, reason, _ = self._pick(fg, borders=self.max_borders + 1)
        return mask, 'grabcut: ' + reason

    def _pick(self, mask: np.ndarray, borders: Optional[int] = None):
        """Return the largest plausible blob, the reason, and whether a big blob was refused."""
        borders = self.max_borders if borders is None else borders
        h, w = mask.shape
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            return None, 'no skin-coloured blob', False
        refused_big = False
        reasons = []
        for c in sorted(contours, key=cv2.contourArea, reverse=True):
            area = cv2.contourArea(c) / float(h * w)
            if area < self.min_area:
                reasons.append(f'largest blob too small ({area:.3f})')
                break
            x, y, bw, bh = cv2.boundingRect(c)
            touched = (x <= 1) + (y <= 1) + (x + bw >= w - 1) + (y + bh >= h - 1)
            hull_area = cv2.contourArea(cv2.convexHull(c)) / float(h * w)
            if area > self.max_area or touched > borders:
                refused_big = True
                reasons.append(f'blob of {area:.2f} of the image touching {touched} borders')
                continue
            if area < self.min_solidity * hull_area:
                reasons.append('blob too ragged')
                continue
            out = np.zeros_like(mask)
            cv2.drawContours(out, [c], -1, 255, -1)
            return out, 'largest plausible blob', refused_big
        return None, '; '.join(reasons[:2]) or 'no plausible blob', refused_big


def _kernel(img: np.ndarray, fraction: float) -> np.ndarray:
    return _kernel_px(max(1, int(round(fraction * max(img.shape[:2])))))


def _kernel_px(radius: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))


def _clean(mask: np.ndarray, img: np.ndarray) -> np.ndarray:
    """
    Remove specks with a small opening.

    No closing: at a 320-pixel working size it bridges the gaps between spread fingers,
    which the finger count needs; holes inside the hand are filled when the blob's outer
    contour is drawn.
    """
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, _kernel(img, 0.003))
