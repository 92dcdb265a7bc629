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
learner_node: feature vectors in, spoken labels out, yes/no back into the model.

After a "no" it asks its next-best label itself (up to ``max_questions`` per gesture), and
announces how each interaction ended (``gesture_interaction``) and when every label was
rejected (``gesture_unknown``).  The node converts messages and parameters; the questions,
the learning and the feedback-matching rule live in ``banditlearn_ros.learning``
(``ask_again``, ``interaction.Interaction``), so they are tested without DDS.
"""

from collections import deque
import inspect
import json
import os
import threading
import time
from typing import Any, Dict, List, Optional

from banditlearn_ros.learning import (
    BANDIT_ALGORITHMS, BanditLearner, HyperparameterError, LearnerInputError, load_model,
    make_learner, ModelFileError, save_model)
from banditlearn_ros.learning.ask_again import (
    ASK_AGAIN_ALGORITHMS, check_protocol, DEFAULT_REVEAL_STEP, OUTCOMES, REVEAL_STEPS)
from banditlearn_ros.learning.details import details_json, DETAILS_TOP
from banditlearn_ros.learning.interaction import BAD_INPUT_REASONS, DROP_REASONS, Interaction
from banditlearn_ros.nodes import common, qos
from rclpy.parameter import Parameter
from std_msgs.msg import Bool, Float32MultiArray, String
from std_srvs.srv import Trigger

# Hyperparameters fixed at construction (they shape the learned arrays): read-only. Each
# learner owns its list (``_construction_only``); the parameters take their union.
CONSTRUCTION_ONLY = tuple(sorted({name for cls in BANDIT_ALGORITHMS.values()
                                  for name in cls._construction_only}))
DEFAULT_ALGORITHM = 'ucwl'
DEFAULT_LABELS = ['fist', 'open_palm', 'point', 'thumbs_up', 'victory']

_DESCRIPTIONS = {
    'eta': 'confidence parameter eta',
    'C': 'aggressiveness cap C of the soft-confidence-weighted step',
    'k': 'exploration weight on the margin standard deviation',
    'covariance': "covariance form: 'diag' or 'full'",
    'variant': "step size: 'scw1' or 'scw2'",
    'diagonal': "diagonal Sigma update: 'precision' (diagonal of Sigma^-1's) or 'variance'",
    'added_label_prior': "start of an appended label: 'mixture' (of the learned classifiers) "
                         "or 'unit' (N(0, I))",
    'alpha': 'label-noise parameter alpha of the demotion step',
    'normalize': 'scale every feature vector to unit length first',
    'gamma': 'exploration probability gamma',
    'rho0': 'known rate of "right" said for a wrong label',
    'rho1': 'known rate of "wrong" said for a right label',
    'n_s': 'rounds between two noise-rate estimates',
    'percentile': "percentile used in place of the noise estimator's argmax",
}


# Ranges shown by `ros2 param describe` and checked by rclpy before the learner sees a value.
# Descriptor ranges are closed; an open end (eta in (0.5, 1)) is written in words and the
# learner's own check refuses the end point itself.
_INF = float('inf')
_RANGES = {
    ('ucwl', 'eta'): (0.5, 1.0, 'open interval (0.5, 1)'),
    ('ucwl', 'C'): (0.0, _INF, 'C > 0'),
    ('ucwl', 'k'): (0.0, _INF, ''),
    ('confidit', 'eta'): (0.0, _INF, ''),
    ('confidit', 'alpha'): (-1.0, 1.0, 'alpha in (-1, 1]'),
    ('banditron', 'gamma'): (0.0, 1.0, 'gamma in [0, 1)'),
    ('rcnbf', 'gamma'): (0.0, 0.5, 'open interval (0, 0.5)'),
    ('rcnbf', 'rho0'): (0.0, 1.0, 'rho0 in [0, 1); rho0 + rho1 < 1'),
    ('rcnbf', 'rho1'): (0.0, 1.0, 'rho1 in [0, 1); rho0 + rho1 < 1'),
    ('rcine', 'gamma'): (0.0, 0.5, 'open interval (0, 0.5)'),
    ('rcine', 'n_s'): (10, 2 ** 31 - 1, ''),
    ('rcine', 'percentile'): (50.0, 100.0, 'percentile in (50, 100]'),
}


def parameter_name(algorithm: str, hyperparameter: str) -> str:
    """Return the ROS parameter of a hyperparameter: plain for UCWL, ``<algo>.<name>`` else."""
    if algorithm == DEFAULT_ALGORITHM:
        return hyperparameter
    return f'{algorithm}.{hyperparameter}'


def hyperparameter_defaults() -> Dict[str, Dict[str, Any]]:
    """Return ``{algorithm: {hyperparameter: default}}`` from the learners' constructors."""
    table = {}
    for algorithm, cls in BANDIT_ALGORITHMS.items():
        signature = inspect.signature(cls.__init__)
        table[algorithm] = {name: signature.parameters[name].default
                            for name in cls._hyperparameters}
    return table


