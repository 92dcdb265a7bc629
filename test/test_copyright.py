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

"""Every source file carries the Apache-2.0 header (ament_copyright where it is installed)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIP = {'.venv', 'build', 'install', 'log', '.git'}


def _sources():
    for path in sorted(ROOT.rglob('*.py')):
        parts = path.relative_to(ROOT).parts
        if not SKIP.intersection(parts) and not any(p.startswith('.venv') for p in parts):
            yield path


@pytest.mark.copyright
@pytest.mark.linter
def test_copyright():
    try:
        from ament_copyright.main import main
    except ImportError:
        main = None
    if main is not None:
        assert main(argv=['.', 'test']) == 0, 'Found errors'
        return
    missing = []
    for path in _sources():
        head = path.read_text(encoding='utf-8')[:1200]
        if not ('Copyright' in head and 'Licensed under the Apache License, Version 2.0' in head):
            missing.append(str(path.relative_to(ROOT)))
    assert not missing, 'files without the Apache-2.0 copyright header: ' + ', '.join(missing)
