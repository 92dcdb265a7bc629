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

"""The evaluation protocol: shared streams, feedback model, tuning, records."""

from banditlearn_ros.learning import TeacherModel
from banditlearn_ros.learning.algorithms.base import HyperparameterError
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.offline.evaluation import core_algorithm, evaluate, run_learner
from banditlearn_ros.learning.offline.evaluation_streams import (
    answer, answers, make_stream, make_streams, RunResult, TUNING_STREAM, tuning_streams)
from banditlearn_ros.learning.offline.evaluation_tuning import (Algorithm, edge_notes,
                                                                grid_settings, tune)
from banditlearn_ros.learning.offline.synsep import make_synsep, separating_weights
import numpy as np
import pytest


@pytest.fixture(scope='module')
def iris():
    return load_dataset('iris')


def test_permutations_are_shared_across_noise_levels_and_reproducible(iris):
    X, y, labels = iris
    clean = make_streams(y, 3, TeacherModel(), 3, seed=4)
    noisy = make_streams(y, 3, TeacherModel(label_noise=0.3, rho0=0.2), 3, seed=4)
    again = make_streams(y, 3, TeacherModel(), 3, seed=4)
    for a, b, c in zip(clean, noisy, again):
        np.testing.assert_array_equal(a.order, b.order)
        np.testing.assert_array_equal(a.order, c.order)
        np.testing.assert_array_equal(a.y_obs, c.y_obs)
        assert a.seed == b.seed == c.seed
        assert sorted(a.order.tolist()) == list(range(len(y)))
    assert not np.array_equal(clean[0].order, clean[1].order)
    tuning = make_stream(y, 3, TeacherModel(), TUNING_STREAM, seed=4)
    assert all(not np.array_equal(tuning.order, s.order) for s in clean)


def test_label_noise_replaces_labels_at_the_requested_rate():
    y = np.zeros(40000, dtype=int)
    stream = make_stream(y, 10, TeacherModel(label_noise=0.2), 0, seed=1)
    changed = np.mean(stream.y_obs != stream.y_true)
    # A uniform replacement keeps the label with probability 1/10: 0.2 * 0.9 = 0.18.
    assert abs(changed - 0.18) < 0.01
    np.testing.assert_array_equal(stream.y_true, 0)


def test_answers_follow_flip_rates_and_silence():
    y = np.zeros(40000, dtype=int)
    teacher = TeacherModel(rho0=0.2, rho1=0.4, no_answer=0.1)
    stream = make_stream(y, 2, teacher, 0, seed=2)
    right_out = [answer(teacher, stream, t, 0) for t in range(len(y))]
    wrong_out = [answer(teacher, stream, t, 1) for t in range(len(y))]
    silent = np.mean([a is None for a in right_out])
    assert abs(silent - 0.1) < 0.01
    said_wrong_when_right = np.mean([a is False for a in right_out if a is not None])
    said_right_when_wrong = np.mean([a is True for a in wrong_out if a is not None])
    assert abs(said_wrong_when_right - 0.4) < 0.015
    assert abs(said_right_when_wrong - 0.2) < 0.015
    for t in range(50):
        silent_t, said = answers(teacher, stream, t, np.array([0, 1]))
        expected = [answer(teacher, stream, t, 0), answer(teacher, stream, t, 1)]
        if silent_t:
            assert expected == [None, None]
        else:
            assert said.tolist() == expected


def test_run_counts_mistakes_against_observed_and_true_labels(iris):
    X, y, labels = iris
    teacher = TeacherModel(label_noise=0.3)
    stream = make_stream(y, 3, teacher, 0, seed=3)
    res = run_learner('ucwl', {}, X, stream, teacher, 3, curves=True)
    assert res.rounds == len(y)
    assert res.curve_observed[-1] == res.mistakes_observed
    assert res.curve_true[-1] == res.mistakes_true
    assert res.mistakes_observed != res.mistakes_true  # 30 % noise moves the count
    assert 0 < res.updates <= len(y)
    again = run_learner('ucwl', {}, X, stream, teacher, 3)
    assert (again.mistakes_observed, again.updates) == (res.mistakes_observed, res.updates)


