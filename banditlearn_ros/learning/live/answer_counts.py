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
A live learner's answers counted by where they came from, for /diagnostics.

An answer names its source (``protocol.answer_key``: a page tap, a nod, or a plain Bool,
``feedback``); ``answers_taken.<source>`` and ``answers_refused.<source>`` say how many of
each the learner applied and dropped.  Sources are names any publisher chooses, so only the
first ``MAX_SOURCES`` are counted by name and the rest as ``other``: the status stays
bounded.
"""

from typing import Dict, Set

MAX_SOURCES = 16
"""Answer sources counted by name (``answers_taken.<source>``); more are counted as other."""


class AnswerCounts:
    """Answers taken and refused by source (at most ``limit`` names; the rest: other)."""

    def __init__(self, limit: int = MAX_SOURCES):
        self.limit = limit
        self.counts: Dict[str, int] = {}
        """``answers_taken.<source>`` and ``answers_refused.<source>``: answers so far."""
        self._sources: Set[str] = set()

    def count(self, source: str, taken: bool) -> None:
        """Count one answer of ``source``: applied (``taken``) or dropped."""
        if source not in self._sources:
            source = source if len(self._sources) < self.limit else 'other'
            self._sources.add(source)
        name = ('answers_taken.' if taken else 'answers_refused.') + source
        self.counts[name] = self.counts.get(name, 0) + 1
