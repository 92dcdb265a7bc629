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

"""The learning and vision layers never import rclpy (nor learning OpenCV or MediaPipe)."""

import subprocess
import sys
import textwrap

import pytest

BLOCKER = textwrap.dedent("""
    import importlib.abc, sys
    BLOCKED = set(sys.argv[1].split(','))
    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split('.')[0] in BLOCKED:
                raise ImportError('blocked by the layer test: ' + name)
            return None
    sys.meta_path.insert(0, Block())
    import importlib, pkgutil
    package = importlib.import_module(sys.argv[2])
    for info in pkgutil.walk_packages(package.__path__, sys.argv[2] + '.'):
        importlib.import_module(info.name)
    leaked = sorted(BLOCKED & {m.split('.')[0] for m in sys.modules})
    assert not leaked, leaked
    print('imported', sys.argv[2])
""")


@pytest.mark.parametrize('package, blocked', [
    ('banditlearn_ros.learning', 'rclpy,cv2,mediapipe,sensor_msgs,std_msgs'),
    ('banditlearn_ros.vision', 'rclpy,mediapipe,sensor_msgs,std_msgs'),
    # The teaching page (state, server, thumbnail): what a tap means is decided without ROS.
    ('banditlearn_ros.page', 'rclpy,mediapipe,sensor_msgs,std_msgs'),
])
def test_layer_imports_without(package, blocked):
    result = subprocess.run([sys.executable, '-c', BLOCKER, blocked, package],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert 'imported ' + package in result.stdout
