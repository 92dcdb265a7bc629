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
A simulated person who answers yes/no with the head, and the tally of how it was heard.

``HeadActor`` turns each yes/no into a nod or shake (seeded speed, size and cycles, a
reaction time, never overlapping the gesture before; the tapered sine bursts of
``head_motion_synth``) and gives the head pose at any time;
``heard`` matches the answers the feedback node published to the gestures in order, so a
session can report how many head answers were heard right. ``FrameClock`` is the face's
time, advanced frame by frame.
"""

from dataclasses import dataclass
import math
from typing import Dict, List, Optional, Tuple

import numpy as np


@dataclass
class _Gesture:
    answer: bool
    start: float
    frequency: float
    cycles: float
    amplitude: float
    sign: float
    heard: Optional[bool] = None

    @property
    def end(self) -> float:
        return self.start + self.cycles / self.frequency

    def angle(self, now: float) -> float:
        """Return the head's turn in degrees at ``now``: a sine burst, ramped at both ends."""
        tau, length = now - self.start, self.end - self.start
        ramp = 0.2 * length
        edge = min(tau, length - tau)
        weight = 1.0 if edge >= ramp else 0.5 - 0.5 * math.cos(math.pi * max(edge, 0.0) / ramp)
        return self.sign * self.amplitude * weight * math.sin(2.0 * math.pi * self.frequency * tau)


class HeadActor:
    """
    Nods for "yes", shakes for "no", one after the other; the pose at any time.

    Parameters
    ----------
    seed : int
        Seed of the gestures' speed, size, cycles and reaction times.
    reaction : tuple of float
        Range (s) of the time from an answer to its gesture's start.
    gap : float
        Least rest (s) between the end of one gesture and the start of the next.
    late : float
        Longest time (s) after a gesture's end at which an answer heard still counts as
        its answer.

    Examples
    --------
    >>> actor = HeadActor(seed=1)
    >>> actor.answer(True, now=0.0)
    >>> max(abs(actor.pose(t)[1]) for t in np.arange(0.0, 3.0, 0.02)) > 5.0
    True

    """

    def __init__(self, seed: int = 0, reaction: Tuple[float, float] = (0.3, 0.8),
                 gap: float = 0.4, late: float = 1.5):
        self._rng = np.random.default_rng(seed)
        self.reaction = reaction
        self.gap = float(gap)
        self.late = float(late)
        self.gestures: List[_Gesture] = []
        self.false_answers = 0
        self.dropped = 0
        self.false_detail: List[Dict[str, object]] = []  # the first few, to see why

    def answer(self, right: bool, now: float) -> None:
        """
        Plan the gesture of one yes (nod) or no (shake) decided at ``now`` (s).

        A gesture planned for an earlier question that has not begun yet is dropped: a
        person asked something new answers that, and a backlog would answer every later
        question with the gesture meant for the one before.
        """
        rng = self._rng
        self.dropped += sum(g.start > now for g in self.gestures)
        self.gestures = [g for g in self.gestures if g.start <= now]
        start = now + float(rng.uniform(*self.reaction))
        if self.gestures:
            start = max(start, self.gestures[-1].end + self.gap)
        if right:
            amplitude, sign = float(rng.uniform(8.0, 14.0)), 1.0
        else:
            amplitude, sign = float(rng.uniform(12.0, 20.0)), float(rng.choice([-1.0, 1.0]))
        self.gestures.append(_Gesture(bool(right), start, float(rng.uniform(1.5, 2.5)),
                                      float(rng.choice([1.5, 2.0, 2.5])), amplitude, sign))
        del self.gestures[:-1000]

    def resting(self, now: float) -> bool:
        """
        Return whether nothing is going on at ``now`` (s).

        No gesture is going on or planned, and the last one ended more than ``late`` ago
        (an answer to it may still come).
        """
        return not self.gestures or self.gestures[-1].end + self.late < now

    def pose(self, now: float) -> Tuple[float, float]:
        """Return (yaw, pitch) in degrees at ``now``: the gesture going on, else rest."""
        yaw = pitch = 0.0
        for g in reversed(self.gestures):  # in order, never overlapping
            if g.end < now:
                break
            if g.start <= now:
                if g.answer:
                    pitch = g.angle(now)
                else:
                    yaw = g.angle(now)
        return yaw, pitch

    def heard(self, right: bool, now: float) -> None:
        """
        Note an answer the listener published at ``now``.

        It belongs to the latest gesture begun before ``now``, if that one has no answer
        yet and ended at most ``late`` seconds ago; otherwise it is a false answer.
        """
        latest = None
        for g in reversed(self.gestures):
            if g.start <= now:
                if g.heard is None and now <= g.end + self.late:
                    g.heard = bool(right)
                    return
                latest = g
                break
        self.false_answers += 1
        if len(self.false_detail) < 5:
            self.false_detail.append({'at': round(now, 3), 'heard_yes': bool(right), 'latest': (
                None if latest is None else
                {'start': round(latest.start, 3), 'end': round(latest.end, 3),
                 'yes': latest.answer, 'heard_yes': latest.heard})})

    def stats(self, now: float = math.inf) -> Dict[str, int]:
        """
        Return the gestures made (begun by ``now``), heard, heard right, false answers.

        ``dropped``: gestures planned for a question that a newer question replaced before
        they began.
        """
        made = [g for g in self.gestures if g.start <= now]
        heard = [g for g in made if g.heard is not None]
        return {'gestures': len(made), 'heard': len(heard),
                'heard_right': sum(g.heard == g.answer for g in heard),
                'false_answers': self.false_answers, 'dropped': self.dropped}


class FrameClock:
    """
    The face's own time: one frame period per frame shown, caught up with the wall only at rest.

    A face timed by the wall clock on a busy machine shows a gesture in the few frames that
    get out, too few for a detector to see it swing; timed by its frames, every gesture is
    shown whole (slower in wall time), whatever the load. While the head is at rest the
    clock jumps to the wall time, so the frames' stamps stay near it.

    Parameters
    ----------
    rate : float
        Frames per second.

    Examples
    --------
    >>> clock = FrameClock(rate=20.0)
    >>> [round(clock.tick(wall, resting=False), 3) for wall in (10.0, 10.5, 11.0)]
    [10.0, 10.05, 10.1]
    >>> clock.tick(11.5, resting=True)
    11.5

    """

    def __init__(self, rate: float):
        if not rate > 0:
            raise ValueError('rate must be positive')
        self.period = 1.0 / float(rate)
        self.now: Optional[float] = None
        self._base, self._frames = 0.0, 0  # now = base + frames * period: no summed rounding

    def tick(self, wall: float, resting: bool) -> float:
        """Advance by one frame (to ``wall`` when at rest and behind); return the frame's time."""
        if self.now is None or (resting and wall > self.now + self.period):
            self._base, self._frames = float(wall), 0
        else:
            self._frames += 1
        self.now = self._base + self._frames * self.period
        return self.now

    def time(self, wall: float) -> float:
        """Return the face's time now: the last frame's, or ``wall`` before the first frame."""
        return wall if self.now is None else self.now
