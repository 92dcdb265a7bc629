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
Vowpal Wabbit as a baseline in the evaluation protocol (optional ``vowpalwabbit`` package).

What people would otherwise use for learning from one bit per interaction is VW's
contextual-bandit reduction ``--cbify K`` with one of its exploration algorithms.  Each
option below is an ``evaluation.Algorithm`` run on the same streams as the learning core:

- label noise only (the papers' main protocol): real ``--cbify K``; each example carries
  the label the person has in mind, and cbify's own cost (0 if its action equals that
  label, 1 otherwise) is exactly the person's answer;
- flip noise or silence: cbify cannot be told a flipped or missing answer, so the same
  reduction is run by hand, as cbify runs it internally: ``--cb_explore K`` (epsilon,
  first, bag, cover) or ``--cb_explore_adf`` with the features crossed with an action
  indicator, ``-q sa`` without the shared linear terms, which gives each action its own
  weights as cbify's ADF mode does (squarecb, regcb, regcbopt, softmax, synthcover),
  the action drawn from VW's
  probabilities with the stream's seed, and ``action:cost:probability`` learned with cost
  0 for "right" and 1 for "wrong"; silent rounds are not learned.

``--oaa K`` is the full-feedback reference: it is told the observed label.  Each option is
tuned over its exploration parameter and the learning rate; the number of updates is the
number of examples VW learned from.
"""

import time
from typing import Any, Dict, List, Optional

from banditlearn_ros.learning.offline.evaluation_streams import run_result, RunResult, Stream
from banditlearn_ros.learning.offline.evaluation_tuning import Algorithm
from banditlearn_ros.learning.protocol.teacher_model import TeacherModel
import numpy as np

LEARNING_RATES = [1.0, 4.0, 16.0]

# option -> (VW flag, its parameter flag or None, parameter grid, needs ADF in manual mode)
EXPLORATION = {
    'epsilon': ('--epsilon', None, {'epsilon': [0.01, 0.02, 0.05, 0.1, 0.2]}, False),
    'first': ('--first', None, {'first': [1, 5, 10, 20, 50, 100]}, False),
    'bag': ('--bag', None, {'bag': [2, 4, 8, 16]}, False),
    'cover': ('--cover', None, {'cover': [1, 2, 4, 8]}, False),
    'squarecb': ('--squarecb', '--gamma_scale', {'gamma_scale': [1, 10, 100, 1000]}, True),
    'regcb': ('--regcb', '--mellowness', {'mellowness': [0.001, 0.01, 0.1]}, True),
    'regcbopt': ('--regcbopt', '--mellowness', {'mellowness': [0.001, 0.01, 0.1]}, True),
    'softmax': ('--softmax', '--lambda', {'lambda': [0.1, 1, 10, 100]}, True),
    'synthcover': ('--synthcover', '--synthcoverpsi', {'synthcoverpsi': [0.01, 0.1, 1]},
                   True),
}
NAMES = [f'vw-{name}' for name in EXPLORATION] + ['vw-oaa']
DEFAULTS = {'epsilon': 0.05, 'first': 10, 'bag': 4, 'cover': 4, 'gamma_scale': 10,
            'mellowness': 0.1, 'lambda': 1, 'synthcoverpsi': 0.1, 'learning_rate': 0.5}
"""Values used when an option is run untuned: VW's own defaults where it has one."""


class VowpalUnavailable(RuntimeError):
    """The optional vowpalwabbit package is not installed."""


def available() -> bool:
    """Return True when ``import vowpalwabbit`` works."""
    try:
        import vowpalwabbit  # noqa: F401
    except ImportError:
        return False
    return True


def _workspace(args: str):
    try:
        import vowpalwabbit
    except ImportError:
        raise VowpalUnavailable(
            'Vowpal Wabbit baselines need the vowpalwabbit package '
            "(pip install 'banditlearn_ros[vowpal]' or pip install vowpalwabbit)") from None
    return vowpalwabbit.Workspace(args + ' --quiet')


class _Features:
    """VW feature strings per example, built once per data set and reused by every run."""

    def __init__(self, X: np.ndarray):
        self.X = X
        self._plain: Dict[int, str] = {}
        self._adf: Dict[int, List[str]] = {}

    def plain(self, i: int) -> str:
        text = self._plain.get(i)
        if text is None:
            row = self.X[i]
            nz = np.flatnonzero(row)
            text = self._plain[i] = ' '.join(f'f{j}:{row[j]:.9g}' for j in nz)
        return text

    def adf(self, i: int, n_labels: int) -> List[str]:
        """Shared features plus one action-indicator line per action (crossed by -q sa)."""
        lines = self._adf.get(i)
        if lines is None:
            lines = self._adf[i] = ['shared |s ' + self.plain(i)] + [
                f'|a a{a}' for a in range(n_labels)]
        return lines


_FEATURE_CACHE: Dict[int, _Features] = {}


def _features(X: np.ndarray) -> _Features:
    key = id(X)
    cached = _FEATURE_CACHE.get(key)
    if cached is None or cached.X is not X:
        _FEATURE_CACHE.clear()
        cached = _FEATURE_CACHE[key] = _Features(X)
    return cached


