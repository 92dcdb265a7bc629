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

"""The feedback-matching rule, the statistics and the simulated teacher, without ROS."""

from array import array

from banditlearn_ros.learning import make_learner, Prediction, TeacherModel
from banditlearn_ros.learning.algorithms.centring import Centring
from banditlearn_ros.learning.live.live_progress import progress_of
from banditlearn_ros.learning.protocol.interaction import Interaction
from banditlearn_ros.learning.protocol.interaction_records import check_features
from banditlearn_ros.learning.protocol.simulated_teacher import SimulatedTeacher, stream_order
from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np
import pytest

LABELS = ['fist', 'palm', 'point']


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def make(clock=None, **kwargs):
    kwargs.setdefault('feedback_timeout', 5.0)
    return Interaction(lambda d: make_learner('ucwl', list(LABELS), d, seed=3),
                       clock=clock or Clock(), **kwargs)


def state(interaction):
    s = interaction.learner.state_dict()
    return {k: v.copy() for k, v in s['arrays'].items()}


def same(a, b):
    return all(np.array_equal(a[k], b[k]) for k in a)


def test_check_features_reasons():
    assert check_features([], 0) == (None, 'empty')
    assert check_features([1.0, 2.0], 3) == (None, 'bad_size')
    assert check_features([1.0, float('nan')], 2) == (None, 'not_finite')
    assert check_features([1.0, float('inf')], 0) == (None, 'not_finite')
    x, reason = check_features(np.array([1, 2, 3], dtype=np.float32), 3)
    assert reason == '' and x.dtype == np.float64 and x.tolist() == [1.0, 2.0, 3.0]


def test_feedback_before_any_prediction_is_dropped():
    inter = make()
    result = inter.feedback(True)
    assert result.outcome == 'no_prediction' and not result.updated
    assert inter.learner is None
    assert inter.counts['feedback_dropped_no_prediction'] == 1


def test_matched_feedback_updates_like_the_core_would():
    inter = make()
    twin = make_learner('ucwl', list(LABELS), 4, seed=3)
    x = [0.5, 1.0, 0.0, 0.25]
    item, reason = inter.predict(x)
    assert reason == '' and item.id == 0
    p = twin.select(x)
    assert p.index == item.prediction.index
    result = inter.feedback(False)
    assert result.outcome == 'matched' and result.round_id == 0 and result.updated
    twin.learn(x, p.index, False, prediction=p)
    assert same(state(inter), twin.state_dict()['arrays'])
    assert inter.unanswered == 0


def test_duplicate_feedback_is_dropped_not_applied_elsewhere():
    inter = make()
    inter.predict([1.0, 0.0, 0.0])
    inter.feedback(False)
    before = state(inter)
    assert inter.feedback(True).outcome == 'duplicate'
    assert inter.feedback(False).outcome == 'duplicate'
    assert same(before, state(inter))
    assert inter.counts['feedback_dropped_duplicate'] == 2
    assert inter.counts['feedback_matched'] == 1
    progress = progress_of(inter.stats(), n_labels=3)
    assert progress.feedback_dropped == 2
    assert progress.dropped_by == {'duplicate': 2}  # the reasons that happened, only


def test_late_feedback_is_dropped():
    clock = Clock()
    inter = make(clock)
    inter.predict([1.0, 0.0, 0.0])
    before = state(inter)
    clock.now += 5.01
    assert inter.feedback(True).outcome == 'late'
    assert same(before, state(inter))
    assert inter.counts['feedback_dropped_late'] == 1
    assert inter.counts['unanswered_expired'] == 1 and inter.unanswered == 0


def test_feedback_goes_to_the_latest_prediction_only():
    clock = Clock()
    inter = make(clock)
    twin = make_learner('ucwl', list(LABELS), 3, seed=3)
    x_old, x_new = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]
    inter.predict(x_old)
    p_old = twin.select(x_old)
    clock.now += 1.0
    item, _ = inter.predict(x_new)
    p_new = twin.select(x_new)
    assert inter.counts['unanswered_superseded'] == 1 and inter.unanswered == 2
    assert inter.feedback(False).round_id == item.id
    twin.learn(x_new, p_new.index, False, prediction=p_new)
    assert same(state(inter), twin.state_dict()['arrays'])
    # A second answer is a duplicate: never applied to the older, still unanswered round.
    assert inter.feedback(False).outcome == 'duplicate'
    assert same(state(inter), twin.state_dict()['arrays'])
    assert p_old is not None


def test_unanswered_queue_is_bounded_and_expires():
    clock = Clock()
    inter = make(clock, max_unanswered=50, feedback_timeout=1000.0)
    rng = np.random.default_rng(0)
    for _ in range(10_000):
        inter.predict(rng.random(8))
    assert inter.unanswered == 50
    assert inter.counts['predictions'] == 10_000
    assert inter.counts['unanswered_overflow'] == 10_000 - 50
    clock.now += 1000.5
    inter.predict(rng.random(8))
    assert inter.unanswered == 1 and inter.counts['unanswered_expired'] == 50


