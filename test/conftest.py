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

"""Test-wide settings: DDS stays on this machine, in a domain of this run's own."""

import fcntl
import os
from pathlib import Path
import tempfile

import pytest


def _domain_id() -> int:
    """
    Return a ROS domain (1-200) of this test process's own.

    pytest-xdist workers are children of one controller: they take consecutive domains from a
    block chosen by the controller's pid, so the workers of one run never share a domain.
    """
    worker = os.environ.get('PYTEST_XDIST_WORKER', '')
    if worker.startswith('gw') and worker[2:].isdigit():
        count = max(1, int(os.environ.get('PYTEST_XDIST_WORKER_COUNT', '1')))
        index = int(worker[2:]) % count
        return 1 + (os.getppid() % max(1, 200 // count)) * count + index
    return 1 + os.getpid() % 200


# Every test process gets its own ROS domain so parallel runs never hear each other, and
# discovery never leaves the machine.
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
os.environ['ROS_DOMAIN_ID'] = str(_domain_id())
# ROS logs of test nodes go to a temporary folder, not the user's ~/.ros/log.
os.environ.setdefault('ROS_LOG_DIR', tempfile.mkdtemp(prefix='banditlearn-test-roslog-'))

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / 'shared' / 'data'


@pytest.fixture
def shared_data() -> Path:
    """Return the read-only real data beside the project; skip when a clone has none."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f'real data folder {SHARED_DATA} is absent (it sits beside the project '
                    'only on the development machines)')
    return SHARED_DATA


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Run the tests marked ``serial`` one after another on one pytest-xdist worker."""
    for item in items:
        if item.get_closest_marker('serial'):
            item.add_marker(pytest.mark.xdist_group('serial'))


@pytest.fixture(autouse=True)
def _alone_when_serial(request):
    """
    Run a ``serial`` test alone: the other workers wait while it runs.

    Every test of a pytest-xdist run holds a lock file shared by the run's workers; a
    ``serial`` one holds it exclusively (timing-sensitive tests: a link that drops, a person
    answering what the screen shows).
    """
    worker = os.environ.get('PYTEST_XDIST_WORKER')
    if not worker:
        yield
        return
    path = os.path.join(tempfile.gettempdir(), f'banditlearn-pytest-{os.getppid()}.lock')
    serial = request.node.get_closest_marker('serial') is not None
    with open(path, 'a') as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if serial else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
