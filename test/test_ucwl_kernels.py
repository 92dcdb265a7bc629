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

"""The compiled UCWL steps take the decisions of the plain algorithm, over long random streams."""

from banditlearn_ros.learning import LearnerInputError, UCWL
from banditlearn_ros.learning.engine import compilation, FastUCWL, plug, ucwl_kernels
import numpy as np
import pytest

# The same pairwise sums and the same operations: states equal bit for bit (one wrong or missing
# step would change them by far more than a last bit).
STATE_RTOL, STATE_ATOL = 0.0, 0.0

SETTINGS = [  # (eta, C, k): the paper's default, small C, k = 0 (ties), a large C
    (0.95, 1.0, 2.8), (0.55, 2.0 ** -5, 0.2), (0.6, 4.0, 0.0), (0.95, 32.0, 3.0)]


def _assert_close(actual, desired):
    """
    ``assert_allclose`` at the state tolerance, the exact comparison first.

    Equal arrays pass ``assert_allclose`` at any tolerance; this is called twice a round,
    and ``array_equal`` takes a tenth of its time.  Unequal ones get its check and message.
    """
    if not np.array_equal(actual, desired, equal_nan=True):
        np.testing.assert_allclose(actual, desired, rtol=STATE_RTOL, atol=STATE_ATOL)


def _stream(d, K, n, seed):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) * (rng.random((n, d)) < 0.5)
    W = rng.normal(size=(K, d))
    y = (X @ W.T).argmax(axis=1)
    flips = rng.random(n) < 0.1  # a noisy person: answers flipped now and then
    return X, y, flips


def _pair(kernels, K, d, eta, C, k, variant, diagonal, no_weight='equal'):
    """Return the plain algorithm and a ``FastUCWL`` on ``kernels``, otherwise the same."""
    args = {'eta': eta, 'C': C, 'k': k, 'variant': variant, 'diagonal': diagonal, 'seed': 11,
            'no_weight': no_weight}
    ref, fast = UCWL(K, d, **args), FastUCWL(K, d, **args)
    assert type(ref) is UCWL and fast.use_kernels(kernels)
    return ref, fast


def _lockstep(kernels, d, K, n, variant, diagonal, seed=0, no_weight='equal', add_at=0):
    X, y, flips = _stream(d, K, n, seed)
    for eta, C, k in SETTINGS:
        ref, fast = _pair(kernels, K - 1 if add_at else K, d, eta, C, k, variant, diagonal,
                          no_weight)
        for t in range(n):
            if add_at and t == add_at:  # a label added mid-stream (changes K - 1)
                assert ref.add_label('new') == fast.add_label('new') == K - 1
            p, q = ref.select(X[t]), fast.select(X[t])
            assert (p.index, p.greedy, p.explored) == (q.index, q.greedy, q.explored), t
            _assert_close(q.scores, p.scores)
            _assert_close(q.bounds, p.bounds)
            said = bool((p.index == y[t]) != flips[t])
            assert ref.learn(X[t], p.index, said, p) == fast.learn(X[t], q.index, said, q), t
        assert ref.n_updates == fast.n_updates
        assert ref.n_updates > n // 10  # the stream did make the learners learn
        np.testing.assert_allclose(fast._mu, ref._mu, rtol=STATE_RTOL, atol=STATE_ATOL)
        np.testing.assert_allclose(fast._sigma, ref._sigma, rtol=STATE_RTOL, atol=STATE_ATOL)
        # The random generators drew the same ties.
        assert fast._rng.bit_generator.state == ref._rng.bit_generator.state


def _source_kernels(fused):
    """Return the uncompiled functions (what numba compiles), pairwise sums in Python."""
    if not fused:
        return ucwl_kernels.split_kernels()
    return ucwl_kernels.Kernels(ucwl_kernels.select_fused, ucwl_kernels.learn_fused, True)


def _compiled_kernels(fused):
    pytest.importorskip('numba', reason='numba (the [fast] extra) is not installed')
    steps = compilation.compiled_steps()
    if steps is None:
        pytest.skip(f'{compilation.ENV_SWITCH}=0 in the environment')
    if not fused:
        return ucwl_kernels.split_kernels(steps.select_diag, steps.learn_diag)
    assert steps.kernels.fused, 'the compiled sums failed the start-up check'
    return steps.kernels


@pytest.mark.parametrize('fused', [False, True])
@pytest.mark.parametrize('variant,diagonal', [
    ('scw1', 'precision'), ('scw1', 'variance'), ('scw2', 'precision'), ('scw2', 'variance')])
def test_kernel_source_equals_numpy_code(variant, diagonal, fused):
    kernels = _source_kernels(fused)
    _lockstep(kernels, d=6, K=5, n=600, variant=variant, diagonal=diagonal)


@pytest.mark.parametrize('fused', [False, True])
def test_kernel_source_equals_numpy_code_with_the_ramped_no_cap(fused):
    # Each "no" capped from its label's answers (set before every step), a label added.
    kernels = _source_kernels(fused)
    _lockstep(kernels, d=6, K=5, n=600, variant='scw1', diagonal='precision',
              no_weight='ramp', add_at=200)


