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

"""Fleet evidence without DDS: merging is exact, order-free, idempotent, refuses nonsense."""

import json

from banditlearn_ros.learning import load_model, save_model
from banditlearn_ros.learning.algorithms.centring import Centring
from banditlearn_ros.learning.algorithms.ucwl import UCWL
from banditlearn_ros.learning.protocol.fleet_evidence import FleetEvidence
from banditlearn_ros.learning.protocol.fleet_message import (
    encode_array, Evidence, EvidenceError, robot_id_from)
import numpy as np
import pytest

LABELS = ['a', 'b', 'c', 'd']
D = 6
CENTRES = np.random.default_rng(7).normal(0.0, 1.0, (len(LABELS), D)) + 2.0


def examples(classes, n, seed):
    """Return n (x, label) pairs of blobs around the classes' centres."""
    rng = np.random.default_rng(seed)
    ys = rng.choice(classes, n)
    return [(CENTRES[y] + rng.normal(0.0, 0.3, D), y) for y in ys]


def taught(classes, n=120, seed=0, labels=LABELS, centring='running'):
    """Return a UCWL taught with one yes/no per example of ``classes`` (a simulated person)."""
    learner = UCWL(list(labels), D, seed=seed)
    learner.centring = Centring(centring)
    for x, y in examples(classes, n, seed):
        xc = learner.centring.apply(x)
        p = learner.select(xc)
        learner.learn(xc, p.index, labels[p.index] == LABELS[y], p)
    return learner


def bits(learner):
    """Return the learner's learned state as bytes per name (compare bit for bit)."""
    state = learner.state_dict()
    out = {key: np.asarray(arr).tobytes() for key, arr in state['arrays'].items()
           if not key.startswith('fleet_')}
    out['labels'] = json.dumps(state['labels'])
    extra = {k: v for k, v in state['extra'].items() if k != 'fleet'}
    out['extra'] = json.dumps(extra, sort_keys=True)
    return out


def evidence_of(classes, robot, seed, labels=LABELS, version_clock=lambda: 0.0):
    learner = taught(classes, seed=seed, labels=labels)
    fleet = FleetEvidence(robot, 'lab', clock=version_clock)
    return learner, fleet, fleet.share(learner).to_text()


def test_merging_in_either_order_gives_the_same_model_bit_for_bit():
    _, _, from_a = evidence_of([0, 1], 'a', 1)
    _, _, from_b = evidence_of([2, 3], 'b', 2)
    models = []
    for order in ([from_a, from_b], [from_b, from_a]):
        learner = taught([0, 3], seed=3)
        fleet = FleetEvidence('c', 'lab')
        for text in order:  # one at a time: each merged on arrival
            assert fleet.take_text(text) == (True, '')
            assert len(fleet.merge(learner)) == 1
        models.append(bits(learner))
    assert models[0] == models[1]


def test_merging_twice_or_again_changes_nothing_and_own_echo_is_ignored():
    _, _, from_a = evidence_of([0, 1], 'a', 1)
    learner = taught([2, 3], seed=2)
    fleet = FleetEvidence('b', 'lab')
    fleet.take_text(from_a)
    assert fleet.merge(learner) == ['a']
    once = bits(learner)
    assert fleet.take_text(from_a) == (False, '')  # the same version again
    assert fleet.merge(learner) == []
    fleet.share(learner)  # looking at its own evidence (no learning) changes nothing
    fleet.take_text(from_a)
    assert bits(learner) == once
    own = fleet.share(learner)
    assert not fleet.take(own)  # its own evidence, echoed by the topic
    assert fleet.ignored['stale'] == 2 and fleet.ignored['own'] == 1
    assert fleet.merge(learner) == [] and bits(learner) == once


def test_a_newer_version_replaces_the_older_one_never_adds_to_it():
    learner_a = taught([0, 1], seed=1)
    fleet_a = FleetEvidence('a', 'lab', clock=lambda: 0.0)
    v1 = fleet_a.share(learner_a).to_text()
    for x, y in examples([0, 1], 60, 9):
        xc = learner_a.centring.apply(x)
        p = learner_a.select(xc)
        learner_a.learn(xc, p.index, p.index == y, p)
    v2 = fleet_a.share(learner_a).to_text()
    both, latest = taught([2, 3], seed=2), taught([2, 3], seed=2)
    fleet_both, fleet_latest = FleetEvidence('b', 'lab'), FleetEvidence('b', 'lab')
    for text in (v1, v2):
        fleet_both.take_text(text)
        fleet_both.merge(both)
    fleet_latest.take_text(v2)
    fleet_latest.merge(latest)
    assert bits(both) == bits(latest)


