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
Per-label Gaussians of the observations a person confirmed: the density the open set scores by.

Split from ``open_set`` (which decides with it): here only the sums and the log-density, so
that the online threshold and the score each have their own module.  Welford's running sums
give each label's mean and covariance in one pass, as answers arrive, without keeping the
observations.  Above ``FULL_MAX_FEATURES`` features only the diagonal of the sums is kept
(K x d, not K x d x d: at 4096 features a full one takes 134 MB per label), and the
``likelihood_full`` scores then use the diagonal.
"""

import math
from typing import Dict

import numpy as np

FULL_MAX_FEATURES = 256
"""Most features whose full covariance a label keeps (512 kB per label at 256)."""


class LabelGaussians:
    """Mean and covariance per label of the observations confirmed for it (Welford's sums)."""

    def __init__(self, n_features: int):
        self.n_features = int(n_features)
        self.count = np.zeros(0)
        self.mean = np.zeros((0, self.n_features))
        self.diagonal = self.n_features > FULL_MAX_FEATURES
        self.m2 = np.zeros((0,) + self._m2_shape())
        """Sums of the outer products of the deviations: K x d x d (the diagonal for
        ``likelihood``, all of it for ``likelihood_full``); K x d, the diagonal only, past
        ``FULL_MAX_FEATURES``."""

    def _m2_shape(self) -> tuple:
        d = self.n_features
        return (d,) if self.diagonal else (d, d)

    @staticmethod
    def state_bytes(n_labels: int, n_features: int) -> int:
        """Return the bytes the sums of ``n_labels`` labels take (the size checks count it)."""
        d = int(n_features)
        return 8 * int(n_labels) * (d + 1 + (d if d > FULL_MAX_FEATURES else d * d))

    def _grow(self, n_labels: int) -> None:
        extra = n_labels - self.count.size
        if extra > 0:
            d = self.n_features
            self.count = np.concatenate([self.count, np.zeros(extra)])
            self.mean = np.concatenate([self.mean, np.zeros((extra, d))])
            self.m2 = np.concatenate([self.m2, np.zeros((extra,) + self._m2_shape())])

    def yes_count(self, index: int) -> int:
        """Return how many observations label ``index`` was confirmed for."""
        return int(self.count[index]) if index < self.count.size else 0

    def add(self, index: int, x: np.ndarray) -> None:
        """Add one observation confirmed as label ``index``."""
        self._grow(index + 1)
        self.count[index] += 1
        delta = x - self.mean[index]
        self.mean[index] += delta / self.count[index]
        self.m2[index] += (delta * (x - self.mean[index]) if self.diagonal
                           else np.outer(delta, x - self.mean[index]))

    def remove(self, index: int, x: np.ndarray) -> None:
        """
        Take back one observation ``x`` added to label ``index`` (Welford's sums downdated).

        The inverse of ``add``: the mean without x is ``(n mean - x) / (n - 1)`` and the sums
        lose ``(x - mean_without) (x - mean)^T``.  The last observation leaves zeros.
        """
        n = self.yes_count(index)
        if n < 1:
            raise ValueError(f'label {index} has no observation to take back')
        if n == 1:
            self.count[index], self.mean[index], self.m2[index] = 0, 0.0, 0.0
            return
        mean = self.mean[index]
        before = (n * mean - x) / (n - 1)
        self.m2[index] -= ((x - before) * (x - mean) if self.diagonal
                           else np.outer(x - before, x - mean))
        self.mean[index] = before
        self.count[index] = n - 1

    def row(self, index: int) -> tuple:
        """Return copies of label ``index``'s count, mean and sums (``restore`` puts them back)."""
        return float(self.count[index]), self.mean[index].copy(), self.m2[index].copy()

    def restore(self, index: int, row: tuple) -> None:
        """Put back what ``row`` returned: exactly, with no rounding of a remove and add."""
        self.count[index], self.mean[index], self.m2[index] = row

    def _pooled(self) -> float:
        """Return the mean variance over features and labels (the floor's unit)."""
        seen = self.count > 0
        total = (self.m2[seen].sum() if self.diagonal
                 else np.trace(self.m2[seen], axis1=1, axis2=2).sum())
        return float(total / self.count[seen].sum() / self.n_features)

    def log_likelihood(self, index: int, x: np.ndarray, floor: float,
                       full: bool = False, shrinkage: float = 0.0) -> float:
        """
        Return log N(x; mean, cov + floor * pooled * I) of a label, up to a constant.

        ``cov`` is the label's covariance (its diagonal unless ``full``); ``pooled`` is the
        mean variance over all labels; -inf for a label not seen yet.  With ``shrinkage``
        tau > 0, ``cov`` is ``(n cov + tau pooled_cov) / (n + tau)`` for a label with n
        examples: the covariance pooled over the labels stands in for what a label with few
        examples cannot yet estimate (shrinkage toward a common target, as Ledoit and Wolf,
        "A well-conditioned estimator for large-dimensional covariance matrices", 2004,
        with a fixed weight).
        """
        n = self.yes_count(index)
        if n == 0:
            return -math.inf
        ridge = floor * self._pooled() + 1e-12
        diff = x - self.mean[index]
        m2 = self.m2[index]
        if shrinkage > 0.0:
            seen = self.count > 0
            pooled = self.m2[seen].sum(axis=0) / self.count[seen].sum()
            m2 = m2 + shrinkage * pooled
            n = n + shrinkage
        if not full or self.diagonal:
            var = (m2 if self.diagonal else np.diagonal(m2)) / n + ridge
            return float(-0.5 * (diff * diff / var + np.log(var)).sum())
        cov = m2 / n
        cov = 0.5 * (cov + cov.T)  # the sums are symmetric up to rounding
        cov[np.diag_indices_from(cov)] += ridge
        # scipy's LAPACK calls, not numpy's: numpy's threaded ones took 10-20 x longer on
        # a loaded two-core machine (2 ms against 0.2 ms at d = 64). Imported here: only
        # a full covariance needs it, and a node's start path does not.
        import scipy.linalg
        try:
            chol = scipy.linalg.cholesky(cov, lower=True, check_finite=False)
        except np.linalg.LinAlgError:  # rounding made it indefinite: the diagonal only
            return self.log_likelihood(index, x, floor, False, shrinkage)
        z = scipy.linalg.solve_triangular(chol, diff, lower=True, check_finite=False)
        return float(-0.5 * (z @ z) - np.log(np.diagonal(chol)).sum())

    def arrays(self) -> Dict[str, np.ndarray]:
        """Return count, mean and m2 for the model file."""
        return {'count': self.count.copy(), 'mean': self.mean.copy(), 'm2': self.m2.copy()}

    @classmethod
    def from_arrays(cls, arrays: Dict[str, np.ndarray], n_features: int) -> 'LabelGaussians':
        """Rebuild from ``arrays()``; raise ValueError for sums that cannot be used."""
        count = np.asarray(arrays['count'], dtype=np.float64)
        k, d = count.size, int(n_features)
        out = cls(d)
        for name, shape in (('count', (k,)), ('mean', (k, d)), ('m2', (k,) + out._m2_shape())):
            arr = np.asarray(arrays[name], dtype=np.float64)
            if arr.shape != shape or not np.isfinite(arr).all():
                raise ValueError(f'open set {name} must be {shape} finite numbers')
            setattr(out, name, arr.copy())
        if (count < 0).any() or (count != np.round(count)).any():
            raise ValueError('open set counts must be whole numbers >= 0')
        return out