def test_bad_vectors_are_counted_and_do_not_fix_the_size():
    inter = make()
    assert inter.predict([]) == (None, 'empty')
    assert inter.predict([float('nan')] * 4) == (None, 'not_finite')
    assert inter.learner is None
    inter.predict([1.0, 2.0, 3.0, 4.0])
    assert inter.n_features == 4
    assert inter.predict([1.0, 2.0]) == (None, 'bad_size')
    stats = inter.stats()
    assert (stats['features_empty'], stats['features_not_finite'],
            stats['features_bad_size'], stats['features_refused']) == (1, 1, 1, 3)
    assert stats['predictions'] == 1


def test_fixed_feature_size_refuses_other_sizes_from_the_start():
    inter = make(n_features=5)
    assert inter.predict([1.0, 2.0]) == (None, 'bad_size')
    assert inter.learner is None


def test_reset_forgets_pending_rounds():
    inter = make()
    inter.predict([1.0, 0.0])
    inter.feedback(False)
    inter.predict([0.0, 1.0])
    inter.reset()
    assert inter.learner.n_updates == 0 and inter.unanswered == 0
    assert inter.feedback(True).outcome == 'no_prediction'


class FakeLearner:
    """Says the label it is told to and records what it learns."""

    n_features = 1
    n_labels = 2
    n_updates = 0

    def __init__(self, explored):
        self.explored = list(explored)
        self.learned = []
        self.centring = Centring('none')  # what Interaction reads of every learner

    def centred(self, x, take=True):
        return x

    def select(self, x):
        return Prediction(index=0, label='a', scores=np.zeros(2), bounds=np.zeros(2),
                          explored=self.explored.pop(0), greedy=0)

    def select_valid(self, x):
        return self.select(x)

    def learn_valid(self, x, index, correct, prediction):
        return int(self.learn(x, index, correct, prediction))

    def learn(self, x, label, correct, prediction=None):
        self.learned.append(correct)
        return True

    def confirm(self, index):
        pass

    def on_probation(self, probation):
        return []


def test_windowed_and_cumulative_rates():
    explored = [True, False, False, True, False, False, False, False]
    answers = [False, False, True, True, True, True, False, True]
    fake = FakeLearner(explored)
    inter = Interaction(lambda d: fake, learner=fake, window=4, clock=Clock())
    for answer in answers:
        inter.predict([1.0])
        inter.feedback(answer)
    stats = inter.stats()
    assert fake.learned == answers
    assert stats['mistake_rate'] == pytest.approx(3 / 8)
    assert stats['mistake_rate_window'] == pytest.approx(1 / 4)
    assert stats['exploration_rate'] == pytest.approx(2 / 8)
    assert stats['exploration_rate_window'] == pytest.approx(0.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(['predict', 'yes', 'no', 'wait']),
                          st.floats(0.0, 3.0)), max_size=60))
def test_rule_invariants(events):
    clock = Clock()
    inter = make(clock, max_unanswered=5, feedback_timeout=2.0)
    answered = set()
    for kind, dt in events:
        if kind == 'wait':
            clock.now += dt
        elif kind == 'predict':
            inter.predict([1.0, dt, 0.5])
        else:
            latest = inter._latest
            result = inter.feedback(kind == 'yes')
            if result.outcome == 'matched':
                # Only the latest round, only once, only within the timeout.
                assert latest is not None and result.round_id == latest.id
                assert clock.now - latest.stamp <= 2.0
                assert result.round_id not in answered
                answered.add(result.round_id)
        assert inter.unanswered <= 5
    c = inter.stats()
    assert c['feedback_matched'] + c['feedback_dropped'] == c['feedback_received']
    assert c['feedback_matched'] == len(answered) <= c['predictions']


def test_simulated_teacher_matches_the_core_teacher_model():
    model = TeacherModel(rho0=0.2, rho1=0.1, no_answer=0.1)
    teacher = SimulatedTeacher(model, seed=7)
    rng = np.random.default_rng(7)
    data = np.random.default_rng(1)
    truths = [str(v) for v in data.integers(0, 3, 500)]
    outputs = [str(v) for v in data.integers(0, 3, 500)]
    got, expected = [], []
    for truth, output in zip(truths, outputs):
        teacher.observe(truth)
        got.append(teacher.answer(output).answer)
        expected.append(model.answer(output, truth, rng))
    assert got == expected
    stats = teacher.stats()
    assert stats['rounds'] == 500
    assert stats['true_mistake_rate'] == pytest.approx(
        np.mean([t != o for t, o in zip(truths, outputs)]))
    assert stats['silences'] == sum(a is None for a in expected) > 0
    assert 0 < stats['flipped'] < stats['answers']


