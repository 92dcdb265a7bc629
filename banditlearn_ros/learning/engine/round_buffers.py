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
Arrays kept between rounds of UCWL's numpy code, so that a round makes no temporaries.

Why: at a few labels and ~100 features a round is a few dozen numpy calls on small arrays,
and their overhead is the cost.  numpy (1.26) runs a binary ufunc on operands of one shape,
all contiguous, in its plain loop; a scalar or a broadcast operand (``mu * x`` with mu K x d)
goes through the general iterator, about twice the time.  So ``x`` and ``x * x`` are copied
into one row per label, and the scalars of the step (``alpha z``, ``gamma``, 1 and the
variance floor) are rows of that value.  Every element is the same IEEE operation on the same
operands as the plain code (a product is commutative), so every value is the same bit for bit.
"""

import math

import numpy as np

from ..algorithms.confidence_weighted import SIGMA_FLOOR

BOUND_SLACK = 1.0 + 1e-9
"""Factor on a tracked bound per step: far above the rounding of a step (d ulps)."""

SAFE = 1e300
"""Bounds below this prove a step finite or the variance floor idle (8 decades spare)."""

TILED_LABELS = 64
"""Labels up to which x and x * x are copied once per label (see ``RoundBuffers``)."""


class RoundBuffers:
    """
    Work arrays for a learner's ``mu`` and ``sigma`` (K x d each), and the two in one array.

    ``mu`` and ``sigma`` are copied into one 2 x K x d array whose halves the learner then
    keeps as its ``mu`` and ``sigma`` (``self.mu``, ``self.sigma``): both products of a
    round are then one call.  A learner that replaces either array (a label added, a model
    loaded) gets new buffers on its next round.

    Parameters
    ----------
    mu, sigma : numpy.ndarray
        float64, K x d: the learner's means and diagonal variances (copied).

    """

    def __init__(self, mu: np.ndarray, sigma: np.ndarray):
        K, d = self.shape = mu.shape
        state = np.stack([mu, sigma])
        self.mu, self.sigma = state[0], state[1]
        self._state = state
        self.rows = list(zip(self.mu, self.sigma))
        """Label i's ``mu`` and ``sigma`` rows (views), made once."""
        self.sigma_max = max(float(sigma.max()), SIGMA_FLOOR) if sigma.size else SIGMA_FLOOR
        """No variance exceeds this while these buffers serve: a step only lowers them."""
        self.precision_bounds = [1.0 / low if low > 1.0 / SAFE else math.inf
                                 for low in sigma.min(axis=1).tolist()] if d else []
        """Per label, at least its largest 1 / sigma_j (``precision_step`` raises it)."""
        # One row of x per label at few labels; at many, one row broadcast (copying x K
        # times would cost more than the general iterator saves).
        self.tiled = K <= TILED_LABELS
        """x is copied into one row per label (False: one row, broadcast)."""
        self._tiles = np.zeros((2, K if self.tiled else 1, d))
        self._xs, self._xx = self._tiles[0], self._tiles[1]
        self._products = np.zeros((2, K, d))
        self.sx = np.zeros(d)
        """sigma_i x, then the precision step's 1 + gamma sigma_i x^2."""
        self.step = np.zeros(d)
        """The mean step alpha z sigma_i x."""
        self.fill = np.zeros(d)
        """A scalar of the step, in every element."""
        self.ones = np.ones(d)
        self.floor = np.full(d, SIGMA_FLOOR)

    def precision_step(self, i: int, alpha: float, gamma: float, xx: float) -> tuple:
        """
        Return (step finite, floor needed) for a precision step of label ``i``; track it.

        Two calls of ``confidence_weighted.precision_update`` spared when bounds prove them
        idle.  ``xx = x . x`` bounds every x_j^2.  The step ``alpha z sigma_j x_j`` is at
        most ``alpha sigma_max sqrt(xx)``.  The step makes ``1 / sigma_j`` into ``1 /
        sigma_j + gamma x_j^2`` (Sherman-Morrison on the diagonal), so the label's largest
        precision grows by at most ``gamma xx``; while that stays below ``SAFE`` no
        variance can reach ``SIGMA_FLOOR`` (1 / 4.5e307).  Each bound carries a factor
        ``BOUND_SLACK`` per step for the rounding.  NaN and infinity fail both tests.
        """
        bounds = self.precision_bounds
        bound = bounds[i] = (bounds[i] + gamma * xx) * BOUND_SLACK
        return alpha * self.sigma_max * math.sqrt(xx) < SAFE, not bound < SAFE

    def forget_bound(self, i: int) -> None:
        """Drop label ``i``'s bound: a step ``precision_step`` did not see changed it."""
        self.precision_bounds[i] = math.inf

    def label_sums(self, x: np.ndarray) -> np.ndarray:
        """
        Return a new 2 x K array: ``mu_i . x`` and ``x^T Sigma_i x`` (diagonal) per label.

        Each row is summed as ``reductions.row_dots`` sums it (``np.add.reduce`` over the
        products, one row of up to ``reductions.CHUNK`` features per label).
        """
        xs, products = self._xs, self._products
        xs[...] = x
        np.square(xs, self._xx)  # x * x, the same product; out= by position (a keyword costs)
        np.multiply(self._state, self._tiles, products)  # mu_i x and sigma_i (x x)
        return np.add.reduce(products, -1)
