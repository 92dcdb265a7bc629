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
Full-feedback references: they are told the true label, so they bound what one bit can reach.

Seed 000 (section 5, "Compared algorithms") extends the binary confidence-weighted learners
to multiclass with the top-1 rule: on each example the true label's classifier is
promoted (``z = +1``) and the highest-scoring wrong label's classifier is demoted
(``z = -1``), each by its own binary update.  mPA is the multiclass Passive-Aggressive
of Crammer et al. 2006; the Perceptron is the multiclass Perceptron of Rosenblatt 1958 and of
Agarwal and Manwani 2021 eq. (2).
"""

from typing import Any

import numpy as np

from .base import check_choice, check_range, FullFeedbackLearner, Label
from .confidence_weighted import (
    arow_coefficients, confidence_constants, cw_alpha, cw_beta, cw_gamma, DIAGONALS,
    gaussian_update, initial_gaussian, margin_variance, scw1_alpha, scw2_alpha)
from .reductions import row_dot, row_dots


class _GaussianTop1(FullFeedbackLearner):
    """Per-label Gaussian classifiers updated by the top-1 promote/demote rule."""

    _array_names = ('mu', 'sigma')
    _construction_only = ('covariance',)
    _positive_arrays = ('sigma',)
    _hyperparameters_before = {'diagonal': 'variance'}

    def __init__(self, labels, n_features: int, seed: int, covariance: str, diagonal: str):
        self.covariance, self.diagonal = covariance, diagonal
        super().__init__(labels, n_features, seed)

    def _validate(self) -> None:
        self._validate_own()
        check_choice('covariance', self.covariance, ('diag', 'full'))
        check_choice('diagonal', self.diagonal, DIAGONALS)

    def _validate_own(self) -> None:
        """Check (and coerce) the subclass's own hyperparameters."""
        raise NotImplementedError

    def _init_rows(self, name: str, n: int) -> np.ndarray:
        return initial_gaussian(name, n, self.n_features, self.covariance)

    def scores(self, x: Any) -> np.ndarray:
        """Mean margins ``mu_i . x``."""
        return row_dots(self._mu, self.check_x(x))

    def _coefficients(self, m: float, v: float):
        """Return (alpha, beta) for a binary example with margin m and variance v."""
        raise NotImplementedError

    def _precision_step(self, alpha: float, v: float) -> float:
        """Return gamma of ``Sigma^-1 += gamma x x^T``, the same update as beta (CW, SCW)."""
        return cw_gamma(alpha, v, self._phi)

    def _binary_update(self, i: int, x: np.ndarray, z: float) -> bool:
        mu, sigma = self._mu[i], self._sigma[i]
        m = z * row_dot(mu, x)
        v = margin_variance(sigma, x)
        alpha, beta = self._coefficients(m, v)
        if alpha <= 0.0:
            return False
        gamma = self._precision_step(alpha, v) if self.diagonal == 'precision' else None
        return gaussian_update(mu, sigma, x, z, alpha, beta, gamma)

    def learn_true(self, x: Any, y: Label) -> bool:
        """Promote the true label, demote the best-scoring wrong one (top-1)."""
        x = self.check_x(x)
        y = self.label_index(y)
        scores = row_dots(self._mu, x)
        changed = self._binary_update(y, x, 1.0)
        if self.n_labels > 1:
            scores[y] = -np.inf
            changed |= self._binary_update(self._argmax(scores), x, -1.0)
        self.n_updates += int(changed)
        return changed


