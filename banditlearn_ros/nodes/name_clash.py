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
A second node of the same fully qualified name, seen in the ROS graph, is said once.

ROS 2 lets two nodes share a name: two learners then both ask every gesture and one answer
updates both. Discovery takes a moment, so the graph is looked at on a timer, not only at
start; the model file itself is guarded by a lock (``learning.storage.model_store.claim``).
"""

from rclpy.node import Node


class NamesakeWatch:
    """Count the other nodes of ``node``'s fully qualified name; warn when one appears."""

    def __init__(self, node: Node, period: float = 2.0):
        self.node = node
        self.found = 0
        """Other nodes of this name in the graph at the last look."""
        self.name = node.get_fully_qualified_name()
        self._timer = node.create_timer(period, self.check)

    def others(self) -> int:
        """Return how many other nodes of this node's fully qualified name the graph holds."""
        same = 0
        for name, namespace in self.node.get_node_names_and_namespaces():
            if namespace.rstrip('/') + '/' + name == self.name:
                same += 1
        return max(0, same - 1)

    def check(self) -> None:
        """Look at the graph; one warning each time namesakes appear."""
        others = self.others()
        if others and not self.found:
            self.node.get_logger().warning(
                f'{others} other node(s) named {self.name} are running: each one answers '
                'every gesture and one answer updates all; give each its own name or '
                'namespace (--ros-args -r __node:=NAME or -r __ns:=/NS)')
        self.found = others
