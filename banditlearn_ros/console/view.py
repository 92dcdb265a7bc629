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

- ``done``: interactions finished (presented gestures the robot asked about) / the target;
- ``right50``: first guesses right over the last 50 finished interactions (against the shown
  gesture when a simulation knows it, else the person's first answer);
- ``right``: the same since the start;
- ``q/int``: questions asked per interaction (more than 1 when the robot asks again);
- ``updates``: model updates so far;
- ``last``: the last finished interaction, as shown -> each question and its answer.

A line describes finished interactions only: the one under way is on the bar.  On a terminal
a bar is redrawn in place, cut to the terminal's width (a longer one would wrap and leave a
stale copy per redraw), and so are the column lines; every ``every`` interactions (and on a
pipe only then, never cut) a line of the columns is printed.
"""

import math
import os
import sys
from typing import List, Optional

from banditlearn_ros.learning.protocol.session import InteractionRecord, SessionLog

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
                  camera_frames: Optional[int], face_loading: bool = False,
                  simulated: bool = False) -> str:
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
    face_loading : bool
        Whether the feedback node is still loading Face Mesh (it skips frames meanwhile).
    simulated : bool
        A simulated person answers (a rendered face): no keyboard or joystick to suggest.

    """
    reasons: List[str] = []
    if camera_frames == 0:
        reasons.append('the camera node has received no image')
    if face_frames is None:
        reasons.append('no feedback node reports (no nod/shake)')
    elif face_frames == 0:
        reasons.append('the feedback node is still loading Face Mesh (no nod/shake yet)'
                       if face_loading else
                       'the feedback node gets no camera frames (no nod/shake)')
    elif not faces_seen:
        reasons.append(f'the feedback node sees no face in {face_frames} frames')
    else:
        reasons.append(f'the feedback node sees a face in {faces_seen} of {face_frames} frames '
                       'but no nod or shake')
    if simulated:  # the person is simulated: no keys or buttons to suggest
        reasons.append('the simulated person answers (no keys needed)')
    else:
        reasons.append('keyboard: type y or n and Enter' if keyboard
                       else 'keyboard off (stdin is not a terminal)')
    if not joysticks and not simulated:
        reasons.append('no joystick publishes on joy')
    if teachers:
        reasons.append(f'{teachers} other publisher(s) on the feedback topic')
    return f'no answer for {waited:.0f} s: ' + '; '.join(reasons)


def label_mismatch(shown: List[str], labels: List[str]) -> Optional[str]:
    """
    Return a warning when some shown gestures are not among the learner's labels.

    Such a gesture can never be guessed right; the session would still run and its figures
    would look like a learner that does not learn.
    """
    missing = [g for g in shown if g not in labels]
    if not missing:
        return None
    return (f'warning: {len(missing)} of the {len(shown)} gestures shown are not among the '
            f'learner\'s labels ({", ".join(labels) or "none"}), so they can never be '
            f'guessed right: {", ".join(missing)}; set both with --labels and --set '
            f'"gesture_show_node.gestures=[...]"')


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

    def columns(self, updates: int, finished: Optional[int] = None) -> str:
        """
        Return the column line over the first ``finished`` interactions.

        ``finished`` defaults to every interaction (the session is over).
        """
        log = self.log if finished is None else self.log.head(finished)
        n = min(log.interactions, self.target) if self.target else log.interactions
        done = f'{n}/{self.target}' if self.target else str(n)
        return (f'{done:>11} {_pct(log.windowed_accuracy()):>8} '
                f'{_pct(log.accuracy()):>7} {_num(log.questions_per_interaction()):>6} '
                f'{updates:>8}  {describe(log.current)}')

    def update(self, updates: int) -> None:
        """Print what changed: column lines due, then the bar (on a terminal)."""
        # An interaction is finished once the next one started: lines go up to it.
        complete = max(self.log.interactions - 1, 0)
        if self.target and complete >= self.target:
            return  # the planned interactions are over; close() prints the last line
        if self.every and complete // self.every > self._printed // self.every:
            self._printed = complete
            self._print(self._fit(self.columns(updates, complete)))
        if self.tty:
            bar = self._bar_text(self.width())
            if bar != self._bar:
                self._bar = bar
                self.out.write('\r' + bar + '\x1b[K')
                self.out.flush()

    def note(self, text: str) -> None:
        """Print a message line (kept above the bar)."""
        self._print(text)

    def clear_bar(self) -> None:
        """Take the bar off the screen (it comes back at the next update)."""
        if self.tty and self._bar:
            self.out.write('\r\x1b[K')
            self.out.flush()
            self._bar = ''

    def forget_typed_line(self) -> None:
        """
        Take a typed answer's echo off the screen: the bar it was typed behind, one line up.

        The terminal echoes ``y`` and Enter after the bar, so the cursor went to a new line
        (where a bar may have been drawn again since) and the line above holds the old bar
        and the ``y``: both lines are cleared and the next bar is drawn on the upper one.
        """
        if self.tty and self._bar:
            self.out.write('\r\x1b[K\x1b[1A\r\x1b[K')
            self.out.flush()
            self._bar = ''

    def close(self, updates: int) -> None:
        """Print the final column line."""
        self._print(self._fit(self.columns(updates)))

    def width(self) -> int:
        """Return the columns a line may take: the terminal's width less one (no wrap)."""
        try:
            columns = os.get_terminal_size(self.out.fileno()).columns
        except (AttributeError, OSError, ValueError):
            columns = 0
        if columns <= 0:
            columns = int(os.environ.get('COLUMNS', '0') or 0) or 80
        return max(columns - 1, 20)

    def _fit(self, line: str) -> str:
        """Cut a column line to the terminal's width (not on a pipe: a log keeps it whole)."""
        if not self.tty:
            return line
        width = self.width()
        return line if len(line) <= width else line[:width - 3] + '...'

    def _bar_text(self, width: int) -> str:
        """
        Return the bar within ``width`` characters; the question under way is kept last.

        What the bar holds depends on the width alone, never on the question's length, so it
        does not jump from one redraw to the next: a drawn bar (20 cells from 100 columns, 10
        from 70, none below or with no planned end), the count, the figures (from 50
        columns), then as much of the question list as fits, its end kept.
        """
        n = self.log.interactions
        count = f'{n}/{self.target}' if self.target else str(n)
        cells = (20 if width >= 100 else 10 if width >= 70 else 0) if self.target else 0
        graph = ''
        if cells:
            filled = min(cells, cells * n // max(self.target, 1))
            graph = f'[{"#" * filled}{"-" * (cells - filled)}] '
        figures = ''
        if width >= 50:
            figures = (f' right50 {_pct(self.log.windowed_accuracy())} '
                       f'q/int {_num(self.log.questions_per_interaction())} '
                       f'judged {self.log.first_right().size}')
        head = f'{graph}{count}{figures} | '
        last = describe(self.log.current)
        room = width - len(head)
        if len(last) <= room:
            return head + last
        if room > 2:
            return head + '..' + last[len(last) - room + 2:]
        return head[:width]

    def _print(self, text: str) -> None:
        if self.tty and self._bar:
            self.out.write('\r\x1b[K')
            self._bar = ''
        print(text, file=self.out, flush=True)


def _pct(value: float) -> str:
    return '-' if value is None or math.isnan(value) else f'{100 * value:.1f}%'


def _num(value: float) -> str:
    return '-' if value is None or math.isnan(value) else f'{value:.2f}'
