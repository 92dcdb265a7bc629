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

"""A person slips before rejection is armed: the young labels' "yes" answers, audited later."""

from banditlearn_ros.learning import HyperparameterError, UCWL
from banditlearn_ros.learning.algorithms import answer_audit
from banditlearn_ros.learning.algorithms.centring import Centring
from banditlearn_ros.learning.algorithms.open_set import (
    Calibration, LabelGaussians, NearestExamples, OpenSet)
from banditlearn_ros.learning.protocol.interaction import Interaction
import numpy as np
import pytest

LABELS = ['fist', 'palm', 'point']
CENTRES = {'fist': np.array([1.0, 0.0, 0.0, 1.0]), 'palm': np.array([0.0, 1.0, 0.0, 1.0]),
           'point': np.array([0.0, 0.0, 1.0, 1.0])}
STRAY = np.array([-3.0, 4.0, -2.0, 1.0])
"""A gesture never taught, far from the three taught ones."""


def test_a_removed_observation_leaves_the_sums_of_the_others():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 3)) @ np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.2], [0, 0, 2.0]])
    for diagonal in (False, True):
        g = LabelGaussians(3)
        g.diagonal = diagonal
        g.m2 = np.zeros((0,) + g._m2_shape())
        for x in X:
            g.add(0, x)
        g.remove(0, X[4])
        rest = np.delete(X, 4, axis=0)
        assert g.yes_count(0) == 11
        np.testing.assert_allclose(g.mean[0], rest.mean(0), rtol=1e-12, atol=1e-12)
        cov = np.cov(rest.T, bias=True) * 11
        np.testing.assert_allclose(g.m2[0], np.diagonal(cov) if diagonal else cov,
                                   rtol=1e-10, atol=1e-12)
    one = LabelGaussians(2)
    one.add(1, np.array([1.0, 2.0]))
    one.remove(1, np.array([1.0, 2.0]))
    assert one.yes_count(1) == 0 and not one.mean[1].any() and not one.m2[1].any()
    with pytest.raises(ValueError, match='no observation'):
        one.remove(1, np.array([1.0, 2.0]))


def test_a_removed_example_is_no_longer_the_nearest():
    ring = NearestExamples(2, limit=3)
    for k in range(5):  # keeps 2, 3, 4; the ring has wrapped
        ring.add(np.array([float(k), 0.0]))
    assert not ring.remove(np.array([0.0, 0.0]))  # dropped already
    assert ring.remove(np.array([3.0, 0.0]))
    np.testing.assert_array_equal(ring.arrays()['examples'], [[2.0, 0], [4.0, 0]])
    assert ring.score(np.array([3.0, 0.0])) == -1.0
    ring.add(np.array([9.0, 0.0]))
    ring.add(np.array([8.0, 0.0]))  # full again: 2 goes
    np.testing.assert_array_equal(ring.arrays()['examples'], [[4.0, 0], [9.0, 0], [8.0, 0]])


def _show(inter, x, truth, slip=False):
    """Show ``x``; answer truthfully (a wrong first answer if ``slip``); name a taught one."""
    item, _ = inter.predict(x, now=0.0)
    first = True
    while not item.questions.declined:
        said = item.prediction.label == truth
        result = inter.feedback(not said if slip and first else said, now=0.0)
        first = False
        if result.next_round is None:
            break
        item = result.next_round
    if truth in LABELS and item.questions.revealed is None:
        inter.name_unknown(truth)
    return item.questions.outcome


