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

"""Feedback models: how a simulated person answers, with the papers' kinds of noise."""

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..algorithms.base import check_range, HyperparameterError


@dataclass
class TeacherModel:
    """
    A simulated person's answer to "is it label y_out?".

    Three kinds of imperfection, each from a seed paper:

    - ``label_noise`` p (seeds 000 and 002): with probability p the label the person has in
      mind is replaced by a uniformly random label before answering;
    - ``rho0``, ``rho1`` (Agarwal and Manwani 2021): the answer is flipped,
      ``rho0 = P(says right | was wrong)`` and ``rho1 = P(says wrong | was right)``;
    - ``no_answer``: with this probability the person says nothing (no update).
    """

    label_noise: float = 0.0
    rho0: float = 0.0
    rho1: float = 0.0
    no_answer: float = 0.0

    def __post_init__(self):
        self.label_noise = check_range('label_noise', self.label_noise, 0.0, 1.0)
        self.rho0 = check_range('rho0', self.rho0, 0.0, 1.0, high_open=True)
        self.rho1 = check_range('rho1', self.rho1, 0.0, 1.0, high_open=True)
        self.no_answer = check_range('no_answer', self.no_answer, 0.0, 1.0)
        if self.rho0 + self.rho1 >= 1.0:
            raise HyperparameterError(f'rho0 + rho1 must be < 1, got {self.rho0} + {self.rho1}')

    def observed_labels(self, y: np.ndarray, n_labels: int,
                        rng: np.random.Generator) -> np.ndarray:
        """Return the labels the person has in mind for a whole stream (label noise applied)."""
        y = np.asarray(y).copy()
        if self.label_noise > 0:
            noisy = rng.random(len(y)) < self.label_noise
            y[noisy] = rng.integers(0, n_labels, int(noisy.sum()))
        return y

    def answer(self, output: int, observed: int,
               rng: np.random.Generator) -> Optional[bool]:
        """Answer about ``output`` when the person has ``observed`` in mind; None is silence."""
        if self.no_answer > 0 and rng.random() < self.no_answer:
            return None
        right = output == observed
        flip = self.rho1 if right else self.rho0
        if flip > 0 and rng.random() < flip:
            right = not right
        return bool(right)
