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
Swings of one head angle: turning points with hysteresis, and a swing's timing by its core.

The nod/shake detector (:mod:`banditlearn_ros.vision.head_gesture`) sees each angle as a
zig-zag of swings between turning points; these are its building blocks, free of any rule
about what makes a gesture.
"""

import bisect
from collections import deque
from dataclasses import dataclass
import math
from typing import List, Optional, Sequence, Tuple

import numpy as np


@dataclass
class Swing:
    """Motion from one extreme (at ``turn``) to the next (at ``t1``); ``t0``..``tb`` its core."""

    turn: float
    v0: float
    t1: float
    v1: float
    t0: float = 0.0  # core start: last moment short of CORE of the way
    tb: float = 0.0  # core end: first moment past 1 - CORE of the way
    tm: float = 0.0  # middle: last moment short of half the way before ``tb``

    @property
    def amplitude(self) -> float:
        return abs(self.v1 - self.v0)

    @property
    def duration(self) -> float:
        """Return the swing's duration estimated from its core (pauses at the ends excluded)."""
        return (self.tb - self.t0) / (1.0 - 2.0 * CORE)

    @property
    def edge_duration(self) -> float:
        """
        Return the duration from the core's faster half, for a swing from or into rest.

        A first swing that starts out of a slow drift (or a last one that settles slowly)
        is stretched on one side of its middle only; the other half times the gesture.
        """
        half = 2.0 * min(self.tm - self.t0, self.tb - self.tm) / (1.0 - 2.0 * CORE)
        return min(self.duration, half) if half > 0 else self.duration


CORE = 0.2
"""A swing's core runs from 20 % to 80 % of its way: robust timing with pauses and jitter."""

GAP = 0.25
"""Seconds without a sample that mean the face was lost (frames come every 0.1 s at 10 fps)."""


@dataclass
class Chain:
    """Motion followed since a cut: the last swing taken (its turn, end, core end), until when."""

    turn: float
    end: float
    tb: float
    until: float
    span: Optional[list] = None  # [start, end] of an answered gesture, end kept up to date
    before: float = -math.inf  # core end of the swing before the one taken last
    floor: float = -math.inf  # the floor before the swing taken last raised it
    largest: float = 0.0  # the largest whole swing followed (deg)
    size: float = 0.0  # the size of the swing taken last, so far (deg)
    back: float = math.inf  # the floor before the swing before it, if that one outgrew the rest
    grows: bool = False  # a bigger swing may start a new gesture (followed from a question)
    least: float = math.inf  # the smallest whole swing begun after the cut since the largest
    prior: float = -math.inf  # the floor before the swing before the one taken last
    cut: float = -math.inf  # when the following began (the question or the decision)
    core0: float = math.nan  # core start of the swing taken last
    pace: float = math.inf  # core time of the swing before it (s)
    alongside: bool = False  # at the cut, this axis only went along with the other's motion


class AxisTracker:
    """Turning points of one angle with hysteresis (a streaming zig-zag)."""

    def __init__(self, hysteresis: float, keep: float):
        self.hysteresis = hysteresis
        self.keep = keep
        self.points: deque = deque()  # confirmed turning points [t, v]
        self.ext_t: Optional[float] = None
        self.ext_v = 0.0
        self.direction = 0

    def reset(self) -> None:
        self.points.clear()
        self.ext_t = None
        self.direction = 0

    def update(self, t: float, v: float) -> None:
        if self.ext_t is None:
            self.ext_t, self.ext_v = t, v
            self.points.append([t, v])
            return
        if self.direction >= 0 and v >= self.ext_v:
            self.ext_t, self.ext_v = t, v
        elif self.direction <= 0 and v <= self.ext_v:
            self.ext_t, self.ext_v = t, v
        elif abs(v - self.ext_v) >= self.hysteresis:
            # Retreated far enough from the running extreme: it was a turning point.
            if self.direction == 0:
                self.points[-1] = [self.ext_t, self.ext_v]
            else:
                self.points.append([self.ext_t, self.ext_v])
            self.direction = 1 if v > self.ext_v else -1
            self.ext_t, self.ext_v = t, v
        if self.direction == 0 and abs(self.ext_v - self.points[-1][1]) >= self.hysteresis:
            self.direction = 1 if self.ext_v > self.points[-1][1] else -1
        while len(self.points) > 2 and self.points[1][0] < t - self.keep:
            self.points.popleft()

    def swings(self) -> List[Swing]:
        """Return the swings between turning points, the open one (to the extreme) last."""
        pts = [tuple(p) for p in self.points]
        if self.ext_t is not None and self.ext_t > pts[-1][0]:
            pts.append((self.ext_t, self.ext_v))
        return [Swing(a[0], a[1], b[0], b[1]) for a, b in zip(pts[:-1], pts[1:])]


