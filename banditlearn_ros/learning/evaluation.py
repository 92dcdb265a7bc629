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
The offline evaluation protocol of Ngo et al. 2013, section 5.

One pass over a data set in a random order; the online mistake rate (#mistakes /
#predictions) against the label the simulated person had in mind (the observed, possibly
noisy label) and against the true label; the number of model updates; the runtime.  Every
algorithm sees the same 20 permutations (``make_streams``), and within a permutation the
same noisy labels and the same random numbers for the person's answers (common random
numbers: a flip or a silence happens in the same round for every algorithm, whatever it
output).  Parameters are tuned on one further permutation that is never used for the
reported figures, over each algorithm's grid; a tuned value on the edge of a grid is
flagged, because the optimum may lie outside.  Optionally (not the paper's protocol) the
tuning uses N such permutations and picks the lowest mean, since one noisy run is a noisy
judge.

The feedback model is ``learning.feedback.TeacherModel``: label noise p (the observed label
is a uniform random label with probability p), flip noise (rho0, rho1) and a probability
of no answer.  Full-feedback references are told the observed label (so label noise and
silence reach them too; a flip of a yes/no answer has no meaning for them).

The ask-again protocol (``learning.ask_again``) runs through ``run_questions``: question 1 of
each interaction is answered with the stream's own draws (so one question is the paper's
protocol, decision for decision), later questions with draws of their own that every
algorithm and every ``max_questions`` share; the mistakes are those of the first guess.
"""

from dataclasses import dataclass, field
import itertools
import math
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .base import BanditLearner, HyperparameterError
from .centring import Centring, CENTRING_MODES, DEFAULT_CENTRING
from .feedback import TeacherModel

TUNING_STREAM = 1_000_000
"""Stream index of the (first) tuning permutation; the reported ones are 0..n-1."""

PAPER_C = [2.0 ** e for e in range(-5, 6)]
PAPER_ETA = [round(0.5 + 0.05 * i, 2) for i in range(1, 10)]
PAPER_K = [round(0.2 * i, 1) for i in range(1, 16)]

GRIDS: Dict[str, Dict[str, List[Any]]] = {
    # Seed 000 section 5: C in 2^-5..2^5, eta in 0.55..0.95, k in 0.2..3.0.
    'ucwl': {'C': PAPER_C, 'eta': PAPER_ETA, 'k': PAPER_K},
    # Confidit's eta multiplies the variance (eps^2 = eta x^T A^-1 x), so the paper's k
    # grid enters squared.
    'confidit': {'eta': [round(v * v, 2) for v in PAPER_K]},
    'banditron': {'gamma': [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4]},
    'rcnbf': {'gamma': [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4]},
    'rcine': {'gamma': [0.01, 0.05, 0.1, 0.2, 0.4]},
    'mscw': {'C': PAPER_C, 'eta': PAPER_ETA},
    'marow': {'r': PAPER_C},
    'mcw': {'eta': PAPER_ETA},
    'mpa': {'C': PAPER_C},
    'perceptron': {},
}

VARIANTS: Dict[str, Tuple[str, Dict[str, Any]]] = {
    'ucwl-variance': ('ucwl', {'diagonal': 'variance'}),
    'ucwl-paper': ('ucwl', {'centring': 'none'}),
}
"""Named variants run and reported beside their base algorithm: {name: (base, fixed)}.

``ucwl-variance`` is UCWL with the other reading of Ngo et al. 2013's diagonalisation step (see
``confidence_weighted``), so one command shows what that choice is worth.  ``ucwl-paper``
is UCWL on the vectors as given (no centring): the papers' algorithm and protocol exactly,
beside the package's default ``ucwl`` (centred, ``learning.centring``)."""


def variant_base(name: str) -> Tuple[str, Dict[str, Any]]:
    """Return (base algorithm, preset parameters) for an algorithm or a named variant."""
    return VARIANTS.get(name, (name, {}))


WIDE_GRIDS: Dict[str, Dict[str, List[Any]]] = {
    'ucwl': {'C': [2.0 ** e for e in range(-7, 8)],
             'eta': PAPER_ETA + [0.975, 0.99],
             'k': PAPER_K + [3.5, 4.0, 5.0]},
}
"""Grids widened past the paper's edges, for ``--wide-grids``."""