class MulticlassSCW(_GaussianTop1):
    """
    mSCW-I / mSCW-II: SCW (Ngo et al. 2013, section 3.3) with the top-1 rule.

    Parameters
    ----------
    labels, n_features : int or list of str, int
        The labels (a number, or their names) and the length of every feature vector.
    eta : float
        Confidence, in (0.5, 1).
    C : float
        Aggressiveness cap (> 0).
    variant : {'scw1', 'scw2'}
        Step-size rule.
    covariance, diagonal : {'diag', 'full'}, {'precision', 'variance'}
        Shape of Sigma; the diagonalisation step of a diagonal one (as in ``UCWL``).
    seed : int
        Seed of tie-breaking.

    """

    name = 'mscw'
    _hyperparameters = ('eta', 'C', 'variant', 'covariance', 'diagonal')

    def __init__(self, labels, n_features: int, eta: float = 0.95, C: float = 1.0,
                 variant: str = 'scw1', covariance: str = 'diag', seed: int = 0,
                 diagonal: str = 'precision'):
        self.eta, self.C, self.variant = eta, C, variant
        super().__init__(labels, n_features, seed, covariance, diagonal)

    def _validate_own(self) -> None:
        self.eta = check_range('eta', self.eta, 0.5, 1.0, low_open=True, high_open=True)
        self.C = check_range('C', self.C, 0.0, None, low_open=True)
        check_choice('variant', self.variant, ('scw1', 'scw2'))
        self._phi, self._psi, self._xi = confidence_constants(self.eta)

    def _coefficients(self, m, v):
        if not m < self._phi * np.sqrt(max(v, 0.0)):
            return 0.0, 0.0
        if self.variant == 'scw1':
            alpha = scw1_alpha(m, v, self._phi, self._psi, self._xi, self.C)
        else:
            alpha = scw2_alpha(m, v, self._phi, self.C)
        return alpha, cw_beta(alpha, v, self._phi)


class MulticlassCW(_GaussianTop1):
    """
    mCW: exact convex CW (Ngo et al. 2013, section 3.1, eq. (3)) with the top-1 rule.

    Parameters
    ----------
    labels, n_features : int or list of str, int
        The labels (a number, or their names) and the length of every feature vector.
    eta : float
        Confidence, in (0.5, 1).
    covariance : {'diag', 'full'}
        Shape of Sigma.
    seed : int
        Seed of tie-breaking.
    diagonal : {'precision', 'variance'}
        Diagonalisation step of a diagonal Sigma (as in ``UCWL``).  The default here is
        'variance': CW's step has no cap, and with the precision diagonal it shrinks the
        variances so fast that the steps grow without bound (digits: 22 % mistakes at
        eta = 0.9 against 12 %).

    """

    name = 'mcw'
    _hyperparameters = ('eta', 'covariance', 'diagonal')

    def __init__(self, labels, n_features: int, eta: float = 0.95, covariance: str = 'diag',
                 seed: int = 0, diagonal: str = 'variance'):
        self.eta = eta
        super().__init__(labels, n_features, seed, covariance, diagonal)

    def _validate_own(self) -> None:
        self.eta = check_range('eta', self.eta, 0.5, 1.0, low_open=True, high_open=True)
        self._phi, self._psi, self._xi = confidence_constants(self.eta)

    def _coefficients(self, m, v):
        alpha = cw_alpha(m, v, self._phi, self._psi, self._xi)
        return alpha, cw_beta(alpha, v, self._phi)


class MulticlassAROW(_GaussianTop1):
    """
    mAROW: AROW (Ngo et al. 2013, section 3.2) with the top-1 rule.

    Parameters
    ----------
    labels, n_features : int or list of str, int
        The labels (a number, or their names) and the length of every feature vector.
    r : float
        Regularisation trade-off (the paper's rho, > 0).
    covariance, diagonal : {'diag', 'full'}, {'precision', 'variance'}
        Shape of Sigma; the diagonalisation step of a diagonal one (as in ``UCWL``).
    seed : int
        Seed of tie-breaking.

    """

    name = 'marow'
    _hyperparameters = ('r', 'covariance', 'diagonal')

    def __init__(self, labels, n_features: int, r: float = 1.0, covariance: str = 'diag',
                 seed: int = 0, diagonal: str = 'precision'):
        self.r = r
        super().__init__(labels, n_features, seed, covariance, diagonal)

    def _validate_own(self) -> None:
        self.r = check_range('r', self.r, 0.0, None, low_open=True)

    def _coefficients(self, m, v):
        return arow_coefficients(m, v, self.r)

    def _precision_step(self, alpha, v):
        # beta = 1 / (v + r) is Sigma^-1 += x x^T / r by Sherman-Morrison.
        return 1.0 / self.r


