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
Per-message cost of UCWL beside Vowpal Wabbit, the grid's cost, and how the grid scales.

Run: ``.venv/bin/python benchmarks/bench_learning.py [--jobs 2] [--permutations 20]
[--scaling]``

1. Per message, for d=124/K=6 (about the GESTURE features of Ngo et al. 2013), d=784/K=10 (MNIST)
   and d=124/K=1000 on random [0, 1] features, all measured in this run as CPU time of this
   process (other load on the machine changes them less than wall time), best of
   ``--repeats``, microseconds per round (one feature vector and its yes/no):
   Vowpal Wabbit ``--cbify K --epsilon 0.05`` from Python (``parse`` + ``learn``);
   UCWL through the public API (``select`` + ``learn``), with the compiled steps
   (``learning/engine/ucwl_kernels``, when numba is installed) and with the numpy round; the
   learner node's path without ROS (``Interaction.predict`` on the float32 array a
   Float32MultiArray carries, the details message as JSON, ``Interaction.feedback``), the
   same without the details message ("no details"), and the plain algorithm
   (``algorithms/ucwl.py``, no engine: what the engine's numpy round and kernels buy).
   Each UCWL path runs a short warm-up first (numba compiles on first use).  The learner
   is ``UCWL``'s default (SCW-I, the precision diagonal, ``no_weight='ramp'``) with the
   paper's eta, C and k; its vectors are not centred (the node's default, ``centring:
   running``, is ``Interaction``'s work, outside the API columns).
2. ``UCWLGrid`` per setting-round when the paper's 1485 settings step together, and the
   whole grid x N permutations on digits: wall and CPU seconds, microseconds per
   setting-round (a round of one setting; it updates only when eq. (4) is violated).
3. ``--scaling``: microseconds per setting-round of the grid for d 64..4096 and K 5..1000
   with the block ``choose_block`` picks, and the memory the old fixed block of 512 would
   have held.
4. ``--evaluate-grid`` (alone): the digits grid through ``banditlearn_evaluate --jobs N``
   against one job on the numpy grid, or (``--baseline-source DIR --pairs N``) against
   another version of the code run in turn, wall and CPU seconds of the command and all
   its processes, results compared.
5. ``--numpy-round --baseline-source DIR`` (alone): the numpy round of another version's
   ``UCWL`` (DIR's ``learning/algorithms``, loaded beside this code's) and this code's, run
   in turn ``--pairs`` times in this process with a VW run after each, learned state
   compared bit for bit.  The learner is ``UCWL``'s default (SCW-I, the precision diagonal,
   ``no_weight='ramp'``), eta 0.95, C 1, k 2.8; ``--centred`` gives it (and VW) the vectors
   the learner node's default ``centring: running`` makes (``Centring.centre_sequence``,
   outside the timing) instead of the raw ones.  ``--compiled-round`` does the same for
   the round on the compiled steps (numba; each version compiles its own).
6. ``--start-methods`` (alone): the digits grid through ``run_grid(jobs=N)`` with workers
   from the fork server (``learning/offline/workers``, the fork server started in this run) and
   forked from this process as before, wall seconds, results compared.
