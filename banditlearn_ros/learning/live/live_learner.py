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
A bandit learner that runs live: its questions, its model file and changes while it runs.

``learner_node`` converts messages and parameters; what they do to the learner is here, so
that a restart, a label appended, a hyperparameter changed or an autosave is tested without
DDS.  ``value(name)`` reads a parameter's current value (the node's ``get_parameter``).

``LiveLearner`` is the node's one door to the learning layer: every call takes its lock, and
the node never holds the ``Interaction`` itself.  What a bring-up reports is a ``Progress``.
"""

import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import learner_parameters as lp, model_store, session_config
from .answer_counts import AnswerCounts
from .autosave import BackgroundSaves
from .live_progress import (
    Announcement, announcement, capped_warning, outlier_warning, Progress, progress_of,
    STATS_SHOWN)
from .. import BanditLearner, make_learner
from ..algorithms.centring import Centring
from ..algorithms.open_set import check_open_set, OpenSet
from ..engine import compilation, plug, use_compiled
from ..protocol.answer_key import Answer, PLAIN, read_answer
from ..protocol.ask_again import PROTOCOL_PARAMETERS
from ..protocol.interaction import Interaction
from ..protocol.interaction_records import Counts, FeedbackResult, Round

SIZE_REASONS = ('too_long', 'model_too_large')
"""Why a first vector cannot make the model (``model_store.size_problem``)."""

LIVE_COUNTS = tuple('features_' + r for r in SIZE_REASONS) + (
    'resets', 'labels_added', 'unknown_gestures', 'gestures_named', 'gestures_told',
    'names_refused')
"""What a live learner counts beside its interaction's counts (``status`` shows them)."""


