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

"""`colcon build` installs the package the ROS way: scripts, resources, the ament marker."""

from pathlib import Path
import re
import shutil
import subprocess
import sys

import pytest

ROOT = Path(__file__).resolve().parent.parent
IGNORE = shutil.ignore_patterns('.venv*', '.git', 'build', 'install', 'log', '__pycache__',
                                '*.egg-info', '.pytest_cache', '.hypothesis', 'results')


@pytest.mark.slow
def test_colcon_build_installs_everything(tmp_path):
    pytest.importorskip('colcon_core', reason='colcon-core is in the test extra')
    colcon = Path(sys.executable).with_name('colcon')
    shutil.copytree(ROOT, tmp_path / 'src' / 'banditlearn_ros', ignore=IGNORE)
    result = subprocess.run([str(colcon), 'build', '--event-handlers', 'console_direct-'],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    prefix = tmp_path / 'install' / 'banditlearn_ros'
    scripts = re.findall(r"'(\w+) = banditlearn_ros\.", (ROOT / 'setup.py').read_text())
    assert 'learner_node' in scripts
    for script in scripts:
        assert (prefix / 'lib' / 'banditlearn_ros' / script).is_file(), script
    share = prefix / 'share' / 'banditlearn_ros'
    assert (share / 'package.xml').is_file()
    assert (prefix / 'share' / 'ament_index' / 'resource_index' / 'packages'
            / 'banditlearn_ros').is_file()
    for folder in ('launch', 'config'):
        sources = sorted(str(p.relative_to(ROOT / folder)) for p in (ROOT / folder).rglob('*')
                         if p.is_file() and p.suffix in ('.py', '.yaml', '.xml'))
        installed = sorted(str(p.relative_to(share / folder))
                           for p in (share / folder).rglob('*') if p.is_file())
        assert sources and installed == sources, folder
    site = list(prefix.glob('lib/python3*/site-packages'))
    assert site, 'no site-packages in the install space'
    check = subprocess.run(
        [sys.executable, '-c', 'import banditlearn_ros.learning as m; print(m.__file__)'],
        cwd=tmp_path, capture_output=True, text=True, env={'PYTHONPATH': str(site[0])})
    assert check.returncode == 0, check.stderr
    assert str(prefix) in check.stdout
