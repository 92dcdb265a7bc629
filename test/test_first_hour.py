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

"""What a new user sees first: the bring-up's messages when something cannot work."""

import re
import subprocess
import sys

from banditlearn_ros.systems.options import build_parser
from banditlearn_ros.systems.system_file import find_system, load_system
import pytest

BRINGUP = [sys.executable, '-m', 'banditlearn_ros.bringup.main']


def run(*args, timeout=300):
    return subprocess.run(BRINGUP + list(args), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=timeout)


def test_every_help_gives_the_system_files_defaults():
    text = ' '.join(build_parser().format_help().split())
    found = {name: int(n) for n, name in re.findall(
        r'(\d+) (?:for|with) (?:the )?(rendered session|a camera|teach_sim)', text)}
    assert found == {'rendered session': load_system(find_system('gestures'))['every'],
                     'a camera': load_system(find_system('camera'))['every'],
                     'teach_sim': load_system(find_system('teach_sim'))['every']}, text


@pytest.mark.ros
def test_an_absent_camera_is_one_line(tmp_path):
    result = run('--camera', '/dev/video97', '--out', str(tmp_path), timeout=120)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "banditlearn_bringup: error: FileNotFoundError: video source '/dev/video97': "
        'no camera at /dev/video97'], result.stderr


@pytest.mark.ros
@pytest.mark.slow
def test_a_camera_system_without_images_says_nothing_arrived(tmp_path):
    result = run('--system', 'full', '--duration', '3',
                 '--set', f'learner_node.model_path={tmp_path / "model.npz"}')
    assert result.returncode == 0, result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith('finished: 0 rounds'), last
    assert 'no image arrived on /image_raw' in last, last


@pytest.mark.ros
@pytest.mark.slow
def test_labels_that_cannot_name_the_rendered_gestures_are_warned_about(tmp_path):
    result = run('--labels', 'fist', '--rounds', '2', '--out', str(tmp_path))
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stdout.splitlines() if line.startswith('warning:')]
    assert len(warnings) == 1, result.stdout
    assert warnings[0].startswith('warning: 6 of the 7 gestures shown'), warnings[0]
