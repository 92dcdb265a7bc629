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

from collections import deque
from dataclasses import dataclass, field
import hashlib
import math
import os
import shutil
import tempfile
from typing import Any, Dict, Iterable, List, Optional

from .. import LearnerInputError
from ..live import learner_parameters as lp
from ..live.live_learner import LiveLearner
from ..live.session_config import NAMED, PARAMETERS, RESET
from ..protocol.answer_key import Answer
from ..protocol.interaction import Interaction
from ..protocol.session import SessionLog
from ..protocol.simulated_teacher import SimulatedTeacher

LABEL, FEATURES, FEEDBACK, PREDICTION = 'label', 'features', 'feedback', 'prediction'


@dataclass
class Event:
    """One recorded message: time in seconds, kind (``LABEL`` ...), value."""

    stamp: float
    kind: str
    value: Any


class _Values(dict):
    """Parameter values a ``LiveLearner`` reads as the node's ``get_parameter``."""

    def __call__(self, name: str) -> Any:
        return self[name]


class _Notes:
    """A logger that keeps what the learner would have logged (the replay prints it)."""

    def __init__(self):
        self.lines: List[str] = []

    def info(self, text: str, **_) -> None:
        self.lines.append(text)

    warning = error = info


@dataclass
class LearnerConfig:
    """
    What learner_node is built from: its parameters, its start model, its changes.

    ``parameters`` holds every learner_node parameter (the table's defaults where not
    given); ``model`` the bytes of the model file it started from (None: from scratch);
    ``changes`` the ``session_config`` changes, applied at the input counts they carry.
    The learner is a ``LiveLearner``, the node's own, so a replay decides as the node did.
    """

    parameters: Dict[str, Any] = field(default_factory=lp.defaults)
    model: Optional[bytes] = None
    changes: List[Dict[str, Any]] = field(default_factory=list)
    recorded: bool = False
    """True when this is what the learner published (``learner_config``): the names a
    person gave rejected gestures are among ``changes``, not made up from true labels."""

    @classmethod
    def from_parameters(cls, params: Dict[str, Any], model: Optional[bytes] = None,
                        changes: Iterable[Dict[str, Any]] = (), strict: bool = False,
                        recorded: bool = False) -> 'LearnerConfig':
        """
        Return the config of learner_node's parameters (as in its params-file section).

        Names the node does not declare are ignored, or with ``strict`` refused
        (ValueError naming them).
        """
        full = lp.defaults()
        unknown = sorted(set(params) - set(full))
        if strict and unknown:
            raise ValueError(f'learner_node has no parameter {", ".join(unknown)} '
                             f'(known: {", ".join(sorted(full))})')
        full.update({k: v for k, v in params.items() if k in full})
        full['labels'] = [str(v) for v in full.get('labels') or []]
        full['model_path'] = ''
        lp.check_algorithm(str(full['algorithm']))
        return cls(full, model, list(changes), recorded)

    @property
    def algorithm(self) -> str:
        """Return the learning algorithm."""
        return str(self.parameters['algorithm'])

    @property
    def labels(self) -> List[str]:
        """Return the start labels."""
        return list(self.parameters['labels'])

    @property
    def hyperparameters(self) -> Dict[str, Any]:
        """Return the algorithm's constructor arguments."""
        return lp.hyperparameters(self.algorithm, self.parameters.get)

    @property
    def centring(self) -> str:
        """Return the feature centring mode."""
        return str(self.parameters['centring'])

    @property
    def unknown(self) -> Dict[str, Any]:
        """Return the ``open_set.OpenSet`` settings that differ from the node's defaults."""
        return {key: value for key, value in lp.open_set_settings(self.parameters.get).items()
                if value != lp.OPEN_SET[key]}

    def as_dict(self) -> Dict[str, Any]:
        """Return a JSON-able form (stored beside replay figures)."""
        out: Dict[str, Any] = {'parameters': {k: v for k, v in self.parameters.items()
                                              if k != 'model_path'}}
        out['model'] = None if self.model is None else {
            'bytes': len(self.model), 'sha256': hashlib.sha256(self.model).hexdigest()}
        out['changes'] = [dict(c) for c in self.changes]
        return out

    def live(self, log=None) -> LiveLearner:
        """Return a fresh ``LiveLearner`` as the node builds it (from ``model`` if any)."""
        if not self.labels:
            raise ValueError('the learner needs label names (labels: [...])')
        values = _Values(self.parameters)
        log = log if log is not None else _Notes()
        if self.model is None:
            live = LiveLearner(values, '', log)
            live.started()  # offline: numba may load at once
            return live
        folder = tempfile.mkdtemp(prefix='banditlearn_replay_')
        try:
            path = os.path.join(folder, 'start_model.npz')
            with open(path, 'wb') as handle:
                handle.write(self.model)
            values['model_path'] = path
            live = LiveLearner(values, path, log)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        live.saves.path = ''  # a replay never saves
        live.started()
        return live

    def interaction(self) -> Interaction:
        """Return a fresh ``Interaction`` as the learner node builds it."""
        return self.live().interaction


