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

"""The page node's parameters (declared by ``nodes/page_node.py``), without ROS."""

from banditlearn_ros.parameter_spec import Spec

DEFAULT_PORT = 8642

SPECS = (
    Spec('host', '127.0.0.1', 'address the page listens on; localhost (the default) = this '
         'machine only; any other address (0.0.0.0 = all) needs the token in the URL',
         read_only=True),
    Spec('port', DEFAULT_PORT, 'TCP port of the page; 0 = a free one (the URL says which)',
         read_only=True, low=0, high=65535),
    Spec('token', '', "what every request must carry (?token=); '' = none on localhost, a "
         'random one on any other address', read_only=True),
    Spec('thumbnail', True, 'show a small picture of the camera frame each gesture was '
         'asked about; false = no image reaches the page (privacy in studies)',
         read_only=True),
    Spec('thumbnail_rate', 2.0, 'most thumbnails per second', low=0.1, high=30.0),
    Spec('thumbnail_width', 160, 'thumbnail width in pixels', low=16, high=640),
    Spec('window', 50, 'interactions in the windowed first-guess accuracy of the curve',
         read_only=True, low=1, high=100000),
    Spec('learner_node', 'learner_node', 'node whose labels a new name extends (as +name '
         'typed in the session does)', read_only=True),
    Spec('max_frame_bytes', 64 * 2 ** 20, 'largest camera image taken for the thumbnail, in '
         'bytes of pixels; larger ones are counted and skipped', low=1024, high=2 ** 31),
    Spec('diagnostics_period', 1.0, 'seconds between /diagnostics messages',
         read_only=True, low=0.01, high=3600.0),
)
"""The page node's parameters, in the order they are declared."""
