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
What an inactive camera_node + feedback_node cost at 640x480, 30 Hz, and how fast they wake.

Both managed nodes run with config/params.yaml (``autostart`` false), each in a process of
its own as ``ros2 launch`` starts them (``--one-process``: together, as the bring-up); another
publishes 640x480 bgr8 frames at 30 Hz on ``image_raw`` (a real hand photo from
``../shared/data/real/hands`` letterboxed to 640x480; without it a rendered hand, which
MediaPipe does not find, so no vector comes).  This script drives the nodes over their
lifecycle services, as ``ros2 lifecycle set`` does, and reads the node processes' CPU time
(user + system, all threads, /proc, summed) over wall time, in % of one core, for: the
nodes inactive (configured), the nodes active, and a bare rclpy subscriber of the same
images (the baseline: what receiving the frames costs at all).  Then, several
times: deactivate, activate, and the seconds from the activate request to the first
feature vector on ``gesture_features``.  The machine's load average is printed, since
only process CPU time, not wall-clock speed, is comparable on a shared machine.

With ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`` and a ``ROS_DOMAIN_ID`` of its own::

    nice -n 5 .venv/bin/python benchmarks/bench_lifecycle.py [--seconds 20] [--wakes 5]
"""

import argparse
import os
from pathlib import Path
import signal
import subprocess
import sys
import time

ROOT = Path(__file__).resolve().parent.parent
HANDS = ROOT.parent / 'shared' / 'data' / 'real' / 'hands'
TICK = os.sysconf('SC_CLK_TCK')


def cpu_seconds(pid: int) -> float:
    """Return a process's user + system CPU seconds (all its threads)."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def frame():
    """Return the 640x480 bgr8 frame to publish and where it came from."""
    import cv2
    import numpy as np
    photo = HANDS / 'mps_hand_landmarker_test_image.jpg'
    canvas = np.full((480, 640, 3), 90, np.uint8)
    if photo.is_file():
        image = cv2.imread(str(photo))
        source = f'{photo.name} letterboxed'
    else:
        from banditlearn_ros.vision.hand_renderer import HandRenderer
        image = HandRenderer(seed=12, noise=0.0, blur=0.0).render('three').image
        source = f'a rendered hand ({photo} is absent)'
    scale = min(640 / image.shape[1], 480 / image.shape[0])
    image = cv2.resize(image, (int(image.shape[1] * scale), int(image.shape[0] * scale)))
    y, x = (480 - image.shape[0]) // 2, (640 - image.shape[1]) // 2
    canvas[y:y + image.shape[0], x:x + image.shape[1]] = image
    return canvas, source


# -- the child processes -----------------------------------------------------------------
def run_role(role: str) -> None:
    """Run one child: ``publisher``, ``bare``, ``nodes``, ``camera`` or ``feedback``."""
    import rclpy
    from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import Image
    args = ['--ros-args', '--log-level', 'warn']
    if role in ('nodes', 'camera', 'feedback'):
        args += ['--params-file', str(ROOT / 'config' / 'params.yaml'),
                 '-p', 'autostart:=false']
    rclpy.init(args=args)
    signal.signal(signal.SIGTERM, lambda *_: rclpy.try_shutdown())
    executor = SingleThreadedExecutor()
    if role == 'publisher':
        from banditlearn_ros.nodes.bridge import array_to_image
        node = rclpy.create_node('bench_camera')
        pub = node.create_publisher(Image, 'image_raw', qos_profile_sensor_data)
        msg = array_to_image(frame()[0], 'bgr8')
        start = time.monotonic()
        count = [0]

        def tick():
            count[0] += 1
            msg.header.stamp = node.get_clock().now().to_msg()
            pub.publish(msg)
        node.create_timer(1 / 30, tick)
        nodes = [node]
    elif role == 'bare':
        node = rclpy.create_node('bench_bare')
        node.create_subscription(Image, 'image_raw', lambda msg: None, qos_profile_sensor_data)
        nodes = [node]
    else:
        from banditlearn_ros.nodes.camera_node import CameraNode
        from banditlearn_ros.nodes.feedback_node import FeedbackNode
        nodes = [cls() for name, cls in (('camera', CameraNode), ('feedback', FeedbackNode))
                 if role in ('nodes', name)]
    for node in nodes:
        executor.add_node(node)
    try:
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    if role == 'publisher':
        print(f'published {count[0] / (time.monotonic() - start):.1f} Hz', flush=True)


def child(role: str) -> subprocess.Popen:
    """Start this script in a role."""
    return subprocess.Popen([sys.executable, __file__, '--role', role])


