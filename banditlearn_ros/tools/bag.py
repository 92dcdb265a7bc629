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
(the stand-in for ``ros2 bag play`` where rosbag2 is not installed) and imports it only
when called.  Bad input ends with one line on stderr and a non-zero exit status.
"""

import argparse
import datetime
import importlib
import json
import math
import os
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence

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


def format_info(bag: bagio.Bag) -> str:
    """Return the human-readable ``info`` report of a checked bag."""
    files = ', '.join(p.name for p in bag.files)
    lines = [f'path:      {bag.path}',
             f'storage:   {bag.storage} ({len(bag.files)} file{"s" * (len(bag.files) != 1)}:'
             f' {files})']
    if bag.message_count:
        lines.append(f'duration:  {_duration(bag.duration_s)} (from {_when(bag.start_ns)} '
                     f'to {_when(bag.end_ns)})')
    decoded = sum(t.decoded for t in bag.topics.values())
    lines.append(f'messages:  {bag.message_count} ({decoded} decoded)')
    lines.extend(f'note:      {n}' for n in bag.notes)
    lines.append(f'topics:    {len(bag.topics)}')
    width = max([len(t) for t in bag.topics] + [5])
    type_width = max([len(t.msgtype) for t in bag.topics.values()] + [4])
    for topic in bag.topics.values():
        lines.append(f'  {topic.name:<{width}}  {topic.msgtype:<{type_width}}  '
                     f'{topic.count:>6} msgs  {topic.decoded:>6} decoded')
        lines.extend(f'      problem: {p}' for p in topic.problems)
        lines.extend(f'      note: {n}' for n in topic.notes)
    return '\n'.join(lines)


def cmd_info(args) -> int:
    """Print topics, types, counts, storage, duration and per-topic problems."""
    with bagio.open_bag(args.path) as bag:
        bag.check(decode=not args.quick)
        if args.json:
            print(json.dumps(bag.summary(), indent=2))
        else:
            print(format_info(bag))
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
    if args.limit:
        X, y = X[:args.limit], y[:args.limit]
    feature_set = args.feature_set or os.path.splitext(os.path.basename(args.dataset))[0]
    info = bagio.write_dataset_bag(args.output, X, y, names, storage=args.storage,
                                   rate_hz=args.rate, feature_set=feature_set,
                                   features_topic=_absolute(args.features_topic),
                                   label_topic=_absolute(args.label_topic))
    print(f'{args.output}: {args.storage} bag, {len(y)} examples of {X.shape[1]} features '
          f'({len(names)} labels) over {info["duration_s"]:.1f} s on '
          f'{_absolute(args.label_topic)} and {_absolute(args.features_topic)}')
    return 0


def _absolute(topic: str) -> str:
    """Return the topic as ros2 bag record stores it (fully qualified)."""
    return '/' + topic.lstrip('/')


# ---------------------------------------------------------------------- play
def message_class(msgtype: str):
    """Return the installed rclpy message class for 'pkg/msg/Name', or raise with the reason."""
    parts = msgtype.split('/')
    if len(parts) != 3 or parts[1] != 'msg':
        kind = 'a service event' if parts[1:2] == ['srv'] else 'not a plain message type'
        raise LookupError(f'{msgtype} is {kind}; only installed message types are published')
    try:
        module = importlib.import_module(f'{parts[0]}.msg')
    except ImportError:
        raise LookupError(f'no Python message package {parts[0]!r} is installed here '
                          f'(install ros-{parts[0].replace("_", "-")} or source a ROS '
                          'workspace that has it)') from None
    cls = getattr(module, parts[2], None)
    if cls is None:
        raise LookupError(f'the installed {parts[0]} has no message {parts[2]}')
    return cls


def _publisher_qos(topic: bagio.TopicInfo):
    """Return a QoS profile offering what the recording's publisher offered."""
    from rclpy.qos import (DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy)
    recorded = topic.qos[0] if topic.qos else {}
    reliability = (ReliabilityPolicy.BEST_EFFORT if recorded.get('reliability') == 'BEST_EFFORT'
                   else ReliabilityPolicy.RELIABLE)
    durability = (DurabilityPolicy.TRANSIENT_LOCAL
                  if recorded.get('durability') == 'TRANSIENT_LOCAL'
                  else DurabilityPolicy.VOLATILE)
    return QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100, reliability=reliability,
                      durability=durability)


