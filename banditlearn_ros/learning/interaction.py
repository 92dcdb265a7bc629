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
Interactions between a learner and a person, without ROS: questions, yes/no, the matching rule.

One *interaction* per presented gesture (feature vector), up to ``max_questions``
*questions* in it (``learning.ask_again``: after a "no" the robot asks its next-best label).
Each question carries ``(interaction id, question number)``; the details message puts both
on the wire.  A yes/no (std_msgs/Bool) carries no id, so it can only be about the last thing
the robot said.  The rule, in words:

- feedback refers to the **latest open question of the latest interaction**;
- it is applied if that question is still unanswered and was asked at most
  ``feedback_timeout`` seconds ago;
- otherwise it is dropped and counted: ``no_prediction`` (nothing was asked yet, or the
  model was reset since), ``duplicate`` (the latest question was already answered: an answer
  that ended the interaction, or one whose next question has not been asked) or ``late``
  (the latest question is older than the timeout).

Dropped feedback is never applied to another question: not to an older one, not to an
earlier question of the same interaction, not to the next one.  A new gesture ends an
interaction still waiting for its answer (``timed_out``).  Unanswered questions wait in a
bounded queue until they are answered, expire or are pushed out by newer ones; only the
newest can still be answered, the queue exists so that what was never answered is counted
and memory stays bounded.
"""

from array import array
from collections import deque
from dataclasses import dataclass
import math
import threading
import time
from typing import Callable, Deque, Dict, List, Optional, Tuple

import numpy as np

from .ask_again import (
    check_probation, check_protocol, DEFAULT_PROBATION, DEFAULT_REVEAL_STEP, NAMEABLE, OUTCOMES,
    Questions)
from .base import BanditLearner, LearnerInputError, Prediction
from .feedback import TeacherModel
from .open_set import OpenSet, Verdict

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
    x, reason = _sized_features(values, n_features)
    # A finite x . x (one BLAS call) proves every value finite; only otherwise look closer.
    if x is not None and not math.isfinite(x.dot(x)) and not np.isfinite(x).all():
        return None, 'not_finite'
    return x, reason


def _sized_features(values, n_features: int) -> Tuple[Optional[np.ndarray], str]:
    """``check_features`` without the finiteness check (a learner's ``_select_valid`` makes it)."""
    if type(values) is array and values.typecode == 'f':  # a Float32MultiArray's data
        x = np.asarray(values).astype(np.float64)  # the same values, a third faster
    else:
        x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1:
        x = x.reshape(-1)
    size = x.shape[0]
    if size == 0:
        return None, 'empty'
    if n_features and size != n_features:
        return None, 'bad_size'
    return x, ''


@dataclass(slots=True)
class Round:
    """A question that may still get its yes/no: ``id`` is its interaction's id."""

    id: int  # noqa: A003 (the name the details JSON uses)
    x: np.ndarray
    prediction: Prediction
    stamp: float
    answered: bool = False
    question: int = 1
    final: bool = True
    """A "no" to this question ends the interaction."""
    questions: Optional[Questions] = None
    verdict: Optional[Verdict] = None
    """What ``open_set`` said of the gesture (None with rejection off)."""
    raw: Optional[np.ndarray] = None
    """The vector before centring, which the open set scores and learns from: its Gaussians
    do not move with the running mean (docs/benchmarks.md, "Never-taught gestures")."""


@dataclass(slots=True)
class Ended:
    """
    One finished interaction, for the node to announce (``gesture_interaction``).

    ``rejected`` and ``labels`` are shared with the interaction and other records: read
    them, do not change them.
    """

    id: int  # noqa: A003
    outcome: str
    questions: int
    answers: int
    first: int
    revealed: Optional[int]
    rejected: List[int]
    labels: List[str]
    verdict: Optional[Verdict] = None

    def as_dict(self) -> Dict[str, object]:
        """Return the JSON-able form (label names beside indices; the score with rejection on)."""
        name = (lambda i: self.labels[i] if i is not None and i < len(self.labels) else None)
        out = {'id': self.id, 'outcome': self.outcome, 'questions': self.questions,
               'answers': self.answers, 'first_guess': name(self.first),
               'label': name(self.revealed), 'index': self.revealed,
               'rejected': [name(i) for i in self.rejected]}
        verdict = self.verdict
        if verdict is not None:
            out['unknown_score'] = finite_or_none(verdict.score)
            out['unknown_threshold'] = finite_or_none(verdict.threshold)
            out['unknown_armed'] = verdict.armed
        return out


def finite_or_none(value: float) -> Optional[float]:
    """Return ``value``, or None for infinity or NaN (JSON has neither)."""
    return float(value) if math.isfinite(value) else None


@dataclass(slots=True)
class FeedbackResult:
    """
    What became of one yes/no: ``outcome`` is 'matched' or one of ``DROP_REASONS``.

    A matched answer either asks the next question (``next_round``) or ends the
    interaction (``ended``); ``updates`` counts the model updates it made.
    """

    outcome: str
    round_id: Optional[int] = None
    updated: bool = False
    question: Optional[int] = None
    next_round: Optional[Round] = None
    ended: Optional[Ended] = None
    updates: int = 0


class _Window:
    """Mean of the last ``size`` 0/1 values, plus the running total."""

    def __init__(self, size: int):
        self.values: Deque[int] = deque(maxlen=max(1, int(size)))
        self.total = 0
        self.count = 0

    def add(self, value: bool) -> None:
        self.add_value(int(bool(value)))

    def add_value(self, value: int) -> None:
        value = int(value)
        self.values.append(value)
        self.total += value
        self.count += 1

    def windowed(self) -> float:
        return float(np.mean(self.values)) if self.values else float('nan')

    def cumulative(self) -> float:
        return self.total / self.count if self.count else float('nan')


class Interaction:
    """
    Interactions, questions and feedback for one learner, with the matching rule of this module.

    Parameters
    ----------
    make_learner : callable
        ``make_learner(n_features)`` builds a fresh learner; called for the first valid
        vector when no learner is given, and by ``reset``.
    learner : BanditLearner, optional
        A learner to start from (a loaded model).
    feedback_timeout : float
        Seconds after a question within which its yes/no counts.
    max_unanswered : int
        Bound of the queue of unanswered questions.
    window : int
        Interactions in the windowed rates.
    n_features : int
        Feature size to insist on before a learner exists (0 = the first vector's).
    clock : callable
        Seconds, monotonic (tests pass a fake one).
    max_questions : int
        Questions per interaction (1 = the paper's protocol; 0 = as many as labels).
        Changing the attribute acts from the next interaction.
    reveal_step : str
        What a revealed label teaches the labels not asked (``ask_again.REVEAL_STEPS``).
    new_label_probation : int
        "Yes" answers a label added at runtime needs before it may be asked first
        (``ask_again.Questions.start``; 0 = at once).
    seed : int
        Seed of the tie-breaks between equally good next questions.
    open_set : OpenSet, optional
        Rejection of never-taught gestures (``learning.open_set``); None = off.

    """

    def __init__(self, make_learner: Callable[[int], BanditLearner],
                 learner: Optional[BanditLearner] = None, feedback_timeout: float = 10.0,
                 max_unanswered: int = 100, window: int = 100, n_features: int = 0,
                 clock: Callable[[], float] = time.monotonic, max_questions: int = 1,
                 reveal_step: str = DEFAULT_REVEAL_STEP, seed: int = 0,
                 new_label_probation: int = DEFAULT_PROBATION,
                 open_set: Optional[OpenSet] = None):
        if feedback_timeout <= 0:
            raise ValueError(f'feedback_timeout must be > 0, got {feedback_timeout}')
        if max_unanswered < 1:
            raise ValueError(f'max_unanswered must be >= 1, got {max_unanswered}')
        self._make = make_learner
        self.learner = learner
        self.feedback_timeout = float(feedback_timeout)
        self.max_questions, self.reveal_step = int(max_questions), reveal_step
        check_protocol(_name(learner), self.max_questions, reveal_step)
        self.new_label_probation = check_probation(new_label_probation)
        self.open_set = open_set if open_set is not None else OpenSet()
        if learner is not None:
            self.open_set.adopt(learner)  # a loaded model's calibration, if it has one
        self._n_features = int(n_features)
        self._clock = clock
        self._lock = threading.RLock()
        self._rng = np.random.default_rng(seed)
        self._pending: Deque[Round] = deque(maxlen=int(max_unanswered))
        self._latest: Optional[Round] = None
        self._named: Optional[int] = None
        self._next_id = 0
        self._ended: Deque[Ended] = deque(maxlen=int(max_unanswered))
        self._names: Tuple[Optional[BanditLearner], List[str]] = (None, [])
        self._mistakes = _Window(window)
        self._explored = _Window(window)
        self._questions = _Window(window)
        self.counts: Dict[str, int] = dict.fromkeys(
            ('predictions', 'feedback_received', 'feedback_matched', 'updates_applied',
             'unanswered_superseded', 'unanswered_expired', 'unanswered_overflow',
             'interactions', 'questions_asked', 'labels_named', 'labels_told')
            + tuple('interactions_' + o for o in OUTCOMES)
            + tuple('feedback_dropped_' + r for r in DROP_REASONS)
            + tuple('features_' + r for r in BAD_INPUT_REASONS), 0)

    # -- state ---------------------------------------------------------------------------
    @property
    def n_features(self) -> int:
        """Return the feature size in force (0 while it is still to be seen)."""
        return self.learner.n_features if self.learner is not None else self._n_features

    @property
    def unanswered(self) -> int:
        """Return how many questions wait in the unanswered queue."""
        with self._lock:
            return len(self._pending)

    def set_protocol(self, max_questions: Optional[int] = None,
                     reveal_step: Optional[str] = None,
                     new_label_probation: Optional[int] = None) -> None:
        """Change the protocol from the next interaction on; a bad value changes nothing."""
        with self._lock:
            mq = self.max_questions if max_questions is None else max_questions
            step = self.reveal_step if reveal_step is None else reveal_step
            check_protocol(_name(self.learner), mq, step)
            probation = check_probation(self.new_label_probation if new_label_probation is None
                                        else new_label_probation)
            self.max_questions, self.reveal_step = int(mq), step
            self.new_label_probation = probation

    def reset(self) -> None:
        """Start a fresh model; pending questions are forgotten (their feedback is dropped)."""
        with self._lock:
            d = self.n_features
            self.learner = self._make(d) if d else None
            self._pending.clear()
            self._latest = None
            self.open_set.reset()
            self.open_set.adopt(self.learner)

    def replace_learner(self, learner: BanditLearner) -> None:
        """Use another learner (same labels order); pending questions are forgotten."""
        with self._lock:
            check_protocol(_name(learner), self.max_questions, self.reveal_step)
            self.learner = learner
            self._pending.clear()
            self._latest = None
            self.open_set.adopt(learner)

    def take_ended(self) -> List[Ended]:
        """Return the interactions finished since the last call (oldest first)."""
        with self._lock:
            self._expire(self._clock())
            out = list(self._ended)
            self._ended.clear()
            return out

    # -- an interaction ------------------------------------------------------------------
    def predict(self, values, now: Optional[float] = None) -> Tuple[Optional[Round], str]:
        """
        Start an interaction for one feature vector: its first question.

        Returns
        -------
        tuple
            ``(round, '')``, or ``(None, reason)`` for a refused vector (counted).

        """
        with self._lock:
            learner = self.learner
            select_valid = getattr(learner, '_select_valid', None)
            centring = getattr(learner, 'centring', None)
            centred = learner is None or (centring is not None and centring.active)
            if select_valid is None or centred:  # no learner yet, or centring, or no fast entry
                x, reason = check_features(
                    values, learner.n_features if learner is not None else self._n_features)
                first = None
            else:
                # The learner refuses NaN and infinity itself, with nothing changed, before
                # any bookkeeping below (which never touches the model).
                x, reason = _sized_features(values, learner.n_features)
                first = select_valid(x) if x is not None else None
                if x is not None and first is None:
                    x, reason = None, 'not_finite'
            if x is None:
                self.counts['features_' + reason] += 1
                return None, reason
            if learner is None:
                self.learner = self._make(x.size)
                check_protocol(_name(self.learner), self.max_questions, self.reveal_step)
                self.open_set.adopt(self.learner)
            raw = x
            centring = getattr(self.learner, 'centring', None)
            if centred and centring is not None:
                # x is finite (checked above): only then may it enter the mean.  The round
                # keeps the centred x, so every answer and a named label learn what was shown.
                x = centring.apply(x)
            now = self._clock() if now is None else now
            pending = self._pending
            if pending and now - pending[0].stamp > self.feedback_timeout:
                self._expire(now)
            latest = self._latest
            if latest is not None and not latest.answered:
                self.counts['unanswered_superseded'] += 1
                self._end(latest, timed_out=True)
            questions = Questions.start(self.learner, x, self.max_questions, self.reveal_step,
                                        self._rng, first, self.new_label_probation)
            first = questions.asked[0]
            item = Round(self._next_id, x, first, now, False, 1, questions.limit <= 1,
                         questions, raw=raw)
            self._next_id += 1
            if self.open_set.enabled:
                # Switched on since (a fresh calibration): the model file keeps this one.
                self.learner.calibration = self.open_set.calibration
                item.verdict = self.open_set.decide(raw, first)
                if item.verdict.reject:
                    return self._decline(item), ''
            counts = self.counts
            if len(pending) == pending.maxlen:  # _ask, inlined (once per message)
                counts['unanswered_overflow'] += 1
            pending.append(item)
            self._latest = item
            counts['questions_asked'] += 1
            counts['predictions'] += 1
            counts['interactions'] += 1
            explored = int(bool(first.explored))  # _Window.add, inlined (once per message)
            window = self._explored
            window.values.append(explored)
            window.total += explored
            window.count += 1
            return item, ''

    def _decline(self, item: Round) -> Round:
        """End a rejected gesture's interaction at once: no question, a name is wanted."""
        item.questions.decline()
        item.answered = True
        self._latest = item
        self.counts['predictions'] += 1
        self.counts['interactions'] += 1
        self._end(item)
        return item

    def _ask(self, item: Round) -> Round:
        if len(self._pending) == self._pending.maxlen:
            self.counts['unanswered_overflow'] += 1
        self._pending.append(item)
        self._latest = item
        self.counts['questions_asked'] += 1
        return item

    def feedback(self, correct: bool, now: Optional[float] = None) -> FeedbackResult:
        """Apply a yes/no to the latest open question if the rule allows, else drop it."""
        with self._lock:
            now = self._clock() if now is None else now
            counts = self.counts
            counts['feedback_received'] += 1
            pending = self._pending
            if pending and now - pending[0].stamp > self.feedback_timeout:
                self._expire(now)
            latest = self._latest
            if latest is None:
                return self._drop('no_prediction')
            if latest.answered:
                return self._drop('duplicate', latest.id)
            if now - latest.stamp > self.feedback_timeout:
                return self._drop('late', latest.id)
            latest.answered = True
            if pending and pending[-1] is latest:
                pending.pop()  # what remove would find: no other round is this one
            else:
                try:
                    pending.remove(latest)
                except ValueError:
                    pass
            questions = latest.questions
            nxt = questions.answer(bool(correct))
            updates = questions.last_updates
            counts['feedback_matched'] += 1
            counts['updates_applied'] += updates
            if latest.question == 1:
                mistake = 0 if correct else 1  # _Window.add, inlined (once per message)
                window = self._mistakes
                window.values.append(mistake)
                window.total += mistake
                window.count += 1
            result = FeedbackResult('matched', latest.id, updates > 0, latest.question, None,
                                    None, updates)
            if nxt is not None:
                result.next_round = self._ask(Round(
                    id=latest.id, x=latest.x, raw=latest.raw, prediction=nxt, stamp=now,
                    question=questions.number, final=questions.final, questions=questions))
            else:
                result.ended = self._end(latest)
                if questions.revealed is not None and self.open_set.enabled:
                    self.open_set.taught(latest.verdict, questions.revealed, latest.raw)
            return result

    def _end(self, item: Round, timed_out: bool = False) -> Optional[Ended]:
        questions = item.questions
        if timed_out:
            if questions.outcome is not None:
                return None  # ended already (it expired before it was superseded)
            questions.expire()
        asked = questions.asked
        # An ended interaction's rejected list never changes again: shared, not copied.
        ended = Ended(item.id, questions.outcome, questions.n_asked, questions.answers,
                      asked[0].index, questions.revealed, questions.rejected,
                      self._label_names(), item.verdict)
        self.counts['interactions_' + ended.outcome] += 1
        window = self._questions  # _Window.add_value, inlined (once per message)
        window.values.append(ended.questions)
        window.total += ended.questions
        window.count += 1
        self._ended.append(ended)
        return ended

    def _label_names(self) -> List[str]:
        """
        Return the learner's label names now, as a list the ``Ended`` records share.

        A learner only ever appends labels, so a copy of the same learner's labels with as
        many names is still equal to them: copied again only when a label was added or the
        learner replaced (at K = 1000 a copy per interaction cost ~4 us).
        """
        learner = self.learner
        labels = getattr(learner, 'labels', ())
        names = self._names
        if names[0] is not learner or len(names[1]) != len(labels):
            names = self._names = (learner, list(labels))
        return names[1]

    def _drop(self, reason: str, round_id: Optional[int] = None) -> FeedbackResult:
        self.counts['feedback_dropped_' + reason] += 1
        return FeedbackResult(reason, round_id, False)

    def _expire(self, now: float) -> None:
        while self._pending and now - self._pending[0].stamp > self.feedback_timeout:
            item = self._pending.popleft()
            self.counts['unanswered_expired'] += 1
            if item is self._latest:
                self._end(item, timed_out=True)

    def name_unknown(self, name: str) -> int:
        """
        Learn what the latest interaction's gesture was, as a person named it.

        Allowed once, and only while the latest interaction is one that ended without a
        "yes" (``ask_again.NAMEABLE``: every label rejected, the questions ran out, or it was
        rejected as never taught, ``learning.open_set``).  A new name is appended and the
        observation becomes its first example (``BanditLearner.learn_new_label``): a
        gesture the robot did not know.  A known name
        is learned as a "yes" to that label (``Questions.tell``): the robot's questions
        missed it, or an answer was wrong, or the rejection was a false one (which the
        open set's threshold learns from).  A newer gesture supersedes it.

        Returns
        -------
        int
            Index of the label (a new one when ``name`` was not known).

        Raises
        ------
        LearnerInputError
            Nothing to name (the reason says why); nothing changes.

        """
        with self._lock:
            latest = self._latest
            questions = latest.questions if latest else None
            outcome = questions.outcome if questions else None
            if outcome not in NAMEABLE:
                raise LearnerInputError(
                    'no gesture to name: the latest interaction did not end with every label '
                    f'rejected or out of questions (it ended {outcome or "not at all"})')
            if self._named == latest.id:
                raise LearnerInputError(f'interaction {latest.id} was named already')
            if name in self.learner.labels:
                index = self.learner.labels.index(name)
                questions.tell(index)
                self.counts['labels_told'] += 1
                verdict = latest.verdict  # a known gesture: its score calibrates the threshold
            else:
                index = self.learner.learn_new_label(latest.x, name)
                self.counts['labels_named'] += 1
                verdict = None  # rightly not known: the new label's first example only
            if self.open_set.enabled:
                self.open_set.taught(verdict, index, latest.raw)
            self._named = latest.id
            return index

    # -- statistics ----------------------------------------------------------------------
    def stats(self) -> Dict[str, float]:
        """Return counters and rates (first-guess mistakes as the person reported them)."""
        with self._lock:
            out: Dict[str, float] = dict(self.counts)
            out['feedback_dropped'] = sum(self.counts['feedback_dropped_' + r]
                                          for r in DROP_REASONS)
            out['features_refused'] = sum(self.counts['features_' + r]
                                          for r in BAD_INPUT_REASONS)
            out['unanswered'] = len(self._pending)
            out['mistake_rate_window'] = self._mistakes.windowed()
            out['mistake_rate'] = self._mistakes.cumulative()
            out['first_guess_accuracy_window'] = 1.0 - self._mistakes.windowed()
            out['first_guess_accuracy'] = 1.0 - self._mistakes.cumulative()
            out['first_guess_window_rounds'] = len(self._mistakes.values)
            out['first_guess_right_window'] = (len(self._mistakes.values)
                                               - sum(self._mistakes.values))
            out['questions_per_interaction_window'] = self._questions.windowed()
            out['questions_per_interaction'] = self._questions.cumulative()
            out['exploration_rate_window'] = self._explored.windowed()
            out['exploration_rate'] = self._explored.cumulative()
            out['updates'] = self.learner.n_updates if self.learner is not None else 0
            out['labels'] = self.learner.n_labels if self.learner is not None else 0
            out['max_questions'] = self.max_questions
            out.update(self.open_set.stats())
            return out


def _name(learner: Optional[BanditLearner]) -> str:
    """Return a learner's algorithm name; before one exists, a learner that may ask again."""
    return getattr(learner, 'name', 'ucwl') if learner is not None else 'ucwl'


@dataclass
class TeacherAnswer:
    """A simulated answer: ``answer`` None is silence; ``truth`` None means no label known."""

    answer: Optional[bool]
    truth: Optional[str]
    right: Optional[bool]


class SimulatedTeacher:
    """
    A person who knows the true label of each observation and answers with noise.

    The label of an observation arrives (``observe``) just before its first question
    (``answer`` with ``question=1``), which takes it; the later questions of the same
    interaction are answered about that label; a first question without a fresh label, or a
    later one of an interaction the teacher did not see begin, gets no answer.  The random
    draws per answer are those of ``TeacherModel.answer`` (after one label-noise draw per
    interaction when ``label_noise`` > 0: the label in mind stays for all its questions), so
    an offline loop with the same seed gives the same answers.

    Parameters
    ----------
    model : TeacherModel
        Noise rates and silence probability (flip noise applies to every answer).
    seed : int
        Seed of the teacher's random generator.
    labels : sequence of str
        Label names label noise draws from; empty = the names observed so far.
    window : int
        Interactions in the windowed true (first-guess) mistake rate.

    """

    def __init__(self, model: TeacherModel, seed: int = 0, labels=(), window: int = 100):
        self.model = model
        self.rng = np.random.default_rng(seed)
        self.labels = [str(lb) for lb in labels]
        self._seen: Dict[str, None] = {}
        self._current: Optional[str] = None
        self._interaction: Optional[Tuple[Optional[int], str, str]] = None
        self._mistakes = _Window(window)
        self.counts: Dict[str, int] = dict.fromkeys(
            ('labels_received', 'predictions_received', 'later_questions', 'answers',
             'silences', 'flipped', 'no_label', 'labels_unused'), 0)

    def observe(self, label: str) -> None:
        """Take the true label of the next observation."""
        if self._current is not None:
            self.counts['labels_unused'] += 1
        self._current = str(label)
        self._seen.setdefault(self._current, None)
        self.counts['labels_received'] += 1

    def answer(self, predicted: str, question: int = 1,
               interaction: Optional[int] = None) -> TeacherAnswer:
        """Answer one question (None = say nothing) of interaction ``interaction``."""
        self.counts['predictions_received'] += 1
        if question > 1:
            self.counts['later_questions'] += 1
            bound = self._interaction
            if bound is None or (interaction is not None and bound[0] != interaction):
                self.counts['no_label'] += 1
                return TeacherAnswer(None, None, None)
            _, truth, observed = bound
            right = str(predicted) == truth
        else:
            truth, self._current = self._current, None
            if truth is None:
                self._interaction = None
                self.counts['no_label'] += 1
                return TeacherAnswer(None, None, None)
            right = str(predicted) == truth
            self._mistakes.add(not right)
            observed = truth
            if self.model.label_noise > 0:
                names = self.labels or list(self._seen)
                if self.rng.random() < self.model.label_noise:
                    observed = names[int(self.rng.integers(len(names)))]
            self._interaction = (interaction, truth, observed)
        said = self.model.answer(str(predicted), observed, self.rng)
        if said is None:
            self.counts['silences'] += 1
        else:
            self.counts['answers'] += 1
            self.counts['flipped'] += int(said != right)
        return TeacherAnswer(said, truth, right)

    def stats(self) -> Dict[str, float]:
        """Return counters and the true first-guess mistake rates (windowed and overall)."""
        out: Dict[str, float] = dict(self.counts)
        out['true_mistake_rate_window'] = self._mistakes.windowed()
        out['true_mistake_rate'] = self._mistakes.cumulative()
        out['rounds'] = self._mistakes.count
        out['window_rounds'] = len(self._mistakes.values)
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
