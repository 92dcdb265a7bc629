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
"""

import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import BanditLearner, make_learner
from . import learner_parameters as lp, model_store, session_config, ucwl_kernels
from .ask_again import ASK_AGAIN_ALGORITHMS, check_probation, check_protocol, OUTCOMES
from .autosave import BackgroundSaves
from .centring import Centring
from .interaction import BAD_INPUT_REASONS, DROP_REASONS, FeedbackResult, Interaction
from .open_set import check_open_set, OpenSet

# What /diagnostics shows of ``Interaction.stats()``.
STATS_SHOWN = (
    ['predictions', 'feedback_received', 'feedback_matched', 'feedback_dropped']
    + ['feedback_dropped_' + r for r in DROP_REASONS]
    + ['features_refused'] + ['features_' + r for r in BAD_INPUT_REASONS]
    + ['unanswered', 'unanswered_superseded', 'unanswered_expired', 'unanswered_overflow',
       'mistake_rate_window', 'mistake_rate', 'exploration_rate_window', 'exploration_rate',
       'updates', 'max_questions', 'interactions', 'questions_asked',
       'questions_per_interaction', 'questions_per_interaction_window', 'first_guess_accuracy',
       'first_guess_accuracy_window', 'first_guess_window_rounds', 'first_guess_right_window']
    + ['interactions_' + o for o in OUTCOMES]
    + ['unknown_rejected', 'unknown_taught_armed', 'unknown_false_rejections',
       'unknown_false_rejection_rate', 'unknown_threshold', 'unknown_alpha'])

LEAST_FIRST_GUESSES = 20
"""First guesses a window needs before ``learning_check`` judges it (none during the first
interactions, when every learner is at chance)."""

SIGNIFICANCE = 0.05
"""``learning_check`` warns unless chance would reach the first guesses' score this rarely."""


