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
The compiled UCWL steps, built once per process, in the caller's thread or in the background.

numba is optional (``pip install banditlearn_ros[fast]``): without it, with
``BANDITLEARN_COMPILED=0`` in the environment, or when numba fails, every learner runs the
plain algorithm (``algorithms/ucwl.py``) or the numpy round (``fast_ucwl``), which compute
the same values bit for bit.
"""

import contextlib
import importlib.util
import os
import sys
import threading
import time
from typing import Callable, List, Optional
import warnings

from . import compiler_memory, ucwl_kernels
from .ucwl_kernels import Compiled, Kernels

ENV_SWITCH = 'BANDITLEARN_COMPILED'
"""Environment variable: '0' keeps every learner on its numpy code."""


def _import_coverage_here() -> None:
    """
    Import coverage.py now, when it is installed and numba will import it in a thread.

    numba's compiler imports ``coverage`` at the first compilation, in the thread that
    compiles.  On Python 3.10, coverage's import reads ``tomli`` inside a block that then
    deletes from ``sys.modules`` every module imported meanwhile, by any thread
    (``coverage.misc.sys_modules_saved``): a session's matplotlib, imported beside the
    compilation, lost its submodules and failed with "module 'matplotlib' has no attribute
    'artist'" on every later use.  This module is imported before any thread starts, so the
    block runs here, alone; from 3.11 coverage reads TOML with the standard library.
    """
    if sys.version_info >= (3, 11) or switched_off() or 'coverage' in sys.modules:
        return
    try:
        wanted = all(importlib.util.find_spec(name) is not None
                     for name in ('numba', 'coverage'))
    except (ImportError, ValueError):
        return
    if wanted:
        try:
            import coverage  # noqa: F401
        except Exception:  # noqa: B902 (a broken coverage is numba's to meet, as before)
            pass


class _Once:
    """The outcome of the one compilation of this process, and who waits for it."""

    def __init__(self):
        self.tried = False
        self.value: Optional[Compiled] = None
        self.lock = threading.Lock()
        """Held while compiling: one compilation per process."""
        self.done_lock = threading.Lock()
        """Guards ``tried`` against ``waiting``: a waiter is called once, never missed."""
        self.waiting: List[Callable[[Optional[Kernels]], None]] = []
        self.background: Optional[threading.Thread] = None
        self.deferring = threading.local()


_ONCE = _Once()


def switched_off() -> bool:
    """Return True when ``BANDITLEARN_COMPILED=0`` keeps the numpy code."""
    return os.environ.get(ENV_SWITCH, '1') == '0'


_import_coverage_here()


def compiled_steps() -> Optional[Compiled]:
    """
    Return everything compiled (``ucwl_kernels.Compiled``), or None (see ``compiled``).

    Compiled on first use (a few seconds; cached on disk where numba may write).  Any
    failure of numba warns once and leaves the numpy code in use.  Inside ``deferring()``,
    None until compiled, never compiling.
    """
    if switched_off():
        return None
    if _ONCE.tried:
        return _ONCE.value
    if getattr(_ONCE.deferring, 'depth', 0):
        return None
    _compile_once()
    return _ONCE.value


def compiled() -> Optional[Kernels]:
    """
    Return the compiled ``Kernels`` (fused when their sums pass the check), or None.

    None without numba, with ``BANDITLEARN_COMPILED=0``, after a failure of numba, and
    inside ``deferring()`` until compiled: the numpy code computes the same values bit for
    bit, so a learner may start on it and move to the kernels later
    (``FastUCWL.use_compiled``).
    """
    steps = compiled_steps()
    return None if steps is None else steps.kernels


@contextlib.contextmanager
def deferring():
    """Make ``compiled()`` in this thread return at once (None until compiled): a live node."""
    local = _ONCE.deferring
    local.depth = getattr(local, 'depth', 0) + 1
    try:
        yield
    finally:
        local.depth -= 1


def ready() -> bool:
    """Return True once the compiled steps are in use (never compiles: for /diagnostics)."""
    return _ONCE.tried and _ONCE.value is not None


def compile_in_background(done: Callable[[Optional[Kernels]], None],
                          go: Optional[threading.Event] = None,
                          most_wait: float = 10.0, settle: float = 0.5) -> bool:
    """
    Compile in a daemon thread, then call ``done(kernels)``; False if compiled already.

    Importing numba and loading its cache takes about 1 s of CPU (4 s without the cache), so
    a node that did it in its constructor started that much later.  ``done`` moves a live
    learner made meanwhile (inside ``deferring()``) to the kernels; it runs once, in the
    thread that compiled (this one's, or a caller of ``compiled()`` that came first).  The
    thread starts compiling when ``go`` is set (a node that is up: compiling holds the GIL
    most of the time, so it would slow the start), or after ``most_wait`` seconds, and then
    waits ``settle`` seconds more: a node set ``go`` at the end of its constructor, and its
    first spins (discovery, the first /diagnostics) ran 0.4 s later beside the compilation.
    """
    if switched_off():
        return False
    with _ONCE.done_lock:
        if _ONCE.tried:
            return False
        _ONCE.waiting.append(done)
        if _ONCE.background is None or not _ONCE.background.is_alive():
            _ONCE.background = threading.Thread(target=_compile_when, daemon=True,
                                                args=(go, most_wait, settle),
                                                name='ucwl-kernels-compile')
            _ONCE.background.start()
    return True


def wait_for_background(timeout: Optional[float] = None) -> None:
    """Wait until the background compilation (if one was started) has ended."""
    thread = _ONCE.background
    if thread is not None:
        thread.join(timeout)


def _compile_when(go: Optional[threading.Event], most_wait: float, settle: float) -> None:
    if go is not None:
        go.wait(most_wait)
        time.sleep(settle)
    _compile_once()


def _compile_once() -> None:
    """Compile unless done, publish the outcome, then call those waiting for it (no lock)."""
    waiting = []
    with _ONCE.lock:
        if not _ONCE.tried:
            steps = _compiled_now()
            if steps is not None:  # LLVM's pages and heap are not needed by the steps
                compiler_memory.release()
            with _ONCE.done_lock:
                _ONCE.value, _ONCE.tried = steps, True
                waiting = list(_ONCE.waiting)
                _ONCE.waiting.clear()
    kernels = None if _ONCE.value is None else _ONCE.value.kernels
    for done in waiting:
        done(kernels)


def _compiled_now() -> Optional[Compiled]:
    """Import numba and compile; None without numba or when it fails (warned once)."""
    try:
        import numba  # noqa: F401 (only whether it is there)
    except ImportError:
        return None
    try:
        return ucwl_kernels.build()
    except Exception as exc:  # noqa: B902 (any numba failure: the numpy code is exact)
        warnings.warn(f'numba could not compile the UCWL steps ({exc}); using numpy')
        return None


class CompiledOnce:
    """
    Compiled code built and checked once per process, on the fused, checked dot products.

    ``get`` returns None without numba, with ``BANDITLEARN_COMPILED=0``, or when the dot
    products are not the fused ones.  Otherwise its first call builds the code from the
    compiled steps (``build(steps)``) and keeps it only if ``disagreement`` finds it bit
    for bit the numpy code; any failure of numba counts as a disagreement; either is said
    once, as a warning, and the caller keeps its numpy code.
    """

    def __init__(self, build: Callable[[Compiled], object],
                 disagreement: Callable[[object], str], what: str):
        self._build, self._disagreement, self._what = build, disagreement, what
        self._tried, self._value = False, None

    def get(self) -> Optional[object]:
        """Return the compiled code, or None (see the class)."""
        steps = compiled_steps()  # None also when BANDITLEARN_COMPILED=0
        if steps is None or not steps.kernels.fused:
            return None
        if self._tried:
            return self._value
        self._tried = True
        try:
            candidate = self._build(steps)
            problem = self._disagreement(candidate)
        except Exception as exc:  # noqa: B902 (any numba failure: the numpy code is exact)
            problem = str(exc)
        if problem:
            warnings.warn(f'the compiled {self._what} do not match numpy ({problem}); '
                          'using numpy')
        else:
            self._value = candidate
        return self._value
