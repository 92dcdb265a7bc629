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

"""The tests' ROS domain: a node of another process found there moves the tests away."""

import fcntl
import os
from pathlib import Path
import signal
import subprocess
import sys
import tempfile
import time

import pytest

rclpy = pytest.importorskip('rclpy')

STRANGER = """
import rclpy
from rclpy.node import Node
rclpy.init()
node = Node('learner_node')
print('up', flush=True)
try:
    rclpy.spin(node)
except KeyboardInterrupt:
    pass
"""


@pytest.mark.ros
def test_a_node_of_another_process_in_the_domain_moves_the_tests_to_a_free_one():
    import conftest
    from ros_harness import BOUND, Ros
    domain = os.environ['ROS_DOMAIN_ID']
    assert conftest.move_from_strangers() == ''  # the fixture found none before this test
    # Started by hand, as a person or another tool would: no lock, just this domain's id.
    stranger = subprocess.Popen([sys.executable, '-c', STRANGER], stdout=subprocess.PIPE,
                                text=True, env=dict(os.environ))
    try:
        assert stranger.stdout.readline().strip() == 'up'
        watch = conftest.domain_watch()
        deadline = time.monotonic() + BOUND
        while ('/', 'learner_node') not in watch.others():
            assert time.monotonic() < deadline, watch.others()
            time.sleep(0.05)
        said = conftest.move_from_strangers()
        assert os.environ['ROS_DOMAIN_ID'] != domain
        assert said == (f'ROS domain {domain} holds nodes of another process (/learner_node): '
                        f'this test process moved to domain {os.environ["ROS_DOMAIN_ID"]}')
        assert conftest.domain_watch().others() == []
        # The old domain stays locked: no other test process walks into it.
        lock = Path(tempfile.gettempdir()) / 'banditlearn-test-domains' / f'{domain}.lock'
        with open(lock, 'a') as handle:
            with pytest.raises(OSError):
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        # What the test makes now is in the new domain: the stranger is not in its graph.
        ros = Ros()
        try:
            ros.spin_for(1.0)
            assert 'learner_node' not in ros.probe.get_node_names()
        finally:
            ros.close()
    finally:
        stranger.send_signal(signal.SIGINT)
        try:
            stranger.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            stranger.kill()
            stranger.communicate()
