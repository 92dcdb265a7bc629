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
The tuning grid with exact pruning: a setting stops once it can no longer be chosen.

Tuning keeps the setting with the lowest mean observed mistake rate over the tuning streams
(``evaluation_tuning.tune``; ties to the first in grid order).  Mistakes only grow, so when
the streams are equally long and a setting's mistakes so far, summed over every stream,
exceed the total of a setting that ran to the end, its mean is larger than that one's
(by at least one mistake in ``streams x rounds``, far above the rounding of the means) and it
cannot be chosen: it stops, and the settings that can still win run to the end with the
counts they would have had anyway.  Three steps:

1. scout: every setting over the first rounds of the first stream (``SCOUT_SHARE`` of the
   grid's work; the state is thrown away), only to rank them;
2. the ``SEEDS`` best of the scout run to the end on every stream: the first bound;
3. the rest, in tasks whose settings run every stream side by side, ``CHUNK`` rounds of
   each at a time: a learner errs most early on, so its mistakes pile up fastest that way.
   After each chunk the settings over the bound stop and the blocks are packed again
   (``StreamBlock.join``), so the compiled loop stays dense.  A task takes the best total
   known when it is handed out.

Only ``ucwl_grid_rounds``' compiled loop is pruned; ``ucwl_grid_run.run_grid`` decides.
"""

import concurrent.futures
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from .ucwl_grid import UCWLGrid
from .ucwl_grid_rounds import sub_block
from .ucwl_grid_stream import round_kernels, StreamBlock

CHUNK = 50
"""Rounds of each stream between two looks at the bound."""

SEEDS = 8
"""Settings, best of the scout first, run to the end to set the first bound."""

SCOUT_SHARE = 40
"""The scout's rounds: 1/SCOUT_SHARE of the grid's rounds per setting, at most one stream."""

TASK_BUDGET = 64 * 2 ** 20
"""Bytes of learned state (mu and sigma, every stream) a task may hold."""

TASKS_PER_JOB = 8
"""Tasks of step 3 per worker at least: the bound improves as they finish, and the
workers finish together."""

NAMES = ('mistakes_observed', 'mistakes_true', 'updates')

_SHARED: Dict[str, Any] = {}
"""What every task of a grid reads (``share``): sent to each worker once, not per task."""


def share(X: np.ndarray, streams: Sequence, rates: Sequence[float], n_labels: int,
          variant: str, diagonal: str, no_weight: str) -> None:
    """Keep a grid's data for ``run_lockstep`` (a worker's initializer)."""
    _SHARED.clear()
    _SHARED.update(X=X, streams=list(streams), rates=rates, n_labels=n_labels,
                   variant=variant, diagonal=diagonal, no_weight=no_weight)


def run_lockstep(args) -> Dict[str, np.ndarray]:
    """
    Run a block of settings over the first streams side by side; stop those over ``budget``.

    A unit of work for a worker process, on the data of ``share``.  ``args`` = (eta, C, k,
    budget, stop, number of streams).  Returns the counts per setting and stream (S x P;
    those of a stopped setting as far as it ran), ``rounds`` (S: rounds run, all streams)
    and ``complete``: the settings that ran every stream to ``stop`` (all of them when
    ``budget`` is None).
    """
    eta, C, k, budget, stop, n_streams = args
    X, rates, n_labels = _SHARED['X'], _SHARED['rates'], _SHARED['n_labels']
    variant, diagonal, no_weight = (_SHARED[name] for name in ('variant', 'diagonal',
                                                               'no_weight'))
    streams = _SHARED['streams'][:n_streams]
    kernels = round_kernels(X.shape[1])
    params = UCWLGrid(n_labels, X.shape[1], eta, C, k, [0] * len(eta), variant, diagonal,
                      no_weight).setting_params()
    n, P, sub = len(eta), len(streams), sub_block(n_labels)
    rows = [[StreamBlock(kernels, X, st.order, st.y_obs, st.y_true, st.u_silent, st.u_flip,
                         rates, st.seed, k[lo:lo + sub], params[lo:lo + sub], n_labels,
                         no_weight, ids=np.arange(lo, min(n, lo + sub)))
             for lo in range(0, n, sub)] for st in streams]
    out = {name: np.zeros((n, P), dtype=np.int64) for name in NAMES}
    out['rounds'] = np.zeros(n, dtype=np.int64)
    alive = np.ones(n, dtype=bool)
    end = max(min(int(stop), len(st.order)) for st in streams)
    lengths = np.array([len(st.order) for st in streams])
    t = 0
    while t < end and alive.any():
        t = min(t + CHUNK, end)
        so_far = np.zeros(n, dtype=np.int64)
        for row in rows:
            for block in row:
                block.advance(t)
                so_far[block.ids] += block.counts[0]
        if budget is None:
            continue
        over = alive & (so_far > budget)
        if not over.any():
            continue
        out['rounds'][over] = np.minimum(lengths, t).sum()
        for p, row in enumerate(rows):
            _store(out, row, p, over)
            rows[p] = _pack(row, ~over, sub)
        alive &= ~over
    for p, row in enumerate(rows):
        _store(out, row, p, alive)
    out['rounds'][alive] = np.minimum(lengths, t).sum()
    out['complete'] = alive
    return out


def _store(out: Dict[str, np.ndarray], row: List[StreamBlock], p: int,
           which: np.ndarray) -> None:
    """Copy the counts of the settings ``which`` marks from one stream's blocks."""
    for block in row:
        mine = which[block.ids]
        for i, name in enumerate(NAMES):
            out[name][block.ids[mine], p] = block.counts[i, mine]


