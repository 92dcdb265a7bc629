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

import numpy as np

from .confidence_weighted import SIGMA_FLOOR

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
