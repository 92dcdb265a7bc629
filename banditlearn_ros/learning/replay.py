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
Replay a recorded teaching session through the learning layer, in recorded-time order.

A session is a time-ordered list of events: the true label of a gesture (optional), its
feature vector, and the person's yes/no.  ``replay`` feeds them to ``Interaction`` with the
recorded times as its clock, so the matching rule (latest open question, timeout, drops),
the ask-again protocol and the statistics are exactly the learner node's; no DDS, no
wall-clock timing, so the figures are the same on every machine.  With ``teacher`` the
recorded answers are ignored and a ``SimulatedTeacher`` answers every question from the
true labels instead.
"""

from dataclasses import dataclass, field
import math
from typing import Any, Dict, Iterable, List, Optional

from . import BANDIT_ALGORITHMS, make_learner
from .centring import Centring, DEFAULT_CENTRING
from .interaction import Interaction, SimulatedTeacher
from .learner_parameters import OPEN_SET
from .open_set import OpenSet

LABEL, FEATURES, FEEDBACK, PREDICTION = 'label', 'features', 'feedback', 'prediction'


@dataclass
class Event:
    """One recorded message: time in seconds, kind (``LABEL`` ...), value."""

    stamp: float
    kind: str
    value: Any


@dataclass
class LearnerConfig:
    """What the learner node is built from (its ``learner_node`` parameters)."""

    algorithm: str = 'ucwl'
    labels: List[str] = field(default_factory=list)
    hyperparameters: Dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    feedback_timeout: float = 10.0
    max_unanswered: int = 100
    window: int = 100
    feature_size: int = 0
    max_questions: int = 1
    reveal_step: Optional[str] = None
    unknown: Dict[str, Any] = field(default_factory=dict)
    """``open_set.OpenSet`` settings that differ from the node's defaults (rejection off)."""
    centring: str = DEFAULT_CENTRING

    @classmethod
    def from_parameters(cls, params: Dict[str, Any]) -> 'LearnerConfig':
        """
        Return the config of learner_node's parameters (as in its params-file section).

        UCWL's hyperparameters are plain names, the others ``<algorithm>.<name>``, as the
        node declares them.
        """
        algorithm = str(params.get('algorithm', 'ucwl'))
        if algorithm not in BANDIT_ALGORITHMS:
            raise ValueError(f'algorithm {algorithm!r} is not one of {sorted(BANDIT_ALGORITHMS)}')
        prefix = '' if algorithm == 'ucwl' else algorithm + '.'
        hps = {name: params[prefix + name]
               for name in BANDIT_ALGORITHMS[algorithm]._hyperparameters
               if prefix + name in params}
        out = cls(algorithm=algorithm, labels=[str(v) for v in params.get('labels', [])],
                  hyperparameters=hps, seed=int(params.get('seed', 0)),
                  feedback_timeout=float(params.get('feedback_timeout', 10.0)),
                  max_unanswered=int(params.get('max_unanswered', 100)),
                  window=int(params.get('stats_window', 100)),
                  feature_size=int(params.get('feature_size', 0)),
                  max_questions=int(params.get('max_questions', 1)),
                  reveal_step=params.get('reveal_step'),
                  unknown={key: params[name] for key, name in _UNKNOWN.items() if name in params},
                  centring=str(params.get('centring', DEFAULT_CENTRING)))
        Centring(out.centring)  # a bad mode is refused here, with the reason
        return out

    def as_dict(self) -> Dict[str, Any]:
        """Return a JSON-able form (stored beside replay figures)."""
        return dict(vars(self))

    def interaction(self) -> Interaction:
        """Return a fresh ``Interaction`` as the learner node builds it."""
        if not self.labels:
            raise ValueError('the learner needs label names (labels: [...])')

        def fresh(n_features: int):
            learner = make_learner(self.algorithm, list(self.labels), n_features,
                                   seed=self.seed, **self.hyperparameters)
            learner.centring = Centring(self.centring)
            return learner
        kwargs = {}
        if self.reveal_step:
            kwargs['reveal_step'] = self.reveal_step
        return Interaction(fresh, feedback_timeout=self.feedback_timeout,
                           max_unanswered=self.max_unanswered, window=self.window,
                           n_features=self.feature_size, clock=lambda: 0.0,
                           max_questions=self.max_questions, seed=self.seed,
                           open_set=OpenSet(**{**OPEN_SET, **self.unknown}), **kwargs)


_UNKNOWN = {key: 'unknown_rejection' if key == 'enabled' else 'unknown_' + key for key in OPEN_SET}
"""``open_set`` setting -> learner_node parameter."""


