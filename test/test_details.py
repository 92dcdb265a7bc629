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

"""The details message: every label up to ``top``, past it the best bounds by label index."""

import json

from banditlearn_ros.learning import UCWL
from banditlearn_ros.learning.protocol import details as details_module
from banditlearn_ros.learning.protocol.details import details_json, DETAILS_TOP, prediction_details
from banditlearn_ros.learning.protocol.interaction import Interaction
import numpy as np
import pytest

KEYS = {'id', 'question', 'final', 'label', 'index', 'scores', 'bounds', 'explored', 'greedy',
        'probability', 'rejected', 'stamp'}


def _round(K, d=8, steps=0, seed=0):
    rng = np.random.default_rng(seed)
    interaction = Interaction(lambda n: UCWL(K, n, seed=seed))
    for _ in range(steps):
        interaction.predict(rng.random(d))
        interaction.feedback(bool(rng.random() < 0.3))
    item, _ = interaction.predict(rng.random(d))
    return item


def test_few_labels_carry_every_label_in_label_order():
    item = _round(3, steps=5)
    details = json.loads(json.dumps(prediction_details(item, 12.5)))
    assert set(details) == KEYS
    p = item.prediction
    assert details['scores'] == p.scores.tolist() and details['bounds'] == p.bounds.tolist()
    assert (details['index'], details['greedy'], details['id']) == (p.index, p.greedy, item.id)
    assert details['label'] == p.label and details['stamp'] == 12.5


@pytest.mark.parametrize('K,top', [(1000, DETAILS_TOP), (300, 5), (40, 39)])
def test_many_labels_carry_the_best_bounds_with_their_indices(K, top):
    item = _round(K, steps=3 * K // 2, seed=K)
    p = item.prediction
    details = json.loads(json.dumps(prediction_details(item, 0.0, top=top)))
    assert set(details) == KEYS | {'indices', 'n_labels'} and details['n_labels'] == K
    indices = details['indices']
    assert len(indices) == top and indices == sorted(set(indices))
    assert p.index in indices and p.greedy in indices
    assert details['scores'] == p.scores[indices].tolist()
    assert details['bounds'] == p.bounds[indices].tolist()
    left_out = np.setdiff1d(np.arange(K), indices)
    carried = [j for j in indices if j != p.greedy]  # the greedy label is kept in any case
    assert p.bounds[carried].min() >= p.bounds[left_out].max()


def test_top_zero_carries_every_label():
    item = _round(50, steps=10)
    details = prediction_details(item, 0.0, top=0)
    assert len(details['scores']) == 50 and 'indices' not in details


def _asked_again(K=5, d=8, seed=3):
    """Return a second question (one label rejected), as the node says it after a "no"."""
    rng = np.random.default_rng(seed)
    interaction = Interaction(lambda n: UCWL(K, n, seed=seed), max_questions=0)
    for _ in range(12):
        item, _ = interaction.predict(rng.random(d))
        result = interaction.feedback(bool(rng.random() < 0.3))
        if result.next_round is not None:
            return result.next_round
    raise AssertionError('no second question in 12 interactions')


@pytest.mark.parametrize('orjson', ['installed', 'absent'])
@pytest.mark.parametrize('case', ['few', 'cut', 'all', 'again', 'not_finite'])
def test_details_json_says_what_json_dumps_says(case, orjson, monkeypatch):
    if orjson == 'absent':
        monkeypatch.setattr(details_module, 'orjson', None)
    elif details_module.orjson is None:
        pytest.skip('orjson (the [fast] extra) is not installed')
    top = {'cut': 5, 'all': 0}.get(case, DETAILS_TOP)
    item = _asked_again() if case == 'again' else _round(40 if top != DETAILS_TOP else 6,
                                                         steps=20)
    if case == 'not_finite':
        item.prediction.bounds[1] = np.inf
    text = details_json(item, 7.25, top)
    expected = json.dumps(prediction_details(item, 7.25, top))
    assert json.loads(text) == json.loads(expected)
    counted = json.loads(details_json(item, 7.25, top, (7, 3)))
    assert counted == json.loads(json.dumps(prediction_details(item, 7.25, top, (7, 3))))
    assert counted['inputs'] == {'features': 7, 'feedback': 3}
    assert {k: v for k, v in counted.items() if k != 'inputs'} == json.loads(expected)
    if case == 'again':
        assert json.loads(text)['question'] == 2 and len(json.loads(text)['rejected']) == 1
    if case == 'not_finite':
        assert text == expected  # orjson would write null: json.dumps writes it instead
    # Every float parses back to the float64 it was, bit for bit.
    got, want = json.loads(text), json.loads(expected)
    assert np.array_equal(np.array(got['bounds']).view(np.int64),
                          np.array(want['bounds']).view(np.int64))
