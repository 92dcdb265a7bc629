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

"""What a learner's ``select`` decided for one observation (``Prediction``)."""

from dataclasses import dataclass

import numpy as np


@dataclass(slots=True)
class Prediction:
    """
    What ``select`` decided for one observation.

    Attributes
    ----------
    index : int
        Index of the output label (the one the robot says).
    label : str
        Name of the output label.
    scores : numpy.ndarray
        Per-label margins (``mu_i . x`` or ``w_i . x``).
    bounds : numpy.ndarray
        Per-label values the choice maximised (upper confidence bounds, or the scores
        themselves for algorithms that explore at random).
    explored : bool
        True when the output label is not a best-scoring label.
    greedy : int
        The best-scoring label the exploit-only rule would have said.
    probability : float
        Probability with which the output label was drawn (1 for deterministic rules).

    """

    index: int
    label: str
    scores: np.ndarray
    bounds: np.ndarray
    explored: bool
    greedy: int
    probability: float = 1.0
