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

"""banditlearn_ctl: a running learner's parameters and services without the ros2 command."""

import json
import os
import signal
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.ros, pytest.mark.slow]


def ctl(*args):
    return subprocess.run([sys.executable, '-m', 'banditlearn_ros.tools.control',
                           '--timeout', '60', *args], capture_output=True, text=True,
                          timeout=180)


@pytest.fixture
def learner(tmp_path):
    model = tmp_path / 'model.npz'
    params = tmp_path / 'learner.yaml'
    params.write_text('learner_node:\n  ros__parameters:\n'
                      f'    model_path: {json.dumps(str(model))}\n'
                      '    labels: ["fist", "one"]\n')
    process = subprocess.Popen(
        [sys.executable, '-m', 'banditlearn_ros.nodes.learner_node', '--ros-args',
         '--params-file', str(params)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True)
    yield model
    if process.poll() is None:
        os.kill(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def test_set_get_and_refusals_in_one_line_each(learner):
    done = ctl('set', 'learner_node', 'k', '1.5')
    assert done.returncode == 0 and done.stdout.strip() == '/learner_node: k = 1.5', done.stderr
    assert ctl('get', 'learner_node', 'k').stdout.strip() == '1.5'
    # The declared type reads the value: a word for a number is named as such.
    wrong = ctl('set', 'learner_node', 'k', 'abc')
    assert wrong.returncode == 1
    assert wrong.stderr.strip() == "banditlearn_ctl: k takes a number, not 'abc'"
    # The node's own refusal, with its reason.
    refused = ctl('set', 'learner_node', 'k', '-1')
    assert refused.returncode == 1 and len(refused.stderr.strip().splitlines()) == 1
    assert refused.stderr.startswith('banditlearn_ctl: k = -1 refused: ')
    assert ctl('get', 'learner_node', 'k').stdout.strip() == '1.5'
    labels = ctl('set', 'learner_node', 'labels', '[fist, one, two]')
    assert labels.returncode == 0, labels.stderr
    assert ctl('get', 'learner_node', 'labels').stdout.strip() == "['fist', 'one', 'two']"
    missing = ctl('get', 'learner_node', 'no_such_parameter')
    assert missing.returncode == 1 and "no parameter 'no_such_parameter'" in missing.stderr


def test_the_learner_services_answer_in_one_line(learner):
    # A learner that has seen no vector has no model to save: its refusal, non-zero.
    refused = ctl('save')
    assert refused.returncode == 1
    assert refused.stderr.strip() == 'banditlearn_ctl: not saved: no model yet (no feature ' \
        'vector seen)'
    reset = ctl('reset')
    assert reset.returncode == 0 and reset.stdout.startswith('model reset'), reset.stderr
    assert not learner.exists()


def test_no_node_is_one_line_and_non_zero():
    result = subprocess.run([sys.executable, '-m', 'banditlearn_ros.tools.control',
                             '--timeout', '1', '--namespace', 'nobody_here', 'save'],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        'banditlearn_ctl: no answer from /nobody_here/learner_node/save_model within 1 s '
        '(is the node running, in this ROS_DOMAIN_ID and namespace?)']
