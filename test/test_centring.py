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

"""Centring: the running mean, its modes, the model file, reset, labels, live and replay."""

import dataclasses

from banditlearn_ros.learning import load_model, make_learner, save_model
from banditlearn_ros.learning.algorithms.centring import Centring
from banditlearn_ros.learning.offline.replay import (
    Event, FEATURES, FEEDBACK, LABEL, LearnerConfig, replay)
from banditlearn_ros.learning.protocol.interaction import Interaction
import numpy as np
import pytest
from test_live_learner import live, Log

LABELS = ['a', 'b', 'c']


def stream(n=120, d=6, seed=3):
    """Return vectors with a large common offset and a label per vector (3 clusters)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(3, d))
    y = rng.integers(3, size=n)
    X = 5.0 + centres[y] + 0.3 * rng.normal(size=(n, d))
    return X, y


def test_running_mean_is_the_mean_so_far_and_the_sequence_matches_one_by_one():
    X, _ = stream(40)
    one = Centring('running')
    out = [one.apply(x) for x in X]
    expected = X - np.cumsum(X, axis=0) / np.arange(1, 41)[:, None]
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12)
    assert not np.any(out[0])  # the first vector is its own mean
    np.testing.assert_array_equal(Centring('running').centre_sequence(X), np.array(out))
    assert one.count == 40


def test_the_learner_centres_taking_a_vector_in_or_only_looking():
    # The one place a vector is centred: the learner's ``centred``, with its own Centring.
    X, _ = stream(20)
    learner = make_learner('ucwl', LABELS, X.shape[1])
    learner.centring = Centring('running')
    reference = Centring('running')
    for x in X[:10]:
        np.testing.assert_array_equal(learner.centred(x), reference.apply(x))
    mean, count = learner.centring.mean.copy(), learner.centring.count
    looked = learner.centred(X[10], take=False)
    np.testing.assert_array_equal(looked, X[10] - mean)
    assert learner.centring.count == count == 10  # looking moved nothing
    np.testing.assert_array_equal(learner.centring.mean, mean)
    plain, x = make_learner('ucwl', LABELS, X.shape[1]), X[0]  # centring none: x itself
    assert plain.centred(x) is x and plain.centred(x, take=False) is x


def test_fixed_freezes_after_its_warmup_and_none_passes_vectors_unchanged():
    X, _ = stream(30)
    fixed = Centring('fixed', warmup=10)
    for x in X:
        fixed.apply(x)
    np.testing.assert_allclose(fixed.mean, X[:10].mean(axis=0), rtol=0, atol=1e-12)
    assert fixed.count == 10
    none = Centring('none')
    x = X[0]
    assert none.apply(x) is x and none.mean is None and not none.active
    with pytest.raises(ValueError, match='not one of'):
        Centring('median')


def _decisions(interaction, X, y):
    """Run a stream through ``interaction`` answering truthfully; return the labels said."""
    said = []
    for x, label in zip(X, y):
        item, _ = interaction.predict(x, now=0.0)
        said.append(item.prediction.index)
        interaction.feedback(item.prediction.index == label, now=0.0)
    return said


def _reference(X, y, centre):
    """Run the papers' loop (select, learn the bit) on the centred x, without Interaction."""
    learner = make_learner('ucwl', LABELS, X.shape[1], seed=0)
    mean, said = np.zeros(X.shape[1]), []
    for t, (x, label) in enumerate(zip(X, y)):
        if centre:
            mean += (x - mean) / (t + 1)
            x = x - mean
        p = learner.select(x)
        said.append(p.index)
        learner.learn(x, p.index, p.index == label, p)
    return said


@pytest.mark.parametrize('mode', ['none', 'running'])
def test_interaction_decides_as_the_papers_loop_on_the_centred_vectors(mode):
    X, y = stream()

    def fresh(d):
        learner = make_learner('ucwl', LABELS, d, seed=0)
        learner.centring = Centring(mode)
        return learner

    said = _decisions(Interaction(fresh, clock=lambda: 0.0), X, y)
    assert said == _reference(X, y, centre=mode == 'running')


