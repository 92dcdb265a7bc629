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
A teaching session as the person lived it: interactions, their questions and answers.

Built from what goes over the topics (the true gesture when a simulation knows it, each
question with its interaction id and number, each yes/no), so the same record serves the
rendered demo and a real person.  The first guess of an interaction is what the papers
measure (Ngo et al. 2013, section 5: the online mistake rate); questions per interaction is what
asking again costs the person.
"""

from dataclasses import dataclass, field
import math
from typing import Any, Dict, List, Optional, Set, Tuple

import numpy as np


@dataclass
class InteractionRecord:
    """One presented gesture: the questions asked about it and the answers given."""

    id: int  # noqa: A003 (the name the details JSON uses)
    truth: Optional[str]
    """The shown gesture when known (simulation), else None."""
    questions: List[str] = field(default_factory=list)
    answers: List[bool] = field(default_factory=list)
    ended: Optional[Tuple[int, int]] = None
    """Questions and answers the learner counted when it announced the end, if it did."""

    @property
    def over(self) -> bool:
        """
        Return True once the learner ended it and all its questions and answers are in.

        The end comes on its own topic, so it may arrive before the last question does.
        """
        return self.ended is not None and len(self.questions) >= self.ended[0] and \
            len(self.answers) >= self.ended[1]

    @property
    def asked(self) -> int:
        """Return the questions asked: as the learner counted them, when it said so."""
        return max(len(self.questions), self.ended[0] if self.ended is not None else 0)

    @property
    def first_guess(self) -> str:
        """Return the first label the robot said."""
        return self.questions[0]

    @property
    def first_right(self) -> Optional[bool]:
        """Return whether the first guess was right: from the truth, else the first answer."""
        if self.truth is not None:
            return self.first_guess == self.truth
        return self.answers[0] if self.answers else None


class SessionLog:
    """
    Interactions in order, from questions (with interaction ids), answers and true labels.

    Parameters
    ----------
    window : int
        Interactions in the windowed first-guess accuracy.

    Examples
    --------
    >>> log = SessionLog()
    >>> log.on_label('five'); log.on_question('four', 0); log.on_answer(False)
    >>> log.on_question('five', 0, 2); log.on_answer(True)
    >>> log.interactions, log.accuracy(), log.questions_per_interaction()
    (1, 0.0, 2.0)

    """

    def __init__(self, window: int = 50):
        if window < 1:
            raise ValueError('window must be >= 1')
        self.window = int(window)
        self.records: List[InteractionRecord] = []
        self._truth: Optional[str] = None
        self._ends: Dict[int, Tuple[int, int]] = {}  # announced before their first question
        self.answers_without_question = 0
        self.rejected: Set[int] = set()
        """Interactions the learner ended as never taught ('unknown'), after a question or not."""
        self.rejected_unasked: List[Optional[str]] = []
        """The shown gesture (None: not known) of each one rejected before any question."""

    @property
    def interactions(self) -> int:
        """Return the interactions started (first questions asked)."""
        return len(self.records)

    @property
    def current(self) -> Optional[InteractionRecord]:
        """Return the latest interaction, if any."""
        return self.records[-1] if self.records else None

    def head(self, n: int) -> 'SessionLog':
        """Return a log of the first ``n`` interactions only (shares their records)."""
        log = SessionLog(window=self.window)
        log.records = self.records[:max(int(n), 0)]
        return log

    def keep_first(self, n: int) -> None:
        """Forget every interaction after the first ``n`` (a session planned for ``n``)."""
        del self.records[int(n):]

    def on_label(self, label: str) -> None:
        """Take the true gesture of the next interaction (a simulated presentation)."""
        self._truth = str(label)

    def on_question(self, label: str, interaction: Optional[int] = None,
                    question: Optional[int] = None) -> None:
        """
        Record a question; a new interaction id (or no id at all) starts an interaction.

        ``question`` > 1 with the current id continues it (asking again after a "no").
        """
        rec = self.current
        same = rec is not None and interaction is not None and rec.id == interaction and \
            (question is None or question > 1)
        if not same:
            ident = interaction if interaction is not None else len(self.records)
            rec = InteractionRecord(ident, self._truth, ended=self._ends.pop(ident, None))
            self._truth = None
            self.records.append(rec)
        rec.questions.append(str(label))

    def on_end(self, interaction: int, questions: int, answers: int,
               outcome: Optional[str] = None) -> None:
        """Take the learner's word that an interaction ended, with what it asked and heard."""
        ident, counted = int(interaction), (int(questions), int(answers))
        if outcome == 'unknown':  # rejected as never taught
            self.rejected.add(ident)
            if questions == 0:  # no question: no record; the shown gesture was its own
                self.rejected_unasked.append(self._truth)
                self._truth = None
                return
        for rec in reversed(self.records[-4:]):  # the latest few: ends come in order
            if rec.id == ident:
                rec.ended = counted
                return
        later = not self.records or ident > self.records[-1].id
        if questions > 0 and later and len(self._ends) < 16:  # its first question is on its way
            self._ends[ident] = counted

    def complete(self, n: int) -> bool:
        """
        Return True once the first ``n`` interactions are all in, each with all its questions.

        The ``n``-th is over when the learner announced its end and every question and answer
        it counted arrived, or when the next one began.  A session planned for ``n`` takes its
        summary then, so it counts what a replay of the recording counts (the first ``n``
        interactions with every question recorded), however late the last questions come.
        """
        n = int(n)
        if n <= 0 or len(self.records) > n:
            return True
        return len(self.records) == n and self.records[-1].over

    def on_answer(self, right: bool) -> None:
        """Record a yes/no; it is about the latest question."""
        rec = self.current
        if rec is None or len(rec.answers) >= len(rec.questions):
            self.answers_without_question += 1
            return
        rec.answers.append(bool(right))

    def first_right(self) -> np.ndarray:
        """Return 1/0 per interaction whose first guess is judged, in order."""
        values = [r.first_right for r in self.records]
        return np.array([int(v) for v in values if v is not None], dtype=np.int64)

    def accuracy(self, last: Optional[int] = None) -> float:
        """Return the first-guess accuracy over the last ``last`` judged interactions."""
        right = self.first_right()
        if last is not None:
            right = right[-int(last):]
        return float(right.mean()) if right.size else math.nan

    def windowed_accuracy(self) -> float:
        """Return the first-guess accuracy over the last ``window`` interactions."""
        return self.accuracy(self.window)

    def questions_per_interaction(self) -> float:
        """
        Return the mean number of questions asked per interaction.

        The learner's count where it announced one: a question that expired on its way here
        (a late reader under load) was still asked, and a replay of the recording counts it.
        """
        if not self.records:
            return math.nan
        return float(np.mean([r.asked for r in self.records]))

    def never_taught(self, labels: List[str]) -> Dict[str, Any]:
        """
        Return how the gestures shown but never among ``labels`` fared (a simulation's truth).

        ``shown`` of them came, ``rejected`` were said to be never taught ("I don't know"),
        ``questions_per_gesture`` yes/no questions were asked about each; ``taught_rejected``
        counts taught gestures rejected the same way (false rejections).

        >>> log = SessionLog()
        >>> log.on_label('x'); log.on_end(0, 0, 0, 'unknown')
        >>> log.on_label('x'); log.on_question('a', 1); log.on_answer(False)
        >>> log.on_end(1, 1, 1, 'unknown')
        >>> log.on_label('a'); log.on_question('a', 2); log.on_answer(True)
        >>> log.never_taught(['a', 'b'])
        {'shown': 2, 'rejected': 2, 'questions_per_gesture': 0.5, 'taught_rejected': 0}
        """
        known = set(labels)
        asked = [r for r in self.records if r.truth is not None and r.truth not in known]
        unasked = [t for t in self.rejected_unasked if t is not None and t not in known]
        taught = sum(1 for t in self.rejected_unasked if t in known) + sum(
            1 for r in self.records if r.truth in known and r.id in self.rejected)
        shown = len(asked) + len(unasked)
        return {'shown': shown,
                'rejected': len(unasked) + sum(1 for r in asked if r.id in self.rejected),
                'questions_per_gesture': (sum(r.asked for r in asked) / shown if shown
                                          else math.nan),
                'taught_rejected': taught}

    def labels(self) -> List[str]:
        """Return every label seen as truth or question, in order of appearance."""
        seen: Dict[str, None] = {}
        for r in self.records:
            for name in ([r.truth] if r.truth is not None else []) + r.questions:
                seen.setdefault(name, None)
        return list(seen)

    def curve(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """
        Return the learning curve: interaction number, windowed and cumulative accuracy.

        The windowed value at interaction t is the first-guess accuracy over interactions
        max(1, t - window + 1) .. t.
        """
        right = self.first_right().astype(np.float64)
        n = right.size
        t = np.arange(1, n + 1)
        csum = np.concatenate([[0.0], np.cumsum(right)])
        start = np.maximum(t - self.window, 0)
        windowed = (csum[t] - csum[start]) / (t - start) if n else np.zeros(0)
        cumulative = csum[1:] / t if n else np.zeros(0)
        return t, windowed, cumulative
