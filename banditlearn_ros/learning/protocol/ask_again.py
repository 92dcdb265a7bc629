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
Ask again after a "no": up to ``max_questions`` yes/no questions about one presented gesture.

One *interaction* per presented gesture, one or more *questions* in it:

- question 1 is the learner's own choice (UCWL: the upper confidence bound, Ngo et al. 2013
  Algorithm 1, line 11);
- after a "no", the next question is the label with the best bound among the labels not yet
  rejected in this interaction (ties at random from the protocol's seed);
- a "yes" ends the interaction and reveals the label; a "no" to every label ends it
  ``all_rejected`` (the gesture may be one the robot does not know); running out of
  questions with labels left ends it ``out_of_questions``; no answer ends it ``timed_out``.

The last remaining label is *asked*, never inferred: only its "no" tells a new gesture from
a known one, and after noisy answers the one label left is often not the shown one.

Every answer is a learning step.  A "no" is the paper's step with ``z = -1`` on the asked
label; a "yes" the step with ``z = +1`` on it (Ngo et al. 2013 Algorithm 1, lines 12-17).  A
revealed label also says that every other label is wrong; ``reveal_step`` chooses what the
model takes from that:

- ``'none'``: nothing beyond the answers;
- ``'top1'``: the ``z = -1`` step on the best-scoring label not asked in this interaction,
  which completes Ngo et al. 2013's full-feedback top-1 rule (section 5: promote the true label,
  demote the best-scoring wrong one);
- ``'all'``: the ``z = -1`` step on every label not asked;
- ``'all_known'``: as ``'all'``, but not on a label still on probation (below).  A new
  label has no example of its own yet: every other gesture's reveal would step it with
  ``z = -1``, shrinking its covariance (Ngo et al. 2013 Algorithm 1, line 16) before it has
  seen one of its own, so that its own "yes" answers later move it little; and a wrong "yes"
  at its first showing would step it away from its own gesture.  On probation it learns from
  the questions asked about it alone (benchmarks/bench_new_gesture.py measures both).

``max_questions = 1`` is the paper's protocol exactly: one question, one step, no reveal
step (docs/benchmarks.md measures the choice of ``reveal_step``).

