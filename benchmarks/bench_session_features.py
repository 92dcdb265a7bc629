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
Which contour features the rendered teaching session publishes, measured.

Renders ``--n`` hands of the seven gestures as the session's show does (320x240,
rendered at twice the size and shrunk) for each of ``--seeds`` (not seed 0,
which the session itself shows), extracts the contour features as camera_node does (skin
segmentation on a 320-pixel copy, no MediaPipe), then runs the session's protocol offline:
``--interactions`` gestures in a random order, UCWL asking up to ``max_questions`` with the
learner node's reveal step, 10 % of the answers flipped, and reports the first-guess accuracy
over the last 50 interactions (mean, standard deviation and minimum over seeds x orders) for
each feature set and a few (k, C).  "session" is the list in config/gestures.system.yaml,
"scaled" with its feature_offsets / feature_scales, which ``--print-scaling`` measures (mean
and standard deviation per feature; the bias stays 1) on renders of other seeds:

    .venv/bin/python benchmarks/bench_session_features.py [--n 300] [--seeds 1 2 3]
    .venv/bin/python benchmarks/bench_session_features.py --print-scaling --n 600 --seeds 11
"""

import argparse
import time

from banditlearn_ros.learning.engine import FastUCWL
from banditlearn_ros.learning.protocol.ask_again import DEFAULT_REVEAL_STEP, run_interaction
from banditlearn_ros.vision.contour_features import ContourFeatures
from banditlearn_ros.vision.extractors import FeatureScaling
from banditlearn_ros.vision.hand_renderer import GESTURES
import numpy as np
from rendered import CAMERA, session_feature_names, session_hands

FINGERS = ['bias'] + [f'fingers_is_{i}' for i in range(6)]


def print_scaling(X, names):
    """Print feature_offsets and feature_scales (YAML) for the session's features."""
    cols = [names.index(c) for c in session_feature_names()]
    mean, std = X[:, cols].mean(axis=0), X[:, cols].std(axis=0)
    constant = std < 1e-9  # the bias (and any feature that never varies) stays as it is
    mean[constant], std[constant] = 0.0, 1.0

    def floats(values):  # rcl wants every item of a double array written as a float
        return '[' + ', '.join(f'{float(f"{v:.4g}")!r}' for v in values) + ']'
    print('feature_offsets: ' + floats(mean))
    print('feature_scales: ' + floats(std))


def last50(X, y, order_seed, max_questions, k, C, interactions, noise=0.1):
    """Return the first-guess accuracy of the last 50 interactions and questions per one."""
    rng = np.random.default_rng(order_seed)
    order = rng.permutation(len(y))[:interactions]
    learner = FastUCWL(len(GESTURES), X.shape[1], eta=0.95, C=C, k=k, seed=order_seed)
    qrng = np.random.default_rng(order_seed + 1)
    first, questions = [], []

    def ask(index, number):
        right = index == truth
        return right if rng.random() >= noise else not right
    for i in order:
        truth = y[i]
        q = run_interaction(learner, X[i], ask, max_questions, DEFAULT_REVEAL_STEP, qrng)
        first.append(q.first.index == truth)
        questions.append(q.number)
    return float(np.mean(first[-50:])), float(np.mean(questions))


def main():
    """Print the table."""
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--n', type=int, default=300, help='rendered hands per seed')
    p.add_argument('--seeds', type=int, nargs='+', default=[1, 2, 3])
    p.add_argument('--orders', type=int, default=5, help='random orders per seed')
    p.add_argument('--interactions', type=int, default=200)
    p.add_argument('--print-scaling', action='store_true',
                   help="print the session's feature_offsets / feature_scales and exit")
    args = p.parse_args()
    names = list(ContourFeatures().names)
    start = time.perf_counter()
    data = [session_hands(args.n, s) for s in args.seeds]
    print(f'rendered and extracted {args.n} x {len(args.seeds)} hands in '
          f'{time.perf_counter() - start:.0f} s')
    if args.print_scaling:
        print_scaling(np.vstack([X for X, _ in data]), names)
        return
    sets = {'all 124': names, 'session': session_feature_names(),
            'session, scaled': session_feature_names(), 'finger indicators only': FINGERS}
    scaling = FeatureScaling(CAMERA.get('feature_offsets', []),
                             CAMERA.get('feature_scales', []))
    print('| features | d | max_questions | k | C | accuracy_last_50 (mean ± sd, min) | '
          'questions per interaction |')
    print('| --- | --- | --- | --- | --- | --- | --- |')
    for label, chosen in sets.items():
        cols = [names.index(c) for c in chosen]
        for max_questions in (1, 3):
            for k, C in ((2.8, 1.0), (2.0, 1.0), (2.0, 0.5)):
                def features(X, label=label, cols=cols):
                    return scaling.apply(X[:, cols]) if label.endswith('scaled') else X[:, cols]
                runs = [last50(features(X), y, o, max_questions, k, C, args.interactions)
                        for X, y in data for o in range(args.orders)]
                acc = np.array([r[0] for r in runs])
                qpi = np.mean([r[1] for r in runs])
                print(f'| {label} | {len(cols)} | {max_questions} | {k} | {C} | '
                      f'{acc.mean():.3f} ± {acc.std():.3f}, {acc.min():.2f} | {qpi:.2f} |',
                      flush=True)


if __name__ == '__main__':
    main()
