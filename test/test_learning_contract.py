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

"""One contract, run over every algorithm of the learning core."""

from banditlearn_ros.learning import (
    ALGORITHMS, BANDIT_ALGORITHMS, BanditLearner, HyperparameterError, LearnerInputError,
    load_model, make_learner, save_model)
import numpy as np
import pytest

# Hyperparameters that make every algorithm explore and update often, so the contract is
# exercised on busy models; each is inside its paper's range.
SETTINGS = {
    'ucwl': [{'eta': 0.9, 'C': 1.0, 'k': 1.0},
             {'eta': 0.7, 'C': 0.1, 'k': 0.5, 'covariance': 'full', 'variant': 'scw2'}],
    'confidit': [{'eta': 1.0, 'alpha': 1.0}, {'eta': 0.5, 'alpha': 0.0, 'covariance': 'full'}],
    'banditron': [{'gamma': 0.2}],
    'rcnbf': [{'gamma': 0.2, 'rho0': 0.1, 'rho1': 0.2}],
    'rcine': [{'gamma': 0.2, 'n_s': 300}],
    'mscw': [{'eta': 0.9, 'C': 1.0},
             {'eta': 0.8, 'C': 0.5, 'variant': 'scw2', 'covariance': 'full'}],
    'marow': [{'r': 1.0}, {'r': 0.1, 'covariance': 'full'}],
    'mcw': [{'eta': 0.9}],
    'mpa': [{'C': 1.0}, {'C': 0.1, 'variant': 'pa2'}],
    'perceptron': [{}],
}
CASES = [(name, kw) for name, kws in SETTINGS.items() for kw in kws]
IDS = [f'{name}-{i}' for name, kws in SETTINGS.items() for i in range(len(kws))]


def test_every_algorithm_has_contract_settings():
    assert set(SETTINGS) == set(ALGORITHMS)


def _step(learner, x, y, rng):
    """Run one round; return the output label index."""
    if isinstance(learner, BanditLearner):
        p = learner.select(x)
        learner.learn(x, p.index, bool(p.index == y), prediction=p)
        return p.index
    out = learner.predict(x)
    learner.learn_true(x, int(y))
    return out


def _run(learner, n, rng, scale=1.0, d=5, k=4):
    outputs = []
    centres = rng.normal(size=(k, d))
    for _ in range(n):
        y = int(rng.integers(k))
        x = (centres[y] + 0.5 * rng.normal(size=d)) * scale
        outputs.append(_step(learner, x, y, rng))
    return outputs


def _assert_healthy(learner):
    for name, arr in learner.state_dict()['arrays'].items():
        assert np.all(np.isfinite(arr)), f'{name} has NaN/inf'
    if hasattr(learner, '_sigma') and learner._sigma.ndim == 2:
        assert np.all(learner._sigma > 0), 'diagonal Sigma must stay positive'
    if hasattr(learner, '_a') and learner._a.ndim == 2:
        assert np.all(learner._a > 0)


@pytest.mark.parametrize('name, kw', CASES, ids=IDS)
def test_ten_thousand_updates_stay_finite_at_every_scale(name, kw):
    rng = np.random.default_rng(7)
    d = 5
    for scale, n in ((1.0, 10_000), (1e-6, 500), (1e6, 500)):
        learner = make_learner(name, 4, d, seed=1, **kw)
        outputs = _run(learner, n, rng, scale=scale, d=d)
        assert set(outputs) <= set(range(4)), 'labels must stay in range'
        _assert_healthy(learner)


@pytest.mark.parametrize('name, kw', CASES, ids=IDS)
def test_same_seed_same_run(name, kw):
    runs = []
    for _ in range(2):
        learner = make_learner(name, 4, 5, seed=11, **kw)
        runs.append((_run(learner, 700, np.random.default_rng(3)),
                     learner.state_dict()['arrays']))
    assert runs[0][0] == runs[1][0]
    for key in runs[0][1]:
        np.testing.assert_array_equal(runs[0][1][key], runs[1][1][key])


def test_ties_are_broken_at_random_not_toward_label_0():
    for name in BANDIT_ALGORITHMS:
        firsts = {make_learner(name, 5, 3, seed=s).select([1.0, 1.0, 1.0]).index
                  for s in range(40)}
        assert len(firsts) >= 3, f'{name} always starts with {firsts}'


