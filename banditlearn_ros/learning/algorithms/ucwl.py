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

"""Upper Confidence Weighted Learning (Ngo et al. 2013, Algorithm 1)."""

import math
from typing import Any, Dict, List, Optional

import numpy as np

from . import ucwl_kernels
from .base import BanditLearner, check_choice, check_range, Label, LearnerInputError, Prediction
from .confidence_weighted import (
    confidence_constants, cw_beta, cw_gamma, DIAGONALS, gaussian_update, initial_gaussian,
    margin_variance, mixture_gaussian, precision_update, scw1_alpha,
    scw1_precision_coefficients, scw2_alpha)
from .reductions import CHUNK, row_dot, row_dots
from .round_buffers import RoundBuffers

ADDED_LABEL_PRIORS = ('mixture', 'unit')
"""Where a label added at runtime starts (``UCWL.added_label_prior``)."""

NO_WEIGHTS = ('equal', 'balanced', 'sqrt', 'ramp')
"""How the step of a "no" is capped (``UCWL.no_weight``)."""

DEFAULT_NO_WEIGHT = 'ramp'
"""Chosen by measurement (docs/benchmarks.md, "Label noise on digits"); ``'equal'`` is
Algorithm 1."""

RAMP_ANSWERS = 20.0
"""Answers to a label at which ``'ramp'`` is halfway from C to C / sqrt(K - 1)."""


def no_cap(C: float, no_weight: str, n_labels: int, answers: int = 0) -> float:
    """
    Return the cap of a "no" step to a label that has had ``answers`` answers so far.

    C (``'equal'``, Algorithm 1), C / (K - 1), C / sqrt(K - 1), or for ``'ramp'``
    ``C / sqrt(1 + (K - 2) n / (n + RAMP_ANSWERS))`` with n = ``answers``.

    Each classifier is one label against the K - 1 others, so its negatives outnumber its
    positives K - 1 to one; weighting them 1 / (K - 1) (``'balanced'``) is the usual class
    balancing of one-vs-rest learning.  Under label noise most wrong answers are a "no" to
    the right label (docs/benchmarks.md), so a smaller cap also limits what one of them
    undoes; but with few answers per label the "no"s are most of what it learns from.
    ``'sqrt'`` is halfway between the two on a log scale, C / sqrt(K - 1): chosen by
    measurement (docs/benchmarks.md), not taken from a paper.  ``'ramp'`` moves from C
    (a label with no answers yet: its "no"s are most likely right, and most of what it
    learns from) to ``'sqrt'``'s cap as the label's answers grow (once it is mostly right,
    a "no" is, under label noise, often a wrong answer); also chosen by measurement.
    ``UCWLGrid`` computes the same floats.
    """
    if n_labels <= 2:
        return C
    if no_weight == 'balanced':
        return C / (n_labels - 1)
    if no_weight == 'sqrt':
        return C / math.sqrt(n_labels - 1)
    if no_weight == 'ramp':
        n = float(answers)
        return C / math.sqrt(1.0 + (n_labels - 2) * (n / (n + RAMP_ANSWERS)))
    return C


_FLOAT64 = np.dtype(np.float64)
_TRUE, _FALSE = np.True_, np.False_


