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
The bring-up's command line: its options, and how they become the nodes' parameters.

``apply_options`` folds the options (``--noise``, ``--seed``, ``--set NODE.PARAM=VALUE``
...) into a system read by ``system_file``; ``in_declared_type`` is the rule by which a
``--set`` value of another form (an int for a float) is taken.  No ROS is needed for any of
it, so a mistake on the command line ends the command before a node starts.
"""

import argparse
import math
import os
from pathlib import Path
from typing import Any, Dict

from banditlearn_ros.support.command_line import OneLineParser
from banditlearn_ros.systems.system_file import BringupError, dataset_params_file, file_value
import yaml


def build_parser() -> argparse.ArgumentParser:
    """Return the command-line parser."""
    p = OneLineParser(prog='banditlearn_bringup', description=DESCRIPTION,
                      epilog=SESSION_COLUMNS, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--system', default=None,
                   help='system name (config/<name>.system.yaml) or path (default gestures; '
                   'camera with --camera, teach_sim with --dataset)')
    p.add_argument('--camera', metavar='SOURCE',
                   help='teach with a camera: a V4L2 device (/dev/video0) or a video file')
    p.add_argument('--labels', type=_label_list, metavar='A,B,C',
                   help='the gestures the learner knows (learner_node.labels)')
    p.add_argument('--never-taught', type=_nonnegative_int, default=0, metavar='N',
                   help='rendered gestures session: also show N gestures the learner is never '
                   'taught (the last N of its labels are left out) and let it reject them '
                   '(learner_node.unknown_rejection)')
    p.add_argument('--out', metavar='DIR',
                   help='folder for the session curve and summary (default '
                   '~/.ros/banditlearn_ros/sessions/<time>); with --dataset, for its '
                   'summary.json and model')
    p.add_argument('--list', action='store_true', help='list the shipped systems and exit')
    p.add_argument('--answers', choices=('teacher', 'head', 'page'), default=None,
                   help='who answers: the simulated person on a topic (teacher, the '
                   'default), a rendered face whose nods and shakes the feedback node '
                   'hears (head: system head_answers) or a person on the teaching page '
                   '(page: no simulated person; implies --page)')
    p.add_argument('--page', nargs='?', const=('127.0.0.1', None), type=page_address,
                   metavar='ADDRESS[:PORT]', help='serve the teaching page (page_node): '
                   'the question, yes/no, "that\'s ..." and the learning curve, for a phone; '
                   'on localhost unless an address is named (0.0.0.0 = every network: the '
                   'printed link carries a random token); PORT 0 = a free one')
    p.add_argument('--params', metavar='FILE',
                   help="parameter file replacing the system's first one (config/params.yaml)")
    p.add_argument('--dataset', help='data set for dataset_node: digits, iris, wine or a '
                   '.csv/.npz path (the learner gets its label names)')
    p.add_argument('--rounds', type=_positive_int, default=0,
                   help='stop after N rounds / interactions (default: one pass over the data '
                   'set; 200 in the gestures session; no end with --camera)')
    p.add_argument('--duration', type=_positive_float, default=0.0,
                   help='stop after this many seconds (default: no limit)')
    p.add_argument('--discovery-wait', type=_nonnegative_float, default=2.0, metavar='SECONDS',
                   help='before the first message, wait this long (and until the ROS graph is '
                   'still and every subscriber seen is matched) so a recorder started first '
                   'misses nothing; 0 = start at once (default: 2.0)')
    p.add_argument('--noise', type=_probability, help='teacher flip noise: sets rho0 and rho1')
    p.add_argument('--rho0', type=_probability, help='P(teacher says right | wrong)')
    p.add_argument('--rho1', type=_probability, help='P(teacher says wrong | right)')
    p.add_argument('--no-answer', type=_probability, help='P(teacher says nothing)')
    p.add_argument('--label-noise', type=_probability, help='P(teacher has a random label)')
    p.add_argument('--algorithm', help='learner algorithm (ucwl, confidit, banditron, ...)')
    p.add_argument('--seed', type=_nonnegative_int,
                   help='seed of the learner, the teacher and the data set order')
    p.add_argument('--every', type=_nonnegative_int,
                   help='print a line every N rounds or interactions, 0 = never (default: '
                   'the report.every of the system file: 20 for the rendered session, 10 '
                   'with a camera, 100 for teach_sim and for files that set none)')
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
  done      interactions finished (presented gestures the robot asked about) / target
  right50   first guesses right over the last 50 interactions (against the shown gesture
            when a simulation knows it, else the person's first answer)
  right     the same since the start
  q/int     questions asked per interaction (above 1 when the robot asks again)
  updates   model updates so far
  last      the last finished interaction: shown gesture -> each question? and its answer
on a terminal a bar under the lines shows the interaction under way and its open question.
plain systems (teach_sim, full) print: round, true mistake rate (all / window), mistakes
as the teacher said them, exploration rate, updates."""


