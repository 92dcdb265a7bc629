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
What every node here shares: parameters with ranges, counters, /diagnostics, guarded callbacks.

A node derives from ``GuardedNode`` so that an exception in any subscription, timer or service
callback is caught at that boundary, counted by kind, logged and shown on /diagnostics, and the
node goes on with the next message; ``run_node`` is every node's ``main``.
"""

from collections import deque
import contextlib
import functools
import math
import threading
import time
import traceback
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from banditlearn_ros import shutdown
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rcl_interfaces.msg import (
    FloatingPointRange, IntegerRange, ParameterDescriptor, SetParametersResult)
from rclpy.exceptions import ParameterException
import rclpy.logging
from rclpy.node import Node
from rclpy.parameter import Parameter


def declare(node: Node, name: str, default: Any, description: str, *,
            read_only: bool = False, low: Optional[float] = None,
            high: Optional[float] = None, constraints: str = '',
            empty_type: Parameter.Type = Parameter.Type.STRING_ARRAY) -> Any:
    """
    Declare a parameter with a descriptor (and a range for numbers); return its value.

    A float parameter also takes a whole number, from a parameter file (``C: 1``) or from
    ``ros2 param set node C 1``: it is stored as a float (see ``ParameterChanges``).

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
        Inclusive range, for int and float parameters; shown by ``ros2 param describe``.
    constraints : str
        Constraints in words, beyond the range.
    empty_type : rclpy.parameter.Parameter.Type
        The array type an empty list default declares.

    """
    changes = ParameterChanges.of(node)
    descriptor = ParameterDescriptor(description=description, read_only=read_only,
                                     additional_constraints=constraints)
    if low is not None or high is not None:
        if isinstance(default, bool):
            raise TypeError(f'{name}: a bool has no range')
        if isinstance(default, int):
            descriptor.integer_range = [IntegerRange(
                from_value=int(low if low is not None else -2 ** 63),
                to_value=int(high if high is not None else 2 ** 63 - 1), step=0)]
        else:
            descriptor.floating_point_range = [FloatingPointRange(
                from_value=float(low if low is not None else -math.inf),
                to_value=float(high if high is not None else math.inf), step=0.0)]
    if isinstance(default, float):
        changes.coerce_override(name)
    with changes.declaring():
        if isinstance(default, (list, tuple)) and not default:
            value = node.declare_parameter(name, empty_type, descriptor)
            got = value.value
            return list(got) if got is not None else []
        return node.declare_parameter(name, default, descriptor).value


class ParameterChanges:
    """
    Every parameter change of a node, coerced, logged and counted (one per node).

    Installed by the first ``declare``.  Before rclpy checks a change (pre-set callback) a
    whole number given for a float parameter becomes a float, so ``ros2 param set node k 2``
    works; a change rclpy itself will refuse (read-only, wrong type, out of range) is logged
    at WARN and counted.  A node's own on-set refusal goes through ``refuse``.  Accepted
    changes are logged at INFO and counted after they are stored (post-set callback).
    ``Diagnostics`` publishes both counts (``parameter_changes``, ``parameter_refusals``).
    """

    def __init__(self, node: Node):
        self._node = node
        self._declaring = 0
        self.accepted = 0
        self.refused = 0
        node.add_pre_set_parameters_callback(self._pre_set)
        node.add_post_set_parameters_callback(self._post_set)

    @classmethod
    def of(cls, node: Node) -> 'ParameterChanges':
        """Return the node's instance, made on first use."""
        changes = node.__dict__.get('_banditlearn_parameter_changes')
        if changes is None:
            changes = cls(node)
            node.__dict__['_banditlearn_parameter_changes'] = changes
        return changes

    @contextlib.contextmanager
    def declaring(self):
        """Within: declarations, which are neither logged nor counted."""
        self._declaring += 1
        try:
            yield
        finally:
            self._declaring -= 1

    def coerce_override(self, name: str) -> None:
        """Turn a whole-number override (params file, ``-p``) of a float parameter to float."""
        overrides = getattr(self._node, '_parameter_overrides', {})
        given = overrides.get(name)
        if given is not None and given.type_ == Parameter.Type.INTEGER:
            overrides[name] = Parameter(name, Parameter.Type.DOUBLE, float(given.value))

    def refuse(self, reason: str) -> SetParametersResult:
        """Log and count a refusal of the node's own on-set check; return the result."""
        self.refused += 1
        self._node.get_logger().warning(f'parameter change refused: {reason}')
        return reject(reason)

    def _pre_set(self, params: List[Parameter]) -> List[Parameter]:
        out = []
        for param in params:
            if not self._node.has_parameter(param.name):
                out.append(param)
                continue
            descriptor = self._node.describe_parameter(param.name)
            if (param.type_ == Parameter.Type.INTEGER
                    and descriptor.type == Parameter.Type.DOUBLE.value):
                param = Parameter(param.name, Parameter.Type.DOUBLE, float(param.value))
            reason = _descriptor_refusal(param, descriptor)
            if reason:
                self.refused += 1
                self._node.get_logger().warning(f'parameter change refused: {reason}')
            out.append(param)
        return out

    def _post_set(self, params: List[Parameter]) -> None:
        if self._declaring:
            return
        self.accepted += len(params)
        text = ', '.join(f'{p.name}={p.value!r}' for p in params)
        self._node.get_logger().info(f'parameter set: {text}')


