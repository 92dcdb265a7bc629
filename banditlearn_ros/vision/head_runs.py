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
Which swings make one oscillation: the latest run of counted swings on one axis.

The nod/shake detector (:mod:`banditlearn_ros.vision.head_gesture`) takes these rules from
:class:`Runs`: a swing counts when it is large enough, fast enough and not too slow (half the
size for a run's first and last swing, which start or end at rest); a run is the latest
stretch of counted swings with no hold longer than ``max_pause`` between them, above the
axis' floor (:mod:`banditlearn_ros.vision.head_follow`), bridged across a face lost for a
moment. How sure a run is a nod or a shake is :mod:`banditlearn_ros.vision.head_score`'s.
"""

import math
from typing import List, Tuple

from banditlearn_ros.vision.head_swings import Swing, time_swing


class Runs:
    """
    The run rules of :class:`~banditlearn_ros.vision.head_gesture.HeadGestureDetector`.

    A mixin: it uses the detector's trackers (``_axes``), filtered history, floors, lost-face
    gaps and parameters.
    """

    def _qualifies(self, swing: Swing, edge: bool = False, timed: bool = False) -> bool:
        """
        Return whether a swing counts: big, fast, and not too slow.

        The first and last swing of an oscillation start or end at rest, half-way through a
        cycle, so as ``edge`` swings they need only half ``min_swing``. ``timed`` (the first
        swing of an answer) times a swing of at least twice ``min_swing`` by its faster half
        (``edge_duration``): a nod that starts out of a slow drift is not too slow. Motion
        followed after a cut keeps the whole core's time, so the tail of a gesture does not
        run into the next one.
        """
        big = swing.amplitude >= 2.0 * self.min_swing  # jitter's half swings stay timed whole
        duration = swing.edge_duration if edge and timed and big else swing.duration
        least = 0.5 * self.min_swing if edge else self.min_swing
        return (swing.amplitude >= least and 0 < duration <= self.max_swing_duration
                and swing.amplitude / duration >= self.min_speed)

    def _core(self, name: str, swing: Swing) -> Swing:
        """Fill in a swing's core times from the filtered history (cached once confirmed)."""
        key = (name, swing.turn, swing.t1)
        cached = self._cores.get(key)
        if cached is not None:
            swing.turn, swing.v0, swing.t0, swing.tb, swing.tm = cached
            return swing
        time_swing(self._ts, self._vals, 0 if name == 'yaw' else 1, swing,
                   self.max_swing_duration)
        self._cores[key] = (swing.turn, swing.v0, swing.t0, swing.tb, swing.tm)
        return swing

    def _run(self, name: str, now: float) -> Tuple[List[Swing], float]:
        """
        Return the latest run of consecutive qualifying swings on one axis and its last turn.

        Tiny trailing swings (jitter after the gesture) are skipped; any other swing that does
        not count, or a hold longer than ``max_pause``, ends the run.
        """
        tracker = self._axes[name]
        swings = tracker.swings()
        run: List[Swing] = []
        credit = bridged = False  # a gap was passed, the swing before it not yet taken
        oldest = now - self.max_duration - 1.0
        for swing in reversed(swings):
            if swing.t1 < oldest:
                break
            if self._gap_in(swing):  # the face was lost: unseen motion, the swings around it
                if bridged:  # go on; it turned at both ends (a reversal more, seen after it)
                    break
                credit = bridged = True
                if run:
                    run.append(swing)
                continue
            if swing.amplitude < 0.5 * self.min_swing:
                if run:
                    break
                continue  # tiny trailing swings (jitter after the gesture)
            cut_short = any(b == swing.turn for _, b in self._gaps)  # begun after a gap
            self._core(name, swing)
            if swing.t0 < oldest or swing.t0 < self._floor[name]:
                break  # too old, or motion from before the last answer or question
            if run and not credit and run[-1].t0 - swing.tb > self.max_pause:
                break  # a hold between two swings (none is known across a gap)
            if credit and run or cut_short:  # the swing before or after a gap: cut short
                credit = credit and not run
                if self._qualifies(swing, edge=True):
                    run.append(swing)
                    continue
                break
            if not run:
                if self._qualifies(swing, edge=True):
                    run.append(swing)
                    continue
                break
            if self._qualifies(swing):
                run.append(swing)
            elif self._qualifies(swing, edge=True, timed=True):
                run.append(swing)  # the first swing, perhaps out of a slow drift
                break
            else:
                break
        while run and self._gap_in(run[-1]):
            run.pop()
        run.reverse()
        if self._lead_held(run):
            del run[0]  # a swing of pose noise before the gesture, a hold after it
        for i in range(1, len(run) - 1):  # the unseen swing counts between two full ones
            if self._gap_in(run[i]) and min(run[i - 1].amplitude,
                                            run[i + 1].amplitude) < self.min_swing:
                del run[i]
                break
        if not run or any(run[-1].tb + self.quiet <= a for a, _ in self._gaps):
            return [], -math.inf  # none, or one over before the face was lost
        return run, run[-1].turn  # the last reversal: the start of the final swing

    def _lead_held(self, run: List[Swing]) -> bool:
        """Return whether a run's first swing is held apart from the rest, see ``lead_pause``."""
        if self.lead_pause <= 0 or len(run) <= self.min_reversals + 1 \
                or any(map(self._gap_in, run[:2])):
            return False
        return run[1].t0 - run[0].tb > self.lead_pause * (run[1].tb - run[1].t0)

    def _start(self, run: List[Swing]) -> float:
        """Return when an oscillation began: its first swing's core start, see ``edge_start``."""
        first = run[0]
        if not self.edge_start or len(run) < 2 or self._gap_in(run[1]):
            return first.t0
        return max(first.t0, first.tb - (run[1].tb - run[1].t0))

    def _gap_in(self, swing: Swing) -> float:
        """Return how long the face was lost inside a swing (0: seen throughout)."""
        return next((b - a for a, b in self._gaps if swing.turn <= a and b <= swing.t1), 0.0)
