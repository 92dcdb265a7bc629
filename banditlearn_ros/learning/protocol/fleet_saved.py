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
The fleet's evidence as a model file keeps it: what a restart needs not to count it twice.

``persistence`` saves ``fleet_state``'s arrays under ``fleet_`` names beside the learner's and
its values in the header; ``fleet_from_state`` checks and rebuilds them (the taken evidence
is read back through ``Evidence.from_text``, with every check of a message).
"""

import json
import math
from typing import Any, Dict, Tuple

import numpy as np

from .fleet_evidence import FleetEvidence, Merged
from .fleet_message import encode_array, Evidence, EvidenceError, read_centring, read_count
from .labels import check_labels


def fleet_state(fleet: FleetEvidence) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """Return (JSON-able values, arrays) for the model file; ``fleet_from_state`` reads them."""
    names = sorted(fleet.prior)
    arrays: Dict[str, np.ndarray] = {}
    if names:
        arrays['prior_precision'] = np.array([fleet.prior[n][0] for n in names])
        arrays['prior_weighted'] = np.array([fleet.prior[n][1] for n in names])
        arrays['own_precision'] = np.array([fleet.own[n][0] for n in names])
        arrays['own_weighted'] = np.array([fleet.own[n][1] for n in names])
    taken = []
    for i, robot in enumerate(sorted(fleet.taken)):
        ev = fleet.taken[robot]
        arrays[f'taken{i}_precision'] = ev.precision
        arrays[f'taken{i}_weighted'] = ev.weighted
        meta = json.loads(ev.to_text())
        del meta['precision'], meta['weighted']
        m = fleet.merged.get(robot)
        meta['merged_at'] = m.when if m else 0.0
        taken.append(meta)
    own_c = fleet.own_centring
    values = {
        'robot': fleet.robot, 'fleet': fleet.fleet, 'version': fleet.version, 'labels': names,
        'own_answers': [fleet.own_answers[n] for n in names],
        'own_confirmed': [fleet.own_confirmed.get(n) for n in names],
        'own_centring': None if own_c is None else {
            'mode': own_c.mode, 'count': own_c.count, 'mean': encode_array(own_c.mean),
            'spread_count': own_c.spread_count, 'spread': own_c.spread},
        'digests': [fleet.digests.get(n, '') for n in names],
        'centring_digest': fleet.centring_digest, 'taken': taken}
    return values, arrays


def fleet_from_state(values: Dict[str, Any], arrays: Dict[str, np.ndarray],
                     n_features: int) -> FleetEvidence:
    """Rebuild from ``fleet_state``; raise ValueError for values that cannot be used."""
    try:
        obj = FleetEvidence(values['robot'], values['fleet'])
        obj.version = read_count(values['version'], 'version')
        names = list(values['labels'])
        if names:
            check_labels(names)
        k = len(names)
        parts = {}
        for key in ('prior_precision', 'prior_weighted', 'own_precision', 'own_weighted'):
            arr = np.asarray(arrays.get(key, np.zeros((0, n_features))), dtype=np.float64)
            if arr.shape != (k, n_features) or not np.isfinite(arr).all():
                raise ValueError(f'fleet array {key} is not {k} x {n_features} finite')
            parts[key] = arr
        for i, n in enumerate(names):
            obj.prior[n] = (parts['prior_precision'][i], parts['prior_weighted'][i])
            obj.own[n] = (parts['own_precision'][i], parts['own_weighted'][i])
            obj.own_answers[n] = read_count(values['own_answers'][i], 'own answers')
            c = values['own_confirmed'][i]
            obj.own_confirmed[n] = None if c is None else read_count(c, 'own confirmed')
            obj.digests[n] = str(values['digests'][i])
        if values.get('own_centring') is not None:
            obj.own_centring = read_centring(values['own_centring'], n_features)
        obj.centring_digest = str(values.get('centring_digest', ''))
        for i, meta in enumerate(values['taken']):
            meta = dict(meta, precision=encode_array(arrays[f'taken{i}_precision']),
                        weighted=encode_array(arrays[f'taken{i}_weighted']))
            merged_at = float(meta.pop('merged_at', 0.0))
            ev = Evidence.from_text(json.dumps(meta), math.inf)
            obj.taken[ev.robot] = ev
            obj.merged[ev.robot] = Merged(ev.version, merged_at, ev.updates, len(ev.labels))
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f'fleet state: {type(exc).__name__}: {exc}') from None
    except EvidenceError as exc:
        raise ValueError(f'fleet state: {exc}') from None
    return obj
