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
A block of UCWL settings over a whole stream in one compiled loop, the settings innermost.

``UCWLGrid`` keeps its state as settings x labels x features and sums one row after the
other, one Python call per round.  Here ``mu`` and ``sigma`` are labels x features x
settings: each multiply-add of a dot product is done for every setting of the block by one
loop over contiguous memory, which the compiler turns into vector instructions.  Each
setting's sum keeps its own order of additions (the 8 running sums and the rest left to
right of ``reductions.block_dot``, numpy's pairwise order), because the vector lanes are
different settings, never parts of one sum: the values are ``UCWLGrid``'s bit for bit.
The rounds run inside the compiled loop too; Python sees a round only when a setting's
largest bound or score is shared, and draws it with that setting's own generator as
``UCWLGrid`` does.  The learned rows' steps are ``ucwl_kernels.learn_diag``'s, its step
size and entries (``step_size``, ``sigma_step``) taken for every setting of the block at
once.

Used by ``ucwl_grid_run.run_block`` when numba is there, for up to ``reductions.BLOCK``
features (longer vectors are summed in halves: ``UCWLGrid`` steps them), and only after
``disagreement`` found it equal to the numpy grid.
"""

import math
from typing import Callable, Dict, NamedTuple, Optional, Sequence

import numpy as np

from ..algorithms import ucwl_kernels
from ..algorithms.reductions import BLOCK
from ..algorithms.ucwl import RAMP_ANSWERS as RAMP

LANES = 8
"""Settings per vector of float64 on AVX-512; blocks are cut in multiples of it."""

WORK_ROWS = 21
"""Scratch rows of ``run_rounds``: 16 running sums, x^2, the largest bounds and scores, steps."""

SUB_BUDGET = 32 * 2 ** 10
"""Bytes of running sums a sub-block keeps (``sub_block``)."""


def sums(x, xx, nz, n_nz, mu, sigma, acc, picked, scores, variances) -> None:
    """
    Fill ``scores = mu_i . x`` and ``variances = sigma_i . x^2`` for every label and setting.

    ``mu`` and ``sigma`` are features x (labels x settings), ``scores`` and ``variances``
    (labels x settings), flat; ``acc`` holds 16 running sums of each, ``picked`` is
    scratch; ``nz[:n_nz]`` are the features where x is not 0, in increasing order.  Each
    sum is ``reductions.block_dot``'s, then ``0.0 +`` as ``pairwise_dot``: running sum r
    adds the products of the features j = r mod 8 in increasing order (four per pass
    over the settings, one after the other).  A feature where x is 0 adds a product of 0
    (``mu`` and ``sigma`` are finite), which changes a running sum at most in the sign of
    a zero, and ``0.0 +`` makes every zero +0.0: leaving those features out (and starting
    each running sum at its first product instead of at a product of 0) gives the same
    bits.
    """
    d, n = mu.shape
    end = d - d % 8 if d >= 8 else 0
    split = 0
    while split < n_nz and nz[split] < end:
        split += 1
    for r in range(8 if d >= 8 else 0):  # sum r takes the features j = r mod 8, in order
        m = 0
        for jj in range(split):
            if nz[jj] % 8 == r:
                picked[m] = nz[jj]
                m += 1
        a, b = acc[r], acc[8 + r]
        if m == 0:
            a[:n] = 0.0
            b[:n] = 0.0
            continue
        j = picked[0]
        x0, q0, m0, s0 = x[j], xx[j], mu[j], sigma[j]
        for q in range(n):
            a[q] = m0[q] * x0
            b[q] = s0[q] * q0
        t = 1
        while t + 3 < m:  # four features per pass: one load and store of the sums
            j0, j1, j2, j3 = picked[t], picked[t + 1], picked[t + 2], picked[t + 3]
            x0, x1, x2, x3 = x[j0], x[j1], x[j2], x[j3]
            q0, q1, q2, q3 = xx[j0], xx[j1], xx[j2], xx[j3]
            m0, m1, m2, m3 = mu[j0], mu[j1], mu[j2], mu[j3]
            s0, s1, s2, s3 = sigma[j0], sigma[j1], sigma[j2], sigma[j3]
            for q in range(n):
                a[q] = (((a[q] + m0[q] * x0) + m1[q] * x1) + m2[q] * x2) + m3[q] * x3
                b[q] = (((b[q] + s0[q] * q0) + s1[q] * q1) + s2[q] * q2) + s3[q] * q3
            t += 4
        while t < m:
            j = picked[t]
            x0, q0, m0, s0 = x[j], xx[j], mu[j], sigma[j]
            for q in range(n):
                a[q] += m0[q] * x0
                b[q] += s0[q] * q0
            t += 1
    if d >= 8:
        for q in range(n):
            scores[q] = ((acc[0, q] + acc[1, q]) + (acc[2, q] + acc[3, q])) + (
                (acc[4, q] + acc[5, q]) + (acc[6, q] + acc[7, q]))
            variances[q] = ((acc[8, q] + acc[9, q]) + (acc[10, q] + acc[11, q])) + (
                (acc[12, q] + acc[13, q]) + (acc[14, q] + acc[15, q]))
    else:
        scores[:] = 0.0
        variances[:] = 0.0
    for jj in range(split, n_nz):  # the rest, left to right
        j = nz[jj]
        row_mu, row_sigma = mu[j], sigma[j]
        xj, qj = x[j], xx[j]
        for q in range(n):
            scores[q] += row_mu[q] * xj
            variances[q] += row_sigma[q] * qj
    for q in range(n):
        scores[q] = 0.0 + scores[q]
        variances[q] = 0.0 + variances[q]


def choose(scores, variances, k, bounds, chosen, top, n_top, greedy, top_score,
           n_greedy, plain) -> bool:
    """
    Fill the bounds and each setting's first largest one; True when any setting has a tie.

    ``ucwl_kernels.select_diag`` per setting (labels x settings here), the largest bound
    and score kept in ``top`` and ``top_score``: a tie of the bounds or of the scores is
    left to the caller, which draws it.  ``plain`` is 0 for a setting with a NaN bound or
    score (which the caller's ties treat as numpy's ``max`` does), else 1.
    """
    n_labels, n = scores.shape
    for i in range(n_labels):
        score, variance, bound = scores[i], variances[i], bounds[i]
        for s in range(n):
            bound[s] = score[s] + k[s] * math.sqrt(max(variance[s], 0.0))
    for s in range(n):
        chosen[s] = 0
        greedy[s] = 0
        top[s] = bounds[0, s]
        top_score[s] = scores[0, s]
    for i in range(1, n_labels):
        score, bound = scores[i], bounds[i]
        for s in range(n):
            if bound[s] > top[s]:
                chosen[s] = i
                top[s] = bound[s]
            if score[s] > top_score[s]:
                greedy[s] = i
                top_score[s] = score[s]
    for s in range(n):
        n_top[s] = 0
        n_greedy[s] = 0
        plain[s] = 1
    for i in range(n_labels):
        score, bound = scores[i], bounds[i]
        for s in range(n):
            n_top[s] += bound[s] == top[s]
            n_greedy[s] += score[s] == top_score[s]
            if bound[s] != bound[s] or score[s] != score[s]:
                plain[s] = 0
    tied = False
    for s in range(n):
        tied |= n_top[s] > 1 or n_greedy[s] > 1
    return tied


def run_rounds(X, order, y_obs, y_true, u_silent, u_flip, rates, t, resume, mu, sigma, k,
               params, work, ints, scores, variances, bounds, counts, answers, ramp) -> int:
    """
    Run rounds from ``t`` to the stream's end; return the first round with a tie, or its end.

    ``resume`` continues round ``t`` after the caller drew its ties: ``ints[7]`` (one
    of the largest bounds, counted in label order; -1: none) or ``ints[0]`` (``chosen``).
    ``rates`` = (rho0, rho1, no_answer); ``counts`` = (mistakes observed, mistakes true,
    updates) per setting; ``work`` (``WORK_ROWS`` rows) and ``ints`` (8) are scratch.
    ``ramp`` > 0 (K - 2, ``no_weight`` 'ramp'): each setting's cap of a "no"
    (``params[s, 8]``) follows its chosen label's ``answers`` as ``UCWLGrid.learn`` sets it.
    Each round is ``ucwl_grid_run.run_block``'s: select, count, the person's answer, then
    ``ucwl_kernels.learn_diag`` on each setting's chosen row, its steps taken for all
    settings at once: the step sizes, then whether every step is finite, then the
    entries, each a loop over the settings for one feature.  Features where x is 0 are
    left out: the step leaves their ``mu`` and ``sigma`` as they are, bit for bit.
    """
    n_rounds, d, n_labels, n = order.shape[0], X.shape[1], scores.shape[0], k.shape[0]
    flat = n_labels * n
    mu_flat, sigma_flat = mu.reshape((d, flat)), sigma.reshape((d, flat))
    scores_flat, variances_flat = scores.reshape(flat), variances.reshape(flat)
    acc, xx, top, top_score = work[:16], work[16, :d], work[17, :n], work[18, :n]
    az, coefficient = work[19, :n], work[20, :n]
    chosen, greedy, n_top, n_greedy, nz, picked = ints[0], ints[1], ints[2], ints[3], \
        ints[4], ints[5]
    plain, draws = ints[6], ints[7]
    rho0, rho1, no_answer = rates[0], rates[1], rates[2]
    precision = n > 0 and params[0, 6] != 0.0  # one diagonal step for the block
    while t < n_rounds:
        x = X[order[t]]
        n_nz = 0
        for j in range(d):
            xx[j] = x[j] * x[j]
            if x[j] != 0.0:
                nz[n_nz] = j
                n_nz += 1
        if not resume:
            _sums(x, xx, nz, n_nz, mu_flat, sigma_flat, acc, picked, scores_flat,
                  variances_flat)
            if _choose(scores, variances, k, bounds, chosen, top, n_top, greedy, top_score,
                       n_greedy, plain):
                return t
        else:  # the caller drew ties: draws[s] = which of the largest bounds, in label order
            for s in range(n):
                if draws[s] >= 0:
                    left = draws[s]
                    for i in range(n_labels):
                        if bounds[i, s] == top[s]:
                            if left == 0:
                                chosen[s] = i
                                break
                            left -= 1
        resume = False
        label, truth = y_obs[t], y_true[t]
        learn = not u_silent[t] < no_answer
        u = u_flip[t]
        stepping = False
        for s in range(n):
            c = chosen[s]
            right = c == label
            if not right:
                counts[0, s] += 1
            if c != truth:
                counts[1, s] += 1
            az[s] = 0.0
            if not learn:
                continue
            said = right
            if rho0 != 0.0 or rho1 != 0.0:
                said = right != (u < (rho1 if right else rho0))
            if ramp > 0.0:  # UCWLGrid.learn's float operations, then the answer counted
                had = answers[c, s]
                params[s, 8] = params[s, 4] / math.sqrt(1.0 + ramp * (had / (had + RAMP)))
                answers[c, s] = had + 1.0
            z = 1.0 if said else -1.0
            alpha, coefficient[s] = _step_size(z, z * scores[c, s], variances[c, s], params[s])
            if alpha > 0.0:
                az[s] = alpha * z
                stepping = True
        if not stepping:
            t += 1
            continue
        for jj in range(n_nz):  # learn_diag refuses a step with a non-finite entry
            j = nz[jj]
            xj = x[j]
            for s in range(n):
                if az[s] != 0.0 and not math.isfinite(az[s] * (sigma[j, chosen[s], s] * xj)):
                    az[s] = 0.0
        for jj in range(n_nz):
            j = nz[jj]
            xj = x[j]
            for s in range(n):
                if az[s] != 0.0:
                    c = chosen[s]
                    sx = sigma[j, c, s] * xj
                    mu[j, c, s] += az[s] * sx
                    sigma[j, c, s] = _sigma_step(sigma[j, c, s], sx, xj, coefficient[s],
                                                 precision)
        for s in range(n):
            if az[s] != 0.0:
                counts[2, s] += 1
        t += 1
    return n_rounds


class RoundKernels(NamedTuple):
    """``run_rounds``, compiled."""

    run: Callable


# What run_rounds calls: these functions, or compiled (``round_kernels``).
_sums, _choose = sums, choose
_step_size, _sigma_step = ucwl_kernels.step_size, ucwl_kernels.sigma_step


def sub_block(n_labels: int, budget: int = SUB_BUDGET) -> int:
    """
    Return how many settings one pass over the stream steps: a multiple of ``LANES``.

    The 16 running sums of a sub-block (16 x labels x settings float64) stay within
    ``budget`` bytes, so that they stay in the fastest cache.
    """
    return max(LANES, budget // (16 * 8 * int(n_labels)) // LANES * LANES)


class StreamBlock:
    """
    A block of settings part way through one stream: ``run_rounds``' state, resumable.

    ``advance(stop)`` runs rounds up to ``stop`` (drawing ties as ``run_stream`` says), and
    ``join`` regroups the settings of several blocks between rounds, so that blocks stay
    dense when some of their settings are stopped (``ucwl_grid_prune``).  ``ids`` names
    each setting (its generator for ties is keyed by it, so dropping others never changes
    its draws).
    """

    def __init__(self, kernels: RoundKernels, X: np.ndarray, order, y_obs, y_true, u_silent,
                 u_flip, rates: Sequence[float], seed: int, k: np.ndarray, params: np.ndarray,
                 n_labels: int, no_weight: str = 'equal', ids=None) -> None:
        n, d = len(k), X.shape[1]
        self.kernels, self.X, self.seed, self.n_labels = kernels, X, seed, n_labels
        self.params = np.array(params, dtype=np.float64)  # its caps change with 'ramp'
        self.ramp = float(n_labels - 2) if no_weight == 'ramp' and n_labels > 2 else 0.0
        self.answers = np.zeros((n_labels, n))
        self.mu = np.zeros((d, n_labels, n))
        self.sigma = np.ones((d, n_labels, n))
        self.work = np.empty((WORK_ROWS, max(n_labels * n, d)))
        self.ints = np.empty((8, max(n, d)), dtype=np.int64)
        self.counts = np.zeros((3, n), dtype=np.int64)
        self.rates = np.asarray(rates, dtype=np.float64)
        self.k = np.ascontiguousarray(k, dtype=np.float64)
        self.ids = np.arange(n) if ids is None else np.asarray(ids, dtype=np.int64)
        self.rngs: Dict[int, np.random.Generator] = {}
        self.order = np.ascontiguousarray(order, dtype=np.int64)
        self.arrays = (np.asarray(y_obs, dtype=np.int64), np.asarray(y_true, dtype=np.int64),
                       np.asarray(u_silent, dtype=np.float64),
                       np.asarray(u_flip, dtype=np.float64))
        self.t = 0
        self._outputs()

    def _outputs(self) -> None:
        self.scores, self.variances, self.bounds = (
            np.empty((self.n_labels, len(self.k))) for _ in range(3))

    def advance(self, stop: int) -> None:
        """Run the rounds from ``self.t`` to ``stop`` (at most the stream's end)."""
        stop = min(int(stop), len(self.order))
        order, n, resume = self.order[:stop], len(self.k), False
        while self.t < stop:
            self.t = self.kernels.run(
                self.X, order, *self.arrays, self.rates, self.t, resume, self.mu, self.sigma,
                self.k, self.params, self.work, self.ints, self.scores, self.variances,
                self.bounds, self.counts, self.answers, self.ramp)
            if self.t >= stop:
                break
            chosen, n_top, n_greedy, plain, draws = self.ints[0], self.ints[2], \
                self.ints[3], self.ints[6], self.ints[7]
            draws[:n] = -1
            for s in np.flatnonzero((n_top[:n] > 1) | (n_greedy[:n] > 1)).tolist():
                # UCWLGrid._select_compiled's draws, in its order, by the setting's generator.
                rng = self.rngs.get(int(self.ids[s]))
                if rng is None:
                    rng = self.rngs[int(self.ids[s])] = np.random.default_rng(self.seed)
                if plain[s]:  # no NaN: the counts are those of bounds == bounds.max()
                    if n_top[s] > 1:
                        draws[s] = rng.integers(n_top[s])
                    if n_greedy[s] > 1:
                        rng.integers(n_greedy[s])
                    continue
                column, score = self.bounds[:, s], self.scores[:, s]
                best = np.flatnonzero(column == column.max())
                if best.size > 1:
                    chosen[s] = best[rng.integers(best.size)]
                tied = np.count_nonzero(score == score.max())
                if tied > 1:
                    rng.integers(tied)
            resume = True

    @classmethod
    def join(cls, parts) -> 'StreamBlock':
        """Return one block of the settings each (block, mask) of ``parts`` keeps."""
        first = parts[0][0]
        if any(b.t != first.t or b.X is not first.X or b.seed != first.seed for b, _ in parts):
            raise ValueError('only blocks at the same round of the same stream join')
        new = cls.__new__(cls)
        new.__dict__.update(first.__dict__)
        for name, axis in (('mu', 2), ('sigma', 2), ('answers', 1), ('counts', 1),
                           ('params', 0), ('k', 0), ('ids', 0)):
            new.__dict__[name] = np.ascontiguousarray(np.concatenate(
                [np.compress(mask, getattr(b, name), axis=axis) for b, mask in parts],
                axis=axis))
        new.rngs = {}
        for b, _ in parts:
            new.rngs.update(b.rngs)
        new.rngs = {i: new.rngs[i] for i in new.ids.tolist() if i in new.rngs}
        new.work = np.empty((WORK_ROWS, max(new.n_labels * len(new.k), new.X.shape[1])))
        new.ints = np.empty((8, max(len(new.k), new.X.shape[1])), dtype=np.int64)
        new._outputs()
        return new


def run_stream(kernels: RoundKernels, X: np.ndarray, order, y_obs, y_true, u_silent, u_flip,
               rates: Sequence[float], seed: int, k: np.ndarray, params: np.ndarray,
               n_labels: int, state: bool = False,
               no_weight: str = 'equal') -> Dict[str, np.ndarray]:
    """
    Run one block of settings (``params`` rows: ``ucwl_kernels.learn_params``) over a stream.

    Returns ``mistakes_observed``, ``mistakes_true`` and ``updates`` per setting, those of
    ``ucwl_grid_run.run_block`` on the same block; with ``state``, also ``mu`` and ``sigma``
    laid out as ``UCWLGrid``'s (settings x labels x features). ``no_weight`` 'ramp' moves
    each cap of a "no" with its label's answers; the others are fixed in ``params``.
    """
    block = StreamBlock(kernels, X, order, y_obs, y_true, u_silent, u_flip, rates, seed, k,
                        params, n_labels, no_weight)
    block.advance(len(order))
    counts = block.counts
    out = {'mistakes_observed': counts[0], 'mistakes_true': counts[1], 'updates': counts[2]}
    if state:
        out['mu'], out['sigma'] = block.mu.transpose(2, 1, 0), block.sigma.transpose(2, 1, 0)
    return out


def _build() -> RoundKernels:
    global _sums, _choose, _step_size, _sigma_step
    _step_size, _sigma_step = ucwl_kernels._step_size, ucwl_kernels._sigma_step
    jit = ucwl_kernels.jit
    _sums, _choose = jit(sums), jit(choose)  # run_rounds calls them compiled
    return RoundKernels(jit(run_rounds))


_COMPILED = ucwl_kernels.CompiledOnce(  # disagreement is defined below
    _build, lambda kernels: disagreement(kernels), 'UCWL grid rounds')


def round_kernels(n_features: int = BLOCK) -> Optional[RoundKernels]:
    """
    Return the compiled rounds loop, or None (no numba, or not bit for bit the numpy grid).

    None as well for more than ``reductions.BLOCK`` features, which numpy sums in halves.

    Built on ``ucwl_kernels.compiled()`` when its dot products are the fused, checked ones;
    ``disagreement`` compares it with the numpy ``UCWLGrid`` before it is used.
    """
    return None if n_features > BLOCK else _COMPILED.get()


def disagreement(kernels: RoundKernels, seed: int = 0) -> str:
    """
    Return '' when ``kernels`` count what the numpy ``UCWLGrid`` counts, bit for bit.

    Random streams with noisy and silent answers: SCW-I and SCW-II, both diagonals, ties
    at the start and with k = 0, one label, 1..128 features, blocks not a multiple of
    ``LANES``; mistakes and updates per setting, and the learned state.
    """
    from .ucwl_grid import UCWLGrid
    rng = np.random.default_rng(seed)
    eta = [0.95, 0.55, 0.75, 0.6, 0.9, 0.8, 0.7, 0.65, 0.85]
    C = [1.0, 2.0 ** -5, 32.0, 4.0, 0.5, 2.0, 8.0, 0.25, 16.0]
    k = [2.8, 0.2, 1.4, 0.0, 3.0, 1.0, 2.0, 0.6, 0.0]
    cases = ((3, 7, 'scw1', 'precision'), (5, 128, 'scw2', 'variance'),
             (1, 20, 'scw1', 'variance'), (4, 33, 'scw2', 'precision'),
             (10, 64, 'scw1', 'precision'), (2, 8, 'scw1', 'variance'))
    rates = (0.1, 0.2, 0.1)
    for case, (n_labels, d, variant, diagonal) in enumerate(cases):
        no_weight = 'ramp' if case % 2 else 'equal'
        X = rng.random((40, d)) * (rng.random((40, d)) < 0.6)
        order = rng.permutation(np.repeat(np.arange(40), 2))
        y_true = rng.integers(n_labels, size=len(order))
        y_obs = np.where(rng.random(len(order)) < 0.1, rng.integers(n_labels), y_true)
        u_silent, u_flip = rng.random(len(order)), rng.random(len(order))
        grid = UCWLGrid(n_labels, d, eta, C, k, [seed] * len(eta), variant, diagonal,
                        no_weight, compiled=False)
        expected = np.zeros((3, len(eta)), dtype=np.int64)
        for t, row in enumerate(order):
            chosen = grid.select(X[row])
            expected[0] += chosen != y_obs[t]
            expected[1] += chosen != y_true[t]
            if u_silent[t] < rates[2]:
                continue
            right = chosen == y_obs[t]
            grid.learn(X[row], chosen, right != (u_flip[t] < np.where(right, rates[1],
                                                                      rates[0])))
        got = run_stream(kernels, X, order, y_obs, y_true, u_silent, u_flip, rates, seed,
                         np.array(k), grid.setting_params(), n_labels, state=True,
                         no_weight=no_weight)
        expected[2] = grid.n_updates
        if not np.array_equal(expected, np.array([got['mistakes_observed'],
                                                  got['mistakes_true'], got['updates']])):
            return f'counts at K={n_labels}, d={d}'
        if not (np.array_equal(got['mu'], grid.mu) and np.array_equal(got['sigma'], grid.sigma)):
            return f'state at K={n_labels}, d={d}'
    return ''
