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
Grids, named variants and tuning of the offline protocol (Ngo et al. 2013, section 5).

Each algorithm is tuned on separate permutations (``TUNING_STREAM`` onwards) over its grid;
the setting with the lowest observed-label mistake rate is kept, and a tuned value on the
edge of its grid is flagged, since the optimum may lie outside.
"""

from dataclasses import dataclass, field
import itertools
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from .evaluation_streams import centred_streams, RunResult, Stream, tuning_streams
from ..protocol.teacher_model import TeacherModel


PAPER_C = [2.0 ** e for e in range(-5, 6)]
PAPER_ETA = [round(0.5 + 0.05 * i, 2) for i in range(1, 10)]
PAPER_K = [round(0.2 * i, 1) for i in range(1, 16)]

GRIDS: Dict[str, Dict[str, List[Any]]] = {
    # Ngo et al. 2013, section 5: C in 2^-5..2^5, eta in 0.55..0.95, k in 0.2..3.0.
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
    'ucwl-paper': ('ucwl', {'centring': 'none', 'no_weight': 'equal'}),
}
"""Named variants run and reported beside their base algorithm: {name: (base, fixed)}.

``ucwl-variance`` is UCWL with the other reading of Ngo et al. 2013's diagonalisation step (see
``confidence_weighted``), so one command shows what that choice is worth.  ``ucwl-paper``
is UCWL on the vectors as given (no centring) with a "no" capped as a "yes": the papers'
algorithm and protocol exactly, beside the package's default ``ucwl`` (centred,
``learning.algorithms.centring``; a "no" capped by ``no_weight='ramp'``)."""


def variant_base(name: str) -> Tuple[str, Dict[str, Any]]:
    """Return (base algorithm, preset parameters) for an algorithm or a named variant."""
    return VARIANTS.get(name, (name, {}))


WIDE_GRIDS: Dict[str, Dict[str, List[Any]]] = {
    'ucwl': {'C': [2.0 ** e for e in range(-7, 8)],
             'eta': PAPER_ETA + [0.975, 0.99],
             'k': PAPER_K + [3.5, 4.0, 5.0]},
}
"""Grids widened past the paper's edges, for ``--wide-grids``."""

Runner = Callable[[Dict[str, Any], np.ndarray, Stream, TeacherModel, int, bool], RunResult]
GridRunner = Callable[..., List[List[Optional[RunResult]]]]
"""``(settings, X, streams, teacher, n_labels, progress=None, jobs=1, prune=False) ->
[setting][stream]``; with ``prune``, None for a setting stopped because it could no longer
be chosen."""


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
    grid_prune: bool = True
    """Let ``run_grid`` stop the settings that can no longer be chosen (the same choice;
    ``banditlearn_evaluate --full-grid`` turns it off, to see every setting's rate)."""
    feedback: str = 'bandit'
    centring: str = 'none'
    """Mean taken out of each stream's vectors before the algorithm sees them
    (``centred_streams``)."""


@dataclass
class Tuning:
    """Result of tuning one algorithm on the tuning permutation(s)."""

    params: Dict[str, Any]
    rate: float
    edges: List[str]
    tried: int
    seconds: float
    rates: Optional[np.ndarray] = None
    """Observed-label mistake rate per setting (grid order) and tuning stream; NaN for a
    setting the grid stopped because it could no longer be chosen (``grid_prune``)."""


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
    earlier setting in grid order, so the choice is reproducible.  With
    ``algorithm.grid_prune`` the grid may stop settings whose observed mistakes already
    exceed a finished setting's total: they could not be chosen, so the choice and its rate
    are those of the full grid (``ucwl_grid_prune``); their rates are NaN.
    """
    settings = grid_settings(algorithm.grid, algorithm.fixed)
    X, streams = centred_streams(X, tuning_streams(y, n_labels, teacher, n_tuning, seed),
                                 algorithm.centring)
    start = time.perf_counter()
    if algorithm.run_grid is not None and len(settings) > 1:
        results = algorithm.run_grid(settings, X, streams, teacher, n_labels,
                                     progress=progress, jobs=algorithm.grid_jobs,
                                     prune=algorithm.grid_prune)
    else:
        results = []
        for s in settings:
            row = []
            for stream in streams:
                row.append(algorithm.run(s, X, stream, teacher, n_labels, False))
                if progress:
                    progress(1)
            results.append(row)
    table = np.array([[np.nan if r is None else r.rate_observed for r in row]
                      for row in results])
    means = table.mean(axis=1)
    best = int(np.argmin(np.where(np.isnan(means), np.inf, means)))
    return Tuning(settings[best], float(means[best]),
                  edge_notes(algorithm.grid, settings[best], algorithm.fixed),
                  len(settings), time.perf_counter() - start, table)
