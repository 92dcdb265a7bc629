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
banditlearn_bringup: start a system of nodes in one process, without ``ros2 launch``.

A system is a YAML file (``config/<name>.system.yaml``) naming the nodes, the parameter
files (the same ``config/params.yaml`` the launch files read) and per-node overrides.  All
nodes run on one executor; the command prints the online mistake rate as the learner learns
and ends cleanly when the data set is played (or after ``--rounds`` / ``--duration``).
"""

import argparse
import copy
import importlib
import inspect
import math
import os
from pathlib import Path
import shutil
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional

from banditlearn_ros.shutdown import (
    exit_status, signals_held, sigterm_as_interrupt, Terminated)
import yaml

DEFAULT_SYSTEM = 'gestures'
CAMERA_SYSTEM = 'camera'
SYSTEM_SUFFIX = '.system.yaml'
_ENTRY_KEYS = {'node', 'name', 'parameters', 'remappings'}
_SYSTEM_KEYS = {'description', 'params_files', 'nodes', 'report'}


class BringupError(Exception):
    """A problem the user can fix; printed as one line."""


def config_dirs() -> List[Path]:
    """Return where system and parameter files are looked for: source tree, then share."""
    dirs = []
    source = Path(__file__).resolve().parents[2] / 'config'
    if source.is_dir():
        dirs.append(source)
    try:
        from ament_index_python.packages import get_package_share_directory
        share = Path(get_package_share_directory('banditlearn_ros')) / 'config'
        if share.is_dir() and share not in dirs:
            dirs.append(share)
    except (ImportError, LookupError, ValueError, OSError):
        pass
    return dirs


def find_system(name_or_path: str) -> Path:
    """Return the system file for a name (``teach_sim``) or a path."""
    path = Path(name_or_path).expanduser()
    if path.suffix in ('.yaml', '.yml') or os.sep in name_or_path:
        if not path.is_file():
            raise BringupError(f'system file {path} does not exist')
        return path
    for folder in config_dirs():
        candidate = folder / (name_or_path + SYSTEM_SUFFIX)
        if candidate.is_file():
            return candidate
    raise BringupError(f'no system {name_or_path!r}; known: {", ".join(list_systems()) or "none"}')


def list_systems() -> List[str]:
    """Return the names of the systems shipped in the config folders."""
    names = set()
    for folder in config_dirs():
        names.update(p.name[:-len(SYSTEM_SUFFIX)] for p in folder.glob('*' + SYSTEM_SUFFIX))
    return sorted(names)


def _read_yaml(path: Path) -> Any:
    try:
        with open(path, encoding='utf-8') as handle:
            return yaml.safe_load(handle)
    except OSError as exc:
        raise BringupError(f'{path}: cannot read ({exc.strerror})') from None
    except yaml.YAMLError as exc:
        raise BringupError(f'{path}: not valid YAML ({str(exc).splitlines()[0]})') from None


def load_system(path: Path) -> Dict[str, Any]:
    """Read and check a system file; paths in it become absolute."""
    system = _read_yaml(path)
    if not isinstance(system, dict) or not isinstance(system.get('nodes'), list) \
            or not system['nodes']:
        raise BringupError(f'{path}: a system needs a non-empty list under "nodes"')
    unknown = set(system) - _SYSTEM_KEYS
    if unknown:
        raise BringupError(
            f'{path}: unknown keys {sorted(unknown)}; allowed {sorted(_SYSTEM_KEYS)}')
    entries, names = [], set()
    for raw in system['nodes']:
        if isinstance(raw, str):
            raw = {'node': raw}
        if not isinstance(raw, dict) or not isinstance(raw.get('node'), str):
            raise BringupError(f'{path}: each node entry needs "node: <name>", got {raw!r}')
        bad = set(raw) - _ENTRY_KEYS
        if bad:
            raise BringupError(f'{path}: node {raw["node"]}: unknown keys {sorted(bad)}')
        entry = {'node': raw['node'],
                 'name': raw.get('name') or raw['node'].split(':')[-1].split('.')[-1],
                 'parameters': dict(raw.get('parameters') or {}),
                 'remappings': dict(raw.get('remappings') or {})}
        if entry['name'] in names:
            raise BringupError(f'{path}: two nodes are named {entry["name"]!r}')
        names.add(entry['name'])
        entries.append(entry)
    files = system.get('params_files') or []
    if isinstance(files, str):
        files = [files]
    params_files = [(path.parent / Path(f).expanduser()).resolve() for f in files]
    report = system.get('report') or {}
    return {'path': path, 'description': system.get('description', ''),
            'params_files': params_files, 'nodes': entries,
            'every': int(report.get('every', 100))}


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


def section_node(key: str) -> str:
    """
    Return the node name a parameter-file section is for; ``'*'`` for every node.

    ``learner_node``, ``/learner_node``, ``/robot1/learner_node`` and ``/**/learner_node``
    all name learner_node (rcl matches the namespace; the bring-up runs one node per name);
    ``/**`` and ``/*`` apply to every node.
    """
    last = str(key).strip('/').split('/')[-1]
    return '*' if last in ('**', '*', '') else last


def _base_values(params_files: List[Path]) -> Dict[str, Dict[str, Any]]:
    """Return ``{node name or '*': {parameter: value}}`` from the files, later ones winning."""
    values: Dict[str, Dict[str, Any]] = {}
    for path in params_files:
        data = _read_yaml(path) or {}
        if not isinstance(data, dict):
            raise BringupError(f'{path}: a parameter file maps node names to sections')
        for node, section in data.items():
            params = (section or {}).get('ros__parameters', {}) if isinstance(section, dict) \
                else {}
            values.setdefault(section_node(node), {}).update(params or {})
    return values


def file_value(params_files: List[Path], node: str, key: str, default: Any = None) -> Any:
    """Return what the parameter files give ``node``'s ``key`` (a node section beats ``/**``)."""
    base = _base_values(params_files)
    for section in (node, '*'):
        if key in base.get(section, {}):
            return base[section][key]
    return default


def _coerce(value: Any, like: Any) -> Any:
    """Keep a parameter's type: an int given where the files hold a float becomes a float."""
    if isinstance(like, float) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


class System:
    """The nodes of a system on one executor, with the files they were started from."""

    def __init__(self, system: Dict[str, Any], log_level: str = 'warn'):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        self.system = system
        for path in system['params_files']:
            if not path.is_file():
                raise BringupError(f'parameter file {path} does not exist')
        base = _base_values(system['params_files'])
        overrides = {}
        for entry in system['nodes']:
            known = {**base.get('*', {}), **base.get(entry['name'], {})}
            params = {k: _coerce(v, known.get(k)) for k, v in entry['parameters'].items()}
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
        classes = [(entry, node_class(entry['node'])) for entry in system['nodes']]
        for entry, cls in classes:
            if not _accepts_kwargs(cls):
                args += [a for src, dst in entry['remappings'].items()
                         for a in ('-r', f'{entry["name"]}:{src}:={dst}')]
        self.context = rclpy.context.Context()
        rclpy.init(args=['banditlearn_bringup'] + args, context=self.context)
        self.nodes = []
        self.executor = SingleThreadedExecutor(context=self.context)
        from banditlearn_ros.nodes.common import CallbackGuard
        self.guard = CallbackGuard(rclpy.logging.get_logger('banditlearn_bringup'))
        try:
            for entry, cls in classes:
                node = cls(**self._node_kwargs(entry, cls))
                self.nodes.append(node)
                self.executor.add_node(node)
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

    def find(self, class_name: str):
        """Return the first node whose class has this name, else None."""
        for node in self.nodes:
            if type(node).__name__ == class_name:
                return node
        return None

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
            for node in reversed(self.nodes):
                self.executor.remove_node(node)
                node.destroy_node()
            self.nodes = []
            self.executor.shutdown(timeout_sec=1.0)
            if self.context.ok():
                rclpy.shutdown(context=self.context)
        shutil.rmtree(self._tmp, ignore_errors=True)
        return failed


def _accepts_kwargs(cls) -> bool:
    return any(p.kind == inspect.Parameter.VAR_KEYWORD
               for p in inspect.signature(cls.__init__).parameters.values())


class Reporter:
    """Progress lines: rounds, true and reported mistake rates, exploration, updates."""

    def __init__(self, system: System, every: int, out=sys.stdout):
        self.learner = system.find('LearnerNode')
        self.teacher = system.find('TeacherNode')
        self.every = every
        self.out = out
        self._next = every if every > 0 else math.inf
        self.lines = 0
        self.start = time.monotonic()

    def rounds(self) -> int:
        """Return the rounds played: predictions answered (or not) by the teacher."""
        if self.teacher is not None:
            return int(self.teacher.teacher.stats()['rounds'])
        if self.learner is not None:
            return int(self.learner.interaction.stats()['predictions'])
        return 0

    def header(self) -> None:
        """Print the column names."""
        print(f'{"round":>7} {"mistakes":>9} {"window":>7} {"said-wrong":>11} '
              f'{"explored":>9} {"updates":>8}', file=self.out, flush=True)

    def poll(self) -> None:
        """Print a line for every multiple of ``every`` passed since the last call."""
        if self.rounds() >= self._next:
            self.line(self.rounds())
            while self._next <= self.rounds():
                self._next += self.every

    def line(self, rounds: int) -> None:
        """Print one progress line."""
        true_all = true_win = math.nan
        if self.teacher is not None:
            t = self.teacher.teacher.stats()
            true_all, true_win = t['true_mistake_rate'], t['true_mistake_rate_window']
        said = explored = math.nan
        updates = 0
        if self.learner is not None:
            s = self.learner.interaction.stats()
            said, explored, updates = (s['mistake_rate_window'], s['exploration_rate_window'],
                                       s['updates'])
            if self.teacher is None:
                true_all, true_win = s['mistake_rate'], s['mistake_rate_window']
        print(f'{rounds:>7} {_pct(true_all):>9} {_pct(true_win):>7} {_pct(said):>11} '
              f'{_pct(explored):>9} {updates:>8}', file=self.out, flush=True)
        self.lines += 1


def _pct(value: float) -> str:
    return '-' if value != value else f'{100 * value:.1f}%'


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f'{self.prog}: error: {message} (see --help)\n')


def build_parser() -> argparse.ArgumentParser:
    """Return the command-line parser."""
    p = _Parser(prog='banditlearn_bringup', description=DESCRIPTION, epilog=SESSION_COLUMNS,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--system', default=None,
                   help='system name (config/<name>.system.yaml) or path (default gestures; '
                   'camera with --camera, teach_sim with --dataset)')
    p.add_argument('--camera', metavar='SOURCE',
                   help='teach with a camera: a V4L2 device (/dev/video0) or a video file')
    p.add_argument('--labels', type=_label_list, metavar='A,B,C',
                   help='the gestures the learner knows (learner_node.labels)')
    p.add_argument('--out', metavar='DIR',
                   help='folder for the session curve and summary (default '
                   '~/.ros/banditlearn_ros/sessions/<time>)')
    p.add_argument('--list', action='store_true', help='list the shipped systems and exit')
    p.add_argument('--params', metavar='FILE',
                   help="parameter file replacing the system's first one (config/params.yaml)")
    p.add_argument('--dataset', help='data set for dataset_node: digits, iris, wine or a '
                   '.csv/.npz path (the learner gets its label names)')
    p.add_argument('--rounds', type=_positive_int, default=0,
                   help='stop after N rounds / interactions (default: one pass over the data '
                   'set; 200 in the gestures session; no end with --camera)')
    p.add_argument('--duration', type=_positive_float, default=0.0,
                   help='stop after this many seconds (default: no limit)')
    p.add_argument('--noise', type=_probability, help='teacher flip noise: sets rho0 and rho1')
    p.add_argument('--rho0', type=_probability, help='P(teacher says right | wrong)')
    p.add_argument('--rho1', type=_probability, help='P(teacher says wrong | right)')
    p.add_argument('--no-answer', type=_probability, help='P(teacher says nothing)')
    p.add_argument('--label-noise', type=_probability, help='P(teacher has a random label)')
    p.add_argument('--algorithm', help='learner algorithm (ucwl, confidit, banditron, ...)')
    p.add_argument('--seed', type=_nonnegative_int,
                   help='seed of the learner, the teacher and the data set order')
    p.add_argument('--every', type=_nonnegative_int,
                   help='print a line every N rounds (default from the system, 100)')
    p.add_argument('--set', action='append', default=[], metavar='NODE.PARAM=VALUE',
                   help='override any parameter, e.g. --set learner_node.k=1.5 (repeatable)')
    p.add_argument('--namespace', metavar='NS',
                   help='run every node in this namespace (like __ns:=/NS or a launch '
                   "file's PushROSNamespace)")
    p.add_argument('--remap', action='append', default=[], metavar='FROM:=TO',
                   help='remap a topic for every node, e.g. --remap gesture_feedback:=yes_no '
                   '(repeatable)')
    p.add_argument('--log-level', default='warn',
                   choices=('debug', 'info', 'warn', 'error', 'fatal'),
                   help='ROS log level of the nodes (default warn)')
    return p


DESCRIPTION = (
    'Start a banditlearn_ros system (nodes + parameter files described in YAML) in one '
    'process.\nWith no arguments: a teaching session on rendered hand gestures '
    '(gesture_show_node -> camera_node ->\nlearner_node <- teacher_node, 10 % wrong '
    'answers), ending with a learning-curve PNG, the model\nfile and a one-line JSON '
    'summary (the last line). With --camera: the same session with a real\ncamera and '
    'person (y/n keys, nod/shake, +name adds a gesture).')
SESSION_COLUMNS = """session columns (gestures and camera systems):
  done      interactions so far (presented gestures the robot asked about) / target
  right50   first guesses right over the last 50 interactions (against the shown gesture
            when a simulation knows it, else the person's first answer)
  right     the same since the start
  q/int     questions asked per interaction (above 1 when the robot asks again)
  updates   model updates so far
  last      the last interaction: shown gesture -> each question? and its answer
plain systems (teach_sim, full) print: round, true mistake rate (all / window), mistakes
as the teacher said them, exploration rate, updates."""


def _label_list(text: str) -> list:
    labels = [t.strip() for t in text.split(',') if t.strip()]
    if not labels:
        raise argparse.ArgumentTypeError(f'{text!r} names no label')
    return labels


def _positive_int(text: str) -> int:
    value = _nonnegative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f'{text!r} is not a positive whole number')
    return value


def _nonnegative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'{text!r} is not a whole number') from None
    if value < 0:
        raise argparse.ArgumentTypeError(f'{text!r} is negative')
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'{text!r} is not a number') from None
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f'{text!r} is not a positive number')
    return value


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'{text!r} is not a number') from None
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f'{text!r} is not a probability in [0, 1)')
    return value


def apply_options(system: Dict[str, Any], options: argparse.Namespace) -> None:
    """Fold the command-line options into the system's per-node parameters."""
    by_name = {entry['name']: entry for entry in system['nodes']}

    def put(node: str, key: str, value: Any, required: bool = False) -> None:
        if node in by_name:
            by_name[node]['parameters'][key] = value
        elif required:
            raise BringupError(f'the system {system["path"].name} has no {node}')

    if options.params:
        path = Path(options.params).expanduser().resolve()
        if not path.is_file():
            raise BringupError(f'parameter file {path} does not exist')
        system['params_files'][:1] = [path]
    if options.dataset:
        path = options.dataset
        if os.path.exists(path):
            path = os.path.abspath(path)
        put('dataset_node', 'dataset', path, required=True)  # labels: see match_labels
    if options.rounds:
        put('dataset_node', 'max_examples', options.rounds)
    for key in ('rho0', 'rho1'):
        value = getattr(options, key)
        value = options.noise if value is None else value
        if value is not None:
            put('teacher_node', key, value, required=True)
    if options.no_answer is not None:
        put('teacher_node', 'no_answer', options.no_answer, required=True)
    if options.label_noise is not None:
        put('teacher_node', 'label_noise', options.label_noise, required=True)
    if options.algorithm:
        from banditlearn_ros.learning import BANDIT_ALGORITHMS
        if options.algorithm not in BANDIT_ALGORITHMS:
            raise BringupError(f'algorithm {options.algorithm!r} is not one of '
                               f'{sorted(BANDIT_ALGORITHMS)}')
        put('learner_node', 'algorithm', options.algorithm, required=True)
    if options.seed is not None:
        for node in ('learner_node', 'teacher_node', 'dataset_node', 'gesture_show_node'):
            put(node, 'seed', options.seed)
    for item in options.set:
        target, sep, text = item.partition('=')
        node, dot, key = target.partition('.')
        if not sep or not dot or not key:
            raise BringupError(f'--set {item!r}: write NODE.PARAM=VALUE')
        if node not in by_name:
            raise BringupError(f'--set {item!r}: no node {node!r} in the system')
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            value = text
        value = _one_kind(value)
        put(node, key, value)
        system.setdefault('settings', []).append((item, node, key, value, text))
    if options.every is not None:
        system['every'] = options.every
    ros_args = []
    if options.namespace:
        ros_args += ['-r', '__ns:=/' + options.namespace.strip('/')]
    for rule in options.remap:
        source, sep, target = rule.partition(':=')
        if not sep or not source or not target:
            raise BringupError(f'--remap {rule!r}: write FROM:=TO')
        ros_args += ['-r', rule]
    system['ros_args'] = ros_args
    match_labels(system)


def _one_kind(value: Any) -> Any:
    """Return a list as rcl takes it, of one kind: numbers as floats, else all as strings."""
    if not isinstance(value, list) or len({type(v) for v in value}) < 2:
        return value
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return [float(v) for v in value]
    return [v if isinstance(v, str) else yaml.safe_dump(v).strip().removesuffix('...').strip()
            for v in value]


def match_labels(system: Dict[str, Any]) -> None:
    """
    Give the learner and the teacher the label names of the data set dataset_node plays.

    The labels in the parameter files are replaced (the demo's files name the digits);
    labels set explicitly for the run (``--set learner_node.labels=...``) that differ from
    the data set's are refused: a learner saying other names than the stream never learns.
    """
    by_name = {entry['name']: entry for entry in system['nodes']}
    if 'dataset_node' not in by_name or 'learner_node' not in by_name:
        return
    from banditlearn_ros.learning.datasets import DatasetError, load_dataset
    dataset = by_name['dataset_node']['parameters'].get('dataset') or file_value(
        system['params_files'], 'dataset_node', 'dataset', 'digits')
    try:
        _, _, names = load_dataset(str(dataset))
    except DatasetError as exc:
        raise BringupError(str(exc)) from None
    names = [str(n) for n in names]
    for node in ('learner_node', 'teacher_node'):
        if node not in by_name:
            continue
        given = by_name[node]['parameters'].get('labels')
        if given is not None and [str(v) for v in given] != names:
            raise BringupError(f'{node}.labels {list(given)} do not match the labels of the '
                               f'data set {dataset} {names}')
        by_name[node]['parameters']['labels'] = list(names)  # no YAML aliases for rcl


def run(options: argparse.Namespace, out=sys.stdout) -> int:
    """Run a system until its stream ends, ``--rounds``/``--duration`` or Ctrl-C."""
    from rclpy.executors import ExternalShutdownException
    from banditlearn_ros.nodes import session_bringup
    default = CAMERA_SYSTEM if getattr(options, 'camera', None) else \
        'teach_sim' if options.dataset else DEFAULT_SYSTEM
    system = load_system(find_system(options.system or default))
    session = session_bringup.is_session(system)
    apply_options(system, options)
    if session:
        out_dir = session_bringup.prepare(system, options)
    names = ', '.join(e['name'] for e in system['nodes'])
    print(f'banditlearn_bringup: system {system["path"].stem.replace(".system", "")} '
          f'({names})', file=out, flush=True)
    print(f'  parameters: {", ".join(str(p) for p in system["params_files"])}', file=out,
          flush=True)
    if system.get('ros_args'):
        print(f'  ros arguments: {" ".join(system["ros_args"])}', file=out, flush=True)
    running = start(system, log_level=options.log_level)
    if session:
        return session_bringup.run_session(running, options, out_dir, out)
    reporter = Reporter(running, system['every'], out=out)
    # A stream that ends: a data set played, or a recorded session (tools/bag_player.py).
    dataset = running.find('DatasetNode') or running.find('BagPlayerNode')
    limit = options.rounds if dataset is None else 0
    deadline = time.monotonic() + options.duration if options.duration else math.inf
    interrupted = ''
    try:
        reporter.header()
        while True:
            running.spin_once(0.1)
            reporter.poll()
            if dataset is not None and dataset.finished:
                break
            if limit and reporter.rounds() >= limit:
                break
            if time.monotonic() >= deadline:
                break
        # Let the last answers reach the learner before the summary.
        for _ in range(10):
            running.spin_once(0.02)
    except (KeyboardInterrupt, ExternalShutdownException) as exc:
        interrupted = 'SIGTERM' if isinstance(exc, Terminated) else 'Ctrl-C'
    finally:
        summary = _summary(reporter)
        failed = running.close()
    print((f'interrupted ({interrupted}): ' if interrupted else 'finished: ') + summary,
          file=out, flush=True)
    if failed:
        print(f'banditlearn_bringup: error: {", ".join(failed)} could not save on shutdown '
              '(see the log above)', file=sys.stderr)
        return 1
    return 0


_TYPE_NAMES = {1: 'a bool', 2: 'a whole number', 3: 'a number', 4: 'a string',
               5: 'a list of bytes', 6: 'a list of bools', 7: 'a list of whole numbers',
               8: 'a list of numbers', 9: 'a list of strings'}


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
    import difflib

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
        fixed = _in_declared_type(value, text, declared)
        if fixed is None:
            problems.append(
                f'--set {item}: {key} takes {_TYPE_NAMES.get(int(declared), declared.name)}, '
                f'not {text!r}')
        elif not only_changes or node.get_parameter(key).value != fixed:
            coerced.append((name, key, fixed))
    return problems, coerced


def _in_declared_type(value: Any, text: str, declared) -> Any:
    """Return ``value`` in the declared type where that loses nothing, else None."""
    from rclpy.parameter import Parameter
    number = (int, float)
    if declared == Parameter.Type.DOUBLE and isinstance(value, int) \
            and not isinstance(value, bool):
        return float(value)
    if declared == Parameter.Type.DOUBLE_ARRAY and isinstance(value, list) and value and all(
            isinstance(v, number) and not isinstance(v, bool) for v in value):
        return [float(v) for v in value]
    if declared == Parameter.Type.STRING and not isinstance(value, (list, dict)):
        return text
    if declared == Parameter.Type.STRING_ARRAY and isinstance(value, list) \
            and all(not isinstance(v, (list, dict)) for v in value):
        return [str(v) for v in value]
    return None


def start(system: Dict[str, Any], log_level: str = 'warn') -> System:
    """
    Start a system; ``--set`` mistakes end it with one line each (BringupError).

    rcl ignores an unknown name in a parameter file and drops (or refuses) a value of another
    type than the node declares, so after the start every ``--set`` value is checked against
    the parameters the nodes declared. A value given in another form that loses nothing (an
    int for a float) is put in the declared type and the system started again. Where a value
    is refused at the start, the nodes are started once without the ``--set`` values to list
    every mistake.
    """
    from rclpy.exceptions import ParameterException
    settings = system.get('settings', [])
    try:
        running = System(system, log_level=log_level)
    except ParameterException as exc:
        if not settings:
            raise
        refused = exc
        running = None
    if running is not None:
        try:
            problems, coerced = check_settings(running, settings, only_changes=True)
        except BaseException:
            running.close()
            raise
        if not problems and not coerced:
            return running
        running.close()
    else:
        probe = copy.deepcopy(system)
        by_name = {entry['name']: entry for entry in probe['nodes']}
        for _, node, key, _, _ in settings:
            by_name[node]['parameters'].pop(key, None)
        try:
            running = System(probe, log_level=log_level)
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
    return System(system, log_level=log_level)


def _summary(reporter: Reporter) -> str:
    rounds = reporter.rounds()
    text = f'{rounds} rounds in {time.monotonic() - reporter.start:.1f} s'
    if reporter.teacher is not None:
        t = reporter.teacher.teacher.stats()
        text += (f', online mistake rate {_pct(t["true_mistake_rate"])} '
                 f'(last {len(reporter.teacher.teacher._mistakes.values)}: '
                 f'{_pct(t["true_mistake_rate_window"])})')
    if reporter.learner is not None:
        s = reporter.learner.interaction.stats()
        text += (f', {s["updates"]} updates, feedback matched {s["feedback_matched"]}'
                 f' / dropped {s["feedback_dropped"]}')
    return text


def main(argv: Optional[List[str]] = None) -> None:
    """Console entry point ``banditlearn_bringup``."""
    sigterm_as_interrupt()
    options = build_parser().parse_args(argv)
    if options.list:
        for name in list_systems():
            try:
                description = load_system(find_system(name))['description']
            except BringupError as exc:
                description = f'(unreadable: {exc})'
            print(f'{name}: {description}')
        sys.exit(0)
    try:
        code = run(options)
    except KeyboardInterrupt as exc:  # a signal while the nodes start
        sys.exit(exit_status(exc))
    except BringupError as exc:
        for line in str(exc).splitlines():
            print(f'banditlearn_bringup: error: {line}', file=sys.stderr)
        sys.exit(1)
    except Exception as exc:  # noqa: B902 - a CLI ends with one readable line
        print(f'banditlearn_bringup: error: {type(exc).__name__}: {exc}', file=sys.stderr)
        sys.exit(1)
    sys.exit(code)


if __name__ == '__main__':
    main()
