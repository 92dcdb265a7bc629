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
An interaction's wall time with autosave on, against autosave off, at 1000 labels.

What learner_node's callbacks do per gesture (``LiveLearner``: select, then the yes/no and
its update), timed one by one, three ways in one run: autosave off; autosave every
``--every`` updates written by the writer thread (``learning/live/autosave.py``); and the old
way, the save inside the callback (the baseline).  BLAS is pinned to one thread as in the
node scripts.  Interactions are ``--gap`` seconds apart (a person takes a second or more;
the writer needs the time between them); ``--gap 0`` runs them back to back.

At 1000 x 784 one select reads the model's 12 MB (memory-bound, ~1-3 ms whatever the
saving); the default d = 124 is the size of the VW comparison.

    nice -n 5 .venv/bin/python benchmarks/bench_autosave.py [--interactions 2000] [--gap 0.02]
        [--features 124]
"""

import argparse
import os
from pathlib import Path
import sys
import tempfile
import time

import banditlearn_ros.nodes  # noqa: F401 (one BLAS thread, set before numpy, as in a node)
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'test'))
from test_live_learner import live  # noqa: E402, I100, I202


def run(path: str, every: int, inline: bool, args, rng):
    """Return the wall and the thread's CPU seconds of each interaction of one learner."""
    state, _ = live(path, labels=[f'g{i}' for i in range(args.labels)],
                    feature_size=args.features, autosave_every=every, max_questions=1)
    xs = rng.random((64, args.features))
    times, cpu = np.empty(args.interactions), np.empty(args.interactions)
    for i in range(args.interactions):
        x, answer = xs[i % 64], bool(rng.integers(2))
        start, thread = time.perf_counter(), time.thread_time()
        with state.lock:
            item, reason = state.interaction.predict(x)
        if inline:  # the old callback: ask, and save right there when due
            result, _ = state.interaction.feedback(answer), None
            state.saves.updates_since_save += result.updates
            if state.saves.autosave_due(result.updated, every):
                state.saves.save(state.interaction.learner)
        else:
            state.feedback(answer)
        times[i], cpu[i] = time.perf_counter() - start, time.thread_time() - thread
        if args.gap:
            time.sleep(args.gap)
    state.autosaves.close()
    print(f'  ({state.autosaves.saved or "-"} autosaves written by the writer, '
          f'{state.interaction.learner.n_updates} updates)', flush=True)
    return times, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--labels', type=int, default=1000)
    parser.add_argument('--features', type=int, default=124)
    parser.add_argument('--interactions', type=int, default=2000)
    parser.add_argument('--every', type=int, default=20)
    parser.add_argument('--gap', type=float, default=0.02)
    args = parser.parse_args()
    from banditlearn_ros.learning.engine import compilation
    kernels = compilation.compiled() is not None
    print(f'load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {args.labels} '
          f'labels x {args.features}, {args.interactions} interactions {args.gap} s apart, '
          f'autosave every {args.every} updates; numba kernels {kernels}')
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, every, inline in (('autosave off', 0, False),
                                    ('autosave, writer thread', args.every, False),
                                    ('autosave in the callback', args.every, True)):
            rng = np.random.default_rng(0)
            print(name, flush=True)
            times, cpu = run(str(Path(folder) / f'{every}{inline}.npz'), every, inline, args,
                             rng)
            rows.append((name, *np.percentile(times, [50, 99]), times.max(),
                         *np.percentile(cpu, [50, 99]), cpu.max()))
    print(f'\nload average {os.getloadavg()[0]:.2f}')
    print('interaction (ms)             wall p50    p99    max | thread CPU p50    p99    max')
    for name, *figures in rows:
        print(f'{name:28s} ' + '  '.join(f'{1e3 * f:6.3f}' for f in figures[:3]) + ' | '
              + '  '.join(f'{1e3 * f:6.3f}' for f in figures[3:]))


if __name__ == '__main__':
    main()
