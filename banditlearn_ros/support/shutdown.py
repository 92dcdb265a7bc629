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
import sys
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


_REQUESTED = []
"""The signals that asked for the end (``stop_on_first_signal``), first first."""


_RAISING = []
"""Non-empty while nothing can be left half done (a node being built): signals raise."""


def _first_signal(signum, frame):
    _REQUESTED.append(signum)
    hold_signals()
    if _RAISING:  # a start that hangs (a device, a file) must still end on Ctrl-C
        raise Terminated('terminated (SIGTERM)') if signum == signal.SIGTERM \
            else KeyboardInterrupt()


def raise_on_signal(raising: bool) -> None:
    """Make the first signal raise (while a node is built) or only ask (once it runs)."""
    _RAISING[:] = [True] if raising else []
    if raising and sys.unraisablehook is not _quiet_unraisable:
        _quiet_unraisable.passed_on = sys.unraisablehook
        sys.unraisablehook = _quiet_unraisable


def _quiet_unraisable(unraisable) -> None:
    """
    Drop the signal's exception where Python cannot raise it (a weakref callback in an import).

    It is recorded already (``requested``), which ends the start once the node is built; any
    other unraisable exception goes on to the hook before.
    """
    if not (isinstance(unraisable.exc_value, KeyboardInterrupt) and _REQUESTED):
        _quiet_unraisable.passed_on(unraisable)


_quiet_unraisable.passed_on = sys.unraisablehook


def _held(signum, frame):
    """Do nothing: a signal while shutting down (the shutdown under way is the answer)."""


def stop_on_first_signal() -> None:
    """
    Make the first SIGINT or SIGTERM ask for the end (``requested``); swallow later ones.

    Nothing is raised: a KeyboardInterrupt inside a callback could leave a model half
    updated just before it is saved. The loop that spins looks at ``requested()`` and ends;
    the cleanup then runs once. Later signals do nothing (``hold_signals``) until
    ``ignore_signals`` at the very end. A terminal's Ctrl-C signals the whole process group
    and ``ros2 launch`` forwards one more SIGINT: a second signal must neither interrupt
    the save nor, once Python restores the default handlers as it exits, kill the process
    ("process has died [exit code -2]"). No-op outside the main thread; rclpy, initialised
    afterwards, passes the signals on to this handler.
    """
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, _first_signal)


def requested() -> int:
    """Return the first signal that asked for the end (``stop_on_first_signal``), or 0."""
    return _REQUESTED[0] if _REQUESTED else 0


def requested_name() -> str:
    """Return how the end was asked for: 'SIGTERM', 'Ctrl-C' (SIGINT) or ''."""
    signum = requested()
    return '' if not signum else 'SIGTERM' if signum == signal.SIGTERM else 'Ctrl-C'


def hold_signals() -> None:
    """
    Swallow SIGINT and SIGTERM while shutting down (no-op outside the main thread).

    A Python handler that does nothing, not SIG_IGN: a signal already caught but not yet
    handled would otherwise be reported as "ignored due to race condition".
    """
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, _held)


def ignore_signals() -> None:
    """
    Ignore SIGINT and SIGTERM for the rest of the process: call it last, before exiting.

    Python puts the default handlers back for the handlers it installed as it exits, and a
    late signal would then kill the process; ignored ones stay ignored.
    """
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_IGN)


def exit_status(exc: KeyboardInterrupt) -> int:
    """Return the shell's status for an interrupted tool: 128 + the signal number."""
    return 128 + int(getattr(exc, 'signum', signal.SIGINT))


@contextlib.contextmanager
def signals_held():
    """
    Swallow SIGINT and SIGTERM while a node saves and shuts down, then restore the handlers.

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
        signal.signal(signum, _held)  # swallowed (see hold_signals)
    try:
        yield
    finally:
        for signum, handler in before.items():
            if handler is None:  # installed outside Python (rcl): Python's own default
                handler = signal.default_int_handler if signum == signal.SIGINT \
                    else signal.SIG_DFL
            signal.signal(signum, handler)