def test_merged_model_is_prior_plus_own_plus_other_in_natural_parameters():
    _, _, from_a = evidence_of([0, 1], 'a', 1)
    learner = taught([2, 3], seed=2)
    before = learner.state_dict()
    fleet = FleetEvidence('b', 'lab')
    fleet.take_text(from_a)
    fleet.merge(learner)
    a = Evidence.from_text(from_a)
    after = learner.state_dict()['arrays']
    expected = 1.0 / before['arrays']['sigma'] + a.precision  # prior 1 + own (1/sigma - 1)
    np.testing.assert_allclose(1.0 / after['sigma'], expected, rtol=1e-12)
    expected_mean = (before['arrays']['mu'] / before['arrays']['sigma'] + a.weighted) / expected
    np.testing.assert_allclose(after['mu'], expected_mean, rtol=1e-9, atol=1e-12)


def teach(learner, x, y):
    """One interaction of a simulated person who answers right."""
    xc = learner.centring.apply(x)
    p = learner.select(xc)
    learner.learn(xc, p.index, p.index == y, p)


def test_robots_taught_different_halves_know_both_when_merging_as_they_learn():
    # Each robot is taught half of the gestures; every 5 interactions each shares and the
    # other merges.  Merged only once at the very end, the
    # soft-confidence-weighted steps do not combine as well (the module says why).
    halves = ([0, 1], [2, 3])
    alone = [taught(classes, n=200, seed=r + 1) for r, classes in enumerate(halves)]
    robots = [UCWL(LABELS, D, seed=r + 1) for r in range(2)]
    fleets = [FleetEvidence(name, 'lab') for name in 'ab']
    streams = [examples(classes, 200, r + 1) for r, classes in enumerate(halves)]
    for r, learner in enumerate(robots):
        learner.centring = Centring('running')
    for t in range(200):
        for r in range(2):
            teach(robots[r], *streams[r][t])
            if (t + 1) % 5 == 0:
                fleets[1 - r].take_text(fleets[r].share(robots[r]).to_text())
                fleets[1 - r].merge(robots[1 - r])
    test = examples([0, 1, 2, 3], 400, 11)

    def right(learner, classes):
        return np.mean([learner.predict(learner.centring.centre(x)) == y
                        for x, y in test if y in classes])
    assert right(alone[1], halves[0]) < 0.1  # alone, b never learns what only a was taught
    for r in range(2):
        own, other = halves[r], halves[1 - r]
        assert right(robots[r], other) >= right(alone[1 - r], other) - 0.03
        assert right(robots[r], own) >= right(alone[r], own) - 0.01


def test_centring_is_pooled_by_counts():
    a, _, from_a = evidence_of([0, 1], 'a', 1)
    b = taught([2, 3], seed=2)
    mean_a, mean_b = a.centring.mean.copy(), b.centring.mean.copy()
    fleet = FleetEvidence('b', 'lab')
    fleet.take_text(from_a)
    fleet.merge(b)
    n_a, n_b = a.centring.count, 120
    assert b.centring.count == n_a + n_b
    np.testing.assert_allclose(b.centring.mean, (n_a * mean_a + n_b * mean_b) / (n_a + n_b),
                               rtol=1e-12)


@pytest.mark.parametrize('frame', ['fixed', 'moving'])
def test_the_fleet_frame_stops_once_the_pooled_count_reaches_the_warm_up(frame):
    # Rows learned in one frame keep their scores only if the frame stops moving under them.
    a, b = taught([0, 1], n=20, seed=1), taught([2, 3], n=20, seed=2)
    fa, fb = FleetEvidence('a', 'lab', frame=frame), FleetEvidence('b', 'lab', frame=frame)
    fb.take_text(fa.share(a).to_text())
    assert fb.merge(b) == ['a'] and b.centring.count == 40  # below the warm-up (50)
    for x, _ in examples([2, 3], 30, 3):
        b.centring.apply(x)
    stop = 50 if frame == 'fixed' else None
    assert b.centring.count == (50 if stop else 70) and b.centring.fixed_after == stop
    assert a.centring.fixed_after == stop  # sharing joins the frame too
    fa.take_text(fb.share(b).to_text())
    assert fa.merge(a) == ['b']
    assert a.centring.count == 20 + (30 if stop else 50)  # a's own and b's own
    if stop:  # both robots hold the same frame
        np.testing.assert_allclose(a.centring.mean, b.centring.mean, rtol=1e-12)
    frame_b = b.centring.mean.copy()
    for x, _ in examples([2, 3], 10, 4):
        b.centring.apply(x)
    assert (b.centring.mean.tobytes() == frame_b.tobytes()) == bool(stop)


def test_a_label_only_the_other_robot_has_is_added_by_name():
    _, _, from_a = evidence_of([0, 1], 'a', 1, labels=['a', 'b', 'thumb'])
    learner = taught([2, 3], seed=2, labels=['b', 'c', 'd'])
    fleet = FleetEvidence('b', 'lab')
    fleet.take_text(from_a)
    fleet.merge(learner)
    assert learner.labels == ['b', 'c', 'd', 'a', 'thumb']
    # Configured on the sender, so not on probation here.
    assert learner.on_probation(3) == []


