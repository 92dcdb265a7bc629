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
A person slips: which "yes" answers the never-taught check (``open_set``) takes at once.

A never-taught gesture asked three questions gets at least one wrong "yes" from a person wrong
one time in ten with probability 0.27; that "yes" would make it a confirmed example of a
taught label, and every later gesture like it would then be near a confirmed example (the
recheck) and likely under that label's Gaussian: accepted for good.  With ``trust``
``'support'`` (the default) such a "yes" is *held* (``suspect``): it joins neither the
Gaussians, nor the confirmed examples, nor the windows of taught scores, until that label's
Gaussian, fitted to trusted examples, scores it at least at the recheck's ``alpha_t``
quantile of the taught scores, looked at each time a trusted gesture joins the label
(``release``).  Held is a "yes" that came after a "no" in the same interaction (where most
wrong ones come: the first guess was not it), and a "yes" at question 1 to a gesture scored
below that quantile under its label's Gaussian, or farther from every confirmed example than
that quantile of the taught gestures' distances; both only once rejection could be armed for
the label (``settled``), since its first "yes" answers build what judges the others.  Past
``open_set_state.HELD_LIMIT`` the oldest are forgotten; a gesture the person names is trusted
at once.  This keeps the class-conditional densities (Lee, Lee, Lee and Shin, "A Simple
Unified Framework for Detecting Out-of-Distribution Samples and Adversarial Attacks",
NeurIPS 2018, section 2) and the nearest-neighbour score (Sun, Ming, Zhu and Li,
"Out-of-Distribution Detection with Deep Nearest Neighbors", ICML 2022) on confirmations
that agree with the rest of their label.  ``'yes'``: every "yes" confirms at once (as before).
"""

import math
from typing import Any, List

import numpy as np

TRUST = ('support', 'audit', 'yes')
"""When a "yes" confirms a gesture: once its label supports it (``'audit'``: and the first
ones again once the label has grown, ``answer_audit``), or at once."""


def settled(open_set: Any, index: int) -> bool:
    """Return whether label ``index`` is judged and the window holds ``min_scores``."""
    return (open_set.judged(index)
            and len(open_set.calibration.scores) >= open_set.min_scores)


def suspect(open_set: Any, verdict: Any, index: int, first: float, question: int) -> bool:
    """
    Return whether a "yes" to label ``index`` waits for support (see the module text).

    ``first`` is the gesture's score under its label, ``question`` the question answered.
    """
    if open_set.trust == 'yes' or verdict is None or not settled(open_set, index):
        return False
    if question > 1:
        return True
    cal = open_set.calibration
    low = bool(cal.scores) and first < open_set.threshold()
    far = bool(cal.nearest) and verdict.nearest < open_set.threshold(1.0, cal.nearest)
    return low or far


def release(open_set: Any, index: int) -> List[np.ndarray]:
    """Confirm and return the held gestures of label ``index`` it now scores as taught."""
    cal = open_set.calibration
    out = []
    level = open_set.threshold() if settled(open_set, index) else -math.inf
    full = open_set.score_name.startswith('likelihood_full')
    keep = []
    for label, held in cal.held:
        if label == index and cal.gaussians.log_likelihood(
                label, held, open_set.variance_floor, full, open_set.shrinkage) >= level:
            open_set.confirm(None, label, held, math.nan)
            cal.counts['held_confirmed'] += 1
            out.append(held)
        else:
            keep.append((label, held))
    cal.held = keep
    return out