def _apply(live: LiveLearner, change: Dict[str, Any]) -> str:
    """Make one recorded change to a replayed learner; return '' or why it failed."""
    kind = change['kind']
    try:
        if kind == PARAMETERS:
            changed = dict(change.get('changed') or {})
            live.value.update(changed)  # as rclpy stores a value before post-set runs
            live.apply_change(changed)
        elif kind == RESET:
            live.reset()
        elif kind == NAMED:
            live.name_unknown(str(change.get('name', '')))
    except (LearnerInputError, ValueError, TypeError) as err:
        return f'{kind} after {change["features"]} gestures could not be made again: {err}'
    return ''


@dataclass
class ReplayResult:
    """Figures of one replay, and the questions asked (label names, in order)."""

    figures: Dict[str, Any]
    questions: List[str]
    curve: List[Dict[str, Any]]
    notes: List[str] = field(default_factory=list)
    session: SessionLog = field(default_factory=SessionLog)
    """The interactions as session_node logs them (its summary's figures: ``session_figures``)."""
    updates_before: Dict[int, int] = field(default_factory=dict)
    """Model updates when interaction ``n + 1`` began (all answers of the first ``n`` in)."""
    refused: Dict[str, int] = field(default_factory=dict)
    """Feature vectors refused before any question, by reason (as the node counts them)."""


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
    log = _Notes()
    live = config.live(log)
    interaction = live.interaction
    truth: Optional[str] = None
    asked: List[str] = []
    curve: List[Dict[str, Any]] = []
    true_mistakes = 0
    judged = 0
    recorded_questions: List[str] = []
    session = SessionLog()
    updates_before: Dict[int, int] = {}
    pending = deque(config.changes)
    seen = {FEATURES: 0, FEEDBACK: 0}
    refused: Dict[str, int] = {}

    def changes_due() -> None:
        # A change logged after F gestures and B answers comes before the next of either.
        while pending and pending[0]['features'] <= seen[FEATURES] and (
                teacher is not None or pending[0]['feedback'] <= seen[FEEDBACK]):
            problem = _apply(live, pending.popleft())
            if problem:
                log.lines.append(problem)
    for event in events:
        if event.kind == LABEL:
            truth = str(event.value)
            session.on_label(truth)
            if teacher is not None:
                teacher.observe(truth)
        elif event.kind == PREDICTION:
            recorded_questions.append(str(event.value))
        elif event.kind == FEATURES:
            changes_due()
            seen[FEATURES] += 1
            done = interaction.counts['interactions']
            updates_before.setdefault(done, int(interaction.stats()['updates']))
            if every and done and done % every == 0 and (not curve or
                                                         curve[-1]['interactions'] != done):
                curve.append(_figures(interaction, true_mistakes, judged))
            problem = live.size_problem(len(event.value))
            if problem:  # refused before the learner, as the node does
                refused[problem] = refused.get(problem, 0) + 1
                continue
            item, reason = interaction.predict(event.value, now=event.stamp)
            if item is None:
                refused[reason] = refused.get(reason, 0) + 1
                continue
            if item.questions.declined:  # rejected as never taught: no label was asked
                # The person names a known gesture (a recording holds the names said).
                if truth is not None and truth in interaction.learner.labels and (
                        teacher is not None or not config.recorded):
                    interaction.name_unknown(truth)
                truth = None
                continue
            asked.append(item.prediction.label)
            session.on_question(item.prediction.label, item.id, item.question)
            if truth is not None:
                judged += 1
                true_mistakes += int(item.prediction.label != truth)
            shown, truth = truth, None
            if teacher is not None:
                _teacher_rounds(interaction, teacher, item, event.stamp, asked, session)
                # Rejected after a "no" (open_set's recheck): named as when rejected at once.
                if item.questions.outcome == 'unknown' and shown in interaction.learner.labels:
                    interaction.name_unknown(shown)
        elif event.kind == FEEDBACK and teacher is None:
            changes_due()
            seen[FEEDBACK] += 1
            # A Bool's value, or a keyed answer (answer_key.Answer): its own question only.
            said = event.value if isinstance(event.value, Answer) else None
            yes = bool(event.value) if said is None else said.yes
            session.on_answer(yes)
            result = interaction.feedback(yes, now=event.stamp,
                                          key=None if said is None else said.key)
            if result.next_round is not None:
                nxt = result.next_round
                asked.append(nxt.prediction.label)
                session.on_question(nxt.prediction.label, nxt.id, nxt.question)
    changes_due()
    if pending:
        log.lines.append(f'{len(pending)} recorded change(s) came after the last recorded '
                         'message: not made')
    figures = _figures(interaction, true_mistakes, judged)
    done = figures['interactions']
    if every and done and done % every == 0 and (not curve or curve[-1]['interactions'] != done):
        curve.append(figures)
    if recorded_questions:
        compared = min(len(recorded_questions), len(asked))
        figures['recorded_questions'] = len(recorded_questions)
        figures['questions_as_recorded'] = sum(
            a == b for a, b in zip(asked[:compared], recorded_questions[:compared]))
    return ReplayResult(figures, asked, curve, log.lines, session, updates_before, refused)


