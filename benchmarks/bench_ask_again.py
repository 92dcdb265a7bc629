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
Ask again after a "no": first-guess mistakes and questions, beside one question and full feedback.

On rendered gestures (7: fist, one..five, thumbs up; features: see ``rendered()``),
digits and wine (the paper's [0, 1] scaling): 10 % wrong answers (flip noise rho0 = rho1 =
0.1 on every answer), 20 shared permutations (learning.evaluation streams).  UCWL is tuned on the
separate tuning permutation with the one-question protocol (the paper's grid) and runs with
those parameters under every protocol ("paper params"), so the protocol is what differs;
each ask-again protocol is also tuned under its own rules on the same permutation over a
smaller grid (TUNE_GRID; "own tuning").  The full-feedback references are tuned on the same
permutation over their grids.  Reported: first-guess mistake rate against the true label
over all interactions and over interactions 101-150, questions and answers per interaction,
how interactions ended; the done-when check; the reveal-step comparison.

    .venv/bin/python benchmarks/bench_ask_again.py --n 1000 --permutations 20
"""

import argparse
import os
import platform
import sys
import time

from banditlearn_ros.evaluation.question_figures import first_guess_figure
from banditlearn_ros.learning import FULL_FEEDBACK_ALGORITHMS, TeacherModel
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.offline.evaluation import core_algorithm, evaluate, run_questions
from banditlearn_ros.learning.offline.evaluation_streams import (
    make_stream, make_streams, TUNING_STREAM)
from banditlearn_ros.learning.offline.evaluation_tuning import grid_settings, tune
from banditlearn_ros.learning.protocol.ask_again import DEFAULT_REVEAL_STEP, REVEAL_STEPS
from banditlearn_ros.vision.hand_renderer import GESTURES
from banditlearn_ros.vision.synthetic_dataset import render_features
import numpy as np
from rendered import scaled_landmarks, session_features, session_hands

WINDOW = (101, 150)
TUNE_GRID = {'eta': [0.85, 0.95], 'C': [0.25, 0.5, 1.0, 2.0, 4.0],
             'k': [0.6, 1.0, 1.4, 1.8, 2.2, 2.6, 3.0]}
"""The grid each ask-again protocol is tuned on (a pass costs several one-question passes)."""


def rendered(n: int, seed: int, kind: str):
    """
    Return (X, y, labels) of ``n`` rendered gestures.

    ``session``: the 22 centred and scaled contour features the rendered session's
    camera_node publishes; ``landmarks``: landmark features centred and scaled by renders of
    another seed; ``contour``: all 124 contour features as they come (camera_node's default
    without ``feature_names``/``feature_offsets``/``feature_scales``).
    """
    if kind == 'session':
        X, y = session_hands(n, seed)
        return session_features(X), y, list(GESTURES)
    if kind == 'landmarks':
        return scaled_landmarks(n, seed)
    data = render_features(n, kind='contour', landmark_source='none', gestures=GESTURES,
                           seed=seed)
    return data.X, data.y, data.labels


def tune_protocol(X, y, K, teacher, seed, max_questions, reveal_step):
    """Return the TUNE_GRID setting with the fewest first-guess mistakes on the tuning stream."""
    stream = make_stream(y, K, teacher, TUNING_STREAM, seed)
    settings = grid_settings(TUNE_GRID, {})
    rates = [run_questions('ucwl', p, X, stream, teacher, K, max_questions=max_questions,
                           reveal_step=reveal_step).rate_observed for p in settings]
    return settings[int(np.argmin(rates))]


def window_rate(curve_true: np.ndarray, start: int, stop: int) -> float:
    """Return the mistake rate over interactions start..stop (1-based) from cumulative counts."""
    before = curve_true[start - 2] if start > 1 else 0
    return float(curve_true[stop - 1] - before) / (stop - start + 1)


def moving_accuracy(wrong: np.ndarray, width: int = 25):
    """Return (interaction, accuracy) of a centred moving window over 0/1 mistakes."""
    kernel = np.ones(width) / width
    acc = 1.0 - np.convolve(wrong.astype(float), kernel, mode='valid')
    return np.arange(len(acc)) + (width + 1) / 2.0, acc


def protocol_name(mq: int, step: str, own) -> str:
    """Return a table row name for a protocol."""
    if mq == 1:
        return 'UCWL, 1 question (paper)'
    name = f"UCWL, {mq or 'K'} questions, reveal {step}"
    if own:
        return name + ', own tuning (' + ', '.join(f'{k} {v:g}' for k, v in own.items()) + ')'
    return name + ', paper params'


def run_dataset(name, X, y, labels, permutations, seed, figures):
    """Print the tables of one data set."""
    K = len(labels)
    teacher = TeacherModel(rho0=0.1, rho1=0.1)
    streams = make_streams(y, K, teacher, permutations, seed)
    params = tune(core_algorithm('ucwl', teacher), X, y, K, teacher, seed).params
    rows, curves, tuned = {}, {}, {}

    def add(row, results, wrong_stack):
        rates = [r.rate_true for r in results]
        windows = [window_rate(np.cumsum(w), *WINDOW) for w in wrong_stack]
        rows[row] = {'all': np.mean(rates), 'all_std': np.std(rates),
                     'win': np.mean(windows), 'win_std': np.std(windows), 'mq': None}
        return rows[row]

    # Each reveal step tuned under its own rules (the fair comparison), then all with the
    # one-question protocol's parameters (the protocol alone differs).
    steps = [DEFAULT_REVEAL_STEP] + [s for s in REVEAL_STEPS if s != DEFAULT_REVEAL_STEP]
    protocols = [(1, 'none', None)]
    protocols += [(mq, s, tune_protocol(X, y, K, teacher, seed, mq, s))
                  for mq in (2, 3, 0) for s in steps]
    protocols += [(mq, s, None) for mq in (2, 3, 0) for s in REVEAL_STEPS]
    for mq, step, own in protocols:
        results = [run_questions('ucwl', own or params, X, s, teacher, K, max_questions=mq,
                                 reveal_step=step) for s in streams]
        row = protocol_name(mq, step, own)
        if own and step == DEFAULT_REVEAL_STEP:
            tuned[mq] = row
        stats = add(row, results, [r.first_wrong_true for r in results])
        stats['questions'] = np.mean([r.questions / r.rounds for r in results])
        stats['questions_win'] = np.mean([r.window(*WINDOW)[1] for r in results])
        stats['answers'] = np.mean([r.answers / r.rounds for r in results])
        total = sum(r.rounds for r in results)
        stats['outcomes'] = {k: sum(r.outcomes.get(k, 0) for r in results) / total
                             for k in ('yes', 'out_of_questions', 'all_rejected')}
        stats['mq'] = mq
        if (own and step == DEFAULT_REVEAL_STEP) or mq == 1:
            curves[f"{mq or 'K'} question{'s' if mq != 1 else ''}"] = moving_accuracy(
                np.mean([r.first_wrong_true for r in results], axis=0))
    best_full = None
    for algo in FULL_FEEDBACK_ALGORITHMS:
        rec = evaluate(core_algorithm(algo, teacher), X, y, K, teacher, name, permutations,
                       seed, curves=True)
        wrong = [np.diff(np.r_[0, r.curve_true]) for r in rec.runs]
        stats = add(f'{algo} (full feedback)', rec.runs, wrong)
        if best_full is None or stats['win'] < rows[best_full]['win']:
            best_full = f'{algo} (full feedback)'
            best_wrong = np.mean(wrong, axis=0)
    curves[best_full.replace(' (full feedback)', ', full feedback')] = moving_accuracy(
        best_wrong)
    print(f'\n### {name}: {K} labels, {len(y)} examples, d = {X.shape[1]}; UCWL paper params '
          + ', '.join(f'{k} {v:g}' for k, v in params.items()) + '\n')
    print('| protocol | first-guess mistakes %, all | interactions 101-150 | questions / '
          'interaction (101-150) | answers / interaction | ended yes / out of questions / '
          'all rejected % |')
    print('| --- | --- | --- | --- | --- | --- |')
    for row, st in rows.items():
        if st['mq'] is None:
            extra = '1 (the true label) | - | -'
        else:
            o = st['outcomes']
            extra = (f"{st['questions']:.2f} ({st['questions_win']:.2f}) | "
                     f"{st['answers']:.2f} | {100 * o['yes']:.1f} / "
                     f"{100 * o['out_of_questions']:.1f} / {100 * o['all_rejected']:.1f}")
        print(f"| {row} | {100 * st['all']:.1f} ± {100 * st['all_std']:.1f} | "
              f"{100 * st['win']:.1f} ± {100 * st['win_std']:.1f} | {extra} |")
    one = rows[protocol_name(1, 'none', None)]
    full = rows[best_full]
    for label, row in (('paper params', protocol_name(3, DEFAULT_REVEAL_STEP, None)),
                       ('own tuning', tuned[3])):
        three = rows[row]
        print(f'\nDone-when figures ({name}, interactions 101-150, 3 questions, {label}): '
              f"{100 * three['win']:.1f} % vs one question {100 * one['win']:.1f} % (ratio "
              f"{three['win'] / max(one['win'], 1e-12):.2f}; target <= 0.5); best full "
              f"feedback {best_full} {100 * full['win']:.1f} % (gap "
              f"{100 * (three['win'] - full['win']):+.1f} points; target <= 3); questions "
              f"per interaction {three['questions_win']:.3f} (target <= 1.5).")
    if figures:
        path = os.path.join(figures, f'ask_again_{name}.png')
        first_guess_figure(curves, f'{name}: first-guess accuracy (moving 25), 10 % wrong '
                           'answers', path, WINDOW)
        print(f'\nFigure: {path}')


def main() -> int:
    """Print the tables for rendered gestures, digits and wine."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--n', type=int, default=1000, help='rendered images')
    parser.add_argument('--permutations', type=int, default=20)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--datasets', nargs='+',
                        default=['rendered-session', 'rendered-landmarks', 'rendered-contour',
                                 'digits', 'wine'])
    parser.add_argument('--figures', default='', help='folder for the learning-curve PNGs')
    args = parser.parse_args()
    print(f'# bench_ask_again: {args.permutations} permutations, seed {args.seed}, flip noise '
          f'0.1 on every answer, default reveal step {DEFAULT_REVEAL_STEP!r}; '
          f'{platform.machine()}, Python {platform.python_version()}')
    for name in args.datasets:
        start = time.perf_counter()
        if name.startswith('rendered-'):
            X, y, labels = rendered(args.n, args.seed, name.split('-', 1)[1])
        else:
            X, y, labels = load_dataset(name)
        run_dataset(name, np.ascontiguousarray(X, dtype=np.float64), y, labels,
                    args.permutations, args.seed, args.figures)
        print(f'\n({name}: {time.perf_counter() - start:.0f} s)', flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
