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
How many camera frames arrive, against how many their header stamps say were sent.

A best-effort image topic loses frames without a word (a frame larger than the writer's
shared-memory segment, a saturated network, a reader too busy to take them): the reader
sees only a lower rate.  The stamps of the frames that did arrive tell the sender's rate:
the shortest gaps between them are one frame period, longer ones whole multiples of it.
So the period is the longest one of which most gaps are whole multiples
(``frame_period``), and the frames lost are those the stamps' span should have held and did
not.  When so few frames arrive that no two in a row do, the period may be taken as a
multiple of the true one: the loss is then underestimated (a loss of exactly every other
frame looks like a slower camera).
"""

from collections import deque
from dataclasses import dataclass
import math
from typing import Deque, Optional, Tuple

CAUSE = ("likely the camera driver's shared-memory segment is smaller than a frame (start "
         'the driver with FASTDDS_DEFAULT_PROFILES_FILE=<this package>/config/'
         'fastdds_profile.xml, or set image_transport: compressed; docs/robot.md), or this '
         'process is too busy to take them (see its processing time and the load)')
"""The likely causes and their fix, said once with the warning."""


@dataclass(frozen=True)
class Rates:
    """Frame rates over the last window."""

    arrived: float
    """Frames per second that arrived."""
    sent: float
    """Frames per second the stamps say were sent (0 = not known yet)."""
    lost: float
    """Fraction of the frames sent in the window that did not arrive (0 when unknown)."""
    age_p50: float = math.nan
    """Median seconds from a frame's stamp to its arrival (nan: not known)."""
    age_p99: float = math.nan
    """99th percentile of the same."""


class FrameRates:
    """
    Arrival and sending rates of a frame stream, from arrival times and header stamps.

    Parameters
    ----------
    window : float
        Seconds of arrivals the rates are taken over.
    least_frames : int
        Frames in the window before the sent rate and the loss are told.
    least_span : float
        Seconds of stamps in the window before they are told.
    min_gap : float
        Stamp gaps shorter than this (seconds) are not a frame period (a repeated stamp).

    Examples
    --------
    >>> rates = FrameRates()
    >>> for i in range(90):  # 30 Hz sent for 3 s, every third frame lost
    ...     if i % 3 != 2:
    ...         rates.add(arrival=i / 30.0, stamp=i / 30.0)
    >>> r = rates.rates(now=3.0)
    >>> round(r.arrived, 1), round(r.sent, 1), round(r.lost, 2)
    (20.0, 30.0, 0.33)

    """

    def __init__(self, window: float = 5.0, least_frames: int = 10, least_span: float = 2.0,
                 min_gap: float = 1e-3):
        self.window, self.least_frames = float(window), int(least_frames)
        self.least_span, self.min_gap = float(least_span), float(min_gap)
        self._frames: Deque[Tuple[float, float, float]] = deque()
        self._since: Optional[float] = None

    def reset(self) -> None:
        """Forget the stream (a new one starts)."""
        self._frames.clear()
        self._since = None

    def add(self, arrival: float, stamp: float, age: float = math.nan) -> None:
        """
        Record a frame that arrived at ``arrival`` (monotonic s) stamped ``stamp`` (s).

        ``age``: seconds from its stamp to its arrival, when the two clocks agree.
        """
        if self._since is None:
            self._since = arrival
        if self._frames and stamp < self._frames[-1][1] - 1.0:
            # The stamps went back (a bag played again, a clock reset): a new stream.
            self.reset()
            self._since = arrival
        self._frames.append((arrival, stamp, age))
        self._prune(arrival)

    def _prune(self, now: float) -> None:
        while self._frames and self._frames[0][0] < now - self.window:
            self._frames.popleft()

    def rates(self, now: float) -> Rates:
        """Return the rates over the window ending at ``now`` (the arrivals' clock)."""
        self._prune(now)
        if self._since is None:
            return Rates(0.0, 0.0, 0.0)
        span = min(self.window, now - self._since)
        arrived = len(self._frames) / span if span > 0 else 0.0
        ages = sorted(age for _, _, age in self._frames if age == age)
        p50, p99 = (_quantile(ages, 0.5), _quantile(ages, 0.99)) if ages else (math.nan,) * 2
        stamps = sorted(stamp for _, stamp, _ in self._frames)
        if len(stamps) < self.least_frames or stamps[-1] - stamps[0] < self.least_span:
            return Rates(arrived, 0.0, 0.0, p50, p99)
        gaps = [b - a for a, b in zip(stamps, stamps[1:]) if b - a >= self.min_gap]
        period = frame_period(gaps)
        if period is None:
            return Rates(arrived, 0.0, 0.0, p50, p99)
        expected = (stamps[-1] - stamps[0]) / period + 1.0
        lost = max(0.0, 1.0 - len(stamps) / expected)
        return Rates(arrived, 1.0 / period, lost, p50, p99)


def frame_period(gaps, tolerance: float = 0.2, share: float = 0.75, median_share: float = 0.5,
                 most: int = 12) -> Optional[float]:
    """
    Return the sender's frame period from the gaps between the stamps that arrived, or None.

    Every gap is a whole number of periods when frames are lost, give or take the stamps'
    jitter.  The candidates are the median gap divided by 1, 2, ... ``most``; the first
    (the longest) of which at least ``share`` of the gaps are a whole multiple, within
    ``tolerance`` of a period, is refined to the mean period those gaps say.  A sender that
    stamps late now and then (a video read on a loaded machine) leaves a few gaps off the
    multiples, which ``share`` allows; a burst of frames stamped together is such a gap too.
    The median gap itself needs only ``median_share``: a jittery sender's gaps spread around
    one period, and a shorter candidate would fit them by chance (half the period was taken
    for a 15 fps video read at load 19); when frames are lost, the multiples of the median
    fit well under half of the gaps.
    """
    if not gaps:
        return None
    ordered = sorted(gaps)
    median = ordered[len(ordered) // 2]
    for k in range(1, most + 1):
        candidate = median / k
        multiples = [(g, round(g / candidate)) for g in gaps]
        fits = [(g, m) for g, m in multiples
                if m >= 1 and abs(g / candidate - m) <= tolerance]
        if len(fits) >= (median_share if k == 1 else share) * len(gaps):
            return sum(g for g, _ in fits) / sum(m for _, m in fits)
    return None


def _quantile(ordered, q: float) -> float:
    """Return the ``q`` quantile of sorted values (nearest rank)."""
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]
