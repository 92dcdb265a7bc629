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

"""A person who slips: a doubted "no" and the recheck before rejection is armed, no ROS."""

from banditlearn_ros.learning import HyperparameterError
from banditlearn_ros.learning.algorithms.open_set import OpenSet
import numpy as np
import pytest
from test_open_set import _label_prediction, _taught_interaction

FIST = np.array([1.0, 0.0, 0.0, 1.0])


def _deny_fists(doubt_no):
    """Teach three gestures, then show ten fists whose right first guess the person denies."""
    open_set = OpenSet(True, warmup=10, min_yes=3, recheck_score='score', doubt_no=doubt_no)
    inter = _taught_interaction(open_set)
    rng = np.random.default_rng(1)
    alpha, errors = open_set.alpha, open_set.counts['false_rejections']
    outcomes, doubted = [], []
    for _ in range(10):
        item, _ = inter.predict(FIST + rng.normal(0, 0.05, 4), now=0.0)
        assert item.prediction.label == 'fist' and item.verdict.armed
        assert not item.questions.declined
        doubted.append(open_set.doubted(item.verdict))
        said = False  # the slip: "no" to the right first guess, the rest answered rightly
        while True:
            result = inter.feedback(said, now=0.0)
            if result.next_round is None:
                break
            item, said = result.next_round, result.next_round.prediction.label == 'fist'
        outcomes.append(item.questions.outcome)
        if item.questions.revealed is None:
            inter.name_unknown('fist')
    return open_set, alpha, open_set.counts['false_rejections'] - errors, outcomes, doubted


def test_a_no_to_a_gesture_far_inside_its_label_neither_rejects_nor_lowers_the_level():
    """
    A denied fist far inside its label is asked on, not rejected as a false rejection.

    Scored by the next label's Gaussian (recheck_score 'score') a fist is rejected after a
    "no" and, named a fist, is a false rejection; doubted, the next labels are asked.
    """
    believed, start, errors, outcomes, _ = _deny_fists(doubt_no=0.0)  # the rule before
    assert outcomes == ['unknown'] * 10 and errors == 10
    assert believed.alpha < start
    doubting, start, errors, outcomes, doubted = _deny_fists(doubt_no=0.75)
    assert 0 < sum(doubted) < 10  # fists far inside and fists at the edge of their label
    assert outcomes == ['all_rejected' if d else 'unknown' for d in doubted]
    assert errors == 10 - sum(doubted)  # at the edge a "no" is believed, as before
    assert doubting.alpha > believed.alpha


def _examples_open_set(**settings):
    """Return an open set never armed (min_yes), its confirmed examples 20 points near 0."""
    open_set = OpenSet(True, warmup=0, min_yes=1000, **settings)
    rng = np.random.default_rng(2)
    for _ in range(20):
        open_set.taught(None, 0, rng.normal(0, 0.1, 2))
    return open_set


def test_before_arming_a_no_rejects_what_is_farther_than_the_examples_from_each_other():
    open_set = _examples_open_set()
    rows = open_set.calibration.examples.arrays()['examples']
    between = np.sqrt(((rows[:, None] - rows[None]) ** 2).sum(-1))
    np.fill_diagonal(between, np.inf)
    threshold = np.quantile(-between.min(1), open_set.target)
    alpha = open_set.alpha
    decided = []
    for x in (np.array([0.05, 0.0]), np.array([3.0, 3.0])):
        verdict = open_set.decide(x, _label_prediction(0))
        assert not verdict.armed and not verdict.reject
        again = open_set.recheck(verdict, x, _label_prediction(1), 2)
        if again.reject:
            assert again.threshold == pytest.approx(threshold, rel=1e-9)
            assert again.score == pytest.approx(-np.sqrt((((rows - x) ** 2).sum(1)).min()))
            assert again.question == 2
        else:
            assert again is verdict
        decided.append(again.reject)
    assert decided == [False, True]
    assert open_set.alpha == alpha and open_set.counts['rejected'] == 1
    # off, or in the warm-up: the rule before (no rejection until armed)
    warm = _examples_open_set()
    warm.warmup = 10 ** 6
    for off in (_examples_open_set(early_recheck=False), warm):
        far = np.array([3.0, 3.0])
        verdict = off.decide(far, _label_prediction(0))
        assert off.recheck(verdict, far, _label_prediction(1), 2) is verdict


def test_a_taught_gesture_the_early_recheck_rejected_is_counted_and_leaves_alpha():
    open_set = _examples_open_set()
    alpha, far = open_set.alpha, np.array([3.0, 3.0])
    verdict = open_set.recheck(open_set.decide(far, _label_prediction(0)), far,
                               _label_prediction(1), 2)
    assert verdict.reject and not verdict.armed
    open_set.taught(verdict, 0, far, named=True, question=3)  # "that's fist": taught after all
    stats = open_set.stats()
    assert stats['unknown_early_false_rejections'] == 1
    assert stats['unknown_false_rejections'] == 0 and stats['unknown_taught_armed'] == 0
    assert open_set.alpha == alpha


def test_doubt_no_is_checked():
    for bad in (-0.1, 1.0, 'x'):
        with pytest.raises((HyperparameterError, ValueError)):
            OpenSet(True, doubt_no=bad)
    with pytest.raises(HyperparameterError):
        OpenSet(True, early_recheck=1)
