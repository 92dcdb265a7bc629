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
Camera frames from another process: rate and age on arrival at camera_node, per transport.

camera_node runs in a process of its own (its start applies the package's Fast DDS profile,
as every node script does); a separate camera-driver process publishes 640x480 frames at
30 Hz with the sensor-data QoS (best effort), stamped with the wall clock when sent.  Cases:
``raw-profile`` (bgr8 sensor_msgs/Image, the driver started with
FASTDDS_DEFAULT_PROFILES_FILE=config/fastdds_profile.xml as docs/robot.md says),
``raw-none`` (the same driver without it: Fast DDS's 512 KiB segment) and
``compressed-none`` (JPEG sensor_msgs/CompressedImage on image_raw/compressed, driver without
any profile; camera_node with ``image_transport: compressed``).  Printed per case: frames
sent and received, received per second over the stream, the frames lost, and the age of a
frame on arrival (stamp to camera_node's callback; p50 / p99 over the last 5 s of the
stream, from camera_node's /diagnostics).  ``--busy`` runs every case again with one busy
loop per core beside it.

    ROS_DOMAIN_ID=155 .venv/bin/python benchmarks/bench_transport.py [--seconds 10] [--busy]
"""

import argparse
import json
import os
from pathlib import Path
import signal
import subprocess
import sys
import threading
import time

from busy import busy_loops

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / 'config' / 'fastdds_profile.xml'
CASES = ('raw-profile', 'raw-none', 'compressed-none')
DIAG = 'banditlearn_ros: camera_node'
PROFILE_VARIABLES = ('FASTDDS_DEFAULT_PROFILES_FILE', 'FASTRTPS_DEFAULT_PROFILES_FILE')


# -- the camera driver (a process of its own) ---------------------------------------------
def publish(transport: str, seconds: float, rate: float, width: int, height: int) -> None:
    """Publish frames at ``rate`` Hz for ``seconds`` once subscribed; print a JSON summary."""
    import cv2
    import rclpy
    from rclpy.qos import qos_profile_sensor_data
    from banditlearn_ros.support.image_bridge import array_to_compressed, array_to_image
    from banditlearn_ros.vision.hand_renderer import HandRenderer

    rclpy.init()
    node = rclpy.create_node('bench_camera_driver')
    if transport == 'compressed':
        from sensor_msgs.msg import CompressedImage
        pub = node.create_publisher(CompressedImage, 'image_raw/compressed',
                                    qos_profile_sensor_data)
    else:
        from sensor_msgs.msg import Image
        pub = node.create_publisher(Image, 'image_raw', qos_profile_sensor_data)
    deadline = time.monotonic() + 60.0
    while pub.get_subscription_count() < 1:
        if time.monotonic() > deadline:
            sys.exit('bench_transport driver: camera_node never subscribed')
        time.sleep(0.05)
    time.sleep(1.0)  # the reader's side of the match too
    base = cv2.resize(HandRenderer(seed=3).render('three').image, (width, height))
    period, sent, late, size = 1.0 / rate, 0, 0, 0
    start = time.monotonic()
    for i in range(int(seconds * rate)):
        due = start + i * period
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        elif pause < -period:
            late += 1
        frame = base.copy()
        cv2.putText(frame, str(i), (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2)
        msg = array_to_compressed(frame, 'jpeg', 80) if transport == 'compressed' \
            else array_to_image(frame, 'bgr8')
        now = time.time()
        msg.header.stamp.sec, msg.header.stamp.nanosec = int(now), int((now % 1) * 1e9)
        msg.header.frame_id = 'camera'
        pub.publish(msg)
        sent, size = sent + 1, len(msg.data)
    print(json.dumps({'sent': sent, 'seconds': time.monotonic() - start, 'late': late,
                      'bytes': size}), flush=True)
    node.destroy_node()
    rclpy.shutdown()


# -- the measurement ----------------------------------------------------------------------
class Statuses:
    """camera_node's /diagnostics values, as (receipt time, values), heard in this process."""

    def __init__(self):
        import rclpy
        from diagnostic_msgs.msg import DiagnosticArray
        self.context = rclpy.context.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node('bench_transport', context=self.context)
        self.items, self._lock = [], threading.Lock()
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self._on, 50)
        from rclpy.executors import SingleThreadedExecutor
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self):
        while self.context.ok():
            try:
                self.executor.spin_once(timeout_sec=0.1)
            except Exception:  # noqa: B902 - the context ended under spin_once
                break

    def _on(self, msg):
        for status in msg.status:
            if status.name == DIAG:
                with self._lock:
                    self.items.append((time.monotonic(), {kv.key: kv.value
                                                          for kv in status.values}))

    def last(self, after, before=float('inf'), key='frames_received'):
        """Return the newest values heard between ``after`` and ``before`` holding ``key``."""
        with self._lock:
            for when, values in reversed(self.items):
                if after < when < before and key in values:
                    return values
        return None

    def close(self):
        import rclpy
        rclpy.shutdown(context=self.context)
        self._thread.join(2.0)


