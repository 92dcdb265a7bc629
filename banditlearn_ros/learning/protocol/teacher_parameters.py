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
The teacher node's parameters as plain data, and the answer model they make.

``teacher_node`` declares ``SPECS``; a change is checked by making its ``TeacherModel``
(which refuses noise no person could have), so all of it is tested without DDS.
"""

from typing import Any, Callable, Dict, Optional

from banditlearn_ros.parameter_spec import Spec

from .teacher_model import TeacherModel

NOISE_PARAMETERS = ('label_noise', 'rho0', 'rho1', 'no_answer')
"""The parameters that make the teacher's answer model (changeable at runtime)."""

SPECS = (
    Spec('labels', [], 'label names label noise draws from; [] = the names seen on the label '
         'topic so far'),
    Spec('label_noise', 0.0, 'probability that the label in mind is a random one', low=0.0,
         high=1.0),
    Spec('rho0', 0.0, 'probability of saying "right" for a wrong prediction', low=0.0,
         high=1.0, constraints='< 1; rho0 + rho1 < 1'),
    Spec('rho1', 0.0, 'probability of saying "wrong" for a right prediction', low=0.0,
         high=1.0, constraints='< 1; rho0 + rho1 < 1'),
    Spec('no_answer', 0.0, 'probability of saying nothing', low=0.0, high=1.0),
    Spec('delay', 0.0, 'seconds between a prediction and its answer', low=0.0, high=3600.0),
    Spec('seed', 0, 'seed of the noise', read_only=True, low=0, high=2 ** 31 - 1),
    Spec('stats_window', 100, 'rounds in the windowed true mistake rate', read_only=True,
         low=1, high=1_000_000),
    Spec('diagnostics_period', 1.0, 'seconds between /diagnostics messages', read_only=True,
         low=0.01, high=3600.0),
)
"""The teacher node's parameters, in the order they are declared."""


def teacher_model(value: Callable[[str], Any],
                  changes: Optional[Dict[str, Any]] = None) -> TeacherModel:
    """Return the answer model of the parameters with ``changes`` (HyperparameterError)."""
    changes = changes or {}
    return TeacherModel(**{name: changes[name] if name in changes else value(name)
                           for name in NOISE_PARAMETERS})
