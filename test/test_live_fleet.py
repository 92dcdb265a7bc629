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

"""The learner node's fleet rules without DDS: two live learners share rendered gestures."""

from banditlearn_ros.learning import HyperparameterError
from banditlearn_ros.learning.protocol.live_fleet import FLEET_SPECS, LiveFleet
from banditlearn_ros.tools import render_dataset
import numpy as np
import pytest
from test_live_learner import live, Log


@pytest.fixture(scope='module')
def gestures(tmp_path_factory):
    """Render 500 hands as landmark features (the renderer's skeleton); return X, y, names."""
    path = tmp_path_factory.mktemp('fleet') / 'gestures.npz'
    assert render_dataset.main(['--out', str(path), '--n', '500', '--features', 'landmarks',
                                '--landmarks', 'truth', '--width', '320', '--height', '240',
                                '--seed', '3', '--no-progress']) == 0
    data = np.load(path)
    return data['X'].astype(np.float64), data['y'], [str(n) for n in data['labels']]


def robot(names, robot_id, mode='both', model_path='', **given):
    values = {s.name: s.default for s in FLEET_SPECS}
    values.update(fleet=mode, robot_id=robot_id, **given)
    learner, params = live(model_path, labels=list(names), **values)
    return learner, LiveFleet(learner, params.__getitem__, 'host', Log())


def teach(learner, x, truth):
    """One interaction: questions until a yes (or none left), the person always right."""
    item, _, _ = learner.predict(list(x))
    while item is not None:
        result, _ = learner.feedback(item.prediction.label == truth)
        item = result.next_round


def first_guesses(learner, X, y, names, classes):
    model = learner.interaction.learner
    hits = [names[model.predict(model.centring.centre(x))] == names[t]
            for x, t in zip(X, y) if names[t] in classes]
    return float(np.mean(hits))


def test_two_robots_taught_different_halves_each_know_both(gestures):
    X, y, names = gestures
    train, test = slice(0, 350), slice(350, None)
    halves = (names[:4], names[4:])
    runs = {}
    for mode in ('off', 'both'):
        robots = [robot(names, name, mode) for name in 'ab']
        streams = [[(x, names[t]) for x, t in zip(X[train], y[train]) if names[t] in half]
                   for half in halves]
        for t in range(max(map(len, streams))):
            for r, (learner, fleet) in enumerate(robots):
                if t < len(streams[r]):
                    teach(learner, *streams[r][t])
                text = fleet.share_text()
                if text:
                    robots[1 - r][1].take_text(text)
        runs[mode] = [[first_guesses(learner, X[test], y[test], names, half)
                       for half in halves] for learner, _ in robots]
    alone, merged = runs['off'], runs['both']
    assert alone[0][1] < 0.2 and alone[1][0] < 0.2  # alone: nothing of the other half
    for r in range(2):
        assert merged[r][1 - r] >= alone[1 - r][1 - r] - 0.03, runs
        assert merged[r][r] >= alone[r][r] - 0.01, runs


def taught_on_a_schedule(gestures, halves, order, every, meet_after=0):
    """
    Return first guesses per robot and half after teaching two robots on a schedule.

    They are taught in ``order`` (robot indices) and exchange evidence after every
    ``every`` interactions once each has had ``meet_after`` (not before: not met yet), and
    once at the end.
    """
    X, y, names = gestures
    robots = [robot(names, name) for name in 'ab']
    streams = [[(x, names[t]) for x, t in zip(X[:350], y[:350]) if names[t] in half]
               for half in halves]
    taught = [0, 0]
    for step, r in enumerate(order):
        if taught[r] < len(streams[r]):
            teach(robots[r][0], *streams[r][taught[r]])
            taught[r] += 1
        if (step + 1) % every == 0 and min(taught) >= meet_after:
            for s in range(2):
                text = robots[s][1].share_text()
                if text:
                    robots[1 - s][1].take_text(text)
    for s in range(2):
        robots[1 - s][1].take_text(robots[s][1].share_text(force=True))
    return [[first_guesses(learner, X[350:], y[350:], names, half) for half in halves]
            for learner, _ in robots]


def test_robots_that_met_before_most_teaching_keep_their_own_half_on_any_schedule(gestures):
    # The two-host test once lost 3.3 points on one robot's own half: its result hangs on
    # when the robots merged.  Offline, the same rules on several schedules of robots that
    # met before most teaching: each loses at most 1 point on its own half against itself
    # alone and knows the other's half within 3 points.  Met only after most of it, the
    # other half still comes, the own half may not (docs/robot.md: each robot's rows sit
    # in its own centring frame).
    X, y, names = gestures
    halves = (names[:4], names[4:])
    alone = []
    for half in halves:
        learner, _ = robot(names, 'a', 'off')
        for x, t in zip(X[:350], y[:350]):
            if names[t] in half:
                teach(learner, x, names[t])
        alone.append(first_guesses(learner, X[350:], y[350:], names, half))
    n = [sum(names[t] in half for t in y[:350]) for half in halves]
    turns = [r for _ in range(max(n)) for r in (0, 1)]
    schedules = {'turns, exchange every 10': (turns, 10, 0),
                 'a taught all first, then b': ([0] * n[0] + [1] * n[1], 1, 0),
                 'met after 30 each': (turns, 1, 30)}
    for seed in (0, 1):
        order = np.random.default_rng(seed).permutation([0] * n[0] + [1] * n[1])
        schedules[f'random order {seed}, every 5'] = (order, 5, 0)
    for name, (order, every, meet_after) in schedules.items():
        fleet = taught_on_a_schedule(gestures, halves, order, every, meet_after)
        for r in range(2):
            assert fleet[r][r] >= alone[r] - 0.01, (name, fleet, alone)
            assert fleet[r][1 - r] >= fleet[1 - r][1 - r] - 0.03, (name, fleet, alone)
    late = taught_on_a_schedule(gestures, halves, turns, 1, min(n))
    assert all(late[r][1 - r] >= late[1 - r][1 - r] - 0.03 for r in range(2)), late