def _label_list(text: str) -> list:
    from banditlearn_ros.learning.protocol.labels import check_labels
    labels = [t.strip() for t in text.split(',') if t.strip()]
    if not labels:
        raise argparse.ArgumentTypeError(f'{text!r} names no label')
    try:
        check_labels(labels)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return labels


def _positive_int(text: str) -> int:
    value = _nonnegative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f'{text!r} is not a positive whole number')
    return value


def _nonnegative_int(text: str) -> int:
    value = _parsed(text, int, 'a whole number')
    if value < 0:
        raise argparse.ArgumentTypeError(f'{text!r} is negative')
    return value


def _positive_float(text: str) -> float:
    value = _parsed(text, float, 'a number')
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f'{text!r} is not a positive number')
    return value


def _nonnegative_float(text: str) -> float:
    value = _parsed(text, float, 'a number')
    if not value >= 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f'{text!r} is not 0 or a positive number')
    return value


def _probability(text: str) -> float:
    value = _parsed(text, float, 'a number')
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f'{text!r} is not a probability in [0, 1)')
    return value


def _parsed(text: str, kind, words: str):
    """Return ``kind(text)``; argparse's one-line error if it is not one."""
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'{text!r} is not {words}') from None


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
        put('dataset_node', 'dataset', path, required=True)  # labels: see match_dataset
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
    if options.labels:
        put('learner_node', 'labels', options.labels, required=True)
    if options.seed is not None:
        for node in ('learner_node', 'teacher_node', 'dataset_node', 'gesture_show_node'):
            put(node, 'seed', options.seed)
    # The page node first: ``--set page_node.PARAM=VALUE`` sets it like any other node.
    add_page(system, getattr(options, 'page', None), getattr(options, 'answers', None))
    by_name = {entry['name']: entry for entry in system['nodes']}
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
        value = _one_kind(value, text)
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
    match_dataset(system)


def page_address(text: str) -> tuple:
    """Return ``(host, port or None)`` of ``--page ADDRESS[:PORT]`` (``[v6]:PORT`` too)."""
    host, port = text.strip(), None
    if host.startswith('['):
        host, _, rest = host[1:].partition(']')
        port = rest[1:] if rest.startswith(':') else None
    elif host.count(':') == 1:
        host, port = host.split(':')
    host = '127.0.0.1' if host in ('', 'localhost') else host
    if port is not None:
        port = _parsed(port, int, 'a port number')
        if not 0 <= port <= 65535:
            raise argparse.ArgumentTypeError(f'port {port} is not in 0-65535')
    return host, port


def add_page(system: Dict[str, Any], page, answers) -> None:
    """Add the teaching page (``--page``); ``--answers page`` also drops the simulated person."""
    if page is None and answers != 'page':
        return
    host, port = page if page is not None else ('127.0.0.1', None)
    if answers == 'page':
        system['nodes'] = [e for e in system['nodes'] if e['name'] != 'teacher_node']
    entry = next((e for e in system['nodes'] if e['name'] == 'page_node'), None)
    if entry is None:
        entry = {'node': 'page_node', 'name': 'page_node', 'parameters': {}, 'remappings': {}}
        system['nodes'].append(entry)
    entry['parameters']['host'] = host
    if port is not None:
        entry['parameters']['port'] = port


