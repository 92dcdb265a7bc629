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
The QoS of every topic, in one place, chosen for a robot and a learner on two machines.

- Gesture events (features, true labels, predictions, prediction details, yes/no answers) are
  few and each matters: **reliable**, keep the last 10, volatile.  Their publishers add a
  **lifespan** of ``EVENT_LIFESPAN``: a DDS writer keeps an unacknowledged sample only that
  long, so after a network drop-out nothing stale is delivered.  Without it a reliable writer
  resends what was queued during the drop-out, and a yes/no about an old gesture could arrive
  after the next prediction and be applied to it.  Lifespan is enforced by the writer on its
  own clock, and is not a matching policy, so any subscriber (``ros2 bag record``, ``ros2 topic
  echo``, a button node) still connects.
- Their subscriptions are plain reliable, keep the last 10, without lifespan: they accept
  reliable and best-effort publishers of any lifespan, and need no clock agreement between
  hosts.  Samples a writer gave up on are reported as lost (``count_lost``).
- Images are sensor data (REP 2003): best effort, keep the last 5.  A best-effort subscriber
  matches reliable and best-effort camera drivers alike.  camera_node keeps the last one only
  (``NEWEST_IMAGE``): it works on the newest frame, never on a queue of stale ones.
- State that a late joiner needs now (the listening cue) is **transient local**, depth 1.
- /diagnostics: the ROS default (reliable, volatile, keep the last 10), as the diagnostic
  aggregator expects.
"""

from typing import Callable

from banditlearn_ros.learning.protocol import answer_key
from rclpy.duration import Duration
from rclpy.event_handler import SubscriptionEventCallbacks, UnsupportedEventTypeError
from rclpy.node import Node
from rclpy.qos import (DurabilityPolicy, HistoryPolicy, qos_profile_sensor_data, QoSProfile,
                       ReliabilityPolicy)
from std_msgs.msg import Bool, String

EVENT_LIFESPAN = Duration(seconds=1.0)
"""How long a gesture event may wait for a dropped link: after that it is about the past."""

EVENT_DEPTH = 10
"""Events kept per topic for a slow reader; a burst of more is never normal here."""

EVENTS_OUT = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=EVENT_DEPTH,
                        reliability=ReliabilityPolicy.RELIABLE,
                        durability=DurabilityPolicy.VOLATILE, lifespan=EVENT_LIFESPAN)
"""Publishers of features, labels, predictions, details and answers."""

EVENTS_IN = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=EVENT_DEPTH,
                       reliability=ReliabilityPolicy.RELIABLE,
                       durability=DurabilityPolicy.VOLATILE)
"""Subscriptions to gesture events (and to buttons and joysticks)."""

IMAGES = qos_profile_sensor_data
"""Camera images in, debug images out."""

NEWEST_IMAGE = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1,
                          reliability=ReliabilityPolicy.BEST_EFFORT,
                          durability=DurabilityPolicy.VOLATILE)
"""camera_node's images in: the sensor-data QoS keeping only the newest frame, so a node
that fell behind takes the frame of now, never a queue of stale ones (matches the same
publishers)."""

LATCHED = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1,
                     reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
"""A state that a subscriber joining later must see at once (the listening cue)."""

DIAGNOSTICS = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=10,
                         reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.VOLATILE)
"""/diagnostics."""


def count_lost(add: Callable[[int], object]) -> SubscriptionEventCallbacks:
    """
    Return subscription event callbacks that pass the number of lost messages to ``add``.

    A message is lost when its reliable writer dropped it before this reader had it (its
    lifespan ran out during a network drop-out, or its queue overflowed).
    """
    return SubscriptionEventCallbacks(
        message_lost=lambda info: add(int(info.total_count_change)))


def subscribe_events(node: Node, msg_type, topic: str, callback, add_lost=None):
    """
    Subscribe to a gesture-event topic with ``EVENTS_IN``; count lost messages with ``add_lost``.

    A middleware without the message-lost event still gets the subscription, uncounted.
    """
    if add_lost is not None:
        try:
            return node.create_subscription(msg_type, topic, callback, EVENTS_IN,
                                            event_callbacks=count_lost(add_lost))
        except UnsupportedEventTypeError:
            node.get_logger().warning(
                f'this middleware does not report lost messages; {topic} losses are not counted')
    return node.create_subscription(msg_type, topic, callback, EVENTS_IN)


def subscribe_answers(node: Node, callback, add_lost=None):
    """
    Hear every yes/no: Bools on ``gesture_feedback`` and keyed answers on ``gesture_answer``.

    A keyed answer (``answer_key``; the page, the feedback node) reaches ``callback`` as the
    std_msgs/Bool it stands for; an unreadable one is skipped. Returns the Bool subscription.
    """
    def keyed(msg: String) -> None:
        try:
            said = answer_key.read_answer(msg.data)
        except ValueError:
            return
        callback(Bool(data=said.yes))

    subscribe_events(node, String, answer_key.TOPIC, keyed, add_lost)
    return subscribe_events(node, Bool, 'gesture_feedback', callback, add_lost)