def test_centring_learns_where_raw_vectors_do_not():
    X, y = stream(300)
    wrong = {}
    for mode in ('none', 'running'):
        def fresh(d, mode=mode):
            learner = make_learner('ucwl', LABELS, d, seed=0)
            learner.centring = Centring(mode)
            return learner
        said = _decisions(Interaction(fresh, clock=lambda: 0.0), X, y)
        wrong[mode] = np.mean(np.array(said) != y)
    # Measured 10.0 % raw against 1.3 % centred over the pass (seed 3).
    assert wrong['running'] < 0.5 * wrong['none'], wrong


def test_a_vector_with_nan_is_refused_and_never_enters_the_mean():
    state, _ = live(labels=LABELS)
    inter = state.interaction
    inter.predict([1.0, 2.0], now=0.0)
    mean = inter.learner.centring.mean.copy()
    item, reason = inter.predict([np.nan, 2.0], now=0.0)
    assert item is None and reason == 'not_finite'
    np.testing.assert_array_equal(inter.learner.centring.mean, mean)
    assert inter.learner.centring.count == 1


def test_model_file_keeps_the_mean_reset_clears_it_and_labels_keep_it(tmp_path):
    path = str(tmp_path / 'model.npz')
    X, y = stream(50)
    state, _ = live(path, labels=LABELS)
    said = _decisions(state.interaction, X[:30], y[:30])
    held = state.interaction.learner.centring
    state.save()
    again, _ = live(path, labels=LABELS)
    loaded = again.interaction.learner.centring
    assert loaded.mode == 'running' and loaded.count == 30
    np.testing.assert_array_equal(loaded.mean, held.mean)
    # Going on from the file decides as going on in memory.
    assert _decisions(again.interaction, X[30:], y[30:]) == \
        _decisions(state.interaction, X[30:], y[30:])
    assert said  # the first part ran
    again.apply_change({'labels': LABELS + ['d']})
    assert again.interaction.learner.centring.count == 50
    again.reset()
    assert again.interaction.learner is None  # size from the first message: forgotten
    again.interaction.predict(X[0], now=0.0)
    assert again.interaction.learner.centring.count == 1


def test_a_file_saved_without_centring_loads_as_none_and_warns(tmp_path):
    path = str(tmp_path / 'old.npz')
    old = make_learner('ucwl', LABELS, 2, seed=0)
    old.learn([1.0, 2.0], 'a', True)
    save_model(old, path)
    assert 'centring' not in old.state_dict()['extra']
    assert load_model(path).centring.mode == 'none'
    log = Log()
    state, _ = live(path, log, labels=LABELS)
    assert state.interaction.learner.centring.mode == 'none'
    assert any(level == 'warning' and 'centring' in text for level, text in log.lines)
    state.reset()
    state.interaction.predict([1.0, 2.0], now=0.0)
    assert state.interaction.learner.centring.mode == 'running'


@pytest.mark.parametrize('mode', ['running', 'mean'])
def test_a_fleet_frame_stops_the_mean_after_its_count_and_only_when_set(mode):
    X, _ = stream(30)
    moving, fleet = Centring(mode, warmup=10), Centring(mode, warmup=10)
    fleet.fixed_after = 10
    for x in X:
        moving.apply(x)
        fleet.apply(x)
    np.testing.assert_allclose(fleet.mean, X[:10].mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(moving.mean, X.mean(axis=0), rtol=0, atol=1e-12)
    assert (fleet.count, moving.count) == (10, 30)
    assert 'fixed_after' not in moving.state()  # a state without a fleet reads as before
    back = Centring.from_state(fleet.state(), X.shape[1])
    assert back.fixed_after == 10
    np.testing.assert_array_equal(back.apply(X[0]), X[0] - fleet.mean)
    for bad in (0, True, 2.5, 'ten'):
        with pytest.raises(ValueError, match='fixed_after'):
            Centring.from_state(dict(fleet.state(), fixed_after=bad), X.shape[1])


def test_a_bad_centring_mode_or_state_is_refused_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match='centring'):
        live(labels=LABELS, centring='standardise')
    learner = make_learner('ucwl', LABELS, 2)
    learner.centring = Centring('running')
    learner.centring.apply(np.array([1.0, 2.0]))
    state = learner.state_dict()
    state['extra']['centring']['mean'] = [1.0]
    with pytest.raises(ValueError, match='2 finite numbers'):
        type(learner).from_state_dict(state)