def child_env(profile: bool):
    """Return the environment of a child: the bench's, with or without the shipped profile."""
    env = {k: v for k, v in os.environ.items() if k not in PROFILE_VARIABLES}
    env.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    env['PYTHONPATH'] = str(ROOT) + os.pathsep + env.get('PYTHONPATH', '')
    if profile:
        env['FASTDDS_DEFAULT_PROFILES_FILE'] = str(PROFILE)
    return env


def stop(proc, timeout=15.0):
    """End a child this bench started: SIGINT (a node saves and leaves), then SIGKILL."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_case(case, args, statuses):
    transport, _, profile = case.partition('-')
    started = time.monotonic()  # statuses from here on are this camera_node's
    camera = subprocess.Popen(
        [sys.executable, '-m', 'banditlearn_ros.nodes.camera_node', '--ros-args',
         '-p', f'image_transport:={transport}', '-p', 'use_mediapipe:=false',
         '-p', 'extractor:=contour', '-p', 'publish_debug_image:=false',
         '-p', 'diagnostics_period:=0.5', '--log-level', 'warn'],
        env=child_env(False), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True)
    driver = None
    try:
        deadline = time.monotonic() + 120.0
        while (statuses.last(started, key='extractor') or {}).get(
                'lifecycle_state') != 'active':
            if camera.poll() is not None or time.monotonic() > deadline:
                sys.exit(f'bench_transport: camera_node did not start: {camera.stderr.read()}')
            time.sleep(0.1)
        before = int(statuses.last(started)['frames_received'])
        load = os.getloadavg()[0]
        driver = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), '--publish', transport,
             '--seconds', str(args.seconds), '--rate', str(args.rate)],
            env=child_env(profile == 'profile'), cwd=ROOT, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        out, err = driver.communicate(timeout=args.seconds + 180.0)
        ended = time.monotonic()
        if driver.returncode != 0:
            sys.exit(f'bench_transport: the driver failed: {err[-1500:]}')
        summary = json.loads(out.strip().splitlines()[-1])
        during = statuses.last(started, before=ended, key='frames_sent_hz')
        time.sleep(1.5)  # the last frames and one more status
        received = int(statuses.last(started)['frames_received']) - before
    finally:
        if driver is not None and driver.poll() is None:
            driver.kill()
            driver.wait()
        stop(camera)
    seconds = summary['seconds']
    return {
        'case': case, 'load': load, 'sent': summary['sent'], 'received': received,
        'hz': received / seconds, 'lost': 1.0 - received / max(1, summary['sent']),
        'p50': float(during.get('frame_age_ms_p50', 'nan')),
        'p99': float(during.get('frame_age_ms_p99', 'nan')),
        'kb': summary['bytes'] / 1e3, 'late': summary['late']}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--seconds', type=float, default=10.0, help='stream length')
    parser.add_argument('--rate', type=float, default=30.0, help='frames per second sent')
    parser.add_argument('--cases', default=','.join(CASES), help=f'of {", ".join(CASES)}')
    parser.add_argument('--busy', action='store_true',
                        help='run the cases again with one busy loop per core beside them')
    parser.add_argument('--publish', choices=['raw', 'compressed'], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.publish:
        publish(args.publish, args.seconds, args.rate, 640, 480)
        return
    cases = [c for c in args.cases.split(',') if c]
    unknown = set(cases) - set(CASES)
    if unknown:
        parser.error(f'unknown cases {sorted(unknown)}')
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    print(f'640x480 at {args.rate:g} Hz for {args.seconds:g} s, best effort; '
          f'{os.cpu_count()} cores; ROS_DOMAIN_ID={os.environ.get("ROS_DOMAIN_ID", "0")}')
    print(f'{"case":<16} {"beside":<7} {"load":>5} {"sent":>5} {"recv":>5} {"recv Hz":>8} '
          f'{"lost":>6} {"age p50":>8} {"age p99":>8} {"frame kB":>9}')
    statuses = Statuses()
    try:
        for beside in (['idle', 'busy'] if args.busy else ['idle']):
            loops = busy_loops() if beside == 'busy' else []
            try:
                for case in cases:
                    r = run_case(case, args, statuses)
                    print(f'{r["case"]:<16} {beside:<7} {r["load"]:>5.1f} {r["sent"]:>5} '
                          f'{r["received"]:>5} {r["hz"]:>8.1f} {100 * r["lost"]:>5.1f}% '
                          f'{r["p50"]:>6.1f}ms {r["p99"]:>6.1f}ms {r["kb"]:>9.1f}',
                          flush=True)
            finally:
                for loop in loops:
                    loop.kill()
                    loop.wait()
    finally:
        statuses.close()


if __name__ == '__main__':
    main()
