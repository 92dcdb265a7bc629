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
Never-taught gestures: how well each score tells them apart, and what rejection costs a session.

Per split, some classes are taught and the others never are (digits 8 / 2, rendered gestures
5 / 2, sign digits 8 / 2; 10 splits, each its own held-out classes and order).  The learner
is UCWL with the node's defaults (three questions, reveal step 'all'), answered by a
faultless person through ``Interaction``; a taught gesture whose questions all missed is
named by the person (``name_unknown``), a never-taught one is not.

- *Separation*: one pass over 70 % of the taught examples, then every score
  (``open_set.SCORES``) of the other 30 % and of the never-taught examples: AUROC (a
  never-taught gesture scores lower than a taught one) and the share of never-taught ones
  below the 5 % quantile of the taught ones (rejected at 5 % false rejection).
- *Session*: ``--interactions`` gestures, ``--unknown-share`` of them never taught, once with
  rejection on (online threshold) and once off, the same stream and answers: false
  rejection of taught gestures where rejection was armed, share of never-taught rejected,
  yes/no questions per never-taught gesture, first-guess accuracy on taught gestures (a
  falsely rejected one counts as a wrong first guess), with and without rejection.

Data: scikit-learn's digits ([0, 1] pixels); rendered gestures as the shipped rendered
session's camera_node publishes them (22 contour features, benchmarks/rendered.py; one pool
of renders); sign digits (``../shared/data/real/sign_digits``: MediaPipe landmark features
of the enlarged, padded photos, cached under ~/.cache/banditlearn_ros; skipped with the
reason when the photos or MediaPipe are missing).

    .venv/bin/python benchmarks/bench_unknown.py [--data digits rendered sign_digits]
"""

import argparse
import hashlib
import os
from pathlib import Path
import platform
import sys
import time
from typing import Dict, List

from banditlearn_ros.learning import UCWL
from banditlearn_ros.learning.datasets import load_dataset
from banditlearn_ros.learning.interaction import Interaction
from banditlearn_ros.learning.open_set import DEFAULTS, OpenSet, SCORES
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SIGN_DIGITS = ROOT.parent / 'shared' / 'data' / 'real' / 'sign_digits'
CACHE = Path(os.environ.get('XDG_CACHE_HOME', Path.home() / '.cache')) / 'banditlearn_ros'
TAUGHT = {'digits': 8, 'rendered': 5, 'sign_digits': 8}


def sign_digits(folder: Path = SIGN_DIGITS, cache: Path = CACHE):
    """
    Return (X, y, names): MediaPipe landmark features of the sign-digit photos, cached.

    The 100 x 100 crops are enlarged to 240 x 240 and padded with a replicated border (120 px
    top and bottom, 200 px left and right) so that MediaPipe finds the hand
    (../shared/data/README.md); photos it finds no hand in are left out.
    """
    import cv2
    from banditlearn_ros.vision.landmark_features import LandmarkFeatures
    from banditlearn_ros.vision.mediapipe_hands import MediaPipeHands
    names = sorted(p.name for p in folder.iterdir() if p.is_dir())
    files = [(c, p) for c, name in enumerate(names)
             for p in sorted((folder / name).iterdir()) if p.suffix.lower() in ('.jpg', '.png')]
    key = hashlib.sha1('\n'.join(str(p.relative_to(folder)) for _, p in files).encode())
    path = cache / f'sign_digits_landmarks_{len(files)}_{key.hexdigest()[:8]}.npz'
    if path.exists():
        data = np.load(path)
        return data['X'], data['y'], names
    hands, features = MediaPipeHands(static_image_mode=True), LandmarkFeatures()
    rows, labels = [], []
    for c, p in files:
        image = cv2.resize(cv2.imread(str(p)), (240, 240))
        image = cv2.copyMakeBorder(image, 120, 120, 200, 200, cv2.BORDER_REPLICATE)
        hand = hands.best(image)
        if hand is not None:
            rows.append(features.features(hand.landmarks))
            labels.append(c)
    hands.close()
    cache.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + '.tmp.npz')
    np.savez(tmp, X=np.array(rows), y=np.array(labels))
    os.replace(tmp, path)
    return np.array(rows), np.array(labels), names


def rendered(n: int, seed: int = 5, cache: Path = CACHE):
    """Return (X, y, names): ``n`` renders of the shipped session's camera features, cached."""
    from rendered import session_features, session_hands
    from banditlearn_ros.vision.hand_renderer import GESTURES
    path = cache / f'rendered_session_{n}_{seed}.npz'
    if path.exists():
        data = np.load(path)
        return data['X'], data['y'], list(GESTURES)
    X, y = session_hands(n, seed)
    X = session_features(X)
    cache.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + '.tmp.npz')
    np.savez(tmp, X=X, y=y)
    os.replace(tmp, path)
    return X, y, list(GESTURES)


