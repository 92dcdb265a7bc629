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
The streams of the offline protocol (Ngo et al. 2013, section 5) and what a run on one scores.

A stream is one permutation of a data set with everything random about the simulated
person fixed in advance (common random numbers): every algorithm sees the same orders,
the same noisy labels and the same draws for silence and flips, whatever it outputs.
"""

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..algorithms.base import HyperparameterError
from ..algorithms.centring import Centring, CENTRING_MODES
from ..protocol.teacher_model import TeacherModel


TUNING_STREAM = 1_000_000
"""Stream index of the (first) tuning permutation; the reported ones are 0..n-1."""


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


def run_result(outputs: np.ndarray, stream: Stream, updates: int, seconds: float,
               curves: bool) -> RunResult:
    """Score one pass: mistakes against the observed and the true label, and the curves."""
    wrong_obs = outputs != stream.y_obs
    wrong_true = outputs != stream.y_true
    res = RunResult(int(wrong_obs.sum()), int(wrong_true.sum()), int(updates), seconds,
                    len(outputs))
    if curves:
        res.curve_observed = np.cumsum(wrong_obs).astype(np.int32)
        res.curve_true = np.cumsum(wrong_true).astype(np.int32)
    return res


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
