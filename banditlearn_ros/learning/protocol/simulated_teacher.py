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
A simulated person who answers a learner's questions, and the order a dataset streams in.

The teacher node (``nodes.teacher_node``), the bag tools and the offline replays use the same
``SimulatedTeacher``, so an answer drawn live is the answer drawn offline with the same seed.
"""

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import numpy as np

from .interaction_records import Counts, Window
from .teacher_model import TeacherModel


@dataclass
class TeacherAnswer:
    """A simulated answer: ``answer`` None is silence; ``truth`` None means no label known."""

    answer: Optional[bool]
    truth: Optional[str]
    right: Optional[bool]


class SimulatedTeacher:
    """
    A person who knows the true label of each observation and answers with noise.

    The label of an observation arrives (``observe``) just before its first question
    (``answer`` with ``question=1``), which takes it; the later questions of the same
    interaction are answered about that label; a first question without a fresh label, or a
    later one of an interaction the teacher did not see begin, gets no answer.  The random
    draws per answer are those of ``TeacherModel.answer`` (after one label-noise draw per
    interaction when ``label_noise`` > 0: the label in mind stays for all its questions), so
    an offline loop with the same seed gives the same answers.

    Parameters
    ----------
    model : TeacherModel
        Noise rates and silence probability (flip noise applies to every answer).
    seed : int
        Seed of the teacher's random generator.
    labels : sequence of str
        Label names label noise draws from; empty = the names observed so far.
    window : int
        Interactions in the windowed true (first-guess) mistake rate.

    """

    def __init__(self, model: TeacherModel, seed: int = 0, labels=(), window: int = 100):
        self.model = model
        self.rng = np.random.default_rng(seed)
        self.labels = [str(lb) for lb in labels]
        self._seen: Dict[str, None] = {}
        self._current: Optional[str] = None
        self._interaction: Optional[Tuple[Optional[int], str, str]] = None
        self._mistakes = Window(window)
        self.counts = Counts(('labels_received', 'predictions_received', 'later_questions',
                              'answers', 'silences', 'flipped', 'no_label', 'labels_unused'))

    def observe(self, label: str) -> None:
        """Take the true label of the next observation."""
        if self._current is not None:
            self.counts.add('labels_unused')
        self._current = str(label)
        self._seen.setdefault(self._current, None)
        self.counts.add('labels_received')

    def answer(self, predicted: str, question: int = 1,
               interaction: Optional[int] = None) -> TeacherAnswer:
        """Answer one question (None = say nothing) of interaction ``interaction``."""
        self.counts.add('predictions_received')
        if question > 1:
            self.counts.add('later_questions')
            bound = self._interaction
            if bound is None or (interaction is not None and bound[0] != interaction):
                self.counts.add('no_label')
                return TeacherAnswer(None, None, None)
            _, truth, observed = bound
            right = str(predicted) == truth
        else:
            truth, self._current = self._current, None
            if truth is None:
                self._interaction = None
                self.counts.add('no_label')
                return TeacherAnswer(None, None, None)
            right = str(predicted) == truth
            self._mistakes.add(not right)
            observed = truth
            if self.model.label_noise > 0:
                names = self.labels or list(self._seen)
                if self.rng.random() < self.model.label_noise:
                    observed = names[int(self.rng.integers(len(names)))]
            self._interaction = (interaction, truth, observed)
        said = self.model.answer(str(predicted), observed, self.rng)
        if said is None:
            self.counts.add('silences')
        else:
            self.counts.add('answers')
            self.counts.add('flipped', int(said != right))
        return TeacherAnswer(said, truth, right)

    def stats(self) -> Dict[str, float]:
        """Return counters and the true first-guess mistake rates (windowed and overall)."""
        out: Dict[str, float] = dict(self.counts)
        out['true_mistake_rate_window'] = self._mistakes.windowed()
        out['true_mistake_rate'] = self._mistakes.cumulative()
        out['rounds'] = self._mistakes.count
        out['window_rounds'] = len(self._mistakes.values)
        return out

    def progress(self) -> 'TeacherProgress':
        """Return what a bring-up reports of this teacher now."""
        mistakes = self._mistakes
        return TeacherProgress(rounds=mistakes.count, window_rounds=len(mistakes.values),
                               true_mistake_rate=mistakes.cumulative(),
                               true_mistake_rate_window=mistakes.windowed())


@dataclass(frozen=True)
class TeacherProgress:
    """The true first-guess mistakes a simulated teacher saw, read at one moment."""

    rounds: int
    """First questions answered about a known label."""
    window_rounds: int
    true_mistake_rate: float
    """First guesses that were wrong, over all (NaN before the first)."""
    true_mistake_rate_window: float


def stream_order(n: int, passes: int = 1, shuffle: bool = True, seed: int = 0,
                 max_examples: int = 0) -> np.ndarray:
    """
    Return the example indices of a stream: one seeded permutation per pass.

    ``max_examples`` > 0 cuts the stream; the dataset node and offline references use this
    one function, so both see the same order.
    """
    if n < 1 or passes < 1:
        raise ValueError(f'need n >= 1 and passes >= 1, got n={n}, passes={passes}')
    rng = np.random.default_rng(seed)
    order = np.concatenate([rng.permutation(n) if shuffle else np.arange(n)
                            for _ in range(int(passes))])
    return order[:max_examples] if max_examples > 0 else order
