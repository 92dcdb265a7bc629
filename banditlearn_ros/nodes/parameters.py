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
Node parameters: declared with descriptors and ranges, every change coerced, logged, counted.

One way for every node, in three steps:

1. its table, ``SPECS`` (``parameter_spec.Spec``: name, default, description, range), lives
   in one ROS-free home beside what it configures (``learning/live/learner_parameters``,
   ``vision/camera_parameters``, ``vision/feedback_parameters``, ...), with its rules;
2. ``declare_specs(node, SPECS)`` declares it in order and returns ``{name: value}``;
3. ``watch_changes(node, check, apply)``: ``check(changes)`` raises ValueError (or the errors
   named) with the reason to refuse a change, before anything is stored (on-set);
   ``apply(changes)`` takes it once rclpy has stored it (post-set).

``ParameterChanges`` sees every change of a node (pre-set and post-set): it logs and counts
what rclpy and the node's check refuse, and what is accepted.
"""

import contextlib
import math
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from banditlearn_ros.parameter_spec import Spec
from rcl_interfaces.msg import (
    FloatingPointRange, IntegerRange, ParameterDescriptor, SetParametersResult)
from rclpy.node import Node
from rclpy.parameter import Parameter


def declare(node: Node, name: str, default: Any, description: str, *,
            read_only: bool = False, low: Optional[float] = None,
            high: Optional[float] = None, constraints: str = '',
            empty_type: Parameter.Type = Parameter.Type.STRING_ARRAY,
            dynamic: bool = False) -> Any:
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
    dynamic : bool
        Take a value of any type (rclpy's ``dynamic_typing``): the node's rules check it.

    """
    changes = ParameterChanges.of(node)
    # rclpy refuses a value of another type itself, before any callback of the node can
    # say why ("Wrong parameter type, expected 'Type.DOUBLE' got 'Type.STRING'"): the
    # type is written in the constraints, which `ros2 param describe` shows.
    words = 'any type, checked by the node' if dynamic else type_words(default, empty_type)
    descriptor = ParameterDescriptor(
        description=description, read_only=read_only, dynamic_typing=dynamic,
        additional_constraints=words + ('; ' + constraints if constraints else ''))
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


def type_words(default: Any, empty_type: Parameter.Type = Parameter.Type.STRING_ARRAY) -> str:
    """Return the type of a parameter in words, as its descriptor's constraints start."""
    if isinstance(default, (list, tuple)):
        kind = (Parameter.Type.from_parameter_value(list(default)) if default
                else empty_type)
        return 'type ' + kind.name.lower().replace('_', ' ')
    if isinstance(default, bool):
        return 'type bool (true or false)'
    if isinstance(default, int):
        return 'type integer (a whole number)'
    if isinstance(default, float):
        return 'type double (a finite number; a whole number is taken as one)'
    return 'type string'


_EMPTY_ARRAYS = {'string': Parameter.Type.STRING_ARRAY, 'double': Parameter.Type.DOUBLE_ARRAY}


def declare_specs(node: Node, specs: Iterable[Spec]) -> Dict[str, Any]:
    """Declare every parameter of a table, in its order; return ``{name: value}``."""
    return {spec.name: declare(node, spec.name, spec.default, spec.description,
                               read_only=spec.read_only, low=spec.low, high=spec.high,
                               constraints=spec.constraints,
                               empty_type=_EMPTY_ARRAYS[spec.empty_array],
                               dynamic=spec.dynamic)
            for spec in specs}