"""

import argparse
from array import array
import atexit
import os
import platform
import resource
import time

from banditlearn_ros.learning import TeacherModel, UCWL
from banditlearn_ros.learning.engine import compilation, FastUCWL
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.offline.evaluation_streams import make_stream, make_streams
from banditlearn_ros.learning.offline.evaluation_tuning import grid_settings, GRIDS
from banditlearn_ros.learning.offline.ucwl_grid_run import choose_block, run_grid
from banditlearn_ros.learning.protocol.details import details_json
from banditlearn_ros.learning.protocol.interaction import Interaction
import numpy as np

SHAPES = [(124, 6), (784, 10), (124, 1000)]
WARM_UP = 200


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


def make_ucwl(K: int, d: int, compiled: bool, plain: bool = False) -> UCWL:
    """
    Return UCWL with the paper's defaults: on the engine's compiled steps or numpy round.

    ``plain``: the plain algorithm (``algorithms/ucwl.py``), no engine.
    """
    if plain:
        return UCWL(K, d, eta=0.95, C=1.0, k=2.8, seed=0)
    old = os.environ.get(compilation.ENV_SWITCH)
    os.environ[compilation.ENV_SWITCH] = '1' if compiled else '0'
    try:
        return FastUCWL(K, d, eta=0.95, C=1.0, k=2.8, seed=0)
    finally:
        if old is None:
            del os.environ[compilation.ENV_SWITCH]
        else:
            os.environ[compilation.ENV_SWITCH] = old


def ucwl_api(X, y, K, compiled: bool, plain: bool = False) -> float:
    """Return microseconds per round of ``select`` + ``learn``."""
    def run(learner, rows):
        for x, label in rows:
            p = learner.select(x)
            learner.learn(x, p.index, p.index == label, p)
    run(make_ucwl(K, X.shape[1], compiled, plain), zip(X[:WARM_UP], y[:WARM_UP]))
    learner = make_ucwl(K, X.shape[1], compiled, plain)
    start = time.process_time()
    run(learner, zip(X, y))
    return 1e6 * (time.process_time() - start) / len(y)


def node_path(X, y, K, compiled: bool, details: bool = True) -> float:
    """Return microseconds per round of the learner node's work without ROS."""
    messages = [array('f', row) for row in X]  # what a Float32MultiArray's data is

    def run(interaction, rows):
        for data, label in rows:
            item, _ = interaction.predict(data)
            if details:
                details_json(item, 0.0)
            interaction.feedback(bool(item.prediction.index == label))
    d = X.shape[1]
    run(Interaction(lambda n: make_ucwl(K, n, compiled)), zip(messages[:WARM_UP], y))
    interaction = Interaction(lambda n: make_ucwl(K, n, compiled), n_features=d)
    start = time.process_time()
    run(interaction, zip(messages, y))
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


