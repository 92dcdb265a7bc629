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
UCWL's online mistake rate on rendered hand gestures, per feature set.

Renders ``--n`` images of six gestures (fist, one..five) once, extracts every feature set
from the same images, and runs Ngo et al. 2013's protocol (learning.evaluation): one pass per
permutation, 10 % flip noise on the yes/no (TeacherModel(rho0=.1, rho1=.1)), the mistake
rate against the true gesture, for UCWL with its defaults and tuned on a separate
permutation over the paper's grid.  Landmarks come from MediaPipe on the rendered image
(rows where it finds no hand are left out, and counted) and from the renderer's skeleton
with 3 % jitter.

    .venv/bin/python benchmarks/bench_vision_learning.py [--n 1000] [--permutations 20]
"""

import argparse
import platform
import sys
import time

from banditlearn_ros.learning import TeacherModel
from banditlearn_ros.learning.offline.evaluation import run_learner, run_ucwl_settings
from banditlearn_ros.learning.offline.evaluation_streams import (make_stream, make_streams,
                                                                 TUNING_STREAM)
from banditlearn_ros.learning.offline.evaluation_tuning import grid_settings, GRIDS
from banditlearn_ros.vision.contour_features import ContourFeatures
from banditlearn_ros.vision.hand_renderer import HandRenderer
from banditlearn_ros.vision.hand_segmentation import HandSegmenter
from banditlearn_ros.vision.landmark_features import LandmarkFeatures
from banditlearn_ros.vision.mediapipe_hands import MediaPipeHands
from banditlearn_ros.vision.synthetic_dataset import SIX_GESTURES
import numpy as np


def extract_all(n: int, seed: int, jitter: float):
    """Return {feature set: (rows, labels)} from one set of rendered images."""
    renderer = HandRenderer(gestures=SIX_GESTURES, seed=seed)
    rng = np.random.default_rng(seed + 7919)
    hands = MediaPipeHands(static_image_mode=True)
    contour, landmark = ContourFeatures(), LandmarkFeatures()
    skin = HandSegmenter(adapt=False)
    sets = {k: ([], []) for k in ('contour', 'landmarks (MediaPipe)', 'combined (MediaPipe)',
                                  'landmarks (true + 3 % jitter)',
                                  'combined (true + 3 % jitter)')}
    missed = dict.fromkeys(SIX_GESTURES, 0)
    for i in range(n):
        hand = renderer.render(rng=rng)
        truth = hand.landmarks.copy()
        truth += rng.normal(0, jitter * hand.scale, truth.shape)
        seg = skin.segment(hand.image)
        c = contour.features(seg.contour) if seg.found else None
        found = hands.best(hand.image)
        if c is not None:
            _add(sets['contour'], c, hand.label)
            t = landmark.features(truth)
            _add(sets['landmarks (true + 3 % jitter)'], t, hand.label)
            _add(sets['combined (true + 3 % jitter)'], np.concatenate([c, t]), hand.label)
        if found is None:
            missed[hand.gesture] += 1
        else:
            m = landmark.features(found.landmarks)
            _add(sets['landmarks (MediaPipe)'], m, hand.label)
            guided = skin.segment(hand.image, found.landmarks)
            if guided.found:
                cm = contour.features(guided.contour)
                _add(sets['combined (MediaPipe)'], np.concatenate([cm, m]), hand.label)
        if (i + 1) % 100 == 0:
            print(f'  rendered and extracted {i + 1}/{n}', file=sys.stderr)
    hands.close()
    out = {k: (np.array(x), np.array(y)) for k, (x, y) in sets.items()}
    # Ablation: the contour set without its one-hot finger-count indicators.
    keep = np.array([not n.startswith('fingers_is_') for n in contour.names])
    X, y = out['contour']
    out['contour without fingers_is_* indicators'] = (X[:, keep], y)
    return out, missed


def _add(bucket, x, y):
    bucket[0].append(x)
    bucket[1].append(y)


def evaluate(X: np.ndarray, y: np.ndarray, permutations: int, teacher: TeacherModel):
    """Return (default rate mean, std, tuned rate mean, std, tuned parameters)."""
    n_labels = len(SIX_GESTURES)
    streams = make_streams(y, n_labels, teacher, permutations)
    default = [run_learner('ucwl', {}, X, s, teacher, n_labels).rate_true for s in streams]
    tuning = make_stream(y, n_labels, teacher, TUNING_STREAM)
    settings = grid_settings(GRIDS['ucwl'], {})
    results = run_ucwl_settings(settings, X, tuning, teacher, n_labels)
    best = settings[int(np.argmin([r.mistakes_observed for r in results]))]
    tuned = [run_learner('ucwl', best, X, s, teacher, n_labels).rate_true for s in streams]
    return np.mean(default), np.std(default), np.mean(tuned), np.std(tuned), best


def main() -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--n', type=int, default=1000)
    parser.add_argument('--permutations', type=int, default=20)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--jitter', type=float, default=0.03)
    args = parser.parse_args()
    start = time.perf_counter()
    sets, missed = extract_all(args.n, args.seed, args.jitter)
    print(f'# {args.n} rendered images, 6 gestures, seed {args.seed}; '
          f'{platform.processor() or platform.machine()}, {platform.python_version()}; '
          f'extraction {time.perf_counter() - start:.0f} s')
    print('# MediaPipe found no hand in: '
          + ', '.join(f'{g} {c}' for g, c in missed.items()))
    teacher = TeacherModel(rho0=0.1, rho1=0.1)
    print(f'# UCWL, one pass, {args.permutations} permutations, flip noise rho0=rho1=0.1; '
          'mistake rate vs the true gesture (chance 0.833)')
    print('| features | d | episodes | default (eta .95, C 1, k 2.8) | tuned | tuned on '
          'a separate permutation |')
    print('| --- | --- | --- | --- | --- | --- |')
    for name, (X, y) in sets.items():
        if len(X) < 50:
            print(f'| {name} | - | {len(X)} | too few rows | | |')
            continue
        dm, ds, tm, ts, best = evaluate(X, y, args.permutations, teacher)
        params = ', '.join(f'{k} {v:g}' for k, v in best.items())
        print(f'| {name} | {X.shape[1]} | {len(X)} | {dm:.3f} ± {ds:.3f} | '
              f'{tm:.3f} ± {ts:.3f} | {params} |', flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