class LearnerNode(common.GuardedNode):
    """Select a label for each feature message and learn from the yes/no that follows."""

    def __init__(self, node_name: str = 'learner_node', **kwargs):
        super().__init__(node_name, **kwargs)
        self.counters = common.Counters(
            ('features_received', 'features_too_long', 'features_model_too_large', 'saves',
             'autosaves', 'save_failures', 'resets', 'labels_added', 'unknown_gestures',
             'gestures_named', 'names_refused'))
        self._declare_parameters()
        self._lock = threading.RLock()
        self._times = deque(maxlen=200)
        self._updates_since_save = 0
        self._problem = ''
        self._save_path = self._model_path
        learner = self._load_at_start()
        self.interaction = Interaction(
            self._fresh_learner, learner=learner,
            feedback_timeout=self.get_parameter('feedback_timeout').value,
            max_unanswered=self.get_parameter('max_unanswered').value,
            window=self.get_parameter('stats_window').value,
            n_features=self.get_parameter('feature_size').value,
            max_questions=self._max_questions,
            reveal_step=self.get_parameter('reveal_step').value, seed=self._seed)
        self._parameter_changes = common.ParameterChanges.of(self)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.add_post_set_parameters_callback(self._after_set_parameters)
        self._input = common.RecentRefusals()
        self._save_failed_at: Optional[float] = None

        # Topic names are fixed and relative: namespaces and remapping move them.
        # The feedback subscription is created first: when a yes/no and the next feature
        # vector are ready together, the executor runs the yes/no first.
        # Messages their publishers gave up on during a network drop-out (see qos.py).
        for name in ('feedback_lost', 'features_lost'):
            self.counters.add(name, 0)
        self._feedback_sub = qos.subscribe_events(
            self, Bool, 'gesture_feedback', self._on_feedback,
            lambda n: self.counters.add('feedback_lost', n))
        self._features_sub = qos.subscribe_events(
            self, Float32MultiArray, 'gesture_features', self._on_features,
            lambda n: self.counters.add('features_lost', n))
        self._prediction_pub = self.create_publisher(String, 'gesture_prediction',
                                                     qos.EVENTS_OUT)
        self._details_pub = self.create_publisher(String, 'gesture_prediction_details',
                                                  qos.EVENTS_OUT)
        self._interaction_pub = self.create_publisher(String, 'gesture_interaction',
                                                      qos.EVENTS_OUT)
        self._unknown_pub = self.create_publisher(String, 'gesture_unknown', qos.EVENTS_OUT)
        self.create_timer(0.25, self._publish_ended)  # interactions that timed out
        # A person names the gesture every label was rejected for (gesture_unknown).
        self.create_subscription(String, 'gesture_name', self._on_name, qos.EVENTS_IN)
        self.create_service(Trigger, '~/save_model', self._on_save)
        self.create_service(Trigger, '~/reset_model', self._on_reset)
        self.diagnostics = common.Diagnostics(
            self, 'banditlearn_ros: learner_node', self._collect,
            period=self.get_parameter('diagnostics_period').value)
        self.get_logger().info(
            f'{self._algorithm} learner ready: labels {self._labels}, '
            f'{self.interaction.n_features or "feature size from the first message"}, '
            f'model file {self._save_path or "(none: memory only)"}; '
            f'{common.topics_line(self)}')

    # -- parameters ----------------------------------------------------------------------
    def _declare_parameters(self) -> None:
        d = common.declare
        self._labels: List[str] = list(d(
            self, 'labels', list(DEFAULT_LABELS),
            'label names the robot can say; append one at runtime to add a class',
            constraints='unique non-empty names; existing names keep their order'))
        self._algorithm = d(
            self, 'algorithm', DEFAULT_ALGORITHM, 'bandit learning algorithm', read_only=True,
            constraints='one of ' + ', '.join(sorted(BANDIT_ALGORITHMS)))
        if self._algorithm not in BANDIT_ALGORITHMS:
            raise HyperparameterError(
                f'algorithm {self._algorithm!r} is not one of {sorted(BANDIT_ALGORITHMS)}')
        self._hp_defaults = hyperparameter_defaults()
        for algorithm, defaults in self._hp_defaults.items():
            for name, default in defaults.items():
                low, high, words = _RANGES.get((algorithm, name), (None, None, ''))
                d(self, parameter_name(algorithm, name), default,
                  f'{algorithm}: {_DESCRIPTIONS.get(name, name)}',
                  read_only=name in CONSTRUCTION_ONLY, low=low, high=high,
                  constraints=(words + '; ' if words else '') + 'checked by the learner; an '
                  'invalid value is refused with the reason')
        d(self, 'feature_size', 0, 'length of every feature vector; 0 = from the first message',
          read_only=True, low=0, high=1_000_000)
        d(self, 'max_feature_size', 4096, 'longer feature vectors are refused before any model '
          'is made (a stray message cannot fix a huge size)', read_only=True, low=1,
          high=1_000_000)
        self._seed = d(self, 'seed', 0, 'seed of the learner', read_only=True,
                       low=0, high=2 ** 31 - 1)
        path = d(self, 'model_path', '', 'model file: loaded at start, saved by ~/save_model, '
                 'autosave and on shutdown; empty = memory only', read_only=True)
        self._model_path = os.path.expanduser(path) if path else ''
        d(self, 'autosave_every', 20, 'save after every N updates; 0 = never', low=0,
          high=1_000_000_000)
        d(self, 'save_on_shutdown', True, 'save the model when the node shuts down')
        self._start_fresh = d(
            self, 'start_fresh_on_bad_model', False,
            'start with a fresh model when model_path cannot be read (the bad file is kept; '
            'the new model is saved as <model_path>.fresh.npz)', read_only=True)
        d(self, 'feedback_timeout', 10.0, 'seconds after a prediction within which its '
          'yes/no counts', low=1e-3, high=1e6)
        d(self, 'max_questions', 3, 'questions per presented gesture: after a "no" the '
          "next-best label is asked; 1 = the paper's protocol, 0 = every label", low=0,
          high=1000, constraints='> 1 only for ' + ', '.join(ASK_AGAIN_ALGORITHMS))
        d(self, 'reveal_step', DEFAULT_REVEAL_STEP, 'what a revealed label teaches the labels '
          'not asked: none, top1 (demote the best-scoring one) or all',
          constraints='one of ' + ', '.join(REVEAL_STEPS))
        d(self, 'max_unanswered', 100, 'most unanswered predictions kept', read_only=True,
          low=1, high=100_000)
        d(self, 'stats_window', 100, 'rounds in the windowed rates', read_only=True,
          low=1, high=1_000_000)
        self._details_top = d(
            self, 'details_top', DETAILS_TOP, 'past this many labels the details message '
            'carries the best bounds only, with their indices; 0 = every label',
            read_only=True, low=0, high=1_000_000)
        d(self, 'diagnostics_period', 1.0, 'seconds between /diagnostics messages',
          read_only=True, low=0.01, high=3600.0)
        d(self, 'save_error_seconds', 60.0, 'seconds a failed save keeps /diagnostics at '
          'ERROR unless a save succeeds first; 0 = until a save succeeds', low=0.0, high=1e9)
        _check_labels(self._labels)
        # Refuse bad hyperparameters now, not at the first message.
        make_learner(self._algorithm, ['a'], 1, **self._hyperparameters(self._algorithm))
        self._max_questions = self.get_parameter('max_questions').value
        if self._max_questions != 1 and self._algorithm not in ASK_AGAIN_ALGORITHMS:
            self.get_logger().warning(f'{self._algorithm} cannot ask again: one question per '
                                      f'gesture (max_questions {self._max_questions} ignored)')
            self._max_questions = 1
        check_protocol(self._algorithm, self._max_questions,
                       self.get_parameter('reveal_step').value)

    def _hyperparameters(self, algorithm: str,
                         changes: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """Return the constructor arguments of ``algorithm`` from the parameters."""
        changes = changes or {}
        out = {}
        for name in self._hp_defaults[algorithm]:
            pname = parameter_name(algorithm, name)
            out[name] = changes[pname] if pname in changes else self.get_parameter(pname).value
        return out

    def _fresh_learner(self, n_features: int) -> BanditLearner:
        return make_learner(self._algorithm, list(self._labels), n_features, seed=self._seed,
                            **self._hyperparameters(self._algorithm))

    def _on_set_parameters(self, params: List[Parameter]):
        """Validate a change (on-set): refuse it with the reason, change nothing."""
        changes = {p.name: p.value for p in params}
        try:
            self._check_new_labels(changes)
            for algorithm in self._hp_defaults:
                names = {parameter_name(algorithm, h) for h in self._hp_defaults[algorithm]}
                if names & set(changes):
                    # Building a throw-away learner runs the same checks as set_params.
                    make_learner(algorithm, ['a'], 1, **self._hyperparameters(algorithm, changes))
            self._protocol(changes)
        except (HyperparameterError, ValueError, TypeError) as exc:
            return self._parameter_changes.refuse(str(exc))
        return common.accept()

    def _after_set_parameters(self, params: List[Parameter]) -> None:
        """Apply a change rclpy has stored (post-set); it was validated in on-set."""
        changes = {p.name: p.value for p in params}
        with self._lock:
            new_labels = self._check_new_labels(changes)
            learner = self.interaction.learner
            if learner is not None:
                tunable = self._hyperparameters(learner.name)
                current = learner.get_params()
                diff = {k: v for k, v in tunable.items()
                        if k not in CONSTRUCTION_ONLY and v != current.get(k)}
                if diff:
                    learner.set_params(**diff)
                for name in new_labels:
                    learner.add_label(name)
                    self.counters.add('labels_added')
            if 'labels' in changes:
                self._labels = list(changes['labels'])
            if 'feedback_timeout' in changes:
                self.interaction.feedback_timeout = float(changes['feedback_timeout'])
            self.interaction.set_protocol(*self._protocol(changes))
        if new_labels:
            self.get_logger().info(f'labels added: {new_labels}')

    def _protocol(self, changes: Dict[str, Any]):
        """Return the checked (max_questions, reveal_step) a change asks for."""
        return check_protocol(self._algorithm,
                              changes.get('max_questions', self.interaction.max_questions),
                              changes.get('reveal_step', self.interaction.reveal_step))

    def _check_new_labels(self, changes: Dict[str, Any]) -> List[str]:
        """Return the labels a change of ``labels`` appends; raise ValueError if it does more."""
        if 'labels' not in changes:
            return []
        labels = [str(v) for v in (changes['labels'] or [])]
        _check_labels(labels)
        learner = self.interaction.learner
        current = list(learner.labels) if learner is not None else list(self._labels)
        if learner is None:
            return []
        if labels[:len(current)] != current:
            raise ValueError(
                f'labels can only be appended (current {current}, asked {labels}); '
                'removing or renaming one needs ~/reset_model and a new model')
        return labels[len(current):]

    # -- model file ----------------------------------------------------------------------
    def _load_at_start(self) -> Optional[BanditLearner]:
        path = self._model_path
        if not path or not os.path.exists(path):
            return None
        expect = self.get_parameter('feature_size').value
        try:
            learner = self._load_checked(path, expect)
        except ModelFileError as exc:
            if not self._start_fresh:
                raise
            self._save_path = path + '.fresh.npz'
            self._problem = f'bad model file kept aside: {exc}'
            self.get_logger().error(
                f'{exc}; starting with a fresh model (start_fresh_on_bad_model is true); the '
                f'bad file is left untouched and the new model is saved to {self._save_path}')
            if not os.path.exists(self._save_path):
                return None
            path = self._save_path
            try:
                learner = self._load_checked(path, expect)
            except ModelFileError as exc2:
                self.get_logger().error(f'{exc2}; starting from scratch')
                return None
        self._reconcile(learner)
        self.get_logger().info(
            f'loaded {learner.name} model with {learner.n_labels} labels, '
            f'{learner.n_features} features, {learner.n_updates} updates from {path}')
        return learner

    def _load_checked(self, path: str, expect_features: int) -> BanditLearner:
        """Load a model whose labels the parameter may extend but not remove or rename."""
        learner = _load_bandit(path, expect_features)
        wanted = list(self._labels)
        # The default list means no list was given: the file's labels are used as they are.
        if wanted != DEFAULT_LABELS and wanted[:learner.n_labels] != list(learner.labels):
            raise ModelFileError(
                path, f'holds labels {list(learner.labels)}; the labels parameter {wanted} '
                'removes or renames some (labels can only be appended); give the labels of '
                'the file, or set start_fresh_on_bad_model to start a new model')
        return learner

    def _reconcile(self, learner: BanditLearner) -> None:
        """Make the loaded learner and the parameters agree (the file's labels come first)."""
        if learner.name != self._algorithm:
            self.get_logger().warning(
                f'model file holds a {learner.name} learner; parameter algorithm='
                f'{self._algorithm!r} is ignored while this file is used')
            self._algorithm = learner.name
        wanted = self._hyperparameters(learner.name)
        held = learner.get_params()
        for name in CONSTRUCTION_ONLY:
            if name in wanted and wanted[name] != held.get(name):
                self.get_logger().warning(
                    f'model file has {name}={held.get(name)!r}; parameter value '
                    f'{wanted[name]!r} needs a new model (~/reset_model)')
        tunable = {k: v for k, v in wanted.items()
                   if k not in CONSTRUCTION_ONLY and v != held.get(k)}
        if tunable:
            self.get_logger().info(f'parameters override the file: {tunable}')
            learner.set_params(**tunable)
        for name in self._labels:
            if name not in learner.labels:
                learner.add_label(name)
        if list(learner.labels) != self._labels:
            self._labels = list(learner.labels)
            self.set_parameters([Parameter('labels', Parameter.Type.STRING_ARRAY,
                                           list(self._labels))])

    def save(self) -> str:
        """Save the model atomically; return where (raises OSError or ValueError)."""
        if not self._save_path:
            self._save_failed_at = time.monotonic()
            raise ValueError('model_path is empty: the model lives in memory only')
        with self._lock:
            learner = self.interaction.learner
            if learner is None:
                self._save_failed_at = time.monotonic()
                raise ValueError('no model yet (no feature vector seen)')
            try:
                save_model(learner, self._save_path)
            except (OSError, ValueError):
                self._save_failed_at = time.monotonic()
                raise
            self._updates_since_save = 0
            self._save_failed_at = None
        self.counters.add('saves')
        return self._save_path

    def close(self) -> bool:
        """Save on shutdown when asked to (``run_node``, the bring-up); False if that failed."""
        if not self.get_parameter('save_on_shutdown').value:
            return True
        if self._save_path and self.interaction.learner is not None:
            logger = common.shutdown_logger(self)
            try:
                self.save()
                logger.info(f'model saved to {self._save_path} on shutdown')
            except (OSError, ValueError) as exc:
                self.counters.add('save_failures')
                logger.error(f'could not save the model on shutdown: {exc}')
                return False
        return True

    # -- callbacks -----------------------------------------------------------------------
    def _on_features(self, msg: Float32MultiArray) -> None:
        start = time.perf_counter()
        self.counters.add('features_received')
        data = msg.data[msg.layout.data_offset:] if msg.layout.data_offset else msg.data
        reason = self._size_problem(len(data))
        if reason:
            self.counters.add('features_' + reason)
            self._input.add(True, f'{reason}: {len(data)} values')
            self.get_logger().warning(
                f'feature message refused ({reason}: {len(data)} values)',
                throttle_duration_sec=5.0)
            return
        with self._lock:
            item, reason = self.interaction.predict(data)
        self._input.add(item is None, f'{reason}: {len(data)} values, '
                        f'{self.interaction.n_features or "any"} expected')
        self._publish_ended()  # the interaction this gesture cut short
        if item is None:
            self.get_logger().warning(
                f'feature message refused ({reason}: {len(data)} values, '
                f'{self.interaction.n_features or "any"} expected)', throttle_duration_sec=5.0)
            return
        self._ask(item)
        self._times.append(time.perf_counter() - start)

    def _ask(self, item) -> None:
        """Say one question: the label for speech, then its details with the ids."""
        self._prediction_pub.publish(String(data=item.prediction.label))
        self._details_pub.publish(String(data=details_json(item, self._now(),
                                                           self._details_top)))

    def _now(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _publish_ended(self) -> None:
        """Announce finished interactions; every label rejected is an unknown gesture."""
        for ended in self.interaction.take_ended():
            info = {**ended.as_dict(), 'stamp': self._now()}
            self._interaction_pub.publish(String(data=json.dumps(info)))
            if ended.outcome == 'all_rejected':
                self.counters.add('unknown_gestures')
                self._unknown_pub.publish(String(data=json.dumps(
                    {'id': ended.id, 'labels': info['rejected'], 'stamp': info['stamp']})))
                self.get_logger().info(f'interaction {ended.id}: every label was rejected '
                                       '(an unknown gesture?)')

    def _on_feedback(self, msg: Bool) -> None:
        with self._lock:
            result = self.interaction.feedback(bool(msg.data))
            if result.outcome != 'matched':
                self.get_logger().info(f'feedback dropped ({result.outcome})',
                                       throttle_duration_sec=5.0)
                return
            if result.next_round is not None:
                self._ask(result.next_round)
            self._updates_since_save += result.updates
            every = self.get_parameter('autosave_every').value
            due = (result.updated and every > 0 and self._save_path
                   and self._updates_since_save >= every)
        self._publish_ended()
        if due:
            try:
                self.save()
                self.counters.add('autosaves')
            except (OSError, ValueError) as exc:
                self.counters.add('save_failures')
                self.get_logger().error(f'autosave failed: {exc}', throttle_duration_sec=10.0)

    def _on_name(self, msg: String) -> None:
        """Append the label named for the latest unknown gesture; it learns that observation."""
        name = msg.data.strip()
        with self._lock:
            try:
                _check_labels(self._current_labels() + [name])
                self.interaction.name_unknown(name)
            except (LearnerInputError, ValueError) as exc:
                self.counters.add('names_refused')
                self.get_logger().warning(f'gesture name {name!r} refused: {exc}')
                return
            labels = self._current_labels()
            self._updates_since_save += 1
        self.counters.add('gestures_named')
        self.counters.add('labels_added')
        # The parameter follows; the learner has the label already, so nothing is added twice.
        self.set_parameters([Parameter('labels', Parameter.Type.STRING_ARRAY, labels)])
        self.get_logger().info(f'the unknown gesture is now {name!r}: labels {labels}')

    def _on_save(self, request, response):
        try:
            path = self.save()
        except (OSError, ValueError) as exc:
            self.counters.add('save_failures')
            response.success, response.message = False, f'not saved: {exc}'
        else:
            response.success, response.message = True, f'saved to {path}'
        return response

    def _size_problem(self, size: int) -> str:
        """Return why a vector of ``size`` values cannot make the model, or '' (size policy)."""
        if self.interaction.learner is not None:
            return ''  # the size is fixed: the learner's own check counts a wrong one
        fixed = self.get_parameter('feature_size').value
        if fixed and size != fixed:
            return ''  # counted as a wrong size by the learner's check
        if not fixed and size > self.get_parameter('max_feature_size').value:
            return 'too_long'
        labels = len(self._labels)
        full = self._hyperparameters(self._algorithm).get('covariance') == 'full'
        needed = 8 * labels * size * (size + 1 if full else 2)
        if needed > _available_memory() // 2:
            return 'model_too_large'
        return ''

    def _on_reset(self, request, response):
        with self._lock:
            self.interaction.reset()
            if not self.get_parameter('feature_size').value:
                # Size from the first message: a reset forgets it too, so one stray vector
                # that fixed a wrong size is undone by ~/reset_model.
                self.interaction.learner = None
        self.counters.add('resets')
        self._updates_since_save = 0
        response.success = True
        response.message = ('model reset to a fresh one; the model file is replaced at the '
                            'next save')
        self.get_logger().info(response.message)
        return response

    # -- diagnostics ---------------------------------------------------------------------
    def _collect(self):
        stats = self.interaction.stats()
        values: Dict[str, Any] = {'algorithm': self._algorithm,
                                  'labels': ','.join(self._current_labels()),
                                  'feature_size': self.interaction.n_features}
        keys = (['predictions', 'feedback_received', 'feedback_matched', 'feedback_dropped']
                + ['feedback_dropped_' + r for r in DROP_REASONS]
                + ['features_refused'] + ['features_' + r for r in BAD_INPUT_REASONS]
                + ['unanswered', 'unanswered_superseded', 'unanswered_expired',
                   'unanswered_overflow', 'mistake_rate_window', 'mistake_rate',
                   'exploration_rate_window', 'exploration_rate', 'updates', 'max_questions',
                   'interactions', 'questions_asked', 'questions_per_interaction',
                   'questions_per_interaction_window', 'first_guess_accuracy',
                   'first_guess_accuracy_window']
                + ['interactions_' + o for o in OUTCOMES])
        values.update({k: stats[k] for k in keys})
        values.update(self.counters.snapshot())
        values['parameter_changes'] = self._parameter_changes.accepted
        values['parameter_rejections'] = self._parameter_changes.refused
        times = list(self._times)
        values['processing_ms_mean'] = 1e3 * sum(times) / len(times) if times else 0.0
        values['processing_ms_max'] = 1e3 * max(times) if times else 0.0
        values['model_file'] = self._save_path
        values['model_file_age_s'] = _file_age(self._save_path)
        level, message = common.OK, 'learning'
        input_level, input_message = self._input.level()
        if self._save_error_now():
            level, message = common.ERROR, 'saving the model failed'
        elif input_level != common.OK:
            level, message = input_level, input_message
        elif self._problem:
            level, message = common.WARN, self._problem
        elif stats['predictions'] == 0:
            message = 'waiting for features'
        return level, message, values

    def _save_error_now(self) -> bool:
        """Return True while the last save failed and no save succeeded since (within hold)."""
        failed_at = self._save_failed_at
        if failed_at is None:
            return False
        hold = self.get_parameter('save_error_seconds').value
        return hold <= 0 or time.monotonic() - failed_at < hold

    def _current_labels(self) -> List[str]:
        learner = self.interaction.learner
        return list(learner.labels) if learner is not None else list(self._labels)


def _check_labels(labels: List[str]) -> None:
    if not labels:
        raise ValueError('labels must name at least one label')
    if any(not str(name).strip() for name in labels):
        raise ValueError(f'label names must not be empty: {labels}')
    if len(set(labels)) != len(labels):
        raise ValueError(f'label names must be unique: {labels}')


def _load_bandit(path: str, expect_features: int) -> BanditLearner:
    learner = load_model(path, expect_features=expect_features)
    if not isinstance(learner, BanditLearner):
        raise ModelFileError(path, f'holds a {learner.name} learner, which needs full '
                                   'labels; learner_node runs bandit learners only')
    return learner


def _available_memory() -> int:
    """Return the bytes of memory available now (a large number where it cannot be read)."""
    try:
        return os.sysconf('SC_AVPHYS_PAGES') * os.sysconf('SC_PAGE_SIZE')
    except (ValueError, OSError, AttributeError):
        return 2 ** 62


def _file_age(path: str) -> float:
    try:
        return max(0.0, time.time() - os.path.getmtime(path))
    except (OSError, TypeError):
        return -1.0


def main(args=None) -> None:
    """Run learner_node; a bad model file or parameter ends it with one readable line."""
    common.run_node(LearnerNode, args=args, name='learner_node',
                    errors=common.START_ERRORS + (ModelFileError, HyperparameterError))


if __name__ == '__main__':
    main()
