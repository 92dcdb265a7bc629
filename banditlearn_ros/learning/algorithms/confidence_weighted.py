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
Shared maths of the confidence-weighted family: CW, AROW, SCW-I and SCW-II.

Every member keeps a Gaussian N(mu, Sigma) over one binary classifier's weights and
updates it as ``mu += alpha z Sigma x`` and ``Sigma -= beta Sigma x x^T Sigma``
(Ngo et al. 2013, section 3.1); they differ only in the coefficients alpha and beta.
UCWL (one such classifier per label) and the full-feedback references use these
functions, so the equations live in one place.

Diagonal Sigma.  Seed 000 (section 5) keeps Sigma diagonal but does not say which matrix
the diagonalisation step acts on.  The same exact update can be written on the precision,
``Sigma^-1 += gamma x x^T`` (Crammer, Dredze and Pereira 2008, exact convex CW), and
dropping its off-diagonal terms (``diagonal='precision'``, the way Confidit keeps its
correlation matrix diagonal, Crammer and Gentile 2011 section 3:
``(A_t)_rr = (A_t-1)_rr + x_r^2``) is not
the same as keeping the diagonal of the Sigma update (``diagonal='variance'``).  Both
are offered; docs/benchmarks.md measures the choice on the paper's protocol.
"""

import math
from typing import Optional, Tuple

import numpy as np

from .reductions import row_dot

SIGMA_FLOOR = np.finfo(np.float64).tiny
"""Diagonal variances never fall below this; rounding could otherwise make them 0."""

FLOAT_MAX = float(np.finfo(np.float64).max)
"""Cap of the precision step: an overflow must not turn 0 * inf into NaN."""

DIAGONALS = ('precision', 'variance')
"""How a diagonal Sigma is updated: keep the diagonal of Sigma^-1's or of Sigma's update."""


def confidence_constants(eta: float) -> Tuple[float, float, float]:
    """
    Return (phi, psi, xi) of Ngo et al. 2013 section 3.1 for confidence ``eta``.

    ``phi = Phi^-1(eta)``, ``psi = 1 + phi^2 / 2``, ``xi = 1 + phi^2`` (Algorithm 1, line 1).
    ``ndtri`` is the function ``scipy.stats.norm.ppf`` calls; imported here, when a learner
    is made, because scipy.stats took 1.9 s of a node's start and scipy.special 0.1-0.4 s.
    """
    from scipy.special import ndtri
    phi = float(ndtri(eta))
    return phi, 1.0 + phi * phi / 2.0, 1.0 + phi * phi


def cw_alpha(m: float, v: float, phi: float, psi: float, xi: float) -> float:
    """
    Return the CW step size of Ngo et al. 2013 eq. (3).

    ``alpha = max{0, (-m psi + sqrt(m^2 phi^4/4 + v phi^2 xi)) / (v xi)}``.
    """
    if v <= 0.0:
        return 0.0
    root = math.sqrt(m * m * phi ** 4 / 4.0 + v * phi * phi * xi)
    return max(0.0, (-m * psi + root) / (v * xi))


def scw1_alpha(m: float, v: float, phi: float, psi: float, xi: float, C: float) -> float:
    """SCW-I step size, Ngo et al. 2013 section 3.3: the CW step capped at C."""
    return min(C, cw_alpha(m, v, phi, psi, xi))


def scw2_alpha(m: float, v: float, phi: float, C: float) -> float:
    """
    SCW-II step size (Wang, Zhao and Hoi 2012, the squared-loss variant).

    With ``n = v + 1/(2C)`` and ``gamma = phi sqrt(phi^2 m^2 v^2 + 4 n v (n + v phi^2))``:
    ``alpha = max{0, (-(2 m n + phi^2 m v) + gamma) / (2 (n^2 + n v phi^2))}``.
    """
    if v <= 0.0:
        return 0.0
    n = v + 1.0 / (2.0 * C)
    gamma = phi * math.sqrt(phi * phi * m * m * v * v + 4.0 * n * v * (n + v * phi * phi))
    return max(0.0, (-(2.0 * m * n + phi * phi * m * v) + gamma)
               / (2.0 * (n * n + n * v * phi * phi)))


def cw_beta(alpha: float, v: float, phi: float) -> float:
    """
    CW/SCW covariance step, Ngo et al. 2013 eq. (3).

    ``beta = alpha phi / (sqrt(u) + v alpha phi)`` with
    ``u = (-alpha v phi + sqrt(alpha^2 v^2 phi^2 + 4 v))^2 / 4``.
    """
    if alpha <= 0.0 or v <= 0.0:
        return 0.0
    u = 0.25 * (-alpha * v * phi + math.sqrt(alpha * alpha * v * v * phi * phi + 4.0 * v)) ** 2
    return alpha * phi / (math.sqrt(u) + v * alpha * phi)


def cw_gamma(alpha: float, v: float, phi: float) -> float:
    """
    CW/SCW precision step: the same update as ``cw_beta``, written ``Sigma^-1 += gamma x x^T``.

    ``gamma = alpha phi / sqrt(u)`` (exact convex CW, Crammer, Dredze and Pereira 2008), with
    u as in ``cw_beta``; by Sherman-Morrison ``beta = gamma / (1 + gamma v)``.  ``sqrt(u)`` is
    taken as ``2 v / (alpha v phi + sqrt(alpha^2 v^2 phi^2 + 4 v))``, the same number without
    the cancellation that makes u round to 0 for a large uncapped alpha (CW).  An overflow
    gives the largest float, which still sends every touched variance to ``SIGMA_FLOOR``.
    """
    if alpha <= 0.0 or v <= 0.0:
        return 0.0
    avp = alpha * v * phi
    return min(alpha * phi * (avp + math.sqrt(avp * avp + 4.0 * v)) / (2.0 * v), FLOAT_MAX)


def scw1_precision_coefficients(m: float, v: float, phi: float, psi: float, xi: float,
                                C: float) -> Tuple[float, float]:
    """
    Return ``(scw1_alpha(...), cw_gamma(alpha, v, phi))`` in one call; gamma is 0 if alpha <= 0.

    The same operations in the same order as those two functions (so the same floats): the
    numpy round of UCWL's default step, where three Python calls cost more than the
    arithmetic.  ``test/test_ucwl_numpy_round.py`` compares it with them.
    """
    if v <= 0.0:
        return min(C, 0.0), 0.0
    root = math.sqrt(m * m * phi ** 4 / 4.0 + v * phi * phi * xi)
    alpha = min(C, max(0.0, (-m * psi + root) / (v * xi)))
    if alpha <= 0.0:
        return alpha, 0.0
    avp = alpha * v * phi
    return alpha, min(alpha * phi * (avp + math.sqrt(avp * avp + 4.0 * v)) / (2.0 * v),
                      FLOAT_MAX)


def arow_coefficients(m: float, v: float, r: float) -> Tuple[float, float]:
    """Return AROW's (alpha, beta), Ngo et al. 2013 3.2: beta = 1/(v+r), alpha = (1-m)+ beta."""
    beta = 1.0 / (v + r)
    return max(0.0, 1.0 - m) * beta, beta


