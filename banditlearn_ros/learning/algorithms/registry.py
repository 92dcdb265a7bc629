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
The learners by their registry name, in a module of its own.

``persistence`` finds a model file's class here; were the names kept in the package's
``__init__`` (which imports ``persistence``), the two would import each other.
"""

from .banditron import Banditron
from .base import HyperparameterError, OnlineClassifier
from .confidit import Confidit
from .full_feedback import (
    MulticlassAROW, MulticlassCW, MulticlassPA, MulticlassPerceptron, MulticlassSCW)
from .rcine import RCINE
from .rcnbf import RCNBF
from .ucwl import UCWL

BANDIT_ALGORITHMS = {cls.name: cls for cls in (UCWL, Confidit, Banditron, RCNBF, RCINE)}
FULL_FEEDBACK_ALGORITHMS = {cls.name: cls for cls in (
    MulticlassSCW, MulticlassAROW, MulticlassCW, MulticlassPA, MulticlassPerceptron)}
ALGORITHMS = {**BANDIT_ALGORITHMS, **FULL_FEEDBACK_ALGORITHMS}


def make_learner(algorithm: str, labels, n_features: int, **hyperparameters) -> OnlineClassifier:
    """Build a learner by its registry name (``ucwl``, ``confidit``, ``mscw`` ...)."""
    try:
        cls = ALGORITHMS[algorithm]
    except KeyError:
        raise HyperparameterError(
            f'unknown algorithm {algorithm!r}; choose one of {sorted(ALGORITHMS)}') from None
    return cls(labels, n_features, **hyperparameters)
