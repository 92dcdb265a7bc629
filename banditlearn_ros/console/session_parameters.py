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
The session node's parameters as plain data, without ROS.

``nodes/session_node.py`` declares ``SPECS`` (``nodes/parameters.py`` says how).
"""

from banditlearn_ros.parameter_spec import Spec

SPECS = (
    Spec('interactions', 0, 'interactions after which the session ends; 0 = until Ctrl-C',
         read_only=True, low=0, high=10 ** 9),
    Spec('window', 50, 'interactions in the windowed first-guess accuracy', read_only=True, low=1,
         high=100000),
    Spec('keyboard', True, 'read y/n and +label from the terminal (only when stdin is a terminal)',
         read_only=True),
    Spec('answer_warning', 5.0,
         'seconds a question may wait before the session says why no answer comes',
         read_only=True, low=0.5, high=3600.0),
    Spec('settle', 0.3, 'seconds without a question or answer that close the last interaction',
         read_only=True, low=0.01, high=60.0),
    Spec('learner_node', 'learner_node', 'node whose labels +name extends', read_only=True),
    Spec('prompts', True, 'tell the person what to type (false when a simulated person answers)',
         read_only=True),
)
"""The session node's parameters, in the order they are declared."""