def test_full_feedback_learner_is_told_the_observed_label():
    X = np.eye(2)[np.array([0, 1] * 200)]
    y = np.array([0, 1] * 200)
    teacher = TeacherModel(label_noise=1.0)  # the observed label is pure noise
    stream = make_stream(y, 2, teacher, 0, seed=0)
    res = run_learner('perceptron', {}, X, stream, teacher, 2)
    # Learning from random labels leaves it near chance against the true label.
    assert 0.3 < res.rate_true < 0.7
    clean = make_stream(y, 2, TeacherModel(), 0, seed=0)
    assert run_learner('perceptron', {}, X, clean, TeacherModel(), 2).rate_true < 0.05


def test_silent_person_means_no_updates(iris):
    X, y, labels = iris
    teacher = TeacherModel(no_answer=1.0)
    stream = make_stream(y, 3, teacher, 0, seed=0)
    for name in ('ucwl', 'banditron', 'mscw'):
        assert run_learner(name, {}, X, stream, teacher, 3).updates == 0


def _fake(grid, optimum):
    """Return an algorithm whose mistake rate is the distance of its parameter to optimum."""
    def run(params, X, stream, teacher, n_labels, curves=False):
        wrong = int(round(100 * abs(params['a'] - optimum)))
        return RunResult(wrong, wrong, 0, 0.0, 100)
    return Algorithm('fake', run, grid={'a': grid})


def test_tuning_takes_the_best_setting_and_flags_grid_edges(iris):
    X, y, labels = iris
    inner = tune(_fake([0.1, 0.2, 0.3, 0.4], 0.21), X, y, 3, TeacherModel())
    assert inner.params == {'a': 0.2} and inner.edges == [] and inner.tried == 4
    top = tune(_fake([0.1, 0.2, 0.3, 0.4], 0.9), X, y, 3, TeacherModel())
    assert top.params == {'a': 0.4}
    assert top.edges == ['a=0.4 is at the top of its grid [0.1, 0.4]']
    low = edge_notes({'a': [1, 2, 3]}, {'a': 1}, {})
    assert low == ['a=1 is at the bottom of its grid [1, 3]']
    assert edge_notes({'a': [1, 2, 3]}, {'a': 1}, {'a': 1}) == []


def test_grid_settings_keep_fixed_values():
    settings = grid_settings({'C': [1, 2], 'eta': [0.6, 0.7]}, {'eta': 0.9, 'k': 1.0})
    assert settings == [{'eta': 0.9, 'k': 1.0, 'C': 1}, {'eta': 0.9, 'k': 1.0, 'C': 2}]


def test_ucwl_tuning_with_the_grid_equals_tuning_one_by_one(iris):
    X, y, labels = iris
    teacher = TeacherModel(label_noise=0.1)
    grid = {'C': [0.25, 4.0], 'eta': [0.6, 0.95], 'k': [0.4, 2.8]}
    fast = core_algorithm('ucwl', teacher, grid=grid)
    slow = core_algorithm('ucwl', teacher, grid=grid)
    slow.run_grid = None
    a, b = tune(fast, X, y, 3, teacher, seed=1), tune(slow, X, y, 3, teacher, seed=1)
    assert a.params == b.params and a.rate == b.rate


def _old_tune(algorithm, X, y, n_labels, teacher, seed):
    """Tune as before --tuning-permutations: argmin on the one tuning stream, one by one."""
    stream = make_stream(y, n_labels, teacher, TUNING_STREAM, seed)
    settings = grid_settings(algorithm.grid, algorithm.fixed)
    rates = [algorithm.run(s, X, stream, teacher, n_labels, False).rate_observed
             for s in settings]
    return settings[int(np.argmin(rates))], min(rates)


def test_one_tuning_permutation_is_the_papers_protocol(iris):
    X, y, labels = iris
    teacher = TeacherModel(label_noise=0.2)
    grid = {'C': [0.25, 1.0, 4.0], 'eta': [0.6, 0.8, 0.95], 'k': [0.4, 1.4, 2.8]}
    algo = core_algorithm('ucwl', teacher, grid=grid, centring='none')
    params, rate = _old_tune(algo, X, y, 3, teacher, seed=2)
    for n_tuning in ({}, {'n_tuning': 1}):
        got = tune(algo, X, y, 3, teacher, seed=2, **n_tuning)
        assert got.params == params and got.rate == rate
        assert got.rates.shape == (27, 1)
    rec = evaluate(algo, X, y, 3, teacher, 'iris', n_permutations=3, seed=2)
    one = evaluate(algo, X, y, 3, teacher, 'iris', n_permutations=3, seed=2, n_tuning=1)
    assert rec.params == one.params == params
    expected = [run_learner('ucwl', params, X, s, teacher, 3)
                for s in make_streams(y, 3, teacher, 3, seed=2)]
    for runs in (rec.runs, one.runs):
        assert [(r.mistakes_observed, r.mistakes_true, r.updates) for r in runs] == [
            (r.mistakes_observed, r.mistakes_true, r.updates) for r in expected]


