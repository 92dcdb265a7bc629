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
Nod / shake detection on a head-pose time series (pure numpy).

A nod is an oscillation of pitch, a shake one of yaw. Each axis is followed by a zig-zag
turning-point tracker with hysteresis; a *swing* is the motion between two turning points and
*qualifies* when it is large enough, fast enough and not too slow. When the head comes to rest
(or stops reversing) after a run of qualifying swings with enough direction reversals, both
axes are scored and the larger confidence decides: yaw and pitch are coupled in real head motion
and in the pose estimate, so testing one axis first would bias the answer toward it. Motion in
the other axis lowers the confidence; a refractory period stops one gesture from answering
twice.
"""

import bisect
from collections import deque
from dataclasses import dataclass
import math
from typing import List, Optional, Sequence, Tuple

import numpy as np


@dataclass(frozen=True)
class GestureDecision:
    """
    One answer: nod (``answer`` True) or shake (False), with its confidence in [0, 1].

    ``start``/``end`` span the oscillation's swings, ``stamp`` is when it was decided;
    ``nod_confidence``/``shake_confidence`` are both axes' scores (the larger one won).
    """

    answer: bool
    kind: str
    confidence: float
    nod_confidence: float
    shake_confidence: float
    stamp: float
    start: float
    end: float
    reversals: int
    amplitude: float


@dataclass
class _Swing:
    """Motion from one extreme (at ``turn``) to the next (at ``t1``); ``t0``..``tb`` its core."""

    turn: float
    v0: float
    t1: float
    v1: float
    t0: float = 0.0  # core start: last moment within CORE of the start extreme
    tb: float = 0.0  # core end: first moment within CORE of the end extreme

    @property
    def amplitude(self) -> float:
        return abs(self.v1 - self.v0)

    @property
    def duration(self) -> float:
        """Return the swing's duration estimated from its core (pauses at the ends excluded)."""
        return (self.tb - self.t0) / (1.0 - 2.0 * CORE)


CORE = 0.2
"""A swing's core runs from 20 % to 80 % of its way: robust timing with pauses and jitter."""


class _AxisTracker:
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

    def swings(self) -> List[_Swing]:
        """Return the swings between turning points, the open one (to the extreme) last."""
        pts = [tuple(p) for p in self.points]
        if self.ext_t is not None and self.ext_t > pts[-1][0]:
            pts.append((self.ext_t, self.ext_v))
        return [_Swing(a[0], a[1], b[0], b[1]) for a, b in zip(pts[:-1], pts[1:])]

    def last_turn(self) -> float:
        return self.points[-1][0] if self.points else -math.inf


