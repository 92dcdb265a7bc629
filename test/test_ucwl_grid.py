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

"""UCWLGrid must take exactly the decisions of the reference UCWL, setting by setting."""

from banditlearn_ros.learning import TeacherModel, UCWL
from banditlearn_ros.learning.algorithms.base import HyperparameterError
from banditlearn_ros.learning.offline import ucwl_grid
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.offline.evaluation import run_learner
from banditlearn_ros.learning.offline.evaluation_streams import make_stream
from banditlearn_ros.learning.offline.synsep import make_synsep
from banditlearn_ros.learning.offline.ucwl_grid import UCWLGrid
from banditlearn_ros.learning.offline.ucwl_grid_run import run_grid
import numpy as np
import pytest

# The grid and the reference do the same arithmetic in a different order (batched einsum vs one
# dot product per label; BLAS picks its summation order by CPU), so their floating state may
# differ by a few units in the last place per step. Decisions are compared exactly; the state
# with this relative tolerance, far below what one wrong or missing step changes (>= 1e-6).
STATE_RTOL = 1e-9
STATE_ATOL = 1e-12

SETTINGS = [  # (eta, C, k): paper corners, an interior point, and k=0 (ties everywhere)
    (0.95, 1.0, 2.8), (0.55, 2.0 ** -5, 0.2), (0.95, 32.0, 3.0), (0.75, 0.5, 1.4),
    (0.6, 4.0, 0.0),
]


def _lockstep(X, stream, teacher, n_labels, variant, diagonal, rounds, no_weight='equal'):
    """Step the grid and one reference learner per setting side by side."""
    eta, C, k = (np.array(v) for v in zip(*SETTINGS))
    grid = UCWLGrid(n_labels, X.shape[1], eta, C, k, [stream.seed] * len(SETTINGS), variant,
                    diagonal, no_weight)
    refs = [UCWL(n_labels, X.shape[1], eta=e, C=c, k=kk, variant=variant, diagonal=diagonal,
                 seed=stream.seed, no_weight=no_weight)
            for e, c, kk in SETTINGS]
    for t in range(min(rounds, len(stream))):
        x = X[stream.order[t]]
        chosen = grid.select(x)
        preds = [r.select(x) for r in refs]
        assert chosen.tolist() == [p.index for p in preds], f'round {t}'
        silent = stream.u_silent[t] < teacher.no_answer
        right = chosen == stream.y_obs[t]
        said = right != (stream.u_flip[t] < np.where(right, teacher.rho1, teacher.rho0))
        if silent:
            continue
        changed = grid.learn(x, chosen, said)
        ref_changed = [r.learn(x, p.index, bool(s), p) for r, p, s in zip(refs, preds, said)]
        assert changed.tolist() == ref_changed, f'round {t}'
    for i, ref in enumerate(refs):
        assert grid.n_updates[i] == ref.n_updates
        np.testing.assert_allclose(grid.mu[i], ref._mu, rtol=STATE_RTOL, atol=STATE_ATOL)
        np.testing.assert_allclose(grid.sigma[i], ref._sigma, rtol=STATE_RTOL,
                                   atol=STATE_ATOL)


@pytest.mark.parametrize('name,teacher,variant,diagonal,rounds,no_weight', [
    ('digits', TeacherModel(), 'scw1', 'precision', 600, 'equal'),
    ('digits', TeacherModel(), 'scw1', 'variance', 600, 'equal'),
    ('digits', TeacherModel(label_noise=0.2, no_answer=0.1), 'scw2', 'precision', 400, 'equal'),
    ('digits', TeacherModel(label_noise=0.2, no_answer=0.1), 'scw2', 'variance', 400, 'equal'),
    ('wine', TeacherModel(rho0=0.2, rho1=0.4), 'scw1', 'precision', 178, 'equal'),
    ('synsep', TeacherModel(label_noise=0.1), 'scw1', 'variance', 300, 'equal'),
    ('digits', TeacherModel(label_noise=0.2), 'scw1', 'precision', 600, 'balanced'),
    ('wine', TeacherModel(label_noise=0.1), 'scw2', 'precision', 178, 'balanced'),
    ('digits', TeacherModel(label_noise=0.1), 'scw1', 'precision', 600, 'sqrt'),
    ('digits', TeacherModel(label_noise=0.2, no_answer=0.1), 'scw1', 'precision', 600, 'ramp'),
    ('wine', TeacherModel(label_noise=0.1), 'scw2', 'variance', 178, 'ramp'),
])
def test_same_decisions_and_state_as_reference(name, teacher, variant, diagonal, rounds,
                                               no_weight):
    if name == 'synsep':
        X, y, labels = make_synsep(400, seed=3)
    else:
        X, y, labels = load_dataset(name)
    stream = make_stream(y, len(labels), teacher, index=1, seed=7)
    _lockstep(X, stream, teacher, len(labels), variant, diagonal, rounds, no_weight)


@pytest.mark.parametrize('diagonal', ['precision', 'variance'])
def test_run_grid_counts_equal_reference_runs(diagonal):
    X, y, labels = load_dataset('iris')
    teacher = TeacherModel(label_noise=0.1, rho0=0.1, no_answer=0.2)
    streams = [make_stream(y, 3, teacher, p, seed=2) for p in range(2)]
    eta, C, k = zip(*SETTINGS)
    out = run_grid(X, streams, teacher, 3, eta, C, k, diagonal=diagonal, block=2)
    for s, (e, c, kk) in enumerate(SETTINGS):
        for p, stream in enumerate(streams):
            params = {'eta': e, 'C': c, 'k': kk, 'diagonal': diagonal}
            ref = run_learner('ucwl', params, X, stream, teacher, 3)
            assert out['mistakes_observed'][s, p] == ref.mistakes_observed
            assert out['mistakes_true'][s, p] == ref.mistakes_true
            assert out['updates'][s, p] == ref.updates


