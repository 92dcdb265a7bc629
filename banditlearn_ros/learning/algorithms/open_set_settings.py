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
The settings of the "I don't know" check (``open_set.OpenSet``), written once.

Their names, defaults, meaning and checks are one frozen value (``Settings``), which the
check, its constructor, ``configure`` and ``settings`` all read.
"""

from dataclasses import asdict, dataclass, fields
import math
from typing import Any, Dict

import numpy as np

from .checks import check_choice, HyperparameterError
from .open_set_state import WINDOW
from .trusted_answers import TRUST

SCORES = ('likelihood_full', 'likelihood_full_max', 'likelihood', 'likelihood_max', 'lcb')
"""Observation scores; the first is the default."""

RECHECK_SCORES = ('nearest', 'score')
"""What a recheck scores by: the nearest confirmed observation, or ``score``."""


@dataclass(frozen=True)
class Settings:
    """
    How ``OpenSet`` rejects (see ``open_set``'s module text); checked when made.

    The defaults were chosen by measurement (docs/benchmarks.md, bench_unknown.py).  The
    learner node's parameters are these names with ``unknown_`` before them.

    Attributes
    ----------
    target : float
        Wanted rate of false rejection of taught gestures, in (0, 0.5).
    rate : float
        Step ``gamma`` of the adaptive conformal update of ``alpha_t``.
    window : int
        Scores of taught gestures the quantile is taken over.
    warmup : int
        Interactions (since enabled or reset) before rejection is armed.
    min_yes : int
        "Yes" answers the first-asked label needs before rejection is armed for it.
    score : str
        One of ``SCORES``.
    variance_floor : float
        Floor of the likelihood score's variances, as a fraction of the mean variance.
    recheck : bool
        After each "no", score the gesture again for the next label asked (``recheck``).
    first_share : float
        Quantile level before question 1 as a share of ``alpha_t`` (the level of a recheck).
    shrinkage : float
        Likelihood scores: pseudo-count of the pooled covariance in each label's.
    keep_confident : bool
        Hold back a rejection before question 1 where the learner is sure of its guess.
    start : float
        ``alpha_1`` as a multiple of ``target`` (1 = the paper's start).
    min_scores : int
        Taught scores the window needs before rejection is armed.
    recheck_score : str
        What a recheck scores by (``RECHECK_SCORES``).
    trust : str
        When a "yes" confirms a gesture (``trusted_answers.TRUST``).
    doubt_no : float
        A "no" to a first guess that scores above the ``1 - doubt_no`` quantile of the taught
        scores is doubted: no recheck then (0: every "no" is believed, the rule before).
    early_recheck : bool
        Recheck after a "no" while rejection is not armed, against the confirmed examples'
        leave-one-out nearest distances (``early``; false: the rule before).
    denials : int
        "No" answers to a confirmed example's label, from gestures nearest it, that take it
        back out when more than its "yes" answers (``answer_denials``; 0: never, before).

    """

    target: float = 0.05
    rate: float = 0.03
    window: int = WINDOW
    warmup: int = 20
    min_yes: int = 5
    score: str = 'likelihood_full'
    variance_floor: float = 0.3
    recheck: bool = True
    first_share: float = 0.2
    shrinkage: float = 20.0
    keep_confident: bool = True
    start: float = 2.0
    min_scores: int = 5
    recheck_score: str = 'nearest'
    trust: str = 'audit'
    doubt_no: float = 0.75
    early_recheck: bool = True
    denials: int = 2

    def __post_init__(self):
        """Refuse a setting ``OpenSet`` cannot take (HyperparameterError), then convert."""
        if not 0.0 < float(self.target) < 0.5:
            raise HyperparameterError(f'unknown_target must be in (0, 0.5), got {self.target!r}')
        if not 0.0 < float(self.rate) <= 1.0:
            raise HyperparameterError(f'unknown_rate must be in (0, 1], got {self.rate!r}')
        for name, low in (('window', 1), ('warmup', 0), ('min_yes', 0), ('min_scores', 1),
                          ('denials', 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                    or value < low:
                raise HyperparameterError(f'unknown_{name} must be an integer >= {low}, '
                                          f'got {value!r}')
        check_choice('unknown_score', self.score, SCORES)
        check_choice('unknown_recheck_score', self.recheck_score, RECHECK_SCORES)
        check_choice('unknown_trust', self.trust, TRUST)
        if not float(self.variance_floor) > 0.0:
            raise HyperparameterError(
                f'unknown_variance_floor must be > 0, got {self.variance_floor!r}')
        if not 0.0 <= float(self.doubt_no) < 1.0:
            raise HyperparameterError(f'unknown_doubt_no must be in [0, 1), got {self.doubt_no!r}')
        for name in ('recheck', 'keep_confident', 'early_recheck'):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise HyperparameterError(
                    f'unknown_{name} must be true or false, got {getattr(self, name)!r}')
        if not 0.0 < float(self.start) * float(self.target) < 1.0:
            raise HyperparameterError(f'unknown_start x unknown_target must be in (0, 1), '
                                      f'got {self.start!r} x {self.target!r}')
        if not 0.0 < float(self.first_share) <= 1.0:
            raise HyperparameterError(
                f'unknown_first_share must be in (0, 1], got {self.first_share!r}')
        if not 0.0 <= float(self.shrinkage) < math.inf:
            raise HyperparameterError(f'unknown_shrinkage must be >= 0, got {self.shrinkage!r}')
        for field in fields(self):  # the values as their types (an int for a float ...)
            object.__setattr__(self, field.name, _TYPES[field.type](getattr(self, field.name)))

    def as_dict(self) -> Dict[str, Any]:
        """Return the settings by name (``OpenSet.configure`` takes them so)."""
        return asdict(self)


_TYPES = {'float': float, 'int': int, 'bool': bool, 'str': str,
          float: float, int: int, bool: bool, str: str}

DEFAULTS: Dict[str, Any] = Settings().as_dict()
"""Every setting's default, by name."""


def check_open_set(**settings: Any) -> None:
    """Raise HyperparameterError for a setting ``OpenSet`` cannot take (``Settings``)."""
    Settings(**settings)