A label added at runtime is on *probation* until it has had ``probation`` "yes" answers:
it is not asked first, only from question 2 on.  Its classifier starts from what the
others learned (``UCWL.add_label``, the moment-matched mixture), so it is most uncertain
exactly in the directions that tell the known gestures apart, and its bound (Ngo et al. 2013
Algorithm 1, line 9) wins question 1 on gestures already known until enough noes have
shrunk it: each such win is a wrong first guess the person pays for.  Asked second, it
costs the known gestures nothing (their first guess was already made), and a shown new
gesture still reaches it after one "no", so it learns from its first showings; once
confirmed, it competes for question 1 on its bound like every label.  With one question
there is no second one to wait for, so probation does not apply (Ngo et al. 2013's protocol).

Only learners with one classifier per label, updated on the asked label alone (UCWL,
Confidit), can ask again: the other bandit learners' steps are weighted by the probability
with which the output was drawn, which a second question does not have.
"""

from dataclasses import dataclass, field, replace
from typing import Callable, List, Optional, Tuple

import numpy as np

from ..algorithms.base import BanditLearner, check_choice, HyperparameterError, Prediction

REVEAL_STEPS = ('none', 'top1', 'all', 'all_known')
"""What a revealed label teaches the labels that were not asked."""

DEFAULT_REVEAL_STEP = 'all'
"""Chosen by measurement (docs/benchmarks.md, bench_ask_again.py)."""

DEFAULT_PROBATION = 3
""""Yes" answers a label added at runtime needs before it may be asked first (measured:
docs/benchmarks.md, bench_new_gesture.py)."""

OUTCOMES = ('yes', 'all_rejected', 'out_of_questions', 'timed_out', 'unknown')
"""How an interaction ended ('unknown': rejected as never taught, ``algorithms.open_set``)."""

NAMEABLE = ('all_rejected', 'out_of_questions', 'unknown')
"""Endings after which a person may say what the gesture was (``Interaction.name_unknown``)."""

ASK_AGAIN_ALGORITHMS = ('ucwl', 'confidit')
"""Learners that may ask more than one question per interaction."""


def check_questions(max_questions: int) -> int:
    """Return ``max_questions`` checked (an integer >= 0), or raise HyperparameterError."""
    if isinstance(max_questions, bool) or not isinstance(max_questions, (int, np.integer)):
        raise HyperparameterError(f'max_questions must be an integer, got {max_questions!r}')
    if max_questions < 0:
        raise HyperparameterError(f'max_questions must be >= 0 (0 = every label), '
                                  f'got {max_questions}')
    return int(max_questions)


def check_probation(probation: int) -> int:
    """Return ``probation`` checked (an integer >= 0), or raise HyperparameterError."""
    if isinstance(probation, bool) or not isinstance(probation, (int, np.integer)) \
            or probation < 0:
        raise HyperparameterError(f'new_label_probation must be an integer >= 0, '
                                  f'got {probation!r}')
    return int(probation)


@dataclass(frozen=True)
class Protocol:
    """
    The question protocol of a live learner, checked whole when made (a bad value raises).

    Change it with ``changed``, which makes a new, checked value: the interaction swaps the
    whole value, so it never runs with half a change.  ``max_questions`` is a most: a gesture
    gets ``questions_for(algorithm)`` questions at most, 1 for a learner that cannot ask
    again (``ASK_AGAIN_ALGORITHMS``), and never more than there are labels.
    """

    max_questions: int = 1
    """Questions per interaction (1 = the paper's protocol; 0 = as many as labels)."""
    reveal_step: str = DEFAULT_REVEAL_STEP
    """What a revealed label teaches the labels not asked (``REVEAL_STEPS``)."""
    new_label_probation: int = DEFAULT_PROBATION
    """"Yes" answers a label added at runtime needs before it may be asked first."""

    def __post_init__(self):
        object.__setattr__(self, 'max_questions', check_questions(self.max_questions))
        check_choice('reveal_step', self.reveal_step, REVEAL_STEPS)
        object.__setattr__(self, 'new_label_probation',
                           check_probation(self.new_label_probation))

    def changed(self, **changes) -> 'Protocol':
        """Return this protocol with ``changes`` (field names), checked; raise if bad."""
        return replace(self, **changes)

    def questions_for(self, algorithm: str) -> int:
        """Return the most questions ``algorithm`` asks under this protocol (0 = every label)."""
        return self.max_questions if algorithm in ASK_AGAIN_ALGORITHMS else 1


PROTOCOL_PARAMETERS = ('max_questions', 'reveal_step', 'new_label_probation')
"""The node parameters a ``Protocol`` is made of (its field names)."""


def check_protocol(algorithm: str, max_questions: int, reveal_step: str) -> Tuple[int, str]:
    """
    Return ``(max_questions, reveal_step)`` checked, or raise HyperparameterError.

    For the offline entry points, which run one protocol per table row: asking a learner
    that cannot ask again for more than one question is refused there, not capped (a live
    learner caps it, ``Protocol.questions_for``).  ``max_questions`` 0 means as many
    questions as there are labels.
    """
    protocol = Protocol(max_questions, reveal_step)
    if protocol.questions_for(algorithm) != protocol.max_questions:
        raise HyperparameterError(
            f'{algorithm} cannot ask again (max_questions={max_questions}); it needs one of '
            f'{list(ASK_AGAIN_ALGORITHMS)}, or max_questions=1')
    return protocol.max_questions, protocol.reveal_step


@dataclass(slots=True)
class Questions:
    """
    The questions of one interaction and what they taught the model.

    Create it with ``start``; give each answer to ``answer`` until ``outcome`` is set.

    Attributes
    ----------
    x : numpy.ndarray
        The presented gesture's features.
    asked : list of Prediction
        The questions so far; ``asked[0]`` is the learner's own choice.  Later ones copy its
        ``scores`` and ``bounds`` (those of the labels not yet rejected are unchanged, since
        a "no" steps the rejected label's classifier only) with ``index`` and ``label`` set.
    limit : int
        Most questions in this interaction.
    outcome : str or None
        One of ``OUTCOMES`` once the interaction is over.
    revealed : int or None
        The label a "yes" revealed.
    updates : int
        Model updates made by all answers so far; ``last_updates`` those of the last one.

    """

    learner: BanditLearner
    x: np.ndarray
    asked: List[Prediction]
    limit: int
    reveal_step: str
    rng: np.random.Generator
    rejected: List[int] = field(default_factory=list)
    outcome: Optional[str] = None
    revealed: Optional[int] = None
    updates: int = 0
    last_updates: int = 0
    answers: int = 0
    checked: bool = False
    """x is a float64 vector the learner's ``select_valid`` took (see ``start``)."""
    probation: int = 0
    """``new_label_probation`` in force (``'all_known'`` spares the labels on it)."""
    declined: bool = False
    """The gesture was rejected as never taught: ``asked[0]`` was never asked (``decline``)."""

    @classmethod
    def start(cls, learner: BanditLearner, x: np.ndarray, max_questions: int = 1,
              reveal_step: str = DEFAULT_REVEAL_STEP,
              rng: Optional[np.random.Generator] = None,
              first: Optional[Prediction] = None,
              probation: int = 0) -> 'Questions':
        """
        Ask question 1: the learner's own choice for ``x``.

        ``first`` is that choice when the caller made it already with the learner's
        ``select_valid`` (``Interaction`` does): the answers then learn through
        ``learn_valid``, without checking x again.  With more than one question, a label
        added at runtime that has had fewer than ``probation`` "yes" answers is not asked
        first (``new_label_probation``): question 1 is then the best bound among the other
        labels, and the new label competes from question 2 on.
        """
        checked = first is not None
        if not checked:
            first = learner.select(x)
        n = len(first.bounds)
        limit = n if max_questions == 0 else min(int(max_questions), n)
        if limit == 1:
            reveal_step = 'none'  # the paper's protocol, exactly
        q = cls(learner=learner, x=x, asked=[first], limit=limit, reveal_step=reveal_step,
                rng=rng if rng is not None else np.random.default_rng(0), checked=checked,
                probation=int(probation))
        if limit > 1 and probation > 0:
            waiting = learner.on_probation(probation)
            if first.index in waiting and len(waiting) < n:
                mask = np.ones(n, dtype=bool)
                mask[waiting] = False
                q.asked[0] = q._question(mask)
        return q

    @property
    def current(self) -> Prediction:
        """Return the open (latest) question."""
        return self.asked[-1]

    @property
    def number(self) -> int:
        """Return the number of the open question (1-based)."""
        return len(self.asked)

    @property
    def final(self) -> bool:
        """Return whether a "no" to the open question ends the interaction."""
        return len(self.asked) >= self.limit

    @property
    def first(self) -> Prediction:
        """Return question 1 (the first guess, what the papers measure)."""
        return self.asked[0]

    def answer(self, said: bool) -> Optional[Prediction]:
        """
        Learn from the answer to the open question; return the next question, or None.

        None means the interaction is over (``outcome`` says how).
        """
        if self.outcome is not None:
            raise ValueError(f'the interaction is over ({self.outcome})')
        asked = self.asked
        question = asked[-1]
        said = bool(said)
        self.answers += 1
        if self.checked:
            changed = self.learner.learn_valid(self.x, question.index, said, question)
        else:
            changed = int(bool(self.learner.learn(self.x, question.index, said,
                                                  prediction=question)))
        if said:
            self.revealed = question.index
            self.outcome = 'yes'
            self.learner.confirm(question.index)
            changed += self._reveal()
        else:
            self.rejected.append(question.index)
        self.last_updates = changed
        self.updates += changed
        if said:
            return None
        if len(self.rejected) == len(question.bounds):
            self.outcome = 'all_rejected'
            return None
        if len(asked) >= self.limit:
            self.outcome = 'out_of_questions'
            return None
        nxt = self._next()
        asked.append(nxt)
        return nxt

    def tell(self, index: int) -> int:
        """
        Learn the label a person named after the questions ran out or all were rejected.

        The same steps as a "yes" to ``index`` (and ``reveal_step``), on the observation the
        interaction was about; ``outcome`` stays as it was.  Returns the updates made.
        """
        if self.outcome not in NAMEABLE:
            raise ValueError(f'only an interaction that ended {" or ".join(NAMEABLE)} can be '
                             f'told its label (it ended {self.outcome or "not at all"})')
        if self.revealed is not None:
            raise ValueError('this interaction was told its label already')
        changed = int(bool(self.learner.learn(self.x, index, True)))
        self.revealed = index
        self.learner.confirm(index)
        changed += self._reveal()
        self.updates += changed
        return changed

    def decline(self) -> None:
        """
        End the interaction unasked: the gesture looks never taught (no more learning).

        Before question 1 nothing was asked (``declined``); after a "no" (a recheck,
        ``learning.algorithms.open_set``) the next question, made but not yet asked, is taken back.
        """
        if self.outcome is not None:
            return
        if not self.answers:
            self.declined = True
        elif len(self.asked) > len(self.rejected):
            self.asked.pop()
        self.outcome = 'unknown'

    @property
    def n_asked(self) -> int:
        """Return how many questions were asked (0 for a declined interaction)."""
        return 0 if self.declined else len(self.asked)

    def expire(self) -> None:
        """End the interaction for want of an answer (no learning)."""
        if self.outcome is None:
            self.outcome = 'timed_out'
            self.last_updates = 0

    def _unasked(self) -> np.ndarray:
        mask = np.ones(len(self.first.bounds), dtype=bool)
        if not self.declined:
            mask[[q.index for q in self.asked]] = False
        return mask

    def _best(self, values: np.ndarray, mask: np.ndarray) -> int:
        """Argmax of ``values`` over ``mask`` with ties at random from the protocol's rng."""
        masked = np.where(mask, values, -np.inf)
        best = np.flatnonzero(masked == masked.max())
        return int(best[0] if best.size == 1 else best[self.rng.integers(best.size)])

    def _next(self) -> Prediction:
        return self._question(self._unasked())

    def _question(self, mask: np.ndarray) -> Prediction:
        """Return question 1's prediction moved to the best bound among ``mask``."""
        first = self.first
        chosen = self._best(np.asarray(first.bounds, dtype=np.float64), mask)
        scores = np.asarray(first.scores, dtype=np.float64)
        greedy = int(np.flatnonzero(mask)[np.argmax(scores[mask])])
        return replace(first, index=chosen, label=self.learner.labels[chosen],
                       explored=bool(scores[chosen] < scores[mask].max()), greedy=greedy,
                       probability=1.0)

    def _reveal(self) -> int:
        """Apply ``reveal_step`` for the revealed label; return the updates made."""
        if self.reveal_step == 'none':  # the one-question protocol: nothing to build
            return 0
        mask = self._unasked()
        mask[self.revealed] = False  # a label told after the questions may not have been asked
        if self.reveal_step == 'all_known' and self.probation > 0:
            mask[self.learner.on_probation(self.probation)] = False
        if not mask.any():
            return 0
        if self.reveal_step == 'top1':
            targets = [self._best(self.learner.scores(self.x), mask)]
        else:
            targets = np.flatnonzero(mask).tolist()
        return sum(int(bool(self.learner.learn(self.x, j, False))) for j in targets)


def run_interaction(learner: BanditLearner, x: np.ndarray,
                    ask: Callable[[int, int], Optional[bool]], max_questions: int = 1,
                    reveal_step: str = DEFAULT_REVEAL_STEP,
                    rng: Optional[np.random.Generator] = None,
                    probation: int = 0) -> Questions:
    """
    Run one whole interaction offline; ``ask(label index, question number)`` answers.

    ``ask`` returning None is silence: the interaction ends ``timed_out``.
    """
    q = Questions.start(learner, x, max_questions, reveal_step, rng, probation=probation)
    while q.outcome is None:
        said = ask(q.current.index, q.number)
        if said is None:
            q.expire()
        else:
            q.answer(said)
    return q
