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
A gesture added mid-session: how fast it is learned and what it costs the known ones.

UCWL (defaults) is taught N-1 classes for ``--before`` interactions; then the N-th label is
appended (``add_label``, what a runtime ``labels`` append does) and the stream draws from all
N classes for ``--after`` interactions.  Every answer is flipped with probability ``--rho``.
Two protocols (``learning.protocol.ask_again``): one question per interaction (Ngo et al.
2013's), and asking again after a "no", up to ``--max-questions``, with the reveal steps of
``--reveal-steps`` (what a revealed label teaches the labels not asked; the protocol's
default first) and the new label's probation of ``--probations`` ("yes" answers before it
may be asked first; the default first, 0 = none).
Each run makes a different class the new one (run r: class r mod N) and draws its own
stream; every arm (protocol x start of the new label) sees the same streams and the same
teacher seed.  Reported, mean over runs:

- the new gesture's first-guess accuracy by showing after the addition (1-5, 6-10, 11+);
- the known gestures' first-guess accuracy in the 50 and 100 interactions before the
  addition and on the known gestures among the 100 after it;
- the first-guess accuracy over all of those 100 interactions (new and known gestures);
- questions per interaction in the 50 before and the 100 after.

Data: rendered gestures, seven (fist, one..five, thumbs up; six, then the seventh), as the
rendered session's camera_node publishes them (``session``: 22 contour features, centred
and scaled) and as landmark features from the renderer's skeleton with 3 % jitter, centred
and scaled by renders of another seed (``landmarks``; benchmarks/rendered.py); and
scikit-learn's digits (9 classes, then the 10th; the paper's [0, 1] scaling); and real
sign-digit photos (``sign_digits``: the first ``--sign-classes`` digits, 5 then the sixth,
MediaPipe landmark features as bench_unknown.py loads them from ../shared/data, centred
online with the learner node's ``centring: running``; skipped with the reason when absent).

    .venv/bin/python benchmarks/bench_new_gesture.py [--runs 24] [--data session landmarks digits]
    .venv/bin/python benchmarks/bench_new_gesture.py --data sign_digits --runs 10 --rho 0.1 \
        --reveal-steps all --probations 3 --priors mixture
"""

import argparse
from dataclasses import dataclass, field
import platform
import sys
import time
from typing import Dict, List, Sequence

from banditlearn_ros.learning import TeacherModel, UCWL
from banditlearn_ros.learning.algorithms.centring import Centring
from banditlearn_ros.learning.algorithms.ucwl import ADDED_LABEL_PRIORS
from banditlearn_ros.learning.engine import FastUCWL
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.protocol.ask_again import (
    DEFAULT_PROBATION, DEFAULT_REVEAL_STEP, REVEAL_STEPS, run_interaction)
import numpy as np
from rendered import scaled_landmarks, session_features, session_hands

SHOWINGS = ((1, 5), (6, 10), (11, None))
"""Showing ranges of the new gesture (1-based, inclusive; None = to the end)."""


@dataclass
class RunFigures:
    """What one run measured (fractions in [0, 1], NaN when there was nothing to count)."""

    new_by_showing: List[bool] = field(default_factory=list)
    known_before_50: float = float('nan')
    known_before_100: float = float('nan')
    known_after_100: float = float('nan')
    all_after_100: float = float('nan')
    questions_after_100: float = float('nan')
    questions_before_50: float = float('nan')


def load(name: str, n: int, seed: int, sign_classes: int = 6):
    """Return (X, y, class names) of ``session``, ``landmarks``, ``digits`` or sign digits."""
    if name == 'digits':
        return load_dataset('digits')
    if name == 'sign_digits':
        from bench_unknown import load as load_unknown
        X, y, names = load_unknown('sign_digits', 0)
        keep = y < sign_classes
        return X[keep], y[keep], list(names[:sign_classes])
    if name == 'landmarks':
        return scaled_landmarks(n, seed)
    from banditlearn_ros.vision.hand_renderer import GESTURES
    X, y = session_hands(n, seed)
    return session_features(X), y, list(GESTURES)


def ask(learner: UCWL, x: np.ndarray, truth: int, max_questions: int, reveal_step: str,
        teacher: TeacherModel, rng: np.random.Generator,
        ties: np.random.Generator, probation: int) -> List[int]:
    """Run one interaction of the ask-again protocol; return the labels asked, in order."""
    questions = run_interaction(learner, x, lambda label, _: teacher.answer(label, truth, rng),
                                max_questions, reveal_step, ties, probation)
    return [q.index for q in questions.asked]


def run_once(X: np.ndarray, y: np.ndarray, names: Sequence[str], new: int, before: int,
             after: int, max_questions: int, prior: str, rho: float, seed: int,
             reveal_step: str = DEFAULT_REVEAL_STEP,
             probation: int = DEFAULT_PROBATION, centring: str = 'none',
             C: float = 1.0) -> RunFigures:
    """Teach every class but ``new`` for ``before`` interactions, append it, go on."""
    centre = Centring(centring)
    rng = np.random.default_rng(seed)
    known_rows = np.flatnonzero(y != new)
    first = rng.choice(known_rows, size=before, replace=False)
    rest = np.setdiff1d(np.arange(len(y)), first)
    second = rng.choice(rest, size=min(after, rest.size), replace=False)
    known = [c for c in range(len(names)) if c != new]
    index_of = {c: i for i, c in enumerate(known)}
    index_of[new] = len(known)
    learner = FastUCWL([names[c] for c in known], X.shape[1], seed=seed,
                       added_label_prior=prior, C=C)
    teacher = TeacherModel(rho0=rho, rho1=rho)
    answers, ties = np.random.default_rng(seed + 1), np.random.default_rng(seed + 2)
    right_first, questions = [], []
    for t, row in enumerate(np.concatenate([first, second])):
        if t == before:
            learner.add_label(names[new])
        truth = index_of[int(y[row])]
        asked = ask(learner, centre.apply(X[row]), truth, max_questions, reveal_step,
                    teacher, answers, ties, probation)
        right_first.append(asked[0] == truth)
        questions.append(len(asked))
    right_first, questions = np.array(right_first), np.array(questions)
    truths = np.array([index_of[int(c)] for c in y[np.concatenate([first, second])]])
    after_idx = np.arange(before, len(truths))
    is_new = truths[after_idx] == index_of[new]
    window = after_idx[:100]
    known_window = window[~is_new[:100]]
    return RunFigures(
        new_by_showing=list(right_first[after_idx[is_new]]),
        known_before_50=float(right_first[before - 50:before].mean()),
        known_before_100=float(right_first[max(0, before - 100):before].mean()),
        known_after_100=float(right_first[known_window].mean()),
        all_after_100=float(right_first[window].mean()),
        questions_after_100=float(questions[window].mean()),
        questions_before_50=float(questions[before - 50:before].mean()))


def showing_accuracy(runs: Sequence[RunFigures], low: int, high) -> float:
    """Mean first-guess accuracy of the new gesture over its showings low..high (all runs)."""
    values = [v for r in runs for v in r.new_by_showing[low - 1:high]]
    return float(np.mean(values)) if values else float('nan')


def summarise(runs: Sequence[RunFigures]) -> Dict[str, float]:
    """Return the reported figures, means over runs."""
    out = {f'new {lo}-{hi or ""}': showing_accuracy(runs, lo, hi) for lo, hi in SHOWINGS}
    for key in ('known_before_50', 'known_before_100', 'known_after_100', 'all_after_100',
                'questions_before_50', 'questions_after_100'):
        out[key] = float(np.mean([getattr(r, key) for r in runs]))
    per_run = [np.mean(r.new_by_showing[5:10]) for r in runs if r.new_by_showing[5:10]]
    out['new 6-10 worst'] = float(min(per_run)) if per_run else float('nan')
    out['known_after_100_std'] = float(np.std([r.known_after_100 - r.known_before_50
                                               for r in runs]))
    return out


def main(argv=None) -> int:
    """Print one table per data set."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--data', nargs='+', default=['session', 'landmarks', 'digits'],
                        choices=['session', 'landmarks', 'digits', 'sign_digits'])
    parser.add_argument('--sign-classes', type=int, default=6,
                        help='sign digits taken (the last of them is the new one in turn)')
    parser.add_argument('--runs', type=int, default=24)
    parser.add_argument('--n', type=int, default=1000, help='rendered images')
    parser.add_argument('--before', type=int, default=150)
    parser.add_argument('--after', type=int, default=250)
    parser.add_argument('--rho', type=float, default=0.1, help='flip probability per answer')
    parser.add_argument('--max-questions', type=int, default=3,
                        help='questions per interaction of the ask-again arm')
    parser.add_argument('--reveal-steps', nargs='+', choices=REVEAL_STEPS,
                        default=list(dict.fromkeys([DEFAULT_REVEAL_STEP, 'none'])),
                        help='reveal steps of the ask-again arms (the first is the default)')
    parser.add_argument('--probations', nargs='+', type=int,
                        default=list(dict.fromkeys([DEFAULT_PROBATION, 0])),
                        help="the new label's probation in the ask-again arms")
    parser.add_argument('--priors', nargs='+', default=list(ADDED_LABEL_PRIORS),
                        choices=ADDED_LABEL_PRIORS, help="UCWL's added_label_prior values")
    parser.add_argument('--C', type=float, default=1.0,
                        help="UCWL's C (config/camera.params.yaml: 0.5)")
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)
    if args.before < 100:
        parser.error('--before must be >= 100 (the 100 interactions before are reported)')
    print(f'# {platform.processor() or platform.machine()}, {platform.python_version()}; '
          f'{args.runs} runs, addition after interaction {args.before}, {args.after} after, '
          f'{args.rho:.0%} wrong answers')
    for name in args.data:
        start = time.perf_counter()
        try:
            X, y, names = load(name, args.n, args.seed, args.sign_classes)
        except RuntimeError as exc:
            print(f'\n## {name}: skipped ({exc})')
            continue
        centring = 'running' if name == 'sign_digits' else 'none'  # the others come centred
        K = len(names)
        print(f'\n## {name}: {len(y)} rows, {X.shape[1]} features, {K - 1} classes then the '
              f'{K}th (each class the new one in turn)')
        b = args.before
        print(f'| protocol | new label start | new 1-5 | new 6-10 (worst run) | new 11+ '
              f'| known {b - 99}-{b} '
              f'| known {b - 49}-{b} | known after (100) | after - before(50) | all after (100) '
              f'| questions/interaction {b - 49}-{b} | after (100) |')
        print('| --- ' * 12 + '|')
        arms = [(1, 'none', 0)] + [(args.max_questions, step, probation)
                                   for step in args.reveal_steps
                                   for probation in args.probations]
        for max_q, step, probation in arms:
            protocol = ('one question' if max_q == 1
                        else f'ask again (<= {max_q}, reveal {step}, probation {probation})')
            for prior in args.priors:
                runs = [run_once(X, y, names, r % K, args.before, args.after, max_q, prior,
                                 args.rho, args.seed * 1000 + r, step, probation, centring,
                                 args.C)
                        for r in range(args.runs)]
                s = summarise(runs)
                print(f'| {protocol} | {prior} | {s["new 1-5"]:.3f} | {s["new 6-10"]:.3f} '
                      f'({s["new 6-10 worst"]:.3f}) | '
                      f'{s["new 11-"]:.3f} | {s["known_before_100"]:.3f} | '
                      f'{s["known_before_50"]:.3f} | {s["known_after_100"]:.3f} | '
                      f'{s["known_after_100"] - s["known_before_50"]:+.3f} '
                      f'(sd {s["known_after_100_std"]:.3f}) | {s["all_after_100"]:.3f} | '
                      f'{s["questions_before_50"]:.2f} '
                      f'| {s["questions_after_100"]:.2f} |', flush=True)
        print(f'# {name}: {time.perf_counter() - start:.0f} s')
    return 0


if __name__ == '__main__':
    sys.exit(main())