@dataclass
class Stream:
    """
    One permutation of a data set with everything random about the person fixed.

    Attributes
    ----------
    index : int
        Stream number (``TUNING_STREAM`` for the tuning permutation).
    order : numpy.ndarray
        Example indices in presentation order.
    y_true, y_obs : numpy.ndarray
        True label and the label the person has in mind, per round.
    u_silent, u_flip : numpy.ndarray
        Uniform numbers per round: silence when ``u_silent < no_answer``; the answer is
        flipped when ``u_flip`` is below the flip rate that applies.
    seed : int
        Seed for the learner's own randomness (exploration, tie-breaking).

    """

    index: int
    order: np.ndarray
    y_true: np.ndarray
    y_obs: np.ndarray
    u_silent: np.ndarray
    u_flip: np.ndarray
    seed: int

    def __len__(self) -> int:
        return len(self.order)


def make_stream(y: np.ndarray, n_labels: int, teacher: TeacherModel, index: int,
                seed: int = 0) -> Stream:
    """
    Build stream ``index``; the permutation depends only on (seed, index), not the noise.

    So the same 20 orders are used at every noise level and by every algorithm.
    """
    y = np.asarray(y)
    rng = np.random.default_rng([int(seed), int(index)])
    order = rng.permutation(len(y))
    y_true = y[order].astype(np.int64)
    noise_rng = np.random.default_rng([int(seed), int(index), 1])
    y_obs = teacher.observed_labels(y_true, n_labels, noise_rng).astype(np.int64)
    u_silent = noise_rng.random(len(y))
    u_flip = noise_rng.random(len(y))
    learner_seed = int(rng.integers(2 ** 31))
    return Stream(index, order, y_true, y_obs, u_silent, u_flip, learner_seed)


def make_streams(y: np.ndarray, n_labels: int, teacher: TeacherModel, n_permutations: int,
                 seed: int = 0) -> List[Stream]:
    """Return the reported streams 0..n_permutations-1."""
    return [make_stream(y, n_labels, teacher, p, seed) for p in range(n_permutations)]


def tuning_streams(y: np.ndarray, n_labels: int, teacher: TeacherModel, n_tuning: int = 1,
                   seed: int = 0) -> List[Stream]:
    """
    Return the tuning streams TUNING_STREAM, TUNING_STREAM+1, ... (n_tuning of them).

    The first is the paper's single tuning permutation, so n_tuning=1 changes nothing.
    """
    if n_tuning < 1:
        raise HyperparameterError(f'need at least one tuning permutation, got {n_tuning}')
    return [make_stream(y, n_labels, teacher, TUNING_STREAM + j, seed) for j in range(n_tuning)]


def answer(teacher: TeacherModel, stream: Stream, t: int, output: int) -> Optional[bool]:
    """Return the person's answer in round t about ``output`` (None is silence)."""
    if stream.u_silent[t] < teacher.no_answer:
        return None
    right = output == stream.y_obs[t]
    flip = teacher.rho1 if right else teacher.rho0
    return bool(right != (stream.u_flip[t] < flip))


def answers(teacher: TeacherModel, stream: Stream, t: int,
            outputs: np.ndarray) -> Tuple[bool, np.ndarray]:
    """Vector form of ``answer`` for many outputs: (silent, said_right per output)."""
    silent = bool(stream.u_silent[t] < teacher.no_answer)
    right = outputs == stream.y_obs[t]
    flip = stream.u_flip[t] < np.where(right, teacher.rho1, teacher.rho0)
    return silent, right != flip


@dataclass
class RunResult:
    """What one algorithm did on one stream."""

    mistakes_observed: int
    mistakes_true: int
    updates: int
    seconds: float
    rounds: int
    curve_observed: Optional[np.ndarray] = None
    curve_true: Optional[np.ndarray] = None

    @property
    def rate_observed(self) -> float:
        """Online mistake rate against the observed label."""
        return self.mistakes_observed / max(self.rounds, 1)

    @property
    def rate_true(self) -> float:
        """Online mistake rate against the true label."""
        return self.mistakes_true / max(self.rounds, 1)


Runner = Callable[[Dict[str, Any], np.ndarray, Stream, TeacherModel, int, bool], RunResult]
GridRunner = Callable[..., List[List[RunResult]]]
"""``(settings, X, streams, teacher, n_labels, progress=None, jobs=1) -> [setting][stream]``."""


