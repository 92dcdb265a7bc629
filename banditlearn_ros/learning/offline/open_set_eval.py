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
Open-set evaluation: how well never-taught gestures are told apart, and what rejecting costs.

Shared by ``banditlearn_evaluate --open-set`` and ``benchmarks/bench_unknown.py``.  Per split,
some classes are taught and the others never are.  The learner is UCWL with the node's
defaults (three questions, reveal step 'all'), answered by a faultless person through
``Interaction``; a taught gesture whose questions all missed (or that was rejected) is named
by the person (``name_unknown``), a never-taught one is not.

- ``separation``: one pass over 70 % of the taught examples, then every score
  (``open_set.SCORES``) of the other 30 % and of the never-taught ones: AUROC and the share
  of never-taught ones below the 5 % quantile of the taught (rejected at 5 % false rejection).
- ``session``: a stream with a share of never-taught gestures, rejection on or off; the
  records give false rejection where armed, never-taught rejected, yes/no questions per
  never-taught gesture and first-guess accuracy on taught ones (``summarise``).
"""

from typing import Dict, List, Tuple

import numpy as np

from ..algorithms.centring import Centring, DEFAULT_CENTRING
from ..algorithms.open_set import OpenSet, SCORES
from ..algorithms.ucwl import UCWL
from ..protocol.interaction import Interaction


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


class FaultlessPerson:
    """
    Drive one ``Interaction`` with a person; record what each gesture cost.

    Faultless unless ``wrong`` > 0: then each yes/no is the wrong one with that probability
    (from its own generator, the same for every arm of a split); naming a taught gesture the
    questions missed stays right.
    """

    def __init__(self, names: List[str], n_features: int, open_set: OpenSet, seed: int,
                 centring: str = DEFAULT_CENTRING, wrong: float = 0.0):
        def make(d):
            learner = UCWL(list(names), d, seed=seed)
            learner.centring = Centring(centring)
            return learner
        self.names = names
        self.inter = Interaction(make,
                                 max_questions=3, seed=seed, open_set=open_set,
                                 clock=lambda: 0.0, n_features=n_features)
        self.rows: List[Dict] = []
        self.wrong = float(wrong)
        self._slips = np.random.default_rng([seed, 77])

    def show(self, x: np.ndarray, truth: str, record: bool = True) -> None:
        """Show one gesture, answer every question, name a taught one the questions missed."""
        inter = self.inter
        item, _ = inter.predict(x, now=0.0)
        verdict, first = item.verdict, item.prediction.label
        declined = item.questions.declined
        while not declined:
            said = item.prediction.label == truth
            if self.wrong and self._slips.random() < self.wrong:
                said = not said
            result = inter.feedback(said, now=0.0)
            if result.next_round is None:
                break
            item = result.next_round
        questions = item.questions
        if truth in self.names and questions.revealed is None:
            inter.name_unknown(truth)
        if record:  # declined: rejected at any question; early: before question 1
            rejected = questions.outcome == 'unknown'  # armed then (an early recheck too)
            self.rows.append({
                'known': truth in self.names, 'declined': rejected, 'early': declined,
                'armed': bool(verdict is not None and verdict.armed) or rejected,
                'first_right': (not declined) and first == truth,
                'questions': questions.n_asked})


def split_classes(y: np.ndarray, n_classes: int, n_taught: int, seed: int):
    """Return (taught classes, never-taught classes) of split ``seed``."""
    rng = np.random.default_rng(1000 + seed)
    unknown = np.sort(rng.choice(n_classes, n_classes - n_taught, replace=False))
    return [c for c in range(n_classes) if c not in unknown], list(unknown)


def separation(X, y, names, n_taught: int, seed: int, settings: Dict,
               centring: str = DEFAULT_CENTRING) -> Dict[str, tuple]:
    """Return ``{score: (AUROC, rejected at 5 %)}`` after one pass over 70 % of the taught."""
    taught, unknown = split_classes(y, len(names), n_taught, seed)
    rng = np.random.default_rng(seed)
    idx = rng.permutation(np.flatnonzero(np.isin(y, taught)))
    train, test = idx[:int(0.7 * idx.size)], idx[int(0.7 * idx.size):]
    never = np.flatnonzero(np.isin(y, unknown))
    open_set = OpenSet(True, **{**settings, 'warmup': 10 ** 9})  # learn, never reject
    person = FaultlessPerson([names[c] for c in taught], X.shape[1], open_set, seed, centring)
    for t in train:
        person.show(X[t], names[y[t]], record=False)
    learner = person.inter.learner

    def scores(rows):  # the learner sees x centred (looked at, not taken in); the score, x
        return np.array([open_set.score(X[t], learner.select(learner.centred(X[t], take=False)))
                         for t in rows])
    out = {}
    for score in SCORES:
        open_set.score_name = score
        s_known, s_never = scores(test), scores(never)
        out[score] = (auroc(s_known, s_never),
                      float(np.mean(s_never < np.quantile(s_known, 0.05))))
    return out


def session(X, y, names, n_taught: int, seed: int, settings: Dict, n: int,
            unknown_share: float, reject: bool, centring: str = DEFAULT_CENTRING,
            taught_only: bool = False, wrong: float = 0.0) -> Tuple[List[Dict], float]:
    """
    Return the per-gesture records of one session of ``n`` gestures, and the model's accuracy.

    The accuracy is the final model's greedy label (no exploration) on every taught example:
    what the never-taught gestures' "no" answers did to the known labels.  ``taught_only``
    shows the same stream without its never-taught gestures (the baseline of that).
    """
    taught, unknown = split_classes(y, len(names), n_taught, seed)
    rng = np.random.default_rng(seed + 500)
    n_never = int(round(unknown_share * n))
    known = rng.choice(np.flatnonzero(np.isin(y, taught)), n - n_never,
                       replace=n - n_never > np.isin(y, taught).sum())
    never = rng.choice(np.flatnonzero(np.isin(y, unknown)), n_never,
                       replace=n_never > np.isin(y, unknown).sum())
    order = rng.permutation(np.concatenate([known, never]))
    if taught_only:
        order = order[np.isin(y[order], taught)]
    person = FaultlessPerson([names[c] for c in taught], X.shape[1],
                             OpenSet(reject, **settings), seed, centring, wrong)
    for t in order:
        person.show(X[t], names[y[t]])
    learner = person.inter.learner
    rows = np.flatnonzero(np.isin(y, taught))
    right = [learner.labels[learner.predict(learner.centred(X[t], take=False))] == names[y[t]]
             for t in rows]
    return person.rows, float(np.mean(right))


def summarise(rows: List[Dict], warmup: int) -> Dict[str, float]:
    """Return the session figures (rates pooled over the runs' gestures)."""
    def mean(values):
        return float(np.mean(values)) if len(values) else float('nan')
    late = [r for r in rows if r['index'] >= warmup]
    taught = [r for r in rows if r['known']]
    return {
        'false_rejection_armed': mean([r['declined'] for r in taught if r['armed']]),
        'false_rejection_first': mean([r['early'] for r in taught if r['armed']]),
        'false_rejection_late': mean([r['declined'] for r in late if r['known']]),
        'unknown_rejected_late': mean([r['declined'] for r in late if not r['known']]),
        'unknown_rejected': mean([r['declined'] for r in rows if not r['known']]),
        'questions_unknown': mean([r['questions'] for r in rows if not r['known']]),
        'questions_unknown_late': mean([r['questions'] for r in late if not r['known']]),
        'first_right': mean([r['first_right'] for r in taught]),
        'first_right_late': mean([r['first_right'] for r in late if r['known']]),
        'first_right_guessed': mean([r['first_right'] for r in taught if not r['declined']]),
        'unknown_where': where_unknown(rows, warmup),
        'unknown_by_period': [
            (lo, hi, mean([r['questions'] for r in rows
                           if not r['known'] and lo <= r['index'] < hi]))
            for lo, hi in PERIODS],
    }


PERIODS = ((0, 50), (50, 100), (100, 200), (200, 300), (300, 10 ** 9))
"""Parts of a session (gesture index) the questions per never-taught gesture are split by."""

WHERE = ('before question 1', 'after 1 "no"', 'after 2 "no"', 'armed, never rejected',
         'in the warm-up', 'not armed after it')
"""Where a never-taught gesture ended (``where_unknown``)."""


def where_unknown(rows: List[Dict], warmup: int) -> Dict[str, Tuple[float, float]]:
    """
    Return, per ``WHERE``, the share of never-taught gestures and their questions per gesture.

    The questions of a part, divided by all never-taught gestures, add up to the mean: where
    the questions per never-taught gesture come from.  "Not armed after it": the label asked
    first had too few "yes" answers, or the window too few taught scores.
    """
    never = [r for r in rows if not r['known']]
    out = {}
    for name in WHERE:
        out[name] = [0.0, 0.0]
    for r in never:
        if r['declined']:
            name = WHERE[min(r['questions'], 2)]
        elif r['armed']:
            name = WHERE[3]
        else:
            name = WHERE[4] if r['index'] < warmup else WHERE[5]
        out[name][0] += 1.0
        out[name][1] += r['questions']
    n = max(1, len(never))
    return {name: (share / n, questions / n) for name, (share, questions) in out.items()}


def open_set_figures(X: np.ndarray, y: np.ndarray, names: List[str], n_taught: int,
                     settings: Dict, splits: int = 10, interactions: int = 500,
                     unknown_share: float = 0.2, separate: bool = True,
                     centring: str = DEFAULT_CENTRING, wrong: float = 0.0,
                     first_split: int = 0) -> Dict[str, Dict]:
    """
    Return the figures of ``splits`` splits: separation per score, and the session on and off.

    Parameters
    ----------
    X, y, names : numpy.ndarray, numpy.ndarray, list of str
        The data set (``y`` indexes ``names``).
    n_taught : int
        Classes taught per split (the others are never taught).
    settings : dict
        ``OpenSet`` settings besides ``enabled``.
    splits, interactions, unknown_share : int, int, float
        Splits, gestures per session and the share of never-taught ones in it.
    separate : bool
        Measure the separation too (the session figures only otherwise).
    centring : str
        The learner's centring (``centring.CENTRING_MODES``; the node's default).
    wrong : float
        Probability that the person's yes/no is the wrong one (sessions only).
    first_split : int
        Seed of the first split (splits ``first_split`` ... ``first_split + splits - 1``):
        settings are tuned on other splits than the ones reported.

    Returns
    -------
    dict
        ``separation``: ``{score: {'auroc', 'auroc_min', 'rejected_at_5', 'rejected_at_5_min'}}``;
        ``on``, ``off`` and ``taught_only`` (the same streams without the never-taught
        gestures): ``summarise`` of the pooled sessions and ``model_accuracy``.

    """
    if not 1 <= n_taught < len(names):
        raise ValueError(f'need 1 <= taught classes < {len(names)}, got {n_taught}')
    out: Dict[str, Dict] = {'separation': {}}
    if separate:
        figures = [separation(X, y, names, n_taught, s, settings, centring)
                   for s in range(first_split, first_split + splits)]
        for score in SCORES:
            a = np.array([f[score] for f in figures])
            out['separation'][score] = {
                'auroc': float(a[:, 0].mean()), 'auroc_min': float(a[:, 0].min()),
                'rejected_at_5': float(a[:, 1].mean()),
                'rejected_at_5_min': float(a[:, 1].min())}
    for arm, reject in (('on', True), ('off', False), ('taught_only', False)):
        rows, accuracy = [], []
        for s in range(first_split, first_split + splits):
            run, acc = session(X, y, names, n_taught, s, settings, interactions, unknown_share,
                               reject, centring, arm == 'taught_only', wrong)
            rows += [{**r, 'index': i} for i, r in enumerate(run)]
            accuracy.append(acc)
        out[arm] = {**summarise(rows, settings['warmup']),
                    'model_accuracy': float(np.mean(accuracy))}
    return out


def report(figures: Dict[str, Dict], settings: Dict, splits: int, interactions: int) -> str:
    """Return ``open_set_figures`` as markdown: the separation table and the session lines."""
    lines = []
    if figures['separation']:
        lines += ['| score | AUROC | never-taught rejected at 5 % false rejection |',
                  '| --- | --- | --- |']
        for score, f in figures['separation'].items():
            lines.append(f"| {score} | {f['auroc']:.3f} (min {f['auroc_min']:.3f}) | "
                         f"{100 * f['rejected_at_5']:.1f} % "
                         f"(min {100 * f['rejected_at_5_min']:.1f} %) |")
        lines.append('')
    on, off, alone = figures['on'], figures['off'], figures['taught_only']
    pct = (lambda v: f'{100 * v:.2f} %')
    lines += [
        f'Sessions ({splits} x {interactions} gestures; "late" = after the first '
        f"{settings['warmup']}), score {settings['score']}, target {pct(settings['target'])}:",
        '',
        f"- false rejection of taught gestures where armed: {pct(on['false_rejection_armed'])}"
        f" (before question 1: {pct(on['false_rejection_first'])});"
        f" of all taught after the warm-up: {pct(on['false_rejection_late'])}",
        f"- never-taught rejected: {pct(on['unknown_rejected'])} "
        f"(late {pct(on['unknown_rejected_late'])})",
        f"- yes/no questions per never-taught gesture: {on['questions_unknown']:.2f} "
        f"(late {on['questions_unknown_late']:.2f}); without rejection "
        f"{off['questions_unknown']:.2f} (late {off['questions_unknown_late']:.2f})",
        '- first-guess accuracy on taught gestures (a rejected one counts as wrong): '
        f"{pct(on['first_right'])} with rejection, {pct(off['first_right'])} without "
        f"(late {pct(on['first_right_late'])} / {pct(off['first_right_late'])}); on the "
        f"taught gestures it did guess {pct(on['first_right_guessed'])}; the same stream "
        f"without its never-taught gestures {pct(alone['first_right'])}",
        '- where the never-taught gestures ended (share, yes/no questions per never-taught '
        'gesture): ' + '; '.join(f'{name} {100 * share:.1f} % ({q:.2f})'
                                 for name, (share, q) in on['unknown_where'].items()),
        '- yes/no questions per never-taught gesture by the part of the session (gesture '
        'index): ' + ', '.join(f"{lo}-{hi if hi < 10 ** 9 else 'end'}: {q:.2f}"
                               for lo, hi, q in on['unknown_by_period']),
        '- the final model on every taught example (greedy): '
        f"{pct(on['model_accuracy'])} with rejection, {pct(off['model_accuracy'])} without "
        f"(the never-taught gestures' \"no\" answers), {pct(alone['model_accuracy'])} with no "
        'never-taught gestures']
    return '\n'.join(lines)