@pytest.mark.parametrize('name, kw', CASES, ids=IDS)
def test_state_round_trips_through_a_file_bit_for_bit(name, kw, tmp_path):
    learner = make_learner(name, ['fist', 'palm', 'one', 'two'], 5, seed=5, **kw)
    rng = np.random.default_rng(9)
    _run(learner, 400, rng)
    path = tmp_path / 'model.npz'
    save_model(learner, path)
    restored = load_model(path)
    assert restored.labels == learner.labels
    assert restored.get_params() == learner.get_params()
    assert restored.n_updates == learner.n_updates
    for key, arr in learner.state_dict()['arrays'].items():
        got = restored.state_dict()['arrays'][key]
        assert got.dtype == arr.dtype and got.tobytes() == arr.tobytes()
    # Continuing gives the same decisions, random draws included.
    after_a = _run(learner, 200, np.random.default_rng(4))
    after_b = _run(restored, 200, np.random.default_rng(4))
    assert after_a == after_b


@pytest.mark.parametrize('name, kw', CASES, ids=IDS)
def test_input_is_never_mutated(name, kw):
    learner = make_learner(name, 3, 4, seed=0, **kw)
    rng = np.random.default_rng(2)
    for _ in range(50):
        x = rng.normal(size=4) * 3
        keep = x.copy()
        _step(learner, x, int(rng.integers(3)), rng)
        np.testing.assert_array_equal(x, keep)


@pytest.mark.parametrize('name, kw', CASES, ids=IDS)
def test_add_label_keeps_what_was_learned(name, kw):
    learner = make_learner(name, ['a', 'b'], 3, seed=0, **kw)
    _run(learner, 200, np.random.default_rng(1), d=3, k=2)
    before = learner.state_dict()['arrays']
    assert learner.add_label('c') == 2
    after = learner.state_dict()['arrays']
    for key in before:
        np.testing.assert_array_equal(after[key][:2], before[key])
        assert after[key].shape[0] == 3
    assert learner.labels == ['a', 'b', 'c']
    _run(learner, 100, np.random.default_rng(2), d=3, k=3)
    _assert_healthy(learner)


@pytest.mark.parametrize('name', sorted(ALGORITHMS))
def test_bad_input_raises_clear_errors(name):
    learner = make_learner(name, ['a', 'b'], 3, **SETTINGS[name][0])
    with pytest.raises(LearnerInputError, match='expected 3 features'):
        learner.predict([1.0, 2.0])
    with pytest.raises(LearnerInputError, match='NaN'):
        learner.predict([1.0, np.nan, 0.0])
    with pytest.raises(LearnerInputError, match='NaN or infinity'):
        learner.predict([1.0, np.inf, 0.0])
    with pytest.raises(LearnerInputError, match='expected 3 features'):
        learner.predict([])
    with pytest.raises(LearnerInputError, match='unknown label'):
        learner.label_index('zebra')
    with pytest.raises(LearnerInputError, match='outside'):
        learner.label_index(2)
    with pytest.raises(LearnerInputError, match='exists already'):
        learner.add_label('a')
    if isinstance(learner, BanditLearner):
        with pytest.raises(LearnerInputError, match='True or False'):
            learner.learn([1.0, 2.0, 3.0], 0, correct='yes')
        with pytest.raises(LearnerInputError, match='unknown label'):
            learner.learn([1.0, 2.0, 3.0], 'zebra', correct=True)
    else:
        with pytest.raises(LearnerInputError, match='unknown label'):
            learner.learn_true([1.0, 2.0, 3.0], 'zebra')


