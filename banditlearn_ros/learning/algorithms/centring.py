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
Centring: a per-feature mean taken out of every vector before a learner sees it.

Why.  Every learner here is linear without a bias term (UCWL scores label i by
``mu_i . x``: Ngo, Luciw, Vien and Schmidhuber, "Upper Confidence Weighted Learning for
Efficient Exploration in Multiclass Prediction with Binary Feedback", Algorithm 1, line 9).
Raw features (the papers' data sets in [0, 1], contour or landmark features of a camera)
share a large common offset, so every classifier must first learn to cancel it, and the
confidence bound ``k sqrt(x^T Sigma x)`` is dominated by the offset rather than by what
tells gestures apart.  Subtracting the features' mean removes both (docs/benchmarks.md,
"Centred features": digits 20.3 -> 14 % online mistakes with one question).

Modes (the learner node's ``centring`` parameter):

- ``running`` (default): the mean of every valid vector seen so far, the current one
  included, updated before the vector is centred, with each vector's step *bounded*: a
  vector whose distance from the mean is more than ``OUTLIER_LIMIT`` times the running mean
  distance (the spread) moves the mean and the spread only as far as one at that limit
  would, and is counted (``outliers``, the learner node's ``centring_outliers``).  One
  stray vector (a misdetection, a corrupted message: every value 1e6) then shifts the mean
  by at most ``OUTLIER_LIMIT x spread / n`` instead of ``1e6 / n`` for good, while a real
  change of the features (a new camera) still moves it, as the spread grows with each
  vector at the limit.  The bound holds once ``GATE_AFTER`` distances have been seen; on
  vectors that never reach it (every data set measured, benchmarks/bench_centring.py) the
  mean is the plain mean bit for bit.  It depends on the vectors alone, never on answers,
  so a replay of the same vectors centres them identically.  The first vector becomes all
  zeros (UCWL asks at random and learns nothing from it): measured against centring with
  the mean of the vectors *before* the current one, which shows the first vectors with
  their whole offset (docs/benchmarks.md).
- ``mean``: the plain running mean, every vector in full (``running`` before the bound).
- ``fixed``: as ``running`` for the first ``warmup`` vectors, then frozen, so the
  representation the classifiers learned on stops moving (a session that is long, or whose
  gestures come in runs, keeps the mean of its start).
- ``none``: the vector as given: the papers' algorithms exactly.

In a fleet (``protocol/fleet_evidence``), ``running`` and ``mean`` also stop after ``warmup``
vectors, counted over the fleet (``fixed_after``): the robots' rows must share one frame,
and a frame that moves under learned rows shifts every label's score by its own
``mu . (old mean - new mean)``, which a linear score without a bias cannot take back.

No decay and no per-feature clipping: the cumulative mean's steps shrink as 1/n, and the
measurements in docs/benchmarks.md found neither an exponential forgetting of the mean
nor a per-feature clipped update better on the papers' data or the rendered gestures (the
bound above is on the whole vector and far out: it changes nothing on those data).  No
scaling: dividing by each feature's standard deviation makes ``||x||^2`` about d and widens
the bound at d = 80-124 (real-photo figures); a common factor such as 1/sqrt(d) was
measured too (docs/benchmarks.md).

The learner carries its ``Centring`` (``OnlineClassifier.centring``) so that it is saved in
the model file, cleared by a reset (a fresh learner) and kept when labels are appended (it
is per feature, not per label); ``Interaction`` applies it to each vector before
``select``, so the learner node, the bring-up and replay share one code path.
"""

import math
from typing import Any, Dict, Optional

import numpy as np

CENTRING_MODES = ('running', 'mean', 'fixed', 'none')
"""Values of the ``centring`` parameter; ``none`` is the papers' algorithms."""

DEFAULT_CENTRING = 'running'
DEFAULT_WARMUP = 50
"""Vectors whose mean ``fixed`` keeps."""

OUTLIER_LIMIT = 10.0
"""A vector farther from the mean than this many spreads is an outlier (its step bounded).
Measured after the first ``GATE_AFTER`` (benchmarks/bench_centring.py --stray, 10 orders):
digits 1.4 spreads at most in random orders, 2.9 class-sorted; sign-digit landmarks 1.8 and
7.2.  A vector past it is only bounded and counted, not refused."""

GATE_AFTER = 10
"""Distances from the mean seen before the bound holds (the spread needs a few)."""


class Centring:
    """
    A running per-feature mean and the rule that takes it out of each vector.

    Parameters
    ----------
    mode : str
        One of ``CENTRING_MODES``.
    warmup : int
        With ``fixed``, the number of vectors the mean is taken over before it freezes.

    """

    def __init__(self, mode: str = DEFAULT_CENTRING, warmup: int = DEFAULT_WARMUP):
        if mode not in CENTRING_MODES:
            raise ValueError(f'centring={mode!r} is not one of {list(CENTRING_MODES)}')
        if int(warmup) < 1:
            raise ValueError(f'centring warmup must be >= 1, got {warmup}')
        self.mode = mode
        self.warmup = int(warmup)
        self.count = 0
        self.mean: Optional[np.ndarray] = None
        self.spread = 0.0
        """Running mean of the distances ``||x - mean||`` (each at most the limit)."""
        self.spread_count = 0
        self.outliers = 0
        """Vectors whose step was bounded (``running`` and ``fixed``)."""
        self.last_outlier = False
        """Whether the vector ``apply`` took last was an outlier."""
        self.fixed_after: Optional[int] = None
        """With ``running`` or ``mean``, the count after which the mean stops (a fleet's
        frame); None: it never stops."""

    @property
    def active(self) -> bool:
        """Return False for ``none`` (vectors pass unchanged, nothing is kept)."""
        return self.mode != 'none'

    def apply(self, x: np.ndarray) -> np.ndarray:
        """
        Take ``x`` into the mean (unless frozen) and return ``x`` minus the mean.

        ``x`` must be a finite float64 vector (callers check it first: a NaN would spoil
        the mean for good).  ``x`` itself is not changed.  With ``running`` (and ``fixed``
        in its warm-up) a vector past the outlier limit moves the mean only as far as one at
        the limit (``last_outlier`` says so).
        """
        self.last_outlier = False
        if self.mode == 'none':
            return x
        if self.mean is None:
            self.mean = np.zeros(x.shape[0])
        elif x.shape[0] != self.mean.shape[0]:
            raise ValueError(f'centring holds {self.mean.shape[0]} features, got {x.shape[0]}')
        stop = self.warmup if self.mode == 'fixed' else self.fixed_after
        if stop is None or self.count < stop:
            self.count += 1
            if self.mode == 'mean' or self.count == 1:
                self.mean += (x - self.mean) / self.count
            else:
                self._bounded_step(x)
        return x - self.mean

    def _bounded_step(self, x: np.ndarray) -> None:
        """Move the mean and the spread towards ``x``, by at most a vector at the limit."""
        dev = x - self.mean
        dist = float(np.sqrt(np.dot(dev, dev)))
        limit = OUTLIER_LIMIT * self.spread
        if self.spread_count >= GATE_AFTER and limit > 0.0 and not dist <= limit:
            # Counted, and shrunk onto the limit (a distance too large to hold: no step).
            self.outliers += 1
            self.last_outlier = True
            shrink = limit / dist if math.isfinite(dist) and dist > 0.0 else 0.0
            self.mean += (dev * shrink) / self.count
            dist = limit
        else:
            self.mean += dev / self.count
        self.spread_count += 1
        self.spread += (dist - self.spread) / self.spread_count

    def centre(self, x: np.ndarray) -> np.ndarray:
        """Return ``x`` minus the current mean without taking it in (for looking only)."""
        if self.mean is None or self.mode == 'none':
            return x
        return x - self.mean

    def centre_sequence(self, X: np.ndarray) -> np.ndarray:
        """
        Return the rows of ``X``, in order, as ``apply`` returns them one by one.

        The same arithmetic as ``apply`` row by row (bit for bit), for offline streams.
        """
        out = np.empty_like(np.asarray(X, dtype=np.float64))
        for t, row in enumerate(np.asarray(X, dtype=np.float64)):
            out[t] = self.apply(row)
        return out

    def state(self) -> Dict[str, Any]:
        """Return the mode, warm-up, count, mean and spread as JSON (the model file keeps them)."""
        state = {'mode': self.mode, 'warmup': self.warmup, 'count': self.count,
                 'mean': None if self.mean is None else self.mean.tolist(),
                 'spread': self.spread, 'spread_count': self.spread_count,
                 'outliers': self.outliers}
        if self.fixed_after is not None:  # only in a fleet: a file without one reads as before
            state['fixed_after'] = self.fixed_after
        return state

    @classmethod
    def from_state(cls, state: Any, n_features: int) -> 'Centring':
        """Rebuild from ``state()``; raise ValueError for a state that cannot be used."""
        if not isinstance(state, dict):
            raise ValueError(f'centring state must be a table, got {state!r}')
        obj = cls(state.get('mode', 'none'), state.get('warmup', DEFAULT_WARMUP))
        # A file saved before the spread was kept measures it again (its bound waits for
        # GATE_AFTER more vectors).
        for name in ('count', 'spread_count', 'outliers'):
            value = state.get(name, 0)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f'centring {name} must be a whole number >= 0, got {value!r}')
            setattr(obj, name, value)
        spread = state.get('spread', 0.0)
        if isinstance(spread, bool) or not isinstance(spread, (int, float)) \
                or not 0.0 <= spread < math.inf:
            raise ValueError(f'centring spread must be a finite number >= 0, got {spread!r}')
        obj.spread = float(spread)
        fixed_after = state.get('fixed_after')
        if fixed_after is not None:
            if isinstance(fixed_after, bool) or not isinstance(fixed_after, int) \
                    or fixed_after < 1:
                raise ValueError(f'centring fixed_after must be a whole number >= 1, got '
                                 f'{fixed_after!r}')
            obj.fixed_after = fixed_after
        mean = state.get('mean')
        if mean is not None:
            arr = np.asarray(mean, dtype=np.float64)
            if arr.shape != (n_features,) or not np.isfinite(arr).all():
                raise ValueError(f'centring mean must be {n_features} finite numbers')
            obj.mean = arr
        return obj
