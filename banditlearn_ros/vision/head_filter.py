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
The head-pose samples' filter before the nod/shake detector: glitches out, jitter down.

At 30 fps a 3-sample median removes one-frame landmark glitches and a short low-pass some
jitter. At 15 and 10 fps three samples span 0.13-0.2 s and a median would flatten a 3 Hz
nod's extremes; there the low-pass is a little longer instead (the median kept at 15 fps
lost 3 more of 60 second answers on the tuning seeds). (Holding a one-frame jump from a
still head for a frame, tried against glitches at 10 fps, lost 14 of 180 answers on the
tuning seeds: a fast nod's first frame jumps as far.)
"""

from collections import deque
import math
from typing import Optional, Tuple

import numpy as np


class PoseFilter:
    """
    Filter (t, yaw, pitch) samples in time order; see the module's docstring.

    Parameters
    ----------
    smoothing : float
        Time constant (s) of the low-pass after the median.
    median_span : float
        The median is taken only when its three samples span at most this (s).
    sparse_smoothing : float
        Without the median, the low-pass' time constant is at least this (s).

    """

    def __init__(self, smoothing: float, median_span: float, sparse_smoothing: float):
        self.smoothing = smoothing
        self.median_span = median_span
        self.sparse_smoothing = sparse_smoothing
        self._raw: deque = deque(maxlen=3)
        self._filtered: Optional[Tuple[float, float]] = None

    def reset(self) -> None:
        """Forget the samples (a gap, a new person)."""
        self._raw.clear()
        self._filtered = None

    def __call__(self, t: float, yaw: float, pitch: float) -> Tuple[float, float]:
        """Return the filtered (yaw, pitch) of a sample later than the last one."""
        prev_t = self._raw[-1][0] if self._raw else None
        self._raw.append((t, yaw, pitch))
        close = len(self._raw) == 3 and t - self._raw[0][0] <= self.median_span
        if close:
            med = tuple(float(v) for v in np.median(np.asarray(self._raw)[:, 1:], axis=0))
            tau = self.smoothing
        else:
            med = (yaw, pitch)
            tau = max(self.smoothing, self.sparse_smoothing)
        if self._filtered is None or prev_t is None:
            self._filtered = med
        else:
            k = 1.0 - math.exp(-(t - prev_t) / tau) if tau > 0 else 1.0
            self._filtered = tuple(f + k * (m - f) for f, m in zip(self._filtered, med))
        return self._filtered
