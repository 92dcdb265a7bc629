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
Callbacks that never end a node: what one raises is caught, counted, logged and shown.

A node derives from ``GuardedNode`` so that an exception in any subscription, timer or service
callback is caught at that boundary, counted by kind, logged and shown on /diagnostics, and the
node goes on with the next message.
"""

import functools
import math
import threading
import time
import traceback
from typing import Callable, Dict, Tuple

from rclpy.node import Node


class CallbackGuard:
    """
    Catches what a callback raises so that one bad message never ends a node.

    Each exception is counted under ``<callback>.<ExceptionType>``. The first of a kind is
    logged with its reason and the line that raised it; later ones of that kind at most once
    every ``log_period`` seconds, with how many came since. /diagnostics shows the counts and
    turns WARN for ``hold`` seconds after each one. Once ``ended()`` is true (the node's
    context was shut down by a signal) a failing callback is no fault: its publish failed
    because the node is going down, and nothing is counted or logged.
    """

    def __init__(self, logger, log_period: float = 30.0, hold: float = 60.0,
                 clock: Callable[[], float] = time.monotonic,
                 ended: Callable[[], bool] = lambda: False):
        self._logger = logger
        self._ended = ended
        self.log_period = float(log_period)
        self.hold = float(hold)
        self._clock = clock
        self._lock = threading.Lock()
        self._counts: Dict[str, int] = {}
        self._logged: Dict[str, Tuple[float, int]] = {}
        self._last = ''
        self._last_time = -math.inf

    def wrap(self, callback: Callable, where: str = '') -> Callable:
        """Return ``callback`` guarded: an exception is recorded and the call returns None."""
        where = where or _callback_name(callback)

        @functools.wraps(callback)
        def guarded(*args, **kwargs):
            try:
                return callback(*args, **kwargs)
            except Exception as exc:  # noqa: B902 - the callback boundary: nothing passes it
                self.record(where, exc)
                return None
        return guarded

    def wrap_service(self, callback: Callable, where: str = '') -> Callable:
        """Return a guarded service callback: on an exception the response says it failed."""
        where = where or _callback_name(callback)

        @functools.wraps(callback)
        def guarded(request, response):
            try:
                return callback(request, response)
            except Exception as exc:  # noqa: B902 - the callback boundary: nothing passes it
                self.record(where, exc)
                if hasattr(response, 'success'):
                    response.success = False
                if hasattr(response, 'message'):
                    response.message = f'failed: {type(exc).__name__}: {exc}'
                return response
        return guarded

    def record(self, where: str, exc: BaseException) -> int:
        """Count one exception of ``where``; log it if its kind is due; return its count."""
        if self._ended():
            return 0
        kind = f'{where}.{type(exc).__name__}'
        now = self._clock()
        with self._lock:
            count = self._counts[kind] = self._counts.get(kind, 0) + 1
            logged = self._logged.get(kind)
            due = logged is None or now - logged[0] >= self.log_period
            if due:
                self._logged[kind] = (now, count)
            self._last = f'{where} failed: {type(exc).__name__}: {exc}'
            self._last_time = now
        if due:
            since = '' if logged is None else \
                f' ({count - logged[1]} since the last report, {count} in all)'
            self._logger.error(
                f'callback {where} failed and was skipped: {type(exc).__name__}: {exc} '
                f'(at {_origin(exc)}){since}')
        return count

    def counts(self) -> Dict[str, int]:
        """Return the count of each kind, ``{'<callback>.<ExceptionType>': n}``."""
        with self._lock:
            return dict(self._counts)

    def values(self) -> Dict[str, int]:
        """Return the /diagnostics values: the total and one ``callback_errors.<kind>`` each."""
        counts = self.counts()
        out = {'callback_errors': sum(counts.values())}
        out.update({f'callback_errors.{kind}': n for kind, n in sorted(counts.items())})
        return out

    def recent_problem(self) -> str:
        """Return the latest failure if it is younger than ``hold`` seconds, else ''."""
        with self._lock:
            if self._clock() - self._last_time < self.hold:
                total = sum(self._counts.values())
                return f'{total} callback error(s); latest: {self._last}'
            return ''


def _callback_name(callback: Callable) -> str:
    name = getattr(callback, '__name__', '') or type(callback).__name__
    return name.strip('_') or 'callback'


def _origin(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return 'unknown place'
    last = frames[-1]
    return f'{last.filename.rsplit("/", 1)[-1]}:{last.lineno} in {last.name}'


class GuardedNode(Node):
    """A Node whose subscription, timer and service callbacks run under a ``CallbackGuard``."""

    @property
    def callback_guard(self) -> CallbackGuard:
        """Return the node's guard (made on first use: Node's own services come first)."""
        guard = self.__dict__.get('_callback_guard')
        if guard is None:
            guard = self.__dict__['_callback_guard'] = CallbackGuard(
                self.get_logger(), ended=lambda: not self.context.ok())
        return guard

    def create_subscription(self, msg_type, topic, callback, *args, **kwargs):
        """Create a subscription whose callback is guarded."""
        return super().create_subscription(msg_type, topic, self.callback_guard.wrap(callback),
                                           *args, **kwargs)

    def create_timer(self, timer_period_sec, callback, *args, **kwargs):
        """Create a timer whose callback is guarded."""
        if callback is not None:
            callback = self.callback_guard.wrap(callback)
        return super().create_timer(timer_period_sec, callback, *args, **kwargs)

    def create_service(self, srv_type, srv_name, callback, *args, **kwargs):
        """Create a service whose callback is guarded (a failure is answered, not raised)."""
        return super().create_service(srv_type, srv_name,
                                      self.callback_guard.wrap_service(callback),
                                      *args, **kwargs)