def test_tuning_streams_are_separate_from_each_other_and_the_reported_ones():
    X, y, labels = load_dataset('digits')
    teacher = TeacherModel(label_noise=0.2)
    tuning = tuning_streams(y, 10, teacher, 5, seed=0)
    reported = make_streams(y, 10, teacher, 20, seed=0)
    first = make_stream(y, 10, teacher, TUNING_STREAM, seed=0)
    np.testing.assert_array_equal(tuning[0].order, first.order)
    np.testing.assert_array_equal(tuning[0].y_obs, first.y_obs)
    assert len({s.index for s in tuning}) == 5
    assert not {s.index for s in tuning} & {s.index for s in reported}
    for i, a in enumerate(tuning):
        assert sorted(a.order.tolist()) == list(range(len(y)))
        for b in tuning[i + 1:] + reported:
            assert not np.array_equal(a.order, b.order)
            assert not np.array_equal(a.u_flip, b.u_flip)
    again = tuning_streams(y, 10, teacher, 5, seed=0)
    assert all(np.array_equal(a.order, b.order) for a, b in zip(tuning, again))
    with pytest.raises(HyperparameterError):
        tuning_streams(y, 10, teacher, 0)


def test_several_tuning_permutations_pick_the_lowest_mean(iris):
    X, y, labels = iris

    # Setting a=0 wins on the first tuning stream only; a=1 has the lowest mean.
    def run(params, X, stream, teacher, n_labels, curves=False):
        first = stream.index == TUNING_STREAM
        wrong = {0: 10 if first else 60, 1: 30, 2: 20 if first else 45}[params['a']]
        return RunResult(wrong, wrong, 0, 0.0, 100)
    algo = Algorithm('fake', run, grid={'a': [0, 1, 2]})
    assert tune(algo, X, y, 3, TeacherModel()).params == {'a': 0}
    three = tune(algo, X, y, 3, TeacherModel(), n_tuning=3)
    assert three.params == {'a': 1} and three.rate == pytest.approx(0.30)
    assert three.rates.shape == (3, 3)


def test_ucwl_grid_tuning_on_several_permutations_minimises_the_mean():
    X, y, labels = load_dataset('wine')
    teacher = TeacherModel(label_noise=0.2)
    grid = {'C': [0.125, 1.0, 8.0], 'eta': [0.6, 0.9], 'k': [0.4, 1.6, 2.8]}
    fixed = {'no_weight': 'equal'}  # Algorithm 1's cap: the stream below was chosen for it
    fast = core_algorithm('ucwl', teacher, grid=grid, fixed=fixed, centring='none')
    fast.grid_prune = False  # every setting's rate (pruning: test_ucwl_grid_prune)
    got = tune(fast, X, y, 3, teacher, seed=2, n_tuning=4)
    streams = tuning_streams(y, 3, teacher, 4, seed=2)
    settings = grid_settings(grid, fixed)
    # The reference loop, setting by setting and stream by stream.
    table = np.array([[run_learner('ucwl', s, X, st, teacher, 3).rate_observed
                       for st in streams] for s in settings])
    np.testing.assert_array_equal(got.rates, table)
    means = table.mean(axis=1)
    assert got.params == settings[int(np.argmin(means))]
    assert got.rate == means.min()
    assert all(got.rate <= m for m in means)
    # With this seed the mean over four streams changes the pick (first stream alone:
    # C=1, eta=0.9, k=0.4), so a tuner that looked at one stream would fail here.
    assert got.params != settings[int(np.argmin(table[:, 0]))]
    slow = core_algorithm('ucwl', teacher, grid=grid, fixed=fixed, centring='none')
    slow.run_grid = None
    assert tune(slow, X, y, 3, teacher, seed=2, n_tuning=4).params == got.params
    rec = evaluate(fast, X, y, 3, teacher, 'wine', n_permutations=2, seed=2, n_tuning=4)
    assert rec.params == got.params
    with pytest.raises(HyperparameterError):
        evaluate(fast, X, y, 3, teacher, 'wine', n_permutations=2, n_tuning=0)


