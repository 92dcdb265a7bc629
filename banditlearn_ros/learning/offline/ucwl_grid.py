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

Exactness.  The decisions are bit-for-bit those of ``learning.algorithms.ucwl.UCWL`` with
``covariance='diag'`` and the same seed, because every floating-point value is computed
by the same operation in the same order:

- the per-label scores and variances, and the learned row's margin and variance, are
  ``reductions.row_dots`` over the last axis of the stacked arrays, which sums every
  (setting, label) row exactly as the reference sums its rows, in numpy's fixed
  pairwise order (the same bits on every CPU, unlike BLAS);
- the scalar formulas of ``confidence_weighted`` are written out with the same
  association, and ``x ** 2`` is Python's float ``**`` (libm ``pow``) rather than
  ``x * x``, which differs from ``pow`` in about 1 in 1000 values, or ``np.power``,
  which numpy may dispatch to a SIMD kernel (27 % of values differed on an AVX-512 CPU);
- ties (argmax over several equal values) are broken with one ``numpy.random.Generator``
  per setting seeded like the reference learner and drawn in the same order (the UCB
  argmax, then the greedy argmax the reference computes for its ``Prediction``).

``test/test_ucwl_grid.py`` checks equality of every decision and update count, and
the compiled block steps (``select_block``, ``learn_block``, used when numba is there)
against this numpy code bit for bit; run it after a numpy upgrade.  Only the diagonal
covariance is supported (the paper's experimental choice), with either diagonalisation step
(``diagonal``); the full covariance costs d x d per label and is left to the reference class.
``ucwl_grid_run.run_grid`` runs grids over the offline protocol's streams.
"""

from typing import Dict, Optional, Sequence

import numpy as np

from .ucwl_grid_blocks import build_blocks, GridKernels
from ..algorithms.base import HyperparameterError
from ..algorithms.confidence_weighted import (confidence_constants, DIAGONALS, FLOAT_MAX,
                                              SIGMA_FLOOR)
from ..algorithms.reductions import row_dots
from ..algorithms.ucwl import DEFAULT_NO_WEIGHT, no_cap, NO_WEIGHTS, RAMP_ANSWERS
from ..engine import compilation
from ..engine.ucwl_kernels import learn_params


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
    no_weight : {'ramp', 'equal', 'balanced', 'sqrt'}
        Cap of a "no" step, shared by every setting (``UCWL``'s ``no_weight``; its default).
    compiled : bool, optional
        Step the block with the compiled loops (``GridKernels``); default: when numba is
        there and they passed their check.  False keeps the numpy code.

    """

    def __init__(self, n_labels: int, n_features: int, eta: Sequence[float],
                 C: Sequence[float], k: Sequence[float], seeds: Sequence[int],
                 variant: str = 'scw1', diagonal: str = 'precision',
                 no_weight: str = DEFAULT_NO_WEIGHT, compiled: Optional[bool] = None):
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
        self.no_weight = no_weight
        # The answers each setting's labels have had (UCWL.answers), for 'ramp'.
        self.answers = np.zeros((n, self.n_labels))
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
        self._label_index = np.arange(self.n_labels, dtype=np.int64)[:, None]
        # Kept between rounds: the products (one array of mu's size, written in place each
        # round instead of two fresh ones) and the last select's sums, which learn reuses.
        self._work = np.empty_like(self.mu)
        self._scores = np.empty((n, self.n_labels))
        self._variances = np.empty((n, self.n_labels))
        self._selected: Optional[np.ndarray] = None
        self._kernels: Optional[GridKernels] = None
        kernels = grid_kernels() if compiled is None or compiled else None
        if kernels is not None:
            self._use(kernels)

    def _use(self, kernels: 'GridKernels') -> None:
        """Step with ``kernels`` from now on (with the buffers and constants they take)."""
        n = self.n_settings
        self._bounds = np.empty((n, self.n_labels))
        self._chosen = np.empty(n, dtype=np.int64)
        self._tied = np.empty(n, dtype=np.bool_)
        self._params = self.setting_params()
        self._kernels = kernels

    @property
    def compiled(self) -> bool:
        """Whether the grid steps with the compiled block steps (``grid_kernels``)."""
        return self._kernels is not None

    def setting_params(self) -> np.ndarray:
        """Return each setting's ``engine.ucwl_kernels.learn_params`` (settings x 9)."""
        return np.array([learn_params(
            self._phi[s], self._psi[s], self._xi[s], self.C[s], self.variant, self.diagonal,
            self.C_no[s]) for s in range(self.n_settings)])

    def _rng(self, s: int) -> np.random.Generator:
        rng = self._rngs.get(s)
        if rng is None:
            rng = self._rngs[s] = np.random.default_rng(self.seeds[s])
        return rng

    def _ties(self, values_t: np.ndarray):
        """Return (is_max, tied rows) for values laid out labels x settings."""
        is_max = values_t == values_t.max(axis=0)
        # count_nonzero counts in intp: a uint8 sum wraps at 256 labels.
        return is_max, np.flatnonzero(np.count_nonzero(is_max, axis=0) > 1)

    def select(self, x: np.ndarray) -> np.ndarray:
        """Return each setting's output label for x (UCWL.select, Algorithm 1 line 11)."""
        if self._kernels is not None:
            return self._select_compiled(x)
        # Each row summed as the reference sums it; the results are transposed to labels x
        # settings so reductions over labels run on long rows.
        row_dots(self.mu, x, self._work, self._scores)
        row_dots(self.sigma, x * x, self._work, self._variances)
        self._selected = x.copy()
        scores = np.ascontiguousarray(self._scores.T)
        var = np.ascontiguousarray(self._variances.T)
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
        if self.no_weight == 'ramp' and self.n_labels > 2:
            # Each setting's cap from its chosen label's answers, as no_cap computes it (the
            # same float operations), then the answers counted.
            chosen = np.asarray(chosen, dtype=np.int64)
            n = self.answers[self._rows, chosen]
            self.C_no = self.C / np.sqrt(1.0 + (self.n_labels - 2) * (n / (n + RAMP_ANSWERS)))
            if self._kernels is not None:
                self._params[:, 8] = self.C_no
        changed = self._learn(x, chosen, correct, active)
        counted = self._rows if active is None else self._rows[np.asarray(active, dtype=bool)]
        self.answers[counted, np.asarray(chosen)[counted]] += 1.0
        return changed

    def _learn(self, x: np.ndarray, chosen: np.ndarray, correct: np.ndarray,
               active: Optional[np.ndarray] = None) -> np.ndarray:
        if self._kernels is not None and self._selected is not None:
            return self._learn_compiled(x, chosen, correct, active)
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
        selected, self._selected = self._selected, None
        if selected is not None and np.array_equal(selected, x):
            # The chosen rows' sums from select: the same rows summed the same way.
            m = z * self._scores.reshape(-1).take(flat)
            v = self._variances.reshape(-1).take(flat)
        else:
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
            # Python's float ** (libm pow), as cw_beta: np.power dispatches to a SIMD kernel
            # that differed from pow in 27 % of values on an AVX-512 machine.
            u = 0.25 * np.array([value ** 2.0 for value in t.tolist()])
            beta = alpha * phi / (np.sqrt(u) + v * alpha * phi)
            sigma = sg_c[sel] - beta[:, None] * sx * sx
        sg_flat[f] = np.maximum(sigma, SIGMA_FLOOR)
        self.n_updates[r] += 1
        changed[r] = True
        return changed

    def _select_compiled(self, x: np.ndarray) -> np.ndarray:
        """``select`` through ``GridKernels.select``; ties drawn here, as the numpy code does."""
        x = np.ascontiguousarray(x, dtype=np.float64)
        chosen, tied = self._chosen, self._tied
        self._kernels.select(x, x * x, self.mu, self.sigma, self.k, self._scores,
                             self._variances, self._bounds, chosen, tied)
        self._selected = x.copy()
        chosen = chosen.copy()
        for s in np.flatnonzero(tied).tolist():
            bounds, scores = self._bounds[s], self._scores[s]
            best = np.flatnonzero(bounds == bounds.max())
            if best.size > 1:
                chosen[s] = best[self._rng(s).integers(best.size)]
            n_greedy = np.count_nonzero(scores == scores.max())
            if n_greedy > 1:
                self._rng(s).integers(n_greedy)
        return chosen

    def _learn_compiled(self, x: np.ndarray, chosen: np.ndarray, correct: np.ndarray,
                        active: Optional[np.ndarray]) -> np.ndarray:
        """``learn`` through ``GridKernels.learn``, on the sums of the last ``select``."""
        selected, self._selected = self._selected, None
        x = np.ascontiguousarray(x, dtype=np.float64)
        if not np.array_equal(selected, x):
            self._selected = None
            return self._learn(x, chosen, correct, active)
        z = np.where(correct, 1.0, -1.0)
        active = np.ones(self.n_settings, np.bool_) if active is None else np.asarray(
            active, dtype=np.bool_)
        changed = np.zeros(self.n_settings, dtype=np.bool_)
        self._kernels.learn(x, self.mu, self.sigma, np.asarray(chosen, dtype=np.int64), z,
                            active, self._scores, self._variances, self._params,
                            self.n_updates, changed)
        return changed


_COMPILED = compilation.CompiledOnce(  # disagreement is defined below
    build_blocks, lambda kernels: disagreement(kernels), 'UCWL grid steps')


def grid_kernels() -> Optional[GridKernels]:
    """
    Return the compiled block steps, or None (no numba, or not bit for bit the numpy code).

    They are built on ``engine.compilation.compiled()`` and only when its dot products are the
    fused, checked ones; ``disagreement`` then compares a compiled and a numpy grid over a
    short random stream before they are used.
    """
    return _COMPILED.get()


def disagreement(kernels: GridKernels, seed: int = 0) -> str:
    """
    Return '' when a grid on ``kernels`` takes the numpy grid's decisions bit for bit.

    Random streams (SCW-I and SCW-II, both diagonals, ties at the start and with k = 0,
    one label and a length beyond ``reductions.BLOCK``); decisions, update counts and state.
    """
    rng = np.random.default_rng(seed)
    eta, C, k = [0.95, 0.55, 0.75, 0.6], [1.0, 2.0 ** -5, 32.0, 4.0], [2.8, 0.2, 1.4, 0.0]
    cases = ((3, 7, 'scw1', 'precision'), (5, 130, 'scw2', 'variance'),
             (1, 20, 'scw1', 'variance'), (4, 33, 'scw2', 'precision'),
             (10, 64, 'scw1', 'precision'), (2, 128, 'scw1', 'variance'))
    for n_labels, d, variant, diagonal in cases:
        grids = [UCWLGrid(n_labels, d, eta, C, k, [seed] * 4, variant, diagonal,
                          compiled=False) for _ in range(2)]
        grids[1]._use(kernels)
        for t in range(60):
            x = rng.random(d) * (rng.random(d) < 0.6)
            label = int(rng.integers(n_labels))
            chosen = [g.select(x) for g in grids]
            if not np.array_equal(chosen[0], chosen[1]):
                return f'select at K={n_labels}, d={d}, round {t}'
            changed = [g.learn(x, c, c == label) for g, c in zip(grids, chosen)]
            if not np.array_equal(changed[0], changed[1]):
                return f'learn at K={n_labels}, d={d}, round {t}'
        if not (np.array_equal(grids[0].mu, grids[1].mu)
                and np.array_equal(grids[0].sigma, grids[1].sigma)
                and np.array_equal(grids[0].n_updates, grids[1].n_updates)):
            return f'state at K={n_labels}, d={d}'
    return ''
