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

"""QoS profiles as rosbag2 stores them in metadata.yaml (offered_qos_profiles)."""

from typing import Any, Dict

# ros2 bag record stores "infinite" durations like this on Iron and later.
_INFINITE = (9223372036, 854775807)


def qos_dict(qos) -> Dict[str, Any]:
    """Return a rosbags Qos as a plain dict (enum names, durations as [sec, nsec])."""
    out = {}
    for key, value in qos._asdict().items():
        if hasattr(value, 'name'):
            out[key] = value.name
        elif isinstance(value, tuple):
            out[key] = list(value)
        else:
            out[key] = value
    return out


def recorded_qos(reliable: bool = True, transient_local: bool = False):
    """
    Return the offered QoS that ros2 bag record stores for a default publisher.

    Reliable and volatile unless told otherwise; history is not visible to the recorder,
    so it is stored as unknown with depth 0, and durations as infinite, as rosbag2 does.
    """
    from rosbags.interfaces import (
        Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime)
    infinite = QosTime(*_INFINITE)
    return Qos(history=QosHistory.UNKNOWN, depth=0,
               reliability=QosReliability.RELIABLE if reliable else QosReliability.BEST_EFFORT,
               durability=(QosDurability.TRANSIENT_LOCAL if transient_local
                           else QosDurability.VOLATILE),
               deadline=infinite, lifespan=infinite, liveliness=QosLiveliness.AUTOMATIC,
               liveliness_lease_duration=infinite, avoid_ros_namespace_conventions=False)