@pytest.mark.parametrize('mode', ['none', 'running'])
def test_replay_asks_what_the_live_learner_asks(mode):
    X, y = stream(80)
    state, _ = live(labels=LABELS, centring=mode, max_questions=1)
    live_said = _decisions(state.interaction, X, y)
    events = []
    for t, (x, label) in enumerate(zip(X, y)):
        events.append(Event(float(t), LABEL, LABELS[label]))
        events.append(Event(float(t), FEATURES, list(x)))
        events.append(Event(t + 0.5, FEEDBACK, bool(live_said[t] == label)))
    result = replay(events, LearnerConfig.from_parameters(
        {'labels': LABELS, 'centring': mode, 'max_questions': 1}))
    assert result.questions == [LABELS[i] for i in live_said]


def test_the_evaluation_centres_each_stream_as_the_live_learner_would():
    from banditlearn_ros.learning.offline.datasets import load_dataset
    from banditlearn_ros.learning.offline.evaluation import (
        core_algorithm, evaluate, run_learner, TeacherModel)
    from banditlearn_ros.learning.offline.evaluation_streams import centred_streams, make_streams
    X, y, labels = load_dataset('wine')
    teacher = TeacherModel(label_noise=0.1)
    streams = make_streams(y, 3, teacher, 2, seed=1)
    Xc, centred = centred_streams(X, streams, 'running')
    params = {'eta': 0.8, 'C': 1.0, 'k': 1.0}
    record = evaluate(core_algorithm('ucwl', teacher, fixed=params), X, y, 3, teacher, 'wine',
                      n_permutations=2, seed=1, do_tune=False)
    assert record.params['centring'] == 'running'
    for stream, mine, run in zip(streams, centred, record.runs):
        rows = Centring('running').centre_sequence(X[stream.order])
        np.testing.assert_array_equal(Xc[mine.order], rows)
        ref = run_learner('ucwl', params, rows, dataclasses.replace(
            mine, order=np.arange(len(rows))), teacher, 3)
        assert (ref.mistakes_observed, ref.updates) == (run.mistakes_observed, run.updates)
    paper = evaluate(core_algorithm('ucwl-paper', teacher, fixed=params), X, y, 3, teacher,
                     'wine', n_permutations=2, seed=1, do_tune=False)
    raw = [run_learner('ucwl', dict(params, no_weight='equal'), X, s, teacher, 3)
           for s in streams]  # the papers' UCWL: no centring, a "no" capped at C
    assert [r.mistakes_observed for r in paper.runs] == [r.mistakes_observed for r in raw]
    assert 'centring' not in paper.params


def test_learning_check_warns_at_chance_and_not_before_enough_rounds():
    from banditlearn_ros.learning.live.live_progress import learning_check
    assert learning_check(2, 10, 3) == ''  # too few first guesses to judge
    warning = learning_check(33, 100, 3)  # 33 % with 3 labels: chance
    assert 'not learning' in warning and '33 of the last 100' in warning
    assert 'chance for 3 labels is 33 %' in warning
    # P(X >= 42 | 100, 1/3) = 0.043 and P(X >= 41) = 0.066: the edge of 5 %.
    assert learning_check(42, 100, 3) == ''
    assert 'p = 0.07' in learning_check(41, 100, 3)
    assert learning_check(20, 20, 1) == ''


def test_the_live_learner_warns_when_a_session_learns_nothing():
    X, y = stream(60)
    state, _ = live(labels=LABELS)
    rng = np.random.default_rng(0)
    for x in X:  # answers that say nothing about the vectors
        state.interaction.predict(x)
        assert state.feedback(bool(rng.random() < 1 / 3))[0].outcome == 'matched'
    assert 'not learning' in state.learning_problem()
    good, _ = live(labels=LABELS)
    _decisions(good.interaction, X, y)
    assert good.learning_problem() == ''