class LiveLearner:
    """
    The learner node's state without ROS: one ``Interaction``, its model file, its settings.

    Parameters
    ----------
    value : callable
        The current value of a parameter, by its name (``learner_parameters`` names them).
    model_path : str
        The model file ('' = memory only), read at start (see ``model_store``).
    log : logger
        Any logger with ``info``, ``warning`` and ``error``.

    """

    def __init__(self, value: Callable[[str], Any], model_path: str, log):
        with compilation.deferring():  # numba loads after the node's start (started())
            self._start(value, model_path, log)
        self._use_compiled()  # compiled before the interaction existed

    def _start(self, value: Callable[[str], Any], model_path: str, log) -> None:
        self.value = value
        self.log = log
        self.lock = threading.RLock()
        self.algorithm = value('algorithm')
        self._up = threading.Event()
        self.labels: List[str] = list(value('labels'))
        self.seed = value('seed')
        self.centring = value('centring')
        Centring(self.centring)  # refuse a bad mode now, with the reason
        lp.check_labels(self.labels)
        # Refuse bad hyperparameters now, not at the first message.
        make_learner(self.algorithm, ['a'], 1, **self.hyperparameters(self.algorithm))
        protocol = lp.protocol(value)  # refused now, with the reason
        # One learner per model file: a second one is refused here (model_store.claim).
        unlocked = model_store.claim(model_path)
        if unlocked:
            log.warning(f'model file not locked: {unlocked}')
        start = model_store.load_at_start(model_path, value('feature_size'), self.labels,
                                          value('start_fresh_on_bad_model'), log,
                                          value('max_model_bytes'))
        self.saves = model_store.ModelSaves(start.save_path)
        self.autosaves = BackgroundSaves(self.save, log)
        self.problem = start.problem
        self.loaded_from = start.path
        """The file the learner was read from ('' = none): the node says so once started."""
        self.loaded_updates = start.learner.n_updates if start.learner is not None else 0
        """Updates the loaded model had made: ``progress`` counts this run's only."""
        self.labels_from_file = False
        if start.learner is not None:
            self.algorithm, labels = model_store.reconcile(
                start.learner, self.algorithm, self.hyperparameters, self.labels, log)
            self.labels_from_file = labels != self.labels
            self.labels = labels
            held = start.learner.centring.mode
            if held != self.centring:
                log.warning(f'model file learned with centring={held!r}; parameter value '
                            f'{self.centring!r} needs a new model (~/reset_model)')
        self._warn(capped_warning(protocol, self.algorithm))
        self.interaction = Interaction(
            self.fresh_learner, learner=start.learner,
            feedback_timeout=value('feedback_timeout'), max_unanswered=value('max_unanswered'),
            window=value('stats_window'), n_features=value('feature_size'), seed=self.seed,
            protocol=protocol, algorithm=self.algorithm,
            open_set=OpenSet(**lp.open_set_settings(value)))
        self.features_seen = 0
        """Feature messages received (refused ones too): where a change happened."""
        self.counts = Counts(LIVE_COUNTS)
        self.answers = AnswerCounts()
        """Answers taken and refused by their source (``answer_counts``)."""
        self.config: Optional[session_config.ConfigLog] = None
        self.fleet: Optional[Any] = None
        """The fleet it shares with (``live_fleet.LiveFleet``), or None: ``status`` shows it."""
        # Only once nothing can refuse the start: a process that ends while numba compiles
        # in its daemon thread can crash as the interpreter goes down.
        if self.algorithm == 'ucwl':
            compilation.compile_in_background(self._use_compiled, self._up)

    def started(self) -> None:
        """Say the node is up: the compiled UCWL steps may load now (``engine.compilation``)."""
        self._up.set()

    def _use_compiled(self, kernels=None) -> None:
        """Move the learner to the compiled UCWL steps once they are (same values)."""
        with self.lock:
            use_compiled(getattr(getattr(self, 'interaction', None), 'learner', None))

    # -- what a recording needs to replay this learner ------------------------------------
    def start_config(self, stamp: float) -> session_config.ConfigLog:
        """Start the configuration log: the decision parameters and the start model."""
        self.config = session_config.start_log(self.value, self.current_labels(),
                                               self.loaded_from, stamp)
        return self.config

    def note_change(self, kind: str, stamp: float, **what) -> None:
        """Log a change (``session_config.KINDS``) at the current input counts."""
        with self.lock:
            if self.config is not None:
                self.config.add(kind, stamp, self.features_seen,
                                self.interaction.counts['feedback_received'], **what)

    def config_text(self) -> str:
        """Return the configuration log's message text (``session_config.TOPIC``)."""
        with self.lock:
            return self.config.text()

    def start_lines(self, tail: str = '') -> List[str]:
        """Return what the node says once up: the model it loaded, its settings and ``tail``."""
        with self.lock:
            learner = self.interaction.learner
            lines = []
            if self.loaded_from:
                lines.append(f'loaded {learner.name} model with {learner.n_labels} labels, '
                             f'{learner.n_features} features, {learner.n_updates} updates '
                             f'from {self.loaded_from}')
            lines.append(
                f'{self.algorithm} learner ready: labels {self.labels}, '
                f'{self.interaction.n_features or "feature size from the first message"}, '
                f'model file {self.saves.path or "(none: memory only)"}'
                + (f'; {tail}' if tail else ''))
            return lines

    def hyperparameters(self, algorithm: str,
                        changes: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """Return the constructor arguments of ``algorithm`` from the parameters."""
        return lp.hyperparameters(algorithm, self.value, changes)

    def fresh_learner(self, n_features: int) -> BanditLearner:
        """Return a new learner of the parameters' labels, hyperparameters and centring."""
        with compilation.deferring():  # on the engine; compiled steps once loaded
            learner = plug(make_learner(self.algorithm, list(self.labels), n_features,
                                        seed=self.seed, **self.hyperparameters(self.algorithm)))
        learner.centring = Centring(self.centring)
        return learner

    def current_labels(self) -> List[str]:
        """Return the learner's labels (the parameter's before the first vector)."""
        learner = self.interaction.learner
        return list(learner.labels) if learner is not None else list(self.labels)

    # -- parameter changes ----------------------------------------------------------------
    def check_change(self, changes: Dict[str, Any]) -> None:
        """Raise HyperparameterError, ValueError or TypeError for a change to refuse."""
        self.appended_labels(changes)
        lp.check_hyperparameter_change(self.value, changes)  # plain learners: nothing compiles
        lp.protocol(self.value, changes)
        check_open_set(**{k: v for k, v in lp.open_set_settings(self.value, changes).items()
                          if k != 'enabled'})

    def apply_change(self, changes: Dict[str, Any], stamp: float = 0.0) -> List[str]:
        """Apply a checked change that is stored already; return the labels it appended."""
        with self.lock:
            new_labels = self.appended_labels(changes)
            learner = self.interaction.learner
            if learner is not None:
                diff = lp.tunable_changes(self.hyperparameters(learner.name), learner)
                if diff:
                    with compilation.deferring():
                        learner.set_params(**diff)
                for name in new_labels:
                    learner.add_label(name)
            if 'labels' in changes:
                self.labels = list(changes['labels'])
            if 'feedback_timeout' in changes:
                self.interaction.feedback_timeout = float(changes['feedback_timeout'])
            if any(name in PROTOCOL_PARAMETERS for name in changes):
                protocol = lp.protocol(self.value, changes)
                self._warn(capped_warning(protocol, self.algorithm))
                self.interaction.set_protocol(protocol)
            if any(name.startswith('unknown_') for name in changes):
                self.interaction.open_set.configure(**lp.open_set_settings(self.value))
            self.counts.add('labels_added', len(new_labels))
            if new_labels:
                self.log.info(f'labels added: {new_labels}')
            self.note_change(session_config.PARAMETERS, stamp, changed=dict(changes))
        return new_labels

    def _warn(self, text: str) -> None:
        """Log ``text`` as a warning unless it is '' (the rules say when: ``live_progress``)."""
        if text:
            self.log.warning(text)

    def appended_labels(self, changes: Dict[str, Any]) -> List[str]:
        """Return the labels a change of ``labels`` appends; raise ValueError if it does more."""
        if 'labels' not in changes:
            return []
        learner = self.interaction.learner
        appended = lp.appended_labels(list(learner.labels) if learner is not None else None,
                                      changes['labels'])
        model_store.check_growth(learner, len(changes['labels']) if appended else 0,
                                 self.value('max_model_bytes'))
        return appended

    # -- input ------------------------------------------------------------------------------
    def predict(self, values) -> Tuple[Optional[Round], str, str]:
        """
        Start an interaction for one feature vector (counted in ``features_seen``).

        Returns
        -------
        tuple
            ``(round, '', '')``, or ``(None, reason, what)`` for a refused vector: a reason of
            ``SIZE_REASONS`` (the model cannot be made) or ``rounds.BAD_INPUT_REASONS``, and
            the sizes.

        """
        size = len(values)
        with self.lock:
            self.features_seen += 1
            reason = self.size_problem(size)
            if reason:
                self.counts.add('features_' + reason)
                return None, reason, f'{size} values'
            item, reason = self.interaction.predict(values)
            if item is not None and item.outlier:
                self._warn(outlier_warning(self.interaction.learner.centring.outliers))
            expected = self.interaction.n_features or 'any'
        return item, reason, f'{size} values, {expected} expected' if reason else ''

    def take_ended(self, stamp: float) -> List[Announcement]:
        """Return the interactions finished since the last call, as the node says them."""
        with self.lock:
            said = [announcement(e, stamp) for e in self.interaction.take_ended()]
            self.counts.add('unknown_gestures', sum(1 for a in said if a.note))
        return said

    def size_problem(self, size: int) -> str:
        """Return why a vector of ``size`` values cannot make the model, or '' (size policy)."""
        if self.interaction.learner is not None:
            return ''  # the size is fixed: the learner's own check counts a wrong one
        return model_store.size_problem(
            size, fixed=self.value('feature_size'), max_size=self.value('max_feature_size'),
            n_labels=len(self.labels),
            full=self.hyperparameters(self.algorithm).get('covariance') == 'full',
            max_bytes=self.value('max_model_bytes'))

    def feedback(self, answer: bool, key: Optional[Tuple[int, int]] = None,
                 source: str = PLAIN) -> Tuple[FeedbackResult, bool]:
        """
        Give a yes/no to the interaction; return its result and whether an autosave was due.

        ``key`` (interaction id, question number) when the answer names its question
        (``answer_key``): one answer per question, whatever the sources. Taken and refused
        answers are counted by ``source``. A due autosave is asked of the writer thread
        (``autosave``): this returns at once.
        """
        with self.lock:
            result = self.interaction.feedback(answer, key=key)
            self.answers.count(source, result.outcome == 'matched')
            if result.outcome != 'matched':
                return result, False
            self.saves.updates_since_save += result.updates
            due = self.saves.autosave_due(result.updated, self.value('autosave_every'))
        if due:
            self.autosaves.request()
        return result, due

    def answer(self, data) -> Tuple[Optional[Answer], FeedbackResult]:
        """
        Take a message's data: a Bool's value or a ``gesture_answer`` text (``answer_key``).

        Returns the answer as it counted (a plain yes/no keyed with the question it was
        applied to; None when it was not applied) or a keyed one refused, and the result
        (outcome ``unreadable`` for a text that is not an answer: counted, nothing changed).
        """
        if not isinstance(data, str):
            result, _ = self.feedback(bool(data))
            said = None if result.outcome != 'matched' else Answer(
                result.round_id, result.question, bool(data), PLAIN)
            return said, result
        try:
            said = read_answer(data)
        except ValueError:  # the node logs the outcome (throttled)
            with self.lock:
                self.answers.count('unreadable', False)
            return None, FeedbackResult('unreadable')
        return said, self.feedback(said.yes, said.key, said.source)[0]

    def name_unknown(self, name: str, stamp: float = 0.0) -> Tuple[List[str], bool]:
        """
        Learn what the latest gesture without a "yes" was (``Interaction.name_unknown``).

        Returns the labels and whether ``name`` was appended (False: a known label was told);
        raises LearnerInputError or ValueError with nothing changed.
        """
        with self.lock:
            known = name in self.current_labels()
            try:
                if not known:
                    lp.check_labels(self.current_labels() + [name])
                    model_store.check_growth(self.interaction.learner,
                                             len(self.current_labels()) + 1,
                                             self.value('max_model_bytes'))
                self.interaction.name_unknown(name)
            except ValueError:  # LearnerInputError too
                self.counts.add('names_refused')
                raise
            self.counts.add('gestures_told' if known else 'gestures_named')
            self.counts.add('labels_added', 0 if known else 1)
            self.saves.updates_since_save += 1
            self.note_change(session_config.NAMED, stamp, name=name)
            labels = self.current_labels()
        self.log.info(f'told: the last gesture was {name!r}' if known else
                      f'the unknown gesture is now {name!r}: labels {labels}')
        return labels, not known

    def reset(self, stamp: float = 0.0) -> str:
        """
        Start a fresh model; with the size from the first message, forget the size too.

        The model before it is kept first (``model_store.back_up_before_reset``); returns
        that file ('' = nothing kept); raises OSError or ValueError, with nothing reset,
        when it cannot be kept.
        """
        with self.lock:
            backup = model_store.back_up_before_reset(self.saves.path,
                                                      self.interaction.learner)
            self.interaction.reset()
            if not self.value('feature_size'):
                # Size from the first message: a reset forgets it too, so one stray vector
                # that fixed a wrong size is undone by ~/reset_model.
                self.interaction.learner = None
            self.saves.updates_since_save = 0
            self.loaded_updates = 0
            self.counts.add('resets')
            self.note_change(session_config.RESET, stamp)
        return backup

    def reset_answer(self, stamp: float = 0.0) -> Tuple[bool, str]:
        """Reset (``reset``); return ``~/reset_model``'s answer: success and what happened."""
        try:
            backup = self.reset(stamp)
        except (OSError, ValueError) as exc:
            return False, f'not reset (the model before it could not be kept): {exc}'
        return True, ('model reset to a fresh one; the model file is replaced at the next '
                      'save' + (f'; the model before it is kept in {backup}' if backup else ''))

    def inputs(self) -> Tuple[int, int]:
        """Return the feature and yes/no messages taken so far (a replay's order marks)."""
        with self.lock:
            return self.features_seen, int(self.interaction.counts['feedback_received'])

    def progress(self) -> Progress:
        """Return what a bring-up reports of this learner now."""
        with self.lock:
            stats = self.interaction.stats()
            n_labels = len(self.current_labels())
        return progress_of(stats, n_labels, self.loaded_updates)

    def status(self) -> Dict[str, Any]:
        """Return what /diagnostics shows of the learner and its questions."""
        with self.lock:
            stats = self.interaction.stats()
            values: Dict[str, Any] = {'algorithm': self.algorithm,
                                      'labels': ','.join(self.current_labels()),
                                      'feature_size': self.interaction.n_features,
                                      'compiled_steps': compilation.ready(), **self.counts,
                                      **self.answers.counts}
        values.update({k: stats[k] for k in STATS_SHOWN})
        if self.fleet is not None:
            values.update(self.fleet.status())
        return values

    def learning_problem(self) -> str:
        """Return ``learning_check`` of the windowed first guesses ('' while learning)."""
        return self.progress().learning_problem

    def file_status(self) -> Dict[str, Any]:
        """Return the model file, its age in seconds (-1 where unreadable), the autosaves."""
        return {'model_file': self.saves.path,
                'model_file_age_s': model_store.file_age(self.saves.path),
                'autosaves': self.autosaves.saved,
                'autosave_failures': self.autosaves.failed}

    def save_error_now(self, hold: float) -> bool:
        """Return True while the last save failed and none succeeded since (within hold)."""
        return self.saves.error_now(hold)

    def save(self) -> str:
        """Save the model atomically; return where (raises OSError or ValueError)."""
        return self.saves.save_with(self.lock, lambda: self.interaction.learner)

    def close(self, save: bool) -> str:
        """
        End the autosaves (one under way finishes first); with ``save``, save a model.

        Returns where it was saved ('' = not saved: not asked, no file or no model yet);
        raises OSError or ValueError when saving failed.
        """
        self.autosaves.close()
        with self.lock:
            wanted = save and self.saves.path and self.interaction.learner is not None
        return self.save() if wanted else ''