class _LinearRows(FullFeedbackLearner):
    """A weight row per label, zero at first; scores are the margins ``w_i . x``."""

    _array_names = ('w',)

    def _init_rows(self, name: str, n: int) -> np.ndarray:
        return np.zeros((n, self.n_features))

    def scores(self, x: Any) -> np.ndarray:
        """Margins ``w_i . x``."""
        return row_dots(self._w, self.check_x(x))


class MulticlassPA(_LinearRows):
    """
    mPA-I / mPA-II: multiclass Passive-Aggressive (Crammer et al. 2006).

    With ``r`` the highest-scoring wrong label and ``loss = max{0, 1 - (w_y - w_r) . x}``:
    ``w_y += tau x`` and ``w_r -= tau x``, where ``tau = min{C, loss / (2 ||x||^2)}`` (PA-I)
    or ``tau = loss / (2 ||x||^2 + 1/(2C))`` (PA-II); the factor 2 is the squared norm of
    the joint feature difference.

    Parameters
    ----------
    labels, n_features : int or list of str, int
        The labels (a number, or their names) and the length of every feature vector.
    C : float
        Aggressiveness (> 0).
    variant : {'pa1', 'pa2'}
        Step-size rule.
    seed : int
        Seed of tie-breaking.

    """

    name = 'mpa'
    _hyperparameters = ('C', 'variant')

    def __init__(self, labels, n_features: int, C: float = 1.0, variant: str = 'pa1',
                 seed: int = 0):
        self.C, self.variant = C, variant
        super().__init__(labels, n_features, seed)

    def _validate(self) -> None:
        self.C = check_range('C', self.C, 0.0, None, low_open=True)
        check_choice('variant', self.variant, ('pa1', 'pa2'))

    def learn_true(self, x: Any, y: Label) -> bool:
        """One PA step on the true label against the best-scoring wrong label."""
        x = self.check_x(x)
        y = self.label_index(y)
        if self.n_labels < 2:
            return False
        scores = row_dots(self._w, x)
        scores_wrong = scores.copy()
        scores_wrong[y] = -np.inf
        r = self._argmax(scores_wrong)
        loss = max(0.0, 1.0 - (scores[y] - scores[r]))
        sq = 2.0 * row_dot(x, x)
        if loss <= 0.0 or sq <= 0.0:
            return False
        tau = min(self.C, loss / sq) if self.variant == 'pa1' else loss / (sq + 0.5 / self.C)
        self._w[y] += tau * x
        self._w[r] -= tau * x
        self.n_updates += 1
        return True


class MulticlassPerceptron(_LinearRows):
    """
    Multiclass Perceptron (Agarwal and Manwani 2021 eq. (2); Rosenblatt 1958).

    On a mistake promote y, demote y_hat.

    Parameters
    ----------
    labels, n_features : int or list of str, int
        The labels (a number, or their names) and the length of every feature vector.
    seed : int
        Seed of tie-breaking.

    """

    name = 'perceptron'

    def learn_true(self, x: Any, y: Label) -> bool:
        """``W += U`` with ``U_rj = (1[y = r] - 1[y_hat = r]) x_j``."""
        x = self.check_x(x)
        y = self.label_index(y)
        y_hat = self._argmax(row_dots(self._w, x))
        if y_hat == y:
            return False
        self._w[y] += x
        self._w[y_hat] -= x
        self.n_updates += 1
        return True
