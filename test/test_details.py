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
from banditlearn_ros.learning.details import DETAILS_TOP, prediction_details
from banditlearn_ros.learning.interaction import Interaction
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
