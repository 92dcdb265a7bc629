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

- ``'likelihood_full'`` (default): the log-density of x under a Gaussian with a full
  covariance of the label the learner would ask first, fitted to the observations answered
  "yes" for that label (or named it).  A class-conditional Gaussian as the novelty score
  follows Lee, Lee, Lee and Shin, "A Simple Unified Framework for Detecting
  Out-of-Distribution Samples and Adversarial Attacks" (NeurIPS 2018, section 2, eq. 2);
  here one covariance per label (theirs is tied), learned online from the answers.  The
  covariance gets ``variance_floor`` times the mean variance over the labels added to its
  diagonal, so a label with fewer examples than features is not infinitely sure, and with
  ``shrinkage`` tau the covariance pooled over the labels counts as tau examples in each
  label's (a label with few examples borrows the shape all labels share).
- ``'likelihood'``: the same with a diagonal covariance (the variances, each with that floor).
- ``'likelihood_full_max'`` and ``'likelihood_max'``: the full or diagonal log-density under
  the label whose Gaussian fits x best.
- ``'lcb'``: the best lower confidence bound ``max_i mu_i . x - k sqrt(x^T Sigma_i x)`` of the
  learner itself (the mirror of UCWL's selection bound, Ngo et al., "Upper Confidence
  Weighted Learning ...", Algorithm 1, line 9), read from the prediction's scores and bounds.

*Recheck* (``recheck``): a rejection before question 1 takes the first guess from a taught
gesture the learner would often have got right; after a "no" that guess is spent, and a
gesture that was not the label it fitted is more often never taught.  So after each "no" the
gesture is scored again and rejected then if that score is below the threshold: a
never-taught gesture costs one question, a taught one no first guess.  ``recheck_score``
``'nearest'`` (default) scores it by the distance to the nearest confirmed observation of any
label (``nearest_examples``; its own window of taught gestures' distances, the same
``alpha_t``), good sooner than a label's Gaussian; ``'score'`` by ``score`` for the label
about to be asked (as before).

The threshold is calibrated online to a target rate of *false rejection* of taught gestures
(before question 1 or at a recheck) by adaptive conformal inference (Gibbs and Candes,
"Adaptive Conformal Inference Under Distribution Shift", NeurIPS 2021, section 2): a
recheck's threshold is the ``alpha_t`` quantile, and the one before question 1 the stricter
``first_share * alpha_t`` quantile, of the scores of the last ``window`` gestures that turned
out to be taught (a "yes", or a person naming a known label), each under its own label and
only when that label had ``min_yes`` "yes" answers (the labels rejection decides for); after
each such gesture that rejection could have hit,
``alpha_t += rate * (target - err_t)`` with ``err_t = 1`` when it was rejected.  The
long-run false-rejection rate then tends to ``target`` whatever the drift of the scores as
the model learns (their long-run bound, section 4).  A false rejection is only seen when the
person names the rejected gesture; one who never does would drive ``alpha_t`` up without
bound, so it is capped where the level before question 1 is ``2 * target`` (the paper has no
cap).  ``alpha_1`` is ``start x target`` (the paper's: ``start`` 1): the level is reached from
below only slowly (the bound is ``(alpha_1 - alpha_T) / (rate T)``).

*Keep confident* (``keep_confident``): no rejection before question 1 where the learner is
sure of its first guess, its lower bound ``mu_i . x - k sqrt(x^T Sigma_i x)`` for the label i
it would ask (the mirror of UCWL's selection bound, Ngo et al., Algorithm 1, line 9) above
every other label's ``mu_j . x``: such false rejections cost first-guess accuracy, and almost
no never-taught gesture is that sure (docs/benchmarks.md).  Never for a learner without
widths (its bounds are its scores).

Rejection is not *armed* (the learner asks as usual) during the first ``warmup``
interactions of a fresh calibration, while the window holds fewer than ``min_scores``
taught scores, and when the label the learner would ask first has had fewer than
``min_yes`` "yes" answers: its Gaussian is not yet worth judging by.

*A slip* (``doubt_no``): a "no" to a first guess scoring far inside its label is taken for
a slip, and no recheck follows it (``OpenSet.doubted``).  *Early* (``early_recheck``): before
rejection is armed, a "no" rejects a gesture farther from the confirmed ones than they are
from each other (``OpenSet.early``).  *Denials* (``denials``): a confirmed example whose
nearest gestures keep being denied its label is taken back out (``answer_denials``).

*Trust* (``trust``): a "yes" that may be a slip waits for support before it teaches the
check (``trusted_answers``); with ``'audit'`` (the default) the "yes" answers a label took
while young are scored again as it grows and taken back out if unlike the rest
(``answer_audit``); ``'support'`` is the rule before, ``'yes'`` takes every "yes" at once.

What is learned (the Gaussians, the confirmed examples, the windows, ``alpha_t``, the counts)
is a ``Calibration`` (``open_set_state``); the learner carries it
(``OnlineClassifier.calibration``), like its centring, so that it is saved in the model file,
cleared by a reset and loaded with the model.  A file saved without one (older, or rejection
off) starts a fresh calibration.
"""

from collections import deque
from dataclasses import dataclass, replace
import math
from typing import Any, Deque, Dict, Optional

import numpy as np

from . import answer_audit, answer_denials, trusted_answers
from .label_gaussians import LabelGaussians
from .nearest_examples import NearestExamples
from .open_set_settings import (  # noqa: F401 (callers take them here)
    check_open_set, DEFAULTS, RECHECK_SCORES, SCORES, Settings)
from .open_set_state import (  # noqa: F401 (callers take them here)
    Calibration, COUNTS, HELD_LIMIT, WINDOW)
from .prediction import Prediction
from .trusted_answers import TRUST  # noqa: F401 (callers take it here)

ATTRIBUTES = {'score': 'score_name', 'recheck': 'recheck_on'}
"""Settings kept under another attribute name (a method of ``OpenSet`` has theirs)."""


@dataclass(slots=True)
class Verdict:
    """What the open set said about one observation."""

    score: float
    threshold: float
    armed: bool
    reject: bool
    label: int
    """The label the learner would ask first (whose Gaussian gave the likelihood score)."""
    first_score: float = math.nan
    """The score before question 1: what joins the window of taught scores (``score`` if nan)."""
    question: int = 1
    """The question the rejection replaced (1 = before any; more after a recheck)."""
    kept: bool = False
    """Below the threshold, but held back: the learner was sure of its first guess."""
    nearest: float = math.nan
    """Minus the distance to the nearest confirmed observation (``recheck_score``)."""


def confident(prediction: Prediction) -> bool:
    """
    Return whether the learner is sure of its guess: its lower bound beats every other score.

    The lower bound of the asked label i is ``2 mu_i . x - bound_i`` (the bound less the
    width, as the ``'lcb'`` score reads it); False for a learner without a width there.
    """
    scores = np.asarray(prediction.scores, dtype=np.float64)
    i = prediction.index
    width = float(prediction.bounds[i]) - scores[i]
    if scores.size < 2 or not width > 0.0:
        return False
    return bool(scores[i] - width > np.delete(scores, i).max())


class OpenSet:
    """
    Scores, an online-calibrated threshold and the rejection decision (see the module text).

    Parameters
    ----------
    enabled : bool
        Reject at all; off, ``decide`` returns None and nothing is tracked.
    **settings
        ``open_set_settings.Settings`` by name (each has its default there), kept as
        attributes of the same name (``ATTRIBUTES`` names the two that differ).

    """

    def __init__(self, enabled: bool = False, **settings: Any):
        first = Settings(**settings)  # a bad setting is refused before anything is made
        self.enabled = False
        self.target, self.window, self.start = first.target, first.window, first.start
        self.reset()
        self.configure(enabled, **settings)

    def configure(self, enabled: bool, **settings: Any) -> None:
        """Change the settings (a bad one changes nothing); switching on starts afresh."""
        checked = Settings(**settings)
        fresh = bool(enabled) and not self.enabled
        for name, value in checked.as_dict().items():
            setattr(self, ATTRIBUTES.get(name, name), value)
        self._fit_window()
        self.enabled = bool(enabled)
        if fresh:
            self.reset()

    def _fit_window(self) -> None:
        cal = self.calibration
        if cal.scores.maxlen != self.window:
            cal.scores = deque(cal.scores, maxlen=self.window)
            cal.nearest = deque(cal.nearest, maxlen=self.window)

    def settings(self) -> Dict[str, Any]:
        """Return the settings as ``configure`` takes them."""
        return {'enabled': self.enabled, **{
            name: getattr(self, ATTRIBUTES.get(name, name)) for name in DEFAULTS}}

    def reset(self) -> None:
        """Forget the calibration and the Gaussians (a fresh model)."""
        self.calibration = Calibration(self.start * self.target, self.window)

    def adopt(self, learner: Any) -> None:
        """
        Take up the calibration a learner carries (loaded with it), or give it ours.

        A learner without one (a new model, a file saved without one) starts afresh.  With
        rejection off nothing is given, and a loaded calibration stays as it was.
        """
        held = getattr(learner, 'calibration', None)
        if held is not None and held is not self.calibration:
            self.calibration = held
            self._fit_window()
        elif held is None:
            self.reset()
            if self.enabled and learner is not None:
                learner.calibration = self.calibration

    # The learned values, by their names in the calibration.
    alpha = property(lambda self: self.calibration.alpha)
    seen = property(lambda self: self.calibration.seen)
    counts = property(lambda self: self.calibration.counts)

    # -- the decision ---------------------------------------------------------------------
    def score(self, x: np.ndarray, prediction: Prediction) -> float:
        """Return the observation's score under ``score_name`` (higher = more like taught)."""
        if self.score_name == 'lcb':
            scores = np.asarray(prediction.scores, dtype=np.float64)
            return float((2.0 * scores - np.asarray(prediction.bounds)).max())
        gaussians = self.calibration.gaussians
        if gaussians is None:
            return -math.inf
        full = self.score_name.startswith('likelihood_full')
        if self.score_name.endswith('_max'):
            return max(gaussians.log_likelihood(i, x, self.variance_floor, full, self.shrinkage)
                       for i in range(gaussians.count.size))
        return gaussians.log_likelihood(prediction.index, x, self.variance_floor, full,
                                        self.shrinkage)

    def threshold(self, share: float = 1.0, window: Optional[Deque[float]] = None) -> float:
        """Return the ``share * alpha_t`` quantile of the taught scores (a recheck's: 1)."""
        cal = self.calibration
        window = cal.scores if window is None else window
        level = share * cal.alpha
        if not window or level <= 0.0:
            return -math.inf
        if level >= 1.0:
            return math.inf
        return float(np.quantile(np.fromiter(window, float), level))

    def _cap(self) -> float:
        """Return the most ``alpha_t`` may reach: 2 x target before question 1, 0.5 at most."""
        return min(0.5, 2.0 * self.target / self.first_share)

    def decide(self, x: np.ndarray, prediction: Prediction) -> Optional[Verdict]:
        """Return the verdict on ``x`` whose first question would be ``prediction`` (or None)."""
        if not self.enabled:
            return None
        cal = self.calibration
        cal.seen += 1
        score = self.score(x, prediction)
        gaussians = cal.gaussians
        yes = gaussians.yes_count(prediction.index) if gaussians is not None else 0
        armed = (cal.seen > self.warmup and yes >= self.min_yes
                 and len(cal.scores) >= self.min_scores)
        threshold = self.threshold(self.first_share)
        reject = armed and score < threshold
        kept = reject and self.keep_confident and confident(prediction)
        reject = reject and not kept
        cal.counts['rejected'] += int(reject)
        cal.counts['kept_confident'] += int(kept)
        nearest = cal.examples.score(x) if cal.examples is not None else -math.inf
        return Verdict(score, threshold, armed, reject, prediction.index, score, kept=kept,
                       nearest=nearest)

    def recheck(self, verdict: Optional[Verdict], x: np.ndarray, prediction: Prediction,
                question: int) -> Optional[Verdict]:
        """
        Return the verdict on ``x`` after a "no", before asking ``prediction`` (question n).

        With ``recheck`` on (see the module text): its ``recheck_score`` (the nearest
        confirmed observation, or ``score`` for the label about to be asked) against the
        ``alpha_t`` quantile of that score's window, when the verdict was armed and that label
        has ``min_yes`` "yes" answers, and the first "no" is not ``doubted``; not armed, the
        ``early`` recheck.  Returns ``verdict`` itself when nothing changes.
        """
        if not (self.enabled and self.recheck_on and verdict is not None
                and not verdict.reject):
            return verdict
        if not verdict.armed:
            return self.early(verdict, x, question)
        if self.doubted(verdict):
            return verdict
        gaussians = self.calibration.gaussians
        if gaussians is None or gaussians.yes_count(prediction.index) < self.min_yes:
            return verdict
        if self.recheck_score == 'nearest':
            score = verdict.nearest
            threshold = self.threshold(1.0, self.calibration.nearest)
        else:
            score, threshold = self.score(x, prediction), self.threshold()
        if not score < threshold:
            return verdict
        self.calibration.counts['rejected'] += 1
        return replace(verdict, score=score, threshold=threshold, reject=True,
                       question=int(question))

    def doubted(self, verdict: Verdict) -> bool:
        """
        Return whether the "no" to the first guess is doubted: its score is far inside that label.

        After a "no" the recheck rejects at the level ``alpha_t``, far above the first
        question's ``first_share * alpha_t``; a taught gesture whose right first guess a
        slipping person denied is then rejected about ``alpha_t`` of the time, and each such
        false rejection lowers ``alpha_t`` (Gibbs and Candes's step counts it as the
        threshold's error, though the answer caused it).  The person's "no" and the label's
        Gaussian disagree most where the score is high: above the ``1 - doubt_no`` quantile of
        the taught scores a never-taught gesture is rare (docs/benchmarks.md), a denied
        taught one common, so no recheck there, at any later question of the gesture either
        (the nearest-example score does not depend on the label asked).
        """
        window = self.calibration.scores
        if not (self.doubt_no > 0.0 and window and math.isfinite(verdict.first_score)):
            return False
        return verdict.first_score > float(np.quantile(np.fromiter(window, float),
                                                       1.0 - self.doubt_no))

    def early(self, verdict: Verdict, x: np.ndarray, question: int) -> Verdict:
        """
        Return the verdict after a "no" while rejection is not armed (``early_recheck``).

        Before a label has ``min_yes`` answers and the window ``min_scores`` taught scores
        there is no calibrated threshold, yet a never-taught gesture then costs all its
        questions.  The confirmed examples already give one: if a new taught gesture and the
        last ``window`` confirmed ones are exchangeable, its distance to the nearest of them
        exceeds the ``1 - target`` quantile of their leave-one-out distances (each to the
        nearest other) with probability about ``target``: leave-one-out conformal prediction
        (Vovk, Gammerman and Shafer, "Algorithmic Learning in a Random World", 2005, chapter
        2) with the nearest-neighbour score of Sun et al. (ICML 2022) as nonconformity.  A
        fixed level: ``alpha_t`` is not moved, it calibrates the armed rule.  Not in the
        ``warmup``, which means no rejection at all.
        """
        examples = self.calibration.examples
        if not (self.early_recheck and self.calibration.seen > self.warmup
                and examples is not None and examples.size > self.min_scores):
            return verdict
        score, others = examples.leave_one_out(x, self.window)
        threshold = float(np.quantile(others, self.target))
        if not score < threshold:
            return verdict
        self.calibration.counts['rejected'] += 1
        return replace(verdict, score=score, threshold=threshold, reject=True,
                       question=int(question))

    # -- what the answers teach ---------------------------------------------------------
    def taught(self, verdict: Optional[Verdict], index: int, x: np.ndarray,
               named: bool = False, question: int = 1) -> None:
        """
        Learn that the observation ``x`` was label ``index`` (a "yes", or a person named it).

        Its score joins the calibration window when its label had ``min_yes`` "yes" answers
        (``judged``); if rejection was armed for it, the adaptive conformal step moves
        ``alpha_t`` (a rejected one was a false rejection).  With ``trust`` ``'support'``
        a "yes" (not ``named``) that may be a slip is held instead, and each trusted one
        looks again at the held gestures of its label (``trusted_answers``).
        """
        if not self.enabled:
            return
        cal = self.calibration
        first = self._own_score(verdict, index, x)
        if verdict is not None and math.isfinite(first) and verdict.armed:
            cal.counts['taught_armed'] += 1
            cal.counts['false_rejections'] += int(verdict.reject)
            cal.alpha = min(self._cap(),
                            cal.alpha + self.rate * (self.target - float(verdict.reject)))
        elif verdict is not None and verdict.reject:  # the early recheck's: alpha stays
            cal.counts['early_false_rejections'] += 1
        if not named and trusted_answers.suspect(self, verdict, index, first, question):
            cal.held.append((index, np.array(x, dtype=np.float64)))
            cal.counts['held'] += 1
            del cal.held[:-HELD_LIMIT]
            return
        young = ([(x, answer_audit.windowed(self, verdict, index, first))]
                 if answer_audit.young(self, index, named) else [])
        self.confirm(verdict, index, x, first)
        if cal.held and self.trust != 'yes':
            young += [(held, np.full(2, math.nan))
                      for held in trusted_answers.release(self, index)]
        if self.trust == 'audit':
            answer_audit.audit(self, index, young)

    def confirm(self, verdict: Optional[Verdict], index: int, x: np.ndarray,
                first: float) -> None:
        """Take ``x`` into label ``index``'s Gaussian, the confirmed examples and the windows."""
        cal = self.calibration
        if verdict is not None and self.judged(index) and math.isfinite(verdict.nearest):
            cal.nearest.append(verdict.nearest)
        if verdict is not None and math.isfinite(first) and self.judged(index):
            cal.scores.append(first)
        if cal.gaussians is None:
            cal.gaussians, cal.examples = LabelGaussians(x.size), NearestExamples(x.size)
        cal.gaussians.add(index, x)
        if cal.examples is None:  # loaded from a file saved before it was kept
            cal.examples = NearestExamples(x.size)
        answer_denials.supported(self, index, x)
        cal.examples.add(x, index)

    def denied(self, index: int, x: np.ndarray) -> bool:
        """Count a "no" to label ``index`` for ``x`` (``answer_denials``); True: one went out."""
        return bool(self.enabled and self.denials > 0
                    and answer_denials.denied(self, index, np.asarray(x, dtype=np.float64)))

    def judged(self, index: int) -> bool:
        """
        Return whether label ``index`` has the ``min_yes`` "yes" answers that arm rejection.

        The window calibrates decisions, which are only taken for such labels: the score of
        a gesture of a label with fewer answers (a Gaussian of two or three examples fits its
        next one badly) would pull the threshold down for the labels it judges.
        """
        gaussians = self.calibration.gaussians
        return (gaussians.yes_count(index) if gaussians is not None else 0) >= self.min_yes

    def _own_score(self, verdict: Optional[Verdict], index: int, x: np.ndarray) -> float:
        """
        Return the score of a taught gesture under its own label ``index``, for the window.

        A wrong first guess scored it under another label: taken again (before ``x`` joins).
        """
        if verdict is None:
            return math.nan
        first = verdict.first_score if not math.isnan(verdict.first_score) else verdict.score
        gaussians = self.calibration.gaussians
        if index == verdict.label or gaussians is None or self.score_name.endswith(('lcb', 'max')):
            return first
        return gaussians.log_likelihood(index, x, self.variance_floor,
                                        self.score_name == 'likelihood_full', self.shrinkage)

    def stats(self) -> Dict[str, float]:
        """Return counts, the threshold and ``alpha_t`` (for /diagnostics)."""
        counts = self.calibration.counts
        armed = counts['taught_armed']
        out: Dict[str, float] = {'unknown_' + k: v for k, v in counts.items()}
        out['unknown_threshold'] = (self.threshold(self.first_share) if self.enabled
                                    else float('nan'))
        out['unknown_alpha'] = self.calibration.alpha
        out['unknown_false_rejection_rate'] = (
            counts['false_rejections'] / armed if armed else float('nan'))
        return out