def test_workers_are_not_forked_from_this_process():
    """A fork of a process holding DDS threads can hang: workers come from a fork server."""
    import os

    from banditlearn_ros.learning.offline import workers
    with workers.pool(1) as pool:
        parent = pool.submit(os.getppid).result(timeout=600)
    assert parent != os.getpid()


def test_worker_processes_give_the_same_numbers():
    X, y, labels = load_dataset('iris')
    teacher = TeacherModel()
    streams = [make_stream(y, 3, teacher, p, seed=5) for p in range(2)]
    eta, C, k = zip(*SETTINGS)
    one = run_grid(X, streams, teacher, 3, eta, C, k, block=3, jobs=1)
    two = run_grid(X, streams, teacher, 3, eta, C, k, block=3, jobs=2)
    for key in one:
        np.testing.assert_array_equal(one[key], two[key])


@pytest.mark.parametrize('kwargs', [
    {'eta': [0.5], 'C': [1.0], 'k': [1.0]},
    {'eta': [0.9], 'C': [0.0], 'k': [1.0]},
    {'eta': [0.9], 'C': [1.0], 'k': [-1.0]},
    {'eta': [0.9, 0.8], 'C': [1.0], 'k': [1.0]},
    {'eta': [0.9], 'C': [1.0], 'k': [1.0], 'diagonal': 'inverse'},
    {'eta': [0.9], 'C': [1.0], 'k': [1.0], 'no_weight': 'half'},
])
def test_invalid_settings_are_refused(kwargs):
    n = max(len(v) for v in kwargs.values() if isinstance(v, list))
    with pytest.raises(HyperparameterError):
        UCWLGrid(3, 4, seeds=[0] * n, **kwargs)


@pytest.mark.parametrize('variant,diagonal', [('scw1', 'precision'), ('scw2', 'variance')])
def test_compiled_block_steps_equal_the_numpy_grid_bit_for_bit(variant, diagonal):
    kernels = ucwl_grid.grid_kernels()
    if kernels is None:
        pytest.skip('numba is not installed (or BANDITLEARN_COMPILED=0): no compiled grid')
    X, y, labels = load_dataset('digits')
    teacher = TeacherModel(label_noise=0.2, no_answer=0.1)
    stream = make_stream(y, len(labels), teacher, index=1, seed=7)
    eta, C, k = (np.array(v) for v in zip(*SETTINGS))
    grids = [UCWLGrid(len(labels), X.shape[1], eta, C, k, [7] * len(eta), variant, diagonal,
                      compiled=compiled) for compiled in (False, True)]
    assert grids[0]._kernels is None and grids[1]._kernels is kernels
    for t in range(500):
        x = X[stream.order[t]]
        chosen = [g.select(x) for g in grids]
        assert chosen[0].tolist() == chosen[1].tolist(), f'round {t}'
        if stream.u_silent[t] < teacher.no_answer:
            continue
        active = np.arange(len(eta)) != t % len(eta)  # one setting left out per round
        changed = [g.learn(x, c, c == stream.y_obs[t], active) for g, c in zip(grids, chosen)]
        assert changed[0].tolist() == changed[1].tolist(), f'round {t}'
    np.testing.assert_array_equal(grids[0].n_updates, grids[1].n_updates)
    np.testing.assert_array_equal(grids[0].mu, grids[1].mu)
    np.testing.assert_array_equal(grids[0].sigma, grids[1].sigma)


def test_learn_without_a_select_of_that_x_sums_afresh():
    """The grid reuses select's sums in learn only for the same x; another x is summed."""
    X, y, labels = load_dataset('iris')
    eta, C, k = (np.array(v) for v in zip(*SETTINGS))
    grids = [UCWLGrid(3, X.shape[1], eta, C, k, [0] * len(eta), compiled=False)
             for _ in range(2)]
    for t in range(60):
        chosen = [g.select(X[t]) for g in grids]
        grids[0].learn(X[t + 1], chosen[0], chosen[0] == y[t])
        grids[1]._selected = None  # as if select had never seen any x
        grids[1].learn(X[t + 1], chosen[1], chosen[1] == y[t])
    np.testing.assert_array_equal(grids[0].mu, grids[1].mu)
    np.testing.assert_array_equal(grids[0].sigma, grids[1].sigma)
    assert grids[0].n_updates.sum() > 0


def test_block_size_and_workers_leave_every_count_unchanged():
    X, y, labels = load_dataset('wine')
    teacher = TeacherModel(label_noise=0.1)
    streams = [make_stream(y, 3, teacher, p, seed=2) for p in range(2)]
    eta, C, k = (np.repeat(v, 7) for v in zip(*SETTINGS))  # 35 settings
    one = run_grid(X, streams, teacher, 3, eta, C, k, block=35, jobs=1)
    for block, jobs in ((None, 2), (4, 1), (None, 3)):
        other = run_grid(X, streams, teacher, 3, eta, C, k, block=block, jobs=jobs)
        for key in one:
            np.testing.assert_array_equal(one[key], other[key])