class UCWL(BanditLearner):
    """
    One soft-confidence-weighted classifier per label, chosen by an upper confidence bound.

    Selection (Algorithm 1, lines 8-11): ``UCB_i = mu_i . x + k sqrt(x^T Sigma_i x)`` and
    the output is the label with the largest bound.  Update (lines 13-17): only the
    selected classifier learns, with ``z = +1`` for "right" and ``-1`` for "wrong", and only
    when the adaptive margin constraint of eq. (4), ``z mu . x >= phi sqrt(x^T Sigma x)``,
    is violated; alpha and beta are the SCW coefficients of section 3.3.

    Parameters
    ----------
    labels, n_features : int or list of str, int
        The labels (a number, or their names) and the length of every feature vector.
    eta : float
        Confidence parameter, in (0.5, 1).
    C : float
        SCW aggressiveness cap (> 0).
    k : float
        Exploration weight on the margin's standard deviation (>= 0).
    covariance : {'diag', 'full'}
        Diagonal Sigma (the paper's choice, section 5) or full d x d.
    diagonal : {'precision', 'variance'}
        Diagonalisation step for ``covariance='diag'`` (see ``confidence_weighted``): keep
        the diagonal of the precision update (default) or of the Sigma update.
    variant : {'scw1', 'scw2'}
        SCW-I (the paper's) or SCW-II step size.
    added_label_prior : {'mixture', 'unit'}
        Where a label added by ``add_label`` starts: the moment-matched mixture of the
        classifiers learned so far (default), or N(0, I) as in Algorithm 1 (see
        ``add_label``).
    no_weight : {'ramp', 'equal', 'balanced', 'sqrt'}
        Cap of the step a "no" (z = -1) takes: from C towards C / sqrt(K - 1) as the
        label's answers grow (default), C as a "yes" (Algorithm 1), C / (K - 1) or
        C / sqrt(K - 1) (``no_cap``).
    seed : int
        Seed of the tie-breaking random generator.

    Examples
    --------
    >>> learner = UCWL(['fist', 'palm'], n_features=2, eta=0.95, C=1.0, k=2.8)
    >>> p = learner.select([1.0, 0.0])
    >>> learner.learn([1.0, 0.0], p.index, correct=True)
    True

    """

    name = 'ucwl'
    _hyperparameters = ('eta', 'C', 'k', 'covariance', 'diagonal', 'variant',
                        'added_label_prior', 'no_weight')
    _hyperparameters_before = {'diagonal': 'variance', 'added_label_prior': 'unit',
                               'no_weight': 'equal'}
    _array_names = ('mu', 'sigma')
    _construction_only = ('covariance',)
    _positive_arrays = ('sigma',)

    def __init__(self, labels, n_features: int, eta: float = 0.95, C: float = 1.0,
                 k: float = 2.8, covariance: str = 'diag', variant: str = 'scw1',
                 seed: int = 0, diagonal: str = 'precision', added_label_prior: str = 'mixture',
                 no_weight: str = DEFAULT_NO_WEIGHT):
        self.eta, self.C, self.k = eta, C, k
        self.covariance, self.variant, self.diagonal = covariance, variant, diagonal
        self.added_label_prior, self.no_weight = added_label_prior, no_weight
        super().__init__(labels, n_features, seed)
        self.answers: List[int] = [0] * len(self.labels)
        """Answers (steps asked of ``learn``) each label has had: ``no_weight='ramp'``."""

    def _validate(self) -> None:
        self.eta = check_range('eta', self.eta, 0.5, 1.0, low_open=True, high_open=True)
        self.C = check_range('C', self.C, 0.0, None, low_open=True)
        self.k = check_range('k', self.k, 0.0, None)
        check_choice('covariance', self.covariance, ('diag', 'full'))
        check_choice('variant', self.variant, ('scw1', 'scw2'))
        check_choice('diagonal', self.diagonal, DIAGONALS)
        check_choice('added_label_prior', self.added_label_prior, ADDED_LABEL_PRIORS)
        check_choice('no_weight', self.no_weight, NO_WEIGHTS)
        self._phi, self._psi, self._xi = confidence_constants(self.eta)
        # The compiled steps (ucwl_kernels) when numba is there; None = the numpy code below.
        self._kernels = ucwl_kernels.compiled() if self.covariance == 'diag' else None
        self._precision_diagonal = self.covariance == 'diag' and self.diagonal == 'precision'
        self._few_calls = self.covariance == 'diag' and self.n_features <= CHUNK  # _select_sums
        self._scw1_precision = self._precision_diagonal and self.variant == 'scw1'
        self._x_shape = (self.n_features,)
        self._set_learn_params()
        self._buffers: Optional[RoundBuffers] = None
        self._selected: Optional[tuple] = None

    def _set_learn_params(self) -> None:
        """Set the kernels' constants (the cap of a "no" depends on the number of labels)."""
        self._C_no = no_cap(self.C, self.no_weight, len(self.labels))
        self._ramp_caps: List[float] = []  # no_cap(..., answers=n) at [n] (C and K fixed)
        self._learn_params = ucwl_kernels.learn_params(self._phi, self._psi, self._xi, self.C,
                                                       self.variant, self.diagonal, self._C_no)

    def use_compiled(self) -> bool:
        """
        Move to the compiled steps once ``ucwl_kernels.compile_in_background`` has them.

        Returns whether they are in use.  Both compute the same values bit for bit, so a
        learner may switch between two rounds.
        """
        if self.covariance == 'diag':
            self._kernels = ucwl_kernels.compiled()
            if self._kernels is not None:
                self._buffers = None  # the numpy round's work arrays: not used again
        return self._kernels is not None

    def _init_rows(self, name: str, n: int) -> np.ndarray:
        return initial_gaussian(name, n, self.n_features, self.covariance)

    def add_label(self, name: str) -> int:
        """
        Add a class at runtime; with ``added_label_prior='mixture'`` it starts from the others.

        Algorithm 1 (lines 2-5) starts every classifier at N(0, I), which is right when all
        start together.  A label added after hundreds of answers would keep that prior's
        full width ``k ||x||`` on every input while the classifiers it joins have shrunk
        theirs, so its bound (line 9) wins on the gestures already known until a "no" on
        each has shrunk it, and the person pays with wrong first guesses; and since
        features are not centred, the others also share a learned negative offset that
        the new row lacks.  Departing from lines 3-4 for a label added later: before any
        answer about it, the new classifier is equally likely to be any of the ones
        learned so far, so its prior is that equal-weight mixture of their Gaussians,
        moment-matched to one Gaussian (``mixture_gaussian``; moment matching is the
        KL(p || q) projection onto Gaussians, as in assumed-density filtering): the mean of
        the means, and the mean covariance plus the spread of the means.  It is uncertain
        where the known classifiers disagree (the directions that tell gestures apart) and
        as sure as they are where they agree.  Added before
        anything was learned, the mixture of N(0, I) priors is N(0, I): the paper's start.
        ``'unit'`` keeps Algorithm 1's start; docs/benchmarks.md (bench_new_gesture.py)
        measures both.
        """
        index = super().add_label(name)
        self.answers.append(0)
        self._set_learn_params()
        if self.added_label_prior == 'mixture':
            self._mu[index], self._sigma[index] = mixture_gaussian(self._mu[:index],
                                                                   self._sigma[:index])
        return index

    def _extra_state(self) -> Dict[str, Any]:
        extra = super()._extra_state()
        extra['answers'] = list(self.answers)
        return extra

    def _load_extra_state(self, extra: Dict[str, Any]) -> None:
        super()._load_extra_state(extra)
        # A file written before the counts existed: every label starts afresh.
        answers = extra.get('answers', [0] * len(self.labels))
        if (not isinstance(answers, list) or len(answers) != len(self.labels) or any(
                isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in answers)):
            raise ValueError(f'answers must hold a count >= 0 per label, got {answers!r}')
        self.answers = [int(n) for n in answers]

    def _ramp(self, i: int) -> None:
        """Set the cap of a "no" to label ``i`` from its answers (``no_weight='ramp'``)."""
        n, caps = self.answers[i], self._ramp_caps
        if n >= len(caps):  # no_cap's value for each count, computed once
            caps.extend(no_cap(self.C, 'ramp', len(self.labels), a)
                        for a in range(len(caps), n + 1))
        self._C_no = caps[n]
        if self._kernels is not None:
            self._learn_params[8] = self._C_no

    def _margin_variances(self, x: np.ndarray) -> np.ndarray:
        if self.covariance == 'diag':
            return row_dots(self._sigma, x * x)
        # Full Sigma: einsum's own summation order, not promised to be the same on every CPU.
        return np.einsum('i,kij,j->k', x, self._sigma, x)

    def scores(self, x: Any) -> np.ndarray:
        """Mean margins ``mu_i . x`` (summed in the same order on every CPU)."""
        return row_dots(self._mu, self.check_x(x))

    def select(self, x: Any) -> Prediction:
        """Output the label with the highest upper confidence bound (Algorithm 1, line 11)."""
        kernels = self._kernels
        if kernels is not None:  # _select_compiled, its most frequent case without a call
            if not (type(x) is np.ndarray and x.dtype is _FLOAT64 and x.shape == self._x_shape):
                x = self.check_x(x)
            out = np.empty((2, len(self._mu)))
            found = kernels.select(x, self._mu, self._sigma, self.k, out)
            if found[1] == 1 and found[3] == 1:
                return Prediction(found[0], self.labels[found[0]], out[0], out[1], found[5],
                                  found[2])
            prediction = self._compiled_choice(x, out, *found)
            if prediction is None:
                raise LearnerInputError('features contain NaN or infinity')
            return prediction
        buffers = self._buffers
        if (buffers is not None and buffers.tiled and buffers.mu is self._mu
                and buffers.sigma is self._sigma and type(x) is np.ndarray
                and x.dtype is _FLOAT64 and x.shape == self._x_shape):
            # The numpy round at up to TILED_LABELS labels, in this function: at ~100
            # features a Python call costs about what an elementwise step does.  x . x is
            # finite when x is (a finite x too large for it is checked one by one).
            xx = x.dot(x)
            if not math.isfinite(xx) and not np.isfinite(x).all():
                raise LearnerInputError('features contain NaN or infinity')
            sums = buffers.label_sums(x)  # mu_i . x and x^T Sigma_i x, as row_dots sums
            score_list, variances = sums.tolist()
            # The bounds numpy's sqrt, *= k and + give, as Python floats: the same correctly
            # rounded IEEE operations.  max(v, 0) is v here: a sum of sigma_j x_j^2 with
            # sigma > 0 (enforced) is >= +0.0.  Their sum is finite only when every bound,
            # score and variance is (k = 0 times an infinite width is NaN).
            k, sqrt = self.k, math.sqrt
            bound_list = [s + k * sqrt(v) for s, v in zip(score_list, variances)]
            if math.isfinite(sum(bound_list)):
                self._selected = (x.tobytes(), self._mu, self._sigma, self.n_updates,
                                  score_list, variances, xx)  # for learn() of this x
                top, best = max(bound_list), max(score_list)  # _list_argmax without a tie
                chosen = (bound_list.index(top) if bound_list.count(top) == 1
                          else self._list_argmax(bound_list))
                greedy = (score_list.index(best) if score_list.count(best) == 1
                          else self._list_argmax(score_list))
                return Prediction(chosen, self.labels[chosen], sums[0], np.array(bound_list),
                                  score_list[chosen] < best, greedy)
        if self._few_calls:
            prediction = self._select_sums(x if type(x) is np.ndarray and x.dtype is _FLOAT64
                                           and x.shape == self._x_shape else self.check_x(x))
        else:
            return self._select_numpy(self.check_x(x))
        if prediction is None:
            raise LearnerInputError('features contain NaN or infinity')
        return prediction

    def learn(self, x: Any, label: Label, correct: bool,
              prediction: Optional[Prediction] = None) -> bool:
        """Update the selected classifier only (Algorithm 1, lines 12-17)."""
        i = label if type(label) is int and 0 <= label < len(self.labels) else (
            self.label_index(label))
        if self._kernels is not None:
            return self._learn_compiled(x if type(x) is np.ndarray and x.dtype is _FLOAT64
                                        and x.shape == self._x_shape else self.check_x(x),
                                        i, correct)
        if self.no_weight == 'ramp':
            caps, n = self._ramp_caps, self.answers[i]
            if n < len(caps):
                self._C_no = caps[n]  # _ramp's cap, without the call (the numpy round)
            else:
                self._ramp(i)
        selected, self._selected = self._selected, None
        if (selected is not None and type(x) is np.ndarray and selected[1] is self._mu
                and selected[2] is self._sigma and selected[3] == self.n_updates
                and x.dtype is _FLOAT64 and x.shape == self._x_shape
                and x.tobytes() == selected[0]):
            # The x select summed (so finite) and the same rows: its sums are this step's.
            z = 1.0 if correct is True or correct is _TRUE else (
                -1.0 if correct is False or correct is _FALSE else (
                    1.0 if self._check_correct(correct) else -1.0))
            m, v = z * float(selected[4][i]), float(selected[5][i])
            buffers = self._buffers
            if self._scw1_precision and buffers is not None and buffers.mu is self._mu:
                # _step of the default (SCW-I, precision diagonal) without its calls; v is
                # a sum select made, >= +0.0, so sqrt(max(v, 0)) is sqrt(v).
                changed = False
                if m < self._phi * math.sqrt(v):
                    alpha, gamma = scw1_precision_coefficients(
                        m, v, self._phi, self._psi, self._xi, self.C if z > 0.0 else self._C_no)
                    if alpha > 0.0:
                        mu, sigma = buffers.rows[i]
                        finite, floor = buffers.precision_step(i, alpha, gamma, selected[6])
                        changed = precision_update(mu, sigma, x, z, alpha, gamma, buffers,
                                                   finite, floor)
                        self.n_updates += changed
            else:
                changed = self._step(x, i, z, m, v)
        else:
            changed = self._learn_numpy(self.check_x(x), i, correct)
        self.answers[i] += 1  # after the step: a refused x (it raised) is not an answer
        return changed

    def select_valid(self, x: np.ndarray) -> Optional[Prediction]:
        """``BanditLearner.select_valid``, through the compiled steps once they are loaded."""
        if self._kernels is None:
            return super().select_valid(x)
        return self._select_compiled(x)

    def learn_valid(self, x: np.ndarray, index: int, correct: bool,
                    prediction: Optional[Prediction]) -> int:
        """``BanditLearner.learn_valid``, through the compiled steps once they are loaded."""
        if self._kernels is None:
            return super().learn_valid(x, index, correct, prediction)
        return int(self._learn_compiled(x, index, correct))

    def _select_numpy(self, x: np.ndarray) -> Prediction:
        scores = row_dots(self._mu, x)
        widths = self.k * np.sqrt(np.maximum(self._margin_variances(x), 0.0))
        return self._upper_confidence_choice(scores, widths)

    def _select_sums(self, x: np.ndarray) -> Optional[Prediction]:
        """
        ``_select_numpy`` in fewer numpy calls, the same values; None when x is not finite.

        Both sums come from one reduction over the products of ``mu`` and ``sigma``
        (``RoundBuffers.label_sums``), each row summed as ``row_dots`` sums it.  The sums
        are kept for ``learn`` of the same x (``_selected``).  ``select`` does the same
        on Python floats at up to ``TILED_LABELS`` labels once the buffers exist.
        """
        # x . x is finite when x is (a finite x too large for it is checked one by one).
        xx = x.dot(x)
        if not math.isfinite(xx) and not np.isfinite(x).all():
            return None
        mu, sigma, buffers = self._mu, self._sigma, self._buffers
        if buffers is None or buffers.mu is not mu or buffers.sigma is not sigma:
            buffers = self._buffers = RoundBuffers(mu, sigma)  # mu and sigma in one array
            self._mu, self._sigma = mu, sigma = buffers.mu, buffers.sigma
        sums = buffers.label_sums(x)
        scores = sums[0]
        widths = np.sqrt(sums[1])
        widths *= self.k
        bounds = np.add(scores, widths, out=widths)
        self._selected = (x.tobytes(), mu, sigma, self.n_updates, *sums, xx)
        # Sums that overflowed (NaN or infinity) take numpy's argmax, as _select_numpy does.
        return self._prediction(self._argmax(bounds), scores, bounds,
                                greedy=self._argmax(scores))

    def _list_argmax(self, values: list) -> int:
        """``_argmax`` on Python floats (finite): the same index and the same random draw."""
        top = max(values)
        if values.count(top) == 1:
            return values.index(top)
        best = [i for i, value in enumerate(values) if value == top]
        return best[self._rng.integers(len(best))]

    def _learn_numpy(self, x: np.ndarray, label: Label, correct: bool) -> bool:
        i = self.label_index(label)
        z = 1.0 if self._check_correct(correct) else -1.0
        return self._step(x, i, z, z * row_dot(self._mu[i], x),
                          margin_variance(self._sigma[i], x))

    def _step(self, x: np.ndarray, i: int, z: float, m: float, v: float) -> bool:
        """Lines 13-17 for label ``i`` given ``m = z mu_i . x`` and ``v = x^T Sigma_i x``."""
        phi = self._phi
        if not m < phi * math.sqrt(max(v, 0.0)):  # np.sqrt's value, without a ufunc call
            return False
        C = self.C if z > 0.0 else self._C_no
        if self.variant == 'scw1':
            alpha = scw1_alpha(m, v, phi, self._psi, self._xi, C)
        else:
            alpha = scw2_alpha(m, v, phi, C)
        if alpha <= 0.0:
            return False
        if self._precision_diagonal:
            gamma = cw_gamma(alpha, v, phi)
            buffers = self._buffers
            if buffers is not None and buffers.mu is self._mu:
                buffers.forget_bound(i)  # a step RoundBuffers.precision_step did not see
                mu, sigma = buffers.rows[i]  # views kept: indexing costs more than the step
                if not precision_update(mu, sigma, x, z, alpha, gamma, buffers):
                    return False
                self.n_updates += 1
                return True
            beta = 0.0  # this step does not use beta
        else:
            beta, gamma = cw_beta(alpha, v, phi), None
        if not gaussian_update(self._mu[i], self._sigma[i], x, z, alpha, beta, gamma):
            return False
        self.n_updates += 1
        return True

    def _select_compiled(self, x: np.ndarray) -> Optional[Prediction]:
        """
        ``select`` through ``ucwl_kernels``: same values, ties drawn as ``_argmax`` draws.

        None when x holds NaN or infinity (nothing changed, no random draw).
        """
        mu = self._mu
        out = np.empty((2, len(mu)))
        return self._compiled_choice(x, out, *self._kernels.select(x, mu, self._sigma, self.k,
                                                                   out))

    def _compiled_choice(self, x: np.ndarray, out: np.ndarray, best: int, n_best: int,
                         greedy: int, n_greedy: int, top: float,
                         explored: bool) -> Optional[Prediction]:
        """Return the ``Prediction`` of the kernels' ``select`` (``out``, its tuple), or None."""
        if n_best == 1 and n_greedy == 1:  # no tie to draw (n_best is 0 when best < 0)
            return Prediction(best, self.labels[best], out[0], out[1], explored, greedy)
        if best < 0:
            if best == -1:
                return None
            if not x.flags.c_contiguous:
                return self._select_compiled(np.ascontiguousarray(x))
            if not np.isfinite(x).all():
                return None
            return self._select_numpy(x)  # rows the kernels do not take (not contiguous)
        scores, bounds = out[0], out[1]
        if n_best > 1:
            best = int(np.flatnonzero(bounds == bounds[best])[self._rng.integers(n_best)])
            explored = bool(scores[best] < top)
        if n_greedy > 1:
            greedy = int(np.flatnonzero(scores == top)[self._rng.integers(n_greedy)])
        return Prediction(best, self.labels[best], scores, bounds, explored, greedy)

    def _learn_compiled(self, x: np.ndarray, i: int, correct: bool) -> bool:
        """``learn`` of label index ``i`` through ``ucwl_kernels``: the numpy code's values."""
        if correct is True or correct is _TRUE:
            z = 1.0
        elif correct is False or correct is _FALSE:
            z = -1.0
        else:
            z = 1.0 if self._check_correct(correct) else -1.0
        if z < 0.0 and self.no_weight == 'ramp':  # the cap only a "no" uses
            self._ramp(i)
        self._selected = None
        changed = self._kernels.learn(self._mu, self._sigma, i, x, z, self._learn_params)
        if changed < 0:
            if changed == -1:
                raise LearnerInputError('features contain NaN or infinity')
            if not x.flags.c_contiguous:
                return self._learn_compiled(np.ascontiguousarray(x), i, correct)
            changed = self._learn_numpy(self.check_x(x), i, correct)  # rows the kernels refuse
            self.answers[i] += 1
            return changed
        self.n_updates += changed
        self.answers[i] += 1  # after the step: a refused x (it raised) is not an answer
        return changed == 1
