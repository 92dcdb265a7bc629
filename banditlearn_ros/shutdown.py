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
SIGTERM handled like Ctrl-C: ``docker stop``, systemd and ``timeout`` send it.

Python ends a process on SIGTERM without running ``finally`` blocks, so a model would not be
saved and no summary printed. Every entry point calls ``sigterm_as_interrupt`` first; rclpy,
initialised afterwards, keeps its own handler and passes the signal on to this one.
"""

import contextlib
import signal
import threading


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived; a KeyboardInterrupt so that the cleanup written for Ctrl-C runs."""

    signum = signal.SIGTERM


def _raise_terminated(signum, frame):
    raise Terminated('terminated (SIGTERM)')


def sigterm_as_interrupt() -> None:
    """Make SIGTERM raise ``Terminated`` in the main thread (no-op elsewhere)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)


def exit_status(exc: KeyboardInterrupt) -> int:
    """Return the shell's status for an interrupted tool: 128 + the signal number."""
    return 128 + int(getattr(exc, 'signum', signal.SIGINT))


@contextlib.contextmanager
def signals_held():
    """
    Ignore SIGINT and SIGTERM while a node saves and shuts down, then restore the handlers.

    Ctrl-C in a terminal signals the whole process group and ``ros2 launch`` forwards one
    more, so a second SIGINT often arrives while ``close()`` writes the model: without this
    it raises inside the save and the learning since the last save is lost.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = (signal.SIGINT, signal.SIGTERM)
    before = {signum: signal.getsignal(signum) for signum in held}
    for signum in held:
        signal.signal(signum, signal.SIG_IGN)
    try:
        yield
    finally:
        for signum, handler in before.items():
            if handler is None:  # installed outside Python (rcl): Python's own default
                handler = signal.default_int_handler if signum == signal.SIGINT \
                    else signal.SIG_DFL
            signal.signal(signum, handler)