def _teach_sim_iris(centring=None, tuned=False):
    """
    Return true first-guess mistakes in rounds 1-50, 51-100, 101-150 of teach_sim on iris.

    The launch file's and the bring-up's system without DDS: params.yaml with the teach_sim
    overlay and the data set's labels, dataset_node's order (seed 0) as float32, a teacher
    without noise answering every question; with ``tuned``, the settings tuned for iris
    (config/datasets/iris.params.yaml) loaded last, as both load them by default.
    """
    from pathlib import Path

    from banditlearn_ros.learning.offline.datasets import load_dataset
    from banditlearn_ros.learning.protocol.teacher_model import TeacherModel
    from banditlearn_ros.learning.protocol.simulated_teacher import SimulatedTeacher, stream_order
    from banditlearn_ros.bags.recorded_session import learner_section
    config_dir = Path(__file__).resolve().parent.parent / 'config'
    X, y, names = load_dataset('iris')
    params = learner_section(config_dir / 'params.yaml')
    params.update(learner_section(config_dir / 'teach_sim.params.yaml'))
    if tuned:
        params.update(learner_section(config_dir / 'datasets' / 'iris.params.yaml'))
    params.update(labels=list(names))
    if centring is not None:
        params.update(centring=centring)
    events = []
    for t, i in enumerate(stream_order(len(X), seed=0, max_examples=150)):
        events.append(Event(float(t), LABEL, names[y[i]]))
        events.append(Event(float(t), FEATURES, X[i].astype(np.float32).astype(np.float64)))
    result = replay(events, LearnerConfig.from_parameters(params),
                    teacher=SimulatedTeacher(TeacherModel(), seed=0, labels=names), every=50)
    totals = [0] + [point['true_mistakes'] for point in result.curve]
    return np.diff(totals).tolist()


def test_teach_sim_on_iris_with_its_tuned_settings_is_right_in_three_of_four():
    # The target: true mistakes over rounds 101-150 at most 25 %.  Measured: 9 of
    # 50 with the settings banditlearn_evaluate tuned for iris, 13 with params.yaml's.
    tuned, untuned = _teach_sim_iris(tuned=True), _teach_sim_iris()
    assert tuned[2] <= 50 // 4, (tuned, untuned)
    assert tuned != untuned, 'the tuned file changed nothing'


def test_teach_sim_on_iris_learns_with_centring_and_not_without():
    # Measured: the papers' UCWL 35 of the last 50 wrong (chance 33 of 50), centred 13.
    raw, centred = _teach_sim_iris('none'), _teach_sim_iris('running')
    assert raw[2] > 50 / 3, raw  # no better than chance without centring
    assert centred[2] < raw[2] / 2, (centred, raw)
    assert centred[2] < centred[0], centred


def test_a_stray_vector_moves_the_running_mean_no_further_than_one_at_the_limit():
    from banditlearn_ros.learning.algorithms.centring import OUTLIER_LIMIT
    X, _ = stream(60)
    for value in (1e6, 3e38):
        robust, plain = Centring('running'), Centring('mean')
        for x in X[:50]:
            np.testing.assert_array_equal(robust.apply(x), plain.apply(x))  # bit for bit
        assert robust.outliers == 0 and not robust.last_outlier
        before, spread = robust.mean.copy(), robust.spread
        robust.apply(np.full(6, value))
        plain.apply(np.full(6, value))
        assert robust.last_outlier and robust.outliers == 1
        moved = np.linalg.norm(robust.mean - before)
        assert moved <= OUTLIER_LIMIT * spread / 51 * (1 + 1e-12), (moved, spread)
        assert np.linalg.norm(plain.mean - before) > 1e3  # the plain mean takes it whole
        for x in X[50:]:
            robust.apply(x)
        assert robust.outliers == 1 and not robust.last_outlier


def test_a_real_change_of_the_features_still_moves_the_running_mean():
    X, _ = stream(300)
    robust = Centring('running')
    for x in X[:100]:
        robust.apply(x)
    for x in X[100:] + 20.0:  # every feature 20 higher from now on (a new camera)
        robust.apply(x)
    # Bounded steps at first (counted), then the spread has grown and the mean follows.
    assert robust.outliers > 0
    assert abs(robust.mean.mean() - (X.mean() + 20.0 * 200 / 300)) < 1.0, robust.mean


