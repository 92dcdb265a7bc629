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

"""banditlearn_render: NPZ data sets that learning.datasets reads; one-line errors."""

import subprocess
import sys

from banditlearn_ros.learning.offline.datasets import load_file
from banditlearn_ros.tools.render_dataset import main
from banditlearn_ros.vision.contour_features import FEATURE_NAMES as CONTOUR
from banditlearn_ros.vision.landmark_features import FEATURE_NAMES as LANDMARKS
import numpy as np
import pytest


@pytest.mark.parametrize('features, dim', [('contour', len(CONTOUR)),
                                           ('combined', len(CONTOUR) + len(LANDMARKS))])
def test_writes_a_dataset_load_file_reads(tmp_path, capsys, features, dim):
    out = tmp_path / f'{features}.npz'
    assert main(['--out', str(out), '--n', '24', '--features', features, '--width', '320',
                 '--height', '240', '--seed', '3']) == 0
    assert 'wrote' in capsys.readouterr().out
    X, y, labels = load_file(str(out))
    # Every gesture by default: the seven the rendered session shows.
    assert X.shape == (24, dim) and labels == ['fist', 'one', 'two', 'three', 'four', 'five',
                                               'thumbs_up']
    with np.load(out) as data:
        assert list(data['feature_names'])[:2] == (['bias', 'hu_1'] if features == 'contour'
                                                   else ['contour.bias', 'contour.hu_1'])
        assert set(data['finger_count']) <= set(range(6))


@pytest.mark.parametrize('args, message', [
    (['--out', 'x.csv'], 'use a .npz'),
    (['--out', 'x.npz', '--n', '0'], '--n must be'),
    (['--out', 'x.npz', '--gestures', 'fist,wave'], '--gestures'),
    (['--out', 'x.npz', '--features', 'landmarks', '--landmarks', 'none'], 'need landmarks'),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    result = subprocess.run([sys.executable, '-m', 'banditlearn_ros.tools.render_dataset']
                            + args + ['--n', '2'] * ('--n' not in args), cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and 'Traceback' not in result.stderr


@pytest.mark.parametrize('terminal', [True, False])
def test_a_progress_bar_only_on_a_terminal(tmp_path, monkeypatch, terminal):
    # A log that stderr is redirected to gets no progress frames ('\r' redraws).
    from banditlearn_ros.tools import render_dataset
    asked = []

    def bar(total, disabled):
        asked.append(disabled)
        return (lambda done: None), (lambda: None)
    monkeypatch.setattr(render_dataset, 'progress_bar', bar)
    monkeypatch.setattr(sys.stderr, 'isatty', lambda: terminal, raising=False)
    assert main(['--out', str(tmp_path / 'g.npz'), '--n', '2', '--width', '160',
                 '--height', '120']) == 0
    assert asked == [not terminal]
