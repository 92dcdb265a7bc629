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
learner_node's fleet topic: its evidence out, the other robots' in (``live_fleet`` decides).

One topic, ``/banditlearn_fleet/evidence`` (absolute, so robots in their own namespaces meet;
remappable), std_msgs/String holding ``fleet_message``'s JSON.  Reliable and transient local
with depth 1 per publisher, so a robot that joins late gets every other robot's latest
evidence; the subscription keeps up to ``IN_DEPTH`` so that many robots' latest arriving at
once are all read.  Across networks the fleet uses what ROS 2 has (docs/robot.md).
"""

import socket

from banditlearn_ros.learning.protocol.live_fleet import fleet_mode, FLEET_SPECS, LiveFleet
from banditlearn_ros.nodes import common
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

TOPIC = '/banditlearn_fleet/evidence'
IN_DEPTH = 64
"""Messages the subscription keeps: more robots than this sharing at one instant are
read in the next share period."""

OUT = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1, reliability=ReliabilityPolicy.RELIABLE,
                 durability=DurabilityPolicy.TRANSIENT_LOCAL)
IN = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=IN_DEPTH,
                reliability=ReliabilityPolicy.RELIABLE,
                durability=DurabilityPolicy.TRANSIENT_LOCAL)
CHECK_PERIOD = 0.1
"""Seconds between looks at whether a share is due (``fleet_share_every`` updates)."""
PEER_PERIOD = 1.0
"""Seconds between counts of the other nodes on the fleet topic (``fleet_peers``)."""


class FleetLink:
    """Declare the fleet parameters; with ``fleet`` not off, publish and take evidence."""

    def __init__(self, node, live):
        values = common.declare_specs(node, FLEET_SPECS)
        self.node = node
        self.fleet = None
        if fleet_mode(values['fleet']) == 'off':  # not a mode: refused there, one line
            return
        self.fleet = LiveFleet(live, lambda name: node.get_parameter(name).value,
                               socket.gethostname(), node.get_logger())
        self._pub = self._sub = None
        if self.fleet.sharing:
            self._pub = node.create_publisher(String, TOPIC, OUT)
            node.create_timer(CHECK_PERIOD, self._share)
        if self.fleet.taking:
            self._sub = node.create_subscription(String, TOPIC, self._on_evidence, IN)
        node.create_timer(PEER_PERIOD, self._count_peers)
        node.get_logger().info(
            f'fleet {self.fleet.evidence.fleet!r} as robot {self.fleet.evidence.robot!r} '
            f'({self.fleet.mode}) on {TOPIC}')

    def _count_peers(self) -> None:
        """
        Count the other nodes on the fleet topic; say when it changes (``fleet_peers``).

        What a robot learns before it has met the others stays in its own centring frame,
        which merges less well (docs/robot.md): the line says when teaching may start.
        """
        topic = (self._pub or self._sub).topic_name
        peers = max(self.node.count_publishers(topic) - (self._pub is not None),
                    self.node.count_subscribers(topic) - (self._sub is not None))
        if peers != self.fleet.peers:
            self.node.get_logger().info(f'fleet: {peers} other node(s) on {topic} (were '
                                        f'{self.fleet.peers})')
            self.fleet.peers = peers

    def _share(self) -> None:
        text = self.fleet.share_text()
        if text:
            self._pub.publish(String(data=text))

    def _on_evidence(self, msg: String) -> None:
        merged, why = self.fleet.take_text(msg.data)
        if why:  # counted on /diagnostics (fleet_refused_*); said at most every 10 s
            self.node.get_logger().warning(f'fleet evidence refused ({why[:200]})',
                                           throttle_duration_sec=10.0)
        if merged:
            self.node.get_logger().info(f'merged the evidence of {", ".join(merged)}')
