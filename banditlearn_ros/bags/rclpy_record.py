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
``banditlearn_bag record``: subscribe to topics with rclpy and write them into a rosbag2 bag.

The stand-in for ``ros2 bag record`` where rosbag2 is not installed.  Messages are taken
serialized (no decode) and stamped with the middleware's receive time; each topic's
offered QoS is read from its publishers and stored as ``ros2 bag record`` stores it.
Images can be thinned to a rate and shrunk to a width so a teaching session fits in a few
megabytes.  SIGINT and SIGTERM are handled here (not by rclpy): both finish the current
file and write metadata.yaml.  A SIGKILL loses at most the last second (or chunk).
"""

import json
import os
import signal
import time
from typing import Callable, Dict, Optional, Sequence

from banditlearn_ros.bags.constants import CUSTOM_LOST
from banditlearn_ros.bags.growing_bag import Recording
from banditlearn_ros.bags.recorded_qos import qos_from_rclpy

IMAGE_TYPE = 'sensor_msgs/msg/Image'

# The package's topics and their types, subscribed from the start (no discovery wait).
PACKAGE_TOPICS = {
    '/gesture_label': 'std_msgs/msg/String',
    '/gesture_features': 'std_msgs/msg/Float32MultiArray',
    '/gesture_prediction': 'std_msgs/msg/String',
    '/gesture_prediction_details': 'std_msgs/msg/String',
    '/gesture_feedback': 'std_msgs/msg/Bool',
    '/gesture_answer': 'std_msgs/msg/String',
    '/gesture_answer_taken': 'std_msgs/msg/String',
    '/gesture_interaction': 'std_msgs/msg/String',
    '/gesture_unknown': 'std_msgs/msg/String',
    '/gesture_name': 'std_msgs/msg/String',
    '/feedback_confidence': 'std_msgs/msg/Float32',
    '/feedback_listening': 'std_msgs/msg/Bool',
    '/image_raw': IMAGE_TYPE,
    '/diagnostics': 'diagnostic_msgs/msg/DiagnosticArray',
    # The learner's start configuration and changes (learning/live/session_config.py): latched.
    '/learner_config': 'std_msgs/msg/String',
}

LATCHED_TOPICS = frozenset({'/learner_config'})
"""Subscribed transient local from the start, so a message sent before we matched arrives."""


class ImageThinner:
    """Keep at most ``rate`` images per second per topic, shrunk to ``width`` pixels wide."""

    def __init__(self, rate: float, width: int):
        self.rate = float(rate)
        self.width = int(width)
        self._last: Dict[str, int] = {}
        self.dropped = 0

    def __call__(self, topic: str, stamp_ns: int, raw: bytes) -> Optional[bytes]:
        """Return the bytes to record, or None to skip this image."""
        if self.rate > 0:
            last = self._last.get(topic)
            if last is not None and stamp_ns - last < 1e9 / self.rate:
                self.dropped += 1
                return None
            self._last[topic] = stamp_ns
        if self.width <= 0:
            return raw
        import cv2
        from rclpy.serialization import deserialize_message, serialize_message
        from sensor_msgs.msg import Image

        from banditlearn_ros.support.image_bridge import array_to_image, image_to_array
        msg = deserialize_message(raw, Image)
        if msg.width <= self.width:
            return raw
        try:
            array = image_to_array(msg)
        except Exception:  # an encoding the bridge cannot convert: keep it whole
            return raw
        height = max(1, round(msg.height * self.width / msg.width))
        small = cv2.resize(array, (self.width, height), interpolation=cv2.INTER_AREA)
        out = array_to_image(small, 'mono8' if small.ndim == 2 else 'bgr8', header=msg.header)
        return serialize_message(out)


EVENT_TOPICS = frozenset({
    '/gesture_label', '/gesture_features', '/gesture_prediction', '/gesture_prediction_details',
    '/gesture_feedback', '/gesture_answer', '/gesture_answer_taken', '/gesture_interaction',
    '/gesture_unknown', '/gesture_name', '/learner_config'})
"""The session's own messages (nodes/qos.py EVENTS_OUT): none may be dropped by the recorder."""

IMAGE_DEPTH = 10
"""Images waiting for a busy recorder (a 640 x 480 frame is 0.9 MB; they are thinned anyway)."""

OTHER_DEPTH = 1000
"""Messages of other topics waiting for a busy recorder (diagnostics, topics named)."""