@dataclass
class Algorithm:
    """
    An algorithm the protocol can run: its grid, fixed parameters and how to run it.

    ``run(params, X, stream, teacher, n_labels, curves)`` does one pass; ``run_grid``, when
    given, runs many parameter settings on several streams at once (used for tuning) and
    returns one list of per-stream results per setting.
    """

    name: str
    run: Runner
    grid: Dict[str, List[Any]] = field(default_factory=dict)
    fixed: Dict[str, Any] = field(default_factory=dict)
    run_grid: Optional[GridRunner] = None
    grid_jobs: int = 1
    """Worker processes ``run_grid`` may use while tuning (``banditlearn_evaluate --jobs``)."""
    feedback: str = 'bandit'
    centring: str = 'none'
    """Mean taken out of each stream's vectors before the algorithm sees them
    (``centred_streams``)."""


def centred_streams(X: np.ndarray, streams: Sequence[Stream],
                    mode: str) -> Tuple[np.ndarray, List[Stream]]:
    """
    Return the vectors each stream shows, centred as ``Interaction`` centres them live.

    The running mean depends on the order of the vectors only (never on answers), so a
    centred stream is a fixed sequence: one block of rows per stream, in presentation
    order, and copies of the streams that read their block in order.  Every runner
    (``run_learner``, ``run_questions``, the UCWL grid) then sees the centred vectors
    without knowing about centring.  ``none`` returns ``X`` and the streams unchanged.
    """
    if mode not in CENTRING_MODES:
        raise HyperparameterError(f'centring={mode!r} is not one of {list(CENTRING_MODES)}')
    if mode == 'none':
        return X, list(streams)
    blocks, out, start = [], [], 0
    for stream in streams:
        blocks.append(Centring(mode).centre_sequence(X[stream.order]))
        out.append(Stream(stream.index, np.arange(start, start + len(stream)),
                          stream.y_true, stream.y_obs, stream.u_silent, stream.u_flip,
                          stream.seed))
        start += len(stream)
    return np.concatenate(blocks), out


def run_learner(algorithm: str, params: Dict[str, Any], X: np.ndarray, stream: Stream,
                teacher: TeacherModel, n_labels: int, curves: bool = False) -> RunResult:
    """Run one learning-core algorithm for one pass over ``stream`` (the reference loop)."""
    from . import make_learner
    learner = make_learner(algorithm, n_labels, X.shape[1], seed=stream.seed, **params)
    n = len(stream)
    outputs = np.empty(n, dtype=np.int64)
    bandit = isinstance(learner, BanditLearner)
    start = time.perf_counter()
    for t in range(n):
        x = X[stream.order[t]]
        if bandit:
            prediction = learner.select(x)
            out = prediction.index
            said = answer(teacher, stream, t, out)
            if said is not None:
                learner.learn(x, out, said, prediction)
        else:
            out = learner.predict(x)
            if stream.u_silent[t] >= teacher.no_answer:
                learner.learn_true(x, int(stream.y_obs[t]))
        outputs[t] = out
    seconds = time.perf_counter() - start
    return _result(outputs, stream, learner.n_updates, seconds, curves)


def _result(outputs: np.ndarray, stream: Stream, updates: int, seconds: float,
            curves: bool) -> RunResult:
    wrong_obs = outputs != stream.y_obs
    wrong_true = outputs != stream.y_true
    res = RunResult(int(wrong_obs.sum()), int(wrong_true.sum()), int(updates), seconds,
                    len(outputs))
    if curves:
        res.curve_observed = np.cumsum(wrong_obs).astype(np.int32)
        res.curve_true = np.cumsum(wrong_true).astype(np.int32)
    return res


@dataclass
class QuestionsResult(RunResult):
    """A run of the ask-again protocol: first guesses are the mistakes; what it cost."""

    questions: int = 0
    answers: int = 0
    outcomes: Dict[str, int] = field(default_factory=dict)
    first_wrong_true: Optional[np.ndarray] = None
    questions_per: Optional[np.ndarray] = None
    """Per interaction: was the first guess wrong (true label), how many questions."""

    def window(self, start: int, stop: int) -> Tuple[float, float]:
        """
        Return (first-guess mistake rate, questions per interaction) in a window.

        Mistakes against the true label, over interactions ``start``..``stop`` (1-based,
        inclusive).
        """
        sl = slice(start - 1, stop)
        return (float(np.mean(self.first_wrong_true[sl])),
                float(np.mean(self.questions_per[sl])))


