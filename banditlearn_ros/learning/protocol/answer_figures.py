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
The figures a person plots of a learner, from what it heard: first guesses and questions.

The learner does not know the shown gesture, only the answers: a first guess counts as right
when its first answer was "yes" (an interaction with no answer is not judged), as the
session's summary counts it when no simulation tells the truth (``session.SessionLog``).
"""

from collections import deque
import math
from typing import Any, Deque, Dict


class AnswerFigures:
    """
    First-guess accuracy and questions per interaction, with each finished interaction.

    The accuracy is over the last ``window`` judged interactions and since the start.

    Examples
    --------
    >>> figures = AnswerFigures(window=2)
    >>> for outcome, questions, answers in (('yes', 1, 1), ('yes', 2, 2), ('timed_out', 1, 0),
    ...                                     ('yes', 1, 1)):
    ...     _ = figures.add({'outcome': outcome, 'questions': questions, 'answers': answers})
    >>> figures.interactions, figures.judged, figures.right_window(), figures.right()
    (4, 3, 0.5, 0.6666666666666666)
    >>> figures.questions_per_interaction()
    1.25

    """

    def __init__(self, window: int = 50):
        if window < 1:
            raise ValueError('window must be >= 1')
        self.window = int(window)
        self._recent: Deque[bool] = deque(maxlen=self.window)
        self.interactions = 0
        self.judged = 0
        self._right = 0
        self._questions = 0

    def add(self, interaction: Dict[str, Any]) -> bool:
        """
        Take one finished interaction (``gesture_interaction``'s fields).

        ``questions`` and ``answers`` are counts; a "yes" ends an interaction, so its first
        answer was "yes" exactly when it ended ``yes`` after one question.  Returns False,
        changing nothing, for one in which no question was asked (a gesture rejected as
        never taught before question 1): the person was asked nothing.
        """
        questions = int(interaction.get('questions') or 0)
        if questions < 1:
            return False
        self.interactions += 1
        self._questions += questions
        if int(interaction.get('answers') or 0) > 0:
            first = interaction.get('outcome') == 'yes' and questions == 1
            self.judged += 1
            self._right += first
            self._recent.append(first)
        return True

    def right_window(self) -> float:
        """Return the first guesses answered "yes" over the last ``window`` judged (NaN: none)."""
        return sum(self._recent) / len(self._recent) if self._recent else math.nan

    def right(self) -> float:
        """Return the first guesses answered "yes" since the start (NaN: none judged)."""
        return self._right / self.judged if self.judged else math.nan

    def questions_per_interaction(self) -> float:
        """Return the questions asked per interaction (NaN before the first)."""
        return self._questions / self.interactions if self.interactions else math.nan
