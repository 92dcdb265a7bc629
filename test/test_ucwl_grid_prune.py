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

"""Pruning the tuning grid changes nothing tuning reports: the same setting, the same rate."""

from banditlearn_ros.learning import TeacherModel
from banditlearn_ros.learning.engine import compilation
from banditlearn_ros.learning.offline import ucwl_grid_prune, ucwl_grid_rounds, ucwl_grid_stream
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.offline.evaluation import core_algorithm
from banditlearn_ros.learning.offline.evaluation_streams import (centred_streams, make_stream,
                                                                 tuning_streams)
from banditlearn_ros.learning.offline.evaluation_tuning import grid_settings, tune
from banditlearn_ros.learning.offline.ucwl_grid import UCWLGrid
from banditlearn_ros.learning.offline.ucwl_grid_run import run_grid
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _compiled():
    compiled = compilation.compiled()
    if compiled is None or not compiled.fused or ucwl_grid_stream.round_kernels() is None:
        pytest.skip('no compiled rounds loop (numba missing or BANDITLEARN_COMPILED=0): '
                    'the grid is never pruned without it')


@pytest.mark.parametrize('dataset, name, n_tuning', [
    ('iris', 'ucwl', 3), ('iris', 'ucwl-paper', 3), ('wine', 'ucwl', 3),
    ('wine', 'ucwl-paper', 3), ('digits', 'ucwl', 2)])
def test_pruned_tuning_picks_the_full_grids_setting(dataset, name, n_tuning):
    X, y, labels = load_dataset(dataset)
    teacher = TeacherModel()
    pruned, full = core_algorithm(name, teacher), core_algorithm(name, teacher)
    full.grid_prune = False
    steps = []
    got = tune(pruned, X, y, len(labels), teacher, seed=3, n_tuning=n_tuning,
               progress=steps.append)
    want = tune(full, X, y, len(labels), teacher, seed=3, n_tuning=n_tuning)
    assert got.params == want.params and got.rate == want.rate
    assert sum(steps) == len(grid_settings(pruned.grid, pruned.fixed)) * n_tuning
    stopped = np.isnan(got.rates).any(axis=1)
    assert stopped.any(), 'nothing was pruned: the test does not test pruning'
    np.testing.assert_array_equal(got.rates[~stopped], want.rates[~stopped])
    # Exact: every stopped setting's full mean is larger than the chosen one's.
    assert np.all(want.rates[stopped].mean(axis=1) > want.rate)


def _grid_inputs(dataset, n_tuning, centring='running'):
    X, y, labels = load_dataset(dataset)
    teacher = TeacherModel()
    Xc, streams = centred_streams(np.asarray(X, dtype=np.float64),
                                  tuning_streams(y, len(labels), teacher, n_tuning, 5),
                                  centring)
    algorithm = core_algorithm('ucwl', teacher)
    settings = grid_settings(algorithm.grid, algorithm.fixed)[::7]
    return Xc, streams, teacher, len(labels), settings


def test_ties_at_the_best_total_are_kept_and_the_first_wins():
    # Every setting twice: each twin counts the same mistakes, so the best total is tied
    # (and more ties besides).  A setting equal to the best is never stopped.
    X, streams, teacher, n_labels, settings = _grid_inputs('wine', 3)
    eta, C, k = ([s[name] for s in settings] * 2 for name in ('eta', 'C', 'k'))
    full = run_grid(X, streams, teacher, n_labels, eta, C, k)
    got = run_grid(X, streams, teacher, n_labels, eta, C, k, prune=True)
    totals = full['mistakes_observed'].sum(axis=1)
    half = len(settings)
    np.testing.assert_array_equal(totals[:half], totals[half:])
    best = totals == totals.min()
    assert best.sum() >= 2 and got['complete'][best].all()
    assert not got['complete'].all()
    for name in ('mistakes_observed', 'mistakes_true', 'updates'):
        np.testing.assert_array_equal(got[name][got['complete']], full[name][got['complete']])
    stopped = ~got['complete']
    assert np.all(totals[stopped] > totals.min())
    assert np.all(got['mistakes_observed'][stopped] <= full['mistakes_observed'][stopped])
    tally = got['mistakes_observed'][got['complete']].sum(axis=1)
    assert np.flatnonzero(got['complete'])[np.argmin(tally)] == np.argmin(totals)
    whole = len(streams) * len(streams[0].order)
    assert np.all(got['rounds'][got['complete']] >= whole)
    assert got['rounds'].sum() < len(eta) * whole


def test_pruning_in_two_workers_chooses_as_one():
    X, streams, teacher, n_labels, settings = _grid_inputs('iris', 4, 'none')
    eta, C, k = ([s[name] for s in settings] for name in ('eta', 'C', 'k'))
    args = {'no_weight': 'equal', 'prune': True}
    one = run_grid(X, streams, teacher, n_labels, eta, C, k, **args)
    two = run_grid(X, streams, teacher, n_labels, eta, C, k, jobs=2, **args)
    full = run_grid(X, streams, teacher, n_labels, eta, C, k, no_weight='equal')
    for got in (one, two):
        keep = got['complete']
        np.testing.assert_array_equal(got['updates'][keep], full['updates'][keep])
        tally = np.where(keep, got['mistakes_observed'].sum(axis=1), np.iinfo(np.int64).max)
        assert np.argmin(tally) == np.argmin(full['mistakes_observed'].sum(axis=1))


