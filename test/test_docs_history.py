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

"""The docs say what is, not how the work went: no history, and benchmarks.md stays short."""

import os
from pathlib import Path
import re

ROOT = Path(__file__).resolve().parent.parent

HISTORY = re.compile(r'\bissue\s+#?\d+|(?<![-\w])session\s+\d+\b', re.IGNORECASE)
"""A reference to the project's own issues or work sessions ("issue #38", "session 16")."""

SUFFIXES = {'.py', '.md', '.yaml', '.xml', '.cfg', '.txt'}

SKIP = {'build', 'install', 'log'}


def _texts():
    """Yield the project's own text files (not the virtual environments, builds or this file)."""
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if not d.startswith(('.', '__')) and d not in SKIP
                         and not d.endswith('.egg-info'))
        for name in sorted(files):
            path = Path(folder) / name
            if path.suffix in SUFFIXES and path != Path(__file__).resolve():
                yield path


def test_no_history_of_the_work_in_docs_or_code():
    found = [f'{path.relative_to(ROOT)}:{n}: {line.strip()}'
             for path in _texts()
             for n, line in enumerate(path.read_text(errors='replace').splitlines(), 1)
             if HISTORY.search(line)]
    assert not found, '\n'.join(found)


def test_the_history_pattern_finds_what_it_should_and_nothing_else():
    for text in ('before issue #38', 'Issue 12 says', 'until session 16 the', 'Session 3:'):
        assert HISTORY.search(text), text
    for text in ('--sessions 30', 'a session of 500', 'ros2/rmw_fastrtps#739 and #576',
                 'sessions 1-3', 'session_16'):
        assert not HISTORY.search(text), text


def test_benchmarks_md_stays_within_400_lines():
    lines = (ROOT / 'docs' / 'benchmarks.md').read_text().splitlines()
    assert len(lines) <= 400, len(lines)
