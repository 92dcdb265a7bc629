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
What pruning saves in the tuning grid: the full grid and the pruned one, in turn, same process.

Run: ``nice -n 10 .venv/bin/python benchmarks/bench_grid_prune.py [--dataset digits]
[--permutations 20] [--jobs 1]``

For ``ucwl`` (centred) and ``ucwl-paper``, the paper's 1485 settings over ``--permutations``
tuning permutations, as ``evaluation_tuning.tune`` runs them: ``run_grid`` without and with
``prune`` (``learning/offline/ucwl_grid_prune``), CPU seconds of this process and its
workers, the setting-rounds the pruned grid ran (scout included) as a share of the full
grid's, and whether the tuned setting (the lowest mean observed mistake rate, ties to the
first) and the finished settings' counts are the full grid's.
"""

import argparse
import resource
import time

from banditlearn_ros.learning import TeacherModel
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.offline.evaluation import core_algorithm
from banditlearn_ros.learning.offline.evaluation_streams import centred_streams, tuning_streams
from banditlearn_ros.learning.offline.evaluation_tuning import grid_settings
from banditlearn_ros.learning.offline.ucwl_grid_run import run_grid
import numpy as np


def cpu_seconds() -> float:
    """CPU of this process and of the children it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def compare(name: str, dataset: str, permutations: int, jobs: int) -> None:
    """Print the full and the pruned grid of one algorithm, measured in turn."""
    X, y, labels = load_dataset(dataset)
    teacher = TeacherModel()
    algorithm = core_algorithm(name, teacher)
    settings = grid_settings(algorithm.grid, algorithm.fixed)
    X, streams = centred_streams(np.asarray(X, dtype=np.float64),
                                 tuning_streams(y, len(labels), teacher, permutations, 0),
                                 algorithm.centring)
    args = (X, streams, teacher, len(labels), [s['eta'] for s in settings],
            [s['C'] for s in settings], [s['k'] for s in settings])
    kwargs = {'no_weight': settings[0]['no_weight'] if 'no_weight' in settings[0]
              else 'ramp', 'jobs': jobs}
    results = {}
    for prune in (False, True):
        cpu, wall = cpu_seconds(), time.perf_counter()
        results[prune] = run_grid(*args, prune=prune, **kwargs)
        cpu, wall = cpu_seconds() - cpu, time.perf_counter() - wall
        label = 'pruned' if prune else 'full'
        print(f'  {name:<11} {label:<7} CPU {cpu:6.1f} s  wall {wall:6.1f} s', flush=True)
    full, pruned = results[False], results[True]
    done = pruned['complete']
    totals = full['mistakes_observed'].sum(axis=1)
    share = pruned['rounds'].sum() / (len(settings) * len(streams) * len(streams[0].order))
    tally = np.where(done, pruned['mistakes_observed'].sum(axis=1), np.iinfo(np.int64).max)
    same = (np.argmin(tally) == np.argmin(totals) and all(
        np.array_equal(pruned[key][done], full[key][done])
        for key in ('mistakes_observed', 'mistakes_true', 'updates')))
    print(f'  {name:<11} setting-rounds run: {share:.3f} of the full grid; {done.sum()} of '
          f'{len(settings)} settings finished; tuned setting and finished counts the full '
          f"grid's: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--dataset', default='digits')
    parser.add_argument('--permutations', type=int, default=20)
    parser.add_argument('--jobs', type=int, default=1)
    args = parser.parse_args()
    print(f'tuning grid on {args.dataset}, {args.permutations} tuning permutations, '
          f'--jobs {args.jobs} (CPU: this process and its workers)')
    for name in ('ucwl', 'ucwl-paper'):
        compare(name, args.dataset, args.permutations, args.jobs)


if __name__ == '__main__':
    main()
