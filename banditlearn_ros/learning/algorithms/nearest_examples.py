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
features).  Only the last ``limit`` are kept (a ring), each with its label and the answers
that its neighbours gave about that label since (``answer_denials``).
"""

import math
from typing import Dict, Optional, Tuple

import numpy as np

LIMIT = 1000
"""Observations kept: 1000 x 80 landmark features are 640 kB in memory and in the model file."""


UNLABELLED = -1
"""The label of a row kept by a model file saved before rows had labels."""

PER_ROW = {'example_labels': UNLABELLED, 'example_denials': 0, 'example_support': 0}
"""What is kept beside each row, and its value for a row of an older model file."""


class NearestExamples:
    """A ring of the last ``limit`` confirmed observations (raw feature vectors)."""

    def __init__(self, n_features: int, limit: int = LIMIT):
        self.rows = np.zeros((int(limit), int(n_features)))
        self.per_row = {name: np.full(int(limit), value, dtype=np.int64)
                        for name, value in PER_ROW.items()}
        self.size = 0
        self.next = 0

    @property
    def labels(self) -> np.ndarray:
        """Each slot's label (``UNLABELLED`` if unknown)."""
        return self.per_row['example_labels']

    def add(self, x: np.ndarray, label: int = UNLABELLED) -> None:
        """Keep ``x`` of ``label``; past ``limit`` it takes the place of the oldest."""
        self.rows[self.next] = x
        for name, value in PER_ROW.items():
            self.per_row[name][self.next] = value
        self.labels[self.next] = int(label)
        self.next = (self.next + 1) % self.rows.shape[0]
        self.size = min(self.size + 1, self.rows.shape[0])

    def remove(self, x: np.ndarray) -> bool:
        """Forget the newest kept row equal to ``x``; return whether there was one."""
        order = self._order()
        same = np.flatnonzero((self.rows[order] == x).all(axis=1))
        if same.size:
            self.remove_slot(int(order[same[-1]]))
        return bool(same.size)

    def remove_slot(self, slot: int) -> None:
        """Forget the row kept in ``slot`` (``nearest``'s); the others keep their order."""
        order = self._order()
        kept = order[order != slot]
        self._refill(self.rows[kept], {name: a[kept] for name, a in self.per_row.items()})

    def nearest(self, x: np.ndarray) -> Optional[int]:
        """Return the slot of the kept row nearest ``x`` (None: none kept)."""
        return int(_squared(self.rows[:self.size], x).argmin()) if self.size else None

    def score(self, x: np.ndarray) -> float:
        """Return minus the Euclidean distance to the nearest kept observation (-inf: none)."""
        return _nearest(self.rows[:self.size], x) if self.size else -math.inf

    def leave_one_out(self, x: np.ndarray, last: int) -> Tuple[float, np.ndarray]:
        """
        Return ``score(x)`` among the newest ``last`` rows, and each row's among the others.

        The rows' leave-one-out scores are what a new taught gesture's score is like.
        """
        rows = self.rows[self._order()][-int(last):]
        if rows.shape[0] < 2:
            return -math.inf, np.zeros(0)
        squared = (rows * rows).sum(1)
        between = np.maximum(squared[:, None] + squared[None, :] - 2.0 * rows @ rows.T, 0.0)
        np.fill_diagonal(between, np.inf)
        return _nearest(rows, x), -np.sqrt(between.min(1))

    def _order(self) -> np.ndarray:
        """Return the slots of the kept rows, oldest first."""
        if self.size < self.rows.shape[0]:
            return np.arange(self.size)
        return np.roll(np.arange(self.rows.shape[0]), -self.next)

    def _refill(self, rows: np.ndarray, per_row: Dict[str, np.ndarray]) -> None:
        """Keep exactly ``rows`` (oldest first) and what goes with each."""
        n = rows.shape[0]
        self.rows[:] = 0.0
        self.rows[:n] = rows
        for name, value in PER_ROW.items():
            self.per_row[name][:] = value
            self.per_row[name][:n] = per_row[name]
        self.size, self.next = n, n % self.rows.shape[0]

    def arrays(self) -> Dict[str, np.ndarray]:
        """Return the kept observations and what goes with each, oldest first (model file)."""
        order = self._order()
        return {'examples': self.rows[order].copy(),
                **{name: a[order].copy() for name, a in self.per_row.items()}}

    @classmethod
    def from_arrays(cls, arrays: Dict[str, np.ndarray], n_features: int,
                    limit: int = LIMIT) -> 'NearestExamples':
        """Rebuild from ``arrays()`` (the newest ``limit``); raise ValueError if unusable."""
        rows = np.asarray(arrays['examples'], dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != int(n_features) or not np.isfinite(rows).all():
            raise ValueError(f'open set examples must be rows of {n_features} finite numbers')
        per_row = {}
        for name, value in PER_ROW.items():  # none in a file saved before they were kept
            column = np.asarray(arrays.get(name, np.full(rows.shape[0], value)))
            if column.shape != (rows.shape[0],) or column.dtype.kind not in 'iu' \
                    or (column < value).any():
                raise ValueError(f'open set {name} must be one whole number >= {value} a row')
            per_row[name] = column[-int(limit):]
        out = cls(n_features, limit)
        out._refill(rows[-int(limit):], per_row)
        return out


def _squared(rows: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Return the squared Euclidean distance from ``x`` to each of ``rows``."""
    diff = rows - x
    return np.einsum('ij,ij->i', diff, diff)


def _nearest(rows: np.ndarray, x: np.ndarray) -> float:
    """Return minus the Euclidean distance from ``x`` to the nearest of ``rows``."""
    return -math.sqrt(float(_squared(rows, x).min()))