def test_a_block_stopped_regrouped_and_resumed_counts_as_one_pass():
    # Ties at the start (k = 0 and rows of 0) are drawn by each setting's own generator,
    # which must follow the setting into its new block.
    X, y, labels = load_dataset('iris')
    teacher = TeacherModel(label_noise=0.1, no_answer=0.1)
    stream = make_stream(y, len(labels), teacher, 0, seed=2)
    eta = np.array([0.95, 0.55, 0.75, 0.6, 0.9, 0.8, 0.7, 0.65, 0.85, 0.6, 0.95])
    C = np.array([1.0, 2.0 ** -5, 32.0, 4.0, 0.5, 2.0, 8.0, 0.25, 16.0, 1.0, 0.125])
    k = np.array([2.8, 0.2, 1.4, 0.0, 3.0, 1.0, 2.0, 0.6, 0.0, 0.0, 1.6])
    params = UCWLGrid(len(labels), X.shape[1], eta, C, k, [0] * len(eta),
                      no_weight='ramp').setting_params()
    kernels = ucwl_grid_stream.round_kernels()
    args = (X, stream.order, stream.y_obs, stream.y_true, stream.u_silent, stream.u_flip,
            (0.0, 0.0, teacher.no_answer), stream.seed)
    whole = ucwl_grid_stream.run_stream(kernels, *args, k, params, len(labels), state=True,
                                        no_weight='ramp')
    parts = [ucwl_grid_stream.StreamBlock(kernels, *args, k[lo:hi], params[lo:hi],
                                          len(labels), 'ramp', ids=np.arange(lo, hi))
             for lo, hi in ((0, 4), (4, 11))]
    for block in parts:
        block.advance(3)
    keep = np.ones(len(k), dtype=bool)
    keep[[1, 6]] = False
    parts = ucwl_grid_prune._pack(parts, keep, 3)  # blocks of 3, 3 and 3
    assert [len(b.k) for b in parts] == [3, 3, 3]
    for block in parts:
        block.advance(40)
        block.advance(len(stream.order))
        for i, setting in enumerate(block.ids):
            assert whole['mistakes_observed'][setting] == block.counts[0, i]
            assert whole['updates'][setting] == block.counts[2, i]
            np.testing.assert_array_equal(whole['mu'][setting], block.mu[:, :, i].T)
            np.testing.assert_array_equal(whole['sigma'][setting], block.sigma[:, :, i].T)
    with pytest.raises(ValueError):
        ucwl_grid_stream.StreamBlock.join([(parts[0], np.ones(3, bool)),
                                           (ucwl_grid_stream.StreamBlock(
                                               kernels, *args, k[:2], params[:2],
                                               len(labels), 'ramp'), np.ones(2, bool))])


def test_tie_draws_are_numpys_and_survive_running_out():
    # draw() from the 32-bit outputs of a seed gives what that seed's Generator.integers
    # gives, call after call (bounds of every size the grid meets, and large ones).
    bounds = np.random.default_rng(11).integers(2, 300, size=3000).tolist() + [2 ** 31 + 5] * 50
    source, at = ucwl_grid_stream.tie_draws(7, 8000), 0
    numpys = np.random.default_rng(7)
    for m in bounds:
        value, at = ucwl_grid_rounds.draw(source, at, m)
        assert value == numpys.integers(m)
    assert ucwl_grid_rounds.draw(source[:0], 0, 5)[1] == -1
    # The same stream of draws through run_stream with a list far too short (the loop must
    # hand its ties to Python, which lengthens the list) counts what a long list counts.
    X, y, labels = load_dataset('iris')
    stream = make_stream(y, len(labels), TeacherModel(), 0, seed=4)
    k = np.array([0.0, 0.0, 1.0, 2.8])
    params = UCWLGrid(len(labels), X.shape[1], [0.9] * 4, [1.0, 0.5, 1.0, 2.0], k,
                      [0] * 4, no_weight='equal').setting_params()
    kernels = ucwl_grid_stream.round_kernels()
    args = (kernels, X, stream.order, stream.y_obs, stream.y_true, stream.u_silent,
            stream.u_flip, (0.0, 0.0, 0.0), stream.seed, k, params, len(labels))
    whole = ucwl_grid_stream.run_stream(*args)
    short = ucwl_grid_stream.StreamBlock(*args)
    short.U = short.U[:2]
    short.advance(len(stream.order))
    assert len(short.U) > 2
    np.testing.assert_array_equal(short.counts[0], whole['mistakes_observed'])
    np.testing.assert_array_equal(short.counts[2], whole['updates'])


def test_tasks_split_to_their_memory_budget_count_the_same(monkeypatch):
    X, streams, teacher, n_labels, settings = _grid_inputs('iris', 2)
    settings = settings[::4]
    eta, C, k = ([s[name] for s in settings] for name in ('eta', 'C', 'k'))
    full = run_grid(X, streams, teacher, n_labels, eta, C, k)
    tasks = []
    run_lockstep = ucwl_grid_prune.run_lockstep
    monkeypatch.setattr(ucwl_grid_prune, 'run_lockstep',
                        lambda args: tasks.append(len(args[0])) or run_lockstep(args))
    monkeypatch.setattr(ucwl_grid_prune, 'TASK_BUDGET', 1)  # one setting a task
    got = run_grid(X, streams, teacher, n_labels, eta, C, k, prune=True)
    assert set(tasks) == {1} and len(tasks) == 2 * len(settings)  # scout, then each again
    keep = got['complete']
    np.testing.assert_array_equal(got['mistakes_observed'][keep], full['mistakes_observed'][keep])
    tally = np.where(keep, got['mistakes_observed'].sum(axis=1), np.iinfo(np.int64).max)
    assert np.argmin(tally) == np.argmin(full['mistakes_observed'].sum(axis=1))