def learning_check(right: int, rounds: int, n_labels: int, least: int = LEAST_FIRST_GUESSES,
                   significance: float = SIGNIFICANCE) -> str:
    """
    Return why a window of first guesses shows no learning, or '' when it does.

    A learner that learns nothing guesses right with probability 1/K for K labels, so its
    right first guesses over ``rounds`` are Binomial(rounds, 1/K).  The window shows
    learning when so many right guesses are rare under chance: the one-sided binomial
    p-value ``P(X >= right)`` is at most ``significance``.  Judged only past ``least``
    rounds.  The answers are the person's (a wrong answer counts as said).

    Parameters
    ----------
    right : int
        First guesses answered "yes" in the window.
    rounds : int
        First guesses answered in the window.
    n_labels : int
        Labels the learner chooses from.
    least, significance : int, float
        See ``LEAST_FIRST_GUESSES`` and ``SIGNIFICANCE``.

    Returns
    -------
    str
        A one-line warning with the figures, or ''.

    """
    if rounds < least or n_labels < 2:
        return ''
    chance = 1.0 / n_labels
    # bdtrc(k, n, p) = P(X > k), the tail binom.sf gives; imported here, off the node's start.
    from scipy.special import bdtrc
    p_value = float(bdtrc(right - 1, rounds, chance))
    if p_value <= significance:
        return ''
    return (f'not learning: first guess right {right} of the last {rounds} '
            f'({100.0 * right / rounds:.0f} %), chance for {n_labels} labels is '
            f'{100.0 * chance:.0f} % (binomial p = {p_value:.2f} > {significance:g})')


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
        with ucwl_kernels.deferring():  # numba loads after the node's start (started())
            self._start(value, model_path, log)
        self._use_compiled()  # compiled before the interaction existed

    def _start(self, value: Callable[[str], Any], model_path: str, log) -> None:
        self.value = value
        self.lock = threading.RLock()
        self.algorithm = value('algorithm')
        self._up = threading.Event()
        if self.algorithm == 'ucwl':
            ucwl_kernels.compile_in_background(self._use_compiled, self._up)
        self.labels: List[str] = list(value('labels'))
        self.seed = value('seed')
        self.centring = value('centring')
        Centring(self.centring)  # refuse a bad mode now, with the reason
        lp.check_labels(self.labels)
        # Refuse bad hyperparameters now, not at the first message.
        make_learner(self.algorithm, ['a'], 1, **self.hyperparameters(self.algorithm))
        max_questions = value('max_questions')
        if max_questions != 1 and self.algorithm not in ASK_AGAIN_ALGORITHMS:
            log.warning(f'{self.algorithm} cannot ask again: one question per '
                        f'gesture (max_questions {max_questions} ignored)')
            max_questions = 1
        check_protocol(self.algorithm, max_questions, value('reveal_step'))
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
        self.interaction = Interaction(
            self.fresh_learner, learner=start.learner,
            feedback_timeout=value('feedback_timeout'), max_unanswered=value('max_unanswered'),
            window=value('stats_window'), n_features=value('feature_size'),
            max_questions=max_questions, reveal_step=value('reveal_step'), seed=self.seed,
            new_label_probation=value('new_label_probation'),
            open_set=OpenSet(**lp.open_set_settings(value)))
        self.features_seen = 0
        """Feature messages received (refused ones too): where a change happened."""
        self.config: Optional[session_config.ConfigLog] = None

    def started(self) -> None:
        """Say the node is up: the compiled UCWL steps may load now (``ucwl_kernels``)."""
        self._up.set()

    def _use_compiled(self, kernels=None) -> None:
        """Move the learner to the compiled UCWL steps once they are (same values)."""
        with self.lock, ucwl_kernels.deferring():  # never compiles here
            interaction = getattr(self, 'interaction', None)
            use = getattr(interaction and interaction.learner, 'use_compiled', None)
            if use is not None:
                use()

    # -- what a recording needs to replay this learner ------------------------------------
    def start_config(self, stamp: float) -> session_config.ConfigLog:
        """Start the configuration log: the decision parameters and the start model."""
        params = session_config.decision_parameters(self.value)
        params['labels'] = self.current_labels()
        try:
            model = session_config.model_entry(self.loaded_from,
                                               self.value('record_model_max_bytes'))
        except OSError as exc:  # the file went away since it was read: say so, keep running
            model = {'path': self.loaded_from, 'error': str(exc)}
        self.config = session_config.ConfigLog(params, model, stamp)
        return self.config

    def note_change(self, kind: str, stamp: float, **what) -> None:
        """Log a change (``session_config.KINDS``) at the current input counts."""
        if self.config is not None:
            self.config.add(kind, stamp, self.features_seen,
                            self.interaction.counts['feedback_received'], **what)

    def hyperparameters(self, algorithm: str,
                        changes: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """Return the constructor arguments of ``algorithm`` from the parameters."""
        return lp.hyperparameters(algorithm, self.value, changes)

    def fresh_learner(self, n_features: int) -> BanditLearner:
        """Return a new learner of the parameters' labels, hyperparameters and centring."""
        with ucwl_kernels.deferring():
            learner = make_learner(self.algorithm, list(self.labels), n_features,
                                   seed=self.seed, **self.hyperparameters(self.algorithm))
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
        with ucwl_kernels.deferring():
            lp.check_hyperparameter_change(self.value, changes)
        self.protocol(changes)
        check_open_set(**{k: v for k, v in lp.open_set_settings(self.value, changes).items()
                          if k != 'enabled'})

    def apply_change(self, changes: Dict[str, Any]) -> List[str]:
        """Apply a checked change that is stored already; return the labels it appended."""
        with self.lock:
            new_labels = self.appended_labels(changes)
            learner = self.interaction.learner
            if learner is not None:
                diff = lp.tunable_changes(self.hyperparameters(learner.name), learner)
                if diff:
                    with ucwl_kernels.deferring():
                        learner.set_params(**diff)
                for name in new_labels:
                    learner.add_label(name)
            if 'labels' in changes:
                self.labels = list(changes['labels'])
            if 'feedback_timeout' in changes:
                self.interaction.feedback_timeout = float(changes['feedback_timeout'])
            self.interaction.set_protocol(*self.protocol(changes))
            if any(name.startswith('unknown_') for name in changes):
                self.interaction.open_set.configure(**lp.open_set_settings(self.value))
        return new_labels

    def protocol(self, changes: Dict[str, Any]) -> Tuple[int, str, int]:
        """Return the checked (max_questions, reveal_step, new_label_probation) of a change."""
        inter = self.interaction
        return check_protocol(self.algorithm, changes.get('max_questions', inter.max_questions),
                              changes.get('reveal_step', inter.reveal_step)) + (
            check_probation(changes.get('new_label_probation', inter.new_label_probation)),)

    def appended_labels(self, changes: Dict[str, Any]) -> List[str]:
        """Return the labels a change of ``labels`` appends; raise ValueError if it does more."""
        if 'labels' not in changes:
            return []
        learner = self.interaction.learner
        return lp.appended_labels(list(learner.labels) if learner is not None else None,
                                  changes['labels'])

    # -- input ------------------------------------------------------------------------------
    def size_problem(self, size: int) -> str:
        """Return why a vector of ``size`` values cannot make the model, or '' (size policy)."""
        if self.interaction.learner is not None:
            return ''  # the size is fixed: the learner's own check counts a wrong one
        return model_store.size_problem(
            size, fixed=self.value('feature_size'), max_size=self.value('max_feature_size'),
            n_labels=len(self.labels),
            full=self.hyperparameters(self.algorithm).get('covariance') == 'full')

    def feedback(self, answer: bool) -> Tuple[FeedbackResult, bool]:
        """
        Give a yes/no to the interaction; return its result and whether an autosave was due.

        A due autosave is asked of the writer thread (``autosave``): this returns at once.
        """
        with self.lock:
            result = self.interaction.feedback(answer)
            if result.outcome != 'matched':
                return result, False
            self.saves.updates_since_save += result.updates
            due = self.saves.autosave_due(result.updated, self.value('autosave_every'))
        if due:
            self.autosaves.request()
        return result, due

    def name_unknown(self, name: str) -> Tuple[List[str], bool]:
        """
        Learn what the latest gesture without a "yes" was (``Interaction.name_unknown``).

        Returns the labels and whether ``name`` was appended (False: a known label was told).
        """
        with self.lock:
            known = name in self.current_labels()
            if not known:
                lp.check_labels(self.current_labels() + [name])
            self.interaction.name_unknown(name)
            self.saves.updates_since_save += 1
            return self.current_labels(), not known

    def reset(self) -> None:
        """Start a fresh model; with the size from the first message, forget the size too."""
        with self.lock:
            self.interaction.reset()
            if not self.value('feature_size'):
                # Size from the first message: a reset forgets it too, so one stray vector
                # that fixed a wrong size is undone by ~/reset_model.
                self.interaction.learner = None
        self.saves.updates_since_save = 0

    def status(self) -> Dict[str, Any]:
        """Return what /diagnostics shows of the learner and its questions."""
        stats = self.interaction.stats()
        values: Dict[str, Any] = {'algorithm': self.algorithm,
                                  'labels': ','.join(self.current_labels()),
                                  'feature_size': self.interaction.n_features,
                                  'compiled_steps': ucwl_kernels.ready()}
        values.update({k: stats[k] for k in STATS_SHOWN})
        return values

    def learning_problem(self) -> str:
        """Return ``learning_check`` of the windowed first guesses ('' while learning)."""
        stats = self.interaction.stats()
        return learning_check(int(stats['first_guess_right_window']),
                              int(stats['first_guess_window_rounds']),
                              len(self.current_labels()))

    def file_status(self) -> Dict[str, Any]:
        """Return the model file, its age in seconds (-1 where unreadable), the autosaves."""
        return {'model_file': self.saves.path,
                'model_file_age_s': model_store.file_age(self.saves.path),
                'autosaves': self.autosaves.saved,
                'autosave_failures': self.autosaves.failed}

    def save(self) -> str:
        """Save the model atomically; return where (raises OSError or ValueError)."""
        return self.saves.save_with(self.lock, lambda: self.interaction.learner)