def question_uniforms(stream: Stream, n_labels: int) -> Tuple[np.ndarray, np.ndarray]:
    """
    Return uniforms for questions 2..K of every interaction: (silence, flip), n x (K-1).

    Drawn from their own generator, so question 1 keeps the stream's numbers (the
    one-question protocol is unchanged) and question q of interaction t gets the same
    numbers for every algorithm and every ``max_questions`` (common random numbers).
    """
    rng = np.random.default_rng([int(stream.seed), int(stream.index), 2])
    shape = (len(stream), max(n_labels - 1, 0))
    return rng.random(shape), rng.random(shape)


def run_questions(algorithm: str, params: Dict[str, Any], X: np.ndarray, stream: Stream,
                  teacher: TeacherModel, n_labels: int, curves: bool = False,
                  max_questions: int = 3,
                  reveal_step: Optional[str] = None) -> QuestionsResult:
    """
    Run the ask-again protocol (``learning.ask_again``) for one pass over ``stream``.

    Question 1 of interaction t is answered exactly as in ``run_learner`` (so
    ``max_questions=1`` is the paper's protocol, decision for decision); each later question
    gets its own silence and flip draw (``question_uniforms``): flip noise hits every answer.
    Mistakes are those of the first guess.
    """
    from . import make_learner
    from .ask_again import check_protocol, DEFAULT_REVEAL_STEP, run_interaction
    reveal_step = DEFAULT_REVEAL_STEP if reveal_step is None else reveal_step
    check_protocol(algorithm, max_questions, reveal_step)
    learner = make_learner(algorithm, n_labels, X.shape[1], seed=stream.seed, **params)
    rng = np.random.default_rng([int(stream.seed), int(stream.index), 3])
    u_silent, u_flip = question_uniforms(stream, n_labels)
    n = len(stream)
    outputs = np.empty(n, dtype=np.int64)
    questions_per = np.empty(n, dtype=np.int16)
    outcomes: Dict[str, int] = {}
    answers = 0
    start = time.perf_counter()
    for t in range(n):
        def ask(index: int, number: int, t: int = t) -> Optional[bool]:
            if number == 1:
                return answer(teacher, stream, t, index)
            if u_silent[t, number - 2] < teacher.no_answer:
                return None
            right = index == stream.y_obs[t]
            flip = teacher.rho1 if right else teacher.rho0
            return bool(right != (u_flip[t, number - 2] < flip))
        q = run_interaction(learner, X[stream.order[t]], ask, max_questions, reveal_step, rng)
        outputs[t] = q.first.index
        questions_per[t] = q.number
        answers += q.answers
        outcomes[q.outcome] = outcomes.get(q.outcome, 0) + 1
    seconds = time.perf_counter() - start
    base = _result(outputs, stream, learner.n_updates, seconds, curves)
    return QuestionsResult(**vars(base), questions=int(questions_per.sum()), answers=answers,
                           outcomes=outcomes, first_wrong_true=outputs != stream.y_true,
                           questions_per=questions_per)


def questions_name(name: str, max_questions: int) -> str:
    """Return the reported name of ``name`` run with ``max_questions`` (0 = every label)."""
    return f"{name}-q{max_questions or 'K'}"


def questions_algorithm(name: str, max_questions: int, teacher: Optional[TeacherModel] = None,
                        fixed: Optional[Dict[str, Any]] = None,
                        reveal_step: Optional[str] = None) -> Algorithm:
    """
    Return ``name`` (a core bandit algorithm or variant) under the ask-again protocol.

    Its grid is empty: it runs with ``fixed``, normally the parameters tuned for the
    one-question protocol, so the protocol is what differs.
    """
    from .ask_again import check_protocol, DEFAULT_REVEAL_STEP
    base, preset = variant_base(name)
    step = DEFAULT_REVEAL_STEP if reveal_step is None else reveal_step
    check_protocol(base, max_questions, step)
    core = core_algorithm(name, teacher, fixed)

    def run(params, X, stream, teach, n_labels, curves=False):
        return run_questions(base, params, X, stream, teach, n_labels, curves, max_questions,
                             step)

    return Algorithm(name=questions_name(name, max_questions), run=run, grid={},
                     fixed=core.fixed, feedback=f'{max_questions or "K"} questions',
                     centring=core.centring)