@pytest.mark.parametrize('name, params, message', [
    ('ucwl', {'eta': 0.5}, r'eta=0.5 is outside \(0.5, 1.0\)'),
    ('ucwl', {'eta': 1.0}, 'eta=1.0 is outside'),
    ('ucwl', {'C': 0.0}, 'C=0.0 is outside'),
    ('ucwl', {'k': -0.1}, 'k=-0.1 is outside'),
    ('ucwl', {'covariance': 'dense'}, 'covariance'),
    ('ucwl', {'variant': 'scw3'}, 'variant'),
    ('confidit', {'alpha': -1.0}, 'alpha=-1.0 is outside'),
    ('confidit', {'alpha': 1.5}, 'alpha=1.5 is outside'),
    ('confidit', {'eta': -1.0}, 'eta=-1.0'),
    ('banditron', {'gamma': 1.0}, 'gamma=1.0 is outside'),
    ('rcnbf', {'gamma': 0.5}, 'gamma=0.5 is outside'),
    ('rcnbf', {'rho0': 0.6, 'rho1': 0.5}, 'rho0 \\+ rho1 must be < 1'),
    ('rcine', {'n_s': 5}, 'n_s=5.0 is outside'),
    ('mscw', {'eta': 0.2}, 'eta=0.2'),
    ('marow', {'r': 0.0}, 'r=0.0'),
    ('mpa', {'C': -1.0}, 'C=-1.0'),
    ('ucwl', {'eta': float('nan')}, 'finite'),
])
def test_out_of_range_hyperparameters(name, params, message):
    with pytest.raises(HyperparameterError, match=message):
        make_learner(name, 2, 3, **params)


def test_set_params_rejects_and_keeps_the_old_value():
    learner = make_learner('ucwl', 2, 3, eta=0.9, C=1.0, k=1.0)
    learner.set_params(k=2.0, C=0.5)
    assert (learner.k, learner.C) == (2.0, 0.5)
    with pytest.raises(HyperparameterError, match='eta=1.2'):
        learner.set_params(eta=1.2, k=3.0)
    assert (learner.eta, learner.k) == (0.9, 2.0)
    with pytest.raises(HyperparameterError, match='no hyperparameter'):
        learner.set_params(gamma=0.1)
    with pytest.raises(HyperparameterError, match='unknown algorithm'):
        make_learner('svm', 2, 3)


@pytest.mark.parametrize('name', sorted(ALGORITHMS))
def test_construction_only_settings_are_refused_live(name):
    cls = ALGORITHMS[name]
    for setting in cls._construction_only:
        assert setting in cls._hyperparameters
    learner = make_learner(name, 3, 4, **SETTINGS[name][0])
    before = learner.get_params()
    for setting in cls._construction_only:
        other = {'covariance': 'full' if before.get('covariance') == 'diag' else 'diag',
                 'alpha': 0.5 if before.get('alpha') != 0.5 else 0.0}[setting]
        with pytest.raises(HyperparameterError, match=f'{setting} can only be set when'):
            learner.set_params(**{setting: other})
        learner.set_params(**{setting: before[setting]})  # the value it has: a no-op
    assert learner.get_params() == before


# Live values to try for each hyperparameter a learner lets change: both ends of its range
# and an interior point (choices: every choice).
LIVE_VALUES = {
    'eta': [0.5, 0.75, 0.999], 'C': [2.0 ** -5, 1.0, 32.0], 'k': [0.0, 1.0, 3.0],
    'variant': None, 'diagonal': ['precision', 'variance'], 'normalize': [True, False],
    'gamma': [0.01, 0.2, 0.5], 'rho0': [0.0, 0.2], 'rho1': [0.0, 0.3], 'n_s': [1, 50],
    'percentile': [50.0, 99.0], 'r': [0.01, 1.0, 10.0],
    'added_label_prior': ['unit', 'mixture'], 'no_weight': ['balanced', 'sqrt', 'ramp', 'equal'],
}


@pytest.mark.parametrize('name, kw', CASES, ids=IDS)
def test_every_accepted_live_set_params_leaves_select_and_learn_working(name, kw):
    rng = np.random.default_rng(11)
    learner = make_learner(name, 4, 5, **kw)
    _run(learner, 30, rng)
    live = [h for h in learner._hyperparameters if h not in learner._construction_only]
    for hyperparameter in live:
        values = LIVE_VALUES[hyperparameter]
        if values is None:
            values = {'ucwl': ['scw1', 'scw2'], 'mscw': ['scw1', 'scw2'],
                      'mpa': ['pa', 'pa1', 'pa2']}[name]
        accepted = 0
        for value in values:
            try:
                learner.set_params(**{hyperparameter: value})
            except HyperparameterError:
                continue  # refused: nothing changed, checked elsewhere
            accepted += 1
            assert learner.get_params()[hyperparameter] == value
            _run(learner, 20, rng)
            _assert_healthy(learner)
        assert accepted, f'no live value of {hyperparameter} was accepted'
