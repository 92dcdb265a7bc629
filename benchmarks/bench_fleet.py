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
What a fleet costs a learner: sharing its evidence, merging another robot's, message bytes.

Per size (labels x features), median thread-CPU milliseconds of ``FleetEvidence.share`` plus
``to_text`` (one message out), of ``take_text`` plus ``merge`` (one message in), and of one
UCWL round (select and learn through the public API) measured in the same run as the
baseline; the ratios are what to read on a loaded machine.

    .venv/bin/python benchmarks/bench_fleet.py --repeats 30
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


if __name__ == '__main__':
    main()
