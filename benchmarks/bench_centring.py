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
How to centre: warm-up, decay, outlier clipping and scaling of the mean taken out of vectors.

Run: ``nice -n 5 .venv/bin/python benchmarks/bench_centring.py [--permutations 20]``

UCWL with one question per round (the papers' protocol, Ngo et al., section 5) on digits,
wine and iris at label noise 0 and 0.2, over a 108-setting sub-grid of the papers' grid
(C in 2^-5..2^5 in steps of 4, eta 0.6/0.75/0.9, k 0.2..2.8); every variant sees the same
permutations and answers.  The figure is the online mistake rate (%) of the best setting
averaged over the permutations (an optimistic figure, the same optimism for every
variant: it compares transforms, not tuned learners).  Variants, each applied in
presentation order with no look-ahead:

- ``none``: the vectors as given (the papers);
- ``running``: minus the mean of the vectors so far, the current one included (the
  package's ``centring: running``; the first vector becomes zeros);
- ``previous``: minus the mean of the vectors before the current one (the first is shown
  raw);
- ``fixed50``: ``running`` for 50 vectors, then frozen (``centring: fixed``);
- ``ema100``: a mean that forgets (steps of 1/min(n, 100));
- ``clipped``: ``running`` whose update clips each feature's deviation at three running
  mean absolute deviations (robust to outliers);
- ``running/2``, ``running/4``, ``running/sqrt(d)``: ``running`` divided by a constant;
- ``standardised``: minus the running mean, divided by the running standard deviation.

``--outliers P`` replaces a fraction P of the vectors (the same ones for every variant) by
the vector times 5, to see what an outlier does to each mean.
"""

import argparse
import time

from banditlearn_ros.learning.algorithms.centring import Centring
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.offline.evaluation_streams import make_streams, Stream
from banditlearn_ros.learning.offline.ucwl_grid_run import run_grid
from banditlearn_ros.learning.protocol.feedback import TeacherModel
import numpy as np

GRID = [(eta, C, k) for C in [2.0 ** e for e in (-5, -3, -1, 1, 3, 5)]
        for eta in (0.6, 0.75, 0.9) for k in (0.2, 0.6, 1.0, 1.4, 2.0, 2.8)]


def _running(X, include=True, window=0, clip=0.0, freeze=0):
    mean = np.zeros(X.shape[1])
    spread = np.zeros(X.shape[1])
    out = np.empty_like(X)
    n = 0
    for t, x in enumerate(X):
        if not include:
            out[t] = x - mean if n else x
        if not freeze or n < freeze:
            n += 1
            step = 1.0 / (min(n, window) if window else n)
            dev = x - mean
            if clip and n > 10:
                bound = clip * np.maximum(spread, 1e-12)
                dev = np.clip(dev, -bound, bound)
            mean = mean + step * dev
            spread = spread + step * (np.abs(x - mean) - spread)
        if include:
            out[t] = x - mean
    return out


def _standardised(X):
    mean = np.zeros(X.shape[1])
    sq = np.zeros(X.shape[1])
    out = np.empty_like(X)
    for t, x in enumerate(X):
        n = t + 1
        delta = x - mean
        mean = mean + delta / n
        sq = sq + delta * (x - mean)
        std = np.sqrt(sq / n)
        out[t] = np.where(std > 1e-9, (x - mean) / np.where(std > 1e-9, std, 1.0), 0.0)
    return out


VARIANTS = {
    'none': lambda X: X,
    'running': lambda X: Centring('running').centre_sequence(X),
    'previous': lambda X: _running(X, include=False),
    'fixed50': lambda X: Centring('fixed', 50).centre_sequence(X),
    'ema100': lambda X: _running(X, window=100),
    'clipped': lambda X: _running(X, clip=3.0),
    'running/2': lambda X: Centring('running').centre_sequence(X) / 2.0,
    'running/4': lambda X: Centring('running').centre_sequence(X) / 4.0,
    'running/sqrt(d)': lambda X: Centring('running').centre_sequence(X) / np.sqrt(X.shape[1]),
    'standardised': _standardised,
}


def transformed(X, streams, transform, outliers, seed):
    """Return one block of transformed rows per stream, and streams reading them in order."""
    blocks, out, start = [], [], 0
    for s in streams:
        rows = X[s.order].copy()
        if outliers:
            hit = np.random.default_rng([seed, s.index, 7]).random(len(rows)) < outliers
            rows[hit] *= 5.0
        blocks.append(transform(rows))
        out.append(Stream(s.index, np.arange(start, start + len(s)), s.y_true, s.y_obs,
                          s.u_silent, s.u_flip, s.seed))
        start += len(s)
    return np.concatenate(blocks), out


def main() -> None:
    """Print one table: data set x noise rows, one column per variant."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    p.add_argument('--permutations', type=int, default=20)
    p.add_argument('--datasets', nargs='+', default=['digits', 'wine', 'iris'])
    p.add_argument('--noise', nargs='+', type=float, default=[0.0, 0.2])
    p.add_argument('--outliers', type=float, default=0.0)
    p.add_argument('--variants', nargs='+', default=list(VARIANTS))
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args()
    eta, C, k = (list(v) for v in zip(*GRID))
    print(f'{len(GRID)} settings, {args.permutations} permutations, outliers {args.outliers}')
    print('| data | noise | ' + ' | '.join(args.variants) + ' |')
    print('|' + '---|' * (2 + len(args.variants)))
    for name in args.datasets:
        X, y, labels = load_dataset(name)
        X = np.asarray(X, dtype=np.float64)
        for noise in args.noise:
            teacher = TeacherModel(label_noise=noise)
            streams = make_streams(y, len(labels), teacher, args.permutations, args.seed)
            cells = []
            for variant in args.variants:
                start = time.perf_counter()
                Xt, st = transformed(X, streams, VARIANTS[variant], args.outliers, args.seed)
                res = run_grid(Xt, st, teacher, len(labels), eta, C, k)
                rate = res['mistakes_observed'].mean(axis=1) / len(y)
                best = int(np.argmin(rate))
                cells.append(f'{100 * rate[best]:.1f}')
                print(f'  {name} p={noise} {variant}: {100 * rate[best]:.2f} % at '
                      f'eta={eta[best]} C={C[best]:g} k={k[best]} '
                      f'({time.perf_counter() - start:.0f} s)', flush=True)
            print(f'| {name} | {noise:g} | ' + ' | '.join(cells) + ' |', flush=True)


if __name__ == '__main__':
    main()