def _subscription_qos(infos, msgtype: str, latched: bool = False, topic: str = ''):
    """
    Return a QoS that receives from every publisher and drops nothing a session needs.

    The session's events are published reliable, keep last 10, with a 1 s lifespan
    (nodes/qos.py): a reliable reader gets each one as soon as the middleware has it, and
    keep-all holds what it got until the recorder, however starved of CPU, writes it (a
    keep-last queue would overwrite the oldest).  Best effort only where a publisher offers
    only that (it would not match otherwise); images keep the last ``IMAGE_DEPTH``.
    """
    from rclpy.qos import (
        DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy)
    image = msgtype == IMAGE_TYPE
    best_effort = image or any(
        i.qos_profile.reliability == ReliabilityPolicy.BEST_EFFORT for i in infos)
    transient = (latched and not infos) or bool(infos) and all(
        i.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL for i in infos)
    if topic in EVENT_TOPICS and not image:
        history, depth = HistoryPolicy.KEEP_ALL, OTHER_DEPTH
    else:
        history, depth = HistoryPolicy.KEEP_LAST, IMAGE_DEPTH if image else OTHER_DEPTH
    return QoSProfile(history=history, depth=depth,
                      reliability=(ReliabilityPolicy.BEST_EFFORT if best_effort
                                   else ReliabilityPolicy.RELIABLE),
                      durability=(DurabilityPolicy.TRANSIENT_LOCAL if transient
                                  else DurabilityPolicy.VOLATILE))


class Recorder:
    """
    Subscribe to topics (raw) and write what arrives into a ``Recording``.

    Topics with a known type (the package's, or ``types``) are subscribed at once; others
    when a publisher appears (checked every ``discovery_period`` seconds).
    """

    def __init__(self, node, recording: Recording, topics: Sequence[str],
                 types: Optional[Dict[str, str]] = None, image_rate: float = 2.0,
                 image_width: int = 160, say: Callable[[str], None] = print):
        self.node = node
        self.recording = recording
        self.namespace = node.get_namespace()  # kept: asked after the node is gone too
        self.wanted = [_absolute(t, self.namespace) for t in topics]
        self.types = dict(PACKAGE_TOPICS)
        self.types.update(types or {})
        self.thin = ImageThinner(image_rate, image_width)
        self.say = say
        self.subscriptions: Dict[str, object] = {}
        self.received: Dict[str, int] = {}
        self.lost: Dict[str, int] = {}
        self.calls = 0
        self.skipped: Dict[str, str] = {}
        self.discover()

    def discover(self) -> None:
        """Subscribe to wanted topics whose type is known or now advertised."""
        advertised = {name: types[0] for name, types in
                      self.node.get_topic_names_and_types() if types}
        for topic in self.wanted:
            if topic in self.subscriptions or topic in self.skipped:
                continue
            msgtype = advertised.get(topic) or self.types.get(topic)
            if msgtype is None:
                continue
            try:
                from banditlearn_ros.bags.rclpy_play import message_class
                cls = message_class(msgtype)
            except LookupError as err:
                self.skipped[topic] = str(err)
                self.say(f'not recording {topic}: {err}')
                continue
            infos = self.node.get_publishers_info_by_topic(topic)
            qos = _subscription_qos(infos, msgtype, topic in LATCHED_TOPICS,
                                    self._package_name(topic))
            self.subscriptions[topic] = self._subscribe(cls, topic, msgtype, qos)

    def _package_name(self, topic: str) -> str:
        """Return the package's name of a topic under the recorder's namespace ('' if none)."""
        namespace = self.namespace.rstrip('/')
        if namespace and topic.startswith(namespace + '/'):
            topic = topic[len(namespace):]
        return topic

    def _subscribe(self, cls, topic: str, msgtype: str, qos):
        """Subscribe raw; count what a reliable publisher gave up on (message lost)."""
        from rclpy.event_handler import SubscriptionEventCallbacks, UnsupportedEventTypeError

        def lost(info) -> None:
            self.lost[topic] = self.lost.get(topic, 0) + int(info.total_count_change)
        try:
            return self.node.create_subscription(
                cls, topic, self._callback(topic, msgtype), qos, raw=True,
                event_callbacks=SubscriptionEventCallbacks(message_lost=lost))
        except UnsupportedEventTypeError:
            return self.node.create_subscription(cls, topic, self._callback(topic, msgtype),
                                                 qos, raw=True)

    def _callback(self, topic: str, msgtype: str):
        def on_message(raw: bytes, info) -> None:
            self.calls += 1
            stamp = int(info.get('received_timestamp', 0) or 0) if isinstance(info, dict) \
                else 0
            stamp = stamp or time.time_ns()
            if topic not in self.recording.topics:
                infos = self.node.get_publishers_info_by_topic(topic)
                self.recording.add_topic(topic, msgtype,
                                         [qos_from_rclpy(i.qos_profile) for i in infos])
            if msgtype == IMAGE_TYPE:
                raw = self.thin(topic, stamp, raw)
                if raw is None:
                    return
            self.recording.write(topic, stamp, raw)
            self.received[topic] = self.received.get(topic, 0) + 1
        return on_message


