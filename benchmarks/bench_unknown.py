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

``--wrong 0 0.1``: the sessions again with 10 % of the yes/no answers wrong (a person who
slips; the package's simulated person slips as often).  Every ``open_set`` setting has its
option (``--trust support``: the rule before the audit); ``--first-split 10``: other splits
than the reported 0-9, to tune on.

    .venv/bin/python benchmarks/bench_unknown.py [--data digits rendered sign_digits]
        [--wrong 0 0.1] [--first-split 0]
"""

import argparse
import hashlib
import os
from pathlib import Path
import platform
import sys
import time

from banditlearn_ros.learning.algorithms.centring import CENTRING_MODES, DEFAULT_CENTRING
from banditlearn_ros.learning.algorithms.open_set import DEFAULTS
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.offline.open_set_eval import open_set_figures, report
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


def _true(text: str) -> bool:
    """Return a command line's true / false (``--recheck true``)."""
    if text.lower() not in ('true', 'false'):
        raise argparse.ArgumentTypeError(f'true or false, not {text!r}')
    return text.lower() == 'true'


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--data', nargs='+', default=['digits', 'rendered', 'sign_digits'],
                        choices=sorted(TAUGHT))
    parser.add_argument('--splits', type=int, default=10)
    parser.add_argument('--first-split', type=int, default=0,
                        help='seed of the first split (tune on others than the reported 0-9)')
    parser.add_argument('--interactions', type=int, default=500)
    parser.add_argument('--unknown-share', type=float, default=0.2)
    parser.add_argument('--rendered', type=int, default=700, help='renders in the pool')
    for key, value in DEFAULTS.items():
        parser.add_argument('--' + key.replace('_', '-'), default=value,
                            type=_true if isinstance(value, bool) else type(value))
    parser.add_argument('--wrong', type=float, nargs='+', default=[0.0],
                        help='probability of a wrong yes/no in the sessions (each in turn)')
    parser.add_argument('--skip-separation', action='store_true')
    parser.add_argument('--centring', choices=CENTRING_MODES, default=DEFAULT_CENTRING,
                        help="the learner's centring (none = the papers' algorithm)")
    args = parser.parse_args(argv)
    settings = {k: getattr(args, k) for k in DEFAULTS}
    print(f'# bench_unknown: {platform.python_version()}, numpy {np.__version__}; '
          f'{args.splits} splits from {args.first_split}, sessions of {args.interactions} '
          f'({100 * args.unknown_share:.0f} % never taught); centring {args.centring}; '
          f'open set {settings}')
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
        for i, wrong in enumerate(args.wrong):
            print(f'\n### {100 * wrong:.0f} % wrong answers')
            fig = open_set_figures(X, y, names, n_taught, settings, args.splits,
                                   args.interactions, args.unknown_share,
                                   not args.skip_separation and i == 0, args.centring, wrong,
                                   args.first_split)
            print(report(fig, settings, args.splits, args.interactions), flush=True)
        print(f'({time.perf_counter() - start:.0f} s)')
        sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
