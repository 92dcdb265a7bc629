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
One-frame landmark glitches at 10 and 15 fps, taken out with two frames' hindsight.

At 30 fps the pose filter's median removes a one-frame glitch (``head_filter``). At 15 and
10 fps there is no median (it would flatten a fast nod's extremes) and a glitch became a
swing: before a gesture it dated the answer early, as if motion from before the question
answered it; inside one it broke the run. On its own frame a glitch cannot be told from a
fast nod's first frame; two frames later it can: the head came back to where it was and
stayed, and the jump goes against the motion before it. The detector then rewinds to before
that frame and takes it again with the angle between its neighbours, adding no delay to a
decision.
"""

from collections import deque
import copy
from typing import Optional, Tuple

BACK = 0.25
"""A glitch's next frame is back within this share of its jump, and the head stays there."""

APPROACH = 1.0 / 3.0
"""... and the head moved toward it before by at most this share: a real extreme's way."""


def glitch(before: float, last: float, peak: float, after: float, then: float,
           size: float) -> bool:
    """
    Return whether ``peak`` is a one-frame glitch between ``last`` and ``after``.

    It stands out by ``size`` (deg) from both neighbours the same way, they lie within
    ``BACK`` of that apart, the frame after them (``then``) goes on away from it by no more,
    the head moved toward it by at most ``APPROACH`` of it (``before`` to ``last``), and it
    stands out as much from the line through those two: a fast nod's extreme comes out of
    motion toward it, and the nod goes on past where it was before.
    """
    sign = 1.0 if peak >= last else -1.0
    jump = min(sign * (peak - last), sign * (peak - after))
    return (jump >= size and abs(after - last) <= BACK * jump
            and sign * (after - then) <= BACK * jump
            and sign * (last - before) <= APPROACH * jump
            and sign * (peak - (2.0 * last - before)) >= size)


class Glitches:
    """
    The glitch rule of :class:`~banditlearn_ros.vision.head_gesture.HeadGestureDetector`.

    A mixin: it keeps the last raw frames and copies of the detector's state from before the
    latest two, taken only for frames too far apart for the median (``median_span``).
    """

    def _forget_frames(self) -> None:
        """Drop the raw frames and the saved states: a gap, a question, a reset."""
        self._raw = deque(maxlen=4)
        self._saved = deque(maxlen=2)

    def _unglitch(self, t: float, yaw: float, pitch: float):
        """
        Retake the last two frames if this one shows a glitch in the first; return a decision.

        Call before the frame at ``t`` is taken. Returns (the retaken frames' first decision
        or None, whether the frames are far apart enough to save the state before this one).
        """
        raw = self._raw
        # As the filter: no median over this frame and the two before it.
        sparse = self.glitch_size > 0 and (len(raw) < 2 or t - raw[-2][0] > self.median_span)
        if not sparse or len(raw) < 4 or len(self._saved) < 2:
            return None, sparse
        (_, *a), (_, *b), (tc, *c), (te, *e) = raw
        new = (yaw, pitch)
        size = self.glitch_size
        fixed = tuple(0.5 * (b[k] + e[k]) if glitch(a[k], b[k], c[k], e[k], new[k], size)
                      else c[k] for k in (0, 1))
        if fixed == tuple(c) or not self._restore(self._saved[0]):
            return None, sparse
        raw[-2] = (tc, *fixed)
        self._saved.clear()
        first = self._take(tc, *fixed)
        self._saved.append(self._snapshot())
        then = self._take(te, *e)
        if first is not None or then is not None:
            self._saved.clear()
        return (first if first is not None else then), sparse

    def _snapshot(self) -> Tuple:
        """Return a copy of the state one frame changes (the history only by its length)."""
        filt, axes = copy.copy(self._filter), {}
        filt._raw = deque(filt._raw, maxlen=filt._raw.maxlen)
        for name, axis in self._axes.items():  # turning points are replaced, never changed
            axes[name] = copy.copy(axis)
            axes[name].points = deque(axis.points)
        deep = (filt, axes) + copy.deepcopy((self._chains, self._spans))
        return (deep, self._last_t, len(self._ts), self._ts[0] if self._ts else None,
                dict(self._cores), dict(self._floor), self._blocked_until, deque(self._gaps))

    def _restore(self, saved: Optional[Tuple]) -> bool:
        """Put back a state from :meth:`_snapshot`; False if the history was trimmed since."""
        deep, last_t, n, first, cores, floor, blocked, gaps = saved
        if (self._ts[0] if self._ts else None) != first or len(self._ts) < n:
            return False
        self._filter, self._axes, self._chains, self._spans = deep
        self._last_t, self._blocked_until = last_t, blocked
        del self._ts[n:]
        del self._vals[n:]
        self._cores, self._floor = cores, floor
        self._gaps = deque(gaps, maxlen=self._gaps.maxlen)
        return True