def per_message(rounds: int, repeats: int) -> None:
    """Print the per-message table (part 1)."""
    kernels = compilation.compiled()
    compiled = kernels is not None
    kind = ('not installed (numpy only)' if not compiled else
            'numba, one call per step, pairwise sums' if kernels.fused else
            'numba, dot products by numpy')
    print(f'\nper-message CPU cost, microseconds per round, best of {repeats}, this run; '
          f'compiled steps: {kind}')
    print(f'{"d":>4} {"K":>5} {"VW cbify":>9} {"API":>7} {"API/VW":>7} {"numpy API":>10} '
          f'{"numpy/VW":>9} {"node path":>10} {"node/VW":>8} {"node/API":>9} '
          f'{"no details":>11} {"plain API":>10} {"plain/VW":>9}')
    for d, K in SHAPES:
        n = rounds if K < 100 else max(rounds // 4, WARM_UP)
        X, y = data(d, K, n)
        vw = min(vowpal(X, y, K) for _ in range(repeats))
        api = min(ucwl_api(X, y, K, compiled) for _ in range(repeats))
        ref = min(ucwl_api(X, y, K, False) for _ in range(repeats)) if compiled else api
        node = min(node_path(X, y, K, compiled) for _ in range(repeats))
        bare = min(node_path(X, y, K, compiled, False) for _ in range(repeats))
        plain = min(ucwl_api(X, y, K, False, plain=True) for _ in range(repeats))
        print(f'{d:>4} {K:>5} {vw:>9.1f} {api:>7.1f} {api / vw:>7.2f} {ref:>10.1f} '
              f'{ref / vw:>9.2f} {node:>10.1f} {node / vw:>8.2f} {node / api:>9.2f} '
              f'{bare:>11.1f} {plain:>10.1f} {plain / vw:>9.2f}')
    print(f'load average now {os.getloadavg()[0]:.1f}')


def scaling() -> None:
    """Print the grid's cost per setting-round over d and K (part 3)."""
    print('\nUCWLGrid scaling: microseconds per setting-round (64 settings, one stream, the '
          'block choose_block picks); CPU time of this process')
    print(f'{"d":>5} {"K":>5} {"rounds":>6} {"block":>6} {"block MB":>9} {"us":>9} '
          f'{"us/(K d) ns":>12} {"512 would hold":>15}')
    S = 64
    rng = np.random.default_rng(0)
    eta, C, k = rng.uniform(0.55, 0.95, S), 2.0 ** rng.uniform(-5, 5, S), rng.uniform(0, 3, S)
    for d in (64, 256, 1024, 4096):
        for K in (5, 50, 1000):
            rounds = int(min(2000, max(4, 4e8 / (S * K * d))))
            X, y = data(d, K, rounds, seed=1)
            stream = make_stream(y, K, TeacherModel(), 0, seed=0)
            block = choose_block(K, d)
            start = time.process_time()
            run_grid(X, [stream], TeacherModel(), K, eta, C, k)
            us = 1e6 * (time.process_time() - start) / (S * rounds)
            print(f'{d:>5} {K:>5} {rounds:>6} {block:>6} '
                  f'{min(block, S) * 2 * K * d * 8 / 1e6:>9.1f} {us:>9.2f} '
                  f'{1e3 * us / (K * d):>12.3f} {512 * 2 * K * d * 8 / 1e9:>12.2f} GB')


def main() -> None:
    """Print the per-message table, the grid timing and (asked for) the scaling table."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--jobs', type=int, default=2, help='worker processes for the grid')
    parser.add_argument('--permutations', type=int, default=20)
    parser.add_argument('--rounds', type=int, default=2000,
                        help='examples per shape for the per-message table')
    parser.add_argument('--repeats', type=int, default=3,
                        help='runs per measurement; the best is printed')
    parser.add_argument('--skip-grid', action='store_true')
    parser.add_argument('--scaling', action='store_true',
                        help='also print the grid scaling table (a few minutes)')
    parser.add_argument('--evaluate-grid', action='store_true',
                        help='only time the digits grid through banditlearn_evaluate (--jobs, '
                             '--permutations), against one job on the numpy grid')
    parser.add_argument('--baseline-source', default='',
                        help='with --evaluate-grid: a folder with another version of the '
                             'package (e.g. git archive main) to run beside this code')
    parser.add_argument('--pairs', type=int, default=0,
                        help='with --baseline-source: baseline/this-code runs in turn')
    parser.add_argument('--numpy-round', action='store_true',
                        help='only compare the numpy round at d=124, K=6 with that of '
                             '--baseline-source, in one process (--pairs, default 10)')
    parser.add_argument('--grid-phases', action='store_true',
                        help='only run the digits grid of banditlearn_evaluate in this process '
                             '(one job, --permutations) and print the CPU of each phase')
    parser.add_argument('--compiled-round', action='store_true',
                        help='as --numpy-round, for the round on the compiled steps (numba)')
    parser.add_argument('--all-shapes', action='store_true',
                        help='with --numpy-round or --compiled-round: every shape of the '
                             'per-message table')
    parser.add_argument('--centred', action='store_true',
                        help='with --numpy-round or --compiled-round: the vectors centred as '
                             "the node's default centring (running mean) centres them")
    parser.add_argument('--start-methods', action='store_true',
                        help='only time the digits grid through run_grid (--jobs, '
                             '--permutations) with workers from the fork server and forked')
    args = parser.parse_args()
    if args.start_methods:
        start_methods(args.jobs, args.permutations)
        return
    if args.evaluate_grid:
        evaluate_grid(args.jobs, args.permutations, args.baseline_source, args.pairs or 1)
        return
    if args.grid_phases:
        grid_phases(args.permutations)
        return
    if args.numpy_round or args.compiled_round:
        for d, K in SHAPES if args.all_shapes else SHAPES[:1]:
            round_pairs(args.baseline_source, args.pairs or 10, d, K, 3000 if K < 100 else 500,
                        args.centred, args.compiled_round)
        return
    print(f'machine: {platform.machine()} {platform.processor() or ""}, {os.cpu_count()} cpus, '
          f'load average {os.getloadavg()[0]:.1f}; python {platform.python_version()}, '
          f'numpy {np.__version__}, OPENBLAS_CORETYPE={os.environ.get("OPENBLAS_CORETYPE")}')
    per_message(args.rounds, args.repeats)
    print('\nUCWLGrid, 1485 settings stepped together (300 rounds):')
    for d, K in SHAPES[:2]:
        X, y = data(d, K, 300)
        print(f'  d={d} K={K}: {ucwl_grid(X, y, K):.2f} us per setting-round')
    if args.scaling:
        scaling()
    if args.skip_grid:
        return
    X, y, labels = load_dataset('digits')
    K = len(labels)
    settings = grid_settings(GRIDS['ucwl'], {})
    streams = make_streams(y, K, TeacherModel(), args.permutations, seed=0)
    setting_rounds = len(settings) * len(y) * len(streams)
    wall, cpu = time.perf_counter(), cpu_seconds()
    out = run_grid(X, streams, TeacherModel(), K, [s['eta'] for s in settings],
                   [s['C'] for s in settings], [s['k'] for s in settings], jobs=args.jobs)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    best = int(np.argmin(out['mistakes_observed'].sum(axis=1)))
    updates = int(out['updates'].sum())
    print(f'\nUCWL grid on digits: {len(settings)} settings x {len(streams)} permutations x '
          f'{len(y)} rounds = {setting_rounds / 1e6:.1f} M setting-rounds '
          f'({updates / 1e6:.1f} M updates), {args.jobs} jobs')
    print(f'wall {wall:.1f} s ({1e6 * wall / setting_rounds:.2f} us per setting-round), '
          f'CPU {cpu:.1f} s ({1e6 * cpu / setting_rounds:.2f} us per setting-round, '
          f'{1e6 * cpu / updates:.2f} us per update); load average now '
          f'{os.getloadavg()[0]:.1f}')
    print(f'best in-sample setting {settings[best]}: '
          f'{100 * out["mistakes_observed"][best].mean() / len(y):.1f} % (not a tuned '
          f'result: tuning uses a separate permutation)')


def round_pairs(baseline_source: str, pairs: int, d: int = 124, K: int = 6,
                n: int = 3000, centred: bool = False, compiled: bool = False) -> None:
    """
    Print the round of ``baseline_source``'s UCWL and of this code, in turn (part 5).

    The numpy round, or with ``compiled`` the round on the compiled steps (each copy
    compiles its own).  Both run in this process (the machine's load moves a cell by up
    to 2x between runs of the script, more than the difference): the baseline's
    ``learning/algorithms`` folder is copied into a temporary package and imported beside
    this code's.  After each pair a VW run; every pair's learned state must be equal bit
    for bit.
    """
    import importlib
    import shutil
    import sys
    import tempfile
    if not baseline_source:
        raise SystemExit('--numpy-round and --compiled-round need --baseline-source DIR '
                         '(e.g. git archive main)')
    # Imported once: a second shape finds it in sys.modules.  Removed at exit, not before:
    # the compiled copy caches its machine code there.
    folder = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, folder, True)
    shutil.copytree(os.path.join(baseline_source, 'banditlearn_ros', 'learning', 'algorithms'),
                    os.path.join(folder, 'baseline_algorithms'))
    sys.path.insert(0, folder)
    try:
        old = importlib.import_module('baseline_algorithms.ucwl').UCWL
    finally:
        sys.path.remove(folder)
    X, y = data(d, K, n)
    if centred:  # what the learner node's default centring gives the learner
        from banditlearn_ros.learning.algorithms.centring import Centring
        X = Centring('running').centre_sequence(X)
    os.environ[compilation.ENV_SWITCH] = '1' if compiled else '0'
    kind = 'compiled' if compiled else 'numpy'

    def run(cls):
        learner = cls(K, d, eta=0.95, C=1.0, k=2.8, seed=0)
        if (getattr(learner, '_kernels', None) is not None) != compiled:
            raise SystemExit(f'{cls.__module__}: not the {kind} round (is numba installed?)')
        start = time.process_time()
        for x, label in zip(X, y):
            p = learner.select(x)
            learner.learn(x, p.index, p.index == label, p)
        return 1e6 * (time.process_time() - start) / n, learner
    run(old)
    run(FastUCWL)
    rows = []
    for _ in range(pairs):
        (a, first), (b, second) = run(old), run(FastUCWL)
        if not (np.array_equal(first._mu, second._mu)
                and np.array_equal(first._sigma, second._sigma)
                and first.n_updates == second.n_updates):
            raise SystemExit(f'the two learners differ: not the same {kind} round')
        rows.append((vowpal(X, y, K), a, b))
    vw, base, new = np.array(rows).T
    print(f'\n{kind} round, d={d} K={K}, {n} {"centred " if centred else ""}rounds, '
          f'{pairs} pairs (baseline, this code, VW); '
          f'us per round (process CPU), medians: VW {np.median(vw):.1f}, baseline '
          f'{np.median(base):.1f} ({np.median(base / vw):.2f}x VW), this code '
          f'{np.median(new):.1f} ({np.median(new / vw):.2f}x VW)')
    print(f'this code / baseline per pair: median {np.median(new / base):.3f}; this code / VW '
          f'per pair: {np.min(new / vw):.2f}..{np.max(new / vw):.2f}; fastest of each: VW '
          f'{vw.min():.1f}, baseline {base.min():.1f}, this code {new.min():.1f}; learned '
          f'state equal in every pair; load average now {os.getloadavg()[0]:.1f}')


def grid_phases(permutations: int) -> None:
    """
    Print where ``banditlearn_evaluate``'s digits grid spends its CPU (one job, this process).

    Each ``run_grid`` call (one per tuning grid) is timed; the rest is start-up (imports,
    the data, loading and checking the compiled kernels) and the permutations of the
    tuned settings.
    """
    from banditlearn_ros.learning.offline import ucwl_grid_run
    from banditlearn_ros.tools import evaluate
    import tempfile
    real = ucwl_grid_run.run_grid
    grids = []

    def timed(X, streams, teacher, n_labels, eta, *args, **kwargs):
        cpu = cpu_seconds()
        out = real(X, streams, teacher, n_labels, eta, *args, **kwargs)
        grids.append((len(eta), len(streams) * len(streams[0].order), cpu_seconds() - cpu))
        return out
    ucwl_grid_run.run_grid = timed
    wall, cpu = time.perf_counter(), cpu_seconds()
    with tempfile.TemporaryDirectory() as folder:
        evaluate.main(['--datasets', 'digits', '--algorithms', 'ucwl', '--tuning-permutations',
                       str(permutations), '--permutations', str(permutations), '--jobs', '1',
                       '--no-figures', '--no-progress', '--out', folder])
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    ucwl_grid_run.run_grid = real
    print(f'\nbanditlearn_evaluate digits grid, one job, in this process: CPU {cpu:.1f} s, wall '
          f'{wall:.1f} s (load average now {os.getloadavg()[0]:.1f})')
    for settings, rounds, seconds in grids:
        print(f'  run_grid {settings} settings x {rounds} rounds: CPU {seconds:.1f} s '
              f'({1e6 * seconds / (settings * rounds):.3f} us per setting-round)')
    print(f"  everything else (start-up, data, kernels, the tuned settings' permutations): "
          f'CPU {cpu - sum(g[2] for g in grids):.1f} s')


def start_methods(jobs: int, permutations: int) -> None:
    """
    Print the digits grid's wall seconds with each way of starting workers (part 5).

    The fork server goes first, so its time includes starting the server and its imports;
    'fork' is how workers started before (a fork of this process).
    """
    from banditlearn_ros.learning.offline import workers
    X, y, labels = load_dataset('digits')
    K = len(labels)
    settings = grid_settings(GRIDS['ucwl'], {})
    streams = make_streams(y, K, TeacherModel(), permutations, seed=0)
    grid = ([s['eta'] for s in settings], [s['C'] for s in settings],
            [s['k'] for s in settings])
    run_grid(X, streams[:1], TeacherModel(), K, *(v[:8] for v in grid))  # compiled here
    print(f'\nrun_grid, digits, 1485 settings x {permutations} permutations, {jobs} jobs')
    outs, walls = [], []
    for method in ('forkserver', 'fork'):
        workers.START_METHOD = method
        wall = time.perf_counter()
        outs.append(run_grid(X, streams, TeacherModel(), K, *grid, jobs=jobs))
        walls.append(time.perf_counter() - wall)
        print(f'  {method:<11} wall {walls[-1]:6.1f} s  (load average now '
              f'{os.getloadavg()[0]:.1f})', flush=True)
    same = all(np.array_equal(outs[0][key], outs[1][key]) for key in outs[0])
    print(f'  fork server / fork: wall {walls[0] / walls[1]:.3f}x; every count identical: '
          f'{same}')


def _adopt_orphans() -> None:
    """
    Make this process reap its orphaned descendants (Linux), so their CPU time is counted.

    ``banditlearn_evaluate --jobs`` forks its workers from a fork server that its main
    process never waits for: without this, the workers' CPU seconds would be missing from
    ``RUSAGE_CHILDREN``.
    """
    import ctypes
    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (AttributeError, OSError):
        print('  (no PR_SET_CHILD_SUBREAPER here: CPU seconds miss the worker processes)')


def _reap() -> None:
    """Wait for every descendant left to this process (see ``_adopt_orphans``)."""
    while True:
        try:
            os.wait()
        except ChildProcessError:
            return


def evaluate_grid(jobs: int, permutations: int, baseline_source: str, pairs: int) -> None:
    """
    Print wall and CPU seconds of the digits grid through ``banditlearn_evaluate`` (part 4).

    The baseline, in the same run: with ``baseline_source`` (a folder holding another
    version's ``banditlearn_ros``, e.g. ``git archive main``), that code with the same
    arguments, the two run in turn ``pairs`` times; else one job on the numpy grid
    (``BANDITLEARN_COMPILED=0``), how the grid ran before ``--jobs`` reached it.  CPU
    seconds are those of the command and every process it started.  Every summary must
    agree.
    """
    import json
    import subprocess
    import sys
    import tempfile
    _adopt_orphans()
    command = [sys.executable, '-m', 'banditlearn_ros.tools.evaluate', '--datasets', 'digits',
               '--algorithms', 'ucwl', '--tuning-permutations', str(permutations),
               '--permutations', str(permutations), '--no-figures', '--no-progress']
    print(f'\nbanditlearn_evaluate, digits, ucwl (and ucwl-paper): 1485 settings x '
          f'{permutations} tuning permutations each, then {permutations} permutations of the '
          f'tuned settings')
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if baseline_source:
        cells = [(f'baseline, --jobs {jobs}', jobs, {'PYTHONPATH': baseline_source}),
                 (f'this code, --jobs {jobs}', jobs, {'PYTHONPATH': here})] * pairs
    else:
        cells = [('numpy grid, --jobs 1', 1, {compilation.ENV_SWITCH: '0'}),
                 (f'this code, --jobs {jobs}', jobs, {compilation.ENV_SWITCH: '1'})]
    records, times = {}, {}
    with tempfile.TemporaryDirectory() as folder:
        for i, (name, n_jobs, env) in enumerate(cells):
            out = os.path.join(folder, str(i))
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall = time.perf_counter()
            subprocess.run(command + ['--jobs', str(n_jobs), '--out', out],
                           env=dict(os.environ, **env), check=True, cwd=folder,
                           stdout=subprocess.DEVNULL)
            wall = time.perf_counter() - wall
            _reap()
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
            times.setdefault(name, []).append((wall, cpu))
            print(f'  {name:<24} wall {wall:6.1f} s  CPU {cpu:6.1f} s  (load average now '
                  f'{os.getloadavg()[0]:.1f})', flush=True)
            with open(os.path.join(out, 'summary.json'), encoding='utf-8') as handle:
                summary = json.load(handle)['records']
            for record in summary:
                record.pop('seconds')
            records.setdefault(name, summary)
    (base, first), (new, second) = times.items()
    ratio = [(a[0] / b[0], a[1] / b[1]) for a, b in zip(first, second)]
    print(f'  {base} / {new}: wall ' + ', '.join(f'{w:.2f}x' for w, _ in ratio)
          + '; CPU ' + ', '.join(f'{c:.2f}x' for _, c in ratio))
    same = all(summary == records[base] for summary in records.values())
    print(f'  tuned settings and every rate identical: {same}')
    for record in records[new]:
        print(f'    {record["algorithm"]:<11} {record["params"]}  observed mistake rate '
              f'{record["mistake_rate_observed"]["mean"]:.4f}')


if __name__ == '__main__':
    main()