def _one_kind(value: Any, text: str) -> Any:
    """
    Return a list as rcl takes it, of one kind: numbers as floats, else all as strings.

    Strings are as typed (``[fist, no]`` is two names, not a name and false): a list of
    mixed kinds is read again with every item a string.
    """
    if not isinstance(value, list) or len({type(v) for v in value}) < 2:
        return value
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return [float(v) for v in value]
    typed = as_typed(text)
    return typed if isinstance(typed, list) else value


def as_typed(text: str) -> Any:
    """Return the YAML reading of ``text`` with every scalar a string as typed, or None."""
    try:
        return yaml.load(text, Loader=yaml.BaseLoader)
    except yaml.YAMLError:
        return None


def match_dataset(system: Dict[str, Any]) -> None:
    """
    Fit the learner and the teacher to the data set dataset_node plays.

    Both get its label names: the labels in the parameter files are replaced (the demo's
    files name the digits); labels set explicitly for the run (``--set
    learner_node.labels=...``) that differ from the data set's are refused: a learner saying
    other names than the stream never learns.  For a built-in data set and the default
    algorithm, the settings tuned for it (``dataset_params_file``) are loaded after the
    parameter files (``--params`` too), under what ``--set`` gives, as teach_sim.launch.py
    loads them.
    """
    by_name = {entry['name']: entry for entry in system['nodes']}
    if 'dataset_node' not in by_name or 'learner_node' not in by_name:
        return
    from banditlearn_ros.learning.live.learner_parameters import DEFAULT_ALGORITHM
    from banditlearn_ros.learning.offline.datasets import DatasetError, load_dataset
    files = system['params_files']
    dataset = str(by_name['dataset_node']['parameters'].get('dataset') or file_value(
        files, 'dataset_node', 'dataset', 'digits'))
    try:
        _, _, names = load_dataset(dataset)
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
    algorithm = by_name['learner_node']['parameters'].get('algorithm') or file_value(
        files, 'learner_node', 'algorithm', DEFAULT_ALGORITHM)
    tuned = dataset_params_file(dataset)
    if algorithm == DEFAULT_ALGORITHM and tuned is not None:
        files.append(tuned)


# rcl_interfaces/msg/ParameterType, the values of rclpy's Parameter.Type.
DOUBLE, STRING, DOUBLE_ARRAY, STRING_ARRAY = 3, 4, 8, 9
TYPE_NAMES = {1: 'a bool', 2: 'a whole number', 3: 'a number', 4: 'a string',
              5: 'a list of bytes', 6: 'a list of bools', 7: 'a list of whole numbers',
              8: 'a list of numbers', 9: 'a list of strings'}


def in_declared_type(value: Any, text: str, declared: int) -> Any:
    """
    Return a ``--set`` value in the declared type where that loses nothing, else None.

    ``value`` is the YAML reading of ``text``; ``declared`` a ParameterType value. An int
    becomes a float, numbers a list of floats, anything but a list or a map a string (as
    typed), scalars a list of strings.
    """
    number = (int, float)
    if declared == DOUBLE and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if declared == DOUBLE_ARRAY and isinstance(value, list) and value and all(
            isinstance(v, number) and not isinstance(v, bool) for v in value):
        return [float(v) for v in value]
    if declared == STRING and not isinstance(value, (list, dict)):
        return text
    if declared == STRING_ARRAY and isinstance(value, list) \
            and all(not isinstance(v, (list, dict)) for v in value):
        typed = as_typed(text)  # as typed: [yes, no] is two names, not two bools
        return typed if isinstance(typed, list) else [str(v) for v in value]
    return None
