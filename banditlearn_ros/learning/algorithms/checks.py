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

"""The checks every learner makes of its hyperparameters and inputs, and their errors."""

import math
from typing import List, Optional, Sequence

import numpy as np


class LearnerInputError(ValueError):
    """An input the learner refuses: wrong size, not finite, unknown label."""


class HyperparameterError(ValueError):
    """A hyperparameter outside the range its paper allows."""


def check_range(name: str, value: float, low: Optional[float] = None,
                high: Optional[float] = None, low_open: bool = False,
                high_open: bool = False) -> float:
    """Return ``value`` as float if it lies in the interval, else raise HyperparameterError."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise HyperparameterError(f'{name} must be a number, got {value!r}') from None
    if not math.isfinite(v):
        raise HyperparameterError(f'{name} must be finite, got {value!r}')
    bad = ((low is not None and (v <= low if low_open else v < low))
           or (high is not None and (v >= high if high_open else v > high)))
    if bad:
        lo = '-inf' if low is None else repr(low)
        hi = 'inf' if high is None else repr(high)
        interval = ('(' if low_open else '[') + f'{lo}, {hi}' + (')' if high_open else ']')
        raise HyperparameterError(f'{name}={v!r} is outside {interval}')
    return v


def check_choice(name: str, value: str, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise HyperparameterError."""
    if value not in choices:
        raise HyperparameterError(f'{name}={value!r} is not one of {list(choices)}')
    return value


def check_positive(name: str, arr: np.ndarray, labels: List[str]) -> None:
    """Refuse variances or precisions a learner cannot update from (<= 0, or not PD)."""
    for row, label in zip(arr, labels):
        diagonal = row if row.ndim == 1 else np.diagonal(row)
        if np.any(diagonal <= 0):
            raise ValueError(f'array {name!r} of label {label!r} has a variance <= 0 '
                             f'(smallest {diagonal.min():.3g}); the learner could never update')
        if row.ndim == 2:
            try:
                np.linalg.cholesky(row)
            except np.linalg.LinAlgError:
                raise ValueError(f'array {name!r} of label {label!r} is not positive '
                                 'definite') from None
