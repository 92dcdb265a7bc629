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

"""The learners' dot products are summed in one fixed order: the same bits on every CPU."""

import json
import os
from pathlib import Path
import platform
import subprocess
import sys
import textwrap

from banditlearn_ros.learning.algorithms import reductions
from banditlearn_ros.learning.engine import compilation
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent

# Lengths around every boundary of the order: the left-to-right base case (< 8), the
# 8-sum block (<= 128), the split in halves, and numpy's 8192-number inner loop.
LENGTHS = [1, 2, 7, 8, 9, 15, 16, 17, 124, 127, 128, 129, 136, 255, 256, 257, 300, 784,
           1000, 4099, 8192, 8193, 8200, 16385, 20000]


def _reference(products):
    """Sum a list of floats in numpy's pairwise order, recursively, in plain Python."""
    n = len(products)
    if n < 8:
        total = 0.0
        for p in products:
            total += p
        return total
    if n <= 128:
        r = list(products[:8])
        end = n - n % 8
        for i in range(8, end, 8):
            r = [r[j] + products[i + j] for j in range(8)]
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for p in products[end:]:
            total += p
        return total
    half = n // 2 - (n // 2) % 8
    return _reference(products[:half]) + _reference(products[half:])


def _reference_dot(a, b):
    """Return ``a . b`` in the reference's order: exact products, chunks of 8192 in turn."""
    products = [float(u) * float(v) for u, v in zip(a, b)]
    total = 0.0
    for lo in range(0, len(products), 8192):
        total = total + _reference(products[lo:lo + 8192])
    return total


def _data(rng, shape):
    """Values over many magnitudes and signs, with zeros: sums whose order shows."""
    values = rng.normal(size=shape) * np.exp(3.0 * rng.normal(size=shape))
    return values * (rng.random(shape) < 0.8)


@pytest.mark.parametrize('d', LENGTHS)
def test_numpy_rows_and_the_loop_code_equal_the_reference_bit_for_bit(d):
    rng = np.random.default_rng(d)
    rows, x = _data(rng, (3, d)), _data(rng, d)
    want = [_reference_dot(row, x) for row in rows]
    got = reductions.row_dots(rows, x)
    assert got.tolist() == want
    assert [reductions.row_dot(row, x) for row in rows] == want
    # Stacked (settings, labels, d) arrays, as UCWLGrid sums them.
    assert reductions.row_dots(np.stack([rows, rows[::-1]]), x).tolist() == [want, want[::-1]]
    if d <= 1000:  # the loop code in Python is slow
        assert [reductions.pairwise_dot(row, x) for row in rows] == want


def test_the_sums_are_not_plain_left_to_right_sums():
    # The reference would pass any test if every order gave the same bits: it does not.
    rng = np.random.default_rng(0)
    a, b = _data(rng, 300), _data(rng, 300)
    left_to_right = 0.0
    for u, v in zip(a, b):
        left_to_right += float(u) * float(v)
    assert _reference_dot(a, b) != left_to_right


def test_the_compiled_sums_equal_the_reference_on_many_random_shapes():
    pytest.importorskip('numba', reason='numba (the [fast] extra) is not installed')
    steps = compilation.compiled_steps()
    if steps is None:
        pytest.skip(f'{compilation.ENV_SWITCH}=0 in the environment')
    rng = np.random.default_rng(7)
    shapes = LENGTHS + rng.integers(1, 3000, 200).tolist()
    for d in shapes:
        a, b = _data(rng, d), _data(rng, d)
        want = _reference_dot(a, b)
        assert steps.pairwise_dot(a, b) == want, d
        assert reductions.row_dot(a, b) == want, d


@pytest.mark.parametrize('compiled', [False, True])
def test_two_interleaved_rows_are_summed_as_the_reference_sums_each(compiled):
    two = reductions.two_block_dots
    if compiled:
        pytest.importorskip('numba', reason='numba (the [fast] extra) is not installed')
        steps = compilation.compiled_steps()
        if steps is None:
            pytest.skip(f'{compilation.ENV_SWITCH}=0 in the environment')
        two = steps.two_block_dots
    rng = np.random.default_rng(3)
    for d in range(8, reductions.BLOCK + 1):
        a, x, b, y = (_data(rng, d) for _ in range(4))
        if d % 5 == 0:  # products all -0.0: the sum is 0.0 + (-0.0), as pairwise_dot's
            a[:], x[:] = 0.0, -np.abs(x) - 1.0
        got = np.array(two(np.stack([b, a]), np.stack([a, b]), 1, x, y, d))
        want = np.array([_reference_dot(a, x), _reference_dot(b, y)])
        assert got.tobytes() == want.tobytes(), d  # bit for bit, the sign of a zero too


# A UCWL stream in a fresh process, whose BLAS is told which kernel to use; it prints the
# kernel it got, every decision and the learned state's bytes (hashed).
STREAM = textwrap.dedent("""
    import hashlib, json, sys
    import numpy as np
    from banditlearn_ros.learning import UCWL
    try:
        import threadpoolctl
        blas = [i.get('architecture') for i in threadpoolctl.threadpool_info()
                if i.get('internal_api') == 'openblas']
    except ImportError:
        blas = []
    rng = np.random.default_rng(5)
    d, K, n = 124, 6, 1500
    X = rng.random((n, d)) * (rng.random((n, d)) < 0.5)
    y = (X @ rng.normal(size=(K, d)).T).argmax(axis=1)
    learner = UCWL(K, d, seed=3)
    decisions = []
    for t in range(n):
        p = learner.select(X[t])
        decisions.append(p.index)
        learner.learn(X[t], p.index, bool(p.index == y[t]) != (t % 9 == 0), p)
    state = hashlib.sha256(learner._mu.tobytes() + learner._sigma.tobytes()).hexdigest()
    print(json.dumps({'blas': blas, 'decisions': decisions, 'state': state}))
""")


def _run_stream(coretype, compiled):
    env = dict(os.environ, OPENBLAS_CORETYPE=coretype, BANDITLEARN_COMPILED=compiled)
    result = subprocess.run([sys.executable, '-c', STREAM], capture_output=True, text=True,
                            timeout=300, cwd=ROOT, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize('compiled', ['0', '1'])
@pytest.mark.slow
def test_decisions_do_not_depend_on_the_cpu_kernel_of_blas(compiled):
    if platform.machine() not in ('x86_64', 'AMD64'):
        pytest.skip('OPENBLAS_CORETYPE names x86 kernels')
    old, new = _run_stream('Prescott', compiled), _run_stream('Haswell', compiled)
    if not old['blas'] or old['blas'] == new['blas']:
        pytest.skip(f'OPENBLAS_CORETYPE did not change the BLAS kernel ({old["blas"]})')
    assert new['decisions'] == old['decisions']
    assert new['state'] == old['state']
