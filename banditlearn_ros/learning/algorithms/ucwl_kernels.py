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
Compiled steps of diagonal UCWL (Ngo et al. 2013, Algorithm 1), used when numba is installed.

One round through numpy is a dozen array calls of ~1 us each on a few hundred numbers.
Here one compiled call selects (``select_fused``) and one learns (``learn_fused``).  Their
dot products (``mu x``, ``sigma x^2`` and a learned row's) are ``reductions.pairwise_dot``,
compiled: the products and the pairwise order of additions of numpy's ``np.add.reduce``,
which the numpy code uses (``reductions.row_dots``), so the same sums rounded the same way
on every CPU (BLAS would round them by the CPU's kernel).  Everything after them is the
numpy code written out operation for operation: the bounds and their argmax, the SCW step
sizes of ``confidence_weighted``, the diagonal update.  Without fastmath (numba's default)
nothing is reordered or fused into FMA, so every value is the numpy code's bit for bit;
``test/test_ucwl_kernels.py`` checks decisions and states over long random streams, both
diagonal readings, SCW-I and SCW-II, and ``compiled`` checks the compiled sums against
numpy before they are used.  Should they ever differ, the dot products are numpy calls and
only the rest is compiled (``select_diag``, ``learn_diag``).  Ties are left to the caller,
so the learner's own random generator breaks them in the same order.

numba is optional (``pip install banditlearn_ros[fast]``): without it, or with
``BANDITLEARN_COMPILED=0`` in the environment, ``UCWL`` runs its numpy code.
"""

import contextlib
import math
import os
import threading
import time
from typing import Callable, List, NamedTuple, Optional, Tuple
import warnings

import numpy as np

from . import compiler_memory, reductions
from .confidence_weighted import sigma_step, step_size
from .reductions import row_dot, row_dots

VARIANTS = {'scw1': 1, 'scw2': 2}
"""Codes of the SCW step sizes for the compiled update."""

ENV_SWITCH = 'BANDITLEARN_COMPILED'
"""Environment variable: '0' keeps every learner on its numpy code."""

_dot = reductions.pairwise_dot
"""The fused steps' dot product: this function, compiled (``_compile``)."""

_two_dots = reductions.two_block_dots
"""Two rows' dot products at once for 8..128 numbers: this function, compiled (``_compile``)."""


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
    if not _finite_given(x, out, n_labels):
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
    alpha, coefficient = _step_size(z, m, v, params, at)
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
        sigma[i, j] = _sigma_step(sigma[i, j], sx, x[j], coefficient, precision)
    return 1


# What the fused steps call after their dot products: these functions, compiled (``_compile``).
_select_tail = select_diag
_learn_tail = learn_diag
_step_size, _sigma_step, _finite_given = step_size, sigma_step, finite_given


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
    if 8 <= d <= reductions.BLOCK:
        for i in range(n_labels):
            out[0, i], out[1, i] = _two_dots(mu, sigma, i, x, xx, d)
    else:
        for i in range(n_labels):
            out[0, i] = _dot(mu[i], x)
            out[1, i] = _dot(sigma[i], xx)
    return _select_tail(x, out, k)


def learn_fused(mu, sigma, i, x, z, params) -> int:
    """
    Learn on row ``i`` in one call.

    ``m = z mu_i . x`` and ``v = sigma_i . x^2`` by ``pairwise_dot``, then ``learn_diag``
    on the rows.
    """
    if x.strides[0] != 8 or mu.strides[1] != 8 or sigma.strides[1] != 8:
        return -2
    d = x.shape[0]
    if 8 <= d <= reductions.BLOCK:
        m, v = _two_dots(mu, sigma, i, x, x * x, d)
    else:
        m, v = _dot(mu[i], x), _dot(sigma[i], x * x)
    return _learn_tail(mu, sigma, i, x, z, z * m, v, params, 0)


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


_COMPILED: Optional[Kernels] = None
_TRIED = False
_LOCK = threading.Lock()
"""Held while compiling: one compilation per process."""
_DONE_LOCK = threading.Lock()
"""Guards ``_TRIED`` against ``_WAITING``: a waiter is called once, never missed."""
_WAITING: List[Callable[[Optional[Kernels]], None]] = []
_BACKGROUND: Optional[threading.Thread] = None
_DEFERRING = threading.local()


def compiled() -> Optional[Kernels]:
    """
    Return the compiled ``Kernels`` (fused when their sums pass the check), or None without numba.

    Compiled on first use (a few seconds; cached on disk where numba may write).  Any
    failure of numba warns once and leaves the numpy code in use.  Inside ``deferring()``,
    None until compiled, never compiling: the numpy code computes the same values bit for
    bit, so a learner may start on it and move to the kernels later (``UCWL.use_compiled``).
    """
    if os.environ.get(ENV_SWITCH, '1') == '0':
        return None
    if _TRIED:
        return _COMPILED
    if getattr(_DEFERRING, 'depth', 0):
        return None
    _compile_once()
    return _COMPILED


@contextlib.contextmanager
def deferring():
    """Make ``compiled()`` in this thread return at once (None until compiled): a live node."""
    _DEFERRING.depth = getattr(_DEFERRING, 'depth', 0) + 1
    try:
        yield
    finally:
        _DEFERRING.depth -= 1


def ready() -> bool:
    """Return True once the compiled steps are in use (never compiles: for /diagnostics)."""
    return _TRIED and _COMPILED is not None


def compile_in_background(done: Callable[[Optional[Kernels]], None],
                          go: Optional[threading.Event] = None,
                          most_wait: float = 10.0, settle: float = 0.5) -> bool:
    """
    Compile in a daemon thread, then call ``done(kernels)``; False if compiled already.

    Importing numba and loading its cache takes about 1 s of CPU (4 s without the cache), so
    a node that did it in its constructor started that much later.  ``done`` moves a live
    learner made meanwhile (inside ``deferring()``) to the kernels; it runs once, in the
    thread that compiled (this one's, or a caller of ``compiled()`` that came first).  The
    thread starts compiling when ``go`` is set (a node that is up: compiling holds the GIL
    most of the time, so it would slow the start), or after ``most_wait`` seconds, and then
    waits ``settle`` seconds more: a node set ``go`` at the end of its constructor, and its
    first spins (discovery, the first /diagnostics) ran 0.4 s later beside the compilation.
    """
    global _BACKGROUND
    if os.environ.get(ENV_SWITCH, '1') == '0':
        return False
    with _DONE_LOCK:
        if _TRIED:
            return False
        _WAITING.append(done)
        if _BACKGROUND is None or not _BACKGROUND.is_alive():
            _BACKGROUND = threading.Thread(target=_compile_when, daemon=True,
                                           args=(go, most_wait, settle),
                                           name='ucwl-kernels-compile')
            _BACKGROUND.start()
    return True


def _compile_when(go: Optional[threading.Event], most_wait: float, settle: float) -> None:
    if go is not None:
        go.wait(most_wait)
        time.sleep(settle)
    _compile_once()


def _compile_once() -> None:
    """Compile unless done, publish the outcome, then call those waiting for it (no lock)."""
    global _COMPILED, _TRIED
    waiting = []
    with _LOCK:
        if not _TRIED:
            kernels = _compiled_now()
            if kernels is not None:  # LLVM's pages and heap are not needed by the steps
                compiler_memory.release()
            with _DONE_LOCK:
                _COMPILED, _TRIED = kernels, True
                waiting = list(_WAITING)
                _WAITING.clear()
    for done in waiting:
        done(_COMPILED)


def _compiled_now() -> Optional[Kernels]:
    """Import numba and compile; None without numba or when it fails (warned once)."""
    try:
        import numba
    except ImportError:
        return None
    try:
        kernels = _compile(numba)
        _warm_up(kernels)
    except Exception as exc:  # noqa: B902 (any numba failure: the numpy code is exact)
        warnings.warn(f'numba could not compile the UCWL steps ({exc}); using numpy')
        return None
    return kernels


def jit(function):
    """Compile ``function`` with numba, cached on disk where numba may write its cache."""
    import numba
    try:
        return numba.njit(cache=True, nogil=True)(function)
    except Exception:  # noqa: B902 (a cache location numba refuses: no disk cache)
        return numba.njit(nogil=True)(function)


class CompiledOnce:
    """
    Compiled code built and checked once per process, on the fused, checked dot products.

    ``get`` returns None without numba, with ``BANDITLEARN_COMPILED=0``, or when the dot
    products are not the fused ones.  Otherwise its first call builds the code and keeps it
    only if ``disagreement`` finds it bit for bit the numpy code; any failure of numba counts
    as a disagreement; either is said once, as a warning, and the caller keeps its numpy code.
    """

    def __init__(self, build: Callable[[], object], disagreement: Callable[[object], str],
                 what: str):
        self._build, self._disagreement, self._what = build, disagreement, what
        self._tried, self._value = False, None

    def get(self) -> Optional[object]:
        """Return the compiled code, or None (see the class)."""
        kernels = compiled()  # None also when BANDITLEARN_COMPILED=0
        if kernels is None or not kernels.fused:
            return None
        if self._tried:
            return self._value
        self._tried = True
        try:
            candidate = self._build()
            problem = self._disagreement(candidate)
        except Exception as exc:  # noqa: B902 (any numba failure: the numpy code is exact)
            problem = str(exc)
        if problem:
            warnings.warn(f'the compiled {self._what} do not match numpy ({problem}); '
                          'using numpy')
        else:
            self._value = candidate
        return self._value


def _compile(numba) -> Kernels:
    """Compile the split steps, and the fused ones when their sums agree with numpy's."""
    global _select_tail, _learn_tail, _dot, _two_dots, _step_size, _sigma_step, _finite_given
    _step_size, _sigma_step = jit(step_size), jit(sigma_step)  # learn_diag calls them
    _finite_given = jit(finite_given)  # select_diag calls it
    _select_tail, _learn_tail = jit(select_diag), jit(learn_diag)
    split = split_kernels(_select_tail, _learn_tail)
    # pairwise_dot's helpers are globals of reductions: compiled first, so that the
    # compiled pairwise_dot calls compiled code.
    reductions._block = jit(reductions.block_dot)
    reductions._halves = jit(reductions.halves_dot)
    _dot = jit(reductions.pairwise_dot)
    _two_dots = jit(reductions.two_block_dots)
    fused = Kernels(jit(select_fused), jit(learn_fused), True)
    problem = disagreement(fused)
    if problem:
        warnings.warn(f'the compiled UCWL steps do not match numpy ({problem}); '
                      'using numpy for the dot products')
        return split
    return Kernels(_direct(fused.select), _direct(fused.learn), True)


def _direct(dispatcher) -> Callable:
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


def _warm_up(kernels: Kernels) -> None:
    """Compile now, for the array types UCWL passes, so no timed step pays for it."""
    x, mu, sigma = np.ones(2), np.zeros((2, 2)), np.ones((2, 2))
    kernels.select(x, mu, sigma, 1.0, np.empty((2, 2)))
    kernels.learn(mu, sigma, 0, x, 1.0, learn_params(1.6, 2.3, 3.6, 1.0, 'scw1', 'precision'))
