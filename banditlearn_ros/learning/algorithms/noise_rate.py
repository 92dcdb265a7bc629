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

"""NREst: flip rates estimated from the learner's history (Agarwal and Manwani 2021, Alg. 3)."""

from typing import Tuple

import numpy as np


class FeedbackNetwork:
    """
    A small network of ``q(x, y) = P(feedback says right | x, output y)``.

    Seed 004 (section "Noise Rate Estimation") trains a ReLU network with a two-way softmax
    output on ``x`` concatenated with the one-hot output label, by AdaGrad (learning rate
    0.01, delta 1e-6) on minibatches of 128 with cross-entropy.  This is that network with
    one hidden layer, in numpy.
    """

    def __init__(self, n_features: int, n_labels: int, hidden: int = 32, epochs: int = 70,
                 learning_rate: float = 0.01, batch_size: int = 128, seed: int = 0):
        self.n_features, self.n_labels = n_features, n_labels
        self.hidden, self.epochs = hidden, epochs
        self.learning_rate, self.batch_size = learning_rate, batch_size
        self._rng = np.random.default_rng(seed)
        n_in = n_features + n_labels
        self.w1 = self._rng.normal(0.0, np.sqrt(2.0 / n_in), (n_in, hidden))
        self.b1 = np.zeros(hidden)
        self.w2 = self._rng.normal(0.0, np.sqrt(2.0 / hidden), (hidden, 2))
        self.b2 = np.zeros(2)

    def _inputs(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        onehot = np.zeros((len(y), self.n_labels))
        onehot[np.arange(len(y)), y] = 1.0
        return np.hstack([x, onehot])

    def _forward(self, inp: np.ndarray):
        h = np.maximum(inp @ self.w1 + self.b1, 0.0)
        logits = h @ self.w2 + self.b2
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        return h, p

    def fit(self, x: np.ndarray, y: np.ndarray, f: np.ndarray) -> 'FeedbackNetwork':
        """Train on outputs ``y`` (indices) and feedback bits ``f`` for observations ``x``."""
        inp = self._inputs(np.asarray(x, float), np.asarray(y, int))
        target = np.asarray(f, int)
        params = [self.w1, self.b1, self.w2, self.b2]
        accum = [np.zeros_like(p) for p in params]
        n = len(target)
        for _ in range(self.epochs):
            order = self._rng.permutation(n)
            for start in range(0, n, self.batch_size):
                idx = order[start:start + self.batch_size]
                h, p = self._forward(inp[idx])
                grad_logits = p.copy()
                grad_logits[np.arange(len(idx)), target[idx]] -= 1.0
                grad_logits /= len(idx)
                grad_h = (grad_logits @ self.w2.T) * (h > 0)
                grads = [inp[idx].T @ grad_h, grad_h.sum(0), h.T @ grad_logits,
                         grad_logits.sum(0)]
                for param, grad, acc in zip(params, grads, accum):
                    acc += grad * grad
                    param -= self.learning_rate * grad / (np.sqrt(acc) + 1e-6)
        return self

    def prob_right(self, x: np.ndarray, label: int) -> np.ndarray:
        """``q(x, label)`` for every row of x."""
        x = np.asarray(x, float)
        return self._forward(self._inputs(x, np.full(len(x), label)))[1][:, 1]


def estimate_noise_rates(x: np.ndarray, y: np.ndarray, f: np.ndarray, n_labels: int,
                         percentile: float = 89.0, max_rate: float = 0.45,
                         seed: int = 0, **network) -> Tuple[float, float]:
    """
    Estimate (rho0, rho1) by NREst (Agarwal and Manwani 2021, Alg. 3), a percentile for the argmax.

    For each label l the "perfect example" ``x_l*`` is the sample whose ``q(x, l)`` sits at
    the ``percentile`` (the paper takes the 89th, because the sample maximum is
    sensitive to outliers).  Then ``1 - rho1 = q(x_l*, l)`` and ``rho0 = q(x_k*, l)``
    for ``k != l`` (Theorem 2), averaged over the labels.  Each rate is clipped to
    ``[0, max_rate]`` so that ``rho0 + rho1 < 1`` always holds.

    Returns
    -------
    tuple of float
        ``(rho0, rho1)``.

    """
    x = np.asarray(x, float)
    model = FeedbackNetwork(x.shape[1], n_labels, seed=seed, **network).fit(x, y, f)
    q = np.stack([model.prob_right(x, lab) for lab in range(n_labels)], axis=1)
    perfect = []
    for lab in range(n_labels):
        column = q[:, lab]
        target = np.percentile(column, percentile, method='nearest')
        perfect.append(int(np.flatnonzero(column == target)[0]))
    right, wrong = [], []
    for lab in range(n_labels):
        for k in range(n_labels):
            (right if k == lab else wrong).append(q[perfect[k], lab])
    rho1 = float(np.clip(1.0 - np.mean(right), 0.0, max_rate))
    rho0 = float(np.clip(np.mean(wrong), 0.0, max_rate)) if wrong else 0.0
    return rho0, rho1
