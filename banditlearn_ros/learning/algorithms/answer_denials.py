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
A confirmed gesture its neighbours' answers deny is taken back out.

A person wrong one time in ten says "yes" to a never-taught gesture now and then, most often
early, before the check can reject it; it then becomes a confirmed example of a taught label,
and the gestures like it are no longer rejected (docs/benchmarks.md, "Never-taught
gestures").  ``answer_audit`` judges such a "yes" by the rest of its label, but two or three
never-taught gestures let in together vouch for each other there.  The answers that follow
tell more: gestures like it keep coming, the learner (taught so) guesses that label, and the
person, right nine times in ten, says "no".  So a "no" to label L for a gesture whose nearest
confirmed example is one of L counts against that example, a "yes" to L (or L named) for a
gesture nearest it counts for it; when ``denials`` "no" answers (``open_set``'s setting) and
more than its "yes" answers have come, the example is taken back out of the confirmed
examples, its label's Gaussian and the audit's list, and not held.  A label's last gesture
stays in its Gaussian (a label with none is not armed: nothing like it would be rejected),
and the windows of taught scores keep what was measured (chosen on sign digits, splits
10-19, with 10 % wrong answers: 86.1 % of never-taught gestures rejected, against 84.9 % with
the windows cleared too and 83.4 % with a label's last gesture kept among the examples as
well).  The gestures nearest
a taught example are mostly of its label, which a slip denies one time in ten.  Removing a
training example its nearest neighbours contradict is Wilson's editing of the
nearest-neighbour rule ("Asymptotic Properties of Nearest Neighbor Rules Using Edited Data",
IEEE Transactions on Systems, Man, and Cybernetics, 1972); here the person's "no" is the
contradiction, given as they come.
"""

from typing import Any

import numpy as np


def supported(open_set: Any, index: int, x: np.ndarray) -> None:
    """Count a gesture confirmed as label ``index`` for its nearest confirmed example of it."""
    examples = open_set.calibration.examples
    slot = examples.nearest(x) if examples is not None else None
    if slot is not None and examples.labels[slot] == index:
        examples.per_row['example_support'][slot] += 1


def denied(open_set: Any, index: int, x: np.ndarray) -> bool:
    """
    Count a "no" to label ``index`` for ``x`` against its nearest confirmed example, if of it.

    Returns whether that example was taken back out.
    """
    cal = open_set.calibration
    examples = cal.examples
    slot = examples.nearest(x) if examples is not None else None
    if slot is None or examples.labels[slot] != index:
        return False
    counts = examples.per_row
    counts['example_denials'][slot] += 1
    denials = counts['example_denials'][slot]
    if denials < open_set.denials or denials <= counts['example_support'][slot]:
        return False
    row = examples.rows[slot].copy()
    examples.remove_slot(slot)
    if cal.gaussians.yes_count(index) > 1:
        cal.gaussians.remove(index, row)
    for i, (label, young, _) in enumerate(cal.young):
        if label == index and np.array_equal(young, row):
            del cal.young[i]
            break
    cal.counts['denied_out'] += 1
    return True