def hostile(text, **change):
    message = json.loads(text)
    message.update(change)
    return json.dumps(message)


def test_malformed_or_hostile_messages_are_refused_counted_and_change_nothing():
    a, _, from_a = evidence_of([0, 1], 'a', 1)
    ev = Evidence.from_text(from_a)
    k = len(ev.labels)
    nan = ev.precision.copy()
    nan[0, 0] = np.nan
    huge = ev.precision.copy()
    huge[1, 2] = 1e300
    negative = ev.precision.copy()
    negative[0, 1] = -5.0
    bad = {
        'malformed': ['not json', json.dumps([1, 2]), hostile(from_a, schema='other/1'),
                      hostile(from_a, robot='../etc'), hostile(from_a, fleet=''),
                      hostile(from_a, version=-1), hostile(from_a, labels=['a', 'a', 'b', 'c']),
                      hostile(from_a, precision='@@@'), hostile(from_a, answers=[True] * k)],
        'wrong_size': [hostile(from_a, labels=['a', 'b']), hostile(from_a, n_features=D + 1),
                       hostile(from_a, precision=encode_array(ev.precision[:, :-1]))],
        'not_finite': [hostile(from_a, precision=encode_array(nan))],
        'precision_out_of_range': [hostile(from_a, precision=encode_array(huge)),
                                   hostile(from_a, precision=encode_array(negative))],
    }
    learner = taught([2, 3], seed=2)
    before = bits(learner)
    fleet = FleetEvidence('b', 'lab')
    for reason, texts in bad.items():
        for text in texts:
            new, why = fleet.take_text(text)
            assert not new and why.startswith(reason), (reason, why)
        assert fleet.refused[reason] == len(texts)
    assert fleet.merge(learner) == [] and bits(learner) == before
    with pytest.raises(EvidenceError):
        Evidence.from_text(hostile(from_a, precision=encode_array(huge)))
    # The right size on the wire but not for this learner: refused at the merge.
    other = taught([0, 1], seed=1)
    other_fleet = FleetEvidence('z', 'lab')
    other_fleet.share(other)
    wide = UCWL(LABELS, D + 2)
    fleet.take(FleetEvidence('w', 'lab').share(wide))
    assert fleet.merge(learner) == [] and fleet.refused['wrong_size'] == 4
    no_centring = taught([0, 1], seed=5, centring='none')
    fleet.take(FleetEvidence('n', 'lab').share(no_centring))
    assert fleet.merge(learner) == [] and fleet.refused['centring_mismatch'] == 1
    assert bits(learner) == before
    status = fleet.status()
    assert status['fleet_refused_malformed'] == len(bad['malformed'])
    # ...and it still merges good evidence afterwards.
    fleet.take_text(from_a)
    assert fleet.merge(learner) == ['a']
    assert fleet.status()['fleet_robots_merged'] == 'a'


def test_another_fleet_is_ignored():
    learner = taught([0, 1], seed=1)
    text = FleetEvidence('a', 'other').share(learner).to_text()
    fleet = FleetEvidence('b', 'lab')
    assert fleet.take_text(text) == (False, '') and fleet.ignored['other_fleet'] == 1


def test_a_restart_keeps_what_was_merged_and_never_counts_it_twice(tmp_path):
    learner_a = taught([0, 1], seed=1)
    fleet_a = FleetEvidence('a', 'lab', clock=lambda: 0.0)
    v1 = fleet_a.share(learner_a).to_text()
    for x, y in examples([0, 1], 60, 9):
        xc = learner_a.centring.apply(x)
        p = learner_a.select(xc)
        learner_a.learn(xc, p.index, p.index == y, p)
    v2 = fleet_a.share(learner_a).to_text()
    kept, restarted = taught([2, 3], seed=2), taught([2, 3], seed=2)
    for learner in (kept, restarted):
        learner.fleet = FleetEvidence('b', 'lab')
        learner.fleet.take_text(v1)
        learner.fleet.merge(learner)
    path = tmp_path / 'model.npz'
    save_model(restarted, path)
    restarted = load_model(path)
    assert bits(restarted) == bits(kept)
    assert restarted.fleet.status()['fleet_robots_merged'] == 'a'
    assert restarted.fleet.take_text(v1) == (False, '')  # heard again after the restart
    assert restarted.fleet.merge(restarted) == [] and bits(restarted) == bits(kept)
    for learner in (kept, restarted):
        learner.fleet.take_text(v2)
        learner.fleet.merge(learner)
    assert bits(restarted) == bits(kept)


def test_full_covariance_is_refused_with_the_reason():
    learner = UCWL(LABELS, D, covariance='full')
    with pytest.raises(ValueError, match='diag'):
        FleetEvidence('a', 'lab').share(learner)


def test_robot_ids_from_hostnames_are_valid():
    assert robot_id_from('robot 1.local') == 'robot-1.local'
    assert robot_id_from('***') == 'robot'
    with pytest.raises(ValueError):
        FleetEvidence('x' * 65, 'lab')
