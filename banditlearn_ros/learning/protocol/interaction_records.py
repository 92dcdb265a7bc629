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
What one interaction is made of: the checked vector, its questions, its end, the answers' fate.

``Interaction`` (``learning.protocol.interaction``) makes these records; the details message
(``learning.protocol.details``), the live learner and the replays read them.  ``Window`` and
``Counts`` are the windowed rates and counters every interaction and teacher keeps; ``Rates``
are an interaction's, and ``SharedLabels`` the label list its ended records share.
"""

from array import array
from collections import deque
from dataclasses import dataclass
import math
from typing import Any, Deque, Dict, List, Optional, Tuple

import numpy as np

from .ask_again import Questions
from ..algorithms.base import Prediction
from ..algorithms.open_set import Verdict

DROP_REASONS = ('no_prediction', 'duplicate', 'late', 'not_open')
"""Why a yes/no was dropped (``not_open``: it named a question that is no longer open)."""

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
    x, reason = sized_features(values, n_features)
    # A finite x . x (one BLAS call) proves every value finite; only otherwise look closer.
    if x is not None and not math.isfinite(x.dot(x)) and not np.isfinite(x).all():
        return None, 'not_finite'
    return x, reason


def sized_features(values, n_features: int) -> Tuple[Optional[np.ndarray], str]:
    """``check_features`` without the finiteness check (a learner's ``select_valid`` makes it)."""
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
    outlier: bool = False
    """The vector lay far outside the spread of those before: the centring bounded its
    step (``centring.Centring``; counted as ``centring_outliers``)."""


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


class Window:
    """
    Mean of the last ``size`` values (0/1 or counts), plus the running total.

    Every windowed rate of an interaction or a simulated teacher is one of these.
    """

    def __init__(self, size: int):
        self.values: Deque[int] = deque(maxlen=max(1, int(size)))
        self.total = 0
        self.count = 0

    def add(self, value: int) -> None:
        """Add one value: an int or a bool (which counts as 0 or 1), once per message."""
        self.values.append(value)
        self.total += value
        self.count += 1

    def windowed(self) -> float:
        """Return the mean of the window (NaN while it is empty)."""
        return float(np.mean(self.values)) if self.values else float('nan')

    def cumulative(self) -> float:
        """Return the mean of every value added (NaN before the first)."""
        return self.total / self.count if self.count else float('nan')

    def right(self) -> int:
        """Return the zeros in the window (first guesses that were not mistakes)."""
        return len(self.values) - sum(self.values)


class Counts(dict):
    """Counters by name, all there from the start (a ``dict``, so ``stats`` copies it)."""

    def __init__(self, names):
        super().__init__(dict.fromkeys(names, 0))

    def add(self, name: str, n: int = 1) -> None:
        """Add ``n`` to the counter ``name`` (which must exist)."""
        self[name] += n

    def total(self, prefix: str, reasons) -> int:
        """Return the sum of the counters ``prefix + reason``."""
        return sum(self[prefix + r] for r in reasons)


class Rates:
    """
    An interaction's windowed and running rates: first-guess mistakes, exploration, questions.

    ``Interaction`` adds one value per first answer (``mistakes``: the person said no), per
    first question (``explored``) and per ended interaction (``questions`` asked in it).
    """

    def __init__(self, window: int):
        self.mistakes = Window(window)
        self.explored = Window(window)
        self.questions = Window(window)

    def stats(self) -> Dict[str, float]:
        """Return the rates as ``Interaction.stats`` shows them (NaN before the first)."""
        mistakes = self.mistakes
        return {'mistake_rate_window': mistakes.windowed(),
                'mistake_rate': mistakes.cumulative(),
                'first_guess_accuracy_window': 1.0 - mistakes.windowed(),
                'first_guess_accuracy': 1.0 - mistakes.cumulative(),
                'first_guess_window_rounds': len(mistakes.values),
                'first_guess_right_window': mistakes.right(),
                'questions_per_interaction_window': self.questions.windowed(),
                'questions_per_interaction': self.questions.cumulative(),
                'exploration_rate_window': self.explored.windowed(),
                'exploration_rate': self.explored.cumulative()}


class SharedLabels:
    """
    A learner's label names as one list that the ``Ended`` records share.

    A learner only ever appends labels, so a copy of the same learner's labels with as
    many names is still equal to them: copied again only when a label was added or the
    learner replaced (at K = 1000 a copy per interaction cost ~4 us).
    """

    def __init__(self):
        self._names: Tuple[Any, List[str]] = (None, [])

    def of(self, learner) -> List[str]:
        """Return ``learner``'s label names now (the same list while they are unchanged)."""
        labels = getattr(learner, 'labels', ())
        names = self._names
        if names[0] is not learner or len(names[1]) != len(labels):
            names = self._names = (learner, list(labels))
        return names[1]
