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
A started system: its nodes on one executor in one context, and the check of ``--set``.

The ROS half of the bring-up (``banditlearn_bringup``); the system file and the command line
are read without ROS by ``system_file`` and ``bringup_options``.
"""

import copy
import difflib
import importlib
import inspect
import os
import shutil
import tempfile
from typing import Any, Dict, List

from banditlearn_ros.support.shutdown import signals_held
from banditlearn_ros.systems.options import (
    DOUBLE_ARRAY, in_declared_type, STRING_ARRAY, TYPE_NAMES)
from banditlearn_ros.systems.system_file import base_values, BringupError, coerce
import yaml


def node_class(spec: str):
    """Return the Node class for ``learner_node`` or ``package.module:Class``."""
    from rclpy.node import Node
    module_name, _, class_name = spec.partition(':')
    if '.' not in module_name:
        module_name = 'banditlearn_ros.nodes.' + module_name
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BringupError(f'node {spec!r}: cannot import {module_name} ({exc})') from None
    if class_name:
        cls = getattr(module, class_name, None)
        if cls is None:
            raise BringupError(f'node {spec!r}: {module_name} has no {class_name}')
        return cls
    cls = getattr(module, 'NODE_CLASS', None)
    if cls is not None:
        return cls
    found = [obj for obj in vars(module).values()
             if inspect.isclass(obj) and issubclass(obj, Node) and obj is not Node
             and obj.__module__ == module.__name__]
    if len(found) != 1:
        raise BringupError(f'node {spec!r}: {module_name} defines {len(found)} Node classes; '
                           'write "module:Class"')
    return found[0]


class System:
    """The nodes of a system on one executor, with the files they were started from."""

    def __init__(self, system: Dict[str, Any], log_level: str = 'warn', probe: bool = False):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        self.system = system
        for path in system['params_files']:
            if not path.is_file():
                raise BringupError(f'parameter file {path} does not exist')
        base = base_values(system['params_files'])
        overrides = {}
        classes = [(entry, node_class(entry['node'])) for entry in system['nodes']]
        from banditlearn_ros.nodes.managed import bring_up, ManagedNode
        self._autostart = {}
        for entry, cls in classes:
            known = {**base.get('*', {}), **base.get(entry['name'], {})}
            params = {k: coerce(v, known.get(k)) for k, v in entry['parameters'].items()}
            if issubclass(cls, ManagedNode):
                # The bring-up takes managed nodes through their transitions itself, like
                # ros2 launch: all configured, then all activated (autostart false: left).
                self._autostart[entry['name']] = params.get(
                    'autostart', known.get('autostart', True)) is not False
                params['autostart'] = False
            if params:
                # Keyed like the shipped files, so the overrides apply in any namespace.
                overrides['/**/' + entry['name']] = {'ros__parameters': params}
        self._tmp = tempfile.mkdtemp(prefix='banditlearn_bringup_')
        args = ['--ros-args', '--log-level', log_level] + list(system.get('ros_args', []))
        for path in system['params_files']:
            args += ['--params-file', str(path)]
        if overrides:
            overlay = os.path.join(self._tmp, 'overrides.yaml')
            with open(overlay, 'w', encoding='utf-8') as handle:
                yaml.safe_dump(overrides, handle)
            args += ['--params-file', overlay]
        for entry, cls in classes:
            if not _accepts_kwargs(cls):
                args += [a for src, dst in entry['remappings'].items()
                         for a in ('-r', f'{entry["name"]}:{src}:={dst}')]
        self.context = rclpy.context.Context()
        rclpy.init(args=['banditlearn_bringup'] + args, context=self.context)
        self.nodes = []
        self.executor = SingleThreadedExecutor(context=self.context)
        from banditlearn_ros.nodes.callback_guard import CallbackGuard
        self.guard = CallbackGuard(rclpy.logging.get_logger('banditlearn_bringup'))
        try:
            for entry, cls in classes:
                node = cls(**self._node_kwargs(entry, cls))
                self.nodes.append(node)
                self.executor.add_node(node)
            if not probe:  # a probe only declares: no camera, no thread, no graph
                bring_up(node for node in self.nodes if self._autostart.get(node.get_name()))
        except BaseException:
            self.close()
            raise

    def _node_kwargs(self, entry: Dict[str, Any], cls) -> Dict[str, Any]:
        params = inspect.signature(cls.__init__).parameters
        kwargs: Dict[str, Any] = {}
        if _accepts_kwargs(cls):
            kwargs['context'] = self.context
            if entry['remappings']:
                kwargs['cli_args'] = ['--ros-args'] + [
                    a for src, dst in entry['remappings'].items() for a in ('-r', f'{src}:={dst}')]
        if 'node_name' in params:
            kwargs['node_name'] = entry['name']
        elif entry['name'] != entry['node'].split(':')[-1].split('.')[-1]:
            raise BringupError(f'{cls.__name__} takes no node_name; it cannot be renamed')
        return kwargs

    def find(self, kind: type):
        """Return the first node that is a ``kind`` (a node class), else None."""
        for node in self.nodes:
            if isinstance(node, kind):
                return node
        return None

    def wait_for_peers(self, least: float = 2.0, most: float = 10.0,
                       settle: float = 0.5) -> float:
        """
        Before the first spin, let other processes' subscriptions match ours; return seconds.

        A recorder started first (``banditlearn_bag record``, ``ros2 bag record``) misses
        every event sent before discovery matched it (measured here: the first 2 gestures of
        a session; the recorder matched 0.7 s after the learner's start on a quiet machine,
        2.0 s on a loaded one).  Nothing is spun, so no node has sent anything: wait
        ``least`` seconds, then until the graph has not changed for ``settle`` seconds and
        every subscription it shows on our topics is matched, at most ``most`` seconds.
        """
        import time
        start = time.monotonic()
        last, changed = None, start
        while True:
            now = time.monotonic()
            graph = sorted(self.nodes[0].get_node_names_and_namespaces()) if self.nodes else []
            if graph != last:
                last, changed = graph, now
            if now - start >= most or now - start >= least and now - changed >= settle and all(
                    pub.get_subscription_count() >= node.count_subscribers(pub.topic_name)
                    for node in self.nodes for pub in node.publishers):
                return now - start
            time.sleep(0.05)

    def spin_once(self, timeout: float = 0.1) -> None:
        """Run one ready callback (or wait up to ``timeout``); a failing callback is skipped."""
        from rclpy.executors import ExternalShutdownException
        try:
            self.executor.spin_once(timeout_sec=timeout)
        except (KeyboardInterrupt, ExternalShutdownException):
            raise
        except Exception as exc:  # noqa: B902 - one node's callback never ends the others
            # The project's nodes catch their own (GuardedNode); this is for any other class.
            self.guard.record('executor', exc)

    def close(self) -> List[str]:
        """Let nodes save (``close``), destroy them, shut down; return who could not close."""
        import rclpy
        failed = []
        with signals_held():
            for node in reversed(self.nodes):
                close = getattr(node, 'close', None)
                if close is not None and close() is False:
                    failed.append(node.get_name())
            # Out of a shut-down executor before they are destroyed: a spin left between two
            # ready callbacks holds their handles, and destroy_node would wait for them.
            for node in reversed(self.nodes):
                self.executor.remove_node(node)
            self.executor.shutdown(timeout_sec=1.0)
            for node in reversed(self.nodes):
                node.destroy_node()
            self.nodes = []
            if self.context.ok():
                rclpy.shutdown(context=self.context)
        shutil.rmtree(self._tmp, ignore_errors=True)
        return failed


def _accepts_kwargs(cls) -> bool:
    return any(p.kind == inspect.Parameter.VAR_KEYWORD
               for p in inspect.signature(cls.__init__).parameters.values())


def check_settings(running: System, settings,
                   only_changes: bool = False) -> 'tuple[List[str], List[tuple]]':
    """
    Check ``--set`` values against the parameters the started nodes declared.

    Returns
    -------
    tuple
        ``(problems, coerced)``: one line per unknown name or wrong type, and the
        ``(node, key, value)`` accepted in another form (an int for a float, a number for a
        string), converted to the declared type; with ``only_changes`` only those the
        running node does not hold already.

    """
    from rclpy.exceptions import ParameterUninitializedException
    from rclpy.parameter import Parameter
    nodes = {node.get_name(): node for node in running.nodes}
    problems, coerced = [], []
    for item, name, key, value, text in settings:
        node = nodes.get(name)
        if node is None:
            continue
        if not node.has_parameter(key):
            known = [p for p in node.get_parameters_by_prefix('') if 'qos_overrides' not in p]
            near = difflib.get_close_matches(key, known, n=1)
            hint = f'; did you mean {near[0]!r}?' if near else ''
            problems.append(f'--set {item}: {name} has no parameter {key!r}{hint}')
            continue
        try:
            declared = node.get_parameter(key).type_
        except ParameterUninitializedException:  # declared by type only: [] by default
            declared = Parameter.Type(node.describe_parameter(key).type)
        try:
            given = Parameter.Type.from_parameter_value(value)
        except TypeError:
            given = None
        if given == declared:
            continue
        fixed = in_declared_type(value, text, int(declared))
        if fixed is None:
            problems.append(
                f'--set {item}: {key} takes {TYPE_NAMES.get(int(declared), declared.name)}, '
                f'not {text!r}')
        elif not only_changes or node.get_parameter(key).value != fixed:
            coerced.append((name, key, fixed))
    return problems, coerced


RCLPY_PARAMETERS = ('use_sim_time', 'start_type_description_service')
"""What rclpy declares on every node, beside a node's own table."""


