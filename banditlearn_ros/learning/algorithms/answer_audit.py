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
A person slips before the check can judge: a young label's "yes" answers, audited as it grows.

``trusted_answers`` holds a doubtful "yes" only once rejection could be armed for its label
(``settled``): a label's first answers build what judges the others, so they are taken at
once.  A person wrong one time in ten slips among them too, and a never-taught gesture said
"yes" to then becomes part of a taught label's Gaussian, of the confirmed examples and of
the window of taught scores: the gestures like it are not rejected after
(docs/benchmarks.md, "Never-taught gestures").

With ``trust`` ``'audit'`` (``open_set``), every gesture confirmed by a "yes" while its label
has fewer than ``AUDITS[-1]`` confirmed gestures is remembered (``Calibration.young``, with
what it added to the windows).  When the label has ``AUDITS[k]`` (and is settled) its young
gestures are audited: each is scored by its label's Gaussian *without it* (leave one out:
as the window's taught scores are, each scored before it joined), and the lowest, when below
the recheck's ``alpha_t`` quantile of the taught scores, is taken back out of the Gaussian,
the confirmed examples and the windows, and held (``trusted_answers.release`` admits it
again if its label comes to score it as taught, young again if the label is); then the rest are
scored again, until none is below or the label would keep only half its gestures (an audit
that finds most of a label unlike the rest would judge by too few).  One at a time, lowest
first: a gesture far out widens its label's covariance and so hides others like it (the
masking that Rousseeuw and van Zomeren, "Unmasking Multivariate Outliers and Leverage
Points", JASA 1990, describe for Mahalanobis distances); with it out they stand out again.
Audited again at each ``AUDITS`` count, since a label's Gaussian judges better the more
gestures it has; at ``AUDITS[-1]`` the young ones left are trusted for good.  A named
gesture is trusted at once, as with ``'support'``, whose rules ``'audit'`` keeps.
"""

import math
from typing import Any, List, Sequence, Tuple

import numpy as np

from .open_set_state import HELD_LIMIT, YOUNG_LIMIT
from .trusted_answers import settled

AUDITS = (10, 20, 40)
"""Confirmed gestures of a label at which its young ones are audited (chosen on sign digits,
splits 10-19: 10 / 20 / 40 against 5 / 10 / 20 / 40, 10 and 10 / 20 / 30 / 40 / 60)."""

Young = Tuple[np.ndarray, np.ndarray]
"""A gesture confirmed for a young label and what it added to the windows (``windowed``)."""


def mature(open_set: Any, index: int) -> bool:
    """Return whether label ``index`` is settled and has ``AUDITS[-1]`` confirmed gestures."""
    return settled(open_set, index) and _count(open_set, index) >= max(AUDITS[-1],
                                                                       open_set.min_yes)


def _count(open_set: Any, index: int) -> int:
    gaussians = open_set.calibration.gaussians
    return gaussians.yes_count(index) if gaussians is not None else 0


def young(open_set: Any, index: int, named: bool) -> bool:
    """Return whether a "yes" to label ``index``, confirmed now, waits for an audit."""
    return open_set.trust == 'audit' and not named and not mature(open_set, index)


def _leave_one_out(open_set: Any, index: int, x: np.ndarray) -> float:
    """Return the score of ``x`` under label ``index``'s Gaussian with ``x`` taken out."""
    gaussians = open_set.calibration.gaussians
    row = gaussians.row(index)
    gaussians.remove(index, x)
    try:
        return gaussians.log_likelihood(index, x, open_set.variance_floor,
                                        open_set.score_name.startswith('likelihood_full'),
                                        open_set.shrinkage)
    finally:
        gaussians.restore(index, row)


def windowed(open_set: Any, verdict: Any, index: int, first: float) -> np.ndarray:
    """
    Return what ``open_set.confirm`` is about to add to the two windows for this gesture.

    (score, nearest), nan where nothing: taken out of the windows too if it is audited out.
    """
    judged = verdict is not None and open_set.judged(index)
    return np.array([first if judged and math.isfinite(first) else math.nan,
                     verdict.nearest if judged and math.isfinite(verdict.nearest)
                     else math.nan])


def audit(open_set: Any, index: int, new: Sequence[Young] = ()) -> List[np.ndarray]:
    """
    Remember ``new`` (young gestures just confirmed for label ``index``), audit it if due.

    ``new`` holds (gesture, ``windowed``) pairs.  A gesture held for support
    (``trusted_answers``) and confirmed now is young too while its label is not ``mature``.
    Returns the gestures taken back out (see the module text), oldest first.
    """
    cal = open_set.calibration
    if new and not mature(open_set, index):
        cal.young += [(int(index), np.array(x, dtype=np.float64), np.array(w, dtype=np.float64))
                      for x, w in new]
        del cal.young[:-YOUNG_LIMIT]
    count = _count(open_set, index)
    if not (cal.young and settled(open_set, index) and count in AUDITS
            and count >= open_set.min_yes):
        return []
    mine = [(i, row, window) for i, (label, row, window) in enumerate(cal.young)
            if label == index]
    level = open_set.threshold()
    keep = count // 2 + 1
    out = []
    while mine and cal.gaussians.yes_count(index) > keep and math.isfinite(level):
        scores = [_leave_one_out(open_set, index, row) for _, row, _ in mine]
        worst = int(np.argmin(scores))
        if not scores[worst] < level:
            break
        order, row, window = mine.pop(worst)
        cal.gaussians.remove(index, row)
        if cal.examples is not None:
            cal.examples.remove(row)
        for kept, value in ((cal.scores, window[0]), (cal.nearest, window[1])):
            if math.isfinite(value) and value in kept:
                kept.remove(value)
        cal.held.append((int(index), row))
        del cal.held[:-HELD_LIMIT]
        cal.counts['audited_out'] += 1
        out.append((order, row))
    gone = {order for order, _ in out}
    done = mature(open_set, index)
    cal.young = [entry for i, entry in enumerate(cal.young)
                 if i not in gone and not (done and entry[0] == index)]
    return [row for _, row in sorted(out, key=lambda pair: pair[0])]
