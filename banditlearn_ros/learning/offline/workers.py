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
Worker processes that never start as a fork of a threaded process.

A fork copies only the calling thread: a lock another thread held (DDS, numba's loader, a
test runner's) stays locked in the child for good, so a worker forked from such a process
can hang.  Workers are therefore forked from a fresh single-threaded server process
(``forkserver``), which imports ``PRELOAD`` once, so each worker starts in milliseconds.
Whatever a worker needs travels with its task (or ``initargs``), pickled.
"""

import concurrent.futures
import multiprocessing
from typing import Any, Callable, Optional, Sequence

START_METHOD = 'forkserver'
"""How workers start: 'forkserver' (default), 'spawn', or 'fork' (only for a benchmark's
comparison: unsafe in a threaded process)."""

PRELOAD = ('numpy', 'banditlearn_ros.learning.offline.ucwl_grid_run',
           'banditlearn_ros.learning.offline.evaluation',
           'banditlearn_ros.learning.offline.grid_preload')
"""Modules the fork server imports once, before any worker is forked from it (the last
one loads the compiled grid steps, so the workers do not each load them)."""


def start_server() -> None:
    """
    Start the fork server now, so that it imports ``PRELOAD`` while this process works.

    Its imports (numba and the compiled grid steps, about 1.3 s) otherwise begin when the
    first pool is made, after this process has loaded its own data and steps; started
    first, the two run side by side on two cores.
    """
    if START_METHOD == 'forkserver':
        multiprocessing.set_forkserver_preload(list(PRELOAD))
        from multiprocessing import forkserver
        forkserver.ensure_running()


def pool(jobs: int, initializer: Optional[Callable[..., Any]] = None,
         initargs: Sequence[Any] = ()) -> concurrent.futures.ProcessPoolExecutor:
    """
    Return a process pool of ``jobs`` workers started by ``START_METHOD``.

    Parameters
    ----------
    jobs : int
        Worker processes.
    initializer : callable, optional
        Run in each worker once, with ``initargs`` (what a fork would have inherited).
    initargs : sequence
        Its arguments, pickled.

    Returns
    -------
    concurrent.futures.ProcessPoolExecutor
        Use it as a context manager.

    """
    context = multiprocessing.get_context(START_METHOD)
    if START_METHOD == 'forkserver':
        context.set_forkserver_preload(list(PRELOAD))
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=initializer,
        initargs=tuple(initargs))
