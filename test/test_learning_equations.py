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
Every update rule against numbers worked by hand from the papers' equations.

The expected values below were computed step by step from the printed equations
(Ngo et al. 2013 sections 3.1-3.3 and Algorithm 1; Crammer and Gentile 2011 Figure 1 and
section 5; Agarwal and Manwani 2021 eq. (3), Lemma 1 and Algorithm 1; Crammer et al. 2006 for
PA) on 2-dimensional inputs,
independently of the code under test.
"""

from banditlearn_ros.learning import (
    Banditron, Confidit, make_learner, MulticlassAROW, MulticlassCW, MulticlassPA,
    MulticlassPerceptron, MulticlassSCW, Prediction, RCNBF, UCWL)
from banditlearn_ros.learning.algorithms.base import HyperparameterError, LearnerInputError
from banditlearn_ros.learning.algorithms.confidence_weighted import confidence_constants
from banditlearn_ros.learning.algorithms.rcnbf import unbiased_feedback
import numpy as np
import pytest

# eta = 0.9: phi = Phi^-1(0.9).
PHI_09 = 1.2815515655446004
# First SCW-I step from mu = 0, Sigma = I, x = (1, 2), z = +1: m = 0, v = 5,
# alpha = phi / sqrt(5 xi) (below C = 1), u and beta from eq. (3).
ALPHA_1 = 0.3525769410425608
BETA_1 = 0.12431049935492942
# The same step on the precision: Sigma^-1 += gamma x x^T with gamma = beta / (1 - beta v)
# (Sherman-Morrison); the precision diagonal keeps 1 / sigma_j = 1 + gamma x_j^2.
GAMMA_1 = BETA_1 / (1.0 - 5.0 * BETA_1)


def test_confidence_constants_match_algorithm_1_line_1():
    phi, psi, xi = confidence_constants(0.9)
    assert phi == pytest.approx(PHI_09, rel=1e-12)
    assert psi == pytest.approx(1 + PHI_09 ** 2 / 2)
    assert xi == pytest.approx(1 + PHI_09 ** 2)


@pytest.mark.parametrize('diagonal,sigma', [
    ('variance', [1 - BETA_1, 1 - 4 * BETA_1]),
    ('precision', [1 / (1 + GAMMA_1), 1 / (1 + 4 * GAMMA_1)]),
])
def test_ucwl_first_update_is_one_scw_step(diagonal, sigma):
    learner = UCWL(2, n_features=2, eta=0.9, C=1.0, k=1.0, diagonal=diagonal)
    assert learner.learn([1.0, 2.0], 0, correct=True)
    np.testing.assert_allclose(learner._mu[0], [ALPHA_1, 2 * ALPHA_1], rtol=1e-12)
    np.testing.assert_allclose(learner._sigma[0], sigma, rtol=1e-12)
    # Only the selected classifier changes (Algorithm 1, line 13).
    np.testing.assert_array_equal(learner._mu[1], [0.0, 0.0])
    np.testing.assert_array_equal(learner._sigma[1], [1.0, 1.0])


@pytest.mark.parametrize('name,kwargs', [
    ('ucwl', {'eta': 0.8, 'C': 2.0, 'k': 1.0}), ('mscw', {'eta': 0.8, 'C': 2.0}),
    ('mcw', {'eta': 0.8}), ('marow', {'r': 0.5}),
])
def test_both_diagonals_are_the_exact_update_when_one_feature_is_active(name, kwargs):
    # With a single non-zero feature the full update is already diagonal, so dropping the
    # off-diagonal terms of Sigma or of Sigma^-1 must give the same matrix as the full one.
    rng = np.random.default_rng(4)
    learners = {form: make_learner(name, 3, 3, **kwargs, **form_kw) for form, form_kw in {
        'precision': {'diagonal': 'precision'}, 'variance': {'diagonal': 'variance'},
        'full': {'covariance': 'full'}}.items()}
    for _ in range(30):
        x = np.zeros(3)
        x[rng.integers(3)] = rng.normal(scale=2.0)
        label, correct = int(rng.integers(3)), bool(rng.random() < 0.5)
        for learner in learners.values():
            if name == 'ucwl':
                learner.learn(x, label, correct=correct)
            else:
                learner.learn_true(x, label)
    full = learners['full']
    for form in ('precision', 'variance'):
        np.testing.assert_allclose(learners[form]._mu, full._mu, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(learners[form]._sigma,
                                   np.diagonal(full._sigma, axis1=1, axis2=2), rtol=1e-9)


def test_precision_step_survives_an_unbounded_cw_step():
    # CW's alpha has no cap: with a tiny variance it is huge and gamma overflows; the touched
    # variance must go to the floor, the untouched one stay, and nothing become NaN.
    learner = MulticlassCW(2, n_features=2, eta=0.95, diagonal='precision')
    learner._sigma[:] = 1e-300
    learner._sigma[:, 1] = 0.5
    learner.learn_true([1.0, 0.0], 0)
    assert np.all(np.isfinite(learner._sigma)) and np.all(learner._sigma > 0)
    np.testing.assert_array_equal(learner._sigma[:, 1], [0.5, 0.5])


@pytest.mark.parametrize('diagonal', ['precision', 'variance'])
def test_a_step_that_overflows_is_refused_and_changes_nothing(diagonal):
    # m = -1e10 on a variance of 1e-300: CW's uncapped alpha overflows to infinity.
    learner = MulticlassCW(1, n_features=2, eta=0.95, diagonal=diagonal)
    learner._mu[0] = [-1e10, 0.0]
    learner._sigma[0] = [1e-300, 1.0]
    before = learner.state_dict()['arrays']
    with np.errstate(all='raise'):
        assert not learner.learn_true([1.0, 0.0], 0)
    np.testing.assert_array_equal(learner._mu, before['mu'])
    np.testing.assert_array_equal(learner._sigma, before['sigma'])
    assert learner.n_updates == 0


def test_ucwl_second_update_with_a_nonzero_margin():
    learner = UCWL(2, n_features=2, eta=0.9, C=1.0, k=1.0, diagonal='variance')
    learner.learn([1.0, 2.0], 0, correct=True)
    # x = (1, -1), z = -1: m = alpha_1 = 0.35258 < phi sqrt(v) = 1.50464, so it updates
    # with alpha = 0.49990, beta = 0.37776 (worked from eq. (3) and section 3.3).
    assert learner.learn([1.0, -1.0], 0, correct=False)
    np.testing.assert_allclose(learner._mu[0], [-0.08517727032429673, 0.956480902411144],
                               rtol=1e-10)
    np.testing.assert_allclose(learner._sigma[0], [0.5860115295448147, 0.4072734386478237],
                               rtol=1e-10)


def test_ucwl_skips_update_when_margin_constraint_holds():
    learner = UCWL(2, n_features=2, eta=0.9, C=1.0, k=1.0)
    learner._mu[0] = [5.0, 0.0]
    learner._sigma[0] = [0.01, 0.01]
    before = learner.state_dict()['arrays']
    # m = 5 >= phi sqrt(v) = 1.2816 * 0.1: eq. (4) holds, no update (Algorithm 1, line 14).
    assert not learner.learn([1.0, 0.0], 0, correct=True)
    np.testing.assert_array_equal(learner._mu, before['mu'])
    np.testing.assert_array_equal(learner._sigma, before['sigma'])
    # The same example answered "wrong" violates it (m = -5) and updates.
    assert learner.learn([1.0, 0.0], 0, correct=False)


def test_scw1_caps_alpha_at_C():
    learner = UCWL(1, n_features=2, eta=0.9, C=0.05, k=1.0)
    learner.learn([1.0, 2.0], 0, correct=True)
    np.testing.assert_allclose(learner._mu[0], [0.05, 0.10], rtol=1e-12)


@pytest.mark.parametrize('no_weight,K,cap', [('equal', 5, 0.05), ('balanced', 5, 0.0125),
                                             ('balanced', 2, 0.05), ('sqrt', 5, 0.025),
                                             ('sqrt', 2, 0.05)])
def test_a_no_step_is_capped_at_C_or_C_over_K_minus_1(no_weight, K, cap):
    # The CW step here is about 4 (> C): a "yes" steps by C, a "no" by its own cap.
    learner = UCWL(K, n_features=2, eta=0.9, C=0.05, k=1.0, no_weight=no_weight)
    learner.learn([1.0, 2.0], 0, correct=True)
    learner.learn([1.0, 2.0], 1, correct=False)
    np.testing.assert_allclose(learner._mu[0], [0.05, 0.10], rtol=1e-12)
    np.testing.assert_allclose(learner._mu[1], [-cap, -2 * cap], rtol=1e-12)
    if no_weight == 'balanced' and K > 2:  # one label more (starting at N(0, I)): C / K
        learner.set_params(added_label_prior='unit')
        learner.add_label('new')
        learner.learn([1.0, 2.0], K, correct=False)
        np.testing.assert_allclose(learner._mu[K], [-0.05 / K, -0.1 / K], rtol=1e-12)


@pytest.mark.parametrize('answers,cap', [
    (0, 0.05), (20, 0.05 / np.sqrt(2.5)), (60, 0.05 / np.sqrt(1 + 3 * 0.75))])
def test_a_ramped_no_is_capped_by_the_answers_its_label_had(answers, cap):
    # K = 5: C / sqrt(1 + 3 n / (n + 20)), C at no answers, C / sqrt(K - 1) in the limit.
    learner = UCWL(5, n_features=2, eta=0.9, C=0.05, k=1.0, no_weight='ramp')
    assert learner.no_weight == 'ramp' and UCWL(5, 2).no_weight == 'ramp'  # the default
    learner.answers[1] = answers
    learner.learn([1.0, 2.0], 0, correct=True)  # a "yes" keeps C
    learner.learn([1.0, 2.0], 1, correct=False)
    np.testing.assert_allclose(learner._mu[0], [0.05, 0.10], rtol=1e-12)
    np.testing.assert_allclose(learner._mu[1], [-cap, -2 * cap], rtol=1e-12)
    assert learner.answers == [1, answers + 1, 0, 0, 0]
    learner.learn([0.0, 0.0], 2, correct=False)  # no step (x = 0), still an answer
    with pytest.raises(LearnerInputError):
        learner.learn([np.nan, 0.0], 3, correct=False)  # refused: not an answer
    learner.add_label('new')
    assert learner.answers == [1, answers + 1, 1, 0, 0, 0]
    equal = UCWL(5, n_features=2, eta=0.9, C=0.05, k=1.0, no_weight='equal')
    equal.answers[1] = answers
    equal.learn([1.0, 2.0], 1, correct=False)  # Algorithm 1 whatever the answers
    np.testing.assert_allclose(equal._mu[1], [-0.05, -0.10], rtol=1e-12)


def test_answers_round_trip_and_older_states_start_them_at_zero(tmp_path):
    from banditlearn_ros.learning import load_model, save_model
    learner = UCWL(['a', 'b', 'c'], n_features=2, seed=1)
    for t in range(7):
        learner.learn([1.0, float(t)], t % 3, correct=t % 2 == 0)
    state = learner.state_dict()
    assert state['extra']['answers'] == [3, 2, 2]
    save_model(learner, tmp_path / 'model.npz')
    assert load_model(tmp_path / 'model.npz').answers == [3, 2, 2]
    back = UCWL.from_state_dict(state)
    assert back.answers == [3, 2, 2]
    x = [0.5, -1.0]
    learner.learn(x, 1, correct=False)
    back.learn(x, 1, correct=False)
    np.testing.assert_array_equal(back._mu, learner._mu)
    del state['extra']['answers']  # a file written before the counts existed
    assert UCWL.from_state_dict(state).answers == [0, 0, 0]
    for bad in ([1, 2], [1, -1, 0], [1, True, 0], 'many'):
        state['extra']['answers'] = bad
        with pytest.raises(ValueError, match='answers'):
            UCWL.from_state_dict(state)


def test_no_weight_is_checked_and_older_model_files_keep_algorithm_1():
    learner = UCWL(3, n_features=2, no_weight='balanced')
    with pytest.raises(HyperparameterError, match='no_weight'):
        learner.set_params(no_weight='half')
    assert learner.no_weight == 'balanced'
    state = learner.state_dict()
    del state['hyperparameters']['no_weight']  # a file written before no_weight existed
    assert UCWL.from_state_dict(state).no_weight == 'equal'


def test_scw2_step_from_wang_et_al():
    # SCW-II with C = 1: n = v + 1/(2C) = 5.5, alpha = gamma / (2 (n^2 + n v phi^2)) at m = 0.
    learner = UCWL(1, n_features=2, eta=0.9, C=1.0, k=1.0, variant='scw2')
    learner.learn([1.0, 2.0], 0, correct=True)
    np.testing.assert_allclose(learner._mu[0], 0.3299828479815354 * np.array([1.0, 2.0]),
                               rtol=1e-12)


def test_ucwl_full_covariance_matches_rank_one_update():
    learner = UCWL(1, n_features=2, eta=0.9, C=1.0, k=1.0, covariance='full')
    learner.learn([1.0, 2.0], 0, correct=True)
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(learner._mu[0], ALPHA_1 * x, rtol=1e-12)
    np.testing.assert_allclose(learner._sigma[0], np.eye(2) - BETA_1 * np.outer(x, x),
                               rtol=1e-12)


def test_ucwl_selects_highest_upper_confidence_bound():
    learner = UCWL(['a', 'b'], n_features=2, eta=0.9, C=1.0, k=2.0)
    learner._mu[:] = [[0.5, 0.0], [0.0, 0.0]]
    learner._sigma[:] = [[0.01, 0.01], [1.0, 1.0]]
    p = learner.select([1.0, 0.0])
    # UCB_a = 0.5 + 2 * 0.1 = 0.7; UCB_b = 0 + 2 * 1 = 2: b is explored (line 11).
    np.testing.assert_allclose(p.bounds, [0.7, 2.0])
    assert p.index == 1 and p.label == 'b' and p.explored and p.greedy == 0


def test_confidit_diagonal_steps():
    learner = Confidit(2, n_features=2, eta=1.0, alpha=1.0, normalize=False)
    x = np.array([0.6, 0.8])
    p = learner.select(x)
    # A = (1 + alpha)^2 I = 4 I, so eps^2 = eta x^T A^-1 x = 1/4 for both labels.
    np.testing.assert_allclose(p.bounds, [0.5, 0.5])
    # Wrong with alpha = 1: X = -x (step 6b with probability 1); A += x^2;
    # w = (A_old w + X) / A_new = -x / (4 + x^2).
    learner.learn(x, 1, correct=False)
    np.testing.assert_allclose(learner._a[1], [4.36, 4.64])
    np.testing.assert_allclose(learner._w[1], [-0.6 / 4.36, -0.8 / 4.64])
    # Right on x = (1, 0): w_0 = (4.36 * -0.6/4.36 + 1) / 5.36 = 0.4 / 5.36.
    learner.learn([1.0, 0.0], 1, correct=True)
    np.testing.assert_allclose(learner._w[1], [0.4 / 5.36, -0.8 / 4.64])
    np.testing.assert_array_equal(learner._w[0], [0.0, 0.0])


def test_confidit_full_step_and_normalisation():
    learner = Confidit(1, n_features=2, eta=1.0, alpha=1.0, covariance='full')
    # x = (3, 4) is normalised to (0.6, 0.8) (Figure 1, step 1). It is an eigenvector of
    # A_new = 4 I + x x^T with eigenvalue 5, so w = A_new^-1 (-x) = -x / 5.
    learner.learn([3.0, 4.0], 0, correct=False)
    np.testing.assert_allclose(learner._w[0], [-0.12, -0.16], rtol=1e-12)
    np.testing.assert_allclose(np.linalg.inv(learner._a[0]),
                               4 * np.eye(2) + np.outer([0.6, 0.8], [0.6, 0.8]), rtol=1e-12)


def test_confidit_randomised_demotion_frequency():
    # With alpha = 0 a mistake promotes (X = +x) with probability (1 - alpha)/2 = 1/2.
    learner = Confidit(1, n_features=1, eta=1.0, alpha=0.0, normalize=False, seed=3)
    signs = []
    for _ in range(4000):
        before = learner._w[0, 0] * learner._a[0, 0]
        learner.learn([1.0], 0, correct=False)
        signs.append(learner._w[0, 0] * learner._a[0, 0] - before)
    promoted = np.mean(np.array(signs) > 0)
    assert abs(promoted - 0.5) < 0.03


def _prediction(index, greedy, probability):
    return Prediction(index=index, label=str(index), scores=np.zeros(3), bounds=np.zeros(3),
                      explored=index != greedy, greedy=greedy, probability=probability)


def test_banditron_update_eq_3():
    learner = Banditron(3, n_features=2, gamma=0.3)
    x = np.array([1.0, 2.0])
    # Output 2 explored from greedy 0 with P(2) = gamma / K = 0.1; right: W_2 += x / 0.1.
    learner.learn(x, 2, True, prediction=_prediction(2, 0, 0.1))
    np.testing.assert_allclose(learner._w, [[-1, -2], [0, 0], [10, 20]])
    # Wrong: only the greedy row is demoted.
    learner.learn(x, 2, False, prediction=_prediction(2, 0, 0.1))
    np.testing.assert_allclose(learner._w, [[-2, -4], [0, 0], [10, 20]])


def test_banditron_probabilities_eq_3():
    learner = Banditron(4, n_features=1, gamma=0.2, seed=0)
    learner._w[:, 0] = [0.0, 1.0, 0.0, 0.0]
    counts = np.bincount([learner.select([1.0]).index for _ in range(8000)], minlength=4)
    # P(greedy = 1) = 1 - gamma + gamma / K = 0.85; others 0.05 each.
    np.testing.assert_allclose(counts / 8000, [0.05, 0.85, 0.05, 0.05], atol=0.015)


def test_rcnbf_unbiased_estimator_lemma_1():
    # rho0 = 0.2, rho1 = 0.1: beta = 0.7, h(1) = 0.8 / 0.7, h(0) = -0.2 / 0.7.
    assert unbiased_feedback(1, 0.2, 0.1) == pytest.approx(0.8 / 0.7)
    assert unbiased_feedback(0, 0.2, 0.1) == pytest.approx(-0.2 / 0.7)
    # E[h | f = 1] = (1 - rho1) h(1) + rho1 h(0) = 1 and E[h | f = 0] = 0 (Lemma 1).
    assert 0.9 * (0.8 / 0.7) + 0.1 * (-0.2 / 0.7) == pytest.approx(1.0)
    assert 0.8 * (-0.2 / 0.7) + 0.2 * (0.8 / 0.7) == pytest.approx(0.0)
    learner = RCNBF(3, n_features=2, gamma=0.3, rho0=0.2, rho1=0.1)
    learner.learn([1.0, 2.0], 2, False, prediction=_prediction(2, 0, 0.1))
    # H_2 = x h(0) / 0.1 = x * (-2/0.7); H_0 = -x.
    np.testing.assert_allclose(learner._w[2], np.array([1.0, 2.0]) * (-0.2 / 0.7) / 0.1)
    np.testing.assert_allclose(learner._w[0], [-1.0, -2.0])


def test_rcnbf_without_noise_is_the_banditron():
    a = Banditron(3, n_features=2, gamma=0.3, seed=1)
    b = RCNBF(3, n_features=2, gamma=0.3, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(200):
        x = rng.normal(size=2)
        pa, pb = a.select(x), b.select(x)
        assert pa.index == pb.index
        a.learn(x, pa.index, bool(pa.index == 1), prediction=pa)
        b.learn(x, pb.index, bool(pb.index == 1), prediction=pb)
    np.testing.assert_allclose(a._w, b._w)


@pytest.mark.parametrize('diagonal,sigma', [
    # Sigma -= beta Sigma x x^T Sigma: 1 - x_j^2 / 6.
    ('variance', [5 / 6, 1 / 3]),
    # Sigma^-1 += x x^T / r: 1 / (1 + x_j^2).
    ('precision', [1 / 2, 1 / 5]),
])
def test_multiclass_arow_top1_step(diagonal, sigma):
    learner = MulticlassAROW(2, n_features=2, r=1.0, diagonal=diagonal)
    learner.learn_true([1.0, 2.0], 0)
    # beta = 1 / (v + r) = 1/6, alpha = (1 - 0) / 6 for the promoted and the demoted class.
    np.testing.assert_allclose(learner._mu, [[1 / 6, 1 / 3], [-1 / 6, -1 / 3]])
    np.testing.assert_allclose(learner._sigma, [sigma, sigma])


def test_multiclass_scw_top1_step():
    learner = MulticlassSCW(2, n_features=2, eta=0.9, C=1.0)
    learner.learn_true([1.0, 2.0], 1)
    np.testing.assert_allclose(learner._mu, [[-ALPHA_1, -2 * ALPHA_1], [ALPHA_1, 2 * ALPHA_1]])


def test_multiclass_cw_is_uncapped_scw():
    capped = MulticlassSCW(2, n_features=2, eta=0.9, C=0.05)
    exact = MulticlassCW(2, n_features=2, eta=0.9)
    capped.learn_true([1.0, 2.0], 0)
    exact.learn_true([1.0, 2.0], 0)
    np.testing.assert_allclose(capped._mu[0], [0.05, 0.1])
    np.testing.assert_allclose(exact._mu[0], [ALPHA_1, 2 * ALPHA_1])


def test_multiclass_pa_steps():
    # loss = 1, 2 ||x||^2 = 10: PA-I tau = min(C, 0.1); PA-II tau = 1 / (10 + 1/(2C)).
    pa1 = MulticlassPA(2, n_features=2, C=1.0)
    pa1.learn_true([1.0, 2.0], 0)
    np.testing.assert_allclose(pa1._w, [[0.1, 0.2], [-0.1, -0.2]])
    pa2 = MulticlassPA(2, n_features=2, C=1.0, variant='pa2')
    pa2.learn_true([1.0, 2.0], 0)
    np.testing.assert_allclose(pa2._w[0], np.array([1.0, 2.0]) / 10.5)


def test_perceptron_only_on_mistakes():
    learner = MulticlassPerceptron(2, n_features=2)
    learner._w[:] = [[1.0, 0.0], [0.0, 0.0]]
    assert not learner.learn_true([1.0, 0.0], 0)
    assert learner.learn_true([1.0, 0.0], 1)
    np.testing.assert_allclose(learner._w, [[0.0, 0.0], [1.0, 0.0]])
