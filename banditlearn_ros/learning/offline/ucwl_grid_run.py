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
Many UCWL settings over the streams of the offline protocol, in blocks and worker processes.

``run_grid`` is what tuning calls (``evaluation.run_ucwl_streams``): each (setting, stream)
pair takes the decisions of ``evaluation.run_learner('ucwl', ...)``; a block of settings
shares one ``UCWLGrid`` per stream, sized from the memory its state needs.
"""

import dataclasses
from typing import Dict, Optional, Sequence

import numpy as np

from .ucwl_grid import DEFAULT_NO_WEIGHT, grid_kernels, UCWLGrid
from .ucwl_grid_prune import run_pruned, SEEDS
from .ucwl_grid_rounds import sub_block
from .ucwl_grid_stream import round_kernels, run_stream


CACHE_BUDGET = 8 * 2 ** 20
"""Bytes of learned state (mu and sigma) a block aims to keep within, so it stays in cache."""

MEMORY_BUDGET = 512 * 2 ** 20
"""Bytes of learned state a block may never exceed (one block per worker process)."""

MIN_BLOCK, MAX_BLOCK = 32, 512
"""Fewer settings leave the per-round Python cost unshared; more gain nothing measurable."""


def choose_block(n_labels: int, n_features: int, cache_budget: int = CACHE_BUDGET,
                 memory_budget: int = MEMORY_BUDGET) -> int:
    """
    Return how many settings to step together, from the size of their state.

    A setting's state is ``mu`` and ``sigma``, ``2 K d`` float64.  The block is as large as
    fits ``cache_budget`` (a larger one streams its state from memory twice per round),
    within ``MIN_BLOCK..MAX_BLOCK``, and never holds more than ``memory_budget``.  Measured
    in docs/benchmarks.md (d 64..4096, K 5..1000).
    """
    per_setting = 2 * int(n_labels) * int(n_features) * 8
    block = min(MAX_BLOCK, max(MIN_BLOCK, int(cache_budget) // per_setting))
    return int(max(1, min(block, int(memory_budget) // per_setting)))


def run_block(args) -> Dict[str, np.ndarray]:
    """Run one block of settings over one stream (a unit of work for a worker process)."""
    X, stream, rates, n_labels, eta, C, k, variant, diagonal, no_weight = args
    rho0, rho1, no_answer = rates
    grid = UCWLGrid(n_labels, X.shape[1], eta, C, k, [stream.seed] * len(eta), variant,
                    diagonal, no_weight)
    kernels = round_kernels(X.shape[1]) if grid.compiled else None
    if kernels is not None:  # the same counts, the settings innermost (ucwl_grid_rounds)
        params, sub = grid.setting_params(), sub_block(n_labels)
        parts = [run_stream(kernels, X, stream.order, stream.y_obs, stream.y_true,
                            stream.u_silent, stream.u_flip, rates, stream.seed,
                            grid.k[lo:lo + sub], params[lo:lo + sub], n_labels,
                            no_weight=no_weight)
                 for lo in range(0, len(eta), sub)]
        return {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}
    n = len(stream.order)
    wrong_obs = np.zeros(len(eta), dtype=np.int64)
    wrong_true = np.zeros(len(eta), dtype=np.int64)
    flip_if_right, flip_if_wrong = rho1, rho0
    for t in range(n):
        x = X[stream.order[t]]
        chosen = grid.select(x)
        y_obs = stream.y_obs[t]
        right = chosen == y_obs
        wrong_obs += ~right
        wrong_true += chosen != stream.y_true[t]
        if stream.u_silent[t] < no_answer:
            continue
        u = stream.u_flip[t]
        if flip_if_right == 0.0 and flip_if_wrong == 0.0:
            said = right
        else:
            said = right != (u < np.where(right, flip_if_right, flip_if_wrong))
        grid.learn(x, chosen, said)
    return {'mistakes_observed': wrong_obs, 'mistakes_true': wrong_true,
            'updates': grid.n_updates.copy()}


def run_grid(X: np.ndarray, streams: Sequence, teacher, n_labels: int,
             eta: Sequence[float], C: Sequence[float], k: Sequence[float],
             variant: str = 'scw1', diagonal: str = 'precision',
             block: Optional[int] = None, jobs: int = 1,
             progress=None, no_weight: str = DEFAULT_NO_WEIGHT,
             prune: bool = False) -> Dict[str, np.ndarray]:
    """
    Run S settings of diagonal UCWL over P streams of the evaluation protocol.

    Each (setting, stream) pair behaves exactly like ``evaluation.run_learner('ucwl', ...)``
    with the stream's seed.  Work is split into blocks of ``block`` settings per stream
    (state of a block: block x K x d x 16 bytes; by default sized from the memory
    budgets of ``choose_block``) and the blocks can run in ``jobs`` worker
    processes.

    Parameters
    ----------
    X : numpy.ndarray
        Features, n x d.
    streams : sequence of evaluation_streams.Stream
        The permutations with the person's randomness.
    teacher : TeacherModel
        Flip rates and no-answer probability (label noise is already in the streams).
    n_labels : int
        Number of labels.
    eta, C, k : sequence of float
        One value per setting.
    variant : {'scw1', 'scw2'}
        SCW step size.
    diagonal : {'precision', 'variance'}
        Diagonalisation step.
    block : int, optional
        Settings stepped together (default: ``choose_block(n_labels, d)``, smaller when
        that would leave fewer than four blocks per worker).
    jobs : int
        Worker processes (1 runs in this process).
    progress : callable, optional
        Called with the number of (setting, stream) runs finished after each block.
    no_weight : {'ramp', 'equal', 'balanced', 'sqrt'}
        Cap of a "no" step (``UCWL``'s ``no_weight``).
    prune : bool
        Stop the settings that can no longer have the lowest mean observed mistake rate
        (``ucwl_grid_prune``; only with the compiled loop and equally long streams).

    Returns
    -------
    dict
        ``mistakes_observed``, ``mistakes_true``, ``updates``: arrays of shape (S, P);
        ``complete`` (S): False for a setting pruned part way (its counts are partial).

    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    eta = np.asarray(eta, dtype=np.float64)
    C = np.asarray(C, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    S, P = len(eta), len(streams)
    rates = (float(teacher.rho0), float(teacher.rho1), float(teacher.no_answer))
    if block is None:
        block = choose_block(n_labels, X.shape[1])
        if jobs > 1:  # enough blocks to keep every worker busy to the end
            per_stream = -(-4 * jobs // P)
            block = min(block, max(MIN_BLOCK, -(-S // per_stream)))
    block = max(int(block), 1)
    grid_kernels()  # compiled (or cached) once here; each worker loads the cache
    rounds = round_kernels(X.shape[1])
    if (prune and rounds is not None and S > SEEDS
            and len({len(stream.order) for stream in streams}) == 1):
        return run_pruned(X, streams, rates, n_labels, eta, C, k, variant, diagonal,
                          no_weight, jobs, progress)
    tasks, where = [], []
    for p, stream in enumerate(streams):
        # A task carries the vectors of its stream only, in its order (centred streams hold
        # one block of rows each: X of every stream would be pickled into every task).
        shown = X[stream.order]
        own = dataclasses.replace(stream, order=np.arange(len(stream.order)))
        for lo in range(0, S, block):
            hi = min(S, lo + block)
            tasks.append((shown, own, rates, n_labels, eta[lo:hi], C[lo:hi], k[lo:hi], variant,
                          diagonal, no_weight))
            where.append((p, lo, hi))
    out = {name: np.zeros((S, P), dtype=np.int64)
           for name in ('mistakes_observed', 'mistakes_true', 'updates')}

    def store(i, res):
        p, lo, hi = where[i]
        for name, arr in res.items():
            out[name][lo:hi, p] = arr
        if progress:
            progress(hi - lo)

    if jobs <= 1 or len(tasks) == 1:
        for i, task in enumerate(tasks):
            store(i, run_block(task))
    else:
        import concurrent.futures
        from .workers import pool as worker_pool
        with worker_pool(jobs) as pool:  # forked from a fork server, not from this process
            futures = {pool.submit(run_block, task): i for i, task in enumerate(tasks)}
            for fut in concurrent.futures.as_completed(futures):
                store(futures[fut], fut.result())
    out['complete'] = np.ones(S, dtype=bool)
    return out
