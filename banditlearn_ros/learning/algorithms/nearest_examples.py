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
The last confirmed observations, and how far a new one is from the nearest of them.

The open set's recheck after a "no" scores by this distance (``open_set``): early in a session
a label's Gaussian rests on a few examples, while the nearest confirmed example of any label
already says whether a gesture is like anything taught (docs/benchmarks.md measures both).
The distance to the nearest training example as an out-of-distribution score follows Sun,
Ming, Zhu and Li, "Out-of-Distribution Detection with Deep Nearest Neighbors" (ICML 2022;
theirs the k-th nearest on normalised learned features, here the nearest on the raw
features).  Only the last ``limit`` are kept (a ring).
"""

import math
from typing import Dict, Tuple

import numpy as np

LIMIT = 1000
"""Observations kept: 1000 x 80 landmark features are 640 kB in memory and in the model file."""


class NearestExamples:
    """A ring of the last ``limit`` confirmed observations (raw feature vectors)."""

    def __init__(self, n_features: int, limit: int = LIMIT):
        self.rows = np.zeros((int(limit), int(n_features)))
        self.size = 0
        self.next = 0

    def add(self, x: np.ndarray) -> None:
        """Keep ``x``; past ``limit`` it takes the place of the oldest."""
        self.rows[self.next] = x
        self.next = (self.next + 1) % self.rows.shape[0]
        self.size = min(self.size + 1, self.rows.shape[0])

    def remove(self, x: np.ndarray) -> bool:
        """Forget the newest kept row equal to ``x``; return whether there was one."""
        rows = self.arrays()['examples']
        same = np.flatnonzero((rows == x).all(axis=1))
        if same.size == 0:
            return False
        rows = np.delete(rows, same[-1], axis=0)
        self.rows[:] = 0.0
        self.rows[:rows.shape[0]] = rows
        self.size, self.next = rows.shape[0], rows.shape[0] % self.rows.shape[0]
        return True

    def score(self, x: np.ndarray) -> float:
        """Return minus the Euclidean distance to the nearest kept observation (-inf: none)."""
        return _nearest(self.rows[:self.size], x) if self.size else -math.inf

    def leave_one_out(self, x: np.ndarray, last: int) -> Tuple[float, np.ndarray]:
        """
        Return ``score(x)`` among the newest ``last`` rows, and each row's among the others.

        The rows' leave-one-out scores are what a new taught gesture's score is like.
        """
        rows = self.arrays()['examples'][-int(last):]
        if rows.shape[0] < 2:
            return -math.inf, np.zeros(0)
        squared = (rows * rows).sum(1)
        between = np.maximum(squared[:, None] + squared[None, :] - 2.0 * rows @ rows.T, 0.0)
        np.fill_diagonal(between, np.inf)
        return _nearest(rows, x), -np.sqrt(between.min(1))

    def arrays(self) -> Dict[str, np.ndarray]:
        """Return the kept observations, oldest first, for the model file."""
        if self.size < self.rows.shape[0]:
            return {'examples': self.rows[:self.size].copy()}
        return {'examples': np.roll(self.rows, -self.next, axis=0)}

    @classmethod
    def from_arrays(cls, arrays: Dict[str, np.ndarray], n_features: int,
                    limit: int = LIMIT) -> 'NearestExamples':
        """Rebuild from ``arrays()`` (the newest ``limit``); raise ValueError if unusable."""
        rows = np.asarray(arrays['examples'], dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != int(n_features) or not np.isfinite(rows).all():
            raise ValueError(f'open set examples must be rows of {n_features} finite numbers')
        out = cls(n_features, limit)
        for x in rows[-int(limit):]:
            out.add(x)
        return out


def _nearest(rows: np.ndarray, x: np.ndarray) -> float:
    """Return minus the Euclidean distance from ``x`` to the nearest of ``rows``."""
    diff = rows - x
    return -math.sqrt(float(np.einsum('ij,ij->i', diff, diff).min()))
