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
The bag player node's parameters as plain data, without ROS.

``nodes/bag_player.py`` declares ``SPECS`` (``nodes/parameters.py`` says how).
"""

from banditlearn_ros.parameter_spec import Spec

SPECS = (
    Spec('bag', '', "bag folder or file; '' = the bundled sample session", read_only=True),
    Spec('answers', 'recorded',
         "'recorded': answer each question with the recorded yes/no; 'teacher': publish labels, "
         'teacher_node answers', read_only=True, constraints="'recorded' or 'teacher'"),
    Spec('lockstep', True,
         'wait for each question (and answer) before the next gesture; false = the recorded pace',
         read_only=True),
    Spec('rate', 1.0, 'speed factor of the recorded pace (lockstep false)', low=1e-3, high=1e6,
         read_only=True),
    Spec('prediction_wait', 30.0,
         'lock-step: seconds to wait for a question that does not come (a refused vector)',
         read_only=True, low=0.0, high=3600.0),
    Spec('answer_wait', 30.0,
         'lock-step, teacher: seconds to wait for an answer that does not come (a silent '
         'teacher)', read_only=True, low=0.0, high=3600.0),
    Spec('start_delay', 0.5, 'seconds to wait after the learner appears', low=0.0, high=60.0,
         read_only=True),
    Spec('exit_when_done', False, 'end the process after the last gesture', read_only=True),
    Spec('diagnostics_period', 1.0, 'seconds between /diagnostics messages', read_only=True,
         low=0.01, high=3600.0),
)
"""The bag player node's parameters, in the order they are declared."""