def stop(process: subprocess.Popen) -> None:
    """End a child this script started."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# -- the measurement -----------------------------------------------------------------------
class Driver:
    """``ros2 lifecycle set`` for the two nodes, and the feature vectors they publish."""

    def __init__(self):
        import rclpy
        from lifecycle_msgs.srv import ChangeState
        from std_msgs.msg import Float32MultiArray
        rclpy.init()
        self.rclpy = rclpy
        self.node = rclpy.create_node('bench_driver')
        self.clients = {name: self.node.create_client(ChangeState, f'/{name}/change_state')
                        for name in ('camera_node', 'feedback_node')}
        from diagnostic_msgs.msg import DiagnosticArray
        self.features = []
        self.node.create_subscription(Float32MultiArray, 'gesture_features',
                                      lambda msg: self.features.append(time.monotonic()), 10)
        self.loaded = {}
        """Each node's last ``mediapipe_imported`` on /diagnostics (a node that says it)."""
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics, 50)

    def _on_diagnostics(self, msg) -> None:
        for status in msg.status:
            for pair in status.values:
                if pair.key == 'mediapipe_imported':
                    self.loaded[status.hardware_id.lstrip('/')] = pair.value == 'True'

    def wait_loaded(self, timeout: float) -> str:
        """Spin until both nodes say MediaPipe is imported; return what was seen."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if len(self.loaded) == len(self.clients) and all(self.loaded.values()):
                return f'MediaPipe imported in both {time.monotonic() - start:.1f} s after that'
            if not self.loaded and time.monotonic() - start > 5.0:
                break  # nodes that load it when activated (before this change) say nothing
            self.spin_for(0.1)
        return f'MediaPipe not said imported while inactive within {timeout:.0f} s: {self.loaded}'

    def spin_for(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.rclpy.spin_once(self.node, timeout_sec=0.02)

    def set_all(self, transition: int) -> None:
        from lifecycle_msgs.srv import ChangeState
        futures = []
        for name, client in self.clients.items():
            if not client.wait_for_service(timeout_sec=60.0):
                raise SystemExit(f'bench_lifecycle: {name} has no change_state service')
            request = ChangeState.Request()
            request.transition.id = transition
            futures.append((name, client.call_async(request)))
        for name, future in futures:
            self.rclpy.spin_until_future_complete(self.node, future, timeout_sec=60.0)
            if not future.done() or not future.result().success:
                raise SystemExit(f'bench_lifecycle: {name}: transition {transition} failed')


def cpu_percent(pids, seconds: float, driver: Driver) -> float:
    """Return % of one core the processes used together over ``seconds`` of wall time."""
    cpu0, wall0 = sum(cpu_seconds(pid) for pid in pids), time.monotonic()
    driver.spin_for(seconds)
    return 100.0 * (sum(cpu_seconds(pid) for pid in pids) - cpu0) / (time.monotonic() - wall0)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--seconds', type=float, default=20.0, help='each CPU window')
    parser.add_argument('--wakes', type=int, default=5, help='activations timed')
    parser.add_argument('--one-process', action='store_true',
                        help='both nodes in one process, as banditlearn_bringup runs them '
                             '(default: one process each, as ros2 launch does)')
    parser.add_argument('--role', choices=['publisher', 'nodes', 'camera', 'feedback', 'bare'],
                        help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.role:
        run_role(options.role)
        return
    from lifecycle_msgs.msg import Transition
    print(f'frames: 640x480 bgr8 at 30 Hz, {frame()[1]}; load average at start '
          f'{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores', flush=True)
    driver = Driver()
    publisher = child('publisher')
    nodes = [child('nodes')] if options.one_process else [child('camera'), child('feedback')]
    pids = [process.pid for process in nodes]
    print(f'nodes: {"one process" if options.one_process else "one process each"}', flush=True)
    try:
        driver.set_all(Transition.TRANSITION_CONFIGURE)
        driver.spin_for(3.0)
        # A node that loads MediaPipe at configure: measure it asleep, not loading.
        print(f'configured; {driver.wait_loaded(60.0)}', flush=True)
        inactive = cpu_percent(pids, options.seconds, driver)
        print(f'inactive camera_node + feedback_node: {inactive:.2f} % of one core', flush=True)
        wakes, answered = [], []
        for i in range(options.wakes):
            if i:
                driver.set_all(Transition.TRANSITION_DEACTIVATE)
                driver.spin_for(1.0)
            seen = len(driver.features)
            start = time.monotonic()
            driver.set_all(Transition.TRANSITION_ACTIVATE)
            answered.append(time.monotonic() - start)
            while len(driver.features) == seen and time.monotonic() - start < 30:
                driver.spin_for(0.01)
            if len(driver.features) > seen:
                wakes.append(driver.features[seen] - start)
        print('activate answered (both nodes): '
              + ', '.join(f'{w:.2f}' for w in answered) + ' s', flush=True)
        median = sorted(wakes)[len(wakes) // 2] if wakes else float('nan')
        print('first feature vector after the activate request: ' + (
            ', '.join(f'{w:.2f}' for w in wakes) + f' s (median {median:.2f}, max '
            f'{max(wakes):.2f} s; {len(wakes)} of {options.wakes} activations)'
            if wakes else 'none in 30 s'), flush=True)
        driver.spin_for(2.0)
        active = cpu_percent(pids, options.seconds, driver)
        print(f'active camera_node + feedback_node: {active:.2f} % of one core', flush=True)
    finally:
        for process in nodes:
            stop(process)
    bare = child('bare')
    try:
        driver.spin_for(5.0)
        baseline = cpu_percent([bare.pid], options.seconds, driver)
    finally:
        stop(bare)
        stop(publisher)
    print(f'bare subscriber of the same frames: {baseline:.2f} % of one core', flush=True)
    print(f'inactive / active: {inactive / active:.3f}; inactive / bare subscriber: '
          f'{inactive / baseline:.3f}; load average at end {os.getloadavg()[0]:.2f}', flush=True)
    driver.node.destroy_node()
    driver.rclpy.shutdown()


if __name__ == '__main__':
    main()
