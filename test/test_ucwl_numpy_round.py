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

"""FastUCWL's numpy round in few calls takes the decisions of the plain UCWL, bit for bit."""

import math
import warnings

from banditlearn_ros.learning import LearnerInputError, UCWL
from banditlearn_ros.learning.algorithms.confidence_weighted import (
    confidence_constants, cw_gamma, gaussian_update, precision_update, scw1_alpha,
    scw1_precision_coefficients, SIGMA_FLOOR)
from banditlearn_ros.learning.engine import FastUCWL
from banditlearn_ros.learning.engine.round_buffers import RoundBuffers
import numpy as np
import pytest


def _pair(K, d, **args):
    """Return the plain algorithm (the reference) and ``FastUCWL`` on its numpy round."""
    ref, fast = UCWL(K, d, seed=5, **args), FastUCWL(K, d, seed=5, **args)
    fast.use_kernels(None)  # the numpy round, whether or not numba is there
    return ref, fast


@pytest.mark.parametrize('d,K', [(124, 6), (7, 2), (300, 1), (40, 100)])
@pytest.mark.parametrize('variant,diagonal,k', [
    ('scw1', 'precision', 2.8), ('scw2', 'variance', 0.2), ('scw1', 'variance', 0.0)])
def test_few_call_round_equals_the_plain_numpy_code(d, K, variant, diagonal, k):
    rng = np.random.default_rng(d * K)
    X = rng.random((400, d)) * (rng.random((400, d)) < 0.5)
    y = (X @ rng.normal(size=(K, d)).T).argmax(axis=1)
    ref, fast = _pair(K, d, k=k, variant=variant, diagonal=diagonal)
    for t, x in enumerate(X):
        p, q = ref.select(x), fast.select(x)
        assert (p.index, p.greedy, p.explored) == (q.index, q.greedy, q.explored), t
        assert np.array_equal(p.scores, q.scores) and np.array_equal(p.bounds, q.bounds), t
        said = bool(p.index == y[t]) != (t % 7 == 0)
        if t % 11 == 5:  # learn on another x than the one selected: fresh sums
            x = X[t - 1]
        elif t % 11 == 8:  # x changed after select: fresh sums
            x = x.copy()
            x[0] += 1.0
        assert ref.learn(x, p.index, said, p) == fast.learn(x, q.index, said, q), t
    assert ref.n_updates == fast.n_updates > 20
    assert np.array_equal(ref._mu, fast._mu) and np.array_equal(ref._sigma, fast._sigma)
    assert ref._rng.bit_generator.state == fast._rng.bit_generator.state


@pytest.mark.parametrize('bad', [np.nan, np.inf, -np.inf])
def test_non_finite_features_are_refused_without_a_warning_or_a_change(bad):
    ref, fast = _pair(6, 124)
    x = np.linspace(0.0, 1.0, 124)
    fast.learn(x, fast.select(x).index, False)
    mu, sigma, updates = fast._mu.copy(), fast._sigma.copy(), fast.n_updates
    x[3] = bad
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        with pytest.raises(LearnerInputError, match='NaN or infinity'):
            fast.select(x)
        with pytest.raises(LearnerInputError, match='NaN or infinity'):
            fast.learn(x, 0, False)
    assert np.array_equal(mu, fast._mu) and np.array_equal(sigma, fast._sigma)
    assert fast.n_updates == updates


def test_a_label_added_between_select_and_learn_gets_fresh_sums():
    ref, fast = _pair(3, 10)
    x = np.arange(10.0) / 10.0
    for learner in (ref, fast):
        p = learner.select(x)
        learner.add_label('new')
        learner.learn(x, p.index, False)
        learner.learn(x, 3, True)
    assert np.array_equal(ref._mu, fast._mu) and np.array_equal(ref._sigma, fast._sigma)


