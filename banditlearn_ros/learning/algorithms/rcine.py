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

"""RCINE: RCNBF estimating its own noise rates as it goes (Agarwal and Manwani 2021, Alg. 2)."""

from typing import Any, Dict

import numpy as np

from .base import check_range, HyperparameterError
from .noise_rate import estimate_noise_rates
from .rcnbf import RCNBF


class RCINE(RCNBF):
    """
    RCNBF with Implicit Noise Estimation (Agarwal and Manwani 2021, Algorithm 2).

    Starts with ``rho0 = rho1 = 0``, keeps every ``(x, output, feedback)`` in a buffer S and
    every ``n_s`` rounds replaces the rates by NREst on S (Algorithm 3, see
    ``noise_rate.estimate_noise_rates``), then clears S.  The update uses the output label
    ``y_tilde`` in the first term as Algorithm 1 does (Algorithm 2 prints ``y_hat`` there,
    which would make the update ignore which label was explored).

    Parameters
    ----------
    labels, n_features : int or list of str, int
        The labels (a number, or their names) and the length of every feature vector.
    gamma : float
        Exploration probability, in (0, 0.5).
    n_s : int
        Rounds between two noise-rate estimates (>= 10).
    percentile : float
        Percentile used in place of NREst's argmax, in (50, 100].
    seed : int
        Seed of exploration, tie-breaking and the estimator's network.

    """

    name = 'rcine'
    _hyperparameters = ('gamma', 'n_s', 'percentile')

    def __init__(self, labels, n_features: int, gamma: float = 0.05, n_s: int = 1000,
                 percentile: float = 89.0, seed: int = 0):
        self.n_s, self.percentile = n_s, percentile
        super().__init__(labels, n_features, gamma=gamma, rho0=0.0, rho1=0.0, seed=seed)
        self._buffer_x, self._buffer_y, self._buffer_f = [], [], []
        self.n_estimates = 0

    def _validate(self) -> None:
        super()._validate()
        n_s = check_range('n_s', self.n_s, 10, None)
        if n_s != int(n_s):
            raise HyperparameterError(f'n_s must be a whole number, got {self.n_s}')
        self.n_s = int(n_s)
        self.percentile = check_range('percentile', self.percentile, 50.0, 100.0,
                                      low_open=True)

    def get_params(self) -> Dict[str, Any]:
        """Return the constructor arguments (the rates are learned state here)."""
        return {name: getattr(self, name) for name in self._hyperparameters}

    def add_label(self, name: str) -> int:
        """Add a label; the buffer is cleared because its one-hot width changes."""
        index = super().add_label(name)
        self._buffer_x, self._buffer_y, self._buffer_f = [], [], []
        return index

    def _after_feedback(self, x: np.ndarray, chosen: int, correct: bool) -> None:
        self._buffer_x.append(x.copy())
        self._buffer_y.append(chosen)
        self._buffer_f.append(int(correct))
        if len(self._buffer_f) >= self.n_s:
            self.rho0, self.rho1 = estimate_noise_rates(
                np.array(self._buffer_x), np.array(self._buffer_y), np.array(self._buffer_f),
                self.n_labels, percentile=self.percentile,
                seed=int(self._rng.integers(2 ** 31)))
            self.n_estimates += 1
            self._buffer_x, self._buffer_y, self._buffer_f = [], [], []

    def _extra_state(self) -> Dict[str, Any]:
        state = super()._extra_state()
        state.update(rho0=self.rho0, rho1=self.rho1, n_estimates=self.n_estimates,
                     buffer_y=list(self._buffer_y), buffer_f=list(self._buffer_f),
                     buffer_x=[list(map(float, v)) for v in self._buffer_x])
        return state

    def _load_extra_state(self, extra: Dict[str, Any]) -> None:
        super()._load_extra_state(extra)
        self.rho0 = float(extra.get('rho0', 0.0))
        self.rho1 = float(extra.get('rho1', 0.0))
        self.n_estimates = int(extra.get('n_estimates', 0))
        self._buffer_y = [int(v) for v in extra.get('buffer_y', [])]
        self._buffer_f = [int(v) for v in extra.get('buffer_f', [])]
        self._buffer_x = [np.array(v, dtype=float) for v in extra.get('buffer_x', [])]
