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
Third-party log lines kept out of the live view: a filter on the process's stderr.

MediaPipe, TensorFlow Lite and OpenCV write their own log lines straight to file descriptor
2 from C++ (no environment variable of MediaPipe 0.10.21 silences them), so they land in the
middle of the session's view.  ``StderrFilter`` puts a pipe in place of descriptor 2: their
lines go to a file, every other line (the nodes' own log) is handed back to be printed
above the view's bar.
"""

import atexit
import os
import queue
import re
import sys
import threading
from typing import List, Optional

THIRD_PARTY = re.compile(
    r'(?:[IWEF]\d{4} [\d:.]+ +\d+ \S+:\d+\]'     # absl / glog: MediaPipe
    r'|INFO: Created TensorFlow Lite'                      # TensorFlow Lite
    r'|WARNING: All log messages before absl::InitializeLog'
    r'|\[ ?(?:WARN|ERROR|INFO|DEBUG):\d+@)')                # OpenCV
"""A line these libraries write (matched at its start)."""


def is_third_party(line: str) -> bool:
    """Return True for a log line of MediaPipe, TensorFlow Lite or OpenCV."""
    return bool(THIRD_PARTY.match(line))


class StderrFilter:
    """
    Send third-party lines of descriptor 2 to ``path``; hand the others back.

    Parameters
    ----------
    path : str
        File for the third-party lines (made at the first one).

    """

    def __init__(self, path: str):
        self.path = path
        self.kept_out = 0
        self._lines: 'queue.Queue[str]' = queue.Queue()
        self._saved: Optional[int] = None
        self._thread: Optional[threading.Thread] = None

    @property
    def active(self) -> bool:
        """Return True while descriptor 2 is the filter's pipe."""
        return self._saved is not None

    def start(self) -> 'StderrFilter':
        """Put the pipe in place of descriptor 2 (undone by ``stop``, also at exit)."""
        if self.active:
            return self
        sys.stderr.flush()
        self._saved = os.dup(2)
        read, write = os.pipe()
        os.dup2(write, 2)
        os.close(write)
        self._thread = threading.Thread(target=self._pump, args=(read,), name='stderr_filter',
                                        daemon=True)
        self._thread.start()
        atexit.register(self.stop)
        return self

    def _pump(self, read: int) -> None:
        with os.fdopen(read, 'rb') as pipe:
            for raw in pipe:
                line = raw.decode(errors='replace')
                if is_third_party(line):
                    self.kept_out += 1
                    with open(self.path, 'a', encoding='utf-8') as handle:
                        handle.write(line)
                else:
                    self._lines.put(line)

    def take(self) -> List[str]:
        """Return the nodes' own stderr lines that came since the last call."""
        lines = []
        while True:
            try:
                lines.append(self._lines.get_nowait())
            except queue.Empty:
                return lines

    def write(self, line: str) -> None:
        """Write a line to the real stderr (the one before ``start``)."""
        fd = self._saved if self._saved is not None else 2
        os.write(fd, line.encode(errors='replace'))

    def stop(self) -> None:
        """Give descriptor 2 back and write out the lines not yet taken (safe twice)."""
        if not self.active:
            return
        sys.stderr.flush()
        saved, self._saved = self._saved, None
        os.dup2(saved, 2)  # the pipe's last writer is gone: the pump reads to its end
        os.close(saved)
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        for line in self.take():
            self.write(line)
