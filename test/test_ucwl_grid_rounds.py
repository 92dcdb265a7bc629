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

"""The settings-innermost rounds loop counts what the numpy UCWLGrid counts, bit for bit."""

from banditlearn_ros.learning import TeacherModel
from banditlearn_ros.learning.engine import compilation
from banditlearn_ros.learning.offline import ucwl_grid_rounds, ucwl_grid_run, ucwl_grid_stream
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.offline.evaluation_streams import centred_streams, make_stream
from banditlearn_ros.learning.offline.ucwl_grid import UCWLGrid
from banditlearn_ros.learning.offline.ucwl_grid_run import run_grid
import numpy as np
import pytest

# Paper corners, interior points and k = 0 (every bound a score: ties while rows are 0).
SETTINGS = [(0.95, 1.0, 2.8), (0.55, 2.0 ** -5, 0.2), (0.95, 32.0, 3.0), (0.75, 0.5, 1.4),
            (0.6, 4.0, 0.0), (0.85, 2.0, 0.6), (0.7, 8.0, 2.2), (0.9, 0.125, 1.0),
            (0.65, 16.0, 0.0), (0.8, 0.25, 2.6), (0.55, 0.5, 3.0)]


def _kernels():
    compiled = compilation.compiled()
    if compiled is None or not compiled.fused:
        pytest.skip('numba is not installed (or BANDITLEARN_COMPILED=0, or its dot products '
                    'are not the fused ones): no compiled rounds')
    kernels = ucwl_grid_stream.round_kernels()
    # With numba there, None means the loop disagreed with the numpy grid: a failure.
    assert kernels is not None, 'the compiled rounds disagree with the numpy UCWLGrid'
    return kernels


def _numpy_grid(X, stream, teacher, n_labels, variant, diagonal, no_weight):
    """Run_block's loop on the numpy UCWLGrid: counts per setting and the grid."""
    eta, C, k = (np.array(v) for v in zip(*SETTINGS))
    grid = UCWLGrid(n_labels, X.shape[1], eta, C, k, [stream.seed] * len(eta), variant,
                    diagonal, no_weight, compiled=False)
    counts = np.zeros((3, len(eta)), dtype=np.int64)
    for t, row in enumerate(stream.order):
        chosen = grid.select(X[row])
        counts[0] += chosen != stream.y_obs[t]
        counts[1] += chosen != stream.y_true[t]
        if stream.u_silent[t] < teacher.no_answer:
            continue
        right = chosen == stream.y_obs[t]
        said = right != (stream.u_flip[t] < np.where(right, teacher.rho1, teacher.rho0))
        grid.learn(X[row], chosen, said)
    counts[2] = grid.n_updates
    return counts, grid


@pytest.mark.parametrize('name,centring,teacher,variant,diagonal,no_weight,rounds', [
    ('digits', 'none', TeacherModel(), 'scw1', 'precision', 'equal', 700),
    ('digits', 'running', TeacherModel(label_noise=0.2, no_answer=0.1), 'scw2', 'variance',
     'equal', 500),
    ('digits', 'running', TeacherModel(rho0=0.1, rho1=0.2), 'scw1', 'precision', 'sqrt', 500),
    ('wine', 'none', TeacherModel(label_noise=0.1), 'scw1', 'variance', 'balanced', 178),
    ('iris', 'running', TeacherModel(no_answer=0.2), 'scw2', 'precision', 'equal', 150),
    ('digits', 'running', TeacherModel(label_noise=0.1), 'scw1', 'precision', 'ramp', 500),
    ('wine', 'running', TeacherModel(rho0=0.2, rho1=0.1), 'scw2', 'variance', 'ramp', 178),
])
def test_rounds_equal_the_numpy_grid(name, centring, teacher, variant, diagonal, no_weight,
                                     rounds):
    """Sparse and centred (dense, signed) vectors, d = 4 (below 8), 13 and 64."""
    kernels = _kernels()
    X, y, labels = load_dataset(name)
    K = len(labels)
    stream = make_stream(y[:rounds], K, teacher, index=1, seed=7)
    X, (stream,) = centred_streams(X[:rounds], [stream], centring)
    X = np.ascontiguousarray(X, dtype=np.float64)
    expected, grid = _numpy_grid(X, stream, teacher, K, variant, diagonal, no_weight)
    rates = (teacher.rho0, teacher.rho1, teacher.no_answer)
    for lo, hi in ((0, len(SETTINGS)), (0, 8), (8, len(SETTINGS)), (3, 4)):
        got = ucwl_grid_stream.run_stream(
            kernels, X, stream.order, stream.y_obs, stream.y_true, stream.u_silent,
            stream.u_flip, rates, stream.seed, grid.k[lo:hi], grid.setting_params()[lo:hi],
            K, state=True, no_weight=no_weight)
        counts = np.array([got['mistakes_observed'], got['mistakes_true'], got['updates']])
        np.testing.assert_array_equal(counts, expected[:, lo:hi])
        np.testing.assert_array_equal(got['mu'], grid.mu[lo:hi])
        np.testing.assert_array_equal(got['sigma'], grid.sigma[lo:hi])
    assert expected[2].min() > 10


def test_run_grid_takes_the_rounds_and_keeps_the_counts(monkeypatch):
    """run_grid with the rounds loop, and with the block steps it replaced: equal counts."""
    _kernels()
    X, y, labels = load_dataset('digits')
    teacher = TeacherModel(label_noise=0.1)
    streams = [make_stream(y[:400], len(labels), teacher, p, seed=3) for p in range(2)]
    X, streams = centred_streams(X[:400], streams, 'running')
    eta, C, k = (np.repeat(v, 3) for v in zip(*SETTINGS))  # 33 settings
    calls = []
    run_stream = ucwl_grid_run.run_stream
    monkeypatch.setattr(ucwl_grid_run, 'run_stream',
                        lambda *args, **kw: calls.append(1) or run_stream(*args, **kw))
    for no_weight in ('ramp', 'equal'):  # the default cap follows each label's answers
        calls.clear()
        monkeypatch.setattr(ucwl_grid_run, 'round_kernels', ucwl_grid_stream.round_kernels)
        rounds = run_grid(X, streams, teacher, len(labels), eta, C, k, block=20,
                          no_weight=no_weight)
        assert calls
        monkeypatch.setattr(ucwl_grid_run, 'round_kernels', lambda n_features: None)
        blocks = run_grid(X, streams, teacher, len(labels), eta, C, k, block=20,
                          no_weight=no_weight)
        for key in blocks:
            np.testing.assert_array_equal(rounds[key], blocks[key])


def test_long_vectors_are_left_to_the_grid():
    """Beyond 128 features numpy sums in halves: the rounds loop does not take them."""
    assert ucwl_grid_stream.round_kernels(ucwl_grid_stream.BLOCK + 1) is None


def test_sub_blocks_are_whole_vectors_of_settings():
    for n_labels in (1, 3, 10, 1000):
        sub = ucwl_grid_rounds.sub_block(n_labels)
        assert sub % ucwl_grid_rounds.LANES == 0 and sub >= ucwl_grid_rounds.LANES
        assert sub == ucwl_grid_rounds.LANES or (
            16 * 8 * n_labels * sub <= ucwl_grid_rounds.SUB_BUDGET)
