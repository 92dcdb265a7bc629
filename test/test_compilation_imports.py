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
The background compilation takes no module from a thread that imports beside it.

numba's compiler imports coverage.py at its first compilation; on Python 3.10 coverage's
import deletes every module that any thread imported while it read ``tomli``
(``engine.compilation._import_coverage_here``).  The child below stages that moment
exactly: a stand-in ``tomli`` (first on the path) lets another thread start the import of
a module of its own and waits until it is inside it, so that thread's import ends with the
``KeyError``
that a session's matplotlib met, unless coverage was imported before, when this package's
compilation module was.
"""

import importlib.util
from pathlib import Path
import subprocess
import sys
import textwrap

import pytest

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import sys, threading
FIRST = {first!r}
if FIRST:
    import banditlearn_ros.learning.engine.compilation  # noqa: F401
sys.path.insert(0, {folder!r})
import staging
outcome = {{}}

def beside():
    try:
        import imported_beside  # noqa: F401
        outcome['ok'] = 'imported_beside' in sys.modules
    except BaseException as exc:
        outcome['ok'] = False
        outcome['error'] = repr(exc)

thread = threading.Thread(target=lambda: staging.start.wait(30) and beside())
thread.start()
import coverage  # what numba's first compilation imports  # noqa: F401
staging.start.set()  # tomli did not start the thread: start it now
staging.inside.wait(30)
staging.go_on.set()
thread.join(60)
print('tomli staged' if 'staged' in staging.seen else 'tomli not read', outcome)
"""

STAGING = """
import threading
start, inside, go_on = threading.Event(), threading.Event(), threading.Event()
seen = []
"""

BESIDE = """
import staging
staging.inside.set()
staging.go_on.wait(30)
"""

TOMLI = """
import staging
staging.seen.append('staged')
staging.start.set()
staging.inside.wait(30)  # the thread runs its module's own code, inside coverage's block
"""


def _run(tmp_path: Path, first: bool) -> str:
    for name, text in (('staging', STAGING), ('imported_beside', BESIDE), ('tomli', TOMLI)):
        (tmp_path / f'{name}.py').write_text(textwrap.dedent(text))
    child = CHILD.format(first=first, folder=str(tmp_path))
    result = subprocess.run([sys.executable, '-c', child], cwd=ROOT, capture_output=True,
                            text=True, timeout=180,
                            env={'PATH': '/usr/bin:/bin', 'BANDITLEARN_COMPILED': '1'})
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


needs_hazard = pytest.mark.skipif(
    sys.version_info >= (3, 11) or importlib.util.find_spec('coverage') is None
    or importlib.util.find_spec('numba') is None,
    reason='coverage.py deletes modules while it reads tomli only on Python 3.10, and only '
           'when coverage.py and numba are installed')


@needs_hazard
def test_the_hazard_is_real_without_the_early_import(tmp_path):
    out = _run(tmp_path, first=False)
    assert out.startswith('tomli staged'), out
    assert "'ok': False" in out and 'KeyError' in out, out


@needs_hazard
def test_after_the_compilation_module_a_thread_keeps_what_it_imports(tmp_path):
    out = _run(tmp_path, first=True)
    assert out == "tomli not read {'ok': True}", out
