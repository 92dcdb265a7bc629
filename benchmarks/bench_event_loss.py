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
Reliable gesture events lost by a subscriber starved of CPU, beside a camera image stream.

A publisher sends events (std_msgs/String, 4 a second) with the package's event QoS
(``nodes/qos.py``: reliable, keep the last ``EVENT_DEPTH``, lifespan ``EVENT_LIFESPAN``) or
the same without lifespan, both processes with the package's Fast DDS profile (its writers'
heartbeat every 0.1 s) or with the same profile at Fast DDS's default heartbeat (3 s), and
320x240 bgr8 images at 60 Hz best effort (what gesture_show_node sends).  A subscriber like
``banditlearn_bag record`` (reliable, depth 1000) runs pinned to core 0 (at ``--nice``)
beside ``--busy`` busy loops pinned there too (this script starts and ends them).  Prints, per
setting, how many events were sent and received, and the load average: a reliable event
lost here is a label or an answer missing from a bag.

    .venv/bin/python benchmarks/bench_event_loss.py [--seconds 60] [--busy 4] [--nice 5]
        [--domain 154]
"""

import argparse
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import time

from busy import busy_loops


def publisher(lifespan: bool, seconds: float) -> None:
    """Send events and images for ``seconds`` once the subscriber matched; print the count."""
    import rclpy
    from rclpy.qos import qos_profile_sensor_data, QoSProfile
    from sensor_msgs.msg import Image
    from std_msgs.msg import String

    from banditlearn_ros.nodes import qos
    rclpy.init()
    node = rclpy.create_node('bench_event_loss_pub')
    profile = qos.EVENTS_OUT if lifespan else QoSProfile(
        history=qos.EVENTS_OUT.history, depth=qos.EVENTS_OUT.depth,
        reliability=qos.EVENTS_OUT.reliability, durability=qos.EVENTS_OUT.durability)
    events = node.create_publisher(String, 'bench_events', profile)
    images = node.create_publisher(Image, 'bench_images', qos_profile_sensor_data)
    image = Image(height=240, width=320, encoding='bgr8', step=960, data=bytes(240 * 960))
    while events.get_subscription_count() == 0:
        rclpy.spin_once(node, timeout_sec=0.1)
    time.sleep(2.0)
    start = time.monotonic()
    sent, next_event = 0, start
    while time.monotonic() - start < seconds:
        if time.monotonic() >= next_event:
            events.publish(String(data=str(sent)))
            sent, next_event = sent + 1, next_event + 0.25
        images.publish(image)
        time.sleep(1 / 60)
    print(sent, flush=True)
    time.sleep(5.0)  # repairs still due go out before the writer goes
    node.destroy_node()
    rclpy.shutdown()


def subscriber() -> None:
    """Take events and images until stdin closes; print the event numbers received."""
    import threading

    import rclpy
    from rclpy.qos import (DurabilityPolicy, HistoryPolicy, qos_profile_sensor_data,
                           QoSProfile, ReliabilityPolicy)
    from sensor_msgs.msg import Image
    from std_msgs.msg import String
    rclpy.init()
    node = rclpy.create_node('bench_event_loss_sub')
    got = set()
    node.create_subscription(String, 'bench_events', lambda m: got.add(int(m.data)),
                             QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1000,
                                        reliability=ReliabilityPolicy.RELIABLE,
                                        durability=DurabilityPolicy.VOLATILE))
    node.create_subscription(Image, 'bench_images', lambda m: None, qos_profile_sensor_data)
    done = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    while not done.is_set():
        rclpy.spin_once(node, timeout_sec=0.05)
    print(' '.join(map(str, sorted(got))), flush=True)
    node.destroy_node()
    rclpy.shutdown()


def main(argv=None) -> int:
    """Run both settings and print the events lost in each."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--seconds', type=float, default=60.0)
    parser.add_argument('--busy', type=int, default=4, help='busy loops on core 0')
    parser.add_argument('--nice', type=int, default=0, help='niceness of the subscriber')
    parser.add_argument('--domain', type=int, default=int(os.environ.get('ROS_DOMAIN_ID', 0)))
    parser.add_argument('--role', choices=('pub', 'pub-no-lifespan', 'sub'),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.role == 'sub':
        subscriber()
        return 0
    if args.role:
        publisher(args.role == 'pub', args.seconds)
        return 0
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               ROS_DOMAIN_ID=str(args.domain))
    me = [sys.executable, os.path.abspath(__file__), '--seconds', str(args.seconds)]
    pin = ['taskset', '-c', '0'] if hasattr(os, 'sched_setaffinity') else []
    slow = pin + ['nice', '-n', str(args.nice)]
    loops = busy_loops(args.busy, prefix=pin)
    print(f'{args.busy} busy loop(s) on core 0 (pids {[p.pid for p in loops]}); '
          f'domain {args.domain}; {args.seconds:g} s per setting')
    shipped = Path(__file__).resolve().parents[1] / 'config' / 'fastdds_profile.xml'
    plain = Path(tempfile.mkdtemp(prefix='bench_event_loss_')) / 'heartbeat_3s.xml'
    text = shipped.read_text()
    end = text.index('</data_writer>') + len('</data_writer>')
    plain.write_text(text[:text.index('<data_writer')] + text[end:])
    try:
        for role, name, profile in (
                ('pub', 'lifespan 1 s, heartbeat 3 s (Fast DDS default)', plain),
                ('pub', 'lifespan 1 s, heartbeat 0.1 s (config/fastdds_profile.xml)', shipped),
                ('pub-no-lifespan', 'no lifespan, heartbeat 3 s', plain)):
            # The profile in both processes, as every node script of the package loads it.
            env['FASTDDS_DEFAULT_PROFILES_FILE'] = str(profile)
            sub = subprocess.Popen(slow + me + ['--role', 'sub'], env=env,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            time.sleep(1.0)
            pub = subprocess.run(me + ['--role', role], env=env, capture_output=True,
                                 text=True, check=True)
            got = [int(v) for v in sub.communicate()[0].split()]
            sent = int(pub.stdout.split()[-1])
            lost = sorted(set(range(sent)) - set(got))
            print(f'{name:58s} sent {sent:4d} received {len(got):4d} lost {len(lost):3d} '
                  f'{lost[:10]} load {os.getloadavg()[0]:.1f}', flush=True)
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
    return 0


if __name__ == '__main__':
    sys.exit(main())
