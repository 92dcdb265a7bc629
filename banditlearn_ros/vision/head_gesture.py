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
the other axis, a swing that does not stand out from the head's motion of the seconds before
(talking), and for nods an upward start lower the confidence.

An answer belongs to its question, and one gesture answers once: after a decision, and when a
new question is asked (:meth:`HeadGestureDetector.question`), each axis gets a *floor*, a time
before which no swing counts, and the motion going on at that moment is followed swing by
swing (each swing starting where the last ended, with no hold longer than ``max_pause``)
and raises the floor as it goes, for at most ``max_duration``. So the rest of a shake still
going when the next question comes never answers it; a gesture begun after the question does.
A refractory period after a decision is a second guard; a new question lifts it.

The parts live beside this module, one concept each: a swing and its timing
(``head_swings``), which swings make a run (``head_runs``), a run's confidence
(``head_score``), the motion around it (``head_context``), the floors and the motion followed
past them (``head_follow``) and the samples' filter (``head_filter``).
"""

import bisect
from collections import deque
from dataclasses import dataclass
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

from banditlearn_ros.vision.head_context import held_still
from banditlearn_ros.vision.head_filter import PoseFilter
from banditlearn_ros.vision.head_follow import Floors
from banditlearn_ros.vision.head_glitch import Glitches
from banditlearn_ros.vision.head_runs import Runs
from banditlearn_ros.vision.head_score import score_run
from banditlearn_ros.vision.head_swings import AxisTracker, GAP, Swing

SLACK = 1e-6
"""Seconds of rounding allowed where a frame stamp meets a time limit exactly."""


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

    def values(self) -> Dict[str, Any]:
        """Return what /diagnostics shows of the last decision (``last_*``)."""
        return {'last_gesture': self.kind, 'last_confidence': self.confidence,
                'last_nod_confidence': self.nod_confidence,
                'last_shake_confidence': self.shake_confidence}


class HeadGestureDetector(Runs, Floors, Glitches):
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
        Other-axis range / own-axis range during the oscillation at which the confidence
        reaches 0 (full confidence up to half of it).
    cross_trim : float
        Those ranges run between the ``cross_trim`` and ``100 - cross_trim`` percentiles of
        the samples (%): a pose-noise peak on the other axis, which no median removes at 10
        and 15 fps, does not count as cross motion (0: max - min, the rule before).
    min_confidence : float
        Decisions below this are dropped.
    refractory : float
        Time after a decision during which no other one is made (s).
    quiet : float
        The oscillation is over ``quiet`` s after its last reversal ...
    rest_speed, settle : float
        ... or when both angles stayed within ``rest_speed * settle`` deg for ``settle`` s.
    rest_frames : int
        ... judged over at least this many frames: at 15 and 10 fps ``settle`` holds fewer,
        and the rest was never seen (0: the rule before).
    hysteresis : float
        Retreat (deg) that confirms a turning point; above the pose jitter.
    smoothing : float
        Time constant (s) of the low-pass after a 3-sample median (removes one-frame
        landmark glitches and some jitter).
    median_span : float
        The median is taken only when its three samples span at most this (s): at 30 fps,
        not at 15 or 10, where it flattens a fast nod's extremes (``math.inf``: always,
        the rule before) ...
    glitch_size : float
        ... and there a frame that jumps this far (deg) from both neighbours, against the
        motion before it, is a landmark glitch, taken out once the next frame shows it
        (``head_glitch``; 0: kept, the rule before) ...
    sparse_smoothing : float
        ... and without it the low-pass' time constant is at least this (s), in its place
        against pose jitter (0: ``smoothing`` alone; ``head_filter.PoseFilter``).
    max_gap : float
        A gap in the samples longer than this (face lost) restarts the trackers; a shorter
        one (over ``head_swings.GAP``) is bridged: the swing across it is unseen motion, and
        the swings before and after it make one gesture (a face gone for 1 s mid-answer
        still answers).
    max_pause : float
        A hold longer than this (s) between two swings splits them into separate movements.
    hold_ends_follow : bool
        Such a hold ends motion followed after an answer or question also when it shows up
        inside a swing that grows (False: only between swings, the rule before).
    follow_growth : float
        ... and a followed swing more than this many times the largest one followed before
        is a new, bigger gesture, counted from the swing before it if that one grew too (0:
        never, the rule before).
    follow_regrowth : float
        ... and so is a followed swing of at least ``min_swing`` more than this many times
        the smallest one followed since the largest: swings that shrank and grow again with
        no hold between them, as when a shake starts while the last one fades (0: never, the
        rule before).
    follow_cross : float
        ... and so is, on the axis that only went along with the other's gesture at the
        question, a swing of at least ``min_swing`` more than this many times the other
        axis' range over it: a nod begun as a shake fades, counted from the swing before it
        if that one moved on its own too (0: never, the rule before).
    follow_slowdown : float
        ... and so is, followed from a question, a swing whose core takes this many times
        the one before: a pause inside it, as between two shakes (0: never, the rule before).
    min_reaction : float
        ... but none of these four rules splits off a swing whose core ended sooner than
        this (s) after the question: a person answers no sooner, so it is still the gesture
        going on when asked, and splitting it would hear that gesture twice (0: no such
        limit, the rule before).
    edge_amplitude : bool
        The size score counts a run's first and last swings (half swings, from or into rest)
        twice, at most as the largest (False: as they are, the rule before).
    context, min_contrast : float
        The largest swing must be ``min_contrast`` times the spread of the angle in the
        ``context`` seconds before the oscillation for full confidence (1x gives 0): a nod
        stands out from a still head, while the same swing inside ongoing motion (talking)
        is likely part of that motion.
    contrast_per_reversal : float
        Each reversal beyond ``min_reversals`` multiplies the contrast above 1x needed for
        full confidence by this (1: all alike). Speech beats are single down-ups, so a small
        nod of more swings right after talking is not lost in that talk.
    edge_start : bool
        A decision's ``start``: its first swing (from rest) takes no longer than the full one
        after it, so noise before it does not date it (False: the core start, the rule before).
    lead_pause : float
        A run's first swing is left out when the pause after it exceeds this many times the
        next swing's core and the rest is still a gesture: pose noise held apart from the
        answer, not part of it (0: kept, the rule before).
    nod_down_first : bool
        Halve the confidence of a pitch oscillation whose first swing goes up: an answering
        nod starts downward, while speech-related head motion often rises first.

    Examples
    --------
    >>> import numpy as np
    >>> det = HeadGestureDetector()
    >>> t = np.arange(0, 3, 1 / 30)
    >>> pitch = np.where((t > 0.5) & (t < 1.5), 8 * np.sin(2 * np.pi * 2 * (t - 0.5)), 0.0)
    >>> [d.kind for d in det.run(t, np.zeros_like(t), pitch)]
    ['nod']

    """

    def __init__(self, min_swing: float = 5.0, min_speed: float = 12.0,
                 max_swing_duration: float = 0.7, min_reversals: int = 2,
                 min_duration: float = 0.25, max_duration: float = 3.5,
                 max_cross_ratio: float = 0.9, min_confidence: float = 0.5,
                 refractory: float = 1.0, quiet: float = 0.25, rest_speed: float = 20.0,
                 settle: float = 0.1, hysteresis: float = 1.5, smoothing: float = 0.03,
                 max_gap: float = 1.2, max_pause: float = 0.35,
                 context: float = 4.0, min_contrast: float = 4.0,
                 nod_down_first: bool = True, detrend_yaw: float = 1.0,
                 detrend_pitch: float = 2.0, contrast_per_reversal: float = 0.6,
                 hold_ends_follow: bool = True, follow_growth: float = 2.0,
                 follow_regrowth: float = 2.0, median_span: float = 0.1,
                 sparse_smoothing: float = 0.06, edge_start: bool = True,
                 lead_pause: float = 1.5, follow_slowdown: float = 1.6,
                 edge_amplitude: bool = True, min_reaction: float = 0.4,
                 cross_trim: float = 10.0, glitch_size: float = 5.0,
                 follow_cross: float = 1.0, rest_frames: int = 3):
        if min_reversals < 1 or not 0 < max_cross_ratio or not 0 < contrast_per_reversal <= 1 \
                or not 0 <= cross_trim < 50:
            raise ValueError('need min_reversals >= 1, max_cross_ratio > 0, '
                             'contrast_per_reversal in (0, 1] and cross_trim in [0, 50)')
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
        self.context = float(context)
        self.min_contrast = float(min_contrast)
        self.nod_down_first = bool(nod_down_first)
        self.detrend_yaw = float(detrend_yaw)
        self.detrend_pitch = float(detrend_pitch)
        self.contrast_per_reversal = float(contrast_per_reversal)
        self.hold_ends_follow = bool(hold_ends_follow)
        self.follow_growth = float(follow_growth)
        self.follow_regrowth = float(follow_regrowth)
        self.median_span = float(median_span)
        self.sparse_smoothing = float(sparse_smoothing)
        self.edge_start = bool(edge_start)
        self.lead_pause = float(lead_pause)
        self.follow_slowdown = float(follow_slowdown)
        self.edge_amplitude = bool(edge_amplitude)
        self.min_reaction = float(min_reaction)
        self.cross_trim = float(cross_trim)
        self.glitch_size = float(glitch_size)
        self.follow_cross = float(follow_cross)
        self.rest_frames = int(rest_frames)
        self._forget_frames()
        keep = self.max_duration + 1.0
        self._axes = {'yaw': AxisTracker(self.hysteresis, keep),
                      'pitch': AxisTracker(self.hysteresis, keep)}
        self._ts: List[float] = []  # filtered history, trimmed to max_duration + 1 s
        self._vals: List[Tuple[float, float]] = []
        self._cores: dict = {}
        self._filter = PoseFilter(self.smoothing, self.median_span, self.sparse_smoothing)
        self._last_t: Optional[float] = None
        self._blocked_until = -math.inf
        self._floor = dict.fromkeys(self._axes, -math.inf)
        self._chains: dict = dict.fromkeys(self._axes)
        self._spans: deque = deque(maxlen=4)  # [start, end] of recent answers
        self._gaps: deque = deque(maxlen=4)  # (last sample, next sample) around a lost face

    # -- state -------------------------------------------------------------------------
    def reset(self) -> None:
        """Forget all motion, floors and any refractory block: a new person."""
        self._restart()
        self._blocked_until = -math.inf
        self._floor = dict.fromkeys(self._axes, -math.inf)
        self._spans.clear()

    def question(self, at: Optional[float] = None) -> None:
        """
        Mark a new question asked at ``at`` (s; default: the latest sample's time).

        Motion that began before it never answers it: each axis' floor moves to ``at`` and
        the motion going on then is followed until it ends. The refractory block is lifted
        (the window must not start deaf because of the last answer), which the floor makes
        safe. With no ``at``, a question is placed after the last frame seen, which needs
        no common clock between the camera's stamps and the caller.
        """
        if at is None:
            at = self._last_t if self._last_t is not None else -math.inf
        self._blocked_until = -math.inf
        self._saved.clear()  # a frame retaken later must not undo the question
        self._cut(float(at), float(at) + self.max_duration)

    def _restart(self) -> None:
        """Forget the motion history (a gap in the samples); a running block stays."""
        for axis in self._axes.values():
            axis.reset()
        self._ts.clear()
        self._vals.clear()
        self._cores.clear()
        self._filter.reset()
        self._last_t = None
        self._chains = dict.fromkeys(self._axes)
        self._gaps.clear()
        self._forget_frames()

    def block(self, until: float) -> None:
        """Make no decision before ``until`` (s)."""
        self._blocked_until = max(self._blocked_until, until)
        self._saved.clear()

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
        if self._last_t is not None and t <= self._last_t:
            return None
        if self._last_t is not None and t - self._last_t > GAP:
            self._forget_frames()
        yaw, pitch = float(yaw), float(pitch)
        early, sparse = self._unglitch(t, yaw, pitch)
        if sparse:
            self._saved.append(self._snapshot())
        else:
            self._saved.clear()
        decision = self._take(t, yaw, pitch)
        if decision is not None:
            self._saved.clear()  # a decision made stays made
        self._raw.append((t, yaw, pitch))
        return early if early is not None else decision

    def _take(self, t: float, yaw: float, pitch: float) -> Optional[GestureDecision]:
        """Take one finite sample later than the last one (``update``)."""
        if self._last_t is not None and (t <= self._last_t or t - self._last_t > self.max_gap):
            if t <= self._last_t:
                return None
            self._restart()
        elif self._last_t is not None and t - self._last_t > GAP:
            self._gaps.append((self._last_t, t))
        self._last_t = t
        filt = self._filter(t, float(yaw), float(pitch))
        self._ts.append(t)
        self._vals.append(filt)
        keep = self.max_duration + 1.0 + self.context
        if self._ts[0] < t - 2.0 * keep:
            cut = bisect.bisect_left(self._ts, t - keep)
            del self._ts[:cut]
            del self._vals[:cut]
            if len(self._cores) > 256:
                self._cores.clear()
        self._axes['yaw'].update(t, filt[0])
        self._axes['pitch'].update(t, filt[1])
        self._follow(t)
        if t < self._blocked_until:
            return None
        return self._decide(t)

    def lost(self, t: float) -> None:
        """Note that no face was seen at time ``t``; a long gap restarts the trackers."""
        self._forget_frames()
        if self._last_t is not None and t - self._last_t > self.max_gap:
            self._restart()

    def run(self, t: Sequence[float], yaw: Sequence[float],
            pitch: Sequence[float]) -> List[GestureDecision]:
        """Feed a whole series; return every decision made."""
        decisions = [self.update(ti, yi, pi) for ti, yi, pi in zip(t, yaw, pitch)]
        return [d for d in decisions if d is not None]

    # -- decision ----------------------------------------------------------------------
    def _score(self, run: List[Swing], own: int) -> Tuple[float, int, float]:
        """Return (confidence, reversals, median swing) of one axis' run (``score_run``)."""
        seen = [s for s in run if not self._gap_in(s)]
        return score_run(run, seen, own, self, self._ts, self._vals, self._spans)

    def _decide(self, now: float) -> Optional[GestureDecision]:
        runs = {}
        ready = False
        # Still (``rest_speed``) over the last ``settle`` s.
        resting = held_still(self._ts, self._vals, now, self.settle, self.rest_speed * self.settle,
                             self.rest_frames)
        for name in self._axes:
            run, last_turn = self._run(name, now)
            runs[name] = run
            if len(run) - 1 < self.min_reversals:
                continue
            # At 10 fps a frame lands exactly ``settle`` after the turn: no rounding decides.
            if now - last_turn >= self.quiet \
                    or resting and now - last_turn >= self.settle - SLACK:
                ready = True
        if not ready:
            return None
        yaw_conf, yaw_rev, yaw_amp = self._score(runs['yaw'], 0)
        pitch_conf, pitch_rev, pitch_amp = self._score(runs['pitch'], 1)
        if max(yaw_conf, pitch_conf) < self.min_confidence:
            return None
        nod = pitch_conf >= yaw_conf
        run = runs['pitch'] if nod else runs['yaw']
        decision = GestureDecision(
            answer=nod, kind='nod' if nod else 'shake',
            confidence=pitch_conf if nod else yaw_conf,
            nod_confidence=pitch_conf, shake_confidence=yaw_conf, stamp=now,
            start=self._start(run), end=run[-1].tb,
            reversals=pitch_rev if nod else yaw_rev,
            amplitude=pitch_amp if nod else yaw_amp)
        # The rest of this gesture must not answer again: raise the floors, follow it, wait.
        span = [decision.start, now]
        self._spans.append(span)
        self._cut(now, decision.start + self.max_duration + self.quiet, span)
        self._blocked_until = now + self.refractory
        return decision
