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
Compiled steps of diagonal UCWL (seed 000, Algorithm 1), used when numba is installed.

One round through numpy is a dozen array calls of ~1 us each on a few hundred numbers.
Here the dot products stay the numpy code's own BLAS calls (gemv for ``mu x`` and
``sigma x^2``, ddot per learned row: the same sums rounded the same way, so even the
near-ties BLAS makes of equal rows go the same way) and everything after them is one compiled
function: the bounds and their argmax, the SCW step sizes of ``confidence_weighted``
written out operation for operation, the diagonal update.  Without FMA contraction
(numba's default) every value is the numpy code's bit for bit; ``test/
test_ucwl_kernels.py`` checks decisions and states over long random streams, both
diagonal readings, SCW-I and SCW-II.  Ties are left to the caller, so the learner's own
random generator breaks them in the same order.

numba is optional (``pip install banditlearn_ros[fast]``): without it, or with
``BANDITLEARN_COMPILED=0`` in the environment, ``UCWL`` runs its numpy code.
"""

import math
import os
from typing import Optional, Tuple
import warnings

import numpy as np

from .confidence_weighted import FLOAT_MAX, SIGMA_FLOOR

VARIANTS = {'scw1': 1, 'scw2': 2}
"""Codes of the SCW step sizes for the compiled update."""

ENV_SWITCH = 'BANDITLEARN_COMPILED'
"""Environment variable: '0' keeps every learner on its numpy code."""


def select_diag(x, scores, variances, k, bounds) -> Tuple[int, int, int, int, float]:
    """
    Fill ``bounds = scores + k sqrt(variances)`` and find the best bound and best score.

    Returns
    -------
    tuple
        ``(best, n_best, greedy, n_greedy, top_score)``: the first index of the largest
        bound and how many labels share it, the same for the scores, and the largest score.
        ``best`` is -1 when x holds NaN or infinity (nothing else is then meaningful).

    """
    for j in range(x.shape[0]):
        if not math.isfinite(x[j]):
            return -1, 0, -1, 0, 0.0
    n_labels = scores.shape[0]
    best, greedy = 0, 0
    for i in range(n_labels):
        bounds[i] = scores[i] + k * math.sqrt(max(variances[i], 0.0))
        if bounds[i] > bounds[best]:
            best = i
        if scores[i] > scores[greedy]:
            greedy = i
    n_best, n_greedy = 0, 0
    for i in range(n_labels):
        if bounds[i] == bounds[best]:
            n_best += 1
        if scores[i] == scores[greedy]:
            n_greedy += 1
    return best, n_best, greedy, n_greedy, scores[greedy]


def learn_diag(mu, sigma, x, z, m, v, phi, psi, xi, phi4, C, variant, precision, two) -> int:
    """
    Update one label's ``mu`` and diagonal ``sigma`` (rows) when eq. (4) is violated.

    ``m = z mu . x`` and ``v = x^T Sigma x`` come from the caller (BLAS, as in the numpy
    code).  ``variant`` is a code of ``VARIANTS``; ``precision`` True keeps the diagonal of
    the precision update (``cw_gamma``), False that of Sigma (``cw_beta``).  ``two`` is
    2.0, passed in so that ``t ** two`` stays a libm ``pow`` call like Python's.  Returns 1
    when the rows changed, 0 when not (also for a non-finite step, like
    ``gaussian_update``), -1 when x holds NaN or infinity (nothing changed).
    """
    d = x.shape[0]
    for j in range(d):
        if not math.isfinite(x[j]):
            return -1
    if not m < phi * math.sqrt(max(v, 0.0)):
        return 0
    if v <= 0.0:
        return 0
    if variant == 1:  # scw1_alpha
        root = math.sqrt(m * m * phi4 / 4.0 + v * phi * phi * xi)
        alpha = min(C, max(0.0, (-m * psi + root) / (v * xi)))
    else:  # scw2_alpha
        n = v + 1.0 / (2.0 * C)
        g = phi * math.sqrt(phi * phi * m * m * v * v + 4.0 * n * v * (n + v * phi * phi))
        alpha = max(0.0, (-(2.0 * m * n + phi * phi * m * v) + g)
                    / (2.0 * (n * n + n * v * phi * phi)))
    if alpha <= 0.0:
        return 0
    az = alpha * z
    for j in range(d):
        if not math.isfinite(az * (sigma[j] * x[j])):
            return 0
    if precision:  # cw_gamma, then sigma_j / (1 + gamma sigma_j x_j^2)
        avp = alpha * v * phi
        gamma = min(alpha * phi * (avp + math.sqrt(avp * avp + 4.0 * v)) / (2.0 * v), FLOAT_MAX)
        for j in range(d):
            sx = sigma[j] * x[j]
            mu[j] += az * sx
            sigma[j] = max(sigma[j] / (1.0 + gamma * (sx * x[j])), SIGMA_FLOOR)
    else:  # cw_beta, then sigma_j - beta sigma_j^2 x_j^2
        u = 0.25 * (-alpha * v * phi
                    + math.sqrt(alpha * alpha * v * v * phi * phi + 4.0 * v)) ** two
        beta = alpha * phi / (math.sqrt(u) + v * alpha * phi)
        for j in range(d):
            sx = sigma[j] * x[j]
            mu[j] += az * sx
            sigma[j] = max(sigma[j] - beta * sx * sx, SIGMA_FLOOR)
    return 1


_COMPILED: Optional[tuple] = None
_TRIED = False


def compiled() -> Optional[tuple]:
    """
    Return the compiled ``(select_diag, learn_diag)``, or None without numba.

    Compiled on first use (about a second; cached on disk where numba may write).  Any
    failure of numba warns once and leaves the numpy code in use.
    """
    global _COMPILED, _TRIED
    if os.environ.get(ENV_SWITCH, '1') == '0':
        return None
    if not _TRIED:
        _TRIED = True
        try:
            import numba
        except ImportError:
            return None
        try:
            try:
                jit = numba.njit(cache=True, nogil=True)
                kernels = (jit(select_diag), jit(learn_diag))
            except Exception:  # noqa: B902 (a cache location numba refuses: no disk cache)
                jit = numba.njit(nogil=True)
                kernels = (jit(select_diag), jit(learn_diag))
            _warm_up(kernels)
        except Exception as exc:  # noqa: B902 (any numba failure: the numpy code is exact)
            warnings.warn(f'numba could not compile the UCWL steps ({exc}); using numpy')
            return None
        _COMPILED = kernels
    return _COMPILED


def _warm_up(kernels: tuple) -> None:
    """Compile now, for the array types UCWL passes, so no timed step pays for it."""
    x, row = np.ones(2), np.ones(2)
    kernels[0](x, np.zeros(2), np.ones(2), 1.0, np.empty(2))
    kernels[1](np.zeros(2), row, x, 1.0, 0.0, 1.0, 1.6, 2.3, 3.6, 7.3, 1.0, 1, True, 2.0)