@pytest.mark.parametrize('alpha,z,scale,finite', [
    (0.37, 1.0, 1.0, True), (0.9, -1.0, 1.0, True), (0.9, 1.0, 1e200, True),
    (3e100, 1.0, 1.0, True), (1e300, -1.0, 1e10, False), (0.5, 1.0, 1e308, False)])
def test_precision_update_on_buffers_equals_gaussian_update(alpha, z, scale, finite):
    # The step on kept buffers (the numpy round) against the plain one, bit for bit: a
    # step whose square overflows (1e200) is still taken, a step too large for a float
    # is refused by both with nothing changed.
    rng = np.random.default_rng(7)
    d = 124
    x = rng.random(d) * (rng.random(d) < 0.5) * scale
    mu, sigma = rng.normal(size=(1, d)), rng.random((1, d)) + 2.0
    buffers = RoundBuffers(mu, sigma)
    ref_mu, ref_sigma = mu[0].copy(), sigma[0].copy()
    taken = []
    for gamma in (0.81, 0.0, 1e10):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # an overflowing step warns in both
            want = gaussian_update(ref_mu, ref_sigma, x, z, alpha, 0.0, gamma)
            got = precision_update(buffers.mu[0], buffers.sigma[0], x, z, alpha, gamma,
                                   buffers)
        assert got == want
        taken.append(got)
        assert buffers.mu[0].tobytes() == ref_mu.tobytes()  # bit for bit, NaN too
        assert buffers.sigma[0].tobytes() == ref_sigma.tobytes()
    assert taken[0] is finite


def test_the_learner_keeps_mu_and_sigma_in_one_array_and_renews_it_when_they_change():
    _, fast = _pair(4, 9)
    x = np.linspace(0.1, 0.9, 9)
    fast.learn(x, fast.select(x).index, False)
    state = fast._buffers.mu.base
    assert fast._mu.base is state and fast._sigma.base is state
    fast.add_label('new')  # new arrays: the next round copies them into a new one
    assert fast._mu.base is not state
    fast.learn(x, fast.select(x).index, False)
    assert fast._mu.base is fast._sigma.base is not state
    assert fast._mu.shape == fast._sigma.shape == (5, 9)


def test_scw1_precision_coefficients_equal_the_two_functions():
    # The numpy round's one call against scw1_alpha and cw_gamma, bit for bit: margins
    # that violate eq. (4) and not, variances from 0 to huge, the cap C binding and not.
    rng = np.random.default_rng(3)
    phi, psi, xi = confidence_constants(0.95)
    cases = [(m, v, C) for m in (-3.0, -0.2, 0.0, 0.4, 5.0) for v in (0.0, 1e-12, 0.7, 40.0, 1e300)
             for C in (1e-3, 1.0, 1e6)]
    normal, exponential = rng.normal(size=500), rng.exponential(size=500)
    cases += [(float(m), float(v), 1.0) for m, v in zip(normal, exponential)]
    for m, v, C in cases:
        alpha = scw1_alpha(m, v, phi, psi, xi, C)
        gamma = cw_gamma(alpha, v, phi)
        got = scw1_precision_coefficients(m, v, phi, psi, xi, C)
        assert got[0] == alpha and (alpha <= 0.0 or got[1] == gamma), (m, v, C)
        assert math.copysign(1.0, got[0]) == math.copysign(1.0, alpha)


HALF = np.arange(30) < 15


@pytest.mark.parametrize('x_scale,sigma_scale,learns', [
    (1.0, 1.0, True), (1e-150, 1.0, True), (1e150, 1.0, True), (1.0, 1e-299, True),
    (1e3, 1e-302, True), (np.where(HALF, 1e-100, 1e60), np.where(HALF, 1e250, 1e-10), True),
    (1e100, 1e200, False)])
