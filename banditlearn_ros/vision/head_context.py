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
The head's motion around a candidate nod or shake: how far each angle ranged, and how much.

The nod/shake detector (:mod:`banditlearn_ros.vision.head_gesture`) scores an oscillation by
its cross-axis range and by how it stands out from the motion of the seconds before it; both
measures live here, on the detector's filtered (yaw, pitch) history.
"""

import bisect
from typing import Iterable, Sequence, Tuple

import numpy as np


def extent(ts: Sequence[float], vals: Sequence[Tuple[float, float]], t0: float,
           t1: float, trim: float = 0.0) -> Tuple[float, float]:
    """
    Return how far yaw and pitch ranged (deg) in [t0, t1]: max - min, or trimmed.

    The range, unlike the path length, does not grow with frame-to-frame jitter, so the
    cross-axis ratio stays meaningful for small gestures in noisy poses. ``trim`` (percent)
    takes the range between the ``trim`` and ``100 - trim`` percentiles instead: a swing's
    extremes are where its samples crowd, so they stay, while a noise peak of the other
    axis goes (at 10 and 15 fps no median removes it; 0: max - min).
    """
    lo, hi = bisect.bisect_left(ts, t0), bisect.bisect_right(ts, t1)
    if hi - lo < 2:
        return 0.0, 0.0
    pts = np.asarray(vals[lo:hi])
    if trim > 0:
        low, high = np.percentile(pts, [trim, 100.0 - trim], axis=0)
        spread = high - low
    else:
        spread = pts.max(axis=0) - pts.min(axis=0)
    return float(spread[0]), float(spread[1])


def background_spread(ts: Sequence[float], vals: Sequence[Tuple[float, float]], axis: int,
                      start: float, context: float, detrend: float,
                      spans: Iterable[Sequence[float]] = ()) -> float:
    """
    Return the spread (10th-90th percentile, deg) of a smoothed angle before ``start``.

    Parameters
    ----------
    ts, vals : sequence
        Sample times (s) and filtered (yaw, pitch) angles (deg), oldest first.
    axis : int
        0 for yaw, 1 for pitch.
    start, context : float
        The spread is taken over [start - context, start - 0.05] (s).
    detrend : float
        Width (s) of a moving average taken out first (0: none): a look-around that turned
        the head one way and stayed is no ongoing motion.
    spans : iterable of [start, end]
        Times of earlier answers, left out: an answer is no ongoing motion either.

    """
    lo = bisect.bisect_left(ts, start - context)
    hi = bisect.bisect_left(ts, start - 0.05)
    if hi - lo < 10:
        return 0.0
    times = np.asarray(ts[lo:hi])
    values = np.asarray(vals[lo:hi])[:, axis]
    rate = (len(times) - 1) / max(float(times[-1] - times[0]), 1e-9)
    if detrend > 0:
        width = max(1, int(round(detrend * rate)))
        if width > 1:
            values = values - moving_average(values, width)
    keep = np.ones(len(times), bool)
    for a, b in spans:
        keep &= (times < a) | (times > b)
    values = values[keep]
    if len(values) < 10:
        return 0.0
    # A 0.2 s moving average: white pose jitter is no head motion, slower talking
    # and glancing motion is.
    span = max(1, int(round(0.2 * rate)))
    if span > 1 and len(values) > span:
        values = np.convolve(values, np.full(span, 1.0 / span), mode='valid')
    p10, p90 = np.percentile(values, [10, 90])
    return float(p90 - p10)


def held_still(ts: Sequence[float], vals: Sequence[Tuple[float, float]], now: float,
               settle: float, limit: float, frames: int = 0) -> bool:
    """
    Return whether both angles stayed within ``limit`` deg over the last ``settle`` seconds.

    The spread in that window, unlike a per-frame speed, is not broken by frame-to-frame
    jitter. With fewer than ``frames`` frames in it (at 15 or 10 fps, 0.1 s holds one or two)
    it reaches back to the last ``frames`` and its limit grows with its span (0: no rest
    seen without three frames in ``settle``, the rule before).
    """
    lo = bisect.bisect_left(ts, now - settle)
    if frames > 0 and len(ts) - lo < frames <= len(ts):
        lo = len(ts) - frames
        limit *= max(1.0, (now - ts[lo]) / settle)
    if len(ts) - lo < 3 or ts[lo] - (now - settle) > 0.05:
        return False
    window = np.asarray(vals[lo:])
    spread = window.max(axis=0) - window.min(axis=0)
    return bool(np.all(spread <= limit))


def came_down_into(ts: Sequence[float], vals: Sequence[Tuple[float, float]], turn: float,
                   value: float, longest: float, least: float) -> bool:
    """
    Return whether the pitch came down by ``least`` deg into ``value`` at ``turn``.

    Over the ``longest`` s before it: a first half-swing of a nod too small or slow to count
    still shows that the nod began by going down.
    """
    lo = bisect.bisect_left(ts, turn - longest)
    hi = bisect.bisect_left(ts, turn)
    if hi - lo < 2:
        return False
    before = min(vals[i][1] for i in range(lo, hi))
    return value - before >= least


def moving_average(values: np.ndarray, width: int) -> np.ndarray:
    """Return the centred moving average of ``width`` samples (fewer at the ends)."""
    csum = np.concatenate(([0.0], np.cumsum(values)))
    n = len(values)
    idx = np.arange(n)
    lo = np.clip(idx - width // 2, 0, n)
    hi = np.clip(idx - width // 2 + width, 0, n)
    return (csum[hi] - csum[lo]) / (hi - lo)
