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
The face show node's parameters as plain data, without ROS.

``nodes/face_show_node.py`` declares ``SPECS`` (``nodes/parameters.py`` says how).
"""

from banditlearn_ros.parameter_spec import Spec

SPECS = (
    Spec('width', 320, 'image width', read_only=True, low=64, high=4096),
    Spec('height', 240, 'image height', read_only=True, low=64, high=4096),
    Spec('rate', 20.0, 'frames per second', read_only=True, low=1.0, high=240.0),
    Spec('seed', 0, "seed of the gestures' speed, size and reaction time", read_only=True, low=0,
         high=2 ** 31 - 1),
    Spec('diagnostics_period', 1.0, 'seconds between /diagnostics messages', read_only=True,
         low=0.01, high=3600.0),
)
"""The face show node's parameters, in the order they are declared."""