def run_ucwl_settings(settings: List[Dict[str, Any]], X: np.ndarray, stream: Stream,
                      teacher: TeacherModel, n_labels: int) -> List[RunResult]:
    """Run many diagonal UCWL settings on one stream with ``UCWLGrid`` (same decisions)."""
    return [r[0] for r in run_ucwl_streams(settings, X, [stream], teacher, n_labels)]


def run_ucwl_streams(settings: List[Dict[str, Any]], X: np.ndarray, streams: Sequence[Stream],
                     teacher: TeacherModel, n_labels: int,
                     progress: Optional[Callable[[int], None]] = None,
                     jobs: int = 1) -> List[List[RunResult]]:
    """
    Run many UCWL settings on many streams in one ``UCWLGrid`` call; [setting][stream].

    ``progress`` is called with the number of (setting, stream) runs finished, block by block;
    the blocks run in ``jobs`` worker processes (``ucwl_grid.run_grid``).
    """
    from .ucwl_grid import run_grid
    variant = {s.get('variant', 'scw1') for s in settings}
    diagonal = {s.get('diagonal', 'precision') for s in settings}
    no_weight = {s.get('no_weight', 'equal') for s in settings}
    if (len(variant) != 1 or len(diagonal) != 1 or len(no_weight) != 1
            or any(s.get('covariance', 'diag') != 'diag' for s in settings)):
        results = []
        for s in settings:
            results.append([run_learner('ucwl', s, X, st, teacher, n_labels) for st in streams])
            if progress:
                progress(len(streams))
        return results
    start = time.perf_counter()
    out = run_grid(X, list(streams), teacher, n_labels, [s['eta'] for s in settings],
                   [s['C'] for s in settings], [s['k'] for s in settings],
                   variant=variant.pop(), diagonal=diagonal.pop(), progress=progress,
                   no_weight=no_weight.pop(), jobs=jobs)
    seconds = (time.perf_counter() - start) / (len(settings) * len(streams))
    return [[RunResult(int(out['mistakes_observed'][i, j]), int(out['mistakes_true'][i, j]),
                       int(out['updates'][i, j]), seconds, len(st))
             for j, st in enumerate(streams)]
            for i in range(len(settings))]


def core_algorithm(name: str, teacher: Optional[TeacherModel] = None,
                   fixed: Optional[Dict[str, Any]] = None,
                   grid: Optional[Dict[str, List[Any]]] = None,
                   centring: str = DEFAULT_CENTRING) -> Algorithm:
    """
    Return a learning-core algorithm (or a named variant of one) ready for the protocol.

    RCNBF is given the teacher's true flip rates (as Agarwal and Manwani 2021 run it).
    ``centring`` applies unless the variant or ``fixed`` names its own (``ucwl-paper``:
    none).
    """
    from . import ALGORITHMS, FULL_FEEDBACK_ALGORITHMS
    base, preset = variant_base(name)
    if base not in ALGORITHMS:
        choices = sorted(ALGORITHMS) + sorted(VARIANTS)
        raise HyperparameterError(f'unknown algorithm {name!r}; choose from {choices}')
    fixed = {**preset, **(fixed or {})}
    centring = fixed.pop('centring', centring)
    if base == 'rcnbf' and teacher is not None:
        fixed.setdefault('rho0', teacher.rho0)
        fixed.setdefault('rho1', teacher.rho1)

    def run(params, X, stream, teach, n_labels, curves=False):
        return run_learner(base, params, X, stream, teach, n_labels, curves)

    return Algorithm(
        name=name, run=run, grid=dict(GRIDS.get(base, {}) if grid is None else grid),
        fixed=fixed, run_grid=run_ucwl_streams if base == 'ucwl' else None,
        feedback='full' if base in FULL_FEEDBACK_ALGORITHMS else 'bandit', centring=centring)


@dataclass
class Tuning:
    """Result of tuning one algorithm on the tuning permutation(s)."""

    params: Dict[str, Any]
    rate: float
    edges: List[str]
    tried: int
    seconds: float
    rates: Optional[np.ndarray] = None
    """Observed-label mistake rate per setting (grid order) and tuning stream."""


