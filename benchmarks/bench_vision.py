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
Milliseconds per 640x480 frame for each gesture extractor, and the camera node at 30 fps.

Frames are a rendered "video": 20 gestures, each held for 10 frames with a small drift and
fresh sensor noise (so MediaPipe can track as it does on a camera).  Each extractor runs
over all frames once to warm up, then is timed per frame; the median and 90th percentile
are printed, with a colour conversion of the same frame as the baseline measured in the
same run.  Then camera_node itself is fed 30 fps over rclpy on this machine and its
counters say how many frames it processed and how many stale ones it dropped.

    .venv/bin/python benchmarks/bench_vision.py [--frames 200] [--node-seconds 10]
"""

import argparse
import os
import platform
import sys
import threading
import time

from banditlearn_ros.vision.extractors import GestureExtractor
from banditlearn_ros.vision.hand_renderer import HandRenderer
from banditlearn_ros.vision.hand_segmentation import HandSegmenter
from banditlearn_ros.vision.mediapipe_hands import MediaPipeHands
import cv2
import numpy as np


def video(frames: int, seed: int = 0):
    """Return ``frames`` BGR frames: gestures held for 10 frames each, drifting a little."""
    renderer = HandRenderer(seed=seed, noise=0.0)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < frames:
        base = renderer.render(rng=rng).image
        for k in range(10):
            shifted = np.roll(base, (k // 2, k), axis=(0, 1))
            noise = rng.normal(0, 3, shifted.shape)
            out.append(np.clip(shifted + noise, 0, 255).astype(np.uint8))
    return out[:frames]


def time_per_frame(fn, frames):
    """Return per-frame milliseconds of ``fn`` (after one warm-up pass)."""
    for f in frames[:20]:
        fn(f)
    times = []
    for f in frames:
        t = time.perf_counter()
        fn(f)
        times.append((time.perf_counter() - t) * 1000.0)
    return np.array(times)


def node_at_30fps(seconds: float, extractor: str):
    """Feed camera_node 30 fps for ``seconds``; return its counters and latency."""
    import rclpy
    from rclpy.context import Context
    from rclpy.executors import MultiThreadedExecutor
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import Image
    from std_msgs.msg import Float32MultiArray
    from banditlearn_ros.nodes.bridge import array_to_image
    from banditlearn_ros.nodes.camera_node import CameraNode

    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.setdefault('ROS_DOMAIN_ID', str(100 + os.getpid() % 100))
    ctx = Context()
    rclpy.init(context=ctx)
    node = CameraNode(context=ctx, parameter_overrides=[
        Parameter('extractor', value=extractor), Parameter('publish_debug_image', value=False),
        Parameter('stable_frames', value=5)])
    probe = Node('bench_probe', context=ctx)
    pub = probe.create_publisher(Image, 'image_raw', qos_profile_sensor_data)
    got = []
    probe.create_subscription(Float32MultiArray, 'gesture_features', got.append, 100)
    executor = MultiThreadedExecutor(num_threads=2, context=ctx)
    executor.add_node(node)
    executor.add_node(probe)
    spin = threading.Thread(target=executor.spin, daemon=True)
    spin.start()
    frames = [array_to_image(f) for f in video(90, seed=3)]
    deadline = time.monotonic() + 5.0
    while pub.get_subscription_count() < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    start = time.monotonic()
    i = 0
    while time.monotonic() - start < seconds:
        msg = frames[i % len(frames)]
        msg.header.stamp = node.get_clock().now().to_msg()
        pub.publish(msg)
        i += 1
        time.sleep(max(0.0, start + i / 30.0 - time.monotonic()))
    time.sleep(0.5)
    counts = node.counters.snapshot()
    proc_ms = node._proc_ms
    executor.shutdown(timeout_sec=2.0)
    node.close()
    node.destroy_node()
    probe.destroy_node()
    rclpy.shutdown(context=ctx)
    return i, counts, proc_ms, len(got)


def main() -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--frames', type=int, default=200)
    parser.add_argument('--node-seconds', type=float, default=10.0)
    args = parser.parse_args()
    if args.frames < 200:
        print('bench_vision: use at least 200 frames', file=sys.stderr)
        return 2
    frames = video(args.frames)
    print(f'# {len(frames)} frames of {frames[0].shape[1]}x{frames[0].shape[0]}; '
          f'{platform.machine()}, {os.cpu_count()} cores, load average '
          f'{os.getloadavg()[0]:.1f}; Python {platform.python_version()}, '
          f'OpenCV {cv2.__version__}')
    base = time_per_frame(lambda f: cv2.cvtColor(f, cv2.COLOR_BGR2YCrCb), frames)
    print(f'# baseline: BGR->YCrCb conversion {np.median(base):.2f} ms/frame')
    print('| extractor | median ms/frame | p90 | x baseline | frames with features |')
    print('| --- | --- | --- | --- | --- |')
    rows = [
        ('contour (skin colour, no MediaPipe)',
         GestureExtractor('contour', use_mediapipe=False)),
        ('contour (MediaPipe-guided)', GestureExtractor('contour', use_mediapipe=True)),
        ('landmarks (MediaPipe, video mode)', GestureExtractor('landmarks')),
        ('combined', GestureExtractor('combined')),
    ]
    for name, extractor in rows:
        found = []
        times = time_per_frame(lambda f: found.append(extractor.process(f).features is not None),
                               frames)
        rate = np.mean(found[-len(frames):])
        print(f'| {name} | {np.median(times):.1f} | {np.percentile(times, 90):.1f} | '
              f'{np.median(times) / np.median(base):.0f} | {rate:.0%} |', flush=True)
        extractor.close()
    hands = MediaPipeHands(static_image_mode=True)
    times = time_per_frame(lambda f: hands.detect(f), frames)
    print(f'| MediaPipe Hands alone, static-image mode | {np.median(times):.1f} | '
          f'{np.percentile(times, 90):.1f} | {np.median(times) / np.median(base):.0f} | |')
    hands.close()
    seg = HandSegmenter(fallback='grabcut')
    times = time_per_frame(lambda f: seg._by_grabcut(cv2.resize(f, (320, 240))), frames)
    print(f'| GrabCut fallback alone (skin-coloured scenes only) | {np.median(times):.1f} | '
          f'{np.percentile(times, 90):.1f} | {np.median(times) / np.median(base):.0f} | |')
    for extractor in ('contour', 'landmarks'):
        sent, counts, proc_ms, episodes = node_at_30fps(args.node_seconds, extractor)
        print(f'# camera_node, {extractor}, 30 fps for {args.node_seconds:.0f} s: sent {sent}, '
              f'received {counts["frames_received"]}, processed {counts["frames_processed"]}, '
              f'dropped stale {counts["frames_dropped"]}, mean processing {proc_ms:.1f} ms, '
              f'episodes published {episodes}', flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
