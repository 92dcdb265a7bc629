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
What a fleet costs a learner, and what merging late loses.

Cost: per size (labels x features), median thread-CPU milliseconds of
``FleetEvidence.share`` plus ``to_text`` (one message out), of ``take_text`` plus ``merge``
(one message in), and of one UCWL round (select and learn through the public API) measured
in the same run as the baseline; the ratios are what to read on a loaded machine.

``--late``: two live learners (the learner node's rules and defaults, ``LiveFleet``), each
taught half of 500 rendered gestures (landmark features, the renderer's skeleton; robot a
fist, one, two, three; robot b four, five, thumbs up), the person always right; they share
from the start, or only after the first N gestures of each.  Printed: first guesses right on
150 held-out gestures, per robot and half.

    .venv/bin/python benchmarks/bench_fleet.py --repeats 30 --late
"""

import argparse
import os
import time

from banditlearn_ros.learning.algorithms.centring import Centring
from banditlearn_ros.learning.algorithms.ucwl import UCWL
from banditlearn_ros.learning.protocol.fleet_evidence import FleetEvidence
import numpy as np

SIZES = ((7, 80), (10, 124), (100, 784))


def taught(labels: int, d: int, seed: int, n: int = 200) -> UCWL:
    """Return a UCWL that has learned ``n`` random interactions."""
    rng = np.random.default_rng(seed)
    learner = UCWL(labels, d, seed=seed)
    learner.centring = Centring('running')
    for _ in range(n):
        x = learner.centring.apply(rng.normal(size=d))
        p = learner.select(x)
        learner.learn(x, p.index, bool(rng.random() < 0.5), p)
    return learner


def cpu_ms(function, repeats: int) -> float:
    """Return the median thread-CPU milliseconds of ``function()``."""
    times = []
    for _ in range(repeats):
        start = time.thread_time()
        function()
        times.append(time.thread_time() - start)
    return 1e3 * float(np.median(times))


def main() -> None:
    """Print the figures, one line per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--repeats', type=int, default=30)
    parser.add_argument('--late', action='store_true', help='also merge late (rendered)')
    args = parser.parse_args()
    print(f'load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores; median thread CPU')
    for labels, d in SIZES:
        a, b = taught(labels, d, 1), taught(labels, d, 2)
        fleet_a, fleet_b = FleetEvidence('a', 'bench'), FleetEvidence('b', 'bench')
        text = fleet_a.share(a).to_text()
        rng = np.random.default_rng(0)
        xs = [b.centring.centre(rng.normal(size=d)) for _ in range(args.repeats)]
        rounds = iter(xs)

        def one_round():
            x = next(rounds)
            p = b.select(x)
            b.learn(x, p.index, True, p)

        round_ms = cpu_ms(one_round, args.repeats)
        share_ms = cpu_ms(lambda: fleet_a.share(a).to_text(), args.repeats)

        def merge():
            fleet_b.take_text(fleet_a.share(a).to_text())  # a newer version each time
            fleet_b.merge(b)

        merge_ms = cpu_ms(merge, args.repeats) - share_ms
        print(f'{labels:4d} labels x {d:4d} features: message {len(text) / 1024:7.1f} KiB; '
              f'share {share_ms:7.3f} ms ({share_ms / round_ms:6.1f} rounds), '
              f'take + merge {merge_ms:7.3f} ms ({merge_ms / round_ms:6.1f} rounds); '
              f'one UCWL round {round_ms:.3f} ms')

    if args.late:
        late()


def late() -> None:
    """Print first guesses per half when the robots merge from the start or only late."""
    import sys
    import tempfile
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))
    from test_live_fleet import first_guesses, robot, teach
    from banditlearn_ros.tools import render_dataset
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, 'g.npz')
        render_dataset.main(['--out', path, '--n', '500', '--features', 'landmarks',
                             '--landmarks', 'truth', '--width', '320', '--height', '240',
                             '--seed', '3', '--no-progress'])
        data = np.load(path)
        X, y, names = data['X'].astype(float), data['y'], [str(n) for n in data['labels']]
    halves = (names[:4], names[4:])
    for centring in ('running', 'none'):
        for delay in (0, 20, 60, 120):
            robots = [robot(names, n, 'both', centring=centring) for n in 'ab']
            streams = [[(x, names[t]) for x, t in zip(X[:350], y[:350]) if names[t] in h]
                       for h in halves]
            for t in range(max(map(len, streams))):
                for r in (0, 1):
                    if t < len(streams[r]):
                        teach(robots[r][0], *streams[r][t])
                if t >= delay:
                    for s in (0, 1):
                        text = robots[s][1].share_text()
                        if text:
                            robots[1 - s][1].take_text(text)
            right = [[round(first_guesses(lv, X[350:], y[350:], names, h), 3) for h in halves]
                     for lv, _ in robots]
            print(f'centring {centring:7s} first merge after {delay:3d} gestures each: '
                  f'robot a (own, other) {right[0]}, robot b (other, own) {right[1]}')


if __name__ == '__main__':
    main()
