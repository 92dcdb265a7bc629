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

``--stray``: one stray vector (every value 1e6, or 3e38) among normal ones, through the
learner node's own path (``LiveLearner``, its defaults: three questions, a faultless
person).  Per order: ``--taught`` gestures, then the stray (unanswered, answered "no" or
answered "yes"), then 20 gestures whose first guesses are counted, in memory and after a
restart from the saved model; the same order without the stray is the reference.  Printed
per centring (``running``, the plain ``mean``, ``none``): first guesses right of 20, mean
over the orders, and the worst order's difference from the reference.  Also the largest
distance from the mean in spreads that a normal vector reached (what ``OUTLIER_LIMIT``
must stay above), in random and class-sorted orders.

    .venv/bin/python benchmarks/bench_centring.py --stray [--stray-data digits sign_digits]
"""

import argparse
import time

from banditlearn_ros.learning.algorithms.centring import Centring
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.offline.evaluation_streams import make_streams, Stream
from banditlearn_ros.learning.offline.ucwl_grid_run import run_grid
from banditlearn_ros.learning.protocol.teacher_model import TeacherModel
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


def _stray_data(name):
    """Return (X, y, names) of ``digits`` or ``sign_digits`` (bench_unknown's landmarks)."""
    if name == 'sign_digits':
        from bench_unknown import load as load_unknown
        return load_unknown('sign_digits', 0)
    X, y, names = load_dataset(name)
    return np.asarray(X, dtype=np.float64), y, list(names)


def _first_guesses(X, y, names, order, taught, mode, stray, answer, restart, path):
    """Return first guesses right over the 20 gestures after ``taught`` and a stray vector."""
    import os

    from banditlearn_ros.learning.live import learner_parameters as lp
    from banditlearn_ros.learning.live.live_learner import LiveLearner

    class Quiet:
        def __getattr__(self, _):
            return lambda *a, **k: None

    if os.path.exists(path):
        os.remove(path)
    specs = lp.HEAD_SPECS + tuple(lp.hyperparameter_specs()) + lp.TAIL_SPECS
    values = {spec.name: spec.default for spec in specs}  # the node's defaults
    values.update(labels=list(names), centring=mode)
    state = LiveLearner(values.__getitem__, path if restart else '', Quiet())

    def show(x, label):
        inter = state.interaction
        item, _ = inter.predict(x, now=0.0)
        right = item.prediction.index == label
        result = inter.feedback(right, now=0.0)
        while result.next_round is not None:
            result = inter.feedback(result.next_round.prediction.index == label, now=0.0)
        return right

    for t in order[:taught]:
        show(X[t], y[t])
    if stray is not None:
        item, _ = state.interaction.predict(np.full(X.shape[1], stray), now=0.0)
        result = item is not None and answer is not None and \
            state.interaction.feedback(answer, now=0.0)
        while result and result.next_round is not None:
            result = state.interaction.feedback(answer, now=0.0)
    if restart:
        state.save()
        state = LiveLearner(values.__getitem__, path, Quiet())
    return sum(show(X[t], y[t]) for t in order[taught:taught + 20])


def _spread_ratio(X, order):
    """Return the largest distance from the running mean, in spreads, of a vector in order."""
    centring, worst = Centring('mean'), 0.0
    spread, n = 0.0, 0
    for x in X[order]:
        if centring.mean is not None:
            dist = float(np.linalg.norm(x - centring.mean))
            if n >= 10 and spread > 0:
                worst = max(worst, dist / spread)
            n += 1
            spread += (dist - spread) / n
        centring.apply(x)
    return worst


def stray_main(args) -> None:
    """Print the stray-vector figures per data set (see the module text)."""
    import tempfile
    path = tempfile.mkdtemp(prefix='bench_centring_') + '/model.npz'
    cases = [(None, None)] + [(v, a) for v in (1e6, 3e38) for a in (None, False, True)]
    for name in args.stray_data:
        X, y, names = _stray_data(name)
        orders = [np.random.default_rng([args.seed, r]).permutation(len(y))
                  for r in range(args.orders)]
        ratios = [_spread_ratio(X, o) for o in orders]
        sorted_ratios = [_spread_ratio(X, o[np.argsort(y[o], kind='stable')])
                         for o in orders]
        print(f'\n## {name}: {X.shape[0]} x {X.shape[1]}, {len(names)} labels; {args.orders} '
              f'orders, {args.taught} taught then one stray vector then 20 counted')
        print(f'largest distance of a normal vector from the mean: {max(ratios):.2f} spreads '
              f'(random orders), {max(sorted_ratios):.2f} (class-sorted orders)')
        print('| centring | restart | no stray | ' + ' | '.join(
            f'{v:g} {"unanswered" if a is None else ("yes" if a else "no")}'
            for v, a in cases[1:]) + ' |')
        print('|' + '---|' * (2 + len(cases)))
        for mode in ('running', 'mean', 'none'):
            for restart in (False, True):
                start = time.perf_counter()
                table = np.array([[_first_guesses(X, y, names, o, args.taught, mode, v, a,
                                                  restart, path) for v, a in cases]
                                  for o in orders], dtype=float)
                ref = table[:, :1]
                cells = [f'{100 * table[:, 0].mean() / 20:.1f} %']
                for j in range(1, len(cases)):
                    worst = np.abs(table[:, j:j + 1] - ref).max()
                    cells.append(f'{100 * table[:, j].mean() / 20:.1f} % '
                                 f'(worst {100 * worst / 20:.0f} pt)')
                print(f'| {mode} | {"yes" if restart else "no"} | ' + ' | '.join(cells) +
                      f' |  ({time.perf_counter() - start:.0f} s)', flush=True)


def main() -> None:
    """Print one table: data set x noise rows, one column per variant."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    p.add_argument('--stray', action='store_true', help='the stray-vector figures instead')
    p.add_argument('--stray-data', nargs='+', default=['digits', 'sign_digits'],
                   choices=['digits', 'wine', 'iris', 'sign_digits'])
    p.add_argument('--orders', type=int, default=10)
    p.add_argument('--taught', type=int, default=200)
    p.add_argument('--permutations', type=int, default=20)
    p.add_argument('--datasets', nargs='+', default=['digits', 'wine', 'iris'])
    p.add_argument('--noise', nargs='+', type=float, default=[0.0, 0.2])
    p.add_argument('--outliers', type=float, default=0.0)
    p.add_argument('--variants', nargs='+', default=list(VARIANTS))
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args()
    if args.stray:
        stray_main(args)
        return
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
