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
The learner node's parameters as plain data: names, defaults, ranges and value rules.

``learner_node`` declares ``SPECS`` with descriptors; the rules here (label lists, which
hyperparameters a running learner may take, how many questions an algorithm may ask) hold
without ROS, so they are tested without DDS.
"""

import inspect
from typing import Any, Callable, Dict, List, Optional

from banditlearn_ros.parameter_spec import Spec

from .. import BANDIT_ALGORITHMS, BanditLearner, HyperparameterError, make_learner
from ..algorithms.centring import CENTRING_MODES, DEFAULT_CENTRING
from ..algorithms.open_set import DEFAULTS as OPEN_SET_DEFAULTS, RECHECK_SCORES, SCORES, TRUST
from ..protocol.ask_again import (
    ASK_AGAIN_ALGORITHMS, DEFAULT_PROBATION, DEFAULT_REVEAL_STEP, Protocol, PROTOCOL_PARAMETERS,
    REVEAL_STEPS)
from ..protocol.details import DETAILS_TOP
from ..protocol.labels import check_labels, MAX_LABEL_LENGTH, MAX_LABELS
from ..storage.persistence import MAX_MODEL_BYTES

# Hyperparameters fixed at construction (they shape the learned arrays): read-only. Each
# learner owns its list (``_construction_only``); the parameters take their union.
CONSTRUCTION_ONLY = tuple(sorted({name for cls in BANDIT_ALGORITHMS.values()
                                  for name in cls._construction_only}))
DEFAULT_ALGORITHM = 'ucwl'
OPEN_SET = {'enabled': False, **OPEN_SET_DEFAULTS}
"""``open_set.OpenSet`` settings as the ``unknown_*`` parameters start (rejection off)."""
DEFAULT_LABELS = ['fist', 'open_palm', 'point', 'thumbs_up', 'victory']

DESCRIPTIONS = {
    'eta': 'confidence parameter eta',
    'C': 'aggressiveness cap C of the soft-confidence-weighted step',
    'k': 'exploration weight on the margin standard deviation',
    'covariance': "covariance form: 'diag' or 'full'",
    'variant': "step size: 'scw1' or 'scw2'",
    'diagonal': "diagonal Sigma update: 'precision' (diagonal of Sigma^-1's) or 'variance'",
    'no_weight': "cap of a \"no\" step: 'ramp' (C towards C / sqrt(K - 1) as a label's "
                 "answers grow), 'equal' (C, as Algorithm 1), 'balanced' (C / (K - 1)) "
                 "or 'sqrt' (C / sqrt(K - 1))",
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
# learner's own check refuses the end point itself.  Every range is finite: a value such as
# k = 1e308 passes "k >= 0" but makes every bound infinite (first guesses at chance, the
# details JSON carrying Infinity).  The upper ends lie far past the tuning grids
# (``evaluation_tuning``: C up to 2^7, k up to 5, Confidit's eta up to 9).
RANGES = {
    ('ucwl', 'eta'): (0.5, 1.0, 'open interval (0.5, 1)'),
    ('ucwl', 'C'): (0.0, 1e4, 'C > 0'),
    ('ucwl', 'k'): (0.0, 100.0, ''),
    ('confidit', 'eta'): (0.0, 1e4, ''),
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


HYPERPARAMETER_DEFAULTS = hyperparameter_defaults()
"""``hyperparameter_defaults()`` as read at import."""


def hyperparameter_specs() -> List[Spec]:
    """Return one spec per hyperparameter of every bandit learner (``<algo>.<name>``)."""
    specs = []
    for algorithm, defaults in HYPERPARAMETER_DEFAULTS.items():
        for name, default in defaults.items():
            low, high, words = RANGES.get((algorithm, name), (None, None, ''))
            specs.append(Spec(
                parameter_name(algorithm, name), default,
                f'{algorithm}: {DESCRIPTIONS.get(name, name)}',
                read_only=name in CONSTRUCTION_ONLY, low=low, high=high,
                constraints=(words + '; ' if words else '') + 'checked by the learner; an '
                'invalid value is refused with the reason'))
    return specs


HEAD_SPECS = (
    Spec('labels', list(DEFAULT_LABELS),
         'label names the robot can say; append one at runtime to add a class',
         constraints=f'unique non-empty printable one-line names of at most '
         f'{MAX_LABEL_LENGTH} characters, at most {MAX_LABELS}; existing names keep their '
         'order'),
    Spec('algorithm', DEFAULT_ALGORITHM, 'bandit learning algorithm', read_only=True,
         constraints='one of ' + ', '.join(sorted(BANDIT_ALGORITHMS))),
)
"""The parameters declared first: the hyperparameters follow, then ``TAIL_SPECS``."""

TAIL_SPECS = (
    Spec('feature_size', 0, 'length of every feature vector; 0 = from the first message',
         read_only=True, low=0, high=1_000_000),
    Spec('max_feature_size', 4096, 'longer feature vectors are refused before any model '
         'is made (a stray message cannot fix a huge size)', read_only=True, low=1,
         high=1_000_000),
    Spec('seed', 0, 'seed of the learner', read_only=True, low=0, high=2 ** 31 - 1),
    Spec('centring', DEFAULT_CENTRING, 'mean taken out of every feature vector before the '
         'learner sees it: running (the mean so far, a stray vector far outside the spread '
         'moving it no more than one at 10 spreads, counted as centring_outliers), mean (the '
         'plain mean so far), fixed (running for the first 50, then frozen) or none (the '
         "papers' algorithms); a model file keeps the centring it "
         'learned with until ~/reset_model', read_only=True,
         constraints='one of ' + ', '.join(CENTRING_MODES)),
    Spec('model_path', '', 'model file: loaded at start, saved by ~/save_model, '
         'autosave and on shutdown; empty = memory only', read_only=True),
    Spec('autosave_every', 20, 'save after every N updates; 0 = never', low=0,
         high=1_000_000_000),
    Spec('save_on_shutdown', True, 'save the model when the node shuts down'),
    Spec('start_fresh_on_bad_model', False,
         'start with a fresh model when model_path cannot be read (the bad file is kept; '
         'the new model is saved as <model_path>.fresh.npz)', read_only=True),
    Spec('max_model_bytes', MAX_MODEL_BYTES, 'a model file whose arrays declare more bytes '
         'is refused at start before anything is read (a zip member inflating to gigabytes)',
         read_only=True, low=1024, high=2 ** 40),
    Spec('feedback_timeout', 10.0, 'seconds after a prediction within which its '
         'yes/no counts', low=1e-3, high=1e6),
    Spec('max_questions', 3, 'questions per presented gesture: after a "no" the '
         "next-best label is asked; 1 = the paper's protocol, 0 = every label", low=0,
         high=1000, constraints='> 1 only for ' + ', '.join(ASK_AGAIN_ALGORITHMS)),
    Spec('reveal_step', DEFAULT_REVEAL_STEP, 'what a revealed label teaches the labels '
         'not asked: none, top1 (demote the best-scoring one), all, or all_known (all but '
         'the labels on new_label_probation)',
         constraints='one of ' + ', '.join(REVEAL_STEPS)),
    Spec('new_label_probation', DEFAULT_PROBATION, '"yes" answers a label added at runtime '
         'needs before it may be asked first (with max_questions > 1); 0 = at once', low=0,
         high=1000),
    Spec('unknown_rejection', OPEN_SET['enabled'], 'reject a gesture that looks never '
         'taught: ask its name at once (gesture_unknown) instead of guessing labels'),
    Spec('unknown_target', OPEN_SET['target'], 'wanted rate of false rejection of taught '
         'gestures; the threshold is calibrated online to it', low=0.001, high=0.499),
    Spec('unknown_rate', OPEN_SET['rate'], 'step of the online threshold update (adaptive '
         'conformal inference)', low=1e-6, high=1.0),
    Spec('unknown_window', OPEN_SET['window'], 'scores of taught gestures the threshold is '
         'a quantile of', low=1, high=1_000_000),
    Spec('unknown_warmup', OPEN_SET['warmup'], 'gestures after a fresh start (or switching '
         'rejection on) before any is rejected', low=0, high=1_000_000_000),
    Spec('unknown_min_yes', OPEN_SET['min_yes'], '"yes" answers a label needs before a '
         'gesture it would be asked for may be rejected', low=0, high=1_000_000),
    Spec('unknown_score', OPEN_SET['score'], 'what says a gesture looks never taught',
         constraints='one of ' + ', '.join(SCORES)),
    Spec('unknown_variance_floor', OPEN_SET['variance_floor'], 'likelihood scores: added to '
         'each variance, as a fraction of the mean variance', low=1e-9, high=1e9),
    Spec('unknown_recheck', OPEN_SET['recheck'], 'after each "no", score the gesture again '
         'for the next label and reject it then if it looks never taught'),
    Spec('unknown_first_share', OPEN_SET['first_share'], 'the threshold before question 1 as '
         'a share of the quantile level of a recheck (1 = the same)', low=0.01, high=1.0),
    Spec('unknown_shrinkage', OPEN_SET['shrinkage'], 'likelihood scores: the covariance '
         'pooled over the labels, worth this many examples, in that of each label '
         '(0 = none)', low=0.0, high=1e6),
    Spec('unknown_keep_confident', OPEN_SET['keep_confident'], 'no rejection before question '
         '1 where the lower confidence bound of the label asked beats every other score'),
    Spec('unknown_start', OPEN_SET['start'], "the online threshold's first quantile level, "
         "times unknown_target (1 = the paper's start)", low=0.01, high=100.0),
    Spec('unknown_min_scores', OPEN_SET['min_scores'], 'scores of taught gestures the '
         'threshold needs before any gesture is rejected', low=1, high=1_000_000),
    Spec('unknown_recheck_score', OPEN_SET['recheck_score'], 'what a recheck after a "no" '
         'scores by: the nearest confirmed gesture, or unknown_score for the next label',
         constraints='one of ' + ', '.join(RECHECK_SCORES)),
    Spec('unknown_trust', OPEN_SET['trust'], 'when a "yes" confirms a gesture for the '
         'never-taught check: audit (as support, and the "yes" answers a label took while '
         'young are scored again without themselves as it grows, and taken out if unlike '
         'the rest), support (once rejection could be armed for its label, a "yes" '
         'after a "no", or to a gesture unlike its label, waits until its label scores it '
         'as taught: one wrong "yes" cannot teach it) or yes (at once)',
         constraints='one of ' + ', '.join(TRUST)),
    Spec('unknown_doubt_no', OPEN_SET['doubt_no'], 'a "no" to a first guess that scores above '
         'the 1 - unknown_doubt_no quantile of the taught scores is taken for a slip: no '
         'recheck after it (0 = every "no" believed, the rule before)', low=0.0, high=0.999),
    Spec('unknown_early_recheck', OPEN_SET['early_recheck'], 'while rejection is not yet '
         'armed, after a "no" reject a gesture farther from the confirmed ones than the '
         'unknown_target share of them are from each other'),
    Spec('unknown_denials', OPEN_SET['denials'], '"no" answers to a confirmed gesture\'s label, '
         'from gestures nearest it, that take it back out of the check when more than its '
         '"yes" answers (a wrong "yes" to a never-taught gesture); 0 = never (before)',
         low=0, high=1_000_000),
    Spec('max_unanswered', 100, 'most unanswered predictions kept', read_only=True,
         low=1, high=100_000),
    Spec('stats_window', 100, 'rounds in the windowed rates', read_only=True,
         low=1, high=1_000_000),
    Spec('details_top', DETAILS_TOP, 'past this many labels the details message '
         'carries the best bounds only, with their indices; 0 = every label',
         read_only=True, low=0, high=1_000_000),
    Spec('diagnostics_period', 1.0, 'seconds between /diagnostics messages',
         read_only=True, low=0.01, high=3600.0),
    Spec('save_error_seconds', 60.0, 'seconds a failed save keeps /diagnostics at '
         'ERROR unless a save succeeds first; 0 = until a save succeeds', low=0.0, high=1e9),
    Spec('record_model_max_bytes', 4_000_000, 'a start model file up to this size is '
         'embedded in learner_config (so a recording replays alone); larger ones are named '
         'by path and sha256', read_only=True, low=0, high=1_000_000_000),
)
"""The node's own parameters, declared after the hyperparameters."""


