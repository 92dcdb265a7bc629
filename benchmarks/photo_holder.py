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
A person holding sign-digit photos up to the camera, as an image source in its own process.

Each photo is shown (``image_raw``, bgr8, stamped with the time it is published) until
camera_node took a presentation from it (a ``gesture_features`` message), as a person holds a
gesture until the robot has taken it, or until ``--max-hold`` seconds (then it counts as not
taken and the next one comes). Between photos the frame is black (the hand is down) for
``--gap`` seconds and until camera_node's /diagnostics say it looked at a frame without a
hand since (``frames_no_hand`` grew), so the next photo is a new presentation however slowly
camera_node works. Prints one JSON line at the end: photos shown, taken, and the seconds each
was held.

    photo_holder.py --photos LIST.json [--fps 15] [--gap 0.5] [--lead 3] [--max-hold 20]

``LIST.json`` is a list of image paths (real_photos.camera_frame makes the frames).
"""

import argparse
import json
import sys
import time

import cv2
import numpy as np

try:
    from real_photos import camera_frame, FRAME
except ImportError:
    from benchmarks.real_photos import camera_frame, FRAME


def main(argv=None) -> int:
    """Show the photos one by one, each until taken; print what happened as JSON."""
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--photos', required=True)
    p.add_argument('--fps', type=float, default=15.0)
    p.add_argument('--gap', type=float, default=0.5)
    p.add_argument('--lead', type=float, default=3.0)
    p.add_argument('--max-hold', type=float, default=20.0)
    args = p.parse_args(argv)
    from banditlearn_ros.support import dds_profile, shutdown
    shutdown.stop_on_first_signal()
    dds_profile.apply()  # the package's 8 MiB segment: a 640x480 frame fits
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    from banditlearn_ros.nodes import qos
    from banditlearn_ros.nodes.bridge import array_to_image
    from diagnostic_msgs.msg import DiagnosticArray
    from sensor_msgs.msg import Image
    from std_msgs.msg import Float32MultiArray

    frames = [camera_frame(cv2.imread(path)) for path in json.loads(open(args.photos).read())]
    black = np.zeros(FRAME + (3,), np.uint8)
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node('photo_holder')
    pub = node.create_publisher(Image, 'image_raw', qos.IMAGES)
    seen = {'taken': 0, 'no_hand': -1}

    def on_features(_msg):
        seen['taken'] += 1

    def on_diagnostics(msg):
        for status in msg.status:
            if status.name.endswith('camera_node'):
                for kv in status.values:
                    if kv.key == 'frames_no_hand':
                        seen['no_hand'] = int(kv.value)

    qos.subscribe_events(node, Float32MultiArray, 'gesture_features', on_features)
    node.create_subscription(DiagnosticArray, '/diagnostics', on_diagnostics, qos.DIAGNOSTICS)
    while pub.get_subscription_count() == 0 and not shutdown.requested():
        rclpy.spin_once(node, timeout_sec=0.1)
    held, period = [], 1.0 / args.fps
    next_at = time.monotonic()

    def show(frame, until) -> bool:
        """Publish ``frame`` at fps until ``until()`` is true; False when asked to stop."""
        nonlocal next_at
        while not until():
            if shutdown.requested():
                return False
            now = time.monotonic()
            if now >= next_at:
                msg = array_to_image(frame, 'bgr8')
                msg.header.stamp = node.get_clock().now().to_msg()
                msg.header.frame_id = 'camera'
                pub.publish(msg)
                next_at = max(next_at + period, now)
            rclpy.spin_once(node, timeout_sec=max(0.0, min(period, next_at - now)))
        return True

    start = time.monotonic()
    going = show(black, lambda: time.monotonic() - start >= args.lead)
    for frame in frames:
        if not going:
            break
        taken, began = seen['taken'], time.monotonic()
        going = show(frame, lambda: seen['taken'] > taken or
                     time.monotonic() - began >= args.max_hold)
        held.append(round(time.monotonic() - began, 3) if seen['taken'] > taken else None)
        down, no_hand = time.monotonic(), seen['no_hand']
        going = going and show(black, lambda: time.monotonic() - down >= args.gap and (
            seen['no_hand'] > no_hand or time.monotonic() - down >= args.max_hold))
    print(json.dumps({'shown': len(held), 'taken': sum(h is not None for h in held),
                      'held': held}), flush=True)
    while not shutdown.requested():  # the session ends us (SIGINT) once it is done
        rclpy.spin_once(node, timeout_sec=0.1)
    node.destroy_node()
    rclpy.shutdown()
    shutdown.ignore_signals()
    return 0


if __name__ == '__main__':
    sys.exit(main())
