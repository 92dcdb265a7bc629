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
Compiled steps of diagonal UCWL (Ngo et al. 2013, Algorithm 1, lines 8-17), for numba.

One round through numpy is a dozen array calls of ~1 us each on a few hundred numbers.
Here one compiled call selects (``select_fused``) and one learns (``learn_fused``).  Their
dot products (``mu x``, ``sigma x^2`` and a learned row's) are ``reductions.pairwise_dot``,
compiled: the products and the pairwise order of additions of numpy's ``np.add.reduce``,
which the plain algorithm uses (``reductions.row_dots``), so the same sums rounded the same
way on every CPU (BLAS would round them by the CPU's kernel).  Everything after them is the
plain code written out operation for operation: the bounds and their argmax, the SCW step
sizes of ``confidence_weighted``, the diagonal update.  Without fastmath (numba's default)
nothing is reordered or fused into FMA, so every value is the numpy code's bit for bit;
``test/test_ucwl_kernels.py`` checks decisions and states over long random streams, both
diagonal readings, SCW-I and SCW-II, and ``disagreement`` checks the compiled sums against
numpy before they are used.  Should they ever differ, the dot products are numpy calls and
only the rest is compiled (``select_diag``, ``learn_diag``).  Ties are left to the caller,
so the learner's own random generator breaks them in the same order.

The functions below call each other by their plain names: run as Python they are the
reference the tests compare with; ``build`` compiles each callee first and binds the
compiled ones into its callers (``jit.bind``), so no module's names are rewritten.
"""

import math
from typing import Callable, NamedTuple, Optional, Tuple
import warnings

import numpy as np

from .jit import bind, jit
from ..algorithms.confidence_weighted import sigma_step, step_size
from ..algorithms.reductions import (BLOCK, block_dot, halves_dot, pairwise_dot, row_dot,
                                     row_dots, two_block_dots)

VARIANTS = {'scw1': 1, 'scw2': 2}
"""Codes of the SCW step sizes for the compiled update."""


class Kernels(NamedTuple):
    """
    The two steps ``UCWL`` calls, the same signatures whether fused or split.

    ``select(x, mu, sigma, k, out)`` fills ``out[0]`` with the scores and ``out[1]`` with
    the bounds and returns ``select_diag``'s tuple; ``learn(mu, sigma, i, x, z, params)``
    steps row ``i`` and returns ``learn_diag``'s code (``params`` from ``learn_params``).
    Either returns -2 (as ``best``) when an array is not C-contiguous (compiled, they are
    called for C-contiguous arrays only, without numba's type dispatch: ``_direct``): the
    caller passes a contiguous copy of x, or runs its numpy code.
    """

    select: Callable
    learn: Callable
    fused: bool
    """True when the dot products are compiled too (``reductions.pairwise_dot``)."""


def learn_params(phi: float, psi: float, xi: float, C: float, variant: str,
                 diagonal: str, C_no: Optional[float] = None) -> np.ndarray:
    """
    Return the constants of ``learn_diag`` as one float64 array (one argument to pass).

    ``C_no`` caps the step of a "no" (z = -1; default C, as Algorithm 1).
    """
    return np.array([phi, psi, xi, phi ** 4, C, VARIANTS[variant],
                     1.0 if diagonal == 'precision' else 0.0, 2.0, C if C_no is None else C_no])


def select_diag(x, out, k) -> Tuple[int, int, int, int, float, bool]:
    """
    Write the bounds ``scores + k sqrt(variances)`` over the variances; find the best of each.

    ``out[0]`` holds the scores, ``out[1]`` the variances (rows indexed, not viewed: a
    compiled view costs two atomic reference counts).

    Returns
    -------
    tuple
        ``(best, n_best, greedy, n_greedy, top_score, explored)``: the first index of the
        largest bound and how many labels share it, the same for the scores, the largest
        score, and whether label ``best`` scores less.  ``best`` is -1 when x holds NaN or
        infinity (nothing else is then meaningful).

    """
    n_labels = out.shape[1]
    if not finite_given(x, out, n_labels):
        return -1, 0, -1, 0, 0.0, False
    best, greedy = 0, 0
    for i in range(n_labels):
        out[1, i] = out[0, i] + k * math.sqrt(max(out[1, i], 0.0))
        if out[1, i] > out[1, best]:
            best = i
        if out[0, i] > out[0, greedy]:
            greedy = i
    n_best, n_greedy = 0, 0
    for i in range(n_labels):
        if out[1, i] == out[1, best]:
            n_best += 1
        if out[0, i] == out[0, greedy]:
            n_greedy += 1
    return best, n_best, greedy, n_greedy, out[0, greedy], out[0, best] < out[0, greedy]


def finite_given(x, out, n) -> bool:
    """
    Return whether x is finite, from the first ``n`` of its variances ``out[1]`` if they tell.

    A variance ``sum_j sigma_j x_j^2`` with every ``sigma_j >= 0`` is NaN or infinite when
    some ``x_j`` is, so finite variances prove x finite; the numbers of x are looked at
    only when one is not (x may be finite and its squares overflow).
    """
    for i in range(n):
        if not math.isfinite(out[1, i]):
            for j in range(x.shape[0]):
                if not math.isfinite(x[j]):
                    return False
            return True
    return True


def learn_diag(mu, sigma, i, x, z, m, v, params, at) -> int:
    """
    Update label ``i``'s ``mu`` and diagonal ``sigma`` (rows) when eq. (4) is violated.

    ``m = z mu . x`` and ``v = x^T Sigma x`` come from the caller (summed as
    ``reductions.row_dots`` sums, as in the numpy code).  ``params[at:]`` is ``learn_params``:
    phi, psi, xi, phi^4, C, the code of the SCW variant (``VARIANTS``), 1 to keep the
    diagonal of the precision update (``cw_gamma``) or 0 for that of Sigma (``cw_beta``),
    2.0, so that ``t ** two`` stays a libm ``pow`` call like Python's, and the cap of a
    "no" step (z = -1; ``UCWL.no_weight``).  The step size is ``step_size``'s, each
    entry's ``sigma_step``'s.  Returns 1 when the rows changed, 0 when not (also for a
    non-finite step, like ``gaussian_update``), -1 when x holds NaN or infinity (nothing
    changed).
    """
    d = x.shape[0]
    if not math.isfinite(v):  # a finite v proves x finite (finite_given)
        for j in range(d):
            if not math.isfinite(x[j]):
                return -1
    alpha, coefficient = step_size(z, m, v, params, at)
    if alpha <= 0.0:
        return 0
    az = alpha * z
    for j in range(d):
        if not math.isfinite(az * (sigma[i, j] * x[j])):
            return 0
    precision = params[at + 6] != 0.0
    for j in range(d):
        sx = sigma[i, j] * x[j]
        mu[i, j] += az * sx
        sigma[i, j] = sigma_step(sigma[i, j], sx, x[j], coefficient, precision)
    return 1


def select_fused(x, mu, sigma, k, out) -> Tuple[int, int, int, int, float, bool]:
    """
    Select in one call.

    ``out[0] = mu x`` and ``out[1] = sigma x^2`` by ``pairwise_dot`` row by row, then
    ``select_diag`` with the bounds written over the variances.
    """
    n_labels, d = mu.shape
    if (x.strides[0] != 8 or mu.strides[1] != 8 or sigma.strides[1] != 8
            or out.strides[1] != 8
            or n_labels > 1 and (mu.strides[0] != 8 * d or sigma.strides[0] != 8 * d)):
        return -2, 0, -1, 0, 0.0, False
    xx = x * x
    if 8 <= d <= BLOCK:
        for i in range(n_labels):
            out[0, i], out[1, i] = two_block_dots(mu, sigma, i, x, xx, d)
    else:
        for i in range(n_labels):
            out[0, i] = pairwise_dot(mu[i], x)
            out[1, i] = pairwise_dot(sigma[i], xx)
    return select_diag(x, out, k)


def learn_fused(mu, sigma, i, x, z, params) -> int:
    """
    Learn on row ``i`` in one call.

    ``m = z mu_i . x`` and ``v = sigma_i . x^2`` by ``pairwise_dot``, then ``learn_diag``
    on the rows.
    """
    if x.strides[0] != 8 or mu.strides[1] != 8 or sigma.strides[1] != 8:
        return -2
    d = x.shape[0]
    if 8 <= d <= BLOCK:
        m, v = two_block_dots(mu, sigma, i, x, x * x, d)
    else:
        m, v = pairwise_dot(mu[i], x), pairwise_dot(sigma[i], x * x)
    return learn_diag(mu, sigma, i, x, z, z * m, v, params, 0)


def split_kernels(select_tail=select_diag, learn_tail=learn_diag) -> Kernels:
    """Return ``Kernels`` that take the dot products from numpy and the rest from the tails."""
    def select(x, mu, sigma, k, out):
        with np.errstate(over='ignore', invalid='ignore'):  # the tail refuses NaN and inf
            out[0] = row_dots(mu, x)
            out[1] = row_dots(sigma, x * x)
        return select_tail(x, out, k)

    def learn(mu, sigma, i, x, z, params):
        with np.errstate(over='ignore', invalid='ignore'):
            m, v = z * row_dot(mu[i], x), row_dot(sigma[i], x * x)
        return learn_tail(mu, sigma, i, x, z, m, v, params, 0)
    return Kernels(select, learn, False)


class Compiled(NamedTuple):
    """
    What ``build`` compiled: the learner's ``kernels`` and the compiled pieces others reuse.

    The UCWL grid (``learning/offline``) binds its block steps to these, so that they sum
    and step exactly as the learner's kernels do.
    """

    kernels: Kernels
    pairwise_dot: Callable
    two_block_dots: Callable
    select_diag: Callable
    learn_diag: Callable
    step_size: Callable
    sigma_step: Callable


def build() -> Compiled:
    """
    Compile the steps: split ones always, fused ones when their sums agree with numpy's.

    Raises whatever numba raises (the caller falls back to the plain algorithm).
    """
    step, sigma = jit(step_size), jit(sigma_step)
    select_tail = jit(bind(select_diag, finite_given=jit(finite_given)))
    learn_tail = jit(bind(learn_diag, step_size=step, sigma_step=sigma))
    block = jit(block_dot)
    dot = jit(bind(pairwise_dot, block_dot=block,
                   halves_dot=jit(bind(halves_dot, block_dot=block))))
    two = jit(two_block_dots)
    sums = {'pairwise_dot': dot, 'two_block_dots': two}
    fused = Kernels(jit(bind(select_fused, select_diag=select_tail, **sums)),
                    jit(bind(learn_fused, learn_diag=learn_tail, **sums)), True)
    problem = disagreement(fused)
    if problem:
        warnings.warn(f'the compiled UCWL steps do not match numpy ({problem}); '
                      'using numpy for the dot products')
        kernels = split_kernels(select_tail, learn_tail)
    else:
        kernels = Kernels(direct(fused.select), direct(fused.learn), True)
    warm_up(kernels)
    return Compiled(kernels, dot, two, select_tail, learn_tail, step, sigma)


def direct(dispatcher) -> Callable:
    """
    Return the machine code of the dispatcher's one compiled signature, as a Python callable.

    Calling it skips numba's type dispatch (half the cost of a call here).  It still
    refuses another dtype or number of dimensions (TypeError), but not another memory
    layout: the steps check their strides and return -2 for anything not C-contiguous.
    Where numba's internals differ from this use, the dispatcher itself.
    """
    try:
        (signature,) = dispatcher.signatures
        if not all(getattr(arg, 'layout', 'C') == 'C' for arg in signature):
            return dispatcher
        return dispatcher.overloads[signature].entry_point
    except Exception:  # noqa: B902 (numba internals: the dispatcher is always right)
        return dispatcher


def disagreement(kernels: Kernels, seed: int = 0) -> str:
    """
    Return '' when ``kernels`` compute what the numpy code does, bit for bit, else what differs.

    Random shapes (one label, equal rows, up to 300 features, one beyond
    ``reductions.CHUNK``), the scores and bounds of ``select`` and the rows ``learn``
    leaves, against ``reductions.row_dots`` and ``split_kernels``.
    """
    rng = np.random.default_rng(seed)
    params = learn_params(1.6, 2.3, 3.6, 1.0, 'scw1', 'precision')
    for n_labels, d in ((1, 7), (2, 1), (3, 124), (6, 124), (10, 300), (40, 33), (2, 8999)):
        mu, sigma = rng.normal(size=(n_labels, d)), rng.random((n_labels, d)) + 0.5
        mu[-1] = mu[0]
        x = rng.random(d) * (rng.random(d) < 0.7)
        out = np.empty((2, n_labels))
        kernels.select(x, mu, sigma, 2.8, out)
        expected = row_dots(mu, x)
        if not (np.array_equal(out[0], expected)
                and np.array_equal(out[1], expected + 2.8 * np.sqrt(row_dots(sigma, x * x)))):
            return f'select at K={n_labels}, d={d}'
        rows = mu.copy(), sigma.copy()
        for i in range(n_labels):
            kernels.learn(mu, sigma, i, x, -1.0, params)
            split_kernels().learn(rows[0], rows[1], i, x, -1.0, params)
        if not (np.array_equal(mu, rows[0]) and np.array_equal(sigma, rows[1])):
            return f'learn at K={n_labels}, d={d}'
    return ''


def warm_up(kernels: Kernels) -> None:
    """Compile now, for the array types UCWL passes, so no timed step pays for it."""
    x, mu, sigma = np.ones(2), np.zeros((2, 2)), np.ones((2, 2))
    kernels.select(x, mu, sigma, 1.0, np.empty((2, 2)))
    kernels.learn(mu, sigma, 0, x, 1.0, learn_params(1.6, 2.3, 3.6, 1.0, 'scw1', 'precision'))
