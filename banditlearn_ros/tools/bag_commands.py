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
What each ``banditlearn_bag`` command does; ``tools/bag.py`` parses the command line.

Each ``cmd_*`` takes the parsed arguments, prints its report and returns the exit status;
a value it cannot use raises ``UsageError`` with the one line the command prints.
"""

import datetime
import json
import math
import os
import time
from typing import Dict, List, Sequence

from banditlearn_ros import bags as bagio

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


def format_info(bag: bagio.Bag, quick: bool = False, warnings: Sequence[str] = ()) -> str:
    """
    Return the human-readable ``info`` report of a checked bag (``quick``: not decoded).

    ``warnings``: what the recording lacks of its session (``pairing_problems``).
    """
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
    lines.extend(f'warning:   {w}' for w in warnings)
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
    from banditlearn_ros.bags.pairing import pairing_problems
    with bagio.open_bag(args.path) as bag:
        bag.check(decode=not args.quick)
        counts = {name: (t.read, t.decoded, t.failed) for name, t in bag.topics.items()}
        warnings = pairing_problems(bag)
        for name, (read, decoded, failed) in counts.items():  # as the full pass found them
            bag.topics[name].read, bag.topics[name].decoded = read, decoded
            bag.topics[name].failed = failed
        if args.json:
            summary = bag.summary()
            summary['pairing'] = warnings
            summary['decoded'] = not args.quick
            if args.quick:
                for topic in summary['topics']:
                    topic['decoded'] = topic['failed'] = None
            print(json.dumps(summary, indent=2))
        else:
            print(format_info(bag, quick=args.quick, warnings=warnings))
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
    from banditlearn_ros.learning.offline.datasets import load_dataset
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
    from banditlearn_ros.bags.rclpy_record import record
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
    from banditlearn_ros.bags.reindex import reindex
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
    from banditlearn_ros.learning.protocol.simulated_teacher import SimulatedTeacher
    from banditlearn_ros.learning.offline.replay import replay, session_figures
    from banditlearn_ros.bags import recorded_session as bag_replay
    from banditlearn_ros.bags.config_check import set_value
    if args.every < 0:
        raise UsageError(f'--every {args.every}: must be 0 (off) or a positive count')
    if args.rounds < 0:
        raise UsageError(f'--rounds {args.rounds}: must be 0 (all) or a positive count')
    overrides = {}
    for item in args.set or []:
        key, sep, text = item.partition('=')
        if not sep or not key:
            raise UsageError(f'--set {item!r}: write PARAM=VALUE')
        name = key.split('learner_node.', 1)[-1]
        overrides[name] = set_value(name, text)
    notes: List[str] = []
    with bagio.open_bag(args.path) as bag:
        for note in bag.notes:
            print(f'note: {note}')
        config = bag_replay.learner_config(bag, args.params or (), overrides,
                                           model_file=args.model, notes=notes)
        events, counts = bag_replay.read_events(bag)
        missed = bag_replay.late_start(bag)
        from banditlearn_ros.bags.pairing import pairing_problems
        for problem in pairing_problems(bag):
            print(f'warning: {problem}')
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
    _check_replayed(args.path, counts, result)
    source = 'answered by the simulated teacher' if teacher else 'with the recorded answers'
    print(f'replayed {counts["features"]} gestures, {counts["label"]} labels, '
          f'{counts["feedback"]} recorded answers ({source}) with {config.algorithm}, '
          f'labels {config.labels}')
    for point in result.curve if args.every else ():
        print(f'  after {point["interactions"]:>5}: mistakes {point["mistake_rate"]}, '
              f'true {point["true_mistake_rate"]}, updates {point["updates"]}')
    from banditlearn_ros.bags.recorded_session import figures_text
    print(figures_text(result.figures))
    session = session_figures(result, args.rounds)
    print('session summary: ' + json.dumps(session))
    if args.output:
        from banditlearn_ros.learning.storage.persistence import atomic_write_bytes
        document = {'bag': str(args.path), 'answers': args.answers,
                    'learner': config.as_dict(), 'counts': counts,
                    'figures': result.figures, 'session': session, 'curve': result.curve}
        atomic_write_bytes(args.output, (json.dumps(document, indent=2) + '\n').encode())
        print(f'figures written to {args.output}')
    return 0


def _check_replayed(path: str, counts: Dict[str, int], result) -> None:
    """Refuse a replay that replayed nothing, saying why; note vectors refused on the way."""
    why = '; '.join(f'{n} {reason}' for reason, n in sorted(result.refused.items()))
    if not counts['features']:
        raise UsageError(f'{path}: nothing to replay: the bag holds no gesture_features '
                         'message')
    if not result.figures.get('interactions'):
        raise UsageError(f'{path}: replayed 0 of {counts["features"]} gestures: the learner '
                         f'refused every feature vector ({why or "no question was asked"})')
    refused = sum(result.refused.values())
    if refused:
        print(f'note: {refused} of {counts["features"]} feature vectors were refused before '
              f'any question ({why})')


# ---------------------------------------------------------------------- sample
def cmd_sample(args) -> int:
    """Record a rendered teaching session and the figures its replay gives, beside it."""
    from banditlearn_ros.bags import sample as bag_sample
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
    from banditlearn_ros.learning.storage.persistence import atomic_write_bytes
    atomic_write_bytes(figures, (json.dumps(document, indent=1) + '\n').encode())
    print(f'{figures}: figures of its deterministic replay (recorded answers: mistake rate '
          f'{document["recorded"]["figures"]["mistake_rate"]}, true '
          f'{document["recorded"]["figures"]["true_mistake_rate"]})')
    return 0


SAMPLE_DEFAULTS = {'gestures': 100, 'seed': 0, 'noise': 0.05, 'image_width': 80,
                   'max_questions': 1, 'figures': ''}
"""Defaults of ``sample``'s options: its parser's, and what its command line leaves out."""


def _sample_command(args) -> str:
    """Return the ``sample`` command that makes this bag again (options not at default)."""
    import shlex
    words = [PROG, 'sample', '-o', args.output]
    for name, default in SAMPLE_DEFAULTS.items():
        if getattr(args, name) != default:
            words += ['--' + name.replace('_', '-'), str(getattr(args, name))]
    return ' '.join(shlex.quote(w) for w in words)


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
    from banditlearn_ros.support import dds_profile
    from banditlearn_ros.bags.rclpy_play import play
    print(dds_profile.apply().line)  # a writer of images: its segment is the one that counts
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
