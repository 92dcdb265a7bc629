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
``FastUCWL``: UCWL's plain algorithm (``algorithms/ucwl.py``) faster, the same values bit for bit.

The plain algorithm makes about a dozen numpy calls a round on a few hundred numbers, and
their overhead is the cost.  Two ways round it, chosen per round:

- the compiled steps (``ucwl_kernels``, numba): one call selects, one learns;
- without numba (or until it has compiled, ``compilation.deferring``), the numpy round on
  kept arrays (``round_buffers.RoundBuffers``): both sums of a round in one reduction, the
  bounds on Python floats, the sums ``select`` made kept for the ``learn`` of the same x,
  and the default step (SCW-I, precision diagonal) without its temporaries.

Every value is the plain algorithm's: the same operations on the same operands in the
same order, ties drawn from the same generator in the same order.  ``test/test_ucwl_kernels.py``
and ``test/test_ucwl_numpy_round.py`` hold both to the plain ``UCWL`` over long streams.
``plug`` moves a plain learner onto this engine; the saved state, the algorithm's name in
it and every public method are ``UCWL``'s.
"""

import math
from typing import Any, List, Optional

import numpy as np

from . import compilation
from .round_buffers import RoundBuffers
from .ucwl_kernels import Kernels, learn_params
from ..algorithms.base import HyperparameterError, Label, LearnerInputError, Prediction
from ..algorithms.confidence_weighted import (cw_gamma, precision_update,
                                              scw1_precision_coefficients)
from ..algorithms.reductions import CHUNK
from ..algorithms.ucwl import no_cap, UCWL

_FLOAT64 = np.dtype(np.float64)
_TRUE, _FALSE = np.True_, np.False_


def plug(learner: Any) -> Any:
    """
    Move a plain diagonal ``UCWL`` onto the fast engine, in place; return ``learner``.

    The object stays the same (its class becomes ``FastUCWL``, which only adds work
    arrays), so whoever holds it keeps the one learner; the next round runs on the engine
    with the same state and the same decisions.  Anything else (another algorithm, a full
    covariance, which has no faster path here, None) is returned unchanged.
    """
    if type(learner) is UCWL and learner.covariance == 'diag':
        learner.__class__ = FastUCWL
        learner._start_engine()
    return learner


def use_compiled(learner: Any) -> None:
    """Move ``learner`` to the compiled steps if it runs on the engine and they are loaded."""
    if isinstance(learner, FastUCWL):
        with compilation.deferring():  # never compiles here
            learner.use_compiled()


class FastUCWL(UCWL):
    """
    ``UCWL`` with the compiled steps when numba has them, else the numpy round.

    The constructor and every public method are ``UCWL``'s (diagonal covariance only).
    """

    def _validate(self) -> None:
        super()._validate()
        if self.covariance != 'diag':
            raise HyperparameterError("FastUCWL takes covariance='diag' only (use UCWL)")
        self._start_engine()

    def _start_engine(self) -> None:
        """Pick the steps (compiled when loaded) and set their constants."""
        self._kernels: Optional[Kernels] = compilation.compiled()
        self._few_calls = self.n_features <= CHUNK  # _select_sums
        self._scw1_precision = self._precision_diagonal and self.variant == 'scw1'
        self._x_shape = (self.n_features,)
        self._set_learn_params()
        self._buffers: Optional[RoundBuffers] = None
        self._selected: Optional[tuple] = None

    def _set_learn_params(self) -> None:
        """Set the kernels' constants (the cap of a "no" depends on the number of labels)."""
        self._C_no = no_cap(self.C, self.no_weight, len(self.labels))
        self._ramp_caps: List[float] = []  # no_cap(..., answers=n) at [n] (C and K fixed)
        self._learn_params = learn_params(self._phi, self._psi, self._xi, self.C,
                                          self.variant, self.diagonal, self._C_no)

    def use_compiled(self) -> bool:
        """
        Move to the compiled steps once ``compilation.compile_in_background`` has them.

        Returns whether they are in use.  Both compute the same values bit for bit, so a
        learner may switch between two rounds.
        """
        return self.use_kernels(compilation.compiled())

    def use_kernels(self, kernels: Optional[Kernels]) -> bool:
        """Run on ``kernels`` (None: the numpy round); return whether kernels are in use."""
        self._kernels = kernels
        if kernels is not None:
            self._buffers = None  # the numpy round's work arrays: not used again
        return kernels is not None

    @property
    def compiled(self) -> bool:
        """Return True while the compiled steps are in use."""
        return self._kernels is not None

    def add_label(self, name: str) -> int:
        """``UCWL.add_label``; the kernels' constants follow the new number of labels."""
        index = super().add_label(name)
        self._set_learn_params()
        return index

    def _no_step_cap(self, i: int) -> float:
        """``UCWL._no_step_cap``, each count's value computed once."""
        if self.no_weight != 'ramp':
            return self._C_no
        n, caps = self.answers[i], self._ramp_caps
        if n >= len(caps):
            caps.extend(no_cap(self.C, 'ramp', len(self.labels), a)
                        for a in range(len(caps), n + 1))
        self._C_no = caps[n]
        if self._kernels is not None:
            self._learn_params[8] = self._C_no
        return self._C_no

    def _valid(self, x: Any) -> np.ndarray:
        """Return x as ``check_x`` would, at no cost for a float64 vector of the right size."""
        if type(x) is np.ndarray and x.dtype is _FLOAT64 and x.shape == self._x_shape:
            return x
        return self.check_x(x)

    # -- select ------------------------------------------------------------------------
    def select(self, x: Any) -> Prediction:
        """``UCWL.select`` (Algorithm 1, lines 8-11), on the compiled steps or the numpy round."""
        if self._kernels is not None:
            prediction = self._select_compiled(self._valid(x))
        elif self._few_calls:
            prediction = self._select_sums(self._valid(x))
        else:
            return super().select(x)
        if prediction is None:
            raise LearnerInputError('features contain NaN or infinity')
        return prediction

    def select_valid(self, x: np.ndarray) -> Optional[Prediction]:
        """``BanditLearner.select_valid``, through the compiled steps once they are loaded."""
        if self._kernels is None:
            return super().select_valid(x)
        return self._select_compiled(x)

    def _select_compiled(self, x: np.ndarray) -> Optional[Prediction]:
        """
        ``select`` through ``ucwl_kernels``: same values, ties drawn as ``_argmax`` draws.

        None when x holds NaN or infinity (nothing changed, no random draw).
        """
        out = np.empty((2, len(self._mu)))
        best, n_best, greedy, n_greedy, top, explored = self._kernels.select(
            x, self._mu, self._sigma, self.k, out)
        if n_best == 1 and n_greedy == 1:  # no tie to draw (n_best is 0 when best < 0)
            return Prediction(best, self.labels[best], out[0], out[1], explored, greedy)
        if best < 0:
            if best == -1:
                return None
            if not x.flags.c_contiguous:
                return self._select_compiled(np.ascontiguousarray(x))
            if not np.isfinite(x).all():
                return None
            return UCWL.select(self, x)  # rows the kernels do not take (not contiguous)
        scores, bounds = out[0], out[1]
        if n_best > 1:
            best = int(np.flatnonzero(bounds == bounds[best])[self._rng.integers(n_best)])
            explored = bool(scores[best] < top)
        if n_greedy > 1:
            greedy = int(np.flatnonzero(scores == top)[self._rng.integers(n_greedy)])
        return Prediction(best, self.labels[best], scores, bounds, explored, greedy)

    def _select_sums(self, x: np.ndarray) -> Optional[Prediction]:
        """
        ``UCWL.select`` in fewer numpy calls, the same values; None when x is not finite.

        Both sums come from one reduction over the products of ``mu`` and ``sigma``
        (``RoundBuffers.label_sums``), each row summed as ``row_dots`` sums it; at up to
        ``round_buffers.TILED_LABELS`` labels the bounds are Python floats (the same
        correctly rounded IEEE operations as numpy's sqrt, * and +).  The sums are kept
        for ``learn`` of the same x (``_selected``).
        """
        # x . x is finite when x is (a finite x too large for it is checked one by one).
        xx = x.dot(x)
        if not math.isfinite(xx) and not np.isfinite(x).all():
            return None
        mu, sigma, buffers = self._mu, self._sigma, self._buffers
        if buffers is None or buffers.mu is not mu or buffers.sigma is not sigma:
            buffers = self._buffers = RoundBuffers(mu, sigma)  # mu and sigma in one array
            self._mu, self._sigma = mu, sigma = buffers.mu, buffers.sigma
        sums = buffers.label_sums(x)  # mu_i . x and x^T Sigma_i x, as row_dots sums
        if buffers.tiled:
            # max(v, 0) is v: a sum of sigma_j x_j^2 with sigma > 0 (enforced) is >= +0.0.
            # Their sum is finite only when every bound, score and variance is.
            score_list, variances = sums.tolist()
            k, sqrt = self.k, math.sqrt
            bound_list = [s + k * sqrt(v) for s, v in zip(score_list, variances)]
            if math.isfinite(sum(bound_list)):
                self._selected = (x.tobytes(), mu, sigma, self.n_updates, score_list,
                                  variances, xx)
                chosen, greedy = self._list_argmax(bound_list), self._list_argmax(score_list)
                return Prediction(chosen, self.labels[chosen], sums[0], np.array(bound_list),
                                  score_list[chosen] < max(score_list), greedy)
        scores = sums[0]
        widths = np.sqrt(sums[1])
        widths *= self.k
        bounds = np.add(scores, widths, out=widths)
        self._selected = (x.tobytes(), mu, sigma, self.n_updates, *sums, xx)
        # Sums that overflowed (NaN or infinity) take numpy's argmax, as UCWL.select does.
        return self._prediction(self._argmax(bounds), scores, bounds,
                                greedy=self._argmax(scores))

    def _list_argmax(self, values: list) -> int:
        """``_argmax`` on Python floats (finite): the same index and the same random draw."""
        top = max(values)
        if values.count(top) == 1:
            return values.index(top)
        best = [i for i, value in enumerate(values) if value == top]
        return best[self._rng.integers(len(best))]

    # -- learn -------------------------------------------------------------------------
    def learn(self, x: Any, label: Label, correct: bool,
              prediction: Optional[Prediction] = None) -> bool:
        """``UCWL.learn`` (Algorithm 1, lines 12-17), on the compiled steps or the numpy round."""
        i = label if type(label) is int and 0 <= label < len(self.labels) else (
            self.label_index(label))
        if self._kernels is not None:
            return self._learn_compiled(self._valid(x), i, correct)
        selected, self._selected = self._selected, None
        if (selected is None or type(x) is not np.ndarray or selected[1] is not self._mu
                or selected[2] is not self._sigma or selected[3] != self.n_updates
                or x.dtype is not _FLOAT64 or x.shape != self._x_shape
                or x.tobytes() != selected[0]):
            return super().learn(x, i, correct)  # fresh sums
        # The x select summed (so finite) and the same rows: its sums are this step's.
        z = self._sign(correct)
        m, v = z * float(selected[4][i]), float(selected[5][i])
        buffers = self._buffers
        if self._scw1_precision and buffers is not None and buffers.mu is self._mu:
            changed = self._precision_step(x, i, z, m, v, selected[6])
        else:
            changed = self._step(x, i, z, m, v)
        self.answers[i] += 1  # after the step: a refused x (it raised) is not an answer
        return changed

    def learn_valid(self, x: np.ndarray, index: int, correct: bool,
                    prediction: Optional[Prediction]) -> int:
        """``BanditLearner.learn_valid``, through the compiled steps once they are loaded."""
        if self._kernels is None:
            return super().learn_valid(x, index, correct, prediction)
        return int(self._learn_compiled(x, index, correct))

    def _sign(self, correct: Any) -> float:
        """Return z (line 12) for ``correct``, refused as ``_check_correct`` refuses it."""
        if correct is True or correct is _TRUE:
            return 1.0
        if correct is False or correct is _FALSE:
            return -1.0
        return 1.0 if self._check_correct(correct) else -1.0

    def _precision_step(self, x: np.ndarray, i: int, z: float, m: float, v: float,
                        xx: float) -> bool:
        """
        ``UCWL._step`` of the default (SCW-I, precision diagonal) on the kept arrays.

        v is a sum select made, >= +0.0, so sqrt(max(v, 0)) is sqrt(v); the step's
        finiteness and the variance floor are checked only where ``precision_step``'s
        bounds cannot prove them idle.
        """
        if not m < self._phi * math.sqrt(v):
            return False
        alpha, gamma = scw1_precision_coefficients(
            m, v, self._phi, self._psi, self._xi, self.C if z > 0.0 else self._no_step_cap(i))
        if not alpha > 0.0:
            return False
        buffers = self._buffers
        mu, sigma = buffers.rows[i]
        finite, floor = buffers.precision_step(i, alpha, gamma, xx)
        changed = precision_update(mu, sigma, x, z, alpha, gamma, buffers, finite, floor)
        self.n_updates += changed
        return changed

    def _step(self, x: np.ndarray, i: int, z: float, m: float, v: float) -> bool:
        """``UCWL._step``; a precision step on the kept arrays when they hold the rows."""
        buffers = self._buffers
        if not (self._precision_diagonal and buffers is not None and buffers.mu is self._mu):
            return super()._step(x, i, z, m, v)
        phi = self._phi
        if not m < phi * math.sqrt(max(v, 0.0)):
            return False
        alpha = self._alpha(m, v, self.C if z > 0.0 else self._no_step_cap(i))
        if alpha <= 0.0:
            return False
        buffers.forget_bound(i)  # a step RoundBuffers.precision_step did not see
        mu, sigma = buffers.rows[i]  # views kept: indexing costs more than the step
        if not precision_update(mu, sigma, x, z, alpha, cw_gamma(alpha, v, phi), buffers):
            return False
        self.n_updates += 1
        return True

    def _learn_compiled(self, x: np.ndarray, i: int, correct: bool) -> bool:
        """``learn`` of label index ``i`` through ``ucwl_kernels``: the plain code's values."""
        z = self._sign(correct)
        if z < 0.0:  # the cap only a "no" uses
            self._no_step_cap(i)
        self._selected = None
        changed = self._kernels.learn(self._mu, self._sigma, i, x, z, self._learn_params)
        if changed < 0:
            if changed == -1:
                raise LearnerInputError('features contain NaN or infinity')
            if not x.flags.c_contiguous:
                return self._learn_compiled(np.ascontiguousarray(x), i, correct)
            return UCWL.learn(self, x, i, correct)  # rows the kernels refuse
        self.n_updates += changed
        self.answers[i] += 1  # after the step: a refused x (it raised) is not an answer
        return changed == 1
