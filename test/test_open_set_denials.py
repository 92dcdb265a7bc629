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

"""A confirmed gesture whose neighbours keep being denied its label is taken back out."""

from banditlearn_ros.learning import HyperparameterError
from banditlearn_ros.learning.algorithms.nearest_examples import NearestExamples, UNLABELLED
from banditlearn_ros.learning.algorithms.open_set import Calibration, OpenSet
from banditlearn_ros.learning.storage.persistence import load_model, save_model
import numpy as np
import pytest
from test_open_set import _taught_interaction
from test_open_set_audit import _early_slip_then_show_again, _prediction

FAR = np.array([6.0, -6.0])


def _two_labels(denials=2):
    """Return an open set that confirmed 20 gestures each of labels 0 and 1 (named: trusted)."""
    open_set = OpenSet(True, warmup=0, min_yes=3, trust='yes', denials=denials)
    rng = np.random.default_rng(4)
    for t in range(40):
        index = t % 2
        x = np.array([10.0 * index, 0.0]) + rng.normal(0, 1.0, 2)
        open_set.taught(open_set.decide(x, _prediction(index)), index, x, named=True)
    return open_set


def test_a_slip_taken_in_for_good_goes_once_its_neighbours_are_denied_its_label():
    # The rule that takes a slip in for good (trust: support, audit test): with denials the
    # stray gesture's own label is denied at its next two showings, and it is taken back out
    # of the confirmed examples; the showings after that are rejected.
    outcomes, open_set, slipped = _early_slip_then_show_again('support', denials=2)
    cal = open_set.calibration
    assert slipped is not None
    assert open_set.counts['denied_out'] >= 1
    assert open_set.stats()['unknown_denied_out'] == open_set.counts['denied_out']
    assert cal.examples.score(np.array([-3.0, 4.0, -2.0, 1.0])) < -3.0
    assert outcomes[-2:] == ['unknown', 'unknown'], outcomes
    before, open_set, _ = _early_slip_then_show_again('support', denials=0)  # the rule before
    assert open_set.counts['denied_out'] == 0 and 'unknown' not in before, before


def test_denials_count_only_against_the_nearest_example_of_the_label_denied():
    open_set = _two_labels()
    examples = open_set.calibration.examples
    x = examples.rows[5] + 0.01  # nearest row 5, a gesture of label 1
    assert examples.labels[5] == 1
    assert not open_set.denied(0, x)  # another label denied: nothing counted
    assert examples.per_row['example_denials'].sum() == 0
    assert not open_set.denied(1, x)
    assert examples.per_row['example_denials'][5] == 1


def test_a_supported_example_stays_and_an_unsupported_one_goes_at_the_second_denial():
    open_set = _two_labels()
    cal = open_set.calibration
    far = FAR + np.array([0.0, 0.1])
    open_set.taught(open_set.decide(FAR, _prediction(0)), 0, FAR)  # a slip: label 0
    slot = cal.examples.nearest(FAR)
    assert cal.examples.labels[slot] == 0 and np.array_equal(cal.examples.rows[slot], FAR)
    count = cal.gaussians.yes_count(0)
    assert not open_set.denied(0, far)
    assert open_set.denied(0, far)  # two "no", no "yes": out
    assert not (cal.examples.arrays()['examples'] == FAR).all(axis=1).any()
    assert cal.gaussians.yes_count(0) == count - 1
    assert open_set.counts['denied_out'] == 1
    # Two confirmed as label 0 nearest it first: two "no" answers are not more than 2 "yes".
    open_set = _two_labels()
    cal = open_set.calibration
    for x in (FAR, FAR + np.array([0.0, 0.1]), FAR - np.array([0.0, 0.1])):
        open_set.taught(open_set.decide(x, _prediction(0)), 0, x, named=True)
    slot = cal.examples.nearest(FAR)
    assert cal.examples.per_row['example_support'][slot] == 2
    assert not open_set.denied(0, FAR - 0.02) and not open_set.denied(0, FAR - 0.02)
    assert open_set.counts['denied_out'] == 0
    assert open_set.denied(0, FAR - 0.02)  # the third


