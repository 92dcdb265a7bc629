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

"""Helpers for the node tests: a private rclpy context, a probe node, bounded waits."""

import os
import time
from typing import Callable, Dict, List, Optional, Tuple
import uuid

import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node

BOUND = 30.0
"""Default wait for a condition: a bound for a loaded 2-core machine (two suites at once,
load 20 and more), not a speed; a wait ends as soon as its condition holds."""


class Ros:
    """A private context with one executor; nodes added here spin in the test's thread."""

    def __init__(self):
        self.context = Context()
        rclpy.init(context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.probe = Node('probe_' + uuid.uuid4().hex[:8], context=self.context)
        self.executor.add_node(self.probe)
        self.nodes: List[Node] = [self.probe]

    def add(self, node: Node) -> Node:
        """Spin ``node`` with the others."""
        self.executor.add_node(node)
        self.nodes.append(node)
        return node

    def remove(self, node: Node) -> None:
        """Stop spinning ``node`` and destroy it."""
        self.executor.remove_node(node)
        self.nodes.remove(node)
        node.destroy_node()

    def listen(self, msg_type, topic: str, qos: int = 100) -> list:
        """Return a list that fills with the messages of ``topic``."""
        box: list = []
        self.probe.create_subscription(msg_type, topic, box.append, qos)
        return box

    def spin_until(self, condition: Callable[[], bool], timeout: float = BOUND) -> bool:
        """Spin until ``condition()`` holds or ``timeout`` seconds pass; return whether it held."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return True
            self.executor.spin_once(timeout_sec=0.01)
        return condition()

    def spin_for(self, seconds: float) -> None:
        """Spin for a fixed time (to show that something does NOT happen)."""
        self.spin_until(lambda: False, seconds)

    def connect(self, publisher, subscribers: int = 1, timeout: float = BOUND) -> None:
        """Wait until ``publisher`` has matched its subscribers."""
        assert self.spin_until(lambda: publisher.get_subscription_count() >= subscribers,
                               timeout), f'no subscriber on {publisher.topic_name}'

    def call(self, client, request, timeout: float = BOUND):
        """Call a service and return its response (fails the test on timeout)."""
        assert self.spin_until(client.service_is_ready, timeout), \
            f'service {client.srv_name} not available'
        future = client.call_async(request)
        assert self.spin_until(future.done, timeout), f'{client.srv_name} did not answer'
        return future.result()

    def close(self) -> None:
        """Destroy every node and shut the context down."""
        for node in reversed(self.nodes):
            self.executor.remove_node(node)
            node.destroy_node()
        self.nodes = []
        self.executor.shutdown(timeout_sec=1.0)
        if self.context.ok():
            rclpy.shutdown(context=self.context)


class DomainWatch:
    """
    A node of this test process that sees every node of its ROS domain between the tests.

    The domain lock (conftest.py) keeps other test processes out, not a node started by hand
    or by another tool with this ``ROS_DOMAIN_ID``: such a node hears and answers the tests'
    topics and services.  This watch stays in the domain for the life of the process, so by
    the time a test starts its discovery has long run, and ``others()`` names every node that
    is not the watch itself or of this process (one a test left behind is its own
    business, not a stranger's).
    """

    NAME = '_banditlearn_test_domain_watch'
    """Hidden from ``ros2 node list`` (a leading underscore); no rosout, no services."""

    def __init__(self, domain: int, discovery: float = 1.0):
        from rclpy.signals import SignalHandlerOptions
        self.domain = domain
        self.context = Context()
        rclpy.init(context=self.context, domain_id=domain,
                   signal_handler_options=SignalHandlerOptions.NO)
        self.node = Node(self.NAME + '_' + uuid.uuid4().hex[:8], context=self.context,
                         enable_rosout=False, start_parameter_services=False)
        # The graph fills from discovery (DDS threads, nothing to spin): a node already
        # running in the domain shows within this bound, usually in a tenth of it.
        deadline = time.monotonic() + discovery
        while not self.others() and time.monotonic() < deadline:
            time.sleep(0.02)

    def others(self) -> List[Tuple[str, str]]:
        """Return (namespace, name) of every node in the domain but those of this process."""
        mine = {(namespace, self.node.get_name())
                for namespace in ('/', self.node.get_namespace())}
        mine |= self._of_this_process()
        return sorted((namespace, name) for name, namespace
                      in self.node.get_node_names_and_namespaces()
                      if (namespace, name) not in mine)

    def _of_this_process(self) -> set:
        """
        Return (namespace, name) of the nodes this process made (a leaked one, say).

        Told by their /rosout or /parameter_events writers: Fast DDS puts the low 16 bits
        of the process id in bytes 4-5 of every endpoint's GUID prefix (after the vendor
        0x010f and the host id).  Another middleware's ids are not read: its nodes count as
        strangers.
        """
        pid = (os.getpid() & 0xFFFF).to_bytes(2, 'little')
        out = set()
        for topic in ('/rosout', '/parameter_events'):
            for info in self.node.get_publishers_info_by_topic(topic):
                gid = bytes(info.endpoint_gid)
                if gid[:2] == b'\x01\x0f' and gid[4:6] == pid:
                    out.add((info.node_namespace, info.node_name))
        return out

    def close(self) -> None:
        """Leave the domain."""
        self.node.destroy_node()
        if self.context.ok():
            rclpy.shutdown(context=self.context)


def diagnostic_values(messages: list, name: str) -> Optional[Dict[str, str]]:
    """Return the key/values of the newest status called ``name`` in DiagnosticArrays."""
    for msg in reversed(messages):
        for status in msg.status:
            if status.name == name:
                return {kv.key: kv.value for kv in status.values}
    return None
