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

"""What every node here shares: parameter declaration with ranges, counters, /diagnostics."""

import threading
import time
from typing import Any, Callable, Dict, Iterable, Optional

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rcl_interfaces.msg import (
    FloatingPointRange, IntegerRange, ParameterDescriptor, SetParametersResult)
from rclpy.exceptions import ParameterException
from rclpy.node import Node
from rclpy.parameter import Parameter


def declare(node: Node, name: str, default: Any, description: str, *,
            read_only: bool = False, low: Optional[float] = None,
            high: Optional[float] = None, constraints: str = '') -> Any:
    """
    Declare a parameter with a descriptor (and a range for numbers); return its value.

    Parameters
    ----------
    node : rclpy.node.Node
        The node.
    name : str
        Parameter name.
    default : Any
        Default value; its type fixes the parameter's type.
    description : str
        What the parameter does, shown by ``ros2 param describe``.
    read_only : bool
        True where a change needs a restart.
    low, high : float, optional
        Inclusive range, for int and float parameters.
    constraints : str
        Constraints in words, beyond the range.

    """
    descriptor = ParameterDescriptor(description=description, read_only=read_only,
                                     additional_constraints=constraints)
    if low is not None or high is not None:
        if isinstance(default, bool):
            raise TypeError(f'{name}: a bool has no range')
        if isinstance(default, int):
            descriptor.integer_range = [IntegerRange(
                from_value=int(low if low is not None else -2 ** 31),
                to_value=int(high if high is not None else 2 ** 31 - 1), step=0)]
        else:
            descriptor.floating_point_range = [FloatingPointRange(
                from_value=float(low if low is not None else -1e300),
                to_value=float(high if high is not None else 1e300), step=0.0)]
    if isinstance(default, (list, tuple)) and not default:
        value = node.declare_parameter(name, Parameter.Type.STRING_ARRAY, descriptor)
        got = value.value
        return list(got) if got is not None else []
    return node.declare_parameter(name, default, descriptor).value


def reject(reason: str) -> SetParametersResult:
    """Return a refused parameter change with its reason."""
    return SetParametersResult(successful=False, reason=reason)


def accept() -> SetParametersResult:
    """Return an accepted parameter change."""
    return SetParametersResult(successful=True)


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
        status = DiagnosticStatus(level=level, name=self._name, message=message,
                                  hardware_id=self._node.get_fully_qualified_name())
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


START_ERRORS = (ValueError, OSError, RuntimeError, ParameterException)
"""Errors that end a node at start with one readable line instead of a traceback."""


def run_node(node_factory: Callable[..., Node], args=None, name: str = '',
             errors: tuple = START_ERRORS) -> None:
    """
    Run a node: init, spin, clean shutdown on Ctrl-C (the ``main`` of every node).

    An exception of a type in ``errors`` (a bad parameter, an unreadable file) ends the
    process with ``<name>: <message>`` on stderr and exit status 1.
    """
    import sys

    import rclpy
    from rclpy.executors import ExternalShutdownException
    rclpy.init(args=args)
    node = None
    failure = None
    try:
        node = node_factory()
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except errors as exc:
        failure = exc
    finally:
        if node is not None:
            close = getattr(node, 'close', None)
            if close is not None:
                close()
            node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()
    if failure is not None:
        label = name or getattr(node_factory, '__module__', 'node').rsplit('.', 1)[-1]
        print(f'{label}: {failure}', file=sys.stderr)
        sys.exit(1)
