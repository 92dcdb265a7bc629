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
UCWL for many hyperparameter settings at once, stepped as numpy arrays.

The paper's tuning protocol (Ngo et al. 2013, section 5) runs UCWL for 11 x 9 x 15 = 1485
settings of (C, eta, k); one Python object per setting costs ~80 us per example.  Here
every setting that sees the same stream is one slice of ``mu`` and ``sigma`` arrays of
shape (settings, labels, features) and each round is a few dozen numpy calls for all
of them.

Exactness.  The decisions are bit-for-bit those of ``learning.ucwl.UCWL`` with
``covariance='diag'`` and the same seed, because every floating-point value is computed
by the same operation in the same order:

- the per-label scores and variances, and the learned row's margin and variance, are
  ``reductions.row_dots`` over the last axis of the stacked arrays, which sums every
  (setting, label) row exactly as the reference sums its rows, in numpy's fixed
  pairwise order (the same bits on every CPU, unlike BLAS);
- the scalar formulas of ``confidence_weighted`` are written out with the same
  association, and ``x ** 2`` uses ``np.power`` with an array exponent (libm ``pow``,
  like Python's float ``**``) rather than ``x * x``, which differs from ``pow`` in about
  1 in 1000 values on this machine;
- ties (argmax over several equal values) are broken with one ``numpy.random.Generator``
  per setting seeded like the reference learner and drawn in the same order (the UCB
  argmax, then the greedy argmax the reference computes for its ``Prediction``).

Where it can differ: if numpy dispatches ``power`` to a vectorised (SVML/AVX-512) kernel
on another CPU, values can differ in the last bit and a later near-tie can go the other way.
``test/test_ucwl_grid.py`` checks equality of every decision and update count on this
machine; run it after a numpy upgrade.  Only the diagonal covariance is supported (the
paper's experimental choice), with either diagonalisation step (``diagonal``); the full
covariance costs d x d per label and is left to the reference class.
"""

from typing import Dict, Optional, Sequence

import numpy as np

from .base import HyperparameterError
from .confidence_weighted import confidence_constants, DIAGONALS, FLOAT_MAX, SIGMA_FLOOR
from .reductions import row_dots
from .ucwl import no_cap, NO_WEIGHTS


class UCWLGrid:
    """
    S independent diagonal UCWL learners that all see the same stream.

    Parameters
    ----------
    n_labels : int
        Number of labels K.
    n_features : int
        Feature length d.
    eta, C, k : sequence of float
        One value per setting (length S each).
    seeds : sequence of int
        Tie-breaking seed per setting (the ``seed`` of the equivalent ``UCWL``).
    variant : {'scw1', 'scw2'}
        SCW step size, shared by every setting.
    diagonal : {'precision', 'variance'}
        Diagonalisation step, shared by every setting (``UCWL``'s ``diagonal``).
    no_weight : {'equal', 'balanced'}
        Cap of a "no" step, shared by every setting (``UCWL``'s ``no_weight``).

    """

    def __init__(self, n_labels: int, n_features: int, eta: Sequence[float],
                 C: Sequence[float], k: Sequence[float], seeds: Sequence[int],
                 variant: str = 'scw1', diagonal: str = 'precision', no_weight: str = 'equal'):
        eta = np.asarray(eta, dtype=np.float64).ravel()
        C = np.asarray(C, dtype=np.float64).ravel()
        k = np.asarray(k, dtype=np.float64).ravel()
        seeds = [int(s) for s in np.asarray(seeds).ravel()]
        n = len(eta)
        if not (len(C) == len(k) == len(seeds) == n) or n == 0:
            raise HyperparameterError('eta, C, k and seeds need one equal, non-zero length')
        if np.any(eta <= 0.5) or np.any(eta >= 1.0):
            raise HyperparameterError('every eta must lie in (0.5, 1)')
        if np.any(C <= 0.0) or np.any(k < 0.0) or not np.all(np.isfinite(np.r_[C, k])):
            raise HyperparameterError('every C must be > 0 and every k >= 0')
        if variant not in ('scw1', 'scw2'):
            raise HyperparameterError(f"variant must be 'scw1' or 'scw2', got {variant!r}")
        if diagonal not in DIAGONALS:
            raise HyperparameterError(f'diagonal must be one of {DIAGONALS}, got {diagonal!r}')
        if no_weight not in NO_WEIGHTS:
            raise HyperparameterError(f'no_weight must be one of {NO_WEIGHTS}, got {no_weight!r}')
        self.diagonal = diagonal
        self.n_settings, self.n_labels, self.n_features = n, int(n_labels), int(n_features)
        self.variant = variant
        self.eta, self.C, self.k, self.seeds = eta, C, k, seeds
        # The cap of a "no", computed as UCWL computes it (the same division).
        self.C_no = np.array([no_cap(float(c), no_weight, self.n_labels) for c in C])
        consts = [confidence_constants(float(e)) for e in eta]
        self._phi = np.array([c[0] for c in consts])
        self._psi = np.array([c[1] for c in consts])
        self._xi = np.array([c[2] for c in consts])
        # phi ** 4 exactly as Python evaluates it inside cw_alpha.
        self._phi4 = np.array([c[0] ** 4 for c in consts])
        self.mu = np.zeros((n, self.n_labels, self.n_features))
        self.sigma = np.ones((n, self.n_labels, self.n_features))
        self.n_updates = np.zeros(n, dtype=np.int64)
        self._rngs: Dict[int, np.random.Generator] = {}
        self._rows = np.arange(n)
        self._two = np.full(n, 2.0)
        self._label_index = np.arange(self.n_labels, dtype=np.int64)[:, None]

    def _rng(self, s: int) -> np.random.Generator:
        rng = self._rngs.get(s)
        if rng is None:
            rng = self._rngs[s] = np.random.default_rng(self.seeds[s])
        return rng

    def _ties(self, values_t: np.ndarray):
        """Return (is_max, tied rows) for values laid out labels x settings."""
        is_max = values_t == values_t.max(axis=0)
        # count_nonzero counts in intp: a uint8 sum wraps at 256 labels (issue 14).
        return is_max, np.flatnonzero(np.count_nonzero(is_max, axis=0) > 1)

    def select(self, x: np.ndarray) -> np.ndarray:
        """Return each setting's output label for x (UCWL.select, Algorithm 1 line 11)."""
        # Each row summed as the reference sums it; the results are transposed to labels x
        # settings so reductions over labels run on long rows.
        scores = np.ascontiguousarray(row_dots(self.mu, x).T)
        var = np.ascontiguousarray(row_dots(self.sigma, x * x).T)
        bounds = scores + self.k * np.sqrt(np.maximum(var, 0.0))
        is_max, tied = self._ties(bounds)
        # The unique maximum's index; tied settings are overwritten below.
        chosen = np.add.reduce(is_max * self._label_index, axis=0)
        for s in tied.tolist():
            best = np.flatnonzero(is_max[:, s])
            chosen[s] = best[self._rng(s).integers(best.size)]
        # The reference also computes the greedy label; its tie draws move the generator.
        is_max, tied = self._ties(scores)
        for s in tied.tolist():
            self._rng(s).integers(int(is_max[:, s].sum()))
        return chosen

    def learn(self, x: np.ndarray, chosen: np.ndarray, correct: np.ndarray,
              active: Optional[np.ndarray] = None) -> np.ndarray:
        """
        Update each setting's selected classifier (UCWL.learn, Algorithm 1 lines 12-17).

        Parameters
        ----------
        x : numpy.ndarray
            The round's features (d).
        chosen : numpy.ndarray
            Output label per setting (S).
        correct : numpy.ndarray
            Feedback bit per setting (S, bool).
        active : numpy.ndarray, optional
            Settings that received an answer (S, bool); the others do not learn.

        Returns
        -------
        numpy.ndarray
            Boolean mask of the settings whose model changed.

        """
        rows = self._rows
        if active is not None:
            rows = rows[active]
            chosen = chosen[active]
            correct = correct[active]
        changed = np.zeros(self.n_settings, dtype=bool)
        if rows.size == 0:
            return changed
        d = self.n_features
        flat = rows * self.n_labels + chosen
        mu_flat = self.mu.reshape(-1, d)
        sg_flat = self.sigma.reshape(-1, d)
        mu_c = mu_flat.take(flat, axis=0)
        sg_c = sg_flat.take(flat, axis=0)
        z = np.where(correct, 1.0, -1.0)
        m = z * row_dots(mu_c, x)
        v = row_dots(sg_c, x * x)
        phi = self._phi if active is None else self._phi[rows]
        need = m < phi * np.sqrt(np.maximum(v, 0.0))
        need &= v > 0.0
        sel = np.flatnonzero(need)
        if sel.size == 0:
            return changed
        rsel = rows[sel]
        m, v, z, phi = m[sel], v[sel], z[sel], phi[sel]
        psi, xi, C = self._psi[rsel], self._xi[rsel], np.where(z > 0.0, self.C[rsel],
                                                               self.C_no[rsel])
        if self.variant == 'scw1':
            phi4 = self._phi4[rsel]
            root = np.sqrt(m * m * phi4 / 4.0 + v * phi * phi * xi)
            a = (-m * psi + root) / (v * xi)
            a = np.where(a > 0.0, a, 0.0)
            alpha = np.where(a < C, a, C)
        else:
            n = v + 1.0 / (2.0 * C)
            gamma = phi * np.sqrt(phi * phi * m * m * v * v + 4.0 * n * v * (n + v * phi * phi))
            a = (-(2.0 * m * n + phi * phi * m * v) + gamma) / (2.0 * (n * n + n * v * phi * phi))
            alpha = np.where(a > 0.0, a, 0.0)
        ok = alpha > 0.0
        if not np.any(ok):
            return changed
        sel, alpha, v, z, phi = sel[ok], alpha[ok], v[ok], z[ok], phi[ok]
        sx = sg_c[sel] * x
        if alpha.max() < 1e100:
            step = (alpha * z)[:, None] * sx
        else:
            with np.errstate(over='ignore', invalid='ignore'):
                step = (alpha * z)[:, None] * sx
        finite = np.isfinite(step).all(axis=1)
        if not finite.all():  # gaussian_update refuses a non-finite step
            sel, alpha, v, z, phi = sel[finite], alpha[finite], v[finite], z[finite], phi[finite]
            sx, step = sx[finite], step[finite]
        r, f = rows[sel], flat[sel]
        mu_flat[f] = mu_c[sel] + step
        if self.diagonal == 'precision':
            # cw_gamma, operation for operation.
            avp = alpha * v * phi
            gamma = alpha * phi * (avp + np.sqrt(avp * avp + 4.0 * v)) / (2.0 * v)
            gamma = np.minimum(gamma, FLOAT_MAX)
            sigma = sg_c[sel] / (1.0 + gamma[:, None] * (sx * x))
        else:
            t = -alpha * v * phi + np.sqrt(alpha * alpha * v * v * phi * phi + 4.0 * v)
            u = 0.25 * np.power(t, self._two[:t.size])
            beta = alpha * phi / (np.sqrt(u) + v * alpha * phi)
            sigma = sg_c[sel] - beta[:, None] * sx * sx
        sg_flat[f] = np.maximum(sigma, SIGMA_FLOOR)
        self.n_updates[r] += 1
        changed[r] = True
        return changed


CACHE_BUDGET = 8 * 2 ** 20
"""Bytes of learned state (mu and sigma) a block aims to keep within, so it stays in cache."""

MEMORY_BUDGET = 512 * 2 ** 20
"""Bytes of learned state a block may never exceed (one block per worker process)."""

MIN_BLOCK, MAX_BLOCK = 32, 512
"""Fewer settings leave the per-round Python cost unshared; more gain nothing measurable."""


def choose_block(n_labels: int, n_features: int, cache_budget: int = CACHE_BUDGET,
                 memory_budget: int = MEMORY_BUDGET) -> int:
    """
    Return how many settings to step together, from the size of their state.

    A setting's state is ``mu`` and ``sigma``, ``2 K d`` float64.  The block is as large as
    fits ``cache_budget`` (a larger one streams its state from memory twice per round),
    within ``MIN_BLOCK..MAX_BLOCK``, and never holds more than ``memory_budget``.  Measured
    in docs/benchmarks.md (d 64..4096, K 5..1000).
    """
    per_setting = 2 * int(n_labels) * int(n_features) * 8
    block = min(MAX_BLOCK, max(MIN_BLOCK, int(cache_budget) // per_setting))
    return int(max(1, min(block, int(memory_budget) // per_setting)))


def _run_task(args) -> Dict[str, np.ndarray]:
    """Run one block of settings over one stream (a unit of work for a worker process)."""
    X, stream, rates, n_labels, eta, C, k, variant, diagonal, no_weight = args
    rho0, rho1, no_answer = rates
    grid = UCWLGrid(n_labels, X.shape[1], eta, C, k, [stream.seed] * len(eta), variant,
                    diagonal, no_weight)
    n = len(stream.order)
    wrong_obs = np.zeros(len(eta), dtype=np.int64)
    wrong_true = np.zeros(len(eta), dtype=np.int64)
    flip_if_right, flip_if_wrong = rho1, rho0
    for t in range(n):
        x = X[stream.order[t]]
        chosen = grid.select(x)
        y_obs = stream.y_obs[t]
        right = chosen == y_obs
        wrong_obs += ~right
        wrong_true += chosen != stream.y_true[t]
        if stream.u_silent[t] < no_answer:
            continue
        u = stream.u_flip[t]
        if flip_if_right == 0.0 and flip_if_wrong == 0.0:
            said = right
        else:
            said = right != (u < np.where(right, flip_if_right, flip_if_wrong))
        grid.learn(x, chosen, said)
    return {'mistakes_observed': wrong_obs, 'mistakes_true': wrong_true,
            'updates': grid.n_updates.copy()}


def run_grid(X: np.ndarray, streams: Sequence, teacher, n_labels: int,
             eta: Sequence[float], C: Sequence[float], k: Sequence[float],
             variant: str = 'scw1', diagonal: str = 'precision',
             block: Optional[int] = None, jobs: int = 1,
             progress=None, no_weight: str = 'equal') -> Dict[str, np.ndarray]:
    """
    Run S settings of diagonal UCWL over P streams of the evaluation protocol.

    Each (setting, stream) pair behaves exactly like ``evaluation.run_learner('ucwl', ...)``
    with the stream's seed.  Work is split into blocks of ``block`` settings per stream
    (state of a block: block x K x d x 16 bytes; by default sized from the memory
    budgets of ``choose_block``) and the blocks can run in ``jobs`` worker
    processes.

    Parameters
    ----------
    X : numpy.ndarray
        Features, n x d.
    streams : sequence of evaluation.Stream
        The permutations with the person's randomness.
    teacher : TeacherModel
        Flip rates and no-answer probability (label noise is already in the streams).
    n_labels : int
        Number of labels.
    eta, C, k : sequence of float
        One value per setting.
    variant : {'scw1', 'scw2'}
        SCW step size.
    diagonal : {'precision', 'variance'}
        Diagonalisation step.
    block : int, optional
        Settings stepped together (default: ``choose_block(n_labels, d)``).
    jobs : int
        Worker processes (1 runs in this process).
    progress : callable, optional
        Called with the number of (setting, stream) runs finished after each block.
    no_weight : {'equal', 'balanced'}
        Cap of a "no" step (``UCWL``'s ``no_weight``).

    Returns
    -------
    dict
        ``mistakes_observed``, ``mistakes_true``, ``updates``: arrays of shape (S, P).

    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    eta = np.asarray(eta, dtype=np.float64)
    C = np.asarray(C, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    S, P = len(eta), len(streams)
    rates = (float(teacher.rho0), float(teacher.rho1), float(teacher.no_answer))
    block = choose_block(n_labels, X.shape[1]) if block is None else max(int(block), 1)
    tasks, where = [], []
    for p, stream in enumerate(streams):
        for lo in range(0, S, block):
            hi = min(S, lo + block)
            tasks.append((X, stream, rates, n_labels, eta[lo:hi], C[lo:hi], k[lo:hi], variant,
                          diagonal, no_weight))
            where.append((p, lo, hi))
    out = {name: np.zeros((S, P), dtype=np.int64)
           for name in ('mistakes_observed', 'mistakes_true', 'updates')}

    def store(i, res):
        p, lo, hi = where[i]
        for name, arr in res.items():
            out[name][lo:hi, p] = arr
        if progress:
            progress(hi - lo)

    if jobs <= 1 or len(tasks) == 1:
        for i, task in enumerate(tasks):
            store(i, _run_task(task))
    else:
        import concurrent.futures
        import multiprocessing
        ctx = multiprocessing.get_context('fork')
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            futures = {pool.submit(_run_task, task): i for i, task in enumerate(tasks)}
            for fut in concurrent.futures.as_completed(futures):
                store(futures[fut], fut.result())
    return out