def _pack(row: List[StreamBlock], keep: np.ndarray, sub: int) -> List[StreamBlock]:
    """Return one stream's blocks holding only the settings ``keep`` marks, ``sub`` each."""
    parts, packed, held = [], [], 0
    for block in row:
        mask = keep[block.ids]
        while mask.any():
            room = sub - held
            take = mask & (np.cumsum(mask) <= room)
            parts.append((block, take))
            held += int(take.sum())
            mask = mask & ~take
            if held == sub:
                packed.append(StreamBlock.join(parts))
                parts, held = [], 0
    if parts:
        packed.append(StreamBlock.join(parts))
    return packed


def _tasks(settings: int, per_setting: int) -> int:
    """Return the fewest tasks that keep each within ``TASK_BUDGET`` bytes of state."""
    return -(-settings * per_setting // TASK_BUDGET)


class _InProcess:
    """``submit`` of an executor that runs the call at once (one job)."""

    def submit(self, fn, *args) -> concurrent.futures.Future:
        future = concurrent.futures.Future()
        future.set_result(fn(*args))
        return future


def run_pruned(X: np.ndarray, streams: Sequence, rates: Sequence[float], n_labels: int,
               eta: np.ndarray, C: np.ndarray, k: np.ndarray, variant: str, diagonal: str,
               no_weight: str, jobs: int = 1,
               progress: Optional[Callable[[int], None]] = None) -> Dict[str, np.ndarray]:
    """
    Run the grid (as ``ucwl_grid_run.run_grid``), stopping settings that cannot be chosen.

    The streams must be equally long.  Returns ``mistakes_observed``, ``mistakes_true`` and
    ``updates`` (S x P), ``complete`` (S): a complete setting's counts are those of the
    full grid; the others stopped part way (their counts are how far they got) because
    their observed mistakes already exceeded a complete setting's total; and ``rounds``
    (S): the rounds each setting ran, the scout's included (the full grid: ``P x n``).
    ``progress`` is called with the (setting, stream) runs finished or stopped.
    """
    S, P = len(eta), len(streams)
    n = len(streams[0].order)
    if any(len(st.order) != n for st in streams):
        raise ValueError('pruning needs streams of one length')
    per_setting = 2 * n_labels * X.shape[1] * 8 * P
    out = {name: np.zeros((S, P), dtype=np.int64) for name in NAMES}
    rounds = np.zeros(S, dtype=np.int64)
    complete = np.zeros(S, dtype=bool)

    def task(idx, budget, stop, n_streams=P):
        return (eta[idx], C[idx], k[idx], budget, stop, n_streams)

    def store(idx, res):
        for name in NAMES:
            out[name][idx] = res[name]
        rounds[idx] += res['rounds']
        complete[idx] = res['complete']
        if progress:
            progress(len(idx) * P)

    def best():
        return int(out['mistakes_observed'][complete].sum(axis=1).min())

    data = (X, streams, rates, n_labels, variant, diagonal, no_weight)
    if jobs > 1:
        from .workers import pool as worker_pool
        executor = worker_pool(jobs, initializer=share, initargs=data)
    else:
        executor = None
        share(*data)
    try:
        ex = executor if executor is not None else _InProcess()
        # 1. The scout ranks every setting on the first rounds of the first stream.
        scout_rounds = min(n, max(CHUNK, -(-n * P // SCOUT_SHARE)))
        parts = np.array_split(np.arange(S), min(S, max(2 * jobs, _tasks(S, per_setting // P))))
        futures = [ex.submit(run_lockstep, task(idx, None, scout_rounds, 1))
                   for idx in parts]
        first = np.concatenate([f.result()['mistakes_observed'][:, 0] for f in futures])
        rounds += np.concatenate([f.result()['rounds'] for f in futures])
        rank = np.argsort(first, kind='stable')
        # 2. The best of the scout run to the end: the first bound.
        seeds = rank[:SEEDS]
        futures = {ex.submit(run_lockstep, task(idx, None, n)): idx
                   for idx in np.array_split(seeds, min(len(seeds),
                                                        max(jobs, _tasks(SEEDS, per_setting))))}
        for future in concurrent.futures.as_completed(futures):
            store(futures[future], future.result())
        # 3. The rest, each task dealt settings of every rank, under the best bound known.
        rest = rank[SEEDS:]
        n_tasks = max(TASKS_PER_JOB * jobs, _tasks(len(rest), per_setting))
        queue = [np.sort(rest[i::n_tasks]) for i in range(min(n_tasks, len(rest)))]
        pending: Dict[concurrent.futures.Future, np.ndarray] = {}
        while queue or pending:
            while queue and len(pending) < max(1, jobs):
                idx = queue.pop(0)
                pending[ex.submit(run_lockstep, task(idx, best(), n))] = idx
            done, _ = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                store(pending.pop(future), future.result())
    finally:
        if executor is not None:
            executor.shutdown()
        _SHARED.clear()
    out['complete'], out['rounds'] = complete, rounds
    return out
