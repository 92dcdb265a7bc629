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
Publish a bag's messages with rclpy, with the recorded timing: ``banditlearn_bag play``.

The stand-in for ``ros2 bag play`` where rosbag2 is not installed; ``message_class`` finds
the installed Python class of a recorded type for the player and for the recorder
(``bag_record``).  rclpy and the message packages are imported only when called.
"""

import importlib
import math
import time
from typing import Callable, Dict, Optional, Sequence

from banditlearn_ros import bags as bagio


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
    from rclpy.qos import (
        DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy)
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
        raise ValueError(f'--rate {rate}: must be a positive factor')
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
                        say(f'{item.topic}: cannot decode with the installed {item.msgtype} '
                            f'({bagio.short_error(err, 100)}); skipping such messages')
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
