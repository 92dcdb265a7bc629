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

"""The README stays a five-minute read that points only at what a clone contains."""

from pathlib import Path
import re

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / 'README.md'
PAGES = [README] + sorted((ROOT / 'docs').glob('*.md'))
MAX_LINES = 220
MAX_WIDTH = 100
# Markdown links and images: [text](target) and ![alt](target).
LINK = re.compile(r'!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
# Names of files that exist only on the development machines, never in a clone: the papers'
# file names and the machines' folders. The docs pages may name the optional real data beside
# the project (``../shared/data``: the tests that read it skip without it); the README may not.
ANYWHERE = r'\bseeds?[ /]?0\d\d\b|/work/|\bDESIGN\.md\b|\bSTYLE\.md\b'
IN_HOUSE = {page: re.compile(ANYWHERE + (r'|\.\./shared|\bshared/(?:data|seeds)\b'
                                         if page == README else ''), re.IGNORECASE)
            for page in PAGES}


def _local_targets(page: Path):
    """Yield (line number, target) of every link that is not a web address or an anchor."""
    for number, line in enumerate(page.read_text(encoding='utf-8').splitlines(), 1):
        for target in LINK.findall(line):
            if re.match(r'[a-z][a-z0-9+.-]*:', target, re.IGNORECASE) or target.startswith('#'):
                continue
            yield number, target.split('#', 1)[0]


@pytest.mark.linter
def test_readme_is_at_most_220_lines():
    lines = README.read_text(encoding='utf-8').splitlines()
    assert len(lines) <= MAX_LINES, f'README.md has {len(lines)} lines (at most {MAX_LINES})'


@pytest.mark.linter
def test_no_readme_line_is_over_100_characters():
    long = [(number, len(line)) for number, line in
            enumerate(README.read_text(encoding='utf-8').splitlines(), 1)
            if len(line) > MAX_WIDTH]
    assert long == [], f'README.md lines over {MAX_WIDTH} characters (line, length): {long}'


@pytest.mark.linter
def test_readme_links_to_every_docs_page():
    linked = {target for _, target in _local_targets(README)}
    pages = {f'docs/{page.name}' for page in PAGES[1:]}
    assert pages - linked == set(), 'docs pages the README does not link to'


@pytest.mark.linter
@pytest.mark.parametrize('page', PAGES, ids=lambda page: page.name)
def test_every_link_resolves_inside_the_clone(page):
    broken = []
    for number, target in _local_targets(page):
        resolved = (page.parent / target).resolve()
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append((number, target))
    assert broken == [], f'{page.relative_to(ROOT)}: links to nothing in the clone: {broken}'


@pytest.mark.linter
@pytest.mark.parametrize('page', PAGES, ids=lambda page: page.name)
def test_no_page_names_files_outside_the_clone(page):
    found = [(number, match.group(0)) for number, line in
             enumerate(page.read_text(encoding='utf-8').splitlines(), 1)
             for match in IN_HOUSE[page].finditer(line)]
    assert found == [], f'{page.relative_to(ROOT)} names files a clone does not have: {found}'
