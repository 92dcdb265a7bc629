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
"I don't know that one": reject a gesture the robot was never taught, at a calibrated rate.

A bandit learner always has a best label; asked about a gesture nobody taught it, it walks
through ``max_questions`` wrong labels and teaches each a "no".  Here every observation gets a
*score* (high = looks like something taught) and is *rejected* when the score is below a
threshold: the robot then asks what the gesture was instead of guessing.

Scores (``SCORES``; docs/benchmarks.md, bench_unknown.py, measures them):

- ``'likelihood'`` (default): the log-density of x under a diagonal Gaussian of the label the
  learner would ask first, fitted to the observations answered "yes" for that label (or named
  it).  A class-conditional Gaussian as the novelty score follows Lee, Lee, Lee and Shin, "A
  Simple Unified Framework for Detecting Out-of-Distribution Samples and Adversarial
  Attacks" (NeurIPS 2018), here diagonal, per label and learned online from the answers.
  Each variance has a floor of ``variance_floor`` times the mean variance over the labels, so
  a label with few examples is not infinitely sure.
- ``'likelihood_max'``: the same log-density under the label whose Gaussian fits x best.
- ``'lcb'``: the best lower confidence bound ``max_i mu_i . x - k sqrt(x^T Sigma_i x)`` of the
  learner itself (the mirror of UCWL's selection bound, Ngo et al., "Upper Confidence
  Weighted Learning ...", Algorithm 1, line 9), read from the prediction's scores and bounds.

The threshold is calibrated online to a target rate of *false rejection* of taught gestures
by adaptive conformal inference (Gibbs and Candes, "Adaptive Conformal Inference Under
Distribution Shift", NeurIPS 2021, section 2): the threshold is the ``alpha_t``
quantile of the scores of the last ``window`` gestures that turned out to be taught (a "yes",
or a person naming a known label), and after each such gesture that rejection could have
hit, ``alpha_t += rate * (target - err_t)`` with ``err_t = 1`` when it was rejected.  The
long-run false-rejection rate then tends to ``target`` whatever the drift of the scores as
the model learns (their long-run bound, section 4).  A false rejection is only seen when the person
names the rejected gesture; one who never does would drive ``alpha_t`` up without bound,
so it is capped at ``2 * target`` (a departure from the paper, where it is not bounded).
Scores are learned from every answer; only the threshold decides.

Rejection is not *armed* (the learner asks as usual) during the first ``warmup``
interactions of a fresh calibration, and when the label the learner would ask first has
had fewer than ``min_yes`` "yes" answers: its Gaussian is not yet worth judging by.
"""

from collections import deque
from dataclasses import dataclass
import math
from typing import Any, Deque, Dict, Optional

import numpy as np

from .base import check_choice, HyperparameterError, Prediction

SCORES = ('likelihood', 'likelihood_max', 'lcb')
"""Observation scores; the first is the default."""

DEFAULTS: Dict[str, Any] = {'target': 0.05, 'rate': 0.01, 'window': 200, 'warmup': 50,
                            'min_yes': 5, 'score': 'likelihood', 'variance_floor': 0.1}
"""Chosen by measurement (docs/benchmarks.md, bench_unknown.py)."""


@dataclass(slots=True)
class Verdict:
    """What the open set said about one observation."""

    score: float
    threshold: float
    armed: bool
    reject: bool
    label: int
    """The label the learner would ask first (whose Gaussian gave the likelihood score)."""


class LabelGaussians:
    """Diagonal Gaussian per label of the observations confirmed for it (Welford's sums)."""

    def __init__(self, n_features: int):
        self.n_features = int(n_features)
        self.count = np.zeros(0)
        self.mean = np.zeros((0, self.n_features))
        self.m2 = np.zeros((0, self.n_features))

    def _grow(self, n_labels: int) -> None:
        extra = n_labels - self.count.size
        if extra > 0:
            self.count = np.concatenate([self.count, np.zeros(extra)])
            zeros = np.zeros((extra, self.n_features))
            self.mean = np.vstack([self.mean, zeros])
            self.m2 = np.vstack([self.m2, zeros])

    def yes_count(self, index: int) -> int:
        """Return how many observations label ``index`` was confirmed for."""
        return int(self.count[index]) if index < self.count.size else 0

    def add(self, index: int, x: np.ndarray) -> None:
        """Add one observation confirmed as label ``index``."""
        self._grow(index + 1)
        self.count[index] += 1
        delta = x - self.mean[index]
        self.mean[index] += delta / self.count[index]
        self.m2[index] += delta * (x - self.mean[index])

    def log_likelihood(self, index: int, x: np.ndarray, floor: float) -> float:
        """
        Return log N(x; mean, diag(var + floor * pooled)) of a label, up to a constant.

        ``pooled`` is the mean variance over all labels; -inf for a label not seen yet.
        """
        n = self.yes_count(index)
        if n == 0:
            return -math.inf
        seen = self.count > 0
        pooled = float((self.m2[seen].sum(axis=0) / self.count[seen].sum()).mean())
        var = self.m2[index] / n + floor * pooled + 1e-12
        diff = x - self.mean[index]
        return float(-0.5 * (diff * diff / var + np.log(var)).sum())


def check_open_set(target: float, rate: float, window: int, warmup: int, min_yes: int,
                   score: str, variance_floor: float) -> None:
    """Raise HyperparameterError for a setting ``OpenSet`` cannot take."""
    if not 0.0 < float(target) < 0.5:
        raise HyperparameterError(f'unknown_target must be in (0, 0.5), got {target!r}')
    if not 0.0 < float(rate) <= 1.0:
        raise HyperparameterError(f'unknown_rate must be in (0, 1], got {rate!r}')
    for name, value, low in (('window', window, 1), ('warmup', warmup, 0),
                             ('min_yes', min_yes, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise HyperparameterError(f'unknown_{name} must be an integer >= {low}, '
                                      f'got {value!r}')
    check_choice('unknown_score', score, SCORES)
    if not float(variance_floor) > 0.0:
        raise HyperparameterError(f'unknown_variance_floor must be > 0, got {variance_floor!r}')


class OpenSet:
    """
    Scores, an online-calibrated threshold and the rejection decision (see the module text).

    Parameters
    ----------
    enabled : bool
        Reject at all; off, ``decide`` returns None and nothing is tracked.
    target : float
        Wanted rate of false rejection of taught gestures, in (0, 0.5).
    rate : float
        Step ``gamma`` of the adaptive conformal update of ``alpha_t``.
    window : int
        Scores of taught gestures the quantile is taken over.
    warmup : int
        Interactions (since enabled or reset) before rejection is armed.
    min_yes : int
        "Yes" answers the first-asked label needs before rejection is armed for it.
    score : str
        One of ``SCORES``.
    variance_floor : float
        Floor of the likelihood score's variances, as a fraction of the mean variance.

    """

    def __init__(self, enabled: bool = False, target: float = DEFAULTS['target'],
                 rate: float = DEFAULTS['rate'], window: int = DEFAULTS['window'],
                 warmup: int = DEFAULTS['warmup'], min_yes: int = DEFAULTS['min_yes'],
                 score: str = DEFAULTS['score'],
                 variance_floor: float = DEFAULTS['variance_floor']):
        self.enabled = False
        self.target = float(target)
        self._scores: Deque[float] = deque(maxlen=max(1, int(window)))
        self.reset()
        self.configure(enabled, target, rate, window, warmup, min_yes, score, variance_floor)

    def configure(self, enabled: bool, target: float, rate: float, window: int, warmup: int,
                  min_yes: int, score: str, variance_floor: float) -> None:
        """Change the settings (a bad one changes nothing); switching on starts afresh."""
        check_open_set(target, rate, window, warmup, min_yes, score, variance_floor)
        start = bool(enabled) and not self.enabled
        self.target, self.rate = float(target), float(rate)
        self.warmup, self.min_yes = int(warmup), int(min_yes)
        self.score_name, self.variance_floor = score, float(variance_floor)
        if int(window) != self._scores.maxlen:
            self._scores = deque(self._scores, maxlen=int(window))
        self.enabled = bool(enabled)
        if start:
            self.reset()

    def settings(self) -> Dict[str, Any]:
        """Return the settings as ``configure`` takes them."""
        return {'enabled': self.enabled, 'target': self.target, 'rate': self.rate,
                'window': self._scores.maxlen, 'warmup': self.warmup, 'min_yes': self.min_yes,
                'score': self.score_name, 'variance_floor': self.variance_floor}

    def reset(self) -> None:
        """Forget the calibration and the Gaussians (a fresh model)."""
        self._gaussians: Optional[LabelGaussians] = None
        self._scores.clear()
        self.alpha = self.target
        self.seen = 0
        self.counts = dict.fromkeys(('rejected', 'taught_armed', 'false_rejections'), 0)

    # -- the decision ---------------------------------------------------------------------
    def score(self, x: np.ndarray, prediction: Prediction) -> float:
        """Return the observation's score under ``score_name`` (higher = more like taught)."""
        if self.score_name == 'lcb':
            scores = np.asarray(prediction.scores, dtype=np.float64)
            return float((2.0 * scores - np.asarray(prediction.bounds)).max())
        gaussians = self._gaussians
        if gaussians is None:
            return -math.inf
        if self.score_name == 'likelihood_max':
            return max(gaussians.log_likelihood(i, x, self.variance_floor)
                       for i in range(gaussians.count.size))
        return gaussians.log_likelihood(prediction.index, x, self.variance_floor)

    def threshold(self) -> float:
        """Return the current threshold: the ``alpha_t`` quantile of the taught scores."""
        if not self._scores or self.alpha <= 0.0:
            return -math.inf
        if self.alpha >= 1.0:
            return math.inf
        return float(np.quantile(np.fromiter(self._scores, float), self.alpha))

    def decide(self, x: np.ndarray, prediction: Prediction) -> Optional[Verdict]:
        """Return the verdict on ``x`` whose first question would be ``prediction`` (or None)."""
        if not self.enabled:
            return None
        self.seen += 1
        score = self.score(x, prediction)
        gaussians = self._gaussians
        yes = gaussians.yes_count(prediction.index) if gaussians is not None else 0
        armed = (self.seen > self.warmup and yes >= self.min_yes
                 and len(self._scores) * self.target >= 1.0)
        threshold = self.threshold()
        reject = armed and score < threshold
        self.counts['rejected'] += int(reject)
        return Verdict(score, threshold, armed, reject, prediction.index)

    # -- what the answers teach ---------------------------------------------------------
    def taught(self, verdict: Optional[Verdict], index: int, x: np.ndarray) -> None:
        """
        Learn that the observation ``x`` was label ``index`` (a "yes", or a person named it).

        Its score joins the calibration window; if rejection was armed for it, the adaptive
        conformal step moves ``alpha_t`` (a rejected one was a false rejection).
        """
        if not self.enabled:
            return
        if verdict is not None and math.isfinite(verdict.score):
            self._scores.append(verdict.score)
            if verdict.armed:
                self.counts['taught_armed'] += 1
                self.counts['false_rejections'] += int(verdict.reject)
                self.alpha = min(2.0 * self.target,
                                 self.alpha + self.rate * (self.target - float(verdict.reject)))
        if self._gaussians is None:
            self._gaussians = LabelGaussians(x.size)
        self._gaussians.add(index, x)

    def stats(self) -> Dict[str, float]:
        """Return counts, the threshold and ``alpha_t`` (for /diagnostics)."""
        armed = self.counts['taught_armed']
        out: Dict[str, float] = {'unknown_' + k: v for k, v in self.counts.items()}
        out['unknown_threshold'] = self.threshold() if self.enabled else float('nan')
        out['unknown_alpha'] = self.alpha
        out['unknown_false_rejection_rate'] = (
            self.counts['false_rejections'] / armed if armed else float('nan'))
        return out
