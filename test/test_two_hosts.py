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
Robot and workstation on two network namespaces: learning over DDS survives a dropped link.

The robot runs the gesture stream (dataset_node) and the person (teacher_node); the
workstation runs the learner.  DDS discovers across the veth link (discovery range SUBNET,
UDP only, as between two real machines).  The link goes down for 5 s and for 60 s, and the
learner is restarted from its model file; every other process keeps running throughout.
"""

import json
import os
from pathlib import Path
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]

HERE = Path(__file__).resolve().parent
LEARNER = 'learner_node'
CHANCE_MISTAKES = 0.9  # digits: ten labels
LAST_ROUNDS = 300
"""Rounds in the last mistake rate. Past its first 150 rounds this stream's learner (offline,
the same order) is wrong in 8-24 % of any 100 rounds but 11-20 % of any 300: a 100-round
window read the learning as noise one run in five."""
SLACK = 3.0
"""Every wait's bound is this many times what an idle machine needs: 2 cores shared with a
second test suite run several times slower, and a bound is never a target."""


def _skip_reason() -> str:
    if sys.platform != 'linux':
        return 'network namespaces are Linux only'
    if os.geteuid() != 0:
        return 'needs root to make network namespaces (CI runs as root)'
    if shutil.which('ip') is None:
        return 'needs iproute2 (`ip`); scripts/setup.sh installs it'
    return ''


@pytest.fixture
def hosts(tmp_path):
    """Two namespaces joined by a veth pair; everything is removed afterwards."""
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    sys.path.insert(0, str(HERE))
    from two_hosts import TwoHosts
    two = TwoHosts()
    try:
        two.create()
    except subprocess.CalledProcessError as exc:
        two.close()
        pytest.skip(f'the kernel refused a network namespace: {exc.stderr.strip()}')
    try:
        yield two
    finally:
        two.close()
        left = subprocess.run(['ip', 'netns', 'list'], capture_output=True, text=True).stdout
        assert not any(two.netns[h] in left for h in two.netns), 'namespaces left behind'


def _env(tmp_path) -> dict:
    env = dict(os.environ)
    env.update(ROS_AUTOMATIC_DISCOVERY_RANGE='SUBNET',  # not LOCALHOST: across the link
               # Only UDP, as between two machines: Fast DDS would otherwise use shared
               # memory between processes of one machine and bypass the link.
               FASTDDS_BUILTIN_TRANSPORTS='UDPv4',
               ROS_LOG_DIR=str(tmp_path / 'roslog'), PYTHONUNBUFFERED='1')
    env.pop('ROS_STATIC_PEERS', None)
    return env


def _wait(condition, timeout: float, what: str, processes=(), poll: float = 0.2) -> float:
    """Wait until ``condition()``; return the seconds it took (a bound, never a target)."""
    start = time.monotonic()
    timeout *= SLACK
    while not condition():
        for proc in processes:
            assert proc.poll() is None, f'{proc.args[3:6]} ended while waiting for {what}'
        assert time.monotonic() - start < timeout, f'no {what} within {timeout:.0f} s'
        time.sleep(poll)
    return time.monotonic() - start


def _truth_table():
    from banditlearn_ros.learning.offline.datasets import load_dataset
    X, y, names = load_dataset('digits')
    table = {}
    for row, label in zip(X.astype(np.float32), y):
        table.setdefault(row.tobytes(), set()).add(names[int(label)])
    return table


def _start_system(hosts, tmp_path):
    env = _env(tmp_path)
    py = [sys.executable]
    helper = str(HERE / 'two_hosts.py')
    learner_argv = [*py, helper, 'learner', str(tmp_path / 'audit.jsonl'), '--ros-args',
                    '-p', f'model_path:={tmp_path / "model.npz"}', '-p', 'autosave_every:=0',
                    '-p', 'feedback_timeout:=10.0', '-p', 'diagnostics_period:=0.5',
                    '-p', 'labels:=[' + ','.join(f"'{d}'" for d in range(10)) + ']']
    from two_hosts import Probe
    probes = {h: Probe(hosts.start(h, [*py, helper, 'probe'], env, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True))
              for h in ('robot', 'workstation')}
    robot_side = [
        hosts.start('robot', [*py, '-m', 'banditlearn_ros.nodes.dataset_node', '--ros-args',
                              '-p', 'dataset:=digits', '-p', 'passes:=50', '-p', 'rate:=20.0',
                              '-p', 'prediction_wait:=3.0', '-p', 'answer_wait:=3.0',
                              '-p', 'diagnostics_period:=0.5'], env, stdout=subprocess.DEVNULL),
        hosts.start('robot', [*py, '-m', 'banditlearn_ros.nodes.teacher_node', '--ros-args',
                              '-p', f'stats_window:={LAST_ROUNDS}',
                              '-p', 'diagnostics_period:=0.5'], env, stdout=subprocess.DEVNULL)]

    def start_learner():
        return hosts.start('workstation', learner_argv, env, stdout=subprocess.DEVNULL)
    return probes['robot'], probes['workstation'], robot_side, start_learner


def _drop_link_while_an_answer_is_due(hosts, robot, tries: int = 10) -> float:
    """
    Take the link down between a prediction and its answer.

    The teacher answers 1 s late meanwhile; the link goes down as soon as the robot hears a
    prediction.  The answer is lost if the robot heard it only after the link was down (one
    monotonic clock for all namespaces); if not, the link comes back and the next prediction
    is tried.  Returns the monotonic time the link went down.
    """
    robot.set_parameter('teacher_node', 'delay', 1.0, timeout=30 * SLACK)
    for _ in range(tries):
        heard = robot.count('prediction')
        _wait(lambda: robot.count('prediction') > heard, 60, 'a prediction on the robot',
              poll=0.005)
        answered = robot.count('answer')
        hosts.set_link(False)
        down = time.monotonic()
        _wait(lambda: robot.count('answer') > answered, 30, 'the delayed answer')
        if robot.when('answer') > down:
            break
        hosts.set_link(True)
    else:
        raise AssertionError(f'the answer beat the link down {tries} times')
    robot.set_parameter('teacher_node', 'delay', 0.0, timeout=30 * SLACK)
    return down


def test_learning_survives_outages_and_a_learner_restart(hosts, tmp_path):
    robot, station, robot_side, start_learner = _start_system(hosts, tmp_path)
    learner = start_learner()
    others = robot_side + [robot.proc, station.proc]

    def answers():
        return station.get(LEARNER, 'feedback_matched')

    def counts(probe, node):
        return {k: float(v) for k, v in probe.values(node).items()
                if v.replace('.', '', 1).isdigit()}

    # Learning across the link.
    _wait(lambda: robot.get('teacher_node', 'rounds') >= 100, 180,
          '100 answers across the link', others + [learner])
    first_window = robot.get('teacher_node', 'true_mistake_rate_window')
    _wait(lambda: answers() >= 150, 180, '150 answers across the link', others + [learner])
    figures = {}

    # Link drop-outs of 5 s and 60 s while an answer is on its way; nothing is restarted.
    for seconds in (5, 60):
        robot_before, learner_before = counts(robot, 'dataset_node'), counts(station, LEARNER)
        down = _drop_link_while_an_answer_is_due(hosts, robot)
        time.sleep(max(0.0, down + seconds - time.monotonic()))
        hosts.set_link(True)
        resumed = answers()
        figures[f'{seconds} s outage: first answer after (s)'] = round(_wait(
            lambda: answers() > resumed, 90, f'learning after the {seconds} s outage',
            others + [learner]), 1)
        _wait(lambda: answers() >= resumed + 30, 90, f'30 answers after the {seconds} s outage',
              others + [learner])
        robot_after, learner_after = counts(robot, 'dataset_node'), counts(station, LEARNER)
        lost = {k: learner_after[k] - learner_before[k]
                for k in ('feedback_lost', 'features_lost', 'unanswered_superseded',
                          'unanswered_expired', 'feedback_dropped')}
        lost['robot no_prediction'] = (robot_after['no_prediction']
                                       - robot_before['no_prediction'])
        figures[f'{seconds} s outage: counted'] = lost
        # The gestures shown meanwhile got no prediction: the robot counts them.
        assert lost['robot no_prediction'] >= 1
        if seconds < 20:
            # Shorter than the DDS lease: the writers report what they gave up on.
            assert lost['feedback_lost'] >= 1 and lost['features_lost'] >= 1
            # The prediction whose answer was lost was superseded by the next one.
            assert lost['unanswered_superseded'] + lost['unanswered_expired'] >= 1
        else:
            # Longer than feedback_timeout: the open prediction expired.
            assert lost['unanswered_expired'] >= 1

    # The learner restarts on its host from its model file; the robot side carries on.
    updates_before = station.get(LEARNER, 'updates')
    learner.send_signal(signal.SIGINT)
    assert learner.wait(timeout=30 * SLACK) == 0
    assert (tmp_path / 'model.npz').is_file()
    station.forget(LEARNER)
    answered = robot.get('dataset_node', 'answered')
    learner = start_learner()
    figures['learner restart: first answer after (s)'] = round(_wait(
        lambda: robot.get('dataset_node', 'answered') > answered, 120,
        'answers after the learner restart', others + [learner]), 1)
    _wait(lambda: station.values(LEARNER), 30, 'the restarted learner', others + [learner])
    assert station.get(LEARNER, 'updates') >= updates_before  # it loaded its model
    _wait(lambda: answers() >= LAST_ROUNDS, 360, f'{LAST_ROUNDS} answers after the restart',
          others + [learner])
    last_window = robot.get('teacher_node', 'true_mistake_rate_window')
    for proc in others + [learner]:
        assert proc.poll() is None, f'{proc.args[3:6]} ended'
    print('\ntwo hosts:', figures, f'true mistake rate: first 100 rounds {first_window}, '
          f'last {LAST_ROUNDS} {last_window}')

    # It learned, and kept it through the restart: the last rounds (all after the restart) are
    # far better than the first 100 and than chance.
    assert last_window < first_window - 0.2
    assert last_window < CHANCE_MISTAKES - 0.4

    # No yes/no was applied to another prediction than the one it answered: the teacher is
    # noise-free, so every applied answer must be the truth about the features it was
    # applied to.
    truth = _truth_table()
    applied = [json.loads(line)
               for line in (tmp_path / 'audit.jsonl').read_text().splitlines()]
    assert len(applied) >= 300
    wrong = [a for a in applied
             if a['correct'] != (a['label'] in truth[np.asarray(a['x'], np.float32).tobytes()])]
    assert wrong == []