def play(bag: bagio.Bag, rate: float = 1.0, topics: Optional[Sequence[str]] = None,
         loop: bool = False, delay: float = 0.0, wait_for_subscribers: float = 0.0,
         remap: Optional[Dict[str, str]] = None, context=None,
         say: Callable[[str], None] = print) -> Dict[str, int]:
    """
    Publish a bag's messages with their recorded timing scaled by ``rate``.

    Topics whose type is not installed here are skipped with the reason; a message the
    installed type cannot decode is counted and skipped.

    Parameters
    ----------
    bag : bagio.Bag
        An open bag.
    rate : float
        Speed factor: 2.0 plays twice as fast.
    topics : sequence of str, optional
        Topics to play (all by default).
    loop : bool
        Start again at the end, until interrupted.
    delay : float
        Seconds to wait after creating the publishers.
    wait_for_subscribers : float
        Wait up to this many seconds until every publisher has a subscriber.
    remap : dict, optional
        Bag topic -> published topic.
    context : rclpy.context.Context, optional
        An initialised context; by default rclpy is initialised and shut down here.
    say : callable
        Where progress and skip reasons go (print by default).

    Returns
    -------
    dict
        Messages published per bag topic.

    """
    import rclpy
    from rclpy.duration import Duration
    from rclpy.serialization import deserialize_message

    if not (math.isfinite(rate) and rate > 0):
        raise UsageError(f'--rate {rate}: must be a positive factor')
    chosen = [bag.resolve_topic(t) for t in topics] if topics else list(bag.topics)
    classes = {}
    for name in chosen:
        info = bag.topics[name]
        if not info.count:
            continue
        try:
            classes[name] = message_class(info.msgtype)
        except LookupError as err:
            say(f'skipping {name} ({info.count} msgs): {err}')
    if not classes:
        if not any(bag.topics[name].count for name in chosen):
            raise bagio.BagError(f'{bag.path}: no messages on {", ".join(chosen)}')
        raise bagio.BagError(f'{bag.path}: none of its topics can be published here '
                             '(see the reasons above)')
    remap = remap or {}
    own_context = context is None
    if own_context:
        context = rclpy.Context()
        # No command-line arguments: FROM:=TO here are this command's remaps, not rcl's.
        rclpy.init(args=[], context=context)
    node = rclpy.create_node('banditlearn_bag_player', context=context)
    published = dict.fromkeys(classes, 0)
    failed: Dict[str, int] = {}
    try:
        publishers = {name: node.create_publisher(
            classes[name], remap.get(name, name), _publisher_qos(bag.topics[name]))
            for name in classes}
        if wait_for_subscribers > 0:
            deadline = time.monotonic() + wait_for_subscribers
            while time.monotonic() < deadline and any(
                    p.get_subscription_count() == 0 for p in publishers.values()):
                time.sleep(0.02)
            lonely = [n for n, p in publishers.items() if p.get_subscription_count() == 0]
            if lonely:
                say(f'no subscriber after {wait_for_subscribers:g} s on: {", ".join(lonely)}')
        if delay > 0:
            time.sleep(delay)
        say(f'playing {sum(bag.topics[n].count for n in classes)} messages on '
            f'{len(classes)} topic(s) at {rate:g}x')
        while True:
            first = None
            start = time.monotonic()
            for item in bag.messages(list(classes), decode=False):
                if not context.ok():  # Ctrl-C under rclpy's signal handler
                    break
                if first is None:
                    first = item.stamp_ns
                due = start + (item.stamp_ns - first) / 1e9 / rate
                while True:
                    left = due - time.monotonic()
                    if left <= 0:
                        break
                    time.sleep(min(left, 0.05))
                try:
                    msg = deserialize_message(item.raw, classes[item.topic])
                except Exception as err:  # data that does not fit the installed type
                    failed[item.topic] = failed.get(item.topic, 0) + 1
                    if failed[item.topic] == 1:
                        say(f'{item.topic}: cannot decode with the installed '
                            f'{item.msgtype} ({bagio._short(err, 100)}); skipping such messages')
                    continue
                publishers[item.topic].publish(msg)
                published[item.topic] += 1
            if not loop or not context.ok():
                break
        for publisher in publishers.values():
            if publisher.qos_profile.reliability == rclpy.qos.ReliabilityPolicy.RELIABLE:
                publisher.wait_for_all_acked(Duration(seconds=2.0))
    finally:
        node.destroy_node()
        if own_context and context.ok():
            rclpy.shutdown(context=context)
        for name, count in published.items():
            extra = f', {failed[name]} undecodable skipped' if failed.get(name) else ''
            target = f' as {remap[name]}' if name in remap else ''
            say(f'published {count} on {name}{target}{extra}')
    return published


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
    remap = _parse_remap(args.remap)
    try:
        import rclpy  # noqa: F401 (checked here to fail with a clear line)
    except ImportError:
        raise UsageError('play needs rclpy: source a ROS 2 installation or pip install '
                         "the package's 'ros' extra") from None
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
def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with the four subcommands."""
    parser = argparse.ArgumentParser(
        prog=PROG, description='Inspect, export, write and play rosbag2 recordings '
        '(MCAP and sqlite3) of banditlearn_ros topics.')
    sub = parser.add_subparsers(dest='command', required=True)

    info = sub.add_parser('info', help='topics, types, counts, storage, duration, problems')
    info.add_argument('path', help='rosbag2 folder, or a .mcap / .db3 file')
    info.add_argument('--quick', action='store_true',
                      help='count messages without decoding them')
    info.add_argument('--json', action='store_true', help='print JSON')
    info.set_defaults(func=cmd_info)

    export = sub.add_parser('export', help='features + labels -> NPZ data set (X, y, labels)')
    export.add_argument('path', help='rosbag2 folder, or a .mcap / .db3 file')
    export.add_argument('-o', '--output', required=True, help='the .npz file to write')
    export.add_argument('--features-topic', default='gesture_features')
    export.add_argument('--label-topic', default='gesture_label')
    export.add_argument('--feedback-topic', default=None,
                        help='also export the yes/no after each example (-1 = none)')
    export.set_defaults(func=cmd_export)

    write = sub.add_parser('write', help='a features + labels bag from a data set')
    write.add_argument('dataset', help='digits, iris, wine, or a .csv / .npz file')
    write.add_argument('-o', '--output', required=True, help='the bag folder to create')
    write.add_argument('--storage', choices=bagio.STORAGES, default='mcap')
    write.add_argument('--rate', type=float, default=2.0, help='examples per second')
    write.add_argument('--limit', type=int, default=0, help='only the first N examples')
    write.add_argument('--feature-set', default='',
                       help="layout label of the features (default: the data set's name)")
    write.add_argument('--features-topic', default='gesture_features')
    write.add_argument('--label-topic', default='gesture_label')
    write.set_defaults(func=cmd_write)

    player = sub.add_parser('play', help='publish the messages over rclpy (ros2 bag play)')
    player.add_argument('path', help='rosbag2 folder, or a .mcap / .db3 file')
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
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130
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


if __name__ == '__main__':
    sys.exit(main())
