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
What every node here shares, in one import: parameters, /diagnostics, guarded callbacks, main.

Each concern has its module (``parameters``, ``diagnostics``, ``callback_guard``, ``run``);
a node imports ``common`` and finds them all here.
"""

from banditlearn_ros.nodes.callback_guard import CallbackGuard, GuardedNode
from banditlearn_ros.nodes.diagnostics import (
    Counters, Diagnostics, ERROR, OK, ProcessingTimes, RateMeter, RecentRefusals, WARN)
from banditlearn_ros.nodes.parameters import (
    accept, declare, declare_specs, ParameterChanges, reject, values_of, watch_changes)
from banditlearn_ros.nodes.run import (
    node_usage, run_node, shutdown_logger, START_ERRORS, topics_line, wants_help)

__all__ = [
    'CallbackGuard', 'Counters', 'Diagnostics', 'ERROR', 'GuardedNode', 'OK',
    'ParameterChanges', 'ProcessingTimes', 'RateMeter', 'RecentRefusals', 'START_ERRORS',
    'WARN', 'accept',
    'declare', 'declare_specs', 'node_usage', 'reject', 'run_node', 'shutdown_logger',
    'topics_line', 'values_of', 'wants_help', 'watch_changes',
]