SPARSE = 0.08
"""Seconds between frames above which a swing's core ends are placed between frames."""


def _crossing(ts: Sequence[float], vals: Sequence[Tuple[float, float]], axis: int, i: int,
              level: float) -> Optional[float]:
    """Return when the angle crossed ``level`` after frame ``i`` (None: frames close)."""
    if i < 0 or i + 1 >= len(ts) or ts[i + 1] - ts[i] <= SPARSE:
        return None
    a, b = vals[i][axis], vals[i + 1][axis]
    share = (level - a) / (b - a) if b != a else 0.0
    return ts[i] + min(1.0, max(0.0, share)) * (ts[i + 1] - ts[i])


def time_swing(ts: Sequence[float], vals: Sequence[Tuple[float, float]], axis: int,
               swing: Swing, longest: float) -> Swing:
    """
    Fill in a swing's core times (``t0``, ``tm``, ``tb``) from a filtered (yaw, pitch) history.

    Parameters
    ----------
    ts, vals, axis : sequence, sequence, int
        The filtered history, as ``background_spread`` takes it (``head_context``).
    swing : Swing
        The swing between two turning points; changed in place and returned.
    longest : float
        The longest swing time (s): a swing that began longer ago starts from its extreme
        within that time.

    """
    lo = bisect.bisect_left(ts, swing.turn)
    hi = bisect.bisect_right(ts, swing.t1)
    sign = 1.0 if swing.v1 >= swing.v0 else -1.0
    recent = bisect.bisect_left(ts, swing.t1 - longest)
    if recent > lo and hi - recent >= 2:
        # The swing began long ago (a rest, or a drift): start it from its lowest (or
        # highest) point within the longest swing time instead of a stale extreme.
        values = [vals[i][axis] for i in range(recent, hi)]
        j = int(np.argmin(values)) if sign > 0 else int(np.argmax(values))
        swing.turn, swing.v0 = ts[recent + j], values[j]
        lo = recent + j
    low = swing.v0 + sign * CORE * swing.amplitude
    high = swing.v1 - sign * CORE * swing.amplitude
    t0, tb = swing.turn, swing.t1
    # Rise-time style: the last moment still short of the low level, then the first
    # moment past the high one. A slow drift before the swing does not stretch it.
    # Frames further apart than SPARSE place the crossing between them (linear), else a
    # 10 fps swing is timed up to a frame longer than the same at 30 fps.
    for i in range(hi - 1, lo - 1, -1):
        if sign * (vals[i][axis] - low) <= 0:
            between = _crossing(ts, vals, axis, i, low)
            t0 = ts[i] if between is None else between
            break
    for i in range(lo, hi):
        if ts[i] >= t0 and sign * (vals[i][axis] - high) >= 0:
            between = _crossing(ts, vals, axis, i - 1, high) if i > lo else None
            tb = ts[i] if between is None or between < t0 else between
            break
    swing.t0, swing.tb = t0, max(tb, t0)
    mid, tm = swing.v0 + sign * 0.5 * swing.amplitude, swing.t0
    for i in range(bisect.bisect_left(ts, swing.tb), lo - 1, -1):
        if i < len(ts) and ts[i] <= swing.tb \
                and sign * (vals[i][axis] - mid) <= 0:
            tm = max(ts[i], swing.t0)
            break
    swing.tm = tm
    return swing