def _table(cls) -> Dict[str, Any]:
    """Return ``{name: Spec}`` of the parameters a node class declares from a table."""
    from banditlearn_ros.learning.live import learner_parameters
    from banditlearn_ros.nodes.learner_node import LearnerNode
    if issubclass(cls, LearnerNode):
        return {spec.name: spec for spec in learner_parameters.all_specs()}
    return {}


def _spec_problem(item: str, spec, value: Any, text: str) -> 'tuple[str, Any]':
    """Return ``(problem, value in the declared type)`` of one ``--set`` against a Spec."""
    import math

    from rclpy.parameter import Parameter
    default = spec.default
    if isinstance(default, (list, tuple)) and not default:
        declared = DOUBLE_ARRAY if spec.empty_array == 'double' else STRING_ARRAY
    else:
        declared = int(Parameter.Type.from_parameter_value(
            list(default) if isinstance(default, tuple) else default))
    try:
        given = int(Parameter.Type.from_parameter_value(value))
    except TypeError:
        given = None
    fixed = value if given == declared else in_declared_type(value, text, declared)
    if fixed is None:
        return (f'--set {item}: {spec.name} takes {TYPE_NAMES.get(declared, declared)}, '
                f'not {text!r}'), None
    numbers = fixed if isinstance(fixed, list) else [fixed]
    if any(isinstance(v, float) and not math.isfinite(v) for v in numbers):
        return f'--set {item}: {spec.name} must be a finite number', None
    if isinstance(fixed, (int, float)) and not isinstance(fixed, bool) and (
            (spec.low is not None and fixed < spec.low)
            or (spec.high is not None and fixed > spec.high)):
        return f'--set {item}: {spec.name} out of range [{spec.low}, {spec.high}]', None
    return '', fixed


