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

"""A label added at runtime: where UCWL's new classifier starts, and naming a new gesture."""

from banditlearn_ros.learning import (
    HyperparameterError, LearnerInputError, load_model, make_learner, save_model, UCWL)
from banditlearn_ros.learning.algorithms.confidence_weighted import mixture_gaussian
from banditlearn_ros.learning.protocol.interaction import Interaction
import numpy as np
import pytest


def _taught(covariance='diag', prior='mixture', rounds=200, seed=0):
    """Return a UCWL that learned three noisy classes whose features share an offset."""
    rng = np.random.default_rng(seed)
    learner = UCWL(['a', 'b', 'c'], 5, seed=seed, covariance=covariance,
                   added_label_prior=prior, eta=0.9, k=1.0)
    centres = np.eye(3, 5) + 0.5
    for _ in range(rounds):
        y = int(rng.integers(3))
        x = centres[y] + rng.normal(0, 0.2, 5)
        p = learner.select(x)
        learner.learn(x, p.index, bool(p.index == y), prediction=p)
    return learner


def test_mixture_moments_follow_the_law_of_total_covariance():
    rng = np.random.default_rng(3)
    mu = rng.normal(size=(4, 3))
    factors = rng.normal(size=(4, 3, 3))
    sigma = factors @ factors.transpose(0, 2, 1) + np.eye(3)
    mean, cov = mixture_gaussian(mu, sigma)
    # Cov = E[w w^T] - E[w] E[w]^T with E[w w^T] = mean_i (Sigma_i + mu_i mu_i^T).
    second = np.mean([s + np.outer(m, m) for m, s in zip(mu, sigma)], axis=0)
    np.testing.assert_allclose(mean, mu.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(cov, second - np.outer(mean, mean), rtol=1e-12, atol=1e-12)
    diag_mean, diag_cov = mixture_gaussian(mu, np.diagonal(sigma, axis1=1, axis2=2).copy())
    np.testing.assert_allclose(diag_mean, mean, rtol=1e-12)
    np.testing.assert_allclose(diag_cov, np.diag(cov), rtol=1e-12)


@pytest.mark.parametrize('covariance', ['diag', 'full'])
def test_added_label_starts_from_the_mixture_of_the_learned_classifiers(covariance):
    learner = _taught(covariance)
    mu, sigma = learner._mu.copy(), learner._sigma.copy()
    assert learner.add_label('d') == 3
    np.testing.assert_array_equal(learner._mu[:3], mu)
    np.testing.assert_array_equal(learner._sigma[:3], sigma)
    spread = mu - mu.mean(axis=0)
    if covariance == 'diag':
        expected = sigma.mean(axis=0) + (spread ** 2).mean(axis=0)
    else:
        expected = sigma.mean(axis=0) + np.einsum('ki,kj->ij', spread, spread) / 3
    np.testing.assert_allclose(learner._mu[3], mu.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(learner._sigma[3], expected, rtol=1e-12)
    # Its score on any input is the mean of the others' scores.
    x = np.array([0.5, 0.5, 0.5, 1.5, 0.5])
    scores = learner.scores(x)
    assert scores[3] == pytest.approx(scores[:3].mean(), rel=1e-12)


def test_unit_prior_is_algorithm_1_start():
    learner = _taught(prior='unit')
    learner.add_label('d')
    np.testing.assert_array_equal(learner._mu[3], np.zeros(5))
    np.testing.assert_array_equal(learner._sigma[3], np.ones(5))


def test_label_added_before_anything_was_learned_is_an_original_label():
    rng = np.random.default_rng(4)
    grown = UCWL(['a', 'b'], 4, seed=7)
    grown.add_label('c')
    built = UCWL(['a', 'b', 'c'], 4, seed=7)
    for _ in range(100):
        x = rng.normal(size=4)
        p, q = grown.select(x), built.select(x)
        assert p.index == q.index
        said = bool(rng.integers(2))
        grown.learn(x, p.index, said, prediction=p)
        built.learn(x, q.index, said, prediction=q)
    np.testing.assert_array_equal(grown._mu, built._mu)
    np.testing.assert_array_equal(grown._sigma, built._sigma)


def test_the_start_is_a_hyperparameter_checked_saved_and_old_files_keep_theirs(tmp_path):
    learner = _taught(prior='unit')
    with pytest.raises(HyperparameterError, match='added_label_prior'):
        learner.set_params(added_label_prior='zero')
    assert learner.added_label_prior == 'unit'
    learner.set_params(added_label_prior='mixture')
    save_model(learner, tmp_path / 'm.npz')
    assert load_model(tmp_path / 'm.npz').added_label_prior == 'mixture'
    state = learner.state_dict()
    del state['hyperparameters']['added_label_prior']
    assert UCWL.from_state_dict(state).added_label_prior == 'unit'


@pytest.mark.parametrize('algorithm', ['ucwl', 'confidit', 'banditron'])
def test_learn_new_label_appends_and_learns_the_observation(algorithm):
    learner = make_learner(algorithm, ['a', 'b'], 3, seed=0)
    rng = np.random.default_rng(5)
    for _ in range(30):
        x = rng.random(3)
        p = learner.select(x)
        learner.learn(x, p.index, bool(rng.integers(2)), prediction=p)
    x = np.array([0.2, 0.9, 0.1])
    before = learner.scores(x)
    updates = learner.n_updates
    assert learner.learn_new_label(x, 'c') == 2
    assert learner.labels == ['a', 'b', 'c']
    assert learner.n_updates == updates + 1
    assert learner.scores(x)[2] > (before.mean() if algorithm == 'ucwl' else 0.0)
    np.testing.assert_array_equal(learner.scores(x)[:2], before)


def test_learn_new_label_refuses_bad_input_and_adds_nothing():
    learner = UCWL(['a', 'b'], 3)
    with pytest.raises(LearnerInputError, match='expected 3 features'):
        learner.learn_new_label([1.0, 2.0], 'c')
    with pytest.raises(LearnerInputError, match='exists already'):
        learner.learn_new_label([1.0, 2.0, 3.0], 'a')
    assert learner.labels == ['a', 'b'] and learner.n_updates == 0


def test_a_gesture_every_label_rejected_can_be_named_once_and_is_learned_from():
    learner = _taught()
    interaction = Interaction(lambda d: None, learner=learner, max_questions=0,
                              clock=lambda: 0.0)
    x = np.array([0.5, 0.5, 0.5, 1.5, 0.5])
    with pytest.raises(LearnerInputError, match='ended not at all'):
        interaction.name_unknown('d')
    interaction.predict(x)
    with pytest.raises(LearnerInputError, match='ended not at all'):
        interaction.name_unknown('d')
    results = [interaction.feedback(False) for _ in range(3)]
    assert results[-1].ended.outcome == 'all_rejected'
    assert interaction.name_unknown('d') == 3
    assert learner.labels == ['a', 'b', 'c', 'd']
    assert learner.select(x).index == 3
    with pytest.raises(LearnerInputError, match='named already'):
        interaction.name_unknown('e')
    interaction.predict(x)
    interaction.feedback(True)
    with pytest.raises(LearnerInputError, match="ended 'yes'|ended yes"):
        interaction.name_unknown('e')
    assert learner.labels == ['a', 'b', 'c', 'd']
    assert interaction.stats()['labels_named'] == 1


@pytest.mark.parametrize('reveal_step', ['none', 'all'])
def test_out_of_questions_a_known_name_is_told_and_a_new_one_added(reveal_step):
    learner = _taught()
    interaction = Interaction(lambda d: None, learner=learner, max_questions=2,
                              reveal_step=reveal_step, clock=lambda: 0.0)
    x = np.array([0.5, 0.5, 0.5, 1.5, 0.5])
    first, _ = interaction.predict(x)
    second = interaction.feedback(False).next_round
    ended = interaction.feedback(False).ended
    assert ended.outcome == 'out_of_questions'
    asked = {first.prediction.index, second.prediction.index}
    told = ({0, 1, 2} - asked).pop()  # the label the questions did not reach
    before = {k: v.copy() for k, v in learner.state_dict()['arrays'].items()}
    assert interaction.name_unknown(learner.labels[told]) == told
    after = learner.state_dict()['arrays']
    changed = set(np.flatnonzero(np.any(before['mu'] != after['mu'], axis=1)).tolist())
    # A "yes" to the told label; the rejected labels were stepped by their own "no" already.
    assert changed == {told}
    assert learner.scores(x)[told] > before['mu'][told] @ x
    assert learner.labels == ['a', 'b', 'c'] and interaction.stats()['labels_told'] == 1
    with pytest.raises(LearnerInputError, match='named already'):
        interaction.name_unknown('d')
    # Out of questions again: a new name is a new gesture, learned from this observation.
    interaction.predict(x)
    interaction.feedback(False)
    assert interaction.feedback(False).ended.outcome == 'out_of_questions'
    assert interaction.name_unknown('d') == 3 and learner.labels == ['a', 'b', 'c', 'd']
    assert learner.confirmations == {'d': 1}
    assert interaction.stats()['labels_named'] == 1