def load(name: str, n_rendered: int):
    """Return (X, y, names) of a data set, or raise RuntimeError with why it is missing."""
    if name == 'digits':
        return load_dataset('digits')
    if name == 'rendered':
        return rendered(n_rendered)
    if not SIGN_DIGITS.is_dir():
        raise RuntimeError(f'no sign digits at {SIGN_DIGITS}')
    try:
        import mediapipe  # noqa: F401
    except ImportError:
        raise RuntimeError('sign digits need mediapipe==0.10.21 for landmarks') from None
    return sign_digits()


def auroc(taught: np.ndarray, unknown: np.ndarray) -> float:
    """Return P(an unknown scores below a taught one), ties counted half (Mann-Whitney U)."""
    both = np.concatenate([taught, unknown])
    order = both.argsort(kind='stable')
    ranks = np.empty(both.size)
    ranks[order] = np.arange(1, both.size + 1)
    for value in np.unique(both):  # average ranks over ties
        same = both == value
        if same.sum() > 1:
            ranks[same] = ranks[same].mean()
    n1, n0 = taught.size, unknown.size
    return float((ranks[:n1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


class Person:
    """Drive one ``Interaction`` with a faultless person; record what each gesture cost."""

    def __init__(self, names: List[str], n_features: int, open_set: OpenSet, seed: int):
        self.names = names
        self.inter = Interaction(lambda d: UCWL(list(names), d, seed=seed),
                                 max_questions=3, seed=seed, open_set=open_set,
                                 clock=lambda: 0.0, n_features=n_features)
        self.rows: List[Dict] = []

    def show(self, x: np.ndarray, truth: str, record: bool = True) -> None:
        """Show one gesture, answer every question, name a taught one the questions missed."""
        inter = self.inter
        item, _ = inter.predict(x, now=0.0)
        verdict, first = item.verdict, item.prediction.label
        declined = item.questions.declined
        while not declined:
            result = inter.feedback(item.prediction.label == truth, now=0.0)
            if result.next_round is None:
                break
            item = result.next_round
        questions = item.questions
        if truth in self.names and questions.revealed is None:
            inter.name_unknown(truth)
        if record:
            self.rows.append({
                'known': truth in self.names, 'declined': declined,
                'armed': bool(verdict is not None and verdict.armed),
                'first_right': (not declined) and first == truth,
                'questions': questions.n_asked})


def split(y: np.ndarray, n_classes: int, n_taught: int, seed: int):
    """Return (taught classes, never-taught classes) of split ``seed``."""
    rng = np.random.default_rng(1000 + seed)
    unknown = np.sort(rng.choice(n_classes, n_classes - n_taught, replace=False))
    return [c for c in range(n_classes) if c not in unknown], list(unknown)


def separation(X, y, names, n_taught: int, seed: int, settings: Dict) -> Dict[str, tuple]:
    """Return ``{score: (AUROC, rejected at 5 %)}`` after one pass over 70 % of the taught."""
    taught, unknown = split(y, len(names), n_taught, seed)
    rng = np.random.default_rng(seed)
    idx = rng.permutation(np.flatnonzero(np.isin(y, taught)))
    train, test = idx[:int(0.7 * idx.size)], idx[int(0.7 * idx.size):]
    never = np.flatnonzero(np.isin(y, unknown))
    open_set = OpenSet(True, **{**settings, 'warmup': 10 ** 9})  # learn, never reject
    person = Person([names[c] for c in taught], X.shape[1], open_set, seed)
    for t in train:
        person.show(X[t], names[y[t]], record=False)
    learner = person.inter.learner
    out = {}
    for score in SCORES:
        open_set.score_name = score
        s_known = np.array([open_set.score(X[t], learner.select(X[t])) for t in test])
        s_never = np.array([open_set.score(X[t], learner.select(X[t])) for t in never])
        out[score] = (auroc(s_known, s_never),
                      float(np.mean(s_never < np.quantile(s_known, 0.05))))
    return out


def session(X, y, names, n_taught: int, seed: int, settings: Dict, n: int,
            unknown_share: float, reject: bool) -> List[Dict]:
    """Return the per-gesture records of one session of ``n`` gestures."""
    taught, unknown = split(y, len(names), n_taught, seed)
    rng = np.random.default_rng(seed + 500)
    n_never = int(round(unknown_share * n))
    known = rng.choice(np.flatnonzero(np.isin(y, taught)), n - n_never,
                       replace=n - n_never > np.isin(y, taught).sum())
    never = rng.choice(np.flatnonzero(np.isin(y, unknown)), n_never,
                       replace=n_never > np.isin(y, unknown).sum())
    order = rng.permutation(np.concatenate([known, never]))
    person = Person([names[c] for c in taught], X.shape[1], OpenSet(reject, **settings), seed)
    for t in order:
        person.show(X[t], names[y[t]])
    return person.rows


def summarise(rows: List[Dict], warmup: int) -> Dict[str, float]:
    """Return the session figures (rates pooled over the runs' gestures)."""
    def mean(values):
        return float(np.mean(values)) if len(values) else float('nan')
    late = [r for r in rows if r['index'] >= warmup]
    taught = [r for r in rows if r['known']]
    return {
        'false_rejection_armed': mean([r['declined'] for r in taught if r['armed']]),
        'false_rejection_late': mean([r['declined'] for r in late if r['known']]),
        'unknown_rejected_late': mean([r['declined'] for r in late if not r['known']]),
        'unknown_rejected': mean([r['declined'] for r in rows if not r['known']]),
        'questions_unknown': mean([r['questions'] for r in rows if not r['known']]),
        'questions_unknown_late': mean([r['questions'] for r in late if not r['known']]),
        'first_right': mean([r['first_right'] for r in taught]),
        'first_right_late': mean([r['first_right'] for r in late if r['known']]),
        'first_right_guessed': mean([r['first_right'] for r in taught if not r['declined']]),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--data', nargs='+', default=['digits', 'rendered', 'sign_digits'],
                        choices=sorted(TAUGHT))
    parser.add_argument('--splits', type=int, default=10)
    parser.add_argument('--interactions', type=int, default=500)
    parser.add_argument('--unknown-share', type=float, default=0.2)
    parser.add_argument('--rendered', type=int, default=700, help='renders in the pool')
    for key, value in DEFAULTS.items():
        parser.add_argument('--' + key.replace('_', '-'), type=type(value), default=value)
    parser.add_argument('--skip-separation', action='store_true')
    args = parser.parse_args(argv)
    settings = {k: getattr(args, k) for k in DEFAULTS}
    print(f'# bench_unknown: {platform.python_version()}, numpy {np.__version__}; '
          f'{args.splits} splits, sessions of {args.interactions} '
          f'({100 * args.unknown_share:.0f} % never taught); open set {settings}')
    for name in args.data:
        start = time.perf_counter()
        try:
            X, y, names = load(name, args.rendered)
        except RuntimeError as exc:
            print(f'\n## {name}: skipped ({exc})')
            continue
        n_taught = TAUGHT[name]
        print(f'\n## {name}: {X.shape[0]} examples, {X.shape[1]} features, '
              f'{n_taught} taught / {len(names) - n_taught} never taught')
        if not args.skip_separation:
            figures = [separation(X, y, names, n_taught, s, settings) for s in range(args.splits)]
            print('| score | AUROC | never-taught rejected at 5 % false rejection |')
            print('| --- | --- | --- |')
            for score in SCORES:
                a = np.array([f[score] for f in figures])
                print(f'| {score} | {a[:, 0].mean():.3f} (min {a[:, 0].min():.3f}) | '
                      f'{100 * a[:, 1].mean():.1f} % (min {100 * a[:, 1].min():.1f} %) |')
        arms = {}
        for reject in (True, False):
            rows = []
            for s in range(args.splits):
                run = session(X, y, names, n_taught, s, settings, args.interactions,
                              args.unknown_share, reject)
                rows += [{**r, 'index': i} for i, r in enumerate(run)]
            arms[reject] = summarise(rows, args.warmup)
        on, off = arms[True], arms[False]
        print(f'\nsession ({args.splits} x {args.interactions}; "late" = after the first '
              f'{args.warmup} interactions):')
        print(f'- false rejection of taught gestures where armed: '
              f'{100 * on["false_rejection_armed"]:.2f} % (target {100 * args.target:.1f} %); '
              f'after warm-up, of all taught: {100 * on["false_rejection_late"]:.2f} %')
        print(f'- never-taught rejected: {100 * on["unknown_rejected"]:.1f} % '
              f'(late {100 * on["unknown_rejected_late"]:.1f} %)')
        print(f'- yes/no questions per never-taught gesture: {on["questions_unknown"]:.2f} '
              f'(late {on["questions_unknown_late"]:.2f}); without rejection '
              f'{off["questions_unknown"]:.2f} (late {off["questions_unknown_late"]:.2f})')
        print(f'- first-guess accuracy on taught: {100 * on["first_right"]:.2f} % with, '
              f'{100 * off["first_right"]:.2f} % without (late {100 * on["first_right_late"]:.2f}'
              f' / {100 * off["first_right_late"]:.2f} %); on the taught it did guess '
              f'{100 * on["first_right_guessed"]:.2f} %')
        print(f'({time.perf_counter() - start:.0f} s)')
        sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
