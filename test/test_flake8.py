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

"""flake8 through ament_flake8, in a process of its own."""

from pathlib import Path
import subprocess
import sys

import pytest

# flake8 forks worker processes; forked from a pytest worker whose earlier tests started DDS
# threads, a child can hang on a lock one of those threads held (seen in a full run).
CHECK = ('import sys\n'
         'from ament_flake8.main import main_with_errors\n'
         'rc, errors = main_with_errors(argv=[])\n'
         'print("\\n".join(errors))\n'
         'sys.exit(rc)\n')


@pytest.mark.flake8
@pytest.mark.linter
@pytest.mark.slow
def test_flake8():
    done = subprocess.run([sys.executable, '-c', CHECK], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[1], timeout=600)
    assert done.returncode == 0, 'flake8 found code style errors / warnings:\n' + done.stdout
