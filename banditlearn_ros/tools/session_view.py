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
The live terminal view of a teaching session.

Columns (also in ``banditlearn_bringup --help`` and the README):

- ``done``: interactions so far (presented gestures the robot asked about) / the target;
- ``right50``: first guesses right over the last 50 interactions (against the shown gesture
  when a simulation knows it, else the person's first answer);
- ``right``: the same since the start;
- ``q/int``: questions asked per interaction (more than 1 when the robot asks again);
- ``updates``: model updates so far;
- ``last``: the last interaction, as shown -> each question and its answer.

On a terminal a progress bar is redrawn in place; every ``every`` interactions (and on a
pipe only then) a line of the columns is printed.
"""

import math
import sys
from typing import List, Optional

from banditlearn_ros.learning.session import InteractionRecord, SessionLog

HEADER = f'{"done":>11} {"right50":>8} {"right":>7} {"q/int":>6} {"updates":>8}  last'


def describe(rec: Optional[InteractionRecord]) -> str:
    """Return 'shown -> guess? yes, guess? no' for an interaction ('?' when not known)."""
    if rec is None:
        return '-'
    asked = []
    for i, label in enumerate(rec.questions):
        answer = ('yes' if rec.answers[i] else 'no') if i < len(rec.answers) else '...'
        asked.append(f'{label}? {answer}')
    return f'{rec.truth or "?"} -> {", ".join(asked)}'


def why_no_answer(waited: float, *, keyboard: bool, face_frames: Optional[int],
                  faces_seen: Optional[int], joysticks: int, teachers: int,
                  camera_frames: Optional[int]) -> str:
    """
    Return the sentence the session prints when a question waits too long for its answer.

    Parameters
    ----------
    waited : float
        Seconds the question has waited.
    keyboard : bool
        Whether y/n typed in this terminal count.
    face_frames, faces_seen : int or None
        Frames the feedback node looked at and frames in which it found a face (None: no
        feedback node reports).
    joysticks : int
        Publishers on the joystick topic.
    teachers : int
        Other publishers on the feedback topic (a simulated teacher, a button).
    camera_frames : int or None
        Frames the camera node received (None: no camera node reports).

    """
    reasons: List[str] = []
    if camera_frames == 0:
        reasons.append('the camera node has received no image')
    if face_frames is None:
        reasons.append('no feedback node reports (no nod/shake)')
    elif face_frames == 0:
        reasons.append('the feedback node gets no camera frames (no nod/shake)')
    elif not faces_seen:
        reasons.append(f'the feedback node sees no face in {face_frames} frames')
    reasons.append('keyboard: type y or n and Enter' if keyboard
                   else 'keyboard off (stdin is not a terminal)')
    if not joysticks:
        reasons.append('no joystick publishes on joy')
    if teachers:
        reasons.append(f'{teachers} other publisher(s) on the feedback topic')
    return f'no answer for {waited:.0f} s: ' + '; '.join(reasons)


class SessionView:
    """
    Print a session's progress: a bar redrawn in place on a terminal, column lines.

    Parameters
    ----------
    log : SessionLog
        What to show.
    target : int
        Interactions planned (0 = open-ended).
    every : int
        Print a column line every ``every`` interactions (0 = never).
    out : file
        Where to write.
    tty : bool, optional
        Redraw a bar in place (default: whether ``out`` is a terminal).

    """

    def __init__(self, log: SessionLog, target: int = 0, every: int = 10, out=None,
                 tty: Optional[bool] = None):
        self.log = log
        self.target = int(target)
        self.every = int(every)
        self.out = out if out is not None else sys.stdout
        self.tty = bool(self.out.isatty()) if tty is None else bool(tty)
        self._printed = 0
        self._bar = ''

    def header(self) -> None:
        """Print the column names."""
        self._print(HEADER)

    def columns(self, updates: int) -> str:
        """Return the column line for now."""
        n = min(self.log.interactions, self.target) if self.target else self.log.interactions
        done = f'{n}/{self.target}' if self.target else str(n)
        return (f'{done:>11} {_pct(self.log.windowed_accuracy()):>8} '
                f'{_pct(self.log.accuracy()):>7} {_num(self.log.questions_per_interaction()):>6} '
                f'{updates:>8}  {describe(self.log.current)}')

    def update(self, updates: int) -> None:
        """Print what changed: column lines due, then the bar (on a terminal)."""
        # An interaction is complete once the next one started: print lines up to it.
        complete = max(self.log.interactions - 1, 0)
        if self.target and complete >= self.target:
            return  # the planned interactions are over; close() prints the last line
        if self.every and complete // self.every > self._printed // self.every:
            self._printed = complete
            self._print(self.columns(updates))
        if self.tty:
            bar = self._bar_text(updates)
            if bar != self._bar:
                self._bar = bar
                self.out.write('\r' + bar + '\x1b[K')
                self.out.flush()

    def note(self, text: str) -> None:
        """Print a message line (kept above the bar)."""
        self._print(text)

    def close(self, updates: int) -> None:
        """Print the final column line."""
        self._print(self.columns(updates))

    def _bar_text(self, updates: int) -> str:
        n = self.log.interactions
        width = 20
        filled = width if not self.target else min(width, width * n // max(self.target, 1))
        bar = '#' * filled + '-' * (width - filled)
        return (f'[{bar}] {n}{"/" + str(self.target) if self.target else ""} '
                f'right50 {_pct(self.log.windowed_accuracy())} '
                f'q/int {_num(self.log.questions_per_interaction())} '
                f'| {describe(self.log.current)}')[:160]

    def _print(self, text: str) -> None:
        if self.tty and self._bar:
            self.out.write('\r\x1b[K')
            self._bar = ''
        print(text, file=self.out, flush=True)


def _pct(value: float) -> str:
    return '-' if value is None or math.isnan(value) else f'{100 * value:.1f}%'


def _num(value: float) -> str:
    return '-' if value is None or math.isnan(value) else f'{value:.2f}'
