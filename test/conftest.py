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

"""Test-wide settings: DDS stays on this machine, in a domain of this run's own."""

import atexit
import fcntl
import os
from pathlib import Path
import signal
import tempfile
import time
import warnings

import pytest


def _domain_id() -> int:
    """
    Return a ROS domain (1-200) that no other test process on this machine holds.

    Each test process (an xdist worker, or a run without workers) takes the first domain whose
    lock file it can lock and keeps the lock while it lives, so two suites run side by side
    never share a domain; the kernel drops the lock when the process ends, however it ends.
    A domain this process holds already is locked too (a lock belongs to its open file), so
    a second call returns another one.  Other tools on this machine may use 201-232.
    """
    folder = Path(tempfile.gettempdir()) / 'banditlearn-test-domains'
    folder.mkdir(exist_ok=True)
    start = os.getpid() % 200
    for step in range(200):
        domain = 1 + (start + step) % 200
        handle = open(folder / f'{domain}.lock', 'a')
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        _DOMAIN_LOCKS.append(handle)  # held until this process ends
        return domain
    raise RuntimeError('no free ROS domain: 200 test processes hold one each')


_DOMAIN_LOCKS = []


@atexit.register
def _release_domain_locks():
    # Closed at the very end (not left to the interpreter, which warns of an unclosed file).
    for handle in _DOMAIN_LOCKS:
        handle.close()


# Every test process gets its own ROS domain so parallel runs never hear each other, and
# discovery never leaves the machine.
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
os.environ['ROS_DOMAIN_ID'] = str(_domain_id())
# ROS logs of test nodes go to a temporary folder, not the user's ~/.ros/log.
os.environ.setdefault('ROS_LOG_DIR', tempfile.mkdtemp(prefix='banditlearn-test-roslog-'))
# A suite started as a background job of a script (``pytest &``) inherits SIGINT ignored, as
# POSIX shells set it for such jobs, and so would every node a test starts: the Ctrl-C the
# tests send, as a terminal does, would be lost.  A handler here makes each child's SIGINT
# the default again at exec, as in a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / 'shared' / 'data'


_WATCH = []
"""This process's ``ros_harness.DomainWatch``, made by the first test (none without rclpy)."""

LEAVING = 10.0
"""Seconds the nodes of a closed context may take to leave the graph (a bound, not a wait)."""


@atexit.register
def _leave_domain():
    for watch in _WATCH:
        watch.close()
    _WATCH.clear()


def domain_watch():
    """Return this process's ``ros_harness.DomainWatch`` (made at the first call)."""
    from ros_harness import DomainWatch
    if not _WATCH:
        _WATCH.append(DomainWatch(int(os.environ['ROS_DOMAIN_ID'])))
    return _WATCH[0]


def move_from_strangers() -> str:
    """
    Move this process to a free ROS domain if a node of another process is in its own.

    Returns what was done ('' when the domain holds no other node).  The old domain's lock
    stays held, so no other test process walks into it.
    """
    said = []
    for _ in range(20):
        others = domain_watch().others()
        # The nodes of the test before, in this process, leave the graph a moment after
        # their context shut down: only nodes still there after that moment are strangers.
        deadline = time.monotonic() + LEAVING
        while others and time.monotonic() < deadline:
            time.sleep(0.02)
            others = domain_watch().others()
        if not others:
            return '; '.join(said)
        old = _WATCH.pop()
        old.close()
        os.environ['ROS_DOMAIN_ID'] = str(_domain_id())
        domain_watch()
        said.append(f'ROS domain {old.domain} holds nodes of another process ('
                    + ', '.join(ns.rstrip('/') + '/' + n for ns, n in others[:5])
                    + f'): this test process moved to domain {os.environ["ROS_DOMAIN_ID"]}')
    raise RuntimeError('20 ROS domains in a row hold nodes of other processes')