def _show(inter, x, label):
    """Show ``x`` and answer every question truthfully; return whether question 1 was right."""
    item, _ = inter.predict(x, now=0.0)
    right = item.prediction.index == label
    result = inter.feedback(right, now=0.0)
    while result.next_round is not None:
        result = inter.feedback(result.next_round.prediction.index == label, now=0.0)
    return right


def _after_stray(tmp_path, mode, value, answer, restart):
    """Return first guesses right over 20 gestures after 100 taught and one stray vector."""
    X, y = stream(160)
    path = str(tmp_path / f'{mode}-{value}-{answer}-{restart}.npz')
    state, _ = live(path if restart else '', labels=LABELS, centring=mode)
    for x, label in zip(X[:100], y[:100]):
        _show(state.interaction, x, label)
    if value is not None:
        item, _ = state.interaction.predict(np.full(6, value), now=0.0)
        result = item and answer is not None and state.interaction.feedback(answer, now=0.0)
        while result and result.next_round is not None:
            result = state.interaction.feedback(answer, now=0.0)
        assert state.status()['centring_outliers'] == int(mode == 'running')
    if restart:
        state.save()
        state, _ = live(path, labels=LABELS, centring=mode)
    return sum(_show(state.interaction, x, label) for x, label in zip(X[100:120], y[100:120]))


@pytest.mark.parametrize('value', [1e6, 3e38])
@pytest.mark.parametrize('answer', [None, False, True])
@pytest.mark.parametrize('restart', [False, True])
def test_one_stray_vector_leaves_the_next_first_guesses_as_without_it(tmp_path, value, answer,
                                                                      restart):
    clean = _after_stray(tmp_path, 'running', None, None, restart)
    assert clean == 20  # measured: 20 of 20 (the stream is easy once centred)
    # Within 5 points of 20 (one guess), unanswered, answered "no" or "yes", restarted or not.
    assert abs(_after_stray(tmp_path, 'running', value, answer, restart) - clean) <= 1


def test_the_plain_mean_is_ruined_by_one_stray_vector(tmp_path):
    # The plain running mean (what 'running' was): measured 7-8 of 20 after the stray.
    assert _after_stray(tmp_path, 'mean', None, None, False) == 20
    assert _after_stray(tmp_path, 'mean', 1e6, None, True) < 15


def test_the_spread_and_outliers_are_saved_and_older_files_load(tmp_path):
    robust = Centring('running')
    X, _ = stream(30)
    for x in X:
        robust.apply(x)
    robust.apply(np.full(6, 1e6))
    state = robust.state()
    again = Centring.from_state(state, 6)
    assert (again.spread, again.spread_count, again.outliers) == \
        (robust.spread, robust.spread_count, 1)
    np.testing.assert_array_equal(again.mean, robust.mean)
    old = {k: state[k] for k in ('mode', 'warmup', 'count', 'mean')}  # saved before the bound
    loaded = Centring.from_state(old, 6)
    assert (loaded.spread, loaded.spread_count, loaded.outliers) == (0.0, 0, 0)
    for bad in ({'spread': -1.0}, {'spread': float('inf')}, {'outliers': -2},
                {'spread_count': 1.5}):
        with pytest.raises(ValueError, match='centring'):
            Centring.from_state({**state, **bad}, 6)


def test_the_live_learner_warns_of_stray_vectors_first_and_then_ever_more_rarely():
    X, _ = stream(40)
    log = Log()
    state, _ = live(log=log, labels=LABELS)
    for x in X:
        state.interaction.predict(x, now=0.0)
    for _ in range(5):
        state.predict(list(np.full(6, 1e6)))
    warned = [text for level, text in log.lines if 'centring_outliers' in text]
    assert len(warned) == 3 and '(1 so far' in warned[0] and '(4 so far' in warned[2]
    assert state.status()['centring_outliers'] == 5
