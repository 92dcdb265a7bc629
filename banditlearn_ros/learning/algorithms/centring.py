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
  included, updated before the vector is centred.  It depends on the vectors alone, never on
  answers, so a replay of the same vectors centres them identically.  The first vector
  becomes all zeros (UCWL asks at random and learns nothing from it): measured against
  centring with the mean of the vectors *before* the current one, which shows the first
  vectors with their whole offset (docs/benchmarks.md).
- ``fixed``: as ``running`` for the first ``warmup`` vectors, then frozen, so the
  representation the classifiers learned on stops moving (a session that is long, or whose
  gestures come in runs, keeps the mean of its start).
- ``none``: the vector as given: the papers' algorithms exactly.

No decay and no outlier clipping: the cumulative mean's steps shrink as 1/n, and the
measurements in docs/benchmarks.md found neither an exponential forgetting of the mean
nor a clipped update better on the papers' data or the rendered gestures.  No scaling:
dividing by each feature's standard deviation makes ``||x||^2`` about d and widens the
bound at d = 80-124 (real-photo figures); a common factor such as 1/sqrt(d) was
measured too (docs/benchmarks.md).

The learner carries its ``Centring`` (``OnlineClassifier.centring``) so that it is saved in
the model file, cleared by a reset (a fresh learner) and kept when labels are appended (it
is per feature, not per label); ``Interaction`` applies it to each vector before
``select``, so the learner node, the bring-up and replay share one code path.
"""

from typing import Any, Dict, Optional

import numpy as np

CENTRING_MODES = ('running', 'fixed', 'none')
"""Values of the ``centring`` parameter; ``none`` is the papers' algorithms."""

DEFAULT_CENTRING = 'running'
DEFAULT_WARMUP = 50
"""Vectors whose mean ``fixed`` keeps."""


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

    @property
    def active(self) -> bool:
        """Return False for ``none`` (vectors pass unchanged, nothing is kept)."""
        return self.mode != 'none'

    def apply(self, x: np.ndarray) -> np.ndarray:
        """
        Take ``x`` into the mean (unless frozen) and return ``x`` minus the mean.

        ``x`` must be a finite float64 vector (callers check it first: a NaN would spoil
        the mean for good).  ``x`` itself is not changed.
        """
        if self.mode == 'none':
            return x
        if self.mean is None:
            self.mean = np.zeros(x.shape[0])
        elif x.shape[0] != self.mean.shape[0]:
            raise ValueError(f'centring holds {self.mean.shape[0]} features, got {x.shape[0]}')
        if self.mode == 'running' or self.count < self.warmup:
            self.count += 1
            self.mean += (x - self.mean) / self.count
        return x - self.mean

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
        """Return the mode, warm-up, count and mean as JSON (the model file keeps them)."""
        return {'mode': self.mode, 'warmup': self.warmup, 'count': self.count,
                'mean': None if self.mean is None else self.mean.tolist()}

    @classmethod
    def from_state(cls, state: Any, n_features: int) -> 'Centring':
        """Rebuild from ``state()``; raise ValueError for a state that cannot be used."""
        if not isinstance(state, dict):
            raise ValueError(f'centring state must be a table, got {state!r}')
        obj = cls(state.get('mode', 'none'), state.get('warmup', DEFAULT_WARMUP))
        count = state.get('count', 0)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f'centring count must be a whole number >= 0, got {count!r}')
        obj.count = count
        mean = state.get('mean')
        if mean is not None:
            arr = np.asarray(mean, dtype=np.float64)
            if arr.shape != (n_features,) or not np.isfinite(arr).all():
                raise ValueError(f'centring mean must be {n_features} finite numbers')
            obj.mean = arr
        return obj