def faster_a(n, seed, share=0.75):
    """Return an order in which robot a teaches ``share`` of the turns until its half is done."""
    rng, order, taught = np.random.default_rng(seed), [], [0, 0]
    while taught[0] < n[0] or taught[1] < n[1]:
        r = 0 if (rng.random() < share and taught[0] < n[0]) or taught[1] >= n[1] else 1
        order.append(r)
        taught[r] += 1
    return order


def test_a_robot_taught_three_times_slower_keeps_its_own_half(gestures):
    X, y, names = gestures
    halves = (names[:4], names[4:])
    learner, _ = robot(names, 'b', 'off')
    for x, t in zip(X[:350], y[:350]):
        if names[t] in halves[1]:
            teach(learner, x, names[t])
    alone = first_guesses(learner, X[350:], y[350:], names, halves[1])
    n = [sum(names[t] in half for t in y[:350]) for half in halves]
    fleet = taught_on_a_schedule(gestures, halves, faster_a(n, 11), 1)
    assert fleet[1][1] >= alone - 0.01, (fleet, alone)


def test_hostile_evidence_is_refused_counted_and_the_learner_keeps_learning(gestures):
    X, y, names = gestures
    learner, fleet = robot(names, 'b')
    teach(learner, X[0], names[y[0]])
    for text in ('{', '{"schema": "banditlearn_fleet_evidence/1", "robot": "x"}', 42):
        assert fleet.take_text(text)[0] == []
    status = learner.status()
    assert status['fleet_refused_malformed'] == 3 and status['fleet'] == 'both'
    teach(learner, X[1], names[y[1]])
    assert learner.status()['predictions'] == 2


def test_a_restarted_robot_keeps_what_it_merged_and_takes_it_once(gestures, tmp_path):
    X, y, names = gestures
    a, fleet_a = robot(names, 'a')
    for x, t in zip(X[:40], y[:40]):
        teach(a, x, names[t])
    text = fleet_a.share_text()
    path = str(tmp_path / 'b.npz')
    b, fleet_b = robot(names, 'b', model_path=path)
    teach(b, X[40], names[y[40]])
    assert fleet_b.take_text(text)[0] == ['a']
    before = b.interaction.learner.state_dict()['arrays']
    b.close(save=True)
    b, fleet_b = robot(names, 'b', model_path=path)
    assert fleet_b.take_text(text) == ([], '')  # heard again: already in the model
    after = b.interaction.learner.state_dict()['arrays']
    for key in ('mu', 'sigma'):
        assert after[key].tobytes() == before[key].tobytes()
    held = b.interaction.learner.centring  # the fleet's frame is kept, a's 40 and b's 1
    assert held.fixed_after == 50 and held.count == 41
    for x, t in zip(X[42:51], y[42:51]):
        teach(b, x, names[t])
    frame = held.mean.copy()
    teach(b, X[51], names[y[51]])  # past the warm-up: it no longer moves
    assert held.count == 50 and held.mean.tobytes() == frame.tobytes()
    status = b.status()
    assert status['fleet_robots_merged'] == 'a' and status['fleet_ignored_stale'] == 1
    b.reset()  # a fresh model forgets the fleet's evidence too
    teach(b, X[41], names[y[41]])
    assert fleet_b.share_text(force=True)
    assert b.status()['fleet_robots_merged'] == ''


def test_a_fleet_that_cannot_merge_is_refused_at_start():
    with pytest.raises(HyperparameterError, match='diag'):
        robot(['a', 'b'], 'a', covariance='full')
    with pytest.raises(ValueError, match='robot_id'):
        robot(['a', 'b'], 'no spaces')
    with pytest.raises(HyperparameterError, match='fleet'):
        robot(['a', 'b'], 'a', mode='sometimes')
    with pytest.raises(HyperparameterError, match='fleet_frame'):
        robot(['a', 'b'], 'a', fleet_frame='still')


def test_fleet_off_centres_as_a_learner_without_a_fleet_bit_for_bit(gestures):
    # The fleet's frame is the fleet's: off, the mean keeps moving past the warm-up as
    # before, and the learner is the one a node without fleet parameters makes.
    X, y, names = gestures
    off, _ = robot(names, 'a', 'off')
    plain, _ = live(labels=list(names))
    for x, t in zip(X[:120], y[:120]):
        for learner in (off, plain):
            teach(learner, x, names[t])
    states = [learner.interaction.learner.state_dict() for learner in (off, plain)]
    for key in ('mu', 'sigma'):
        assert states[0]['arrays'][key].tobytes() == states[1]['arrays'][key].tobytes()
    assert states[0]['extra']['centring'] == states[1]['extra']['centring']
    assert states[0]['extra']['centring']['count'] == 120
    assert 'fixed_after' not in states[0]['extra']['centring']
