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
The image source node's parameters as plain data, without ROS.

``nodes/image_source_node.py`` declares ``SPECS`` (``nodes/parameters.py`` says how).
"""

from banditlearn_ros.parameter_spec import Spec

SPECS = (
    Spec('source', '/dev/video0',
         "V4L2 device ('/dev/video0', 'v4l2:/dev/video0', '0') or a video file", read_only=True),
    Spec('loop', False, 'start a video file again at its end', read_only=True),
    Spec('wait_for_subscribers', 1,
         'a video file starts once this many subscribers are connected (a camera starts at once)',
         read_only=True, low=0, high=100),
    Spec('start_delay', 0.5,
         'seconds between those subscribers appearing and the first frame of a video file',
         read_only=True, low=0.0, high=60.0),
    Spec('frame_id', 'camera', 'frame_id of the images', read_only=True),
    Spec('diagnostics_period', 1.0, 'seconds between /diagnostics messages', read_only=True,
         low=0.01, high=3600.0),
)
"""The image source node's parameters, in the order they are declared."""