def _absolute(topic: str, namespace: str = '/') -> str:
    if topic.startswith('/'):
        return topic
    return namespace.rstrip('/') + '/' + topic


def record(output: str, topics: Sequence[str] = (), storage: str = 'mcap',
           max_bytes: int = 0, max_duration_s: float = 0.0, duration_s: float = 0.0,
           image_rate: float = 2.0, image_width: int = 160, flush_every: float = 1.0,
           custom_data: Optional[Dict[str, str]] = None,
           say: Callable[[str], None] = print, ready_file: str = '') -> Dict[str, object]:
    """
    Record until SIGINT/SIGTERM (or ``duration_s``); return what was written.

    Parameters
    ----------
    output : str
        The bag folder to create.
    topics : sequence of str
        Topics to record; empty = the package's topics (``PACKAGE_TOPICS``).
    storage, max_bytes, max_duration_s
        As ``Recording``.
    duration_s : float
        Stop after this many seconds (0 = until a signal).
    image_rate, image_width : float, int
        Images kept per second per topic (0 = all) and their width (0 = as sent).
    flush_every : float
        Seconds between two flushes: what a SIGKILL can lose.
    custom_data : dict, optional
        Key/values for metadata.yaml's custom_data.
    say : callable
        Where progress lines go.
    ready_file : str
        Written (with the bag's path) once every subscription is made, for scripts that
        start the session after the recorder; removed when the recording ends.

    """
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    recording = Recording(output, storage=storage, max_bytes=max_bytes,
                          max_duration_s=max_duration_s)
    recording.custom_data.update(custom_data or {})
    stop = []
    previous = {}

    def on_signal(signum, frame):
        stop.append(signum)
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, on_signal)
    context = rclpy.Context()
    rclpy.init(args=[], context=context, signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node('banditlearn_bag_recorder', context=context)
    from rclpy.executors import SingleThreadedExecutor
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    recorder = None
    try:
        recorder = Recorder(node, recording, list(topics) or list(PACKAGE_TOPICS),
                            image_rate=image_rate, image_width=image_width, say=say)
        executor.spin_once(timeout_sec=0.05)  # let the subscriptions' first events run
        say(f'recording {len(recorder.wanted)} topic(s) into {output} ({storage}); '
            'Ctrl-C or SIGTERM stops')
        if ready_file:
            from banditlearn_ros.learning.storage.persistence import atomic_write_bytes
            atomic_write_bytes(ready_file, (str(output) + '\n').encode())
        start = last_flush = last_discovery = time.monotonic()
        while not stop and context.ok():
            executor.spin_once(timeout_sec=0.05)
            now = time.monotonic()
            if now - last_flush >= flush_every:
                recording.flush()
                last_flush = now
            if now - last_discovery >= 0.5:
                recorder.discover()
                last_discovery = now
            if duration_s and now - start >= duration_s:
                break
        _drain(executor, recorder)
    finally:
        if recorder is not None and recorder.lost:
            recording.custom_data[CUSTOM_LOST] = json.dumps(recorder.lost, sort_keys=True)
        recording.close()
        if ready_file and os.path.exists(ready_file):
            os.remove(ready_file)
        executor.shutdown(timeout_sec=1.0)
        node.destroy_node()
        if context.ok():
            rclpy.shutdown(context=context)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    counts = {t: e.count for t, e in recording.topics.items()}
    say(f'{output}: {recording.message_count} messages in {len(recording.files)} file(s)'
        + (f', {recorder.thin.dropped} images thinned out' if recorder.thin.dropped else ''))
    for topic, count in counts.items():
        say(f'  {topic}: {count}')
    for topic, count in sorted(recorder.lost.items()):
        say(f'lost {count} message(s) on {topic}: its publisher gave up on them before the '
            'recorder had them' + (' (a replay of this bag cannot match the session)'
                                   if recorder._package_name(topic) in EVENT_TOPICS else ''))
    return {'path': output, 'messages': recording.message_count, 'files': recording.files,
            'counts': counts, 'lost': dict(recorder.lost),
            'signal': stop[0] if stop else None}


def _drain(executor, recorder: Recorder, quiet_s: float = 0.3, limit_s: float = 3.0) -> None:
    """
    Write what the middleware already holds for us before the bag is closed.

    A stop (Ctrl-C, SIGTERM, ``--duration``) can come while received messages still wait
    in the subscriptions' queues (a busy machine runs the recorder late): take them until
    none came for ``quiet_s``, for at most ``limit_s``.
    """
    deadline = time.monotonic() + limit_s
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        before = recorder.calls
        executor.spin_once(timeout_sec=0.05)
        now = time.monotonic()
        if recorder.calls != before:
            quiet_since = now
        elif now - quiet_since >= quiet_s:
            return