def _descriptor_refusal(param: Parameter, descriptor: ParameterDescriptor) -> str:
    """Return why rclpy will refuse ``param`` under ``descriptor`` ('' if it will not)."""
    if descriptor.read_only:
        return f'{param.name} is read-only (it needs a restart)'
    if not descriptor.dynamic_typing and param.type_.value != descriptor.type:
        return (f'{param.name} must be {Parameter.Type(descriptor.type).name.lower()}, got '
                f'{param.type_.name.lower()} {param.value!r}')
    ranges = (descriptor.integer_range if param.type_ == Parameter.Type.INTEGER
              else descriptor.floating_point_range if param.type_ == Parameter.Type.DOUBLE
              else [])
    if ranges and not ranges[0].from_value <= param.value <= ranges[0].to_value:
        return (f'{param.name}={param.value!r} is outside [{ranges[0].from_value}, '
                f'{ranges[0].to_value}]')
    return ''


def reject(reason: str) -> SetParametersResult:
    """Return a refused parameter change with its reason."""
    return SetParametersResult(successful=False, reason=reason)


def accept() -> SetParametersResult:
    """Return an accepted parameter change."""
    return SetParametersResult(successful=True)


_NOT_ANNOUNCED = ('/parameter_events', '/diagnostics', '/rosout')


def topics_line(node: Node) -> str:
    """
    Return what a node listens to and publishes, as rclpy resolved the names.

    The names are the subscriptions' and publishers' own ``topic_name``: after the
    namespace and every remapping, so the start line says where the node really is.
    """
    def names(endpoints) -> str:
        found = sorted({e.topic_name for e in endpoints
                        if not e.topic_name.endswith(_NOT_ANNOUNCED)})
        return ', '.join(found) or 'nothing'
    return f'listens to {names(node.subscriptions)}; publishes {names(node.publishers)}'


def shutdown_logger(node: Node):
    """
    Return a console-only logger for the last words of a node (saved on shutdown, ...).

    Once Ctrl-C or SIGTERM has arrived, the node's own logger can no longer publish to
    /rosout and rcl complains on every line. rclpy's signal thread shuts the context down at
    its own pace, so ``context.ok()`` can still be true a moment before a line's publish
    fails: the last words always go to the console, through a logger of the node's name plus
    ``.shutdown``.
    """
    return rclpy.logging.get_logger(f'{node.get_logger().name}.shutdown')


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


class CallbackGuard:
    """
    Catches what a callback raises so that one bad message never ends a node.

    Each exception is counted under ``<callback>.<ExceptionType>``. The first of a kind is
    logged with its reason and the line that raised it; later ones of that kind at most once
    every ``log_period`` seconds, with how many came since. /diagnostics shows the counts and
    turns WARN for ``hold`` seconds after each one.
    """

    def __init__(self, logger, log_period: float = 30.0, hold: float = 60.0,
                 clock: Callable[[], float] = time.monotonic):
        self._logger = logger
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
            guard = self.__dict__['_callback_guard'] = CallbackGuard(self.get_logger())
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


