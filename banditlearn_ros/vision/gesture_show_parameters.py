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
The gesture show node's parameters as plain data, without ROS.

``nodes/gesture_show_node.py`` declares ``SPECS`` (``nodes/parameters.py`` says how).
"""

from banditlearn_ros.parameter_spec import Spec

from .hand_renderer import GESTURES

SPECS = (
    Spec('gestures', list(GESTURES), 'gestures to show, from ' f'{", ".join(GESTURES)}',
         read_only=True),
    Spec('width', 320, 'image width', read_only=True, low=64, high=4096),
    Spec('height', 240, 'image height', read_only=True, low=64, high=4096),
    Spec('rate', 30.0, 'frames per second', read_only=True, low=0.1, high=1000.0),
    Spec('noise', 3.0, 'sensor noise per frame (grey levels)', read_only=True, low=0.0,
         high=100.0),
    Spec('supersample', 2, 'render at this many times the size, then shrink (smooth edges)',
         read_only=True, low=1, high=8),
    Spec('clutter', 12, 'most background objects per scene', read_only=True, low=0, high=1000),
    Spec('seed', 0, 'seed of the order, the rendering and the noise', read_only=True, low=0,
         high=2 ** 31 - 1),
    Spec('absent_frames', 4,
         'frames of the empty scene before each hand (the camera must see the hand leave)',
         read_only=True, low=1, high=1000),
    Spec('show_timeout', 3.0,
         'seconds (and as many frame periods) to show a hand the camera does not take',
         read_only=True, low=0.01, high=3600.0),
    Spec('answer_timeout', 10.0, 'seconds to wait for a first answer', read_only=True, low=0.01,
         high=3600.0),
    Spec('settle', 0.15, 'seconds after an answer without a new question that end the interaction',
         read_only=True, low=0.001, high=60.0),
    Spec('presentations', 0, 'gestures to show; 0 = no end', read_only=True, low=0, high=10 ** 9),
    Spec('diagnostics_period', 1.0, 'seconds between /diagnostics messages', read_only=True,
         low=0.01, high=3600.0),
)
"""The gesture show node's parameters, in the order they are declared."""