def _vw_seed(stream: Stream) -> int:
    return int(stream.seed % (2 ** 31 - 1))


def _option_args(option: str, params: Dict[str, Any]) -> str:
    flag, param_flag, grid, _ = EXPLORATION[option]
    (name,) = grid
    value = params[name]
    if param_flag is None:
        return f'{flag} {value}'
    return f'{flag} {param_flag} {value}'


def run_cbify(option: str, params: Dict[str, Any], X: np.ndarray, stream: Stream,
              teacher: TeacherModel, n_labels: int, curves: bool = False) -> RunResult:
    """Run one VW exploration option for one pass over ``stream``."""
    feats = _features(X)
    lr = float(params.get('learning_rate', 0.5))
    explore = _option_args(option, params)
    manual = teacher.rho0 > 0 or teacher.rho1 > 0 or teacher.no_answer > 0
    n = len(stream)
    outputs = np.empty(n, dtype=np.int64)
    learned = 0
    if not manual:
        vw = _workspace(f'--cbify {n_labels} {explore} --learning_rate {lr} '
                        f'--random_seed {_vw_seed(stream)}')
        start = time.perf_counter()
        for t in range(n):
            ex = vw.parse(f'{int(stream.y_obs[t]) + 1} | {feats.plain(int(stream.order[t]))}')
            vw.learn(ex)
            outputs[t] = int(ex.get_prediction()) - 1
            vw.finish_example(ex)
        learned = n
    else:
        adf = EXPLORATION[option][3]
        base = ('--cb_explore_adf --interactions sa --ignore_linear s' if adf
                else f'--cb_explore {n_labels}')
        vw = _workspace(f'{base} {explore} --learning_rate {lr} '
                        f'--random_seed {_vw_seed(stream)}')
        rng = np.random.default_rng(stream.seed)
        start = time.perf_counter()
        for t in range(n):
            i = int(stream.order[t])
            example = feats.adf(i, n_labels) if adf else '| ' + feats.plain(i)
            pmf = np.maximum(np.asarray(vw.predict(example), dtype=np.float64), 0.0)
            total = pmf.sum()
            pmf = pmf / total if total > 0 else np.full(n_labels, 1.0 / n_labels)
            out = int(rng.choice(n_labels, p=pmf))
            outputs[t] = out
            if stream.u_silent[t] < teacher.no_answer:
                continue
            right = out == stream.y_obs[t]
            said = right != (stream.u_flip[t] < (teacher.rho1 if right else teacher.rho0))
            cost = 0.0 if said else 1.0
            prob = max(float(pmf[out]), 1e-6)
            if adf:
                lines = list(example)
                lines[1 + out] = f'0:{cost}:{prob} {lines[1 + out]}'
                vw.learn(lines)
            else:
                vw.learn(f'{out + 1}:{cost}:{prob} | {feats.plain(i)}')
            learned += 1
    seconds = time.perf_counter() - start
    vw.finish()
    return run_result(outputs, stream, learned, seconds, curves)


def run_oaa(params: Dict[str, Any], X: np.ndarray, stream: Stream, teacher: TeacherModel,
            n_labels: int, curves: bool = False) -> RunResult:
    """Run VW ``--oaa K`` (told the observed label) for one pass over ``stream``."""
    feats = _features(X)
    lr = float(params.get('learning_rate', 0.5))
    vw = _workspace(f'--oaa {n_labels} --learning_rate {lr} --random_seed {_vw_seed(stream)}')
    n = len(stream)
    outputs = np.empty(n, dtype=np.int64)
    learned = 0
    start = time.perf_counter()
    for t in range(n):
        text = feats.plain(int(stream.order[t]))
        outputs[t] = int(vw.predict('| ' + text)) - 1
        if stream.u_silent[t] < teacher.no_answer:
            continue
        vw.learn(f'{int(stream.y_obs[t]) + 1} | {text}')
        learned += 1
    seconds = time.perf_counter() - start
    vw.finish()
    return run_result(outputs, stream, learned, seconds, curves)


def vw_algorithm(name: str, fixed: Optional[Dict[str, Any]] = None,
                 wide: bool = False) -> Algorithm:
    """
    Return the protocol's Algorithm for ``vw-<option>`` or ``vw-oaa``.

    Raises VowpalUnavailable when the package is missing, so callers can skip cleanly.
    """
    if name not in NAMES:
        raise ValueError(f'unknown Vowpal Wabbit option {name!r}; choose from {NAMES}')
    if not available():
        _workspace('')
    rates = LEARNING_RATES + ([0.25, 0.5, 2.0, 8.0, 32.0, 64.0] if wide else [])
    rates = sorted(rates)
    if name == 'vw-oaa':
        return Algorithm(name=name, run=run_oaa, grid={'learning_rate': rates},
                         fixed=dict(fixed or {}), feedback='full')
    option = name[3:]
    grid = {**EXPLORATION[option][2], 'learning_rate': rates}

    def run(params, X, stream, teacher, n_labels, curves=False):
        merged = {key: DEFAULTS[key] for key in grid}
        merged.update(params)
        return run_cbify(option, merged, X, stream, teacher, n_labels, curves)

    return Algorithm(name=name, run=run, grid=grid, fixed=dict(fixed or {}), feedback='bandit')
