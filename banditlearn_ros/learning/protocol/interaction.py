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
*questions* in it (``ask_again``: after a "no" the robot asks its next-best label).
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

An answer that names its question (``answer_key``: a page tap, a nod the feedback node heard
after a question) is applied to that question only: when it is not the latest question it is
dropped as ``duplicate`` (an earlier question of the latest interaction, answered since it
was asked again) or ``not_open`` (an older interaction). So two answers to one question, from
any two sources in any order, are one answer: the second is dropped.

Dropped feedback is never applied to another question: not to an older one, not to an
earlier question of the same interaction, not to the next one.  A new gesture ends an
interaction still waiting for its answer (``timed_out``).  Unanswered questions wait in a
bounded queue until they are answered, expire or are pushed out by newer ones; only the
newest can still be answered, the queue exists so that what was never answered is counted
and memory stays bounded.
"""

from collections import deque
import threading
import time
from typing import Callable, Deque, Dict, List, Optional, Tuple

import numpy as np

from .ask_again import (
    DEFAULT_PROBATION, DEFAULT_REVEAL_STEP, NAMEABLE, OUTCOMES, Protocol, Questions)
from .interaction_records import (
    BAD_INPUT_REASONS, check_features, Counts, DROP_REASONS, Ended, FeedbackResult, Rates,
    Round, SharedLabels, sized_features)
from ..algorithms.base import BanditLearner, LearnerInputError
from ..algorithms.open_set import OpenSet
from ..engine import plug


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
    max_questions, reveal_step, new_label_probation : int, str, int
        The ``ask_again.Protocol`` to start with, by its fields (when ``protocol`` is None).
    protocol : ask_again.Protocol, optional
        The question protocol; ``set_protocol`` swaps it whole, from the next interaction.
    algorithm : str
        The algorithm ``make_learner`` builds ('' = one that may ask again): it decides the
        questions in force (``Protocol.questions_for``) before a learner exists.
    seed : int
        Seed of the tie-breaks between equally good next questions.
    open_set : OpenSet, optional
        Rejection of never-taught gestures (``learning.algorithms.open_set``); None = off.

    """

    def __init__(self, make_learner: Callable[[int], BanditLearner],
                 learner: Optional[BanditLearner] = None, feedback_timeout: float = 10.0,
                 max_unanswered: int = 100, window: int = 100, n_features: int = 0,
                 clock: Callable[[], float] = time.monotonic, max_questions: int = 1,
                 reveal_step: str = DEFAULT_REVEAL_STEP, seed: int = 0,
                 new_label_probation: int = DEFAULT_PROBATION,
                 open_set: Optional[OpenSet] = None, protocol: Optional[Protocol] = None,
                 algorithm: str = ''):
        if feedback_timeout <= 0:
            raise ValueError(f'feedback_timeout must be > 0, got {feedback_timeout}')
        if max_unanswered < 1:
            raise ValueError(f'max_unanswered must be >= 1, got {max_unanswered}')
        self._make = make_learner
        self.learner = plug(learner)  # a plain UCWL runs on the fast engine, same decisions
        self.feedback_timeout = float(feedback_timeout)
        self._protocol = protocol if protocol is not None else Protocol(
            max_questions, reveal_step, new_label_probation)
        self.algorithm = algorithm
        self.open_set = open_set if open_set is not None else OpenSet()
        if learner is not None:
            self.open_set.adopt(self.learner)  # a loaded model's calibration, if it has one
        self._n_features = int(n_features)
        self._clock = clock
        self._lock = threading.RLock()
        self._rng = np.random.default_rng(seed)
        self._pending: Deque[Round] = deque(maxlen=int(max_unanswered))
        self._latest: Optional[Round] = None
        self._named: Optional[int] = None
        self._next_id = 0
        self._ended: Deque[Ended] = deque(maxlen=int(max_unanswered))
        self._names = SharedLabels()
        self._rates = Rates(window)
        self.counts = Counts(
            ('predictions', 'feedback_received', 'feedback_matched', 'updates_applied',
             'unanswered_superseded', 'unanswered_expired', 'unanswered_overflow',
             'interactions', 'questions_asked', 'labels_named', 'labels_told')
            + tuple('interactions_' + o for o in OUTCOMES)
            + tuple('feedback_dropped_' + r for r in DROP_REASONS)
            + tuple('features_' + r for r in BAD_INPUT_REASONS))

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

    @property
    def protocol(self) -> Protocol:
        """Return the question protocol in force (``set_protocol`` swaps it)."""
        return self._protocol

    @property
    def max_questions(self) -> int:
        """Return the most questions per interaction in force (0 = every label)."""
        learner = self.learner
        name = getattr(learner, 'name', 'ucwl') if learner is not None else \
            self.algorithm or 'ucwl'
        return self._protocol.questions_for(name)

    @property
    def reveal_step(self) -> str:
        """Return the protocol's ``reveal_step``."""
        return self._protocol.reveal_step

    @property
    def new_label_probation(self) -> int:
        """Return the protocol's ``new_label_probation``."""
        return self._protocol.new_label_probation

    def set_protocol(self, protocol: Optional[Protocol] = None, **changes) -> None:
        """
        Swap the protocol whole, from the next interaction on; a bad value changes nothing.

        ``protocol`` (default: the one in force) with ``changes`` to its fields.
        """
        new = (protocol if protocol is not None else self._protocol).changed(**changes)
        with self._lock:
            self._protocol = new

    def reset(self) -> None:
        """Start a fresh model; pending questions are forgotten (their feedback is dropped)."""
        with self._lock:
            d = self.n_features
            self.learner = plug(self._make(d)) if d else None
            self._pending.clear()
            self._latest = None
            self.open_set.reset()
            self.open_set.adopt(self.learner)

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
            if learner is None or learner.centring.active:  # no learner yet, or centring
                x, reason = check_features(
                    values, learner.n_features if learner is not None else self._n_features)
                first = None
            else:
                # The learner refuses NaN and infinity itself, with nothing changed, before
                # any bookkeeping below (which never touches the model).
                x, reason = sized_features(values, learner.n_features)
                first = learner.select_valid(x) if x is not None else None
                if x is not None and first is None:
                    x, reason = None, 'not_finite'
            if x is None:
                self.counts['features_' + reason] += 1
                return None, reason
            if learner is None:
                self.learner = plug(self._make(x.size))
                self.open_set.adopt(self.learner)
            # x is finite (checked above): only then may it enter the mean.  The round keeps
            # the centred x, so every answer and a named label learn what was shown; the open
            # set scores the raw one.
            raw, x = x, self.learner.centred(x)
            outlier = self.learner.centring.last_outlier
            now = self._clock() if now is None else now
            pending = self._pending
            if pending and now - pending[0].stamp > self.feedback_timeout:
                self._expire(now)
            latest = self._latest
            if latest is not None and not latest.answered:
                self.counts['unanswered_superseded'] += 1
                self._end(latest, timed_out=True)
            protocol = self._protocol  # swapped whole: one value for the whole interaction
            questions = Questions.start(
                self.learner, x, protocol.questions_for(getattr(self.learner, 'name', 'ucwl')),
                protocol.reveal_step, self._rng, first, protocol.new_label_probation)
            first = questions.asked[0]
            item = Round(id=self._next_id, x=x, prediction=first, stamp=now,
                         final=questions.limit <= 1, questions=questions, raw=raw,
                         outlier=outlier)
            self._next_id += 1
            if self.open_set.enabled:
                # Switched on since (a fresh calibration): the model file keeps this one.
                self.learner.calibration = self.open_set.calibration
                item.verdict = self.open_set.decide(raw, first)
                if item.verdict.reject:
                    return self._decline(item), ''
            self._ask(item)
            self.counts['predictions'] += 1
            self.counts['interactions'] += 1
            self._rates.explored.add(first.explored)
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

    def feedback(self, correct: bool, now: Optional[float] = None,
                 key: Optional[Tuple[int, int]] = None) -> FeedbackResult:
        """
        Apply a yes/no to the latest open question if the rule allows, else drop it.

        ``key`` (interaction id, question number), when the answer names its question: it
        applies only if that is the latest question (see the module's rule).
        """
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
            if key is not None and tuple(key) != (latest.id, latest.question):
                return self._drop('duplicate' if key[0] == latest.id else 'not_open',
                                  int(key[0]))
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
            if not correct:
                self.open_set.denied(latest.prediction.index, latest.raw)
            updates = questions.last_updates
            counts['feedback_matched'] += 1
            counts['updates_applied'] += updates
            if latest.question == 1:
                self._rates.mistakes.add(not correct)
            result = FeedbackResult('matched', latest.id, updated=updates > 0,
                                    question=latest.question, updates=updates)
            if nxt is not None and latest.verdict is not None:
                # After a "no": the gesture may be rejected now, before the next question.
                latest.verdict = self.open_set.recheck(latest.verdict, latest.raw, nxt,
                                                       questions.number)
                if latest.verdict.reject:
                    questions.decline()
                    nxt = None
            if nxt is not None:
                result.next_round = self._ask(Round(
                    id=latest.id, x=latest.x, raw=latest.raw, prediction=nxt, stamp=now,
                    question=questions.number, final=questions.final, questions=questions,
                    verdict=latest.verdict))
            else:
                result.ended = self._end(latest)
                if questions.revealed is not None and self.open_set.enabled:
                    self.open_set.taught(latest.verdict, questions.revealed, latest.raw,
                                         question=questions.number)
            return result

    def _end(self, item: Round, timed_out: bool = False) -> Optional[Ended]:
        questions = item.questions
        if timed_out:
            if questions.outcome is not None:
                return None  # ended already (it expired before it was superseded)
            questions.expire()
        asked = questions.asked
        # An ended interaction's rejected list never changes again: shared, not copied.
        ended = Ended(id=item.id, outcome=questions.outcome, questions=questions.n_asked,
                      answers=questions.answers, first=asked[0].index,
                      revealed=questions.revealed, rejected=questions.rejected,
                      labels=self._names.of(self.learner), verdict=item.verdict)
        self.counts['interactions_' + ended.outcome] += 1
        self._rates.questions.add(ended.questions)
        self._ended.append(ended)
        return ended

    def _drop(self, reason: str, round_id: Optional[int] = None) -> FeedbackResult:
        self.counts['feedback_dropped_' + reason] += 1
        return FeedbackResult(reason, round_id)

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
        rejected as never taught, ``algorithms.open_set``).  A new name is appended and the
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
                self.open_set.taught(verdict, index, latest.raw, named=True)
            self._named = latest.id
            return index

    # -- statistics ----------------------------------------------------------------------
    def stats(self) -> Dict[str, float]:
        """Return counters and rates (first-guess mistakes as the person reported them)."""
        with self._lock:
            out: Dict[str, float] = dict(self.counts)
            out['feedback_dropped'] = self.counts.total('feedback_dropped_', DROP_REASONS)
            out['features_refused'] = self.counts.total('features_', BAD_INPUT_REASONS)
            out['centring_outliers'] = (self.learner.centring.outliers
                                        if self.learner is not None else 0)
            out['unanswered'] = len(self._pending)
            out.update(self._rates.stats())
            out['updates'] = self.learner.n_updates if self.learner is not None else 0
            out['labels'] = self.learner.n_labels if self.learner is not None else 0
            out['max_questions'] = self.max_questions
            out.update(self.open_set.stats())
            return out