def test_a_labels_last_gesture_leaves_the_examples_but_not_its_gaussian():
    open_set = OpenSet(True, warmup=0, min_yes=1, trust='yes', denials=1)
    open_set.taught(open_set.decide(FAR, _prediction(1)), 1, FAR)
    assert open_set.denied(1, FAR + 0.1)
    cal = open_set.calibration
    assert cal.examples.size == 0 and cal.gaussians.yes_count(1) == 1


def test_denials_zero_is_the_rule_before():
    open_set = _two_labels(denials=0)
    examples = open_set.calibration.examples
    for _ in range(5):
        assert not open_set.denied(1, examples.rows[5])
    assert examples.per_row['example_denials'].sum() == 0 and examples.size == 40


@pytest.mark.parametrize('bad', [-1, 1.5, True, 'two'])
def test_denials_is_checked(bad):
    with pytest.raises(HyperparameterError, match='unknown_denials'):
        OpenSet(True, denials=bad)


def test_labels_and_answer_counts_are_kept_in_the_model_file_and_older_files_load():
    open_set = _two_labels()
    examples = open_set.calibration.examples
    open_set.denied(1, examples.rows[5] + 0.01)
    info, arrays = open_set.calibration.state()
    loaded = Calibration.from_state(info, arrays, 2).examples
    for name, column in examples.arrays().items():
        np.testing.assert_array_equal(loaded.arrays()[name], column)
    assert loaded.per_row['example_denials'][5] == 1
    for name in ('example_labels', 'example_denials', 'example_support'):
        del arrays[name]  # as saved before they were kept
    older = Calibration.from_state(info, arrays, 2).examples
    assert (older.labels[:older.size] == UNLABELLED).all() and older.size == 40
    for bad in (np.full(40, -2), np.zeros(39, dtype=np.int64), np.zeros(40)):
        with pytest.raises(ValueError, match='example_labels'):
            Calibration.from_state(info, {**arrays, 'example_labels': bad}, 2)


def test_an_unlabelled_example_is_never_denied():
    open_set = OpenSet(True, warmup=0, min_yes=1, trust='yes', denials=1)
    open_set.taught(open_set.decide(FAR, _prediction(0)), 0, FAR)
    cal = open_set.calibration
    info, arrays = cal.state()
    del arrays['example_labels']
    open_set.calibration = Calibration.from_state(info, arrays, 2)
    assert not open_set.denied(0, FAR) and open_set.calibration.examples.size == 1


def test_the_ring_keeps_each_rows_label_when_it_wraps_and_when_one_goes():
    ring = NearestExamples(1, limit=3)
    for k in range(5):
        ring.add(np.array([float(k)]), label=k)
    assert ring.arrays()['example_labels'].tolist() == [2, 3, 4]
    ring.remove_slot(ring.nearest(np.array([3.1])))
    assert ring.arrays()['example_labels'].tolist() == [2, 4]
    assert ring.arrays()['examples'].ravel().tolist() == [2.0, 4.0]
    ring.add(np.array([7.0]))
    assert ring.arrays()['example_labels'].tolist() == [2, 4, UNLABELLED]


def test_a_model_file_keeps_what_the_denials_counted(tmp_path):
    inter = _taught_interaction(OpenSet(True, warmup=10, min_yes=3, trust='yes'),
                                shown=[])
    examples = inter.learner.calibration.examples
    examples.per_row['example_denials'][0] = 1
    save_model(inter.learner, tmp_path / 'model.npz')
    loaded = load_model(tmp_path / 'model.npz').calibration.examples
    for name, column in examples.arrays().items():
        np.testing.assert_array_equal(loaded.arrays()[name], column)
