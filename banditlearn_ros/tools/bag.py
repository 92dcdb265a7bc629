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
The ``banditlearn_bag`` command: inspect, export, write and play rosbag2 recordings.

``info``, ``export`` and ``write`` need only ``rosbags``; ``play`` publishes with rclpy
(``bag_play``, the stand-in for ``ros2 bag play`` where rosbag2 is not installed) and
imports it only when called.  Bad input ends with one line on stderr and a non-zero exit status.
"""

import argparse
import datetime
import json
import math
import os
import sys
import time
from typing import Dict, List, Optional, Sequence

from banditlearn_ros.shutdown import exit_status, sigterm_as_interrupt
from banditlearn_ros.tools import bagio

PROG = 'banditlearn_bag'


class UsageError(Exception):
    """A command-line value that cannot be used; the message says which and why."""


# ---------------------------------------------------------------------- info
def _when(ns: int) -> str:
    stamp = datetime.datetime.fromtimestamp(ns / 1e9, tz=datetime.timezone.utc)
    return stamp.strftime('%Y-%m-%d %H:%M:%S.%f')[:-3] + ' UTC'


def _duration(seconds: float) -> str:
    if seconds and seconds < 1e-3:
        return f'{seconds * 1e9:.0f} ns'
    return f'{seconds:.3f} s'


def format_info(bag: bagio.Bag, quick: bool = False) -> str:
    """Return the human-readable ``info`` report of a checked bag (``quick``: not decoded)."""
    files = ', '.join(p.name for p in bag.files)
    lines = [f'path:      {bag.path}',
             f'storage:   {bag.storage} ({len(bag.files)} file{"s" * (len(bag.files) != 1)}:'
             f' {files})']
    if bag.message_count:
        lines.append(f'duration:  {_duration(bag.duration_s)} (from {_when(bag.start_ns)} '
                     f'to {_when(bag.end_ns)})')
    decoded = sum(t.decoded for t in bag.topics.values())
    read = sum(t.read for t in bag.topics.values())
    if quick:
        lines.append(f'messages:  {bag.message_count} ({read} read; not decoded: --quick '
                     'counts them without checking that they decode)')
    else:
        lines.append(f'messages:  {bag.message_count} ({decoded} decoded)')
    lines.extend(f'note:      {n}' for n in bag.notes)
    lines.append(f'topics:    {len(bag.topics)}')
    width = max([len(t) for t in bag.topics] + [5])
    type_width = max([len(t.msgtype) for t in bag.topics.values()] + [4])
    for topic in bag.topics.values():
        done = f'{topic.read:>6} read' if quick else f'{topic.decoded:>6} decoded'
        lines.append(f'  {topic.name:<{width}}  {topic.msgtype:<{type_width}}  '
                     f'{topic.count:>6} msgs  {done}')
        lines.extend(f'      problem: {p}' for p in topic.problems)
        lines.extend(f'      note: {n}' for n in topic.notes)
    return '\n'.join(lines)


def cmd_info(args) -> int:
    """Print topics, types, counts, storage, duration and per-topic problems."""
    with bagio.open_bag(args.path) as bag:
        bag.check(decode=not args.quick)
        if args.json:
            summary = bag.summary()
            summary['decoded'] = not args.quick
            if args.quick:
                for topic in summary['topics']:
                    topic['decoded'] = topic['failed'] = None
            print(json.dumps(summary, indent=2))
        else:
            print(format_info(bag, quick=args.quick))
    return 0


# ---------------------------------------------------------------------- export
def cmd_export(args) -> int:
    """Pair features with the latest label before them and save an NPZ data set."""
    if not args.output.endswith('.npz'):
        raise UsageError(f'{args.output}: the output must be a .npz file')
    with bagio.open_bag(args.path) as bag:
        result = bagio.export_dataset(bag, args.features_topic, args.label_topic,
                                      args.feedback_topic)
    bagio.save_npz(result, args.output)
    print(f'{args.output}: {len(result.y)} examples, {result.X.shape[1]} features, '
          f'{len(result.labels)} labels ({", ".join(result.labels[:10])}'
          f'{", ..." if len(result.labels) > 10 else ""})')
    for reason, count in result.skipped.items():
        print(f'skipped {count} features message(s): {reason}')
    return 0


# ---------------------------------------------------------------------- write
def cmd_write(args) -> int:
    """Write a features + labels bag from a bundled data set or a CSV/NPZ file."""
    from banditlearn_ros.learning.datasets import load_dataset
    if not (math.isfinite(args.rate) and args.rate > 0):
        raise UsageError(f'--rate {args.rate}: must be a positive number of examples per second')
    if args.limit < 0:
        raise UsageError(f'--limit {args.limit}: must be 0 (all) or a positive count')
    X, y, names = load_dataset(args.dataset)
    if args.limit and args.limit < len(y):
        keep = balanced_sample(y, args.limit, args.seed)
        X, y = X[keep], y[keep]
    feature_set = args.feature_set or os.path.splitext(os.path.basename(args.dataset))[0]
    info = bagio.write_dataset_bag(args.output, X, y, names, storage=args.storage,
                                   rate_hz=args.rate, feature_set=feature_set,
                                   features_topic=_absolute(args.features_topic),
                                   label_topic=_absolute(args.label_topic))
    print(f'{args.output}: {args.storage} bag, {len(y)} examples of {X.shape[1]} features '
          f'({len(names)} labels) over {info["duration_s"]:.1f} s on '
          f'{_absolute(args.label_topic)} and {_absolute(args.features_topic)}')
    return 0


def balanced_sample(y, n: int, seed: int = 0):
    """
    Return ``n`` row indices: classes as equal as they can be, rows chosen at random.

    Each class contributes ``n // classes`` rows (the first ``n % classes`` classes in a
    seeded random order one more; a class with too few rows gives all it has and the
    others fill in), and the chosen rows are shuffled, so a short bag still shows every
    gesture in a mixed order.
    """
    import numpy as np
    rng = np.random.default_rng(seed)
    y = np.asarray(y)
    pools = [list(rng.permutation(np.flatnonzero(y == c))) for c in rng.permutation(
        np.unique(y))]
    chosen = []
    while len(chosen) < n and any(pools):
        for pool in pools:
            if pool and len(chosen) < n:
                chosen.append(pool.pop())
    return rng.permutation(np.array(chosen, dtype=np.int64))


def _absolute(topic: str) -> str:
    """Return the topic as ros2 bag record stores it (fully qualified)."""
    return '/' + topic.lstrip('/')


# ---------------------------------------------------------------------- record
def cmd_record(args) -> int:
    """Subscribe to topics and write a rosbag2 bag until SIGINT/SIGTERM or --duration."""
    for name, value in (('--max-bag-size', args.max_bag_size),
                        ('--max-bag-duration', args.max_bag_duration),
                        ('--duration', args.duration), ('--image-rate', args.image_rate),
                        ('--image-width', args.image_width)):
        if not (math.isfinite(value) and value >= 0):
            raise UsageError(f'{name} {value:g}: must be 0 (off) or a positive number')
    if not (math.isfinite(args.flush_every) and args.flush_every > 0):
        raise UsageError(f'--flush-every {args.flush_every:g}: must be a positive number')
    _need_rclpy('record')
    from banditlearn_ros.tools.bag_record import record
    record(args.output or time.strftime('rosbag2_%Y_%m_%d-%H_%M_%S'), args.topics,
           storage=args.storage, max_bytes=int(args.max_bag_size),
           max_duration_s=args.max_bag_duration, duration_s=args.duration,
           image_rate=args.image_rate, image_width=int(args.image_width),
           flush_every=args.flush_every, ready_file=args.ready_file,
           say=lambda line: print(line, flush=True))
    return 0


def _need_rclpy(command: str) -> None:
    try:
        import rclpy  # noqa: F401 (checked here to fail with a clear line)
    except ImportError:
        raise UsageError(f'{command} needs rclpy: source a ROS 2 installation or pip install '
                         "the package's 'ros' extra") from None


# ---------------------------------------------------------------------- reindex
def cmd_reindex(args) -> int:
    """Write metadata.yaml from the data files (completing cut-off MCAP files first)."""
    from banditlearn_ros.tools.bagio.salvage import reindex
    result = reindex(args.path, storage=args.storage or '')
    for note in result['notes']:
        print(f'note: {note}')
    for name in result['repaired']:
        print(f'{name}: rewritten whole from what could be read (the original is kept as '
              f'{name}.truncated)')
    print(f'{result["path"]}: {result["messages"]} messages in {len(result["files"])} '
          f'file(s)')
    return 0


# ---------------------------------------------------------------------- replay
def cmd_replay(args) -> int:
    """Feed a bag's session to a fresh learner in recorded order; print the figures."""
    from banditlearn_ros.learning import HyperparameterError, TeacherModel
    from banditlearn_ros.learning.interaction import SimulatedTeacher
    from banditlearn_ros.learning.replay import replay, session_figures
    from banditlearn_ros.tools import bag_replay
    if args.every < 0:
        raise UsageError(f'--every {args.every}: must be 0 (off) or a positive count')
    if args.rounds < 0:
        raise UsageError(f'--rounds {args.rounds}: must be 0 (all) or a positive count')
    overrides = {}
    for item in args.set or []:
        key, sep, text = item.partition('=')
        if not sep or not key:
            raise UsageError(f'--set {item!r}: write PARAM=VALUE')
        overrides[key.split('learner_node.', 1)[-1]] = _yaml_value(text)
    notes: List[str] = []
    with bagio.open_bag(args.path) as bag:
        for note in bag.notes:
            print(f'note: {note}')
        config = bag_replay.learner_config(bag, args.params or (), overrides,
                                           model_file=args.model, notes=notes)
        events, counts = bag_replay.read_events(bag)
        missed = bag_replay.late_start(bag)
    if missed:
        notes.append(f'the recording starts at interaction {missed}: the learner had asked '
                     f'about {missed} gesture(s) the bag does not hold, so the replay cannot '
                     'ask the same questions (start the recorder first and wait for its line)')
    for note in notes:
        print(f'note: {note}')
    teacher = None
    if args.answers == 'teacher':
        if not counts['label']:
            raise UsageError(f'{args.path}: no gesture_label messages, so the simulated '
                             'teacher has nothing to answer from (use --answers recorded)')
        rho0 = args.noise if args.rho0 is None else args.rho0
        rho1 = args.noise if args.rho1 is None else args.rho1
        try:
            model = TeacherModel(label_noise=args.label_noise, rho0=rho0, rho1=rho1,
                                 no_answer=args.no_answer)
        except HyperparameterError as err:
            raise UsageError(str(err)) from None
        teacher = SimulatedTeacher(model, seed=args.teacher_seed, labels=config.labels)
    # A figures file always gets a curve: about 100 points unless --every says otherwise.
    every = args.every or (max(1, counts['features'] // 100) if args.output else 0)
    try:
        result = replay(events, config, teacher=teacher, every=every)
    except (HyperparameterError, ValueError) as err:
        raise UsageError(f'the learner cannot be built: {err}') from None
    for note in result.notes:
        print(f'note: {note}')
    source = 'answered by the simulated teacher' if teacher else 'with the recorded answers'
    print(f'replayed {counts["features"]} gestures, {counts["label"]} labels, '
          f'{counts["feedback"]} recorded answers ({source}) with {config.algorithm}, '
          f'labels {config.labels}')
    for point in result.curve if args.every else ():
        print(f'  after {point["interactions"]:>5}: mistakes {point["mistake_rate"]}, '
              f'true {point["true_mistake_rate"]}, updates {point["updates"]}')
    from banditlearn_ros.tools.bag_replay import figures_text
    print(figures_text(result.figures))
    session = session_figures(result, args.rounds)
    print('session summary: ' + json.dumps(session))
    if args.output:
        from banditlearn_ros.learning.persistence import atomic_write_bytes
        document = {'bag': str(args.path), 'answers': args.answers,
                    'learner': config.as_dict(), 'counts': counts,
                    'figures': result.figures, 'session': session, 'curve': result.curve}
        atomic_write_bytes(args.output, (json.dumps(document, indent=2) + '\n').encode())
        print(f'figures written to {args.output}')
    return 0


# ---------------------------------------------------------------------- sample
def cmd_sample(args) -> int:
    """Record a rendered teaching session and the figures its replay gives, beside it."""
    from banditlearn_ros.tools import bag_sample
    if args.gestures < 1:
        raise UsageError(f'--gestures {args.gestures}: must be a positive count')
    if not 0 <= args.noise < 0.5:
        raise UsageError(f'--noise {args.noise:g}: must be in [0, 0.5)')
    if args.image_width < 8:
        raise UsageError(f'--image-width {args.image_width}: must be at least 8 pixels')
    if args.max_questions < 0:
        raise UsageError(f'--max-questions {args.max_questions}: must be >= 0 (0 = all labels)')
    bag_sample.make_sample(args.output, gestures=args.gestures, seed=args.seed,
                           noise=args.noise, image_width=args.image_width,
                           max_questions=args.max_questions)
    figures = args.figures or args.output.rstrip('/') + '.figures.json'
    document = bag_sample.sample_figures(args.output, noise=args.noise, seed=args.seed,
                                         command=_sample_command(args))
    from banditlearn_ros.learning.persistence import atomic_write_bytes
    atomic_write_bytes(figures, (json.dumps(document, indent=1) + '\n').encode())
    print(f'{figures}: figures of its deterministic replay (recorded answers: mistake rate '
          f'{document["recorded"]["figures"]["mistake_rate"]}, true '
          f'{document["recorded"]["figures"]["true_mistake_rate"]})')
    return 0


def _sample_command(args) -> str:
    """Return the ``sample`` command that makes this bag again (options not at default)."""
    import shlex
    defaults = build_parser().parse_args(['sample', '-o', args.output])
    words = [PROG, 'sample', '-o', args.output]
    for name in ('gestures', 'seed', 'noise', 'image_width', 'max_questions', 'figures'):
        if getattr(args, name) != getattr(defaults, name):
            words += ['--' + name.replace('_', '-'), str(getattr(args, name))]
    return ' '.join(shlex.quote(w) for w in words)


def _yaml_value(text: str):
    import yaml
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


# ---------------------------------------------------------------------- play
def _parse_remap(pairs: Sequence[str]) -> Dict[str, str]:
    out = {}
    for pair in pairs or []:
        old, sep, new = pair.partition(':=')
        if not sep or not old or not new:
            raise UsageError(f'--remap {pair!r}: use FROM:=TO')
        out[old] = new
    return out


def cmd_play(args) -> int:
    """Publish the bag's messages over rclpy with the recorded timing scaled by --rate."""
    if not (math.isfinite(args.rate) and args.rate > 0):
        raise UsageError(f'--rate {args.rate}: must be a positive factor')
    for name, value in (('--delay', args.delay),
                        ('--wait-for-subscribers', args.wait_for_subscribers)):
        if not (math.isfinite(value) and value >= 0):
            raise UsageError(f'{name} {value:g}: must be 0 or a positive number of seconds')
    remap = _parse_remap(args.remap)
    _need_rclpy('play')
    from banditlearn_ros.tools.bag_play import play
    with bagio.open_bag(args.path) as bag:
        for note in bag.notes:
            print(f'note: {note}')
        remap = {bag.resolve_topic(k): v for k, v in remap.items()}
        try:
            play(bag, rate=args.rate, topics=args.topics, loop=args.loop, delay=args.delay,
                 wait_for_subscribers=args.wait_for_subscribers, remap=remap)
        except KeyboardInterrupt:
            print('stopped')
    return 0


# ---------------------------------------------------------------------- main
class _Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Show a default where it says something (not None, '', False, [] or said already)."""

    def _get_help_string(self, action):
        text = action.help or ''
        if action.default in (None, '', False, [], argparse.SUPPRESS) or 'default' in text:
            return text
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with its subcommands (defaults shown in --help)."""
    fmt = _Formatter
    parser = argparse.ArgumentParser(
        prog=PROG, formatter_class=fmt,
        description='Inspect, record, replay, repair, export, write and play rosbag2 '
        'recordings (MCAP and sqlite3) of banditlearn_ros topics.')
    sub = parser.add_subparsers(dest='command', required=True)
    bag_help = 'rosbag2 folder, or a .mcap / .db3 file'

    info = sub.add_parser('info', formatter_class=fmt,
                          help='topics, types, counts, storage, duration, problems')
    info.add_argument('path', help=bag_help)
    info.add_argument('--quick', action='store_true',
                      help='count messages without decoding them (says so in the report)')
    info.add_argument('--json', action='store_true', help='print JSON')
    info.set_defaults(func=cmd_info)

    rec = sub.add_parser('record', formatter_class=fmt,
                         help='subscribe and write a bag until Ctrl-C/SIGTERM (ros2 bag record)')
    rec.add_argument('topics', nargs='*', default=[],
                     help="topics to record (default: the package's topics, images included)")
    rec.add_argument('-o', '--output', default='',
                     help='bag folder to create (default: rosbag2_<date>-<time>)')
    rec.add_argument('-s', '--storage', choices=bagio.STORAGES, default='mcap',
                     help='storage of the data files')
    rec.add_argument('-b', '--max-bag-size', type=float, default=0, metavar='BYTES',
                     help='start a new file past this size (0 = never split)')
    rec.add_argument('-d', '--max-bag-duration', type=float, default=0, metavar='SECONDS',
                     help='start a new file after this long (0 = never split)')
    rec.add_argument('--duration', type=float, default=0, metavar='SECONDS',
                     help='stop after this long (0 = until Ctrl-C or SIGTERM)')
    rec.add_argument('--image-rate', type=float, default=2.0, metavar='HZ',
                     help='images kept per second per image topic (0 = all)')
    rec.add_argument('--image-width', type=float, default=160, metavar='PIXELS',
                     help='images shrunk to this width (0 = as sent)')
    rec.add_argument('--flush-every', type=float, default=1.0, metavar='SECONDS',
                     help='write out the open chunk this often (what a SIGKILL can lose)')
    rec.add_argument('--ready-file', default='', metavar='FILE',
                     help='write FILE once recording (scripts wait for it before starting the '
                     'session); removed when the recording ends')
    rec.set_defaults(func=cmd_record)

    rep = sub.add_parser('replay', formatter_class=fmt,
                         help='a recorded session through a fresh learner, deterministically')
    rep.add_argument('path', help=bag_help)
    rep.add_argument('--answers', choices=('recorded', 'teacher'), default='recorded',
                     help="the recorded yes/no, or a simulated teacher's from the true labels")
    rep.add_argument('--params', nargs='+', default=None, metavar='FILE',
                     help='parameter files for learner_node over what the bag stores (the '
                     "learner's recorded configuration; for older bags the package's "
                     'params.yaml)')
    rep.add_argument('--set', action='append', default=[], metavar='PARAM=VALUE',
                     help='override a learner_node parameter (repeatable)')
    rep.add_argument('--model', default='', metavar='FILE',
                     help='the model file the session started from, when the bag names it '
                     'but could not hold it (too large)')
    rep.add_argument('--noise', type=float, default=0.0, help='teacher: rho0 = rho1')
    rep.add_argument('--rho0', type=float, default=None, help='teacher: P(right | wrong)')
    rep.add_argument('--rho1', type=float, default=None, help='teacher: P(wrong | right)')
    rep.add_argument('--no-answer', type=float, default=0.0, help='teacher: P(silence)')
    rep.add_argument('--label-noise', type=float, default=0.0,
                     help='teacher: P(a random label in mind)')
    rep.add_argument('--teacher-seed', type=int, default=0, help="teacher's seed")
    rep.add_argument('--every', type=int, default=0, help='print the figures every N gestures')
    rep.add_argument('--rounds', type=int, default=0,
                     help="the session summary's figures over the first N interactions, as "
                     'banditlearn_bringup --rounds N reports them (0 = all)')
    rep.add_argument('-o', '--output', default='',
                     help='also write the figures and a curve (~100 points, or --every) as JSON')
    rep.set_defaults(func=cmd_replay)

    sam = sub.add_parser('sample', formatter_class=fmt,
                         help='record a rendered teaching session (the bundled sample)')
    sam.add_argument('-o', '--output', required=True, help='the bag folder to create')
    sam.add_argument('--gestures', type=int, default=100, help='gestures shown')
    sam.add_argument('--seed', type=int, default=0,
                     help='seed of the renderer, the learner and the simulated person')
    sam.add_argument('--noise', type=float, default=0.05,
                     help="the simulated person's flip noise (rho0 = rho1)")
    sam.add_argument('--image-width', type=int, default=80,
                     help='width of the recorded images (rendered at 640 x 480)')
    sam.add_argument('--max-questions', type=int, default=1,
                     help='questions per gesture: ask again after a no (0 = every label)')
    sam.add_argument('--figures', default='',
                     help='where the replay figures go (default: <output>.figures.json)')
    sam.set_defaults(func=cmd_sample)

    rei = sub.add_parser('reindex', formatter_class=fmt,
                         help='write metadata.yaml from the data files (ros2 bag reindex)')
    rei.add_argument('path', help='the bag folder')
    rei.add_argument('-s', '--storage', choices=bagio.STORAGES, default=None,
                     help='only index files of this storage (default: what is there)')
    rei.set_defaults(func=cmd_reindex)

    export = sub.add_parser('export', formatter_class=fmt,
                            help='features + labels -> NPZ data set (X, y, labels)')
    export.add_argument('path', help=bag_help)
    export.add_argument('-o', '--output', required=True, help='the .npz file to write')
    export.add_argument('--features-topic', default='gesture_features',
                        help='Float32MultiArray topic')
    export.add_argument('--label-topic', default='gesture_label', help='String topic')
    export.add_argument('--feedback-topic', default=None,
                        help='also export the yes/no after each example (-1 = none)')
    export.set_defaults(func=cmd_export)

    write = sub.add_parser('write', formatter_class=fmt,
                           help='a features + labels bag from a data set')
    write.add_argument('dataset', help='digits, iris, wine, or a .csv / .npz file')
    write.add_argument('-o', '--output', required=True, help='the bag folder to create')
    write.add_argument('--storage', choices=bagio.STORAGES, default='mcap',
                       help='storage of the data file')
    write.add_argument('--rate', type=float, default=2.0, help='examples per second')
    write.add_argument('--limit', type=int, default=0,
                       help='N examples, a shuffled class-balanced sample (0 = all, in order)')
    write.add_argument('--seed', type=int, default=0, help='seed of the --limit sample')
    write.add_argument('--feature-set', default='',
                       help="layout label of the features (default: the data set's name)")
    write.add_argument('--features-topic', default='gesture_features',
                       help='Float32MultiArray topic')
    write.add_argument('--label-topic', default='gesture_label', help='String topic')
    write.set_defaults(func=cmd_write)

    player = sub.add_parser('play', formatter_class=fmt,
                            help='publish the messages over rclpy (ros2 bag play)')
    player.add_argument('path', help=bag_help)
    player.add_argument('-r', '--rate', type=float, default=1.0, help='speed factor')
    player.add_argument('--topics', nargs='+', default=None, help='only these topics')
    player.add_argument('-l', '--loop', action='store_true', help='repeat until Ctrl-C')
    player.add_argument('-d', '--delay', type=float, default=0.0,
                        help='seconds to wait before the first message')
    player.add_argument('--wait-for-subscribers', type=float, default=0.0, metavar='SECONDS',
                        help='wait up to SECONDS until every topic has a subscriber')
    player.add_argument('--remap', nargs='+', default=None, metavar='FROM:=TO',
                        help='publish a bag topic under another name')
    player.set_defaults(func=cmd_play)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command; return the exit status (one line on stderr when it fails)."""
    sigterm_as_interrupt()
    args = build_parser().parse_args(argv)
    try:
        code = args.func(args)
        sys.stdout.flush()
        return code
    except KeyboardInterrupt as exc:
        return exit_status(exc)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except (bagio.BagError, UsageError) as err:
        message = str(err)
    except ValueError as err:  # DatasetError and friends: bad user files
        message = str(err)
    except OSError as err:
        message = f'{getattr(err, "filename", "") or ""}: {err.strerror or err}'.lstrip(': ')
    except Exception as err:  # keep the promise of one readable line; debug on request
        if os.environ.get('BANDITLEARN_DEBUG'):
            raise
        message = (f'unexpected {type(err).__name__}: {err} '
                   '(set BANDITLEARN_DEBUG=1 for a traceback)')
    print(f'{PROG} {args.command}: error: {message}', file=sys.stderr)
    return 1


def _quiet_broken_pipe() -> int:
    """End quietly when the reader of stdout went away (``| head``), as CLI tools do."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141


if __name__ == '__main__':
    sys.exit(main())
