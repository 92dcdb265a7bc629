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
The changes a recorded learner went through, made again to a running learner_node.

bag_player plays a recording in lock-step; the learner's recorded changes
(``learning/protocol/session_config``: a parameter set, ``~/reset_model``, a gesture named) are
made at the same input counts over the learner's own interfaces (its set_parameters and
reset_model services, the gesture_name topic), one at a time, never blocking the executor:
``busy`` starts the next due change and says whether the player must wait.
"""

from collections import deque
import time
from typing import Any, Dict, List, Optional

from banditlearn_ros.learning.live.session_config import NAMED, PARAMETERS, RESET
from rcl_interfaces.srv import SetParameters
from rclpy.duration import Duration
from rclpy.parameter import Parameter
from std_msgs.msg import String
from std_srvs.srv import Trigger

SERVICE_WAIT = 10.0
"""Seconds a change waits for the learner's service before it is skipped (and logged)."""


class RecordedChanges:
    """
    Make a recording's learner changes again, at the counts they carry.

    Parameters
    ----------
    node : rclpy Node
        The player: its clients and publisher are created here (relative names, so the
        player's namespace and remapping apply).
    changes : list of dict
        ``session_config`` changes, in order.

    """

    def __init__(self, node, changes: List[Dict[str, Any]]):
        self.node = node
        self.pending = deque(changes)
        self.made = 0
        self.skipped = 0
        self._future = None
        self._waiting_since: Optional[float] = None
        self._params = node.create_client(SetParameters, 'learner_node/set_parameters')
        self._reset = node.create_client(Trigger, 'learner_node/reset_model')
        self._names = node.create_publisher(String, 'gesture_name', 10)

    def busy(self, features: int, answers: int) -> bool:
        """Start the change due after ``features`` gestures and ``answers`` answers; True: wait."""
        if self._future is not None:
            if not self._future.done():
                return True
            self._future = None
        if not self.pending:
            return False
        change = self.pending[0]
        if change['features'] > features or change['feedback'] > answers:
            return False
        kind = change['kind']
        client = self._reset if kind == RESET else self._params
        if kind != NAMED and not client.service_is_ready():
            now = time.monotonic()
            self._waiting_since = self._waiting_since or now
            if now - self._waiting_since < SERVICE_WAIT:
                return True
            self.node.get_logger().warning(f'{client.srv_name} is not there: recorded {kind} '
                                           'change skipped')
            self.skipped += 1
            self.pending.popleft()
            return False
        self._waiting_since = None
        self.pending.popleft()
        self.made += 1
        if kind == PARAMETERS:
            self._future = client.call_async(SetParameters.Request(parameters=[
                Parameter(name, value=value).to_parameter_msg()
                for name, value in change['changed'].items()]))
        elif kind == RESET:
            self._future = client.call_async(Trigger.Request())
        else:
            self._names.publish(String(data=str(change.get('name', ''))))
            # The learner must hold the name before the next gesture's features reach it.
            self._names.wait_for_all_acked(Duration(seconds=2.0))
        return self._future is not None