class HeadGestureDetector:
    """
    Turn relative (yaw, pitch) samples into nod/shake decisions with a confidence.

    Parameters
    ----------
    min_swing : float
        Smallest swing (deg, extreme to extreme) that counts toward an oscillation.
    min_speed : float
        Smallest mean angular speed of a counted swing (deg/s).
    max_swing_duration : float
        Longest counted swing (s); slower motion is looking around, not answering.
    min_reversals : int
        Direction reversals between counted swings needed for a gesture (2 = down-up-down).
    min_duration, max_duration : float
        Limits on the oscillation's length (s).
    max_cross_ratio : float
        Other-axis path length / own-axis path length at which the confidence reaches 0.
    min_confidence : float
        Decisions below this are dropped.
    refractory : float
        Time after a decision during which no other one is made (s).
    quiet : float
        The oscillation is over when no turning point came for this long (s) ...
    rest_speed, settle : float
        ... or when both axes moved slower than ``rest_speed`` (deg/s) for ``settle`` s.
    hysteresis : float
        Retreat (deg) that confirms a turning point; above the pose jitter.
    smoothing : float
        Time constant (s) of the low-pass after a 3-sample median (glitch removal).
    max_gap : float
        A gap in the samples longer than this (face lost) restarts the trackers.
    max_pause : float
        A hold longer than this (s) between two swings splits them into separate movements.

    Examples
    --------
    >>> import numpy as np
    >>> det = HeadGestureDetector()
    >>> t = np.arange(0, 3, 1 / 30)
    >>> pitch = np.where((t > 0.5) & (t < 1.5), 8 * np.sin(2 * np.pi * 2 * (t - 0.5)), 0.0)
    >>> [d.kind for d in det.run(t, np.zeros_like(t), pitch)]
    ['nod']

    """

    def __init__(self, min_swing: float = 6.0, min_speed: float = 12.0,
                 max_swing_duration: float = 0.7, min_reversals: int = 2,
                 min_duration: float = 0.25, max_duration: float = 3.5,
                 max_cross_ratio: float = 0.9, min_confidence: float = 0.3,
                 refractory: float = 1.0, quiet: float = 0.25, rest_speed: float = 12.0,
                 settle: float = 0.1, hysteresis: float = 1.5, smoothing: float = 0.03,
                 max_gap: float = 0.4, max_pause: float = 0.35):
        if min_reversals < 1:
            raise ValueError('min_reversals must be at least 1')
        if not 0 < max_cross_ratio:
            raise ValueError('max_cross_ratio must be positive')
        self.min_swing = float(min_swing)
        self.min_speed = float(min_speed)
        self.max_swing_duration = float(max_swing_duration)
        self.min_reversals = int(min_reversals)
        self.min_duration = float(min_duration)
        self.max_duration = float(max_duration)
        self.max_cross_ratio = float(max_cross_ratio)
        self.min_confidence = float(min_confidence)
        self.refractory = float(refractory)
        self.quiet = float(quiet)
        self.rest_speed = float(rest_speed)
        self.settle = float(settle)
        self.hysteresis = float(hysteresis)
        self.smoothing = float(smoothing)
        self.max_gap = float(max_gap)
        self.max_pause = float(max_pause)
        keep = self.max_duration + 1.0
        self._axes = {'yaw': _AxisTracker(self.hysteresis, keep),
                      'pitch': _AxisTracker(self.hysteresis, keep)}
        self._ts: List[float] = []  # filtered history, trimmed to max_duration + 1 s
        self._vals: List[Tuple[float, float]] = []
        self._cores: dict = {}
        self._raw: deque = deque(maxlen=3)
        self._filtered: Optional[Tuple[float, float]] = None
        self._last_t: Optional[float] = None
        self._blocked_until = -math.inf
        self._rest_since: Optional[float] = None
        self._answered = False
        self.last_scores: Tuple[float, float] = (0.0, 0.0)

    # -- state -------------------------------------------------------------------------
    def reset(self) -> None:
        """Forget all motion (a new person, or the face was lost)."""
        for axis in self._axes.values():
            axis.reset()
        self._ts.clear()
        self._vals.clear()
        self._cores.clear()
        self._raw.clear()
        self._filtered = None
        self._last_t = None
        self._rest_since = None

    def block(self, until: float) -> None:
        """Make no decision before ``until`` (s)."""
        self._blocked_until = max(self._blocked_until, until)

    # -- input -------------------------------------------------------------------------
    def update(self, t: float, yaw: float, pitch: float) -> Optional[GestureDecision]:
        """
        Add one sample (time in s, relative angles in deg); return a decision when one is made.

        Non-finite angles count as a lost face.
        """
        t = float(t)
        if not (math.isfinite(yaw) and math.isfinite(pitch)):
            self.lost(t)
            return None
        if self._last_t is not None and (t <= self._last_t or t - self._last_t > self.max_gap):
            if t <= self._last_t:
                return None
            self.reset()
        prev_t = self._last_t
        self._last_t = t
        self._raw.append((float(yaw), float(pitch)))
        med = np.median(np.asarray(self._raw), axis=0) if len(self._raw) == 3 \
            else np.asarray(self._raw[-1])
        if self._filtered is None or prev_t is None:
            filt = (float(med[0]), float(med[1]))
        else:
            k = 1.0 - math.exp(-(t - prev_t) / self.smoothing) if self.smoothing > 0 else 1.0
            filt = (self._filtered[0] + k * (med[0] - self._filtered[0]),
                    self._filtered[1] + k * (med[1] - self._filtered[1]))
        if self._filtered is not None and prev_t is not None:
            speed = math.hypot(filt[0] - self._filtered[0],
                               filt[1] - self._filtered[1]) / (t - prev_t)
            if speed < self.rest_speed:
                if self._rest_since is None:
                    self._rest_since = prev_t
            else:
                self._rest_since = None
        self._filtered = filt
        self._ts.append(t)
        self._vals.append(filt)
        if self._ts[0] < t - 2.0 * (self.max_duration + 1.0):
            cut = bisect.bisect_left(self._ts, t - self.max_duration - 1.0)
            del self._ts[:cut]
            del self._vals[:cut]
            if len(self._cores) > 256:
                self._cores.clear()
        self._axes['yaw'].update(t, filt[0])
        self._axes['pitch'].update(t, filt[1])
        if t < self._blocked_until:
            if self._answered:
                self._extend_block(t)
            return None
        if self._answered:
            # The answered gesture is over: its last swings must not count again.
            for axis in self._axes.values():
                axis.reset()
                axis.update(t, filt[0] if axis is self._axes['yaw'] else filt[1])
            self._answered = False
        return self._decide(t)

    def _extend_block(self, now: float) -> None:
        """Keep blocking while the answered gesture goes on (it may outlast the refractory)."""
        for axis in self._axes.values():
            for swing in axis.swings():
                if swing.amplitude >= 0.5 * self.min_swing and swing.t1 > now - self.quiet:
                    self._blocked_until = max(self._blocked_until, now + self.quiet)
                    return

    def lost(self, t: float) -> None:
        """Note that no face was seen at time ``t``; a long gap restarts the trackers."""
        if self._last_t is not None and t - self._last_t > self.max_gap:
            self.reset()

    def run(self, t: Sequence[float], yaw: Sequence[float],
            pitch: Sequence[float]) -> List[GestureDecision]:
        """Feed a whole series; return every decision made."""
        out = []
        for ti, yi, pi in zip(t, yaw, pitch):
            decision = self.update(ti, yi, pi)
            if decision is not None:
                out.append(decision)
        return out

    # -- decision ----------------------------------------------------------------------
    def _qualifies(self, swing: _Swing, edge: bool = False) -> bool:
        """
        Return whether a swing counts: big, fast, and not too slow.

        The first and last swing of an oscillation start or end at rest, half-way through a
        cycle, so as ``edge`` swings they need only half ``min_swing``.
        """
        duration = swing.duration
        least = 0.5 * self.min_swing if edge else self.min_swing
        return (swing.amplitude >= least and 0 < duration <= self.max_swing_duration
                and swing.amplitude / duration >= self.min_speed)

    def _core(self, name: str, swing: _Swing) -> _Swing:
        """Fill in a swing's core times from the filtered history (cached once confirmed)."""
        key = (name, swing.turn, swing.t1)
        cached = self._cores.get(key)
        if cached is not None:
            swing.t0, swing.tb = cached
            return swing
        axis = 0 if name == 'yaw' else 1
        lo = bisect.bisect_left(self._ts, swing.turn)
        hi = bisect.bisect_right(self._ts, swing.t1)
        band = CORE * swing.amplitude
        t0, tb = swing.turn, swing.t1
        for i in range(lo, hi):
            if abs(self._vals[i][axis] - swing.v0) <= band:
                t0 = self._ts[i]
        for i in range(lo, hi):
            if self._ts[i] >= t0 and abs(self._vals[i][axis] - swing.v1) <= band:
                tb = self._ts[i]
                break
        swing.t0, swing.tb = t0, max(tb, t0)
        self._cores[key] = (swing.t0, swing.tb)
        return swing

    def _run(self, name: str, now: float) -> Tuple[List[_Swing], float]:
        """
        Return the latest run of consecutive qualifying swings on one axis and its last turn.

        Tiny trailing swings (jitter after the gesture) are skipped; any other swing that does
        not count, or a hold longer than ``max_pause``, ends the run.
        """
        tracker = self._axes[name]
        swings = tracker.swings()
        open_swing = swings[-1] if swings and swings[-1].t1 > tracker.last_turn() else None
        run: List[_Swing] = []
        oldest = now - self.max_duration - 1.0
        for swing in reversed(swings):
            if swing.turn < oldest:
                break
            if swing.amplitude < 0.5 * self.min_swing:
                if run:
                    break
                continue
            self._core(name, swing)
            if run and run[-1].t0 - swing.tb > self.max_pause:
                break  # a hold between two swings: two separate movements
            if not run:
                if self._qualifies(swing, edge=True):
                    run.append(swing)
                    continue
                break
            if self._qualifies(swing):
                run.append(swing)
            elif self._qualifies(swing, edge=True):
                run.append(swing)
                break
            else:
                break
        run.reverse()
        if not run:
            return run, -math.inf
        last_turn = run[-1].turn if run[-1] is open_swing else run[-1].t1
        return run, last_turn

    def _path(self, t0: float, t1: float) -> Tuple[float, float]:
        """Return the yaw and pitch path lengths (deg) of the filtered signal in [t0, t1]."""
        lo, hi = bisect.bisect_left(self._ts, t0), bisect.bisect_right(self._ts, t1)
        pts = np.asarray(self._vals[lo:hi])
        if len(pts) < 2:
            return 0.0, 0.0
        steps = np.abs(np.diff(pts, axis=0)).sum(axis=0)
        return float(steps[0]), float(steps[1])

    def _score(self, run: List[_Swing], own: int) -> Tuple[float, int, float]:
        """Return (confidence, reversals, median swing) of one axis' run."""
        reversals = len(run) - 1
        if reversals < self.min_reversals:
            return 0.0, max(reversals, 0), 0.0
        duration = run[-1].tb - run[0].t0
        if not self.min_duration <= duration <= self.max_duration:
            return 0.0, reversals, 0.0
        amplitudes = np.array([s.amplitude for s in run])
        speeds = np.array([s.amplitude / s.duration for s in run])
        paths = self._path(run[0].t0, run[-1].tb)
        cross = paths[1 - own] / max(paths[own], 1e-9)
        s_osc = min(1.0, (reversals + 1.0) / (self.min_reversals + 2.0))
        s_amp = min(1.0, float(np.median(amplitudes)) / (2.0 * self.min_swing))
        s_speed = min(1.0, float(np.median(speeds)) / (2.0 * self.min_speed))
        s_cross = min(1.0, max(0.0, (self.max_cross_ratio - cross) / (0.5 * self.max_cross_ratio)))
        confidence = (s_osc * s_amp * s_speed) ** (1.0 / 3.0) * s_cross
        return float(confidence), reversals, float(np.median(amplitudes))

    def _decide(self, now: float) -> Optional[GestureDecision]:
        runs = {}
        ready = False
        resting = self._rest_since is not None and now - self._rest_since >= self.settle
        for name in self._axes:
            run, last_turn = self._run(name, now)
            runs[name] = run
            if len(run) - 1 < self.min_reversals:
                continue
            if now - last_turn >= self.quiet or (resting and now - last_turn >= self.settle):
                ready = True
        if not ready:
            return None
        yaw_conf, yaw_rev, yaw_amp = self._score(runs['yaw'], 0)
        pitch_conf, pitch_rev, pitch_amp = self._score(runs['pitch'], 1)
        self.last_scores = (pitch_conf, yaw_conf)
        if max(yaw_conf, pitch_conf) < self.min_confidence:
            return None
        nod = pitch_conf >= yaw_conf
        run = runs['pitch'] if nod else runs['yaw']
        decision = GestureDecision(
            answer=nod, kind='nod' if nod else 'shake',
            confidence=pitch_conf if nod else yaw_conf,
            nod_confidence=pitch_conf, shake_confidence=yaw_conf, stamp=now,
            start=run[0].t0, end=run[-1].tb,
            reversals=pitch_rev if nod else yaw_rev,
            amplitude=pitch_amp if nod else yaw_amp)
        # The rest of this gesture must not answer again: forget its swings and wait.
        for axis in self._axes.values():
            axis.reset()
        self._blocked_until = now + self.refractory
        self._answered = True
        return decision
