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
A node parameter as plain data, so that a node's table of parameters needs no ROS.

``nodes.parameters.declare_specs`` declares a table with descriptors and ranges; the tables
live beside the behaviour they configure (``learning.live.learner_parameters``,
``vision.camera_parameters``, ``vision.feedback_parameters``).
"""

from typing import Any, NamedTuple, Optional


class Spec(NamedTuple):
    """
    One parameter: name, default, description, and what its descriptor says.

    ``low``/``high`` is the inclusive range of a number (None: open); ``constraints`` says
    in words what the range cannot; ``empty_array`` is what an empty list default declares
    ('string' or 'double' array); ``dynamic`` takes a value of any type, for a parameter
    whose rules read one YAML turns into another type (``fleet: off`` is false).
    """

    name: str
    default: Any
    description: str
    read_only: bool = False
    low: Optional[float] = None
    high: Optional[float] = None
    constraints: str = ''
    empty_array: str = 'string'
    dynamic: bool = False
