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
What a stranger's messages and files cost: the nodes' memory under tiny images, a zip bomb.

1. camera_node and feedback_node run as processes; five well-formed mono8 images of one
   row of 10 pixels (the baseline: a first frame loads what a first frame loads), then five
   of one row, step 2^32 - 1 and 10 bytes of data are published on ``image_raw`` (each
   padded to 4 GiB before the size checks).  Reported: each node's peak resident memory (VmHWM)
   at start, after the well-formed and after the attack, measured in the same run.
2. A model file whose one member declares 2 GiB (zeros, ~2 MB compressed) is read:
   seconds and peak traced memory until it is refused.

    ROS_DOMAIN_ID=34 nice -n 5 .venv/bin/python benchmarks/bench_adversarial.py
"""

import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
import zipfile

import numpy as np


def _status(pid: int, key: str) -> int:
    """Return a /proc/<pid>/status value in kB."""
    with open(f'/proc/{pid}/status') as handle:
        for line in handle:
            if line.startswith(key + ':'):
                return int(line.split()[1])
    return -1


def tiny_image_flood() -> None:
    """Print the nodes' peak memory before and after five tiny images of a huge step."""
    import rclpy
    from sensor_msgs.msg import Image
    scripts = os.path.dirname(sys.executable)
    nodes = {name: subprocess.Popen(
        [os.path.join(scripts, name), '--ros-args', '-p', 'use_mediapipe:=false'
         if name == 'camera_node' else 'listen_on_prediction:=false'],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for name in ('camera_node', 'feedback_node')}
    rclpy.init()
    probe = rclpy.create_node('bench_adversarial')
    pub = probe.create_publisher(Image, 'image_raw', 10)
    try:
        deadline = time.monotonic() + 120
        while pub.get_subscription_count() < 2 and time.monotonic() < deadline:
            rclpy.spin_once(probe, timeout_sec=0.1)

        def five(step):
            for _ in range(5):
                pub.publish(Image(height=1, width=10, encoding='mono8', step=step,
                                  data=bytes(range(10))))
                rclpy.spin_once(probe, timeout_sec=0.2)
            time.sleep(10.0)
            return {n: _status(p.pid, 'VmHWM') for n, p in nodes.items()}
        start = {n: _status(p.pid, 'VmHWM') for n, p in nodes.items()}
        before = five(10)  # the baseline: five well-formed images of the same pixels
        after = five(2 ** 32 - 1)
        alive = {n: p.poll() is None for n, p in nodes.items()}
    finally:
        probe.destroy_node()
        rclpy.shutdown()
        for p in nodes.values():
            p.terminate()
            p.wait(timeout=60)
    print('peak resident memory: at start, after five well-formed 10-pixel images, after '
          'five 10-byte images of step 2^32-1')
    for name in nodes:
        print(f'  {name}: {start[name] / 1024:.0f} MB, {before[name] / 1024:.0f} MB, '
              f'{after[name] / 1024:.0f} MB (x{after[name] / before[name]:.2f} of the '
              f'well-formed), still running: {alive[name]}')


def zip_bomb() -> None:
    """Print the time and peak memory of refusing a model file with a 2 GiB member."""
    from banditlearn_ros.learning import ModelFileError
    from banditlearn_ros.learning.storage import persistence
    folder = tempfile.mkdtemp(prefix='bench_adversarial-')
    path = os.path.join(folder, 'bomb.npz')
    header = {'descr': '<f8', 'fortran_order': False, 'shape': (2 ** 28,)}
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as archive:
        with archive.open('mu.npy', 'w', force_zip64=True) as member:
            np.lib.format.write_array_header_1_0(member, header)
            chunk = bytes(2 ** 24)
            for _ in range(2 ** 31 // len(chunk)):
                member.write(chunk)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        persistence.read_model_state(path)
        outcome = 'read (not refused)'
    except ModelFileError as exc:
        outcome = f'refused: {exc.problem}'
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f'model file of {os.path.getsize(path) / 2 ** 20:.1f} MB, one member of 2 GiB: '
          f'{outcome}; {seconds:.3f} s, peak traced memory {peak / 2 ** 20:.2f} MB')
    os.unlink(path)
    os.rmdir(folder)


if __name__ == '__main__':
    zip_bomb()
    tiny_image_flood()