START_ERRORS = (ValueError, OSError, RuntimeError, ParameterException)
"""Errors that end a node at start with one readable line instead of a traceback."""


def wants_help(argv) -> bool:
    """Return True when ``-h``/``--help`` comes before any ``--ros-args``."""
    for arg in argv:
        if arg == '--ros-args':
            return False
        if arg in ('-h', '--help'):
            return True
    return False


def node_usage(label: str, doc: str) -> str:
    """Return a node's ``--help`` text: what it does and how ROS arguments are given."""
    about = (doc or '').strip().split('\n\n')[0]
    return (f'usage: {label} [--ros-args [-p NAME:=VALUE]... [--params-file FILE] '
            f'[-r FROM:=TO]...]\n\n{about}\n\n'
            f'Parameters are listed with their ranges by `ros2 param describe` on the running '
            f'node and in the README; the launch files take params_file:=FILE.')


def _rcl_message(exc: BaseException) -> str:
    """Return the useful part of an rcl error ("... Error: error not set, at file.c:352")."""
    text = str(exc).replace('failed to initialize rcl: ', '')
    return text.split('. Error:')[0].split(', at /')[0].strip()


def run_node(node_factory: Callable[..., Node], args=None, name: str = '',
             errors: tuple = START_ERRORS,
             until: Optional[Callable[[Node], bool]] = None) -> None:
    """
    Run a node: init, spin, clean shutdown on Ctrl-C or SIGTERM (the ``main`` of every node).

    Only start-up ends the process with an error: a bad command line, or an exception of a
    type in ``errors`` while the node is built, gives ``<name>: <message>`` on stderr and exit
    status 1. A signal ends it with status 0 once ``node.close()`` has run (1 if that returned
    False: the model could not be saved). Once running, a callback's exception is caught (by
    ``GuardedNode``, and for any other node, at the executor) and the node goes on.
    ``until(node)`` True ends the spin.
    """
    import sys

    label = name or getattr(node_factory, '__module__', 'node').rsplit('.', 1)[-1]
    argv = sys.argv[1:] if args is None else list(args)
    if wants_help(argv):
        module = sys.modules.get(getattr(node_factory, '__module__', ''), None)
        print(node_usage(label, getattr(module, '__doc__', '') or node_factory.__doc__ or ''))
        return
    shutdown.sigterm_as_interrupt()
    import rclpy
    from rclpy.executors import ExternalShutdownException
    try:
        rclpy.init(args=args)
    except Exception as exc:  # noqa: B902 - rcl reports a bad --ros-args as RCLError
        print(f'{label}: bad command line: {_rcl_message(exc)}', file=sys.stderr)
        sys.exit(1)
    node = None
    failure = None
    closed = True
    try:
        # Made before the node, so that a signal during the node's start cannot leave a
        # half-made executor behind (rclpy then complains as the process ends).
        executor = rclpy.get_global_executor()
        node = node_factory()
        _spin(node, executor, until)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except errors as exc:
        failure = exc
    finally:
        with shutdown.signals_held():
            if node is not None:
                close = getattr(node, 'close', None)
                if close is not None:
                    closed = close() is not False
                node.destroy_node()
            if rclpy.ok():
                rclpy.shutdown()
    if failure is not None:
        print(f'{label}: {failure}', file=sys.stderr)
        sys.exit(1)
    if not closed:
        print(f'{label}: could not save on shutdown (see the log above)', file=sys.stderr)
        sys.exit(1)


def _spin(node: Node, executor, until: Optional[Callable[[Node], bool]]) -> None:
    import rclpy
    from rclpy.executors import ExternalShutdownException
    executor.add_node(node)
    # A node that is not a GuardedNode still survives its callbacks: the executor re-raises a
    # callback's exception from spin_once, and it is recorded here.
    guard = node.callback_guard if isinstance(node, GuardedNode) \
        else CallbackGuard(node.get_logger())
    try:
        while rclpy.ok() and not (until is not None and until(node)):
            try:
                executor.spin_once(timeout_sec=0.2)
            except (KeyboardInterrupt, ExternalShutdownException):
                raise
            except Exception as exc:  # noqa: B902 - a callback never ends a node
                guard.record('executor', exc)
    finally:
        executor.remove_node(node)
