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
Teaching ten hand gestures from real photos of many people, as the package would learn them.

The 1000 sign-digit photos (``benchmarks/real_photos.py``; 218 people, 10 classes) go
through the camera node's own extractor with its parameter values (config/params.yaml),
then through the learner node's own state (``LiveLearner`` with its parameter values in the
camera system, config/camera.system.yaml, which ``banditlearn_bringup --camera`` runs; and
with config/params.yaml's alone):
one interaction per photo in which a hand was found, in ``--orders`` seeded orders, each
answer wrong with probability ``--noise``.  Printed per 100 interactions: how often the
first guess was right, and the questions asked per interaction; for the defaults, for one
question per interaction (the papers' protocol) and for full feedback (mSCW told the
label, the same share of labels wrong, centred as the learner node centres) as the limit.
Rows with a subset (``--subsets``) keep some of the features only.  Features are cached
under ``~/.cache/banditlearn_ros``.

    nice -n 5 .venv/bin/python benchmarks/bench_real_photos.py [--orders 10] [--noise 0.1]
        [--extractors auto contour] [--subsets] [--set camera.PARAM=VALUE ...]
        [--set learner.PARAM=VALUE ...] [--misses]

``--misses`` only counts the photos in which MediaPipe finds no hand, for the settings
given by ``--set``.  ``--end-to-end`` runs the user's own path instead
(``real_photos_session``): a video of ``--photos`` photos through
``banditlearn_bringup --camera VIDEO --labels zero,...,nine``, the answers given from the
truth, wrong with probability ``--noise``; ``--bringup-set`` passes ``--set`` options on.
``--source-process`` reads the video in an image source of its own process (frames reach the
nodes between processes, as from a robot's camera driver); ``--busy`` runs one busy loop per
core beside the session. ``--hold-until-taken`` shows the photos from a process of their own
as a person does: each held until camera_node took a presentation from it (at most
``--max-hold`` seconds), the hand down between (``photo_holder.py``).

    nice -n 5 .venv/bin/python benchmarks/bench_real_photos.py --end-to-end [--photos 300] \
        [--source-process] [--busy]
"""

import argparse
import os
from pathlib import Path
import platform
import sys
import time
from typing import Dict, List, Sequence

import numpy as np

try:
    from real_photos import (
        camera_values, extract, LABELS, learner_values, missing_reason, photo_list)
except ImportError:  # run from the project root as a module
    from benchmarks.real_photos import (
        camera_values, extract, LABELS, learner_values, missing_reason, photo_list)


class _Quiet:
    def info(self, *_a, **_k):
        pass

    warning = error = info


def run_live(X: np.ndarray, y: np.ndarray, order: Sequence[int], noise: float, seed: int,
             system: str = 'camera', **learner) -> Dict[str, np.ndarray]:
    """Return per interaction: first guess right (0/1) and questions asked, LiveLearner."""
    from banditlearn_ros.learning.live.live_learner import LiveLearner
    values = learner_values(system, seed=seed, **learner)
    live = LiveLearner(values.__getitem__, '', _Quiet())
    rng = np.random.default_rng(seed + 1)
    right, questions = [], []
    for i in order:
        truth = LABELS[y[i]]
        item, reason = live.interaction.predict(X[i])
        if item is None:
            raise RuntimeError(f'the learner refused a vector: {reason}')
        asked = 0
        while item is not None:
            asked += 1
            said = item.prediction.label == truth
            if asked == 1:
                right.append(said)
            result, _save = live.feedback(said != (rng.random() < noise))
            item = result.next_round
        questions.append(asked)
    return {'right': np.array(right, float), 'questions': np.array(questions, float)}


def run_full(X: np.ndarray, y: np.ndarray, order: Sequence[int], noise: float, seed: int,
             centring: str) -> Dict[str, np.ndarray]:
    """Return first guess right per interaction for mSCW told the label (wrong at ``noise``)."""
    from banditlearn_ros.learning import make_learner
    from banditlearn_ros.learning.algorithms.centring import Centring
    values = learner_values()
    learner = make_learner('mscw', list(LABELS), X.shape[1], eta=values['eta'],
                           C=values['C'])
    centre = Centring(centring)
    rng = np.random.default_rng(seed + 2)
    right = []
    for i in order:
        x = centre.apply(X[i])
        right.append(int(np.argmax(learner.scores(x))) == y[i])
        told = y[i]
        if rng.random() < noise:
            told = rng.choice([c for c in range(len(LABELS)) if c != y[i]])
        learner.learn_true(x, LABELS[told])
    return {'right': np.array(right, float), 'questions': np.ones(len(right))}


def per_hundred(runs: List[Dict[str, np.ndarray]], key: str) -> List[float]:
    """Return the mean of ``key`` over the runs, per block of 100 interactions."""
    n = min(len(r[key]) for r in runs)
    blocks = []
    for start in range(0, n, 100):
        stop = min(start + 100, n)
        if stop - start < 50:
            break
        blocks.append(float(np.mean([r[key][start:stop].mean() for r in runs])))
    return blocks


def report(name: str, runs: List[Dict[str, np.ndarray]], seconds: float) -> None:
    """Print one row: first guess right per 100 interactions, questions per interaction."""
    right = ' / '.join(f'{100 * v:.0f}' for v in per_hundred(runs, 'right'))
    asked = ' / '.join(f'{v:.2f}' for v in per_hundred(runs, 'questions'))
    print(f'| {name} | {right} | {asked} | {seconds:.0f} |', flush=True)


def misses(values: Dict[str, object], photos) -> None:
    """Print the share of photos without a hand, overall and per class."""
    X, y, _ = extract(values, photos, log=lambda s: print(s, file=sys.stderr))
    missed = np.isnan(X).any(axis=1)
    per = [100 * missed[y == c].mean() for c in range(len(LABELS))]
    print(f'missed {100 * missed.mean():.1f} % of {len(y)} photos; per class '
          + ' '.join(f'{LABELS[c]} {p:.0f}' for c, p in enumerate(per)), flush=True)


SUBSETS = {
    'without positions': lambda n: not (n.startswith('lm') and n[-2:] in ('_x', '_y')),
    'positions only': lambda n: n == 'bias' or (n.startswith('lm') and n[-2:] in ('_x', '_y')),
}
"""Landmark feature subsets compared with the whole set."""


def main(argv=None) -> int:
    """Run the benchmark; print a Markdown table."""
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--orders', type=int, default=10)
    p.add_argument('--noise', type=float, default=0.1)
    p.add_argument('--per-class', type=int, default=100)
    p.add_argument('--extractors', nargs='+', default=['auto'])
    p.add_argument('--set', action='append', default=[], metavar='camera|learner.PARAM=VALUE')
    p.add_argument('--misses', action='store_true')
    p.add_argument('--subsets', action='store_true', help='also the landmark subsets')
    p.add_argument('--end-to-end', action='store_true')
    p.add_argument('--photos', type=int, default=300)
    p.add_argument('--fps', type=float, default=15.0)
    p.add_argument('--hold', type=float, default=0.7)
    p.add_argument('--gap', type=float, default=0.5)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--bringup-set', action='append', default=[], metavar='NODE.PARAM=VALUE')
    p.add_argument('--workdir', help='folder for the video and the logs (default: a temp dir)')
    p.add_argument('--source-process', action='store_true',
                   help='end to end: the video read by an image source in its own process')
    p.add_argument('--busy', action='store_true',
                   help='end to end: one busy loop per core beside the session')
    p.add_argument('--hold-until-taken', action='store_true',
                   help='end to end: no video; each photo held until camera_node took it '
                   '(photo_holder.py, its own process), at most --max-hold seconds')
    p.add_argument('--max-hold', type=float, default=20.0)
    args = p.parse_args(argv)
    reason = missing_reason()
    if reason:
        print(f'skipped: {reason}')
        return 0
    if args.end_to_end:
        return end_to_end(args)
    changes, learner = {}, {}
    for item in args.set:
        key, _, text = item.partition('=')
        node, _, name = key.partition('.')
        (learner if node == 'learner' else changes)[name] = yaml_value(text)
    photos = photo_list(args.per_class)
    print(f'# {len(photos)} sign-digit photos, {args.orders} orders, {args.noise:.0%} wrong '
          f'answers; {platform.processor() or platform.machine()}, '
          f'{time.strftime("%Y-%m-%d")}', flush=True)
    if args.misses:
        misses(camera_values(**changes), photos)
        return 0
    print('| features, protocol | first guess right % per 100 interactions | questions per '
          'interaction per 100 | s |')
    print('| --- | --- | --- | --- |')
    for kind in args.extractors:
        values = camera_values(extractor=kind, **changes)
        X, y, names = extract(values, photos, log=lambda s: print(s, file=sys.stderr))
        found = ~np.isnan(X).any(axis=1)
        X, y = X[found], y[found]
        label = f'{kind} ({X.shape[1]} features, {np.count_nonzero(~found)} photos missed)'
        orders = [np.random.default_rng(1000 + s).permutation(len(y))
                  for s in range(args.orders)]
        columns = {'': np.arange(X.shape[1])}
        if args.subsets and kind != 'contour':
            for sub, keep in SUBSETS.items():
                columns[sub] = np.array([i for i, n in enumerate(names) if keep(n)])
        for sub, cols in columns.items():
            Xs = X[:, cols]
            tag = f'{label}{", " + sub + f" ({cols.size})" if sub else ""}'
            for proto, fn in (
                    ('camera system', lambda o, s: run_live(Xs, y, o, args.noise, s,
                                                            **learner)),
                    ('params.yaml', lambda o, s: run_live(Xs, y, o, args.noise, s,
                                                          system='', **learner)),
                    ('camera system, one question', lambda o, s: run_live(
                        Xs, y, o, args.noise, s, max_questions=1, **learner))):
                start = time.perf_counter()
                runs = [fn(o, s) for s, o in enumerate(orders)]
                report(f'{tag}, {proto}', runs, time.perf_counter() - start)
            if sub:
                continue
            for centring in ('none', 'running'):
                start = time.perf_counter()
                runs = [run_full(Xs, y, o, args.noise, s, centring)
                        for s, o in enumerate(orders)]
                report(f'{tag}, full feedback (mSCW), centring {centring}', runs,
                       time.perf_counter() - start)
    return 0


def end_to_end(args) -> int:
    """Run the bring-up on a video of the photos; print first guesses per 100 interactions."""
    import tempfile
    try:
        from real_photos_session import run_session
    except ImportError:
        from benchmarks.real_photos_session import run_session
    every = photo_list()
    rng = np.random.default_rng(args.seed)
    chosen = rng.choice(len(every), size=args.photos, replace=False)
    photos = [every[i] for i in chosen]
    X, _y, _names = extract(camera_values(), every, log=lambda s: print(s, file=sys.stderr))
    extra = [a for item in args.bringup_set for a in ('--set', item)]
    with tempfile.TemporaryDirectory(prefix='real_photos_') as tmp:
        work = Path(args.workdir or tmp)
        work.mkdir(parents=True, exist_ok=True)
        load = os.getloadavg()[0]
        out = run_session(photos, work, args.noise, args.fps, args.hold, args.gap, extra,
                          args.seed, X[chosen], source_process=args.source_process,
                          busy=args.busy, hold_until_taken=args.hold_until_taken,
                          max_hold=args.max_hold)
    rows = out['rows']
    right = np.array([r[1] for r in rows], float)
    asked = np.array([r[2] for r in rows], float)
    print(f'# end to end: {out["photos"]} photos ({args.hold} s each, {args.gap} s black '
          f'between, {args.fps:g} fps), {args.noise:.0%} wrong answers, seed {args.seed}; '
          f'{len(rows)} interactions ({out["photos"] - len(rows)} photos without one), '
          f'{out["seconds"]:.0f} s; bring-up exit {out["returncode"]}')
    print('$ ' + ' '.join(out['command']))
    if out['source']:
        print('$ ' + ' '.join(out['source']) + '  (the image source, its own process)')
    print(f'load before: {load:.1f}; after: {os.getloadavg()[0]:.1f}'
          f'{"; one busy loop per core beside it" if args.busy else ""}')
    blocks = [(s, min(s + 100, len(rows))) for s in range(0, len(rows), 100)]
    print('| interactions | first guess right % | questions per interaction |')
    print('| --- | --- | --- |')
    for a, b in blocks:
        print(f'| {a + 1}-{b} | {100 * right[a:b].mean():.1f} | {asked[a:b].mean():.2f} |')
    print(f'bring-up summary: {out["summary"]}')
    if out['matched']:
        near = np.array(out['matched'])
        print(f'vector to its photo (offline features): median distance '
              f'{np.median(near[:, 0]):.3f}, largest {near[:, 0].max():.3f}; to the next '
              f'photo: median {np.median(near[:, 1]):.3f}; vectors not clearly one photo '
              f'(next within twice the distance): {int(np.sum(near[:, 1] < 2 * near[:, 0]))}')
    if out.get('holder'):
        held = [h for h in out['holder']['held'] if h is not None]
        print(f'photo holder: {out["holder"]["taken"]} of {out["holder"]["shown"]} photos '
              f'taken; held until taken: median {np.median(held) if held else 0:.2f} s, '
              f'longest {max(held) if held else 0:.2f} s (at most {args.max_hold:g} s)')
    cam = out['camera']
    print('camera_node: ' + ', '.join(f'{k} {cam.get(k, "-")}' for k in (
        'extractor', 'features', 'frames_received', 'frames_processed', 'frames_dropped',
        'frames_no_hand', 'episodes', 'processing_ms_mean', 'processed_rate')))
    return 0


def yaml_value(text: str):
    """Return a --set value as YAML reads it (numbers, booleans, lists)."""
    import yaml
    return yaml.safe_load(text)


if __name__ == '__main__':
    sys.exit(main())
