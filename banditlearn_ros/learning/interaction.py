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
One round after another between a learner and a person, without ROS.

A round is a prediction followed, perhaps, by a yes/no.  A yes/no (std_msgs/Bool) carries no
id, so it can only be about the last thing the robot said.  The rule, in words:

- feedback refers to the **latest** prediction;
- it is applied if that prediction is still unanswered and at most ``feedback_timeout``
  seconds old;
- otherwise it is dropped and counted: ``no_prediction`` (nothing was predicted yet, or the
  model was reset since), ``duplicate`` (the latest prediction was already answered) or
  ``late`` (the latest prediction is older than the timeout).

Dropped feedback is never applied to another (older) prediction.  Unanswered predictions wait
in a bounded queue until they are answered, expire or are pushed out by newer ones; only the
newest can still be answered, the queue exists so that what was never answered is counted and
memory stays bounded.
"""

from collections import deque
from dataclasses import dataclass
import threading
import time
from typing import Callable, Deque, Dict, Optional, Tuple

import numpy as np

from .base import BanditLearner, Prediction
from .feedback import TeacherModel

DROP_REASONS = ('no_prediction', 'duplicate', 'late')
"""Why a yes/no was dropped."""

BAD_INPUT_REASONS = ('empty', 'bad_size', 'not_finite')
"""Why a feature vector was refused."""


def check_features(values, n_features: int = 0) -> Tuple[Optional[np.ndarray], str]:
    """
    Return ``(x, '')`` for a usable feature vector, else ``(None, reason)``.

    Parameters
    ----------
    values : array_like
        The message's numbers.
    n_features : int
        The size the learner needs; 0 accepts any non-empty size.

    Returns
    -------
    tuple
        The vector as float64 (or None) and one of ``BAD_INPUT_REASONS`` (or '').

    """
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if x.size == 0:
        return None, 'empty'
    if n_features and x.size != n_features:
        return None, 'bad_size'
    if not np.all(np.isfinite(x)):
        return None, 'not_finite'
    return x, ''


@dataclass
class Round:
    """A prediction that may still get its yes/no."""

    id: int  # noqa: A003 (the name the details JSON uses)
    x: np.ndarray
    prediction: Prediction
    stamp: float
    answered: bool = False


@dataclass
class FeedbackResult:
    """What became of one yes/no: ``outcome`` is 'matched' or one of ``DROP_REASONS``."""

    outcome: str
    round_id: Optional[int] = None
    updated: bool = False


class _Window:
    """Mean of the last ``size`` 0/1 values, plus the running total."""

    def __init__(self, size: int):
        self.values: Deque[int] = deque(maxlen=max(1, int(size)))
        self.total = 0
        self.count = 0

    def add(self, value: bool) -> None:
        self.values.append(int(bool(value)))
        self.total += int(bool(value))
        self.count += 1

    def windowed(self) -> float:
        return float(np.mean(self.values)) if self.values else float('nan')

    def cumulative(self) -> float:
        return self.total / self.count if self.count else float('nan')


class Interaction:
    """
    Predictions and feedback for one learner, with the matching rule of this module.

    Parameters
    ----------
    make_learner : callable
        ``make_learner(n_features)`` builds a fresh learner; called for the first valid
        vector when no learner is given, and by ``reset``.
    learner : BanditLearner, optional
        A learner to start from (a loaded model).
    feedback_timeout : float
        Seconds after a prediction within which its yes/no counts.
    max_unanswered : int
        Bound of the queue of unanswered predictions.
    window : int
        Rounds in the windowed mistake and exploration rates.
    n_features : int
        Feature size to insist on before a learner exists (0 = the first vector's).
    clock : callable
        Seconds, monotonic (tests pass a fake one).

    """

    def __init__(self, make_learner: Callable[[int], BanditLearner],
                 learner: Optional[BanditLearner] = None, feedback_timeout: float = 10.0,
                 max_unanswered: int = 100, window: int = 100, n_features: int = 0,
                 clock: Callable[[], float] = time.monotonic):
        if feedback_timeout <= 0:
            raise ValueError(f'feedback_timeout must be > 0, got {feedback_timeout}')
        if max_unanswered < 1:
            raise ValueError(f'max_unanswered must be >= 1, got {max_unanswered}')
        self._make = make_learner
        self.learner = learner
        self.feedback_timeout = float(feedback_timeout)
        self._n_features = int(n_features)
        self._clock = clock
        self._lock = threading.RLock()
        self._pending: Deque[Round] = deque(maxlen=int(max_unanswered))
        self._latest: Optional[Round] = None
        self._next_id = 0
        self._mistakes = _Window(window)
        self._explored = _Window(window)
        self.counts: Dict[str, int] = dict.fromkeys(
            ('predictions', 'feedback_received', 'feedback_matched', 'updates_applied',
             'unanswered_superseded', 'unanswered_expired', 'unanswered_overflow')
            + tuple('feedback_dropped_' + r for r in DROP_REASONS)
            + tuple('features_' + r for r in BAD_INPUT_REASONS), 0)

    # -- state ---------------------------------------------------------------------------
    @property
    def n_features(self) -> int:
        """Return the feature size in force (0 while it is still to be seen)."""
        return self.learner.n_features if self.learner is not None else self._n_features

    @property
    def unanswered(self) -> int:
        """Return how many predictions wait in the unanswered queue."""
        with self._lock:
            return len(self._pending)

    def reset(self) -> None:
        """Start a fresh model; pending predictions are forgotten (their feedback is dropped)."""
        with self._lock:
            d = self.n_features
            self.learner = self._make(d) if d else None
            self._pending.clear()
            self._latest = None

    def replace_learner(self, learner: BanditLearner) -> None:
        """Use another learner (same labels order); pending predictions are forgotten."""
        with self._lock:
            self.learner = learner
            self._pending.clear()
            self._latest = None

    # -- a round -------------------------------------------------------------------------
    def predict(self, values, now: Optional[float] = None) -> Tuple[Optional[Round], str]:
        """
        Select a label for one feature vector.

        Returns
        -------
        tuple
            ``(round, '')``, or ``(None, reason)`` for a refused vector (counted).

        """
        with self._lock:
            x, reason = check_features(values, self.n_features)
            if x is None:
                self.counts['features_' + reason] += 1
                return None, reason
            if self.learner is None:
                self.learner = self._make(x.size)
            now = self._clock() if now is None else now
            self._expire(now)
            if self._latest is not None and not self._latest.answered:
                self.counts['unanswered_superseded'] += 1
            prediction = self.learner.select(x)
            item = Round(id=self._next_id, x=x, prediction=prediction, stamp=now)
            self._next_id += 1
            if len(self._pending) == self._pending.maxlen:
                self.counts['unanswered_overflow'] += 1
            self._pending.append(item)
            self._latest = item
            self.counts['predictions'] += 1
            self._explored.add(prediction.explored)
            return item, ''

    def feedback(self, correct: bool, now: Optional[float] = None) -> FeedbackResult:
        """Apply a yes/no to the latest prediction if the rule allows, else drop and count it."""
        with self._lock:
            now = self._clock() if now is None else now
            self.counts['feedback_received'] += 1
            self._expire(now)
            latest = self._latest
            if latest is None:
                return self._drop('no_prediction')
            if latest.answered:
                return self._drop('duplicate', latest.id)
            if now - latest.stamp > self.feedback_timeout:
                return self._drop('late', latest.id)
            latest.answered = True
            try:
                self._pending.remove(latest)
            except ValueError:
                pass
            updated = bool(self.learner.learn(latest.x, latest.prediction.index, bool(correct),
                                              prediction=latest.prediction))
            self.counts['feedback_matched'] += 1
            self.counts['updates_applied'] += int(updated)
            self._mistakes.add(not correct)
            return FeedbackResult('matched', latest.id, updated)

    def _drop(self, reason: str, round_id: Optional[int] = None) -> FeedbackResult:
        self.counts['feedback_dropped_' + reason] += 1
        return FeedbackResult(reason, round_id, False)

    def _expire(self, now: float) -> None:
        while self._pending and now - self._pending[0].stamp > self.feedback_timeout:
            self._pending.popleft()
            self.counts['unanswered_expired'] += 1

    # -- statistics ----------------------------------------------------------------------
    def stats(self) -> Dict[str, float]:
        """Return counters and rates (mistakes as the person reported them)."""
        with self._lock:
            out: Dict[str, float] = dict(self.counts)
            out['feedback_dropped'] = sum(self.counts['feedback_dropped_' + r]
                                          for r in DROP_REASONS)
            out['features_refused'] = sum(self.counts['features_' + r]
                                          for r in BAD_INPUT_REASONS)
            out['unanswered'] = len(self._pending)
            out['mistake_rate_window'] = self._mistakes.windowed()
            out['mistake_rate'] = self._mistakes.cumulative()
            out['exploration_rate_window'] = self._explored.windowed()
            out['exploration_rate'] = self._explored.cumulative()
            out['updates'] = self.learner.n_updates if self.learner is not None else 0
            out['labels'] = self.learner.n_labels if self.learner is not None else 0
            return out


@dataclass
class TeacherAnswer:
    """A simulated answer: ``answer`` None is silence; ``truth`` None means no label known."""

    answer: Optional[bool]
    truth: Optional[str]
    right: Optional[bool]


class SimulatedTeacher:
    """
    A person who knows the true label of each observation and answers with noise.

    The label of an observation arrives (``observe``) just before its prediction
    (``answer``); each label answers at most one prediction.  The random draws per answer
    are those of ``TeacherModel.answer`` (after one label-noise draw when ``label_noise``
    > 0), so an offline loop with the same seed gives the same answers.

    Parameters
    ----------
    model : TeacherModel
        Noise rates and silence probability.
    seed : int
        Seed of the teacher's random generator.
    labels : sequence of str
        Label names label noise draws from; empty = the names observed so far.
    window : int
        Rounds in the windowed true mistake rate.

    """

    def __init__(self, model: TeacherModel, seed: int = 0, labels=(), window: int = 100):
        self.model = model
        self.rng = np.random.default_rng(seed)
        self.labels = [str(lb) for lb in labels]
        self._seen: Dict[str, None] = {}
        self._current: Optional[str] = None
        self._mistakes = _Window(window)
        self.counts: Dict[str, int] = dict.fromkeys(
            ('labels_received', 'predictions_received', 'answers', 'silences', 'flipped',
             'no_label', 'labels_unused'), 0)

    def observe(self, label: str) -> None:
        """Take the true label of the next observation."""
        if self._current is not None:
            self.counts['labels_unused'] += 1
        self._current = str(label)
        self._seen.setdefault(self._current, None)
        self.counts['labels_received'] += 1

    def answer(self, predicted: str) -> TeacherAnswer:
        """Answer one prediction (None = say nothing)."""
        self.counts['predictions_received'] += 1
        truth, self._current = self._current, None
        if truth is None:
            self.counts['no_label'] += 1
            return TeacherAnswer(None, None, None)
        right = str(predicted) == truth
        self._mistakes.add(not right)
        observed = truth
        if self.model.label_noise > 0:
            names = self.labels or list(self._seen)
            if self.rng.random() < self.model.label_noise:
                observed = names[int(self.rng.integers(len(names)))]
        said = self.model.answer(str(predicted), observed, self.rng)
        if said is None:
            self.counts['silences'] += 1
        else:
            self.counts['answers'] += 1
            self.counts['flipped'] += int(said != right)
        return TeacherAnswer(said, truth, right)

    def stats(self) -> Dict[str, float]:
        """Return counters and the true mistake rates (windowed and since the start)."""
        out: Dict[str, float] = dict(self.counts)
        out['true_mistake_rate_window'] = self._mistakes.windowed()
        out['true_mistake_rate'] = self._mistakes.cumulative()
        out['rounds'] = self._mistakes.count
        return out


def stream_order(n: int, passes: int = 1, shuffle: bool = True, seed: int = 0,
                 max_examples: int = 0) -> np.ndarray:
    """
    Return the example indices of a stream: one seeded permutation per pass.

    ``max_examples`` > 0 cuts the stream; the dataset node and offline references use this
    one function, so both see the same order.
    """
    if n < 1 or passes < 1:
        raise ValueError(f'need n >= 1 and passes >= 1, got n={n}, passes={passes}')
    rng = np.random.default_rng(seed)
    order = np.concatenate([rng.permutation(n) if shuffle else np.arange(n)
                            for _ in range(int(passes))])
    return order[:max_examples] if max_examples > 0 else order
