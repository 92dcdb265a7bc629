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
The dataset node's parameters as plain data, without ROS.

``nodes/dataset_node.py`` declares ``SPECS`` (``nodes/parameters.py`` says how).
"""

from banditlearn_ros.parameter_spec import Spec

SPECS = (
    Spec('dataset', 'digits',
         'bundled data set (digits, iris, wine) or the path of a CSV/NPZ file', read_only=True),
    Spec('feature_set', '', "name in the features' layout; '' = the data set's name",
         read_only=True),
    Spec('rate', 0.0, 'examples per second at most; 0 = as fast as lock-step allows', low=0.0,
         high=100_000.0, read_only=True),
    Spec('lockstep', True, 'wait for each answer (or a timeout) before the next example',
         read_only=True),
    Spec('answer_wait', 0.5, 'lock-step: seconds to wait for an answer after the prediction',
         read_only=True, low=0.0, high=3600.0),
    Spec('prediction_wait', 2.0, 'lock-step: seconds to wait for a prediction', read_only=True,
         low=0.0, high=3600.0),
    Spec('shuffle', True, 'one seeded permutation per pass', read_only=True),
    Spec('seed', 0, 'seed of the permutation', read_only=True, low=0, high=2 ** 31 - 1),
    Spec('passes', 1, 'passes over the data set', read_only=True, low=1, high=1_000_000),
    Spec('max_examples', 0, 'stop after this many examples; 0 = all', read_only=True, low=0,
         high=2 ** 31 - 1),
    Spec('wait_for_learner', True,
         'wait for a subscriber of the features topic before the first example', read_only=True),
    Spec('wait_for_teacher', True,
         'lock-step: also wait for a subscriber of the label topic and publishers of the '
         'prediction and feedback topics', read_only=True),
    Spec('start_delay', 0.5,
         'seconds to wait after the peers appear, so that every connection is made', low=0.0,
         high=60.0, read_only=True),
    Spec('exit_when_done', False, 'end the process when the stream is finished', read_only=True),
    Spec('diagnostics_period', 1.0, 'seconds between /diagnostics messages', read_only=True,
         low=0.01, high=3600.0),
)
"""The dataset node's parameters, in the order they are declared."""
