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
A simulated fleet: one data set's stream shared out over R robots, alone and merging.

Why.  Merging Gaussian evidence (``protocol/fleet_evidence``) is exact for Bayes' rule, but
UCWL's soft-confidence-weighted step is an approximation of a posterior (Ngo et al. 2013,
section 3.3), so how close R merging robots come to one learner on the whole stream is
measured here.  Each permutation (``evaluation_streams.make_stream``, the papers' protocol:
one question per gesture, mistakes against the observed label) is dealt round-robin: round t
goes to robot ``t mod R``.  Three runs share the rounds and the person's answers:

- ``single``: one learner on the whole stream (the limit);
- ``alone``: each robot learns from its own rounds only;
- ``merged``: as ``alone``, but after every ``every`` of its own interactions a robot shares
  its evidence and every other robot merges it at once (what the learner node does on the
  topic).

Every learner centres as the learner node does (``centring``), and merged robots pool it
and stop it after its warm-up, as the node's default ``fleet_frame: fixed`` does.
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Sequence

import numpy as np

from .evaluation_streams import answer, make_stream
from ..algorithms.centring import Centring
from ..algorithms.ucwl import UCWL
from ..protocol.fleet_evidence import Evidence, FleetEvidence
from ..protocol.teacher_model import TeacherModel


@dataclass
class FleetRun:
    """Mistakes of one permutation: per robot (rounds, single, alone, merged)."""

    rounds: np.ndarray
    single: np.ndarray
    alone: np.ndarray
    merged: np.ndarray
    merges: int


def _learner(n_labels: int, d: int, seed: int, centring: str, params: Dict[str, Any]) -> UCWL:
    learner = UCWL(n_labels, d, seed=seed, **params)
    learner.centring = Centring(centring)
    return learner


def _step(learner: UCWL, x: np.ndarray, teacher: TeacherModel, stream, t: int) -> bool:
    """Play round ``t`` (first guess, the person's answer, the update); return a mistake."""
    xc = learner.centring.apply(x)
    prediction = learner.select(xc)
    said = answer(teacher, stream, t, prediction.index)
    if said is not None:
        learner.learn(xc, prediction.index, said, prediction)
    return prediction.index != stream.y_obs[t]


def run_fleet(X: np.ndarray, y: np.ndarray, n_labels: int, robots: int, every: int,
              teacher: TeacherModel, index: int, seed: int = 0, centring: str = 'running',
              params: Dict[str, Any] = None) -> FleetRun:
    """Run permutation ``index`` single, alone and merged over ``robots`` robots."""
    params = dict(params or {})
    stream = make_stream(y, n_labels, teacher, index, seed)
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    single = _learner(n_labels, d, stream.seed, centring, params)
    alone = [_learner(n_labels, d, stream.seed + r, centring, params) for r in range(robots)]
    merged = [_learner(n_labels, d, stream.seed + r, centring, params) for r in range(robots)]
    fleets = [FleetEvidence(f'robot{r}', 'sim') for r in range(robots)]
    rounds, out = np.zeros(robots, int), np.zeros((3, robots), int)
    merges = 0
    for t in range(len(stream)):
        r = t % robots
        x = X[stream.order[t]]
        rounds[r] += 1
        out[0, r] += _step(single, x, teacher, stream, t)
        out[1, r] += _step(alone[r], x, teacher, stream, t)
        out[2, r] += _step(merged[r], x, teacher, stream, t)
        if robots > 1 and rounds[r] % every == 0:
            text = fleets[r].share(merged[r]).to_text()  # through the message, as on a topic
            for s in range(robots):
                if s != r:
                    fleets[s].take(Evidence.from_text(text))
                    merges += len(fleets[s].merge(merged[s]))
    return FleetRun(rounds, out[0], out[1], out[2], merges)


def fleet_figures(X: np.ndarray, y: np.ndarray, n_labels: int, robots: int, every: int,
                  teacher: TeacherModel, permutations: int, seed: int = 0,
                  centring: str = 'running', params: Dict[str, Any] = None) -> Dict[str, Any]:
    """
    Return mistake rates (observed label) over ``permutations``: mean and std of each run.

    ``single`` and ``merged`` are over all rounds; ``alone_each`` is each robot's rate on its
    own rounds (mean over permutations), ``merged_each`` likewise.
    """
    runs: List[FleetRun] = [run_fleet(X, y, n_labels, robots, every, teacher, p, seed,
                                      centring, params) for p in range(permutations)]
    total = np.array([run.rounds.sum() for run in runs], float)

    def overall(name: str) -> Sequence[float]:
        rates = np.array([getattr(run, name).sum() for run in runs]) / total
        return [float(rates.mean()), float(rates.std())]

    def each(name: str) -> List[float]:
        return [float(v) for v in np.mean([getattr(run, name) / run.rounds for run in runs],
                                          axis=0)]

    return {'robots': robots, 'every': every, 'permutations': permutations,
            'single': overall('single'), 'alone': overall('alone'),
            'merged': overall('merged'), 'alone_each': each('alone'),
            'merged_each': each('merged'), 'merges': int(sum(run.merges for run in runs))}


def report(figures: Dict[str, Any]) -> str:
    """Return the figures as a markdown table (percent of first guesses wrong)."""
    f = figures
    lines = [f'{f["robots"]} robots, merging every {f["every"]} interactions, '
             f'{f["permutations"]} permutations (mistake rate, observed label, mean +- std):',
             '', '| run | mistakes % |', '| --- | --- |',
             f'| single learner, whole stream | {100 * f["single"][0]:.2f} +- '
             f'{100 * f["single"][1]:.2f} |',
             f'| robots merging | {100 * f["merged"][0]:.2f} +- {100 * f["merged"][1]:.2f} |',
             f'| robots alone | {100 * f["alone"][0]:.2f} +- {100 * f["alone"][1]:.2f} |']
    for r, (a, m) in enumerate(zip(f['alone_each'], f['merged_each'])):
        lines.append(f'| robot {r}: alone / merging | {100 * a:.2f} / {100 * m:.2f} |')
    return '\n'.join(lines)
