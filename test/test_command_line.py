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

"""Every command answers a mistyped option with one line that names the option it meant."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize('module, typo, meant', [
    ('banditlearn_ros.bringup.main', '--rouds', '--rounds'),
    ('banditlearn_ros.tools.evaluate', '--permutatons', '--permutations'),
    ('banditlearn_ros.tools.render_dataset', '--featres', '--features'),
])
def test_a_typo_names_the_option_meant(module, typo, meant):
    # --out satisfies the one required option (banditlearn_render) in every command.
    result = subprocess.run([sys.executable, '-m', module, typo, '3', '--out', 'x.npz'],
                            capture_output=True, text=True, timeout=120,
                            stdin=subprocess.DEVNULL)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2
    assert len(lines) == 1 and f'did you mean {meant}?' in lines[0], result.stderr


def test_an_unknown_word_far_from_every_option_is_not_guessed():
    result = subprocess.run([sys.executable, '-m', 'banditlearn_ros.tools.evaluate',
                             '--colour', '3'], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and 'did you mean' not in result.stderr
    assert 'unrecognized arguments: --colour' in result.stderr