def _early_slip_then_show_again(trust, seed=0, denials=0):
    """Slip a "yes" to a never-taught gesture among the first ones, then show it again."""
    open_set = OpenSet(True, warmup=10, min_yes=3, trust=trust, denials=denials)

    def make(d):
        learner = UCWL(LABELS, d)
        learner.centring = Centring('none')
        return learner
    inter = Interaction(make, max_questions=3, open_set=open_set, clock=lambda: 0.0)
    rng = np.random.default_rng(seed)
    slipped = None
    for t in range(120):
        truth = LABELS[t % 3]
        if t == 4:  # no label has its min_yes "yes" answers: nothing is armed, nor held
            item, _ = inter.predict(STRAY, now=0.0)
            assert item.verdict is not None and not item.verdict.armed
            inter.feedback(True, now=0.0)  # the person slips at the first question
            slipped = item.questions.revealed
        _show(inter, CENTRES[truth] + rng.normal(0, 0.05, 4), truth)
    # shown again as alike as the taught gestures are among themselves
    outcomes = [_show(inter, STRAY + rng.normal(0, 0.01, 4), 'never taught')
                for _ in range(5)]
    return outcomes, open_set, slipped


def test_a_yes_slipped_before_arming_does_not_stop_a_later_rejection():
    outcomes, open_set, slipped = _early_slip_then_show_again('audit')
    cal = open_set.calibration
    assert slipped is not None
    # Audited out of its label once that label had grown: held, not a confirmed example.
    assert open_set.counts['audited_out'] >= 1
    assert any(label == slipped and np.array_equal(x, STRAY) for label, x in cal.held)
    assert cal.examples.score(STRAY) < -3.0
    assert outcomes == ['unknown'] * 5, outcomes
    assert open_set.stats()['unknown_audited_out'] == open_set.counts['audited_out']
    # The rule before (trust: support) took it in for good: it is a confirmed example, and
    # every later showing is near it, so asked all three questions, never rejected.
    outcomes, open_set, _ = _early_slip_then_show_again('support')
    assert open_set.calibration.examples.score(STRAY) == 0.0
    assert open_set.counts['audited_out'] == 0 and open_set.calibration.young == []
    assert 'unknown' not in outcomes, outcomes


def _young_label(slips, settings=None):
    """Return an open set whose label 0 took ``slips`` far gestures among its first ones."""
    # min_yes = AUDITS[0]: label 0 is settled (nothing held) only when it is first audited
    open_set = OpenSet(True, **{'warmup': 0, 'min_yes': answer_audit.AUDITS[0],
                                'score': 'likelihood_full', 'trust': 'audit', **(settings or {})})
    rng = np.random.default_rng(7)
    genuine = []
    for t in range(60):  # label 1 (at 10), named (trusted), first: the windows fill
        x = np.array([10.0, 10.0]) + rng.normal(0, 1.0, 2)
        open_set.taught(open_set.decide(x, _prediction(1)), 1, x, named=True)
    for t in range(answer_audit.AUDITS[0] - 1):
        if t in (1, 3)[:slips]:
            x = np.array([6.0, -6.0]) + rng.normal(0, 0.3, 2)
        else:
            x = rng.normal(0, 1.0, 2)
            genuine.append(x)
        open_set.taught(open_set.decide(x, _prediction(0)), 0, x)
    return open_set, genuine


def _prediction(index):
    from banditlearn_ros.learning.algorithms.base import Prediction
    scores = np.zeros(2)
    return Prediction(index, 'ab'[index], scores, scores + 1.0, False, index)


