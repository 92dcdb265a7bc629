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

"""package.xml is well-formed, valid format 3, and agrees with setup.py."""

from pathlib import Path
import re
import shutil
import subprocess

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.linter
@pytest.mark.xmllint
def test_package_xml_is_valid_format_3():
    try:
        from ament_xmllint.main import main
    except ImportError:
        main = None
    if main is not None:
        assert main(argv=[str(ROOT / 'package.xml')]) == 0
    if shutil.which('xmllint'):
        subprocess.run(['xmllint', '--noout', str(ROOT / 'package.xml')], check=True)
    from catkin_pkg.package import parse_package
    package = parse_package(str(ROOT / 'package.xml'))
    package.validate()
    assert package.package_format == 3
    assert package.get_build_type() == 'ament_python'
    setup_text = (ROOT / 'setup.py').read_text()
    assert re.search(r"version='%s'" % re.escape(package.version), setup_text), \
        'setup.py and package.xml disagree on the version'
    names = {d.name for d in package.exec_depends}
    for needed in ('rclpy', 'std_msgs', 'sensor_msgs', 'std_srvs', 'diagnostic_msgs',
                   'python3-numpy', 'python3-scipy', 'python3-opencv',
                   'python3-numba', 'python3-orjson'):  # the fast path for rosdep users
        assert needed in names, f'package.xml lacks exec_depend {needed}'
    tests = {d.name for d in package.test_depends}
    for needed in ('ament_copyright', 'ament_flake8', 'ament_pep257', 'ament_xmllint',
                   'python3-pytest'):
        assert needed in tests, f'package.xml lacks test_depend {needed}'
