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
/diagnostics for a node: one status a period, counters of what it survived, rates.

``Diagnostics`` publishes what the node's ``collect`` returns, with the callback guard's
and the parameter changes' counts added; ``Counters``, ``RecentRefusals`` and ``RateMeter``
are the plain bookkeeping behind those values.
"""

from collections import deque
import threading
import time
from typing import Any, Callable, Deque, Dict, Iterable, Optional

from banditlearn_ros.nodes.parameters import ParameterChanges
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.node import Node


class RecentRefusals:
    """
    Accepted and refused inputs over the last ``window`` ones, as a diagnostic level.

    Most of the recent input refused is WARN, all of it ERROR: a node that drops every
    message it gets (e.g. each feature vector has the wrong length) must not report OK.
    """

    def __init__(self, window: int = 20, least: int = 5):
        self._outcomes = deque(maxlen=window)
        self._least = least
        self._reason = ''

    def add(self, refused: bool, reason: str = '') -> None:
        """Record one input: refused (with why) or accepted."""
        self._outcomes.append(bool(refused))
        if refused:
            self._reason = reason

    def level(self) -> 'tuple[bytes, str]':
        """Return ``(level, message)``; ``(OK, '')`` while most input is accepted."""
        n = len(self._outcomes)
        refused = sum(self._outcomes)
        if n < self._least or 2 * refused <= n:
            return OK, ''
        level = ERROR if refused == n else WARN
        return level, f'refused {refused} of the last {n} inputs ({self._reason})'


class Counters:
    """Thread-safe named counters, for events a node logs, counts and survives."""

    def __init__(self, names: Iterable[str]):
        self._lock = threading.Lock()
        self._values: Dict[str, int] = dict.fromkeys(names, 0)

    def add(self, name: str, amount: int = 1) -> int:
        """Increase a counter; returns its new value."""
        with self._lock:
            self._values[name] = self._values.get(name, 0) + amount
            return self._values[name]

    def get(self, name: str) -> int:
        """Return the current value of a counter (0 if never counted)."""
        with self._lock:
            return self._values.get(name, 0)

    def snapshot(self) -> Dict[str, int]:
        """Return a copy of all counters."""
        with self._lock:
            return dict(self._values)


class ProcessingTimes:
    """The seconds a node's callback took, over its last ``size`` calls, in milliseconds."""

    def __init__(self, size: int = 200):
        self._times: Deque[float] = deque(maxlen=size)

    def add(self, seconds: float) -> None:
        """Add one call's time."""
        self._times.append(seconds)

    def values(self) -> Dict[str, float]:
        """Return ``processing_ms_mean`` and ``processing_ms_max`` (0 before the first)."""
        times = list(self._times)
        return {'processing_ms_mean': 1e3 * sum(times) / len(times) if times else 0.0,
                'processing_ms_max': 1e3 * max(times) if times else 0.0}


class Diagnostics:
    """
    Publishes one DiagnosticStatus for a node on /diagnostics at a fixed period.

    ``collect`` returns ``(level, message, values)``; it runs in the timer callback, so the
    node's own state is read on the executor thread.
    """

    def __init__(self, node: Node, name: str,
                 collect: Callable[[], 'tuple[bytes, str, Dict[str, Any]]'],
                 period: float = 1.0, topic: str = '/diagnostics'):
        self._node = node
        self._name = name
        self._collect = collect
        self._pub = node.create_publisher(DiagnosticArray, topic, 10)
        self._timer = node.create_timer(period, self.publish)

    def publish(self) -> DiagnosticArray:
        """Publish now (also called by the timer); returns the message."""
        level, message, values = self._collect()
        guard = getattr(self._node, 'callback_guard', None)
        if guard is not None:
            values = dict(values, **guard.values())
            problem = guard.recent_problem()
            if problem and level == OK:
                level, message = WARN, problem
        status = DiagnosticStatus(level=level, name=self._name, message=message,
                                  hardware_id=self._node.get_fully_qualified_name())
        changes = ParameterChanges.of(self._node)
        values.setdefault('parameter_changes', changes.accepted)
        values.setdefault('parameter_refusals', changes.refused)
        status.values = [KeyValue(key=str(k), value=_fmt(v)) for k, v in values.items()]
        msg = DiagnosticArray()
        msg.header.stamp = self._node.get_clock().now().to_msg()
        msg.status = [status]
        self._pub.publish(msg)
        return msg


OK, WARN, ERROR = DiagnosticStatus.OK, DiagnosticStatus.WARN, DiagnosticStatus.ERROR
"""Diagnostic levels for ``collect`` to return."""


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f'{value:.6g}'
    return str(value)


class RateMeter:
    """Events per second over a sliding window (frame rate, message rate)."""

    def __init__(self, window: float = 5.0):
        self.window = window
        self._stamps = []

    def tick(self, now: Optional[float] = None) -> None:
        """Record one event."""
        now = time.monotonic() if now is None else now
        self._stamps.append(now)
        cutoff = now - self.window
        while self._stamps and self._stamps[0] < cutoff:
            self._stamps.pop(0)

    def rate(self, now: Optional[float] = None) -> float:
        """Events per second in the window."""
        now = time.monotonic() if now is None else now
        recent = [s for s in self._stamps if s >= now - self.window]
        if len(recent) < 2:
            return 0.0
        return (len(recent) - 1) / max(recent[-1] - recent[0], 1e-9)