@pytest.mark.parametrize('fused', [False, True])
@pytest.mark.parametrize('variant,diagonal', [
    ('scw1', 'precision'), ('scw1', 'variance'), ('scw2', 'precision'), ('scw2', 'variance')])
@pytest.mark.parametrize('d,K', [(124, 6), (784, 10), (20, 300)])
@pytest.mark.slow
def test_compiled_steps_equal_numpy_code(variant, diagonal, d, K, fused):
    kernels = _compiled_kernels(fused)
    _lockstep(kernels, d=d, K=K, n=3000 if K < 100 else 900, variant=variant,
              diagonal=diagonal, seed=d + K)


@pytest.mark.parametrize('fused', [False, True])
@pytest.mark.parametrize('variant,no_weight', [('scw1', 'balanced'), ('scw2', 'balanced'),
                                               ('scw1', 'sqrt'), ('scw1', 'ramp'),
                                               ('scw2', 'ramp')])
def test_balanced_no_steps_compiled_equal_numpy_code(variant, fused, no_weight):
    # The cap of a "no" is C / (K - 1) or C / sqrt(K - 1), and follows K when a label is
    # added.
    _lockstep(_compiled_kernels(fused), d=124, K=6, n=3000, variant=variant,
              diagonal='precision', seed=3, no_weight=no_weight, add_at=500)


@pytest.mark.parametrize('d,K', [(9, 1), (2, 2), (33, 3)])
def test_compiled_steps_equal_numpy_code_at_few_labels_and_features(d, K):
    # One label, and fewer than 8 features (the sums' left-to-right base case).
    _lockstep(_compiled_kernels(True), d=d, K=K, n=400, variant='scw1', diagonal='precision',
              seed=d)


def test_compiled_steps_take_strided_and_non_contiguous_arrays():
    kernels = _compiled_kernels(True)
    X, y, flips = _stream(40, 4, 300, seed=3)
    wide = np.repeat(X, 2, axis=1)  # wide[t, ::2]: a strided view equal to X[t]
    ref, fast = _pair(kernels, 4, 40, 0.9, 1.0, 1.0, 'scw1', 'precision')
    for t in range(300):
        x = wide[t, ::2] if t < 150 else X[t]
        if t == 150:
            # Rows that are views into wider arrays: the kernels refuse them and the numpy
            # code runs (the reference gets the same views).
            for learner in (ref, fast):
                learner._mu = np.repeat(learner._mu, 2, axis=1)[:, ::2]
                learner._sigma = np.repeat(learner._sigma, 2, axis=1)[:, ::2]
        p, q = ref.select(X[t]), fast.select(x)
        assert (p.index, p.greedy) == (q.index, q.greedy), t
        np.testing.assert_array_equal(q.bounds, p.bounds)
        said = bool((p.index == y[t]) != flips[t])
        assert ref.learn(X[t], p.index, said) == fast.learn(x, q.index, said), t
    assert ref.n_updates == fast.n_updates > 30
    np.testing.assert_array_equal(fast._mu, ref._mu)
    np.testing.assert_array_equal(fast._sigma, ref._sigma)


def test_the_start_up_check_accepts_the_compiled_steps_and_catches_a_wrong_sum():
    kernels = _compiled_kernels(True)
    assert ucwl_kernels.disagreement(kernels) == ''

    def off_by_one_ulp(x, mu, sigma, k, out):
        result = kernels.select(x, mu, sigma, k, out)
        out[0, -1] = np.nextafter(out[0, -1], np.inf)
        return result
    wrong = kernels._replace(select=off_by_one_ulp)
    assert ucwl_kernels.disagreement(wrong).startswith('select at K=1')


@pytest.mark.parametrize('fused', [False, True])
@pytest.mark.parametrize('kernels', ['source', 'compiled'])
def test_kernels_refuse_non_finite_features_and_change_nothing(kernels, fused):
    kernels = (_compiled_kernels(fused) if kernels == 'compiled'
               else _source_kernels(fused))
    learner = FastUCWL(3, 4, seed=0)
    learner.use_kernels(kernels)
    learner.learn([1.0, 0.5, 0.0, 2.0], 1, False)
    before = learner.state_dict()
    for bad in ([1.0, np.nan, 0.0, 0.0], [np.inf, 0.0, 0.0, 0.0]):
        with pytest.raises(LearnerInputError):
            learner.select(np.array(bad))
        with pytest.raises(LearnerInputError):
            learner.learn(np.array(bad), 0, False)
    after = learner.state_dict()
    for name in ('mu', 'sigma'):
        np.testing.assert_array_equal(after['arrays'][name], before['arrays'][name])
    assert after['rng_state'] == before['rng_state'] and learner.n_updates == 1