def test_the_checks_the_bounds_spare_come_back_when_the_bounds_do_not_hold(
        x_scale, sigma_scale, learns):
    # The step's finiteness and the variance floor are skipped only while RoundBuffers'
    # bounds prove them idle; at extreme scales (tiny and huge features and variances,
    # sums that overflow) the round still equals the plain numpy code bit for bit.
    rng = np.random.default_rng(11)
    d, K = 30, 4
    X = rng.random((300, d)) * (rng.random((300, d)) < 0.5) * x_scale
    y = (X @ rng.normal(size=(K, d)).T).argmax(axis=1)
    ref, fast = _pair(K, d)
    for learner in (ref, fast):
        learner._sigma = learner._sigma * sigma_scale  # a new array: new buffers
    with warnings.catch_warnings(), np.errstate(all='ignore'):
        warnings.simplefilter('ignore')
        for t, x in enumerate(X):
            p, q = ref.select(x), fast.select(x)
            assert (p.index, p.greedy) == (q.index, q.greedy), t
            assert ref.learn(x, p.index, bool(p.index == y[t]), p) == fast.learn(
                x, q.index, bool(q.index == y[t]), q), t
    assert ref.n_updates == fast.n_updates and (ref.n_updates > 10) == learns
    assert ref._mu.tobytes() == fast._mu.tobytes()
    assert ref._sigma.tobytes() == fast._sigma.tobytes()


def test_the_tracked_precision_bound_stays_above_every_precision():
    rng = np.random.default_rng(4)
    mu, sigma = np.zeros((3, 50)), rng.random((3, 50)) + 0.01
    buffers = RoundBuffers(mu, sigma)
    for t in range(400):
        i = t % 3
        x = rng.random(50) * (rng.random(50) < 0.5) * 10.0 ** rng.integers(-3, 4)
        alpha, gamma = float(rng.random()), float(rng.exponential()) * 10.0 ** rng.integers(-2, 3)
        finite, floor = buffers.precision_step(i, alpha, gamma, float(x.dot(x)))
        assert finite and not floor  # moderate scales: both checks spared
        assert precision_update(buffers.mu[i], buffers.sigma[i], x, 1.0, alpha, gamma, buffers,
                                finite, floor)
        assert buffers.precision_bounds[i] >= float((1.0 / buffers.sigma[i]).max()), t


@pytest.mark.parametrize('sigma0,x0,alpha,clamps', [
    (1e-307, 1.2e154, 1.0, True),  # the step sends a variance below the floor
    (1e200, 1e120, 1.0, False),  # the step overflows: refused, nothing changed
    (1e-3, 2.0, 0.5, False)])  # an ordinary step: both checks spared
def test_precision_step_keeps_the_checks_its_bounds_cannot_spare(sigma0, x0, alpha, clamps):
    d = 8
    x = np.zeros(d)
    x[0], x[3] = x0, x0 / 3.0
    mu, sigma = np.zeros((1, d)), np.full((1, d), sigma0)
    buffers = RoundBuffers(mu, sigma)
    ref_mu, ref_sigma = mu[0].copy(), sigma[0].copy()
    phi = confidence_constants(0.95)[0]
    with warnings.catch_warnings(), np.errstate(all='ignore'):
        warnings.simplefilter('ignore')
        xx = float(x.dot(x))
        v = float((sigma[0] * (x * x)).sum())
        gamma = cw_gamma(alpha, v, phi)
        finite, floor = buffers.precision_step(0, alpha, gamma, xx)
        assert finite == (sigma0 < 1.0) and (floor == clamps or not finite)
        want = gaussian_update(ref_mu, ref_sigma, x, 1.0, alpha, 0.0, gamma)
        got = precision_update(buffers.mu[0], buffers.sigma[0], x, 1.0, alpha, gamma,
                               buffers, finite, floor)
    assert got == want == (sigma0 < 1.0)
    assert buffers.mu[0].tobytes() == ref_mu.tobytes()
    assert buffers.sigma[0].tobytes() == ref_sigma.tobytes()
    assert (ref_sigma == SIGMA_FLOOR).any() == clamps
