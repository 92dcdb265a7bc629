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

The feedback model is ``learning.protocol.feedback.TeacherModel``: label noise p (the
observed label is a uniform random label with probability p), flip noise (rho0, rho1) and a
probability of no answer.  Full-feedback references are told the observed label (so label
noise and silence reach them too; a flip of a yes/no answer has no meaning for them).

The ask-again protocol (``learning.protocol.ask_again``) runs through ``run_questions``:
question 1 of each interaction is answered with the stream's own draws (so one question is
the paper's protocol, decision for decision), later questions with draws of their own that
every algorithm and every ``max_questions`` share; the mistakes are those of the first guess.

The streams and what a run scores are in ``evaluation_streams``; the grids, the named
variants and tuning in ``evaluation_tuning``; this module runs the algorithms and the
whole protocol.
"""

from dataclasses import dataclass, field
import math
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .evaluation_streams import (
    answer, centred_streams, make_streams, question_uniforms, run_result, RunResult, Stream,
    TUNING_STREAM)
from .evaluation_tuning import Algorithm, grid_settings, GRIDS, tune, variant_base, VARIANTS
from ..algorithms.base import BanditLearner, HyperparameterError
from ..algorithms.centring import DEFAULT_CENTRING
from ..algorithms.ucwl import DEFAULT_NO_WEIGHT
from ..engine import plug
from ..protocol.teacher_model import TeacherModel


def run_learner(algorithm: str, params: Dict[str, Any], X: np.ndarray, stream: Stream,
                teacher: TeacherModel, n_labels: int, curves: bool = False) -> RunResult:
    """Run one learning-core algorithm for one pass over ``stream`` (the reference loop)."""
    from .. import make_learner
    learner = plug(make_learner(algorithm, n_labels, X.shape[1], seed=stream.seed, **params))
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
    return run_result(outputs, stream, learner.n_updates, seconds, curves)


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


def run_questions(algorithm: str, params: Dict[str, Any], X: np.ndarray, stream: Stream,
                  teacher: TeacherModel, n_labels: int, curves: bool = False,
                  max_questions: int = 3,
                  reveal_step: Optional[str] = None) -> QuestionsResult:
    """
    Run the ask-again protocol (``learning.protocol.ask_again``) for one pass over ``stream``.

    Question 1 of interaction t is answered exactly as in ``run_learner`` (so
    ``max_questions=1`` is the paper's protocol, decision for decision); each later question
    gets its own silence and flip draw (``question_uniforms``): flip noise hits every answer.
    Mistakes are those of the first guess.
    """
    from .. import make_learner
    from ..protocol.ask_again import check_protocol, DEFAULT_REVEAL_STEP, run_interaction
    reveal_step = DEFAULT_REVEAL_STEP if reveal_step is None else reveal_step
    check_protocol(algorithm, max_questions, reveal_step)
    learner = plug(make_learner(algorithm, n_labels, X.shape[1], seed=stream.seed, **params))
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
    base = run_result(outputs, stream, learner.n_updates, seconds, curves)
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
    from ..protocol.ask_again import check_protocol, DEFAULT_REVEAL_STEP
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
                     jobs: int = 1, prune: bool = False) -> List[List[Optional[RunResult]]]:
    """
    Run many UCWL settings on many streams in one ``UCWLGrid`` call; [setting][stream].

    ``progress`` is called with the number of (setting, stream) runs finished, block by block;
    the blocks run in ``jobs`` worker processes (``ucwl_grid_run.run_grid``).  With
    ``prune``, a setting that can no longer have the lowest mean observed mistake rate
    stops part way and its results are None (``ucwl_grid_prune``).
    """
    from .ucwl_grid_run import run_grid
    variant = {s.get('variant', 'scw1') for s in settings}
    diagonal = {s.get('diagonal', 'precision') for s in settings}
    no_weight = {s.get('no_weight', DEFAULT_NO_WEIGHT) for s in settings}
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
                   no_weight=no_weight.pop(), jobs=jobs, prune=prune)
    seconds = (time.perf_counter() - start) / (len(settings) * len(streams))
    return [[RunResult(int(out['mistakes_observed'][i, j]), int(out['mistakes_true'][i, j]),
                       int(out['updates'][i, j]), seconds, len(st))
             if out['complete'][i] else None for j, st in enumerate(streams)]
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
    from .. import ALGORITHMS, FULL_FEEDBACK_ALGORITHMS
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