def _teacher_rounds(interaction: Interaction, teacher: SimulatedTeacher, item, stamp: float,
                    asked: List[str], session: SessionLog) -> None:
    """Let the simulated teacher answer every question of one interaction."""
    question = item
    while question is not None:
        said = teacher.answer(question.prediction.label, question=question.question,
                              interaction=question.id)
        if said.answer is None:
            return
        session.on_answer(said.answer)
        result = interaction.feedback(said.answer, now=stamp)
        question = result.next_round
        if question is not None:
            asked.append(question.prediction.label)
            session.on_question(question.prediction.label, question.id, question.question)


def session_figures(result: ReplayResult, interactions: int = 0) -> Dict[str, Any]:
    """
    Return the figures of the bring-up's session summary, from a replay.

    ``interactions`` > 0 keeps the first that many, as a session planned for them does;
    ``updates`` are those of their answers.
    """
    log = SessionLog(result.session.window)
    records = result.session.records
    log.records = list(records[:interactions] if interactions else records)
    return {'interactions': log.interactions,
            'updates': result.updates_before.get(log.interactions, result.figures['updates']),
            'accuracy_last_50': _rate(round(log.accuracy(50), 4)),
            'accuracy': _rate(round(log.accuracy(), 4)),
            'questions_per_interaction': _rate(round(log.questions_per_interaction(), 4))}


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