def step_size(z, m, v, params, at=0) -> Tuple[float, float]:
    """
    Return ``(alpha, gamma or beta)`` of lines 13-17 for ``m = z mu . x`` and ``v``.

    ``scw1_alpha`` or ``scw2_alpha`` and ``cw_gamma`` or ``cw_beta`` above, written out
    operation for operation in one function that numba compiles (``engine.ucwl_kernels``).
    ``(0.0, 0.0)`` when there is no step: eq. (4) holds, ``v <= 0`` or ``alpha <= 0``.
    ``params[at:at + 9]`` is ``engine.ucwl_kernels.learn_params`` (a grid passes its settings' one
    after the other: a compiled row view costs two atomic reference counts); the second
    value is ``cw_gamma``'s when the diagonal of the precision update is kept
    (``params[at + 6]`` = 1), else ``cw_beta``'s.
    """
    phi, psi, xi, phi4 = params[at], params[at + 1], params[at + 2], params[at + 3]
    two = params[at + 7]
    C = params[at + 4] if z > 0.0 else params[at + 8]
    if not m < phi * math.sqrt(max(v, 0.0)):
        return 0.0, 0.0
    if v <= 0.0:
        return 0.0, 0.0
    if params[at + 5] == 1.0:  # scw1_alpha
        root = math.sqrt(m * m * phi4 / 4.0 + v * phi * phi * xi)
        alpha = min(C, max(0.0, (-m * psi + root) / (v * xi)))
    else:  # scw2_alpha
        n = v + 1.0 / (2.0 * C)
        g = phi * math.sqrt(phi * phi * m * m * v * v + 4.0 * n * v * (n + v * phi * phi))
        alpha = max(0.0, (-(2.0 * m * n + phi * phi * m * v) + g)
                    / (2.0 * (n * n + n * v * phi * phi)))
    if alpha <= 0.0:
        return 0.0, 0.0
    if params[at + 6] != 0.0:  # cw_gamma
        avp = alpha * v * phi
        return alpha, min(alpha * phi * (avp + math.sqrt(avp * avp + 4.0 * v)) / (2.0 * v),
                          FLOAT_MAX)
    # cw_beta
    u = 0.25 * (-alpha * v * phi + math.sqrt(alpha * alpha * v * v * phi * phi + 4.0 * v)) ** two
    return alpha, alpha * phi / (math.sqrt(u) + v * alpha * phi)