def test_simulated_teacher_needs_a_fresh_label():
    teacher = SimulatedTeacher(TeacherModel(), seed=0)
    assert teacher.answer('a').answer is None
    teacher.observe('a')
    assert teacher.answer('a').answer is True
    assert teacher.answer('a').answer is None  # the label answered one prediction already
    teacher.observe('a')
    assert teacher.answer('b').answer is False
    assert teacher.counts['no_label'] == 2


def test_label_noise_draws_from_the_given_labels():
    teacher = SimulatedTeacher(TeacherModel(label_noise=1.0), seed=0, labels=['x', 'y'])
    seen = set()
    for _ in range(50):
        teacher.observe('a')
        seen.add(teacher.answer('x').answer)
    assert seen == {True, False}  # label 'a' replaced by x or y at random


def test_stream_order_is_a_seeded_permutation_per_pass():
    a = stream_order(10, passes=2, seed=4)
    assert np.array_equal(a, stream_order(10, passes=2, seed=4))
    assert sorted(a[:10]) == list(range(10)) and sorted(a[10:]) == list(range(10))
    assert not np.array_equal(a, stream_order(10, passes=2, seed=5))
    assert stream_order(10, shuffle=False, max_examples=3).tolist() == [0, 1, 2]
    with pytest.raises(ValueError):
        stream_order(0)


@pytest.mark.parametrize('compiled', [True, False])
def test_a_refused_vector_after_the_first_changes_nothing(compiled):
    # The learner refuses NaN and infinity itself (the compiled steps, or the numpy check),
    # before the open question is superseded: it stays answerable.
    inter = make()
    inter.predict([1.0, 0.0, 0.5])
    if not compiled:
        inter.learner.use_kernels(None)
    before = state(inter), inter.learner._rng.bit_generator.state, dict(inter.counts)
    for bad in ([1.0, float('nan'), 0.0], array('f', [float('inf'), 0.0, 1.0])):
        assert inter.predict(bad) == (None, 'not_finite')
    assert inter.counts == {**before[2], 'features_not_finite': 2}
    assert same(state(inter), before[0]) and inter.unanswered == 1
    assert inter.learner._rng.bit_generator.state == before[1]
    assert inter.feedback(True).outcome == 'matched'


def test_float32_messages_convert_to_the_same_features():
    values = np.random.default_rng(1).normal(size=50).astype(np.float32)
    x, reason = check_features(array('f', values.tolist()), 50)
    assert reason == '' and x.dtype == np.float64
    assert np.array_equal(x, values.astype(np.float64))
    assert check_features(array('f', [1.0, float('nan')]), 2) == (None, 'not_finite')


@pytest.mark.parametrize('max_questions', [1, 0])
def test_the_compiled_learner_and_the_numpy_one_interact_alike(max_questions):
    # The node's path (float32 messages, the private select/learn entries) decides as the
    # numpy code does: same questions, outcomes, counters and learned state, bit for bit.
    rng = np.random.default_rng(5)
    X = rng.random((400, 12)) * (rng.random((400, 12)) < 0.6)
    truth = (X @ rng.normal(size=(12, 3))).argmax(axis=1)
    runs = []
    for compiled in (True, False):
        inter = make(max_questions=max_questions)
        answers = np.random.default_rng(9)
        said = []
        for row, label in zip(X, truth):
            item, reason = inter.predict(array('f', row.tolist()))
            if not compiled:
                inter.learner.use_kernels(None)
            while item is not None:
                right = item.prediction.index == label
                answer = bool(right != (answers.random() < 0.1))
                said.append((item.id, item.question, item.prediction.index, answer))
                item = inter.feedback(answer).next_round
        runs.append((said, inter.stats(), state(inter), not inter.learner.compiled))
    (said, stats, arrays, _), (ref_said, ref_stats, ref_arrays, numpy_only) = runs
    assert numpy_only and said == ref_said and same(arrays, ref_arrays)
    assert {k: v for k, v in stats.items() if v == v} == {
        k: v for k, v in ref_stats.items() if v == v}
    assert stats['updates'] > 40


def replace_learner(inter, learner):
    """Give an interaction another learner between interactions (test-only)."""
    inter.learner = learner
    inter.open_set.adopt(learner)


def test_ended_records_name_the_labels_known_when_they_ended():
    inter = make(max_questions=0)
    inter.predict([1.0, 0.0])
    for _ in LABELS:
        result = inter.feedback(False)
    first = result.ended
    assert first.outcome == 'all_rejected' and first.labels == LABELS
    inter.name_unknown('wave')
    inter.predict([0.0, 1.0])
    second = inter.feedback(True).ended
    assert second.labels == LABELS + ['wave'] and first.labels == LABELS
    assert sorted(first.as_dict()['rejected']) == sorted(LABELS)
    replace_learner(inter, make_learner('ucwl', ['a', 'b'], 2, seed=3))
    inter.predict([0.0, 1.0])
    assert inter.feedback(True).ended.labels == ['a', 'b']