def precheck(system: Dict[str, Any]) -> 'tuple[List[str], List[tuple]]':
    """
    Check the ``--set`` values a node's parameter table knows, without starting anything.

    Returns
    -------
    tuple
        ``(problems, unchecked)``: one line per wrong type or value out of range, and the
        settings no table covers (a node declared inline, a name not in the table).  The
        values checked are put in the declared type in ``system`` (an int for a float).

    """
    by_name = {entry['name']: entry for entry in system['nodes']}
    problems, unchecked = [], []
    for setting in system.get('settings', []):
        item, name, key, value, text = setting
        table = _table(node_class(by_name[name]['node']))
        if key not in table and (not table or key in RCLPY_PARAMETERS
                                 or key.startswith('qos_overrides.')):
            unchecked.append(setting)  # the probe checks it
            continue
        if key not in table:
            near = difflib.get_close_matches(key, list(table), n=1)
            hint = f'; did you mean {near[0]!r}?' if near else ''
            problems.append(f'--set {item}: {name} has no parameter {key!r}{hint}')
            continue
        problem, fixed = _spec_problem(item, table[key], value, text)
        if problem:
            problems.append(problem)
        else:
            by_name[name]['parameters'][key] = fixed
    return problems, unchecked


def _harmless(system: Dict[str, Any]) -> Dict[str, Any]:
    """Return a copy of ``system`` whose learners read and write no model file."""
    from banditlearn_ros.nodes.learner_node import LearnerNode
    probe = copy.deepcopy(system)
    for entry in probe['nodes']:
        if issubclass(node_class(entry['node']), LearnerNode):
            entry['parameters'].update(model_path='', save_on_shutdown=False)
    return probe


def start(system: Dict[str, Any], log_level: str = 'warn') -> System:
    """
    Start a system once every ``--set`` is checked; a mistake ends it with one line each.

    Nothing starts before the check (BringupError): values a node's parameter table knows
    (``precheck``) are checked against it; the others against the parameters the nodes
    declare in a probe that loads no model file, saves none and activates nothing
    (``check_settings``).  rcl ignores an unknown name in a parameter file and drops (or
    refuses) a value of another type than the node declares; a value given in another form
    that loses nothing (an int for a float) is put in the declared type.  Where rcl refuses
    a value when the probe starts, the probe starts again without the ``--set`` values to
    list every mistake.
    """
    problems, unchecked = precheck(system)
    if problems:
        raise BringupError('\n'.join(problems))
    if unchecked:
        _probe_settings(system, unchecked, log_level)
    return System(system, log_level=log_level)


def _probe_settings(system: Dict[str, Any], settings, log_level: str) -> None:
    """Check ``settings`` in a harmless probe of ``system``; put coerced values in it."""
    from rclpy.exceptions import ParameterException
    probe = _harmless(system)
    try:
        running = System(probe, log_level=log_level, probe=True)
    except ParameterException as exc:
        refused = exc
        running = None
    if running is None:
        by_name = {entry['name']: entry for entry in probe['nodes']}
        for _, node, key, _, _ in settings:
            by_name[node]['parameters'].pop(key, None)
        try:
            running = System(probe, log_level=log_level, probe=True)
        except Exception:  # noqa: B902 - the node needs a --set value: report the first error
            raise BringupError(f'{type(refused).__name__}: {refused}') from None
    try:
        problems, coerced = check_settings(running, settings)
    finally:
        running.close()
    if problems:
        raise BringupError('\n'.join(problems))
    by_name = {entry['name']: entry for entry in system['nodes']}
    for node, key, value in coerced:
        by_name[node]['parameters'][key] = value
