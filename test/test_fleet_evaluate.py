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

"""``banditlearn_evaluate --fleet``: robots that merge come close to one learner on all data."""

import json

from banditlearn_ros.tools import evaluate
import pytest

pytest.importorskip('sklearn')


@pytest.mark.slow
def test_four_merging_robots_on_digits_come_within_two_points_of_one_learner(tmp_path, capsys):
    out = tmp_path / 'fleet'
    assert evaluate.main(['--fleet', '4', '--datasets', 'digits', '--permutations', '3',
                          '--out', str(out), '--no-progress']) == 0
    printed = capsys.readouterr().out
    record = json.loads((out / 'summary.json').read_text())['records'][0]
    single, merged, alone = record['single'][0], record['merged'][0], record['alone'][0]
    assert abs(merged - single) <= 0.02, record
    assert alone > single + 0.05  # alone, each robot sees a quarter of the stream
    assert len(record['alone_each']) == 4 and len(record['merged_each']) == 4
    for r in range(4):
        assert f'| robot {r}: alone / merging |' in printed
    assert 'single learner, whole stream' in (out / 'results.md').read_text()


def test_fleet_options_are_checked_with_one_line(tmp_path, capsys):
    assert evaluate.main(['--fleet', '1', '--out', str(tmp_path)]) == 2
    assert evaluate.main(['--fleet', '2', '--fleet-every', '0', '--out', str(tmp_path)]) == 2
    assert evaluate.main(['--fleet', '2', '--params', 'ucwl:nonsense=1', '--permutations',
                          '1', '--datasets', 'iris', '--out', str(tmp_path)]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 3 and all(e.startswith('banditlearn_evaluate: error:') for e in errors)