@dataclass
class ReplayResult:
    """Figures of one replay, and the questions asked (label names, in order)."""

    figures: Dict[str, Any]
    questions: List[str]
    curve: List[Dict[str, Any]]


def _rate(value: float) -> Optional[float]:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) \
        else round(float(value), 12)


def replay(events: Iterable[Event], config: LearnerConfig,
           teacher: Optional[SimulatedTeacher] = None, every: int = 0) -> ReplayResult:
    """
    Feed a session's events to a fresh learner in order; return the online figures.

    Parameters
    ----------
    events : iterable of Event
        In recorded-time order (labels before the features they belong to).
    config : LearnerConfig
        The learner and its interaction protocol.
    teacher : SimulatedTeacher, optional
        Answer every question from the true labels instead of the recorded answers.
    every : int
        Add a point to ``curve`` every this many interactions (0 = none).

    Returns
    -------
    ReplayResult
        ``figures``: interactions, questions, answers matched and dropped, updates, the
        reported and true first-guess mistake rates, exploration rate; ``questions``: every
        label asked, in order; ``curve``: the figures along the way.

    """
    interaction = config.interaction()
    truth: Optional[str] = None
    asked: List[str] = []
    curve: List[Dict[str, Any]] = []
    true_mistakes = 0
    judged = 0
    recorded_questions: List[str] = []
    for event in events:
        if event.kind == LABEL:
            truth = str(event.value)
            if teacher is not None:
                teacher.observe(truth)
        elif event.kind == PREDICTION:
            recorded_questions.append(str(event.value))
        elif event.kind == FEATURES:
            done = interaction.counts['interactions']
            if every and done and done % every == 0 and (not curve or
                                                         curve[-1]['interactions'] != done):
                curve.append(_figures(interaction, true_mistakes, judged))
            item, _ = interaction.predict(event.value, now=event.stamp)
            if item is None:
                continue
            if item.questions.declined:  # rejected as never taught: no label was asked
                if truth is not None and truth in interaction.learner.labels:
                    interaction.name_unknown(truth)  # the person names a known gesture
                truth = None
                continue
            asked.append(item.prediction.label)
            if truth is not None:
                judged += 1
                true_mistakes += int(item.prediction.label != truth)
            truth = None
            if teacher is not None:
                _teacher_rounds(interaction, teacher, item, event.stamp, asked)
        elif event.kind == FEEDBACK and teacher is None:
            result = interaction.feedback(bool(event.value), now=event.stamp)
            if result.next_round is not None:
                asked.append(result.next_round.prediction.label)
    figures = _figures(interaction, true_mistakes, judged)
    done = figures['interactions']
    if every and done and done % every == 0 and (not curve or curve[-1]['interactions'] != done):
        curve.append(figures)
    if recorded_questions:
        compared = min(len(recorded_questions), len(asked))
        figures['recorded_questions'] = len(recorded_questions)
        figures['questions_as_recorded'] = sum(
            a == b for a, b in zip(asked[:compared], recorded_questions[:compared]))
    return ReplayResult(figures, asked, curve)


def _teacher_rounds(interaction: Interaction, teacher: SimulatedTeacher, item, stamp: float,
                    asked: List[str]) -> None:
    """Let the simulated teacher answer every question of one interaction."""
    question = item
    while question is not None:
        said = teacher.answer(question.prediction.label, question=question.question,
                              interaction=question.id)
        if said.answer is None:
            return
        result = interaction.feedback(said.answer, now=stamp)
        question = result.next_round
        if question is not None:
            asked.append(question.prediction.label)


def _figures(interaction: Interaction, true_mistakes: int, judged: int) -> Dict[str, Any]:
    s = interaction.stats()
    out = {key: int(s[key]) for key in (
        'interactions', 'questions_asked', 'feedback_received', 'feedback_matched',
        'feedback_dropped', 'feedback_dropped_no_prediction', 'feedback_dropped_duplicate',
        'feedback_dropped_late', 'updates', 'unanswered_superseded', 'unanswered_expired')}
    for key in ('mistake_rate', 'mistake_rate_window', 'exploration_rate',
                'questions_per_interaction'):
        out[key] = _rate(s.get(key))
    out['true_mistakes'] = true_mistakes
    out['true_mistake_rate'] = _rate(true_mistakes / judged) if judged else None
    if interaction.open_set.enabled:
        out['interactions_unknown'] = int(s['interactions_unknown'])
        out['unknown_false_rejections'] = int(s['unknown_false_rejections'])
    return out