def sigma_step(sigma_j, sx, x_j, coefficient, precision) -> float:
    """
    Return one diagonal entry after the step (``sx = sigma_j x_j``).

    ``sigma_j / (1 + gamma sx x_j)`` keeping the precision update's diagonal, else
    ``sigma_j - beta sx^2``; never below ``SIGMA_FLOOR``.
    """
    if precision:
        return max(sigma_j / (1.0 + coefficient * (sx * x_j)), SIGMA_FLOOR)
    return max(sigma_j - coefficient * sx * sx, SIGMA_FLOOR)


def initial_gaussian(name: str, n: int, d: int, covariance: str) -> np.ndarray:
    """Return ``n`` rows of the prior N(0, I): ``mu`` zeros, ``sigma`` ones or identities."""
    if name == 'mu':
        return np.zeros((n, d))
    if covariance == 'diag':
        return np.ones((n, d))
    return np.repeat(np.eye(d)[None], n, axis=0)


def mixture_gaussian(mu: np.ndarray, sigma: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """
    Return the Gaussian with the mean and covariance of an equal mixture of ``n`` Gaussians.

    ``mu`` is n x d, ``sigma`` n x d (diagonals) or n x d x d.  Mean ``m = mean_i mu_i``;
    covariance ``mean_i Sigma_i + mean_i (mu_i - m)(mu_i - m)^T``, of which a diagonal
    Sigma keeps the diagonal, ``mean_i sigma_i + mean_i (mu_i - m)^2``.
    """
    mean = mu.mean(axis=0)
    spread = mu - mean
    if sigma.ndim == 2:
        return mean, sigma.mean(axis=0) + (spread * spread).mean(axis=0)
    return mean, sigma.mean(axis=0) + spread.T @ spread / mu.shape[0]


def margin_variance(sigma: np.ndarray, x: np.ndarray) -> float:
    """
    ``v = x^T Sigma x`` for a diagonal (vector) or full (matrix) Sigma.

    The diagonal sum is ``reductions.row_dot``: the same bits on every CPU.  The full
    product is BLAS's, whose rounding depends on the CPU's kernel.
    """
    if sigma.ndim == 1:
        return row_dot(sigma, x * x)
    return float(x @ sigma @ x)


def gaussian_update(mu: np.ndarray, sigma: np.ndarray, x: np.ndarray, z: float,
                    alpha: float, beta: float, gamma: Optional[float] = None) -> bool:
    """
    Apply ``mu += alpha z Sigma x`` and ``Sigma -= beta Sigma x x^T Sigma`` in place.

    For a diagonal Sigma the update is followed by the diagonalisation step of Ngo et al. 2013
    section 5 ("Implementation details").  Given the precision step ``gamma``, the
    diagonal of ``Sigma^-1 += gamma x x^T`` is kept, ``sigma_j <- sigma_j / (1 + gamma
    sigma_j x_j^2)`` (``diagonal='precision'``); without it, the diagonal of the Sigma
    update, ``sigma_j -= beta sigma_j^2 x_j^2`` (``diagonal='variance'``).  A full Sigma
    ignores ``gamma``: both forms are the same matrix there.

    Returns
    -------
    bool
        False, with nothing changed, when the mean step is not finite: an uncapped step
        (CW) on a collapsed variance can overflow, and one such step would make every
        later score NaN.

    """
    sx = sigma * x if sigma.ndim == 1 else sigma @ x
    if abs(alpha) < 1e100:
        step = (alpha * z) * sx
    else:
        with np.errstate(over='ignore', invalid='ignore'):
            step = (alpha * z) * sx
    # A finite sum means every entry is finite (one reduction instead of two calls).
    if not math.isfinite(np.add.reduce(step)) and not np.isfinite(step).all():
        return False
    mu += step
    if sigma.ndim == 1:
        if gamma is None:
            sigma -= beta * sx * sx
        else:  # 1 + gamma (sx x), in place on sx (not used after): no temporaries
            sx *= x
            sx *= gamma
            sx += 1.0
            sigma /= sx
        np.maximum(sigma, SIGMA_FLOOR, out=sigma)
    else:
        sigma -= beta * np.outer(sx, sx)
        # Keep exact symmetry; rounding in the outer product could otherwise drift.
        sigma += sigma.T
        sigma *= 0.5
    return True


def precision_update(mu: np.ndarray, sigma: np.ndarray, x: np.ndarray, z: float,
                     alpha: float, gamma: float, work, finite: bool = False,
                     floor: bool = True) -> bool:
    """
    ``gaussian_update`` of a diagonal Sigma with the precision step, on ``work``'s arrays.

    The same operations in the same order, element by element (so the same values, bit for
    bit), without temporaries: ``work`` is an ``engine.round_buffers.RoundBuffers`` of x's length.
    The step's finiteness is read from ``step . step`` (one call; any NaN or infinity makes
    it non-finite, and a finite step too large for it is checked element by element), not
    from the step's sum: the same answer.  A step of 1e100 or more goes to
    ``gaussian_update``, which silences the overflow it may cause.  ``finite`` (the step is
    known finite) and ``floor=False`` (no variance can fall below the floor) spare a call
    each: ``RoundBuffers.precision_step`` proves them.
    """
    if not abs(alpha) < 1e100:
        return gaussian_update(mu, sigma, x, z, alpha, 0.0, gamma)
    sx, step, fill, multiply = work.sx, work.step, work.fill, np.multiply
    multiply(sigma, x, sx)  # out= passed by position: a keyword costs more than the loop
    fill.fill(alpha * z)
    multiply(fill, sx, step)
    if not finite and not math.isfinite(step.dot(step)) and not np.isfinite(step).all():
        return False
    np.add(mu, step, mu)
    multiply(sx, x, sx)
    fill.fill(gamma)
    multiply(sx, fill, sx)
    np.add(sx, work.ones, sx)
    np.divide(sigma, sx, sigma)
    if floor:
        np.maximum(sigma, work.floor, sigma)
    return True
