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
What the open set learns, as the model file keeps it: Gaussians, examples, windows, ``alpha_t``.

Split from ``open_set`` (which decides with it): the state and its checks on loading.
"""

from collections import deque
import math
from typing import Any, Deque, Dict, List, Optional, Tuple

import numpy as np

from .label_gaussians import LabelGaussians
from .nearest_examples import NearestExamples

WINDOW = 100
"""Taught scores the threshold is a quantile of, by default (``open_set.DEFAULTS``)."""

COUNTS = ('rejected', 'taught_armed', 'false_rejections', 'early_false_rejections',
          'kept_confident', 'held', 'held_confirmed', 'audited_out', 'denied_out')
"""What ``stats`` reports as ``unknown_<count>``."""

HELD_LIMIT = 100
"""Gestures held for support (``open_set``'s ``trust``) kept at most, the newest."""

YOUNG_LIMIT = 500
"""Confirmed gestures waiting for their label's audit kept at most, the newest (an older one
stays confirmed unaudited): 12 labels' 40 each."""


class Calibration:
    """
    What the open set learns: Gaussians, examples, taught scores, ``alpha_t``, counts.

    The learner carries it (``OnlineClassifier.calibration``) so that the model file keeps it.
    """

    def __init__(self, alpha: float, window: int):
        self.gaussians: Optional[LabelGaussians] = None
        self.examples: Optional[NearestExamples] = None
        self.scores: Deque[float] = deque(maxlen=max(1, int(window)))
        self.nearest: Deque[float] = deque(maxlen=max(1, int(window)))
        self.alpha = float(alpha)
        self.seen = 0
        self.counts = dict.fromkeys(COUNTS, 0)
        self.held: List[Tuple[int, np.ndarray]] = []
        """Gestures answered "yes" that wait for support: (label, raw vector), oldest first."""
        self.young: List[Tuple[int, np.ndarray, np.ndarray]] = []
        """Confirmed while their label was young, not yet audited (``answer_audit``): (label,
        raw vector, what it added to the windows: score and nearest, nan for nothing)."""

    def state(self) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
        """Return (JSON-able values, arrays) for the model file."""
        info = {'alpha': self.alpha, 'seen': self.seen, 'counts': dict(self.counts)}
        arrays = {'scores': np.fromiter(self.scores, float, len(self.scores)),
                  'nearest': np.fromiter(self.nearest, float, len(self.nearest))}
        if self.gaussians is not None:
            arrays.update(self.gaussians.arrays())
        if self.examples is not None:
            arrays.update(self.examples.arrays())
        for name, rows in (('held', self.held), ('young', self.young)):
            if rows:
                arrays[name + '_label'] = np.array([r[0] for r in rows], dtype=np.int64)
                arrays[name] = np.array([r[1] for r in rows], dtype=np.float64)
        if self.young:
            arrays['young_window'] = np.array([r[2] for r in self.young], dtype=np.float64)
        return info, arrays

    @classmethod
    def from_state(cls, info: Any, arrays: Dict[str, np.ndarray], n_features: int,
                   window: int = WINDOW) -> 'Calibration':
        """Rebuild from ``state()``; raise ValueError for a state that cannot be used."""
        if not isinstance(info, dict):
            raise ValueError(f'open set state must be a table, got {info!r}')
        alpha, seen, counts = info.get('alpha'), info.get('seen'), info.get('counts')
        if isinstance(counts, dict):  # saved before these were counted
            counts = {'kept_confident': 0, 'held': 0, 'held_confirmed': 0, 'audited_out': 0,
                      'early_false_rejections': 0, 'denied_out': 0, **counts}
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) \
                or not math.isfinite(alpha):
            raise ValueError(f'open set alpha must be a finite number, got {alpha!r}')
        whole = (lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0)
        if not whole(seen) or not isinstance(counts, dict) \
                or set(counts) != set(COUNTS) or not all(map(whole, counts.values())):
            raise ValueError('open set seen and counts must be whole numbers >= 0')
        windows = [np.asarray(arrays.get(k, np.zeros(0)), dtype=np.float64)
                   for k in ('scores', 'nearest')]  # 'nearest': none in older files
        if any(w.ndim != 1 or not np.isfinite(w).all() for w in windows):
            raise ValueError('open set scores must be finite numbers')
        out = cls(alpha, max(window, *(w.size for w in windows)))
        out.scores.extend(windows[0].tolist())
        out.nearest.extend(windows[1].tolist())
        out.seen, out.counts = seen, dict(counts)
        if 'count' in arrays:
            out.gaussians = LabelGaussians.from_arrays(arrays, n_features)
        if 'examples' in arrays:
            out.examples = NearestExamples.from_arrays(arrays, n_features)
        out.held = _labelled_rows(arrays, 'held', n_features)[-HELD_LIMIT:]
        young = _labelled_rows(arrays, 'young', n_features)
        window = np.asarray(arrays.get('young_window', np.zeros((0, 2))), dtype=np.float64)
        if window.shape != (len(young), 2) or np.isinf(window).any():
            raise ValueError('open set young gestures need a (score, nearest) pair each, '
                             'finite or nan')
        out.young = [(label, row, w.copy())
                     for (label, row), w in zip(young, window)][-YOUNG_LIMIT:]
        return out


def _labelled_rows(arrays: Dict[str, np.ndarray], name: str,
                   n_features: int) -> List[Tuple[int, np.ndarray]]:
    """Return the (label, row) pairs saved as ``name`` (none in older files), or raise."""
    if name not in arrays:
        return []
    labels = np.asarray(arrays.get(name + '_label', np.zeros(0)))
    rows = np.asarray(arrays[name], dtype=np.float64)
    if rows.ndim != 2 or rows.shape != (labels.size, int(n_features)) \
            or not np.isfinite(rows).all() or labels.dtype.kind not in 'iu' \
            or (labels < 0).any():
        raise ValueError(f'open set {name} gestures must be rows of {n_features} finite '
                         'numbers, each with a label >= 0')
    return [(int(label), row.copy()) for label, row in zip(labels, rows)]
