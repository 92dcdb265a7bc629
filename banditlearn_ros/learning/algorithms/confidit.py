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

"""Confidit: the upper-confidence bandit second-order Perceptron (Crammer and Gentile 2011)."""

import math
from typing import Any, Optional

import numpy as np

from .base import (
    BanditLearner, check_choice, check_range, Label, Prediction)
from .reductions import row_dot, row_dots


class Confidit(BanditLearner):
    """
    Crammer and Gentile's Confidit in its practical form (Crammer and Gentile 2011, section 5).

    Per label i a weight vector ``w_i`` and a correlation matrix ``A_i``, initialised to 0
    and ``(1 + alpha)^2 I`` (Figure 1).  Output ``argmax_i (w_i . x + eps_i)`` with
    ``eps_i^2 = eta x^T A_i^-1 x`` (section 5 replaces the theoretical multiplier of eq. (5)
    with the constant eta).  On feedback only the output label's block changes (steps 5-8):
    ``X = +x`` when right; when wrong ``X = +x`` with probability ``(1 - alpha)/2`` and
    ``-x`` with probability ``(1 + alpha)/2``; then ``A <- A + X X^T`` and
    ``w <- A^-1 (A_old w + X)``.  The projection of step 2 is left out, as the paper's
    experiments do.  With ``covariance='diag'`` A is a diagonal, updated as
    ``A_rr <- A_rr + X_r^2`` (section 3, last paragraph).

    Parameters
    ----------
    labels, n_features : int or list of str, int
        The labels (a number, or their names) and the length of every feature vector.
    eta : float
        Width multiplier of the confidence interval (> 0; 0 means no exploration).
    alpha : float
        Label-noise model parameter of eq. (2), in (-1, 1]; 1 always demotes on a mistake.
    covariance : {'diag', 'full'}
        Diagonal A (the paper's experiments) or full per-label A.
    normalize : bool
        Scale each x to unit length first, as Figure 1 step 1 assumes (``||x_t|| = 1``).
    seed : int
        Seed of the random demotion and of tie-breaking.

    """

    name = 'confidit'
    _hyperparameters = ('eta', 'alpha', 'covariance', 'normalize')
    _array_names = ('w', 'a')
    _construction_only = ('alpha', 'covariance')  # they fix the initial A
    _positive_arrays = ('a',)

    def __init__(self, labels, n_features: int, eta: float = 1.0, alpha: float = 1.0,
                 covariance: str = 'diag', normalize: bool = True, seed: int = 0):
        self.eta, self.alpha = eta, alpha
        self.covariance, self.normalize = covariance, normalize
        super().__init__(labels, n_features, seed)

    def _validate(self) -> None:
        self.eta = check_range('eta', self.eta, 0.0, None)
        self.alpha = check_range('alpha', self.alpha, -1.0, 1.0, low_open=True)
        check_choice('covariance', self.covariance, ('diag', 'full'))
        self.normalize = bool(self.normalize)

    def _init_rows(self, name: str, n: int) -> np.ndarray:
        d = self.n_features
        if name == 'w':
            return np.zeros((n, d))
        a0 = (1.0 + self.alpha) ** 2
        if self.covariance == 'diag':
            return np.full((n, d), a0)
        # Full case: store A^-1 so selection needs no solve (updated by Sherman-Morrison).
        return np.repeat(np.eye(d)[None] / a0, n, axis=0)

    def _prepare(self, x: Any) -> np.ndarray:
        x = self.check_x(x)
        if self.normalize:
            norm = math.sqrt(row_dot(x, x))  # np.linalg.norm is BLAS's, by CPU
            if norm > 0.0:
                x = x / norm
        return x

    def scores(self, x: Any) -> np.ndarray:
        """Margins ``w_i . x`` (on the normalised x when ``normalize``)."""
        return row_dots(self._w, self._prepare(x))

    def select(self, x: Any) -> Prediction:
        """Upper-confidence output (Figure 1, step 4; eps as in section 5)."""
        x = self._prepare(x)
        scores = row_dots(self._w, x)
        if self.covariance == 'diag':
            quad = row_dots(1.0 / self._a, x * x)
        else:  # einsum's own order: not promised to be the same on every CPU
            quad = np.einsum('i,kij,j->k', x, self._a, x)
        return self._upper_confidence_choice(scores, np.sqrt(self.eta * np.maximum(quad, 0.0)))

    def learn(self, x: Any, label: Label, correct: bool,
              prediction: Optional[Prediction] = None) -> bool:
        """Figure 1, steps 5-8, on the output label's block only."""
        x = self._prepare(x)
        i = self.label_index(label)
        if self._check_correct(correct):
            sign = 1.0
        elif self.alpha >= 1.0:
            sign = -1.0
        else:
            sign = 1.0 if self._rng.random() < (1.0 - self.alpha) / 2.0 else -1.0
        w = self._w[i]
        if self.covariance == 'diag':
            a_old = self._a[i].copy()
            self._a[i] += x * x
            w[:] = (a_old * w + sign * x) / self._a[i]
        else:
            # A_new = A + x x^T and w_new = A_new^-1 (A w + s x) = w + (s - w.x) A_new^-1 x.
            a_inv = self._a[i]
            ax = a_inv @ x
            a_inv -= np.outer(ax, ax) / (1.0 + float(x @ ax))
            a_inv += a_inv.T
            a_inv *= 0.5
            w += (sign - float(w @ x)) * (a_inv @ x)
        self.n_updates += 1
        return True
