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

"""Banditron: the Perceptron with uniform exploration (Agarwal and Manwani 2021, eq. (3))."""

from typing import Any, Optional

import numpy as np

from .base import BanditLearner, check_range, Label, Prediction
from .reductions import row_dots


class Banditron(BanditLearner):
    """
    Kakade, Shalev-Shwartz and Tewari's Banditron as in Agarwal and Manwani 2021, section 2.

    ``y_hat = argmax_r w_r . x``; the output ``y_tilde`` is drawn from
    ``P(r) = (1 - gamma) 1[r = y_hat] + gamma / K`` (eq. (3)); the update is
    ``W += U`` with ``U_rj = x_j (f 1[y_tilde = r] / P(r) - 1[y_hat = r])`` where ``f`` is
    1 when the output was right.  Every round changes the model.

    Parameters
    ----------
    labels, n_features : int or list of str, int
        The labels (a number, or their names) and the length of every feature vector.
    gamma : float
        Exploration probability, in [0, 1).
    seed : int
        Seed of the exploration draws and of tie-breaking.

    """

    name = 'banditron'
    _hyperparameters = ('gamma',)
    _array_names = ('w',)
    _gamma_range = {'low': 0.0, 'high': 1.0, 'high_open': True}

    def __init__(self, labels, n_features: int, gamma: float = 0.05, seed: int = 0, **kw):
        self.gamma = gamma
        for key, value in kw.items():
            setattr(self, key, value)
        super().__init__(labels, n_features, seed)

    def _validate(self) -> None:
        self.gamma = check_range('gamma', self.gamma, **self._gamma_range)

    def _init_rows(self, name: str, n: int) -> np.ndarray:
        return np.zeros((n, self.n_features))

    def scores(self, x: Any) -> np.ndarray:
        """Margins ``w_r . x``."""
        return row_dots(self._w, self.check_x(x))

    def _probabilities(self, greedy: int) -> np.ndarray:
        p = np.full(self.n_labels, self.gamma / self.n_labels)
        p[greedy] += 1.0 - self.gamma
        return p

    def select(self, x: Any) -> Prediction:
        """Draw the output from eq. (3) around the greedy label."""
        x = self.check_x(x)
        scores = row_dots(self._w, x)
        greedy = self._argmax(scores)
        p = self._probabilities(greedy)
        chosen = int(self._rng.choice(self.n_labels, p=p)) if self.gamma > 0 else greedy
        return self._prediction(chosen, scores, scores.copy(), greedy, float(p[chosen]))

    def _feedback_value(self, correct: bool) -> float:
        """Return the value the update multiplies by ``1/P``: here the bit itself."""
        return 1.0 if correct else 0.0

    def _after_feedback(self, x: np.ndarray, chosen: int, correct: bool) -> None:
        """Let learners that also keep the raw feedback (RCINE) see it."""

    def learn(self, x: Any, label: Label, correct: bool,
              prediction: Optional[Prediction] = None) -> bool:
        """Apply ``W += U`` with the greedy label and P from the round's prediction."""
        x = self.check_x(x)
        chosen = self.label_index(label)
        correct = self._check_correct(correct)
        if prediction is not None and prediction.index == chosen:
            greedy, p_chosen = prediction.greedy, prediction.probability
        else:
            greedy = self._argmax(row_dots(self._w, x))
            p_chosen = float(self._probabilities(greedy)[chosen])
        f = self._feedback_value(correct)
        self._w[chosen] += (f / p_chosen) * x
        self._w[greedy] -= x
        self.n_updates += 1
        self._after_feedback(x, chosen, correct)
        return True
