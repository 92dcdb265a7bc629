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
The teaching page: a phone shows the question, yes/no and "that's ..." buttons, the curve.

No ROS here (nodes/page_node.py carries the messages): what the page shows and which
taps become answers (state), the web server (server), the camera thumbnail
(thumbnail) and the page's own HTML, CSS and JS (static/).
"""