@pytest.fixture(autouse=True)
def _domain_without_strangers():
    """
    Before each test, move to a free domain if a node of another process is in this one.

    The lock of ``_domain_id`` keeps other test processes out, not a node someone started by
    hand or another tool with this ``ROS_DOMAIN_ID``: it would hear and answer the test's
    topics and services (a second ``/learner_node`` answers every gesture).  The test then
    runs in a domain of its own instead of failing, and the move is said in the warnings
    summary.
    """
    try:
        import rclpy  # noqa: F401
    except ImportError:  # nothing here speaks DDS
        yield
        return
    moved = move_from_strangers()
    if moved:
        warnings.warn(moved)
    yield


@pytest.fixture
def ros():
    """Yield a test's own rclpy context and probe node (``ros_harness.Ros``), then close it."""
    from ros_harness import Ros
    harness = Ros()
    yield harness
    harness.close()


@pytest.fixture
def shared_data() -> Path:
    """Return the read-only real data beside the project; skip when a clone has none."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f'real data folder {SHARED_DATA} is absent (it sits beside the project '
                    'only on the development machines)')
    return SHARED_DATA


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """
    Order the run for two workers: the ``slow`` tests first, the ``serial`` ones last.

    pytest-xdist hands the tests out in this order (``--no-loadscope-reorder``, setup.cfg). A
    ``serial`` test waits for the test the other worker is running, then runs while the other
    worker waits: at the end of the run it waits only for a short test, and the other worker
    has nothing left to do anyway. The long tests first keep the tail of the run short. The
    sort is stable: within each part the collection order stays. (The ``xdist_group`` mark
    is meant to keep the ``serial`` tests on one worker; with pytest 9 and pytest-xdist 3.8 it
    has no effect, as xdist can no longer rename the test, so the lock alone keeps them apart.)
    """
    for item in items:
        if item.get_closest_marker('serial'):
            item.add_marker(pytest.mark.xdist_group('serial'))
    items.sort(key=lambda item: (item.get_closest_marker('serial') is not None,
                                 item.get_closest_marker('slow') is None))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Note which test this worker runs next (a run of ``serial`` tests keeps its lock)."""
    item.stash[_NEXT] = nextitem
    yield


class _RunLock:
    """
    The lock file shared by the workers of one pytest-xdist run.

    Every test holds it shared, a ``serial`` test exclusively. A worker that runs several
    ``serial`` tests in a row keeps it exclusive from the first to the last, so the other
    workers do not slip a test in between and make each of them wait again.
    """

    def __init__(self):
        self.handle = None
        self.exclusive = False

    def hold(self, exclusive: bool) -> None:
        if self.handle is not None and self.exclusive == exclusive:
            return
        self.release()
        path = os.path.join(tempfile.gettempdir(), f'banditlearn-pytest-{os.getppid()}.lock')
        self.handle = open(path, 'a')
        fcntl.flock(self.handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        self.exclusive = exclusive

    def release(self) -> None:
        if self.handle is not None:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.handle.close()
            self.handle = None


_NEXT = pytest.StashKey()
_LOCK = _RunLock()


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """Restore the signal handlers a test changed (a main() run in-process holds signals)."""
    kept = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    yield
    for signum, handler in kept.items():
        if handler is not None and signal.getsignal(signum) is not handler:
            signal.signal(signum, handler)


@pytest.fixture(autouse=True)
def _alone_when_serial(request):
    """
    Run a ``serial`` test alone: the other workers wait while it runs.

    Timing-sensitive tests (a link that drops, a person answering what the screen shows) hold
    the run's lock exclusively, every other test holds it shared (``_RunLock``).
    """
    if not os.environ.get('PYTEST_XDIST_WORKER'):
        yield
        return
    serial = request.node.get_closest_marker('serial') is not None
    _LOCK.hold(serial)
    try:
        yield
    finally:
        following = request.node.stash.get(_NEXT, None)
        if not (serial and following is not None
                and following.get_closest_marker('serial') is not None):
            _LOCK.release()