@pytest.mark.parametrize('fused', [False, True])
@pytest.mark.parametrize('kernels', ['source', 'compiled'])
def test_kernels_take_finite_features_whose_squares_overflow(kernels, fused):
    """A variance that overflows does not make a finite x refused: x itself is checked."""
    kernels = (_compiled_kernels(fused) if kernels == 'compiled'
               else _source_kernels(fused))
    ref, fast = _pair(kernels, 3, 4, 0.95, 1.0, 2.8, 'scw1', 'precision')
    for learner in (ref, fast):
        learner.learn(np.array([1.0, 0.5, 0.0, 2.0]), 1, False)
    with np.errstate(over='ignore', invalid='ignore'):
        for x in ([1e200, 0.5, 0.0, -1e200], [0.0, 0.0, 0.0, 1e160]):
            x = np.array(x)
            p, q = ref.select(x), fast.select(x)
            assert (p.index, p.greedy, p.explored) == (q.index, q.greedy, q.explored)
            assert np.isinf(q.bounds).any()  # the squares did overflow
            assert ref.learn(x, p.index, False, p) == fast.learn(x, q.index, False, q)
    np.testing.assert_array_equal(fast._mu, ref._mu)
    np.testing.assert_array_equal(fast._sigma, ref._sigma)
    assert fast.n_updates == ref.n_updates and fast.answers == ref.answers


def test_switch_off_keeps_the_numpy_code(monkeypatch):
    monkeypatch.setenv(compilation.ENV_SWITCH, '0')
    assert not FastUCWL(3, 4).compiled


def test_plug_moves_a_plain_diagonal_learner_to_the_engine_and_keeps_its_state():
    X, y, flips = _stream(12, 3, 200, seed=4)
    plain, ref = UCWL(3, 12, seed=2), UCWL(3, 12, seed=2)
    for t in range(100):  # learned as plain, then handed over
        for learner in (plain, ref):
            p = learner.select(X[t])
            learner.learn(X[t], p.index, bool((p.index == y[t]) != flips[t]))
    fast = plug(plain)
    assert fast is plain and type(fast) is FastUCWL and fast.answers == ref.answers
    for t in range(100, 200):
        p, q = ref.select(X[t]), fast.select(X[t])
        assert (p.index, p.greedy) == (q.index, q.greedy), t
        said = bool((p.index == y[t]) != flips[t])
        assert ref.learn(X[t], p.index, said) == fast.learn(X[t], q.index, said), t
    np.testing.assert_array_equal(fast._mu, ref._mu)
    assert fast.state_dict()['algorithm'] == 'ucwl' and fast.n_updates == ref.n_updates
    full = UCWL(3, 4, covariance='full')
    assert plug(full) is full and plug(fast) is fast and plug(None) is None


def test_the_compiled_steps_rewrite_no_module_of_the_algorithm():
    # bind() hands each compiled function its compiled callees: the plain functions and
    # their modules stay plain Python (a patched global would make them call numba).
    pytest.importorskip('numba', reason='numba (the [fast] extra) is not installed')
    if compilation.compiled_steps() is None:
        pytest.skip(f'{compilation.ENV_SWITCH}=0 in the environment')
    from banditlearn_ros.learning.algorithms import reductions
    assert reductions.pairwise_dot.__globals__['block_dot'] is reductions.block_dot
    assert ucwl_kernels.select_fused.__globals__['select_diag'] is ucwl_kernels.select_diag
    assert type(reductions.block_dot).__name__ == 'function'


def test_a_numba_failure_falls_back_to_numpy(monkeypatch):
    pytest.importorskip('numba', reason='numba (the [fast] extra) is not installed')
    monkeypatch.delenv(compilation.ENV_SWITCH, raising=False)
    monkeypatch.setattr(compilation, '_ONCE', compilation._Once())

    def broken(kernels):
        raise RuntimeError('no LLVM today')
    monkeypatch.setattr(ucwl_kernels, 'warm_up', broken)
    with pytest.warns(UserWarning, match='no LLVM today'):
        assert compilation.compiled() is None
    learner = FastUCWL(3, 4)
    assert not learner.compiled
    assert learner.select([1.0, 0.0, 0.5, 0.2]).index in (0, 1, 2)


def test_bind_gives_a_copy_its_callees_and_leaves_the_function_alone():
    # How the engine hands compiled callees to a compiled caller: on a copy, never by
    # rewriting the caller's module (the check runs without numba).
    from banditlearn_ros.learning.algorithms import reductions
    from banditlearn_ros.learning.engine.jit import bind
    calls = []

    def counted_block(a, b, lo, n):
        calls.append(n)
        return 1.0
    copy = bind(reductions.pairwise_dot, block_dot=counted_block)
    x = np.ones(5)
    assert copy(x, x) == 1.0 and calls == [5]
    assert reductions.pairwise_dot(x, x) == 5.0 and calls == [5]
    assert copy.__qualname__ == reductions.pairwise_dot.__qualname__
    with pytest.raises(ValueError, match='calls no'):
        bind(reductions.pairwise_dot, no_such_callee=counted_block)
