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

from typing import Any, Dict, List

import yaml

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


_ENUMS = {
    'history': ('SYSTEM_DEFAULT', 'KEEP_LAST', 'KEEP_ALL', 'UNKNOWN'),
    'reliability': ('SYSTEM_DEFAULT', 'RELIABLE', 'BEST_EFFORT', 'UNKNOWN', 'BEST_AVAILABLE'),
    'durability': ('SYSTEM_DEFAULT', 'TRANSIENT_LOCAL', 'VOLATILE', 'UNKNOWN',
                   'BEST_AVAILABLE'),
    'liveliness': ('SYSTEM_DEFAULT', 'AUTOMATIC', 'MANUAL_BY_NODE', 'MANUAL_BY_TOPIC',
                   'UNKNOWN', 'BEST_AVAILABLE'),
}
_DURATIONS = ('deadline', 'lifespan', 'liveliness_lease_duration')


def _enum_value(key: str, value: Any) -> int:
    if isinstance(value, int):
        return value
    names = _ENUMS[key]
    name = str(value).upper()
    return names.index(name) if name in names else names.index('UNKNOWN')


def qos_yaml_from_dicts(profiles: List[Dict[str, Any]]) -> str:
    """
    Return QoS profiles as the offered_qos_profiles text of metadata version 8.

    Enums are stored as rmw's numbers and durations as ``{sec, nsec}``, as ``ros2 bag
    record`` on Jazzy writes them; '' when there is none.
    """
    out = []
    for profile in profiles:
        item: Dict[str, Any] = {}
        for key in ('history', 'depth', 'reliability', 'durability', 'deadline', 'lifespan',
                    'liveliness', 'liveliness_lease_duration',
                    'avoid_ros_namespace_conventions'):
            value = profile.get(key)
            if key in _ENUMS:
                item[key] = _enum_value(key, 'UNKNOWN' if value is None else value)
            elif key in _DURATIONS:
                sec, nsec = (value if isinstance(value, (list, tuple)) and len(value) == 2
                             else _INFINITE)
                if isinstance(value, dict):
                    sec, nsec = value.get('sec', _INFINITE[0]), value.get('nsec', _INFINITE[1])
                item[key] = {'sec': int(sec), 'nsec': int(nsec)}
            elif key == 'depth':
                item[key] = int(value or 0)
            else:
                item[key] = bool(value)
        out.append(item)
    if not out:
        return ''
    return yaml.safe_dump(out, default_flow_style=False, sort_keys=False).strip()


def _duration_pair(duration) -> List[int]:
    nanoseconds = int(getattr(duration, 'nanoseconds', 0))
    infinite = _INFINITE[0] * 10 ** 9 + _INFINITE[1]
    if nanoseconds <= 0 or nanoseconds >= infinite:
        return list(_INFINITE)
    return [nanoseconds // 10 ** 9, nanoseconds % 10 ** 9]


def qos_from_rclpy(profile) -> Dict[str, Any]:
    """
    Return an rclpy QoSProfile as the dict ``TopicInfo.qos`` holds.

    Meant for the profiles ``Node.get_publishers_info_by_topic`` reports: what a
    publisher offers.  History and depth are not visible across DDS, so rclpy reports
    them as unknown / 0, and they are stored that way, as ``ros2 bag record`` does.
    """
    def name(policy) -> str:
        return getattr(policy, 'name', str(policy)).upper()
    return {'history': name(profile.history), 'depth': int(profile.depth),
            'reliability': name(profile.reliability), 'durability': name(profile.durability),
            'deadline': _duration_pair(profile.deadline),
            'lifespan': _duration_pair(profile.lifespan),
            'liveliness': name(profile.liveliness),
            'liveliness_lease_duration': _duration_pair(profile.liveliness_lease_duration),
            'avoid_ros_namespace_conventions': bool(profile.avoid_ros_namespace_conventions)}
