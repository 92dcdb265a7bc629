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

"""RCNBF: the Banditron robust to flipped feedback of known rates (Agarwal and Manwani 2021)."""

from .banditron import Banditron
from .base import check_range, HyperparameterError


def unbiased_feedback(f: int, rho0: float, rho1: float) -> float:
    """
    Lemma 1 of Agarwal and Manwani 2021.

    ``h(f) = ((1 - rho_{1-f}) f - rho_f (1 - f)) / (1 - rho0 - rho1)``.

    ``rho0 = P(feedback says right | was wrong)``, ``rho1 = P(feedback says wrong | was right)``;
    ``E[h(f_rho)] = f``.  Hence ``h(1) = (1 - rho0) / beta`` and ``h(0) = -rho0 / beta``
    with ``beta = 1 - rho0 - rho1``.
    """
    beta = 1.0 - rho0 - rho1
    if beta <= 0.0:
        raise HyperparameterError(f'rho0 + rho1 must be < 1, got {rho0} + {rho1}')
    return (1.0 - rho0) / beta if f else -rho0 / beta


class RCNBF(Banditron):
    """
    Robust Classifier for Noisy Bandit Feedback (Agarwal and Manwani 2021, Algorithm 1).

    The Banditron update with the bit replaced by its unbiased estimate (eq. (5)):
    ``H_rj = x_j (h(f) 1[y_tilde = r] / P(r) - 1[y_hat = r])``.

    Parameters
    ----------
    labels, n_features : int or list of str, int
        The labels (a number, or their names) and the length of every feature vector.
    gamma : float
        Exploration probability, in (0, 0.5) as Algorithm 1 requires.
    rho0, rho1 : float
        Known flip rates, each in [0, 1), with ``rho0 + rho1 < 1``.
    seed : int
        Seed of the exploration draws and of tie-breaking.

    """

    name = 'rcnbf'
    _hyperparameters = ('gamma', 'rho0', 'rho1')
    _gamma_range = {'low': 0.0, 'high': 0.5, 'low_open': True, 'high_open': True}

    def __init__(self, labels, n_features: int, gamma: float = 0.05, rho0: float = 0.0,
                 rho1: float = 0.0, seed: int = 0):
        super().__init__(labels, n_features, gamma=gamma, seed=seed, rho0=rho0, rho1=rho1)

    def _validate(self) -> None:
        super()._validate()
        self.rho0 = check_range('rho0', self.rho0, 0.0, 1.0, high_open=True)
        self.rho1 = check_range('rho1', self.rho1, 0.0, 1.0, high_open=True)
        if self.rho0 + self.rho1 >= 1.0:
            raise HyperparameterError(
                f'rho0 + rho1 must be < 1, got {self.rho0} + {self.rho1}')

    def _feedback_value(self, correct: bool) -> float:
        return unbiased_feedback(int(correct), self.rho0, self.rho1)