def all_specs() -> List[Spec]:
    """Return every learner_node parameter, in declaration order."""
    return list(HEAD_SPECS) + hyperparameter_specs() + list(TAIL_SPECS)


def defaults() -> Dict[str, Any]:
    """Return ``{parameter: default}`` of every learner_node parameter."""
    return {spec.name: spec.default for spec in all_specs()}


def open_set_settings(value: Callable[[str], Any],
                      changes: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Return ``OpenSet.configure``'s arguments from the ``unknown_*`` parameters."""
    changes = changes or {}
    out = {}
    for key in OPEN_SET:
        name = 'unknown_rejection' if key == 'enabled' else 'unknown_' + key
        out[key] = changes[name] if name in changes else value(name)
    return out


def protocol(value: Callable[[str], Any], changes: Optional[Dict[str, Any]] = None) -> Protocol:
    """Return the checked ``ask_again.Protocol`` of the parameters with ``changes``, or raise."""
    changes = changes or {}
    return Protocol(**{name: changes.get(name, value(name)) for name in PROTOCOL_PARAMETERS})


def check_algorithm(algorithm: str) -> None:
    """Raise HyperparameterError unless ``algorithm`` names a bandit learner."""
    if algorithm not in BANDIT_ALGORITHMS:
        raise HyperparameterError(
            f'algorithm {algorithm!r} is not one of {sorted(BANDIT_ALGORITHMS)}')


def hyperparameters(algorithm: str, value: Callable[[str], Any],
                    changes: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """
    Return the constructor arguments of ``algorithm``.

    Parameters
    ----------
    algorithm : str
        A key of ``BANDIT_ALGORITHMS``.
    value : callable
        The current value of a parameter, by its name.
    changes : dict, optional
        ``{parameter: value}`` a pending change sets; they win over ``value``.

    """
    changes = changes or {}
    out = {}
    for name in HYPERPARAMETER_DEFAULTS[algorithm]:
        pname = parameter_name(algorithm, name)
        out[name] = changes[pname] if pname in changes else value(pname)
    return out


def check_hyperparameter_change(value: Callable[[str], Any], changes: Dict[str, Any]) -> None:
    """Raise HyperparameterError (or ValueError) for a change no learner would take."""
    for algorithm, defaults in HYPERPARAMETER_DEFAULTS.items():
        names = {parameter_name(algorithm, h) for h in defaults}
        if names & set(changes):
            # Building a throw-away learner runs the same checks as set_params.
            make_learner(algorithm, ['a'], 1, **hyperparameters(algorithm, value, changes))


def tunable_changes(wanted: Dict[str, Any], learner: BanditLearner) -> Dict[str, Any]:
    """Return the hyperparameters of ``wanted`` a running learner takes and holds otherwise."""
    held = learner.get_params()
    return {k: v for k, v in wanted.items()
            if k not in CONSTRUCTION_ONLY and v != held.get(k)}


def appended_labels(current: Optional[List[str]], asked: Optional[List[Any]]) -> List[str]:
    """
    Return the labels ``asked`` appends to ``current``; raise ValueError if it does more.

    ``current`` None means no model yet: any valid list is taken and nothing is appended.
    """
    labels = list(asked or [])
    check_labels(labels)
    if current is None:
        return []
    if labels[:len(current)] != current:
        raise ValueError(
            f'labels can only be appended (current {current}, asked {labels}); '
            'removing or renaming one needs ~/reset_model and a new model')
    return labels[len(current):]