def values_of(node: Node, names: Iterable[str]) -> Dict[str, Any]:
    """Return the current values; an array declared by type only and never set is []."""
    out = {}
    for name in names:
        value = node.get_parameter_or(name).value  # unset: None
        out[name] = [] if value is None else value
    return out


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

    def __init__(self, node: Node, clock: Callable[[], float] = time.monotonic):
        self._node = node
        self._declaring = 0
        self.accepted = 0
        self.refused = 0
        self._clock = clock
        self._last_logged: Optional[float] = None
        self._not_logged = 0
        node.add_pre_set_parameters_callback(self._pre_set)
        node.add_on_set_parameters_callback(self._finite)
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
        reason = one_line(reason)
        self._count_refusal(reason)
        return reject(reason)

    def _count_refusal(self, reason: str) -> None:
        """Count a refusal; log it unless one was logged within ``REFUSAL_LOG_PERIOD``."""
        self.refused += 1
        now = self._clock()
        if self._last_logged is not None and now - self._last_logged < REFUSAL_LOG_PERIOD:
            self._not_logged += 1
            return
        quiet, self._not_logged, self._last_logged = self._not_logged, 0, now
        tail = f' ({quiet} more refused since the last line)' if quiet else ''
        self._node.get_logger().warning(f'parameter change refused: {reason}{tail}')

    def _finite(self, params: List[Parameter]) -> SetParametersResult:
        """Refuse a non-finite float that no range stopped (a number of no range)."""
        for param in params:
            values = (param.value if param.type_ == Parameter.Type.DOUBLE_ARRAY
                      else [param.value] if param.type_ == Parameter.Type.DOUBLE else [])
            if any(not math.isfinite(v) for v in values):
                return self.refuse(f'{param.name}={shown(param.value)} is not a finite '
                                   'number')
        return accept()

    def check_with(self, check: Callable[[Dict[str, Any]], None],
                   apply: Optional[Callable[[Dict[str, Any]], None]] = None,
                   errors: Tuple[type, ...] = (ValueError, TypeError)) -> None:
        """
        Install a node's own check (on-set) and what applies an accepted change (post-set).

        ``check(changes)`` raising one of ``errors`` refuses the change with its reason
        (``refuse``); ``apply(changes)`` runs once rclpy has stored an accepted one.  Both
        get ``{name: value}``.
        """
        def on_set(params: List[Parameter]) -> SetParametersResult:
            try:
                check({p.name: p.value for p in params})
            except errors as exc:
                return self.refuse(str(exc))
            return accept()
        self._node.add_on_set_parameters_callback(on_set)
        if apply is not None:
            self._node.add_post_set_parameters_callback(
                lambda params: apply({p.name: p.value for p in params}))

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
                self._count_refusal(one_line(reason))
            out.append(param)
        return out

    def _post_set(self, params: List[Parameter]) -> None:
        if self._declaring:
            return
        self.accepted += len(params)
        text = ', '.join(f'{p.name}={shown(p.value)}' for p in params)
        self._node.get_logger().info(f'parameter set: {one_line(text)}')


def watch_changes(node: Node, check: Callable[[Dict[str, Any]], None],
                  apply: Optional[Callable[[Dict[str, Any]], None]] = None,
                  errors: Tuple[type, ...] = (ValueError, TypeError)) -> ParameterChanges:
    """
    Check every parameter change of ``node`` (on-set) and apply the accepted ones (post-set).

    The one way a node here takes a change; see ``ParameterChanges.check_with``.  Returns
    the node's ``ParameterChanges`` (its counts go to /diagnostics).
    """
    changes = ParameterChanges.of(node)
    changes.check_with(check, apply, errors)
    return changes


def _descriptor_refusal(param: Parameter, descriptor: ParameterDescriptor) -> str:
    """Return why rclpy will refuse ``param`` under ``descriptor`` ('' if it will not)."""
    if descriptor.read_only:
        return f'{param.name} is read-only (it needs a restart)'
    if not descriptor.dynamic_typing and param.type_.value != descriptor.type:
        return (f'{param.name} must be {Parameter.Type(descriptor.type).name.lower()}, got '
                f'{param.type_.name.lower()} {shown(param.value)}')
    ranges = (descriptor.integer_range if param.type_ == Parameter.Type.INTEGER
              else descriptor.floating_point_range if param.type_ == Parameter.Type.DOUBLE
              else [])
    if ranges and not ranges[0].from_value <= param.value <= ranges[0].to_value:
        return (f'{param.name}={param.value!r} is outside [{ranges[0].from_value}, '
                f'{ranges[0].to_value}]')
    return ''


REFUSAL_LOG_PERIOD = 5.0
"""Seconds after a logged refusal in which the next ones are only counted."""

MAX_REASON = 200
"""Longest refusal line logged or returned, in characters."""


def one_line(text: str, limit: int = MAX_REASON) -> str:
    """Return ``text`` on one line, cut to about ``limit`` characters (a 10 MB value too)."""
    short = ' '.join(text[:limit].split())
    return short if len(text) <= limit else f'{short} ... ({len(text)} characters)'


def shown(value: Any, limit: int = 60) -> str:
    """Return a value as a log line shows it: a long string or list cut, never copied whole."""
    if isinstance(value, (str, list, tuple)) and len(value) > limit:
        unit = 'characters' if isinstance(value, str) else 'items'
        return one_line(repr(value[:limit]), 2 * limit) + f' ... ({len(value)} {unit})'
    return one_line(repr(value), 2 * limit)


def reject(reason: str) -> SetParametersResult:
    """Return a refused parameter change with its reason."""
    return SetParametersResult(successful=False, reason=reason)


def accept() -> SetParametersResult:
    """Return an accepted parameter change."""
    return SetParametersResult(successful=True)
