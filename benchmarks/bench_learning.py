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
Per-update cost of UCWL beside Vowpal Wabbit, and the time of the paper's tuning grid.

Run: ``.venv/bin/python benchmarks/bench_learning.py [--jobs 2] [--permutations 20]``

1. For d=64/K=10 (digits), d=110/K=6 (the GESTURE features of seed 000) and d=784/K=10
   (MNIST) on random [0, 1] features: microseconds per round of the reference UCWL
   (``select`` + ``learn`` from Python), of ``UCWLGrid`` per setting when 1485 settings
   step together, and of Vowpal Wabbit ``--cbify K --epsilon 0.05`` called from Python
   (``parse`` + ``learn``), all measured in this run as CPU time of this process (so
   other load on the machine changes them little), with ratios to VW.
2. The whole UCWL grid (11 x 9 x 15 = 1485 settings) x N permutations on digits, one pass:
   wall seconds, CPU seconds (this process and its workers) and microseconds per update.
   On a machine shared with other work the wall time grows; the CPU time does not.
"""

import argparse
import os
import platform
import resource
import time

from banditlearn_ros.learning import TeacherModel, UCWL
from banditlearn_ros.learning.datasets import load_dataset
from banditlearn_ros.learning.evaluation import grid_settings, GRIDS, make_stream, make_streams
from banditlearn_ros.learning.ucwl_grid import run_grid
import numpy as np

SHAPES = [(64, 10), (110, 6), (784, 10)]


def cpu_seconds() -> float:
    """User + system CPU time of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def data(d: int, K: int, n: int, seed: int = 0):
    """Random features in [0, 1] with labels from a random linear rule (learnable)."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) * (rng.random((n, d)) < 0.5)
    W = rng.normal(size=(K, d))
    return X, (X @ W.T).argmax(axis=1)


def ucwl_python(X, y, K) -> float:
    """Return microseconds per round of the reference learner (select + learn)."""
    learner = UCWL(K, X.shape[1], eta=0.95, C=1.0, k=2.8, seed=0)
    start = time.process_time()
    for x, label in zip(X, y):
        p = learner.select(x)
        learner.learn(x, p.index, p.index == label, p)
    return 1e6 * (time.process_time() - start) / len(y)


def ucwl_grid(X, y, K) -> float:
    """Return microseconds per setting-round of UCWLGrid on the paper's 1485 settings."""
    settings = grid_settings(GRIDS['ucwl'], {})
    stream = make_stream(y, K, TeacherModel(), 0, seed=0)
    start = time.process_time()
    run_grid(X, [stream], TeacherModel(), K, [s['eta'] for s in settings],
             [s['C'] for s in settings], [s['k'] for s in settings])
    return 1e6 * (time.process_time() - start) / (len(settings) * len(y))


def vowpal(X, y, K) -> float:
    """Return microseconds per example of VW --cbify K --epsilon 0.05 from Python."""
    try:
        import vowpalwabbit
    except ImportError:
        return float('nan')
    lines = [' '.join(f'f{j}:{v:.9g}' for j, v in enumerate(row) if v) for row in X]
    vw = vowpalwabbit.Workspace(f'--cbify {K} --epsilon 0.05 --quiet --random_seed 1')
    start = time.process_time()
    for text, label in zip(lines, y):
        ex = vw.parse(f'{label + 1} | {text}')
        vw.learn(ex)
        ex.get_prediction()
        vw.finish_example(ex)
    seconds = time.process_time() - start
    vw.finish()
    return 1e6 * seconds / len(y)


def main() -> None:
    """Print the per-update table and the grid timing."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--jobs', type=int, default=2, help='worker processes for the grid')
    parser.add_argument('--permutations', type=int, default=20)
    parser.add_argument('--rounds', type=int, default=1000,
                        help='examples per shape for the per-update table')
    parser.add_argument('--skip-grid', action='store_true')
    args = parser.parse_args()
    print(f'machine: {platform.machine()}, {os.cpu_count()} cpus, load average '
          f'{os.getloadavg()[0]:.1f}; numpy {np.__version__}')
    print('\nper-update CPU cost (microseconds of this process), measured in this run:')
    print(f'{"d":>4} {"K":>3} {"UCWL python":>12} {"UCWLGrid/setting":>17} {"VW cbify":>9} '
          f'{"python/VW":>10} {"grid/VW":>8}')
    for d, K in SHAPES:
        X, y = data(d, K, args.rounds)
        py = ucwl_python(X, y, K)
        grid = ucwl_grid(X[:300], y[:300], K)
        vw = vowpal(X, y, K)
        print(f'{d:>4} {K:>3} {py:>12.1f} {grid:>17.2f} {vw:>9.1f} {py / vw:>10.2f} '
              f'{grid / vw:>8.3f}')
    if args.skip_grid:
        return
    X, y, labels = load_dataset('digits')
    K = len(labels)
    settings = grid_settings(GRIDS['ucwl'], {})
    streams = make_streams(y, K, TeacherModel(), args.permutations, seed=0)
    updates = len(settings) * len(y) * len(streams)
    wall, cpu = time.perf_counter(), cpu_seconds()
    out = run_grid(X, streams, TeacherModel(), K, [s['eta'] for s in settings],
                   [s['C'] for s in settings], [s['k'] for s in settings], jobs=args.jobs)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    best = int(np.argmin(out['mistakes_observed'].sum(axis=1)))
    print(f'\nUCWL grid on digits: {len(settings)} settings x {len(streams)} permutations x '
          f'{len(y)} rounds = {updates / 1e6:.1f} M setting-rounds, {args.jobs} jobs')
    print(f'wall {wall:.1f} s ({1e6 * wall / updates:.2f} us per update), CPU {cpu:.1f} s '
          f'({1e6 * cpu / updates:.2f} us per update); load average now '
          f'{os.getloadavg()[0]:.1f}')
    print(f'best in-sample setting {settings[best]}: '
          f'{100 * out["mistakes_observed"][best].mean() / len(y):.1f} % (not a tuned '
          f'result: tuning uses a separate permutation)')


if __name__ == '__main__':
    main()
