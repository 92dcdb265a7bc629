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

"""UCWLGrid at hundreds of labels: ties over >= 256 labels, decisions equal to UCWL."""

from banditlearn_ros.learning import TeacherModel, UCWL
from banditlearn_ros.learning.offline import ucwl_grid_run
from banditlearn_ros.learning.offline.evaluation_streams import make_stream
from banditlearn_ros.learning.offline.ucwl_grid import UCWLGrid
from banditlearn_ros.learning.offline.ucwl_grid_run import choose_block, run_grid
import numpy as np
import pytest

# k = 0 keeps every untouched label tied with the others, so ties over 256..K labels occur.
# Decisions are compared exactly; the state, whose sums the grid and the reference may
# associate differently (a few units in the last place per step), within this tolerance.
STATE_RTOL, STATE_ATOL = 1e-9, 1e-12
SETTINGS = [(0.95, 1.0, 2.8), (0.6, 4.0, 0.0), (0.75, 0.5, 1.4)]


def _data(K, d=12, n=None, seed=0):
    rng = np.random.default_rng(seed)
    n = n or 2 * K
    X = rng.random((n, d)) * (rng.random((n, d)) < 0.6)
    y = np.arange(n) % K
    rng.shuffle(y)
    return X, y


@pytest.mark.parametrize('K,variant,diagonal', [
    (256, 'scw1', 'precision'), (300, 'scw1', 'precision'), (300, 'scw2', 'variance'),
    (1000, 'scw1', 'precision'), (1000, 'scw1', 'variance'),
])
@pytest.mark.slow
def test_grid_equals_reference_at_many_labels(K, variant, diagonal):
    X, y = _data(K)
    teacher = TeacherModel(rho0=0.1)
    stream = make_stream(y, K, teacher, index=0, seed=4)
    eta, C, k = (np.array(v) for v in zip(*SETTINGS))
    grid = UCWLGrid(K, X.shape[1], eta, C, k, [stream.seed] * len(SETTINGS), variant, diagonal)
    refs = [UCWL(K, X.shape[1], eta=e, C=c, k=kk, variant=variant, diagonal=diagonal,
                 seed=stream.seed) for e, c, kk in SETTINGS]
    tie_sizes = []
    for t in range(len(stream.order)):
        x = X[stream.order[t]]
        preds = [r.select(x) for r in refs]
        tie_sizes.append(int(np.count_nonzero(preds[1].bounds == preds[1].bounds.max())))
        chosen = grid.select(x)
        assert chosen.tolist() == [p.index for p in preds], f'round {t}'
        right = chosen == stream.y_obs[t]
        said = right != (stream.u_flip[t] < np.where(right, teacher.rho1, teacher.rho0))
        changed = grid.learn(x, chosen, said)
        assert changed.tolist() == [r.learn(x, p.index, bool(s), p)
                                    for r, p, s in zip(refs, preds, said)], f'round {t}'
    # The stream did go through ties of 256 and more labels (where a uint8 count wraps).
    assert 256 in tie_sizes or 257 in tie_sizes
    for i, ref in enumerate(refs):
        assert grid.n_updates[i] == ref.n_updates
        np.testing.assert_allclose(grid.mu[i], ref._mu, rtol=STATE_RTOL, atol=STATE_ATOL)
        np.testing.assert_allclose(grid.sigma[i], ref._sigma, rtol=STATE_RTOL,
                                   atol=STATE_ATOL)


def test_run_grid_at_1000_labels_with_a_budget_block():
    K = 1000
    X, y = _data(K, n=600, seed=1)
    teacher = TeacherModel()
    streams = [make_stream(y, K, teacher, 0, seed=2)]
    eta, C, k = zip(*SETTINGS)
    out = run_grid(X, streams, teacher, K, eta, C, k, block=None)
    for s, (e, c, kk) in enumerate(SETTINGS):
        ref = UCWL(K, X.shape[1], eta=e, C=c, k=kk, seed=streams[0].seed)
        wrong = 0
        for t in range(len(y)):
            x = X[streams[0].order[t]]
            p = ref.select(x)
            wrong += p.index != streams[0].y_obs[t]
            ref.learn(x, p.index, bool(p.index == streams[0].y_obs[t]), p)
        assert out['mistakes_observed'][s, 0] == wrong
        assert out['updates'][s, 0] == ref.n_updates


@pytest.mark.parametrize('K,d', [(10, 64), (10, 784), (100, 784), (1000, 784), (1000, 4096)])
def test_block_follows_the_memory_budgets(K, d):
    cache, memory = 8 * 2 ** 20, 512 * 2 ** 20
    block = choose_block(K, d, cache, memory)
    per_setting = 2 * K * d * 8
    assert 1 <= block <= ucwl_grid_run.MAX_BLOCK
    assert block * per_setting <= memory or block == 1
    if block * per_setting > cache:  # over the cache budget only to reach the minimum block
        assert block == ucwl_grid_run.MIN_BLOCK or block == memory // per_setting
    else:  # within it: as large as fits, up to the cap
        assert (block + 1) * per_setting > cache or block == ucwl_grid_run.MAX_BLOCK
