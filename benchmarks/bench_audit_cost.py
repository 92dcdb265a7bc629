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
What the audit of young labels' answers costs a taught gesture (``unknown_trust: audit``).

``--labels`` Gaussian classes of ``--features`` features (as the landmark features: 80), each
shown ``--per-label`` times in turn and answered "yes" (``OpenSet.taught``), with
``unknown_trust`` support and then audit, the same stream.  Printed: the thread CPU time of
``taught`` per gesture (median, the largest), and at the gestures that bring a label to an
audit (``answer_audit.AUDITS``), with the ratio audit / support measured in the same run.

    .venv/bin/python benchmarks/bench_audit_cost.py [--features 80] [--labels 8]
"""

import argparse
import platform
import sys
import time

from banditlearn_ros.learning.algorithms import answer_audit
from banditlearn_ros.learning.algorithms.base import Prediction
from banditlearn_ros.learning.algorithms.open_set import OpenSet
import numpy as np


def run(trust: str, features: int, labels: int, per_label: int, seed: int):
    """Return (thread CPU ms of each ``taught`` call, the open set) for one stream."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 3.0, (labels, features))
    open_set = OpenSet(True, warmup=0, trust=trust)
    scores = np.zeros(labels)
    spent = []
    for t in range(labels * per_label):
        i = t % labels
        x = centres[i] + rng.normal(0.0, 1.0, features)
        verdict = open_set.decide(x, Prediction(i, str(i), scores, scores + 1.0, False, i))
        start = time.thread_time()
        open_set.taught(verdict, i, x)
        spent.append(1e3 * (time.thread_time() - start))
    return np.array(spent), open_set


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--features', type=int, default=80)
    parser.add_argument('--labels', type=int, default=8)
    parser.add_argument('--per-label', type=int, default=45)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)
    print(f'# bench_audit_cost: {platform.python_version()}, numpy {np.__version__}; '
          f'{args.labels} labels x {args.features} features, {args.per_label} each')
    at = [(n - 1) * args.labels + i for n in answer_audit.AUDITS if n <= args.per_label
          for i in range(args.labels)]
    out = {}
    for trust in ('support', 'audit'):
        spent, open_set = run(trust, args.features, args.labels, args.per_label, args.seed)
        out[trust] = spent
        print(f'{trust}: taught() {np.median(spent):.3f} ms median, {spent.max():.1f} ms at '
              f'most, {spent.sum():.0f} ms in all; at the audits {np.median(spent[at]):.2f} ms '
              f'median, {spent[at].max():.1f} ms at most; '
              f"audited out {open_set.counts['audited_out']}")
    ratio = np.median(out['audit'][at]) / np.median(out['support'][at])
    print(f"audit / support: {out['audit'].sum() / out['support'].sum():.2f} in all, "
          f'{ratio:.1f} at the audits (median)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
