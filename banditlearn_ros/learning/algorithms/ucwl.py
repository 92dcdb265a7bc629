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

from .base import BanditLearner, check_choice, check_range, Label, Prediction
from .confidence_weighted import (
    confidence_constants, cw_beta, cw_gamma, DIAGONALS, gaussian_update, initial_gaussian,
    margin_variance, mixture_gaussian, scw1_alpha, scw2_alpha)
from .reductions import row_dot, row_dots

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


class UCWL(BanditLearner):
    """
    One soft-confidence-weighted classifier per label, chosen by an upper confidence bound.

    Ngo, Luciw, Vien and Schmidhuber, "Upper Confidence Weighted Learning for Efficient
    Exploration in Multiclass Prediction with Binary Feedback" (IJCAI 2013), Algorithm 1 in
    plain numpy, read top to bottom: line 1 (``_validate``: phi, psi, xi), lines 2-5
    (``_init_rows``: mu = 0, Sigma = I), lines 8-11 (``select``: ``UCB_i = mu_i . x +
    k sqrt(x^T Sigma_i x)``, the largest bound is said), lines 12-17 (``learn``: only the
    selected classifier learns, ``z = +1`` for "right" and ``-1`` for "wrong", and only
    when the adaptive margin constraint of eq. (4), ``z mu . x >= phi sqrt(x^T Sigma x)``,
    is violated; alpha and beta are the SCW coefficients of section 3.3).  Every dot
    product is summed in one fixed order (``reductions.row_dots``), so a decision is the
    same on every CPU.  The same steps faster, bit for bit, are ``learning/engine``'s
    ``FastUCWL``, which the live learner and the offline runners plug in.

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
        self._phi, self._psi, self._xi = confidence_constants(self.eta)  # line 1
        self._precision_diagonal = self.covariance == 'diag' and self.diagonal == 'precision'

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

    def _no_step_cap(self, i: int) -> float:
        """Return the cap C of a "no" step to label ``i`` now (``no_cap``; C in Algorithm 1)."""
        return no_cap(self.C, self.no_weight, len(self.labels), self.answers[i])

    def _margin_variances(self, x: np.ndarray) -> np.ndarray:
        if self.covariance == 'diag':
            return row_dots(self._sigma, x * x)
        # Full Sigma: einsum's own summation order, not promised to be the same on every CPU.
        return np.einsum('i,kij,j->k', x, self._sigma, x)

    def scores(self, x: Any) -> np.ndarray:
        """Mean margins ``mu_i . x`` (summed in the same order on every CPU)."""
        return row_dots(self._mu, self.check_x(x))

    def select(self, x: Any) -> Prediction:
        """Output the label with the highest upper confidence bound (Algorithm 1, lines 8-11)."""
        x = self.check_x(x)
        scores = row_dots(self._mu, x)  # line 9: mu_i . x
        widths = self.k * np.sqrt(np.maximum(self._margin_variances(x), 0.0))
        return self._upper_confidence_choice(scores, widths)  # line 11, ties at random

    def learn(self, x: Any, label: Label, correct: bool,
              prediction: Optional[Prediction] = None) -> bool:
        """Update the selected classifier only (Algorithm 1, lines 12-17)."""
        i = self.label_index(label)
        x = self.check_x(x)
        z = 1.0 if self._check_correct(correct) else -1.0  # line 12
        changed = self._step(x, i, z, z * row_dot(self._mu[i], x),
                             margin_variance(self._sigma[i], x))
        self.answers[i] += 1  # after the step: a refused x (it raised) is not an answer
        return changed

    def _alpha(self, m: float, v: float, C: float) -> float:
        """Return the step size alpha of section 3.3: SCW-I's (capped at C) or SCW-II's."""
        if self.variant == 'scw1':
            return scw1_alpha(m, v, self._phi, self._psi, self._xi, C)
        return scw2_alpha(m, v, self._phi, C)

    def _step(self, x: np.ndarray, i: int, z: float, m: float, v: float) -> bool:
        """Lines 13-17 for label ``i`` given ``m = z mu_i . x`` and ``v = x^T Sigma_i x``."""
        phi = self._phi
        if not m < phi * math.sqrt(max(v, 0.0)):  # line 14: eq. (4) holds, no update
            return False
        alpha = self._alpha(m, v, self.C if z > 0.0 else self._no_step_cap(i))
        if alpha <= 0.0:
            return False
        if self._precision_diagonal:  # the diagonal of the precision update (gamma)
            beta, gamma = 0.0, cw_gamma(alpha, v, phi)
        else:  # line 16's beta, the diagonal of Sigma's update or the full matrix
            beta, gamma = cw_beta(alpha, v, phi), None
        if not gaussian_update(self._mu[i], self._sigma[i], x, z, alpha, beta, gamma):
            return False  # lines 15-16 (a step too large for a float: nothing changed)
        self.n_updates += 1
        return True