def test_evaluate_record_is_reproducible_and_summarised(iris):
    X, y, labels = iris
    teacher = TeacherModel(rho0=0.15, rho1=0.15)
    algo = core_algorithm('rcnbf', teacher, grid={'gamma': [0.05, 0.2]})
    assert algo.fixed == {'rho0': 0.15, 'rho1': 0.15}
    rec = evaluate(algo, X, y, 3, teacher, 'iris', n_permutations=3, seed=9, curves=True)
    again = evaluate(algo, X, y, 3, teacher, 'iris', n_permutations=3, seed=9)
    assert [r.mistakes_observed for r in rec.runs] == [r.mistakes_observed for r in again.runs]
    s = rec.summary()
    assert s['permutations'] == 3 and s['tuned'] and s['params']['gamma'] in (0.05, 0.2)
    rates = [r.rate_observed for r in rec.runs]
    assert s['mistake_rate_observed']['mean'] == pytest.approx(np.mean(rates))
    assert s['mistake_rate_observed']['std'] == pytest.approx(np.std(rates))
    curve = rec.mean_curve()
    assert curve.shape == (len(y),)
    assert curve[-1] == pytest.approx(np.mean(rates))
    with pytest.raises(HyperparameterError):
        evaluate(algo, X, y, 3, teacher, 'iris', n_permutations=0)


def test_named_variant_runs_its_base_with_the_preset_and_keeps_its_name(iris):
    X, y, labels = iris
    teacher = TeacherModel(label_noise=0.1)
    variant = core_algorithm('ucwl-variance', teacher, fixed={'k': 1.0})
    assert variant.name == 'ucwl-variance' and variant.run_grid is not None
    assert variant.fixed == {'diagonal': 'variance', 'k': 1.0}
    assert variant.grid == core_algorithm('ucwl').grid
    stream = make_stream(y, 3, teacher, 0, seed=1)
    params = {'eta': 0.9, 'C': 1.0, 'k': 1.0, 'diagonal': 'variance'}
    ran = variant.run(params, X, stream, teacher, 3)
    ref = run_learner('ucwl', params, X, stream, teacher, 3)
    assert ran.mistakes_observed == ref.mistakes_observed and ran.updates == ref.updates
    with pytest.raises(HyperparameterError, match='ucwl-variance'):
        core_algorithm('ucwl-nonsense')


def test_synsep_is_separable_and_seeded():
    X, y, labels = make_synsep(2000, seed=5)
    assert X.shape == (2000, 400) and len(labels) == 9
    assert set(np.unique(X)) == {0.0, 1.0}
    assert np.all(X[:, 120:].sum(axis=1) == 20)
    scores = X @ separating_weights(5).T
    top2 = np.sort(scores, axis=1)[:, -2:]
    assert np.all(scores.argmax(axis=1) == y) and np.all(top2[:, 1] - top2[:, 0] >= 2)
    X2, y2, _ = make_synsep(2000, seed=5)
    np.testing.assert_array_equal(X, X2)
    assert not np.array_equal(make_synsep(2000, seed=6)[0], X)


@pytest.mark.parametrize('name', ['digits', 'iris', 'wine'])
def test_bundled_data_read_without_sklearn_are_sklearns(name, monkeypatch):
    datasets = pytest.importorskip('sklearn.datasets')
    from banditlearn_ros.learning.offline import datasets as ours
    if ours._bundled_csv(name) is None:
        pytest.skip('this scikit-learn keeps its data elsewhere: load_bundled asks it')
    X, y, names = ours.load_bundled(name)
    bunch = getattr(datasets, f'load_{name}')()
    monkeypatch.setattr(ours, '_bundled_csv', lambda name: None)  # scikit-learn's loader
    X_sk, y_sk, names_sk = ours.load_bundled(name)
    np.testing.assert_array_equal(X, X_sk)
    np.testing.assert_array_equal(y, y_sk)
    np.testing.assert_array_equal(y, bunch.target)
    assert names == names_sk == [str(n) for n in bunch.target_names]
