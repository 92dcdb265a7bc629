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
The settings-innermost rounds loop (``ucwl_grid_rounds``) driven over a stream from Python.

``run_stream`` runs one block of settings over a whole stream; ``StreamBlock`` does it in
steps and can regroup its settings between rounds (``ucwl_grid_prune``).  Each setting's
generator for ties is ``UCWLGrid``'s, ``default_rng(stream seed)``, kept as the list of its
32-bit outputs (``tie_draws``, the same for the settings of a stream) and the setting's
position in it, so the compiled loop draws the ties itself; ``disagreement`` checks the
whole against the numpy ``UCWLGrid`` (with numpy's generators) before the loop is used.
"""

from typing import Dict, Optional, Sequence

import numpy as np

from .ucwl_grid_rounds import build, draw, INT_ROWS, RoundKernels, WORK_ROWS
from ..algorithms.reductions import BLOCK
from ..engine import compilation


def tie_draws(seed: int, n: int) -> np.ndarray:
    """Return the first ``n`` (rounded up to even) 32-bit outputs of ``default_rng(seed)``."""
    raw = np.random.default_rng(seed).bit_generator.random_raw(-(-int(n) // 2))
    out = np.empty(2 * len(raw), dtype=np.uint64)
    out[0::2] = raw & np.uint64(0xFFFFFFFF)  # numpy's next_uint32: the low half first
    out[1::2] = raw >> np.uint64(32)
    return out


class StreamBlock:
    """
    A block of settings part way through one stream: ``run_rounds``' state, resumable.

    ``advance(stop)`` runs rounds up to ``stop`` (drawing ties as ``run_stream`` says), and
    ``join`` regroups the settings of several blocks between rounds, so that blocks stay
    dense when some of their settings are stopped (``ucwl_grid_prune``).  ``ids`` names
    each setting; ``at`` is where its generator stands in ``U``, and moves with it.
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
        self.ints = np.empty((INT_ROWS, max(n, d)), dtype=np.int64)
        self.counts = np.zeros((3, n), dtype=np.int64)
        self.rates = np.asarray(rates, dtype=np.float64)
        self.k = np.ascontiguousarray(k, dtype=np.float64)
        self.ids = np.arange(n) if ids is None else np.asarray(ids, dtype=np.int64)
        self.order = np.ascontiguousarray(order, dtype=np.int64)
        self.U = tie_draws(seed, 2 * len(self.order) + 64)  # two draws a round suffice
        self.at = np.zeros(n, dtype=np.int64)
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
                self.bounds, self.counts, self.answers, self.ramp, self.U, self.at)
            if self.t >= stop:
                break
            chosen, n_top, n_greedy, plain, draws = self.ints[0], self.ints[2], \
                self.ints[3], self.ints[6], self.ints[7]
            draws[:n] = -1
            for s in np.flatnonzero((n_top[:n] > 1) | (n_greedy[:n] > 1)).tolist():
                # UCWLGrid._select_compiled's draws, in its order, by the setting's generator.
                if plain[s]:  # no NaN: the counts are those of bounds == bounds.max()
                    if n_top[s] > 1:
                        draws[s] = self._draw(s, n_top[s])
                    if n_greedy[s] > 1:
                        self._draw(s, n_greedy[s])
                    continue
                column, score = self.bounds[:, s], self.scores[:, s]
                best = np.flatnonzero(column == column.max())
                if best.size > 1:
                    chosen[s] = best[self._draw(s, best.size)]
                tied = np.count_nonzero(score == score.max())
                if tied > 1:
                    self._draw(s, tied)
            resume = True

    def _draw(self, s: int, m: int) -> int:
        """``integers(m)`` of setting ``s``'s generator (``U`` grows when it runs out)."""
        value, at = draw(self.U, int(self.at[s]), int(m))
        while at < 0:
            self.U = tie_draws(self.seed, 2 * len(self.U))
            value, at = draw(self.U, int(self.at[s]), int(m))
        self.at[s] = at
        return int(value)

    @classmethod
    def join(cls, parts) -> 'StreamBlock':
        """Return one block of the settings each (block, mask) of ``parts`` keeps."""
        first = parts[0][0]
        if any(b.t != first.t or b.X is not first.X or b.seed != first.seed for b, _ in parts):
            raise ValueError('only blocks at the same round of the same stream join')
        new = cls.__new__(cls)
        new.__dict__.update(first.__dict__)
        for name, axis in (('mu', 2), ('sigma', 2), ('answers', 1), ('counts', 1),
                           ('params', 0), ('k', 0), ('ids', 0), ('at', 0)):
            new.__dict__[name] = np.ascontiguousarray(np.concatenate(
                [np.compress(mask, getattr(b, name), axis=axis) for b, mask in parts],
                axis=axis))
        new.U = max((b.U for b, _ in parts), key=len)  # prefixes of one sequence
        new.work = np.empty((WORK_ROWS, max(new.n_labels * len(new.k), new.X.shape[1])))
        new.ints = np.empty((INT_ROWS, max(len(new.k), new.X.shape[1])), dtype=np.int64)
        new._outputs()
        return new


def run_stream(kernels: RoundKernels, X: np.ndarray, order, y_obs, y_true, u_silent, u_flip,
               rates: Sequence[float], seed: int, k: np.ndarray, params: np.ndarray,
               n_labels: int, state: bool = False,
               no_weight: str = 'equal') -> Dict[str, np.ndarray]:
    """
    Run one block of settings (``params``: ``engine.ucwl_kernels.learn_params``) over a stream.

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


_COMPILED = compilation.CompiledOnce(  # disagreement is defined below
    build, lambda kernels: disagreement(kernels), 'UCWL grid rounds')


def round_kernels(n_features: int = BLOCK) -> Optional[RoundKernels]:
    """
    Return the compiled rounds loop, or None (no numba, or not bit for bit the numpy grid).

    None as well for more than ``reductions.BLOCK`` features, which numpy sums in halves.

    Built on ``engine.compilation.compiled()`` when its dot products are the fused, checked ones;
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
