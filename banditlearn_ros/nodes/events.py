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
The JSON events on String topics (question details, interactions), read with bounds.

Any publisher can put text on these topics: an event longer than ``MAX_EVENT_CHARS`` or
nested past Python's recursion limit is a ValueError, as malformed JSON already is, so the
nodes' existing "unreadable, skipped and counted" path takes it.
"""

import json
from typing import Any

MAX_EVENT_CHARS = 65536
"""Longest JSON event read, in characters (the node's own are a few hundred)."""


def read_event(text: str) -> Any:
    """Return the JSON value of ``text``; ValueError when too long, too deep or malformed."""
    if len(text) > MAX_EVENT_CHARS:
        raise ValueError(f'JSON event of {len(text)} characters is longer than '
                         f'{MAX_EVENT_CHARS}')
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError('JSON event nested too deeply') from None