@pytest.mark.parametrize('slips', [1, 2])
def test_the_audit_takes_out_the_slips_and_keeps_the_rest(slips):
    """Two slips alike widen their label; one at a time, the lowest first, both go."""
    open_set, genuine = _young_label(slips)
    cal = open_set.calibration
    assert [label for label, _, _ in cal.young] == [0] * (answer_audit.AUDITS[0] - 1)
    assert cal.held == []
    x = np.array([0.2, -0.1])  # label 0's AUDITS[0]-th gesture: its first audit
    genuine.append(x)
    open_set.taught(open_set.decide(x, _prediction(0)), 0, x)
    # Every slip goes (and a genuine gesture scored below the level may go with them).
    out = [held for _, held in cal.held]
    assert open_set.counts['audited_out'] == len(out) >= slips
    assert sum(abs(held - [6.0, -6.0]).max() < 1.5 for held in out) == slips
    assert [label for label, _ in cal.held] == [0] * len(out)
    rows = np.array([g for g in genuine if not any(np.array_equal(g, h) for h in out)])
    assert rows.shape[0] == len(genuine) - (len(out) - slips)
    assert cal.gaussians.yes_count(0) == rows.shape[0]
    np.testing.assert_allclose(cal.gaussians.mean[0], rows.mean(0), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(cal.gaussians.m2[0], np.cov(rows.T, bias=True) * rows.shape[0],
                               rtol=1e-8, atol=1e-9)
    assert cal.examples.size == 60 + rows.shape[0]
    # The genuine ones stay young (audited again as the label grows) until it is mature.
    assert len(cal.young) == rows.shape[0] and not answer_audit.mature(open_set, 0)
    rng = np.random.default_rng(8)
    while not answer_audit.mature(open_set, 0):
        x = rng.normal(0, 1.0, 2)
        open_set.taught(open_set.decide(x, _prediction(0)), 0, x, named=True)
    assert cal.young == []


def test_an_audited_out_gesture_leaves_the_windows_too():
    open_set, _ = _young_label(1)
    cal = open_set.calibration
    slip = cal.young[1][1]
    assert abs(slip - [6.0, -6.0]).max() < 1.5
    # What a slip confirmed once its label was judged added to the windows (none here, as
    # min_yes = AUDITS[0]): a score far below the taught ones, and its nearest distance.
    cal.scores.append(-123.0)
    cal.nearest.append(-45.0)
    cal.young[1] = (0, slip, np.array([-123.0, -45.0]))
    scores, nearest = list(cal.scores), list(cal.nearest)
    x = np.array([0.2, -0.1])
    verdict = open_set.decide(x, _prediction(0))
    window = answer_audit.windowed(open_set, verdict, 0, verdict.score)
    assert np.isnan(window).all()  # label 0 not judged yet: nothing joins the windows
    open_set.taught(verdict, 0, x)
    assert any(np.array_equal(held, slip) for _, held in cal.held)
    assert list(cal.scores) == scores[:-1] and list(cal.nearest) == nearest[:-1]


def test_young_gestures_round_trip_and_an_older_file_loads_without_them():
    open_set, _ = _young_label(1)
    info, arrays = open_set.calibration.state()
    again = Calibration.from_state(info, arrays, 2)
    flat = (lambda young: [(label, x.tolist(), np.nan_to_num(w, nan=7.5).tolist())
                           for label, x, w in young])
    assert flat(again.young) == flat(open_set.calibration.young) != []
    del arrays['young'], arrays['young_label'], arrays['young_window']
    del info['counts']['audited_out']  # as saved before the audit
    older = Calibration.from_state(info, arrays, 2)
    assert older.young == [] and older.counts['audited_out'] == 0
    arrays['young'], arrays['young_label'] = np.ones((2, 3)), np.zeros(2, dtype=np.int64)
    with pytest.raises(ValueError, match='young gestures must be rows of 2 finite'):
        Calibration.from_state(info, arrays, 2)
    arrays['young'] = np.ones((2, 2))
    with pytest.raises(ValueError, match='a .score, nearest. pair each'):
        Calibration.from_state(info, arrays, 2)


def test_trust_support_and_yes_keep_the_rules_before():
    for trust in ('support', 'yes'):
        open_set, _ = _young_label(2, {'trust': trust})
        x = np.array([0.2, -0.1])
        open_set.taught(open_set.decide(x, _prediction(0)), 0, x)
        cal = open_set.calibration
        assert cal.young == [] and open_set.counts['audited_out'] == 0
        assert cal.gaussians.yes_count(0) == answer_audit.AUDITS[0]


def test_trust_takes_audit_support_and_yes_only():
    open_set = OpenSet(True)
    assert open_set.trust == 'audit'
    for trust in ('support', 'yes', 'audit'):
        open_set.configure(**{**open_set.settings(), 'trust': trust})
        assert open_set.trust == trust
    with pytest.raises(HyperparameterError, match='unknown_trust'):
        open_set.configure(**{**open_set.settings(), 'trust': 'later'})
    assert open_set.trust == 'audit'
