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
What came before an answer or a question: per-axis floors and the motion followed past them.

An answer belongs to its question, and one gesture answers once. The nod/shake detector
(:mod:`banditlearn_ros.vision.head_gesture`) takes these rules from :class:`Floors`: after a
decision, and when a new question is asked, each axis gets a *floor*, a time before which no
swing counts, and the motion going on then is followed swing by swing, raising the floor, until
it holds still, grows into a bigger gesture, shrinks and grows again (a new gesture started as
the last one fades), moves on its own where it went along with the other axis' gesture (a
nod begun as a shake fades), slows into a pause (a new gesture started just after the last
one ended) or ``max_duration`` has passed. None of the last four splits a swing over sooner
than a person can react to the question (``min_reaction``): that is still the gesture going
on.
"""

import bisect
import math
from typing import Optional

from banditlearn_ros.vision.head_context import extent
from banditlearn_ros.vision.head_swings import Chain, Swing

HOLD = 1.0
"""A hold after a fading swing longer than this many times its core ends the last gesture."""


class Floors:
    """
    The floor rules of :class:`~banditlearn_ros.vision.head_gesture.HeadGestureDetector`.

    A mixin: it uses the detector's trackers (``_axes``), floors, chains, swing timing
    (``_core``, ``_qualifies`` of :class:`~banditlearn_ros.vision.head_runs.Runs`) and
    parameters.
    """

    @property
    def following(self) -> bool:
        """Return whether motion going on at an answer or question is being followed."""
        return any(chain is not None for chain in self._chains.values())

    def _cut(self, at: float, until: float, span: Optional[list] = None) -> None:
        """
        Raise every axis' floor to ``at`` and follow the motion going on then until ``until``.

        The motion going on is the last swing whose core began before ``at``, that ended no
        more than ``max_pause`` before it, and that continues an oscillation: it and the
        swing before it could both be part of a nod or shake (an edge swing's size, speed
        and duration, no hold between them). A look-around is no answer, and following it
        would swallow an answer that starts as it ends.
        """
        for name, axis in self._axes.items():
            self._floor[name] = max(self._floor[name], at)
            old = self._chains[name]
            self._chains[name] = None
            # An answer's tail followed into a question stays out of the context.
            keep = span if span is not None else (old.span if old is not None else None)
            swings = axis.swings()
            for j in range(len(swings) - 1, 0, -1):
                swing = swings[j]
                if swing.t1 < at - self.max_pause:
                    break
                turn = swing.turn
                if self._gap_in(swing):  # the face was lost in it: follow on from there
                    self._chains[name] = Chain(turn, swing.t1, swing.t1, until, keep, swing.t1,
                                               self._floor[name], swing.amplitude,
                                               swing.amplitude, grows=span is None, cut=at)
                    self._floor[name] = max(self._floor[name], swing.t1)
                    break
                if swing.amplitude < 0.5 * self.min_swing:
                    continue
                self._core(name, swing)
                if swing.t0 >= at:
                    continue
                before = swings[j - 1]
                if (self._qualifies(swing, edge=True)
                        and at - swing.tb <= self.max_pause + self.quiet
                        and (self._gap_in(before)  # motion the face was lost in
                             or before.amplitude >= 0.5 * self.min_swing
                             and self._qualifies(self._core(name, before), edge=True)
                             and swing.t0 - before.tb <= self.max_pause)):
                    self._chains[name] = Chain(turn, swing.t1, swing.tb, until, keep, before.tb,
                                               self._floor[name], before.amplitude,
                                               swing.amplitude, grows=span is None, cut=at,
                                               core0=swing.t0, pace=before.tb - before.t0,
                                               alongside=not self._alone(
                                                   name, before.turn, before.t1,
                                                   before.amplitude))
                    self._floor[name] = max(self._floor[name], swing.t1)
                break
        if span is not None:
            span[1] = max([span[1]] + [self._floor[name] for name in self._axes])

    def _follow(self, now: float) -> None:
        """
        Raise the floors while the motion followed since the last cut goes on.

        It has stopped when no swing got past its core for ``max_pause + quiet`` (an
        extreme that only creeps with the pose jitter is no motion).
        """
        for name, axis in self._axes.items():
            chain = self._chains[name]
            if chain is None:
                continue
            unseen = sum(b - a for a, b in self._gaps if a >= chain.tb)  # the face was lost
            if now > chain.until or now - chain.tb - unseen > self.max_pause + self.quiet:
                self._chains[name] = None  # the longest gesture, or the motion stopped
                continue
            for swing in axis.swings():
                turn = swing.turn
                if turn < chain.turn:
                    continue
                if turn in (chain.turn, chain.end) and self._gap_in(swing):
                    # The face was lost: unseen motion goes on as it went.
                    chain.turn, chain.end, chain.tb = turn, swing.t1, swing.t1
                elif turn == chain.turn:  # the swing taken last, grown since
                    if swing.t1 > chain.end:
                        moved = self._qualifies(self._core(name, swing), edge=True)
                        held = self.hold_ends_follow and swing.t0 - chain.before > self.max_pause
                        new = self._may_answer(chain, swing)
                        held = held or new and self._slowed(chain, swing)
                        if held or new and self._grew(chain, swing):
                            # A hold in it, or a bigger gesture (from the swing before if
                            # that one began to grow): what moves is new.
                            self._floor[name] = chain.floor if held else min(chain.floor,
                                                                             chain.back)
                            moved = False
                        elif new and self._regrew(chain, swing):
                            self._floor[name] = chain.prior  # new from the swing before it
                            moved = False
                        elif new and self._crossed(name, chain, swing):
                            # New from the swing before it if that one moved on its own too.
                            prev = next((s for s in axis.swings() if s.t1 == chain.turn), None)
                            alone = prev is not None and self._alone(
                                name, prev.turn, prev.t1, prev.amplitude)
                            self._floor[name] = chain.prior if alone else chain.floor
                            moved = False
                        if not moved:
                            self._chains[name] = None  # grown into other motion: it is new
                            break
                        chain.end, chain.tb, chain.size = swing.t1, swing.tb, swing.amplitude
                        chain.core0 = swing.t0
                elif turn == chain.end and swing.amplitude >= 0.5 * self.min_swing:
                    self._core(name, swing)
                    chain.back = chain.floor if chain.size > chain.largest else math.inf
                    if chain.size > chain.largest:
                        chain.largest, chain.least = chain.size, math.inf
                    elif chain.turn >= chain.cut:  # sampled whole (idle frames skipped before)
                        chain.least = min(chain.least, chain.size)
                    new = self._may_answer(chain, swing)
                    if new and self._regrew(chain, swing):
                        # New from the swing before it, unless the head held still longer
                        # between them than that swing took: then that one ended the last.
                        held = swing.t0 - chain.tb > HOLD * (chain.tb - chain.core0)
                        self._floor[name] = chain.end if held else chain.floor
                        self._chains[name] = None
                        break
                    if new and self._crossed(name, chain, swing):
                        if self._alone(name, chain.turn, chain.end, chain.size):
                            self._floor[name] = chain.floor  # new from the swing before it
                        self._chains[name] = None
                        break
                    if swing.t0 - chain.tb > self.max_pause or new and self._grew(chain, swing) \
                            or not self._qualifies(swing, edge=True):
                        self._chains[name] = None  # a hold, or other motion: what comes is new
                        break
                    if new and self._slowed(chain, swing, chain.tb - chain.core0):
                        self._chains[name] = None  # a pause inside it: what comes is new
                        break
                    chain.pace, chain.core0 = chain.tb - chain.core0, swing.t0
                    chain.turn, chain.end, chain.before = turn, swing.t1, chain.tb
                    chain.prior, chain.tb, chain.floor = chain.floor, swing.tb, self._floor[name]
                    chain.size = swing.amplitude
                else:
                    break
                self._floor[name] = max(self._floor[name], chain.end)
                if chain.span is not None:
                    chain.span[1] = max(chain.span[1], chain.end)

    def _may_answer(self, chain: Chain, swing: Swing) -> bool:
        """
        Return whether a changed swing can belong to an answer to the question followed from.

        A person answers ``min_reaction`` s after a question at the earliest, so a swing whose
        core was over sooner is still the gesture going on when it was asked, however it
        changed (timed a frame longer, grown out of a small start): splitting there would
        hear that gesture twice (0: no such limit, the rule before).
        """
        return (not chain.grows or self.min_reaction <= 0
                or swing.tb >= chain.cut + self.min_reaction)

    def _slowed(self, chain: Chain, swing: Swing, pace: Optional[float] = None) -> bool:
        """Return whether a followed swing took much longer than the one before: a pause."""
        pace = chain.pace if pace is None else pace
        if not (chain.grows and self.follow_slowdown > 0 and math.isfinite(pace) and pace > 0):
            return False
        # The swing is timed off frames: it may read one frame interval longer than it was.
        start = bisect.bisect_left(self._ts, chain.core0 - pace)
        steps = [b - a for a, b in zip(self._ts[start:], self._ts[start + 1:]) if b <= swing.tb]
        return swing.tb - swing.t0 > self.follow_slowdown * pace + max(steps, default=0.0)

    def _grew(self, chain: Chain, swing: Swing) -> bool:
        """
        Return whether a followed swing outgrew the motion followed: a new gesture.

        Only in motion followed from a question: a gesture answered early, in its first small
        swings, grows on after the answer into its full size.
        """
        return chain.grows and 0 < self.follow_growth * chain.largest < swing.amplitude

    def _regrew(self, chain: Chain, swing: Swing) -> bool:
        """
        Return whether a followed swing grew back out of a dip: a new gesture.

        A shake asked again while the last one still goes fades as the new one starts, so
        the swings shrink and grow again with no hold between them; one gesture's own swings
        only shrink once it has peaked. The new gesture is counted from the swing before the
        one that grew (the last of a fading shake is often the smallest). Only in motion
        followed from a question, as :meth:`_grew`; the swing going on at the question is no
        dip (before a question, the node skips idle frames and misses extremes).
        """
        return (chain.grows and self.follow_regrowth > 0 and swing.amplitude >= self.min_swing
                and self.follow_regrowth * chain.least < swing.amplitude)

    def _alone(self, name: str, start: float, end: float, size: float) -> bool:
        """Return whether ``size`` deg over start..end beat ``follow_cross`` x the other axis'."""
        other = extent(self._ts, self._vals, start, end)[1 if name == 'yaw' else 0]
        return size > self.follow_cross * other

    def _crossed(self, name: str, chain: Chain, swing: Swing) -> bool:
        """
        Return whether a followed swing moves on its own: the gesture it went along with is over.

        A shake carries some pitch and a nod some yaw; this axis' motion followed at the
        question went along with the other's. A swing of at least ``min_swing`` more than
        ``follow_cross`` times the other axis' range over it is no longer that: a nod begun
        as a shake fades, often no bigger than the pitch the shake carried (0: never, the rule
        before). Only in motion followed from a question, as :meth:`_grew`.
        """
        return (chain.grows and chain.alongside and self.follow_cross > 0
                and swing.amplitude >= self.min_swing
                and self._alone(name, swing.turn, swing.t1, swing.amplitude))