def grid_settings(grid: Dict[str, List[Any]], fixed: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Every combination of the grid (in grid order) merged with the fixed parameters."""
    names = [n for n in grid if n not in fixed]
    combos = itertools.product(*[grid[n] for n in names]) if names else [()]
    return [{**fixed, **dict(zip(names, combo))} for combo in combos]


def edge_notes(grid: Dict[str, List[Any]], best: Dict[str, Any],
               fixed: Dict[str, Any]) -> List[str]:
    """Say which tuned numeric values sit on the edge of their grid."""
    notes = []
    for name, values in grid.items():
        if name in fixed or len(values) < 3:
            continue
        try:
            lo, hi = min(values), max(values)
        except TypeError:
            continue
        if best[name] == hi:
            notes.append(f'{name}={best[name]:g} is at the top of its grid [{lo:g}, {hi:g}]')
        elif best[name] == lo:
            notes.append(f'{name}={best[name]:g} is at the bottom of its grid [{lo:g}, {hi:g}]')
    return notes


def tune(algorithm: Algorithm, X: np.ndarray, y: np.ndarray, n_labels: int,
         teacher: TeacherModel, seed: int = 0,
         progress: Optional[Callable[[int], None]] = None, n_tuning: int = 1) -> Tuning:
    """
    Pick the grid setting with the lowest mean observed-label mistake rate.

    The mean is over the ``n_tuning`` tuning streams (one in the paper).  Ties go to the
    earlier setting in grid order, so the choice is reproducible.
    """
    settings = grid_settings(algorithm.grid, algorithm.fixed)
    X, streams = centred_streams(X, tuning_streams(y, n_labels, teacher, n_tuning, seed),
                                 algorithm.centring)
    start = time.perf_counter()
    if algorithm.run_grid is not None and len(settings) > 1:
        results = algorithm.run_grid(settings, X, streams, teacher, n_labels,
                                     progress=progress, jobs=algorithm.grid_jobs)
    else:
        results = []
        for s in settings:
            row = []
            for stream in streams:
                row.append(algorithm.run(s, X, stream, teacher, n_labels, False))
                if progress:
                    progress(1)
            results.append(row)
    table = np.array([[r.rate_observed for r in row] for row in results])
    means = table.mean(axis=1)
    best = int(np.argmin(means))
    return Tuning(settings[best], float(means[best]),
                  edge_notes(algorithm.grid, settings[best], algorithm.fixed),
                  len(settings), time.perf_counter() - start, table)


@dataclass
class Record:
    """One line of summary.json: a data set x noise setting x algorithm over all streams."""

    dataset: str
    noise: Dict[str, float]
    algorithm: str
    feedback: str
    params: Dict[str, Any]
    tuned: bool
    edges: List[str]
    runs: List[RunResult]

    def summary(self) -> Dict[str, Any]:
        """Return the JSON-able means and standard deviations."""
        obs = np.array([r.rate_observed for r in self.runs])
        tru = np.array([r.rate_true for r in self.runs])
        upd = np.array([r.updates for r in self.runs], dtype=float)
        sec = np.array([r.seconds for r in self.runs])
        rounds = self.runs[0].rounds if self.runs else 0
        return {
            'dataset': self.dataset, 'noise': dict(self.noise), 'algorithm': self.algorithm,
            'feedback': self.feedback, 'permutations': len(self.runs), 'rounds': rounds,
            'mistake_rate_observed': {'mean': _f(obs.mean()), 'std': _f(obs.std())},
            'mistake_rate_true': {'mean': _f(tru.mean()), 'std': _f(tru.std())},
            'updates': {'mean': _f(upd.mean()), 'std': _f(upd.std())},
            'seconds': {'mean': _f(sec.mean()), 'std': _f(sec.std())},
            'params': {k: _plain(v) for k, v in self.params.items()},
            'tuned': self.tuned, 'edge_of_grid': list(self.edges),
            'curve_observed': _sampled(self.mean_curve('observed')),
            **self._questions_summary(),
        }

    def _questions_summary(self) -> Dict[str, Any]:
        """Return what the ask-again protocol cost (empty for a one-question run)."""
        if not self.runs or not all(isinstance(r, QuestionsResult) for r in self.runs):
            return {}
        per = np.array([r.questions / max(r.rounds, 1) for r in self.runs])
        ans = np.array([r.answers / max(r.rounds, 1) for r in self.runs])
        outcomes: Dict[str, float] = {}
        for r in self.runs:
            for k, v in r.outcomes.items():
                outcomes[k] = outcomes.get(k, 0.0) + v / (max(r.rounds, 1) * len(self.runs))
        return {'questions_per_interaction': {'mean': _f(per.mean()), 'std': _f(per.std())},
                'answers_per_interaction': {'mean': _f(ans.mean()), 'std': _f(ans.std())},
                'outcomes': {k: round(v, 5) for k, v in sorted(outcomes.items())}}

    def mean_curve(self, which: str = 'observed') -> Optional[np.ndarray]:
        """Cumulative online mistake rate per round, averaged over the streams."""
        curves = [getattr(r, 'curve_' + which) for r in self.runs]
        if not curves or any(c is None for c in curves):
            return None
        cum = np.mean(np.stack(curves), axis=0)
        return cum / np.arange(1, len(cum) + 1)


def _sampled(curve: Optional[np.ndarray], points: int = 50) -> Optional[Dict[str, list]]:
    """Return the mean cumulative mistake rate at up to ``points`` rounds (for plots)."""
    if curve is None:
        return None
    rounds = np.unique(np.linspace(1, len(curve), points).round().astype(int))
    return {'round': rounds.tolist(), 'rate': [round(float(v), 5) for v in curve[rounds - 1]]}


def _f(v: float) -> float:
    v = float(v)
    return v if math.isfinite(v) else None


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return v


def evaluate(algorithm: Algorithm, X: np.ndarray, y: np.ndarray, n_labels: int,
             teacher: TeacherModel, dataset: str, n_permutations: int = 20, seed: int = 0,
             do_tune: bool = True, curves: bool = False,
             progress: Optional[Callable[[int], None]] = None,
             n_tuning: int = 1) -> Record:
    """
    Run the whole protocol for one algorithm: tune (or take fixed values), then run streams.

    Parameters
    ----------
    algorithm : Algorithm
        What to run, with its grid and fixed parameters.
    X, y : numpy.ndarray
        Features (n x d) and true labels (n).
    n_labels : int
        Number of labels.
    teacher : TeacherModel
        Feedback model.
    dataset : str
        Name recorded in the result.
    n_permutations : int
        Number of reported permutations (20 in the paper).
    seed : int
        Seed of the permutations and of every random draw.
    do_tune : bool
        Tune over ``algorithm.grid`` on the separate tuning permutation; when False the
        fixed parameters (plus the learners' defaults) are used.
    curves : bool
        Keep per-round cumulative mistakes (memory n_permutations x n).
    progress : callable, optional
        Called with a number of finished runs.
    n_tuning : int
        Number of separate tuning permutations whose mean decides (1 in the paper).

    Returns
    -------
    Record
        The per-stream results with the chosen parameters.

    """
    if n_permutations < 1:
        raise HyperparameterError(f'need at least one permutation, got {n_permutations}')
    if n_permutations > TUNING_STREAM:
        raise HyperparameterError(f'at most {TUNING_STREAM} permutations (the tuning '
                                  'streams must stay separate)')
    if n_tuning < 1:
        raise HyperparameterError(f'need at least one tuning permutation, got {n_tuning}')
    X = np.asarray(X, dtype=np.float64)
    params, edges, tuned = dict(algorithm.fixed), [], False
    if do_tune and grid_settings(algorithm.grid, algorithm.fixed) != [algorithm.fixed]:
        result = tune(algorithm, X, y, n_labels, teacher, seed, progress, n_tuning)
        params, edges, tuned = result.params, result.edges, True
    runs = []
    Xc, streams = centred_streams(X, make_streams(y, n_labels, teacher, n_permutations, seed),
                                  algorithm.centring)
    for stream in streams:
        runs.append(algorithm.run(params, Xc, stream, teacher, n_labels, curves))
        if progress:
            progress(1)
    noise = {'label_noise': teacher.label_noise, 'rho0': teacher.rho0, 'rho1': teacher.rho1,
             'no_answer': teacher.no_answer}
    if algorithm.centring != 'none':
        params = dict(params, centring=algorithm.centring)
    return Record(dataset, noise, algorithm.name, algorithm.feedback, params, tuned, edges,
                  runs)


def count_runs(algorithm: Algorithm, n_permutations: int, do_tune: bool,
               n_tuning: int = 1) -> int:
    """Return how many progress steps ``evaluate`` will report (for a progress bar)."""
    n = n_permutations
    settings = grid_settings(algorithm.grid, algorithm.fixed)
    if do_tune and settings != [algorithm.fixed]:
        n += len(settings) * n_tuning
    return n
