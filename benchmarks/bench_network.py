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
Bytes on the network per gesture, robot and learner on two hosts (needs root).

Two network namespaces joined by a veth pair stand for the robot (dataset_node playing digits,
teacher_node) and the workstation (learner_node); DDS runs over UDP only, as between two
machines.  Printed: the serialized size of each message of a gesture (read back from local
subscribers, so the measurement adds no traffic to the link), the bytes and packets that
crossed the link per gesture between the 50th and the last gesture (minus the idle
rate), and the idle rate of DDS housekeeping with nothing to say.  No node publishes
/diagnostics during the run, and nothing on the robot subscribes to the prediction details.

    sudo .venv/bin/python benchmarks/bench_network.py [--gestures 300] [--rate 10] \
        [--max-questions N]
"""

import argparse
import json
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'test'))
from two_hosts import link_bytes, TwoHosts  # noqa: E402

HELPER = str(Path(__file__).resolve().parent.parent / 'test' / 'two_hosts.py')


class Sizes:
    """Message sizes and counts printed by a ``two_hosts.py sizes`` process."""

    def __init__(self, proc):
        self.size, self.count = {}, {}
        self._lock = threading.Lock()
        threading.Thread(target=self._read, args=(proc.stdout,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            record = json.loads(line)
            with self._lock:
                self.size[record['topic']] = record['bytes']
                self.count[record['topic']] = self.count.get(record['topic'], 0) + 1

    def n(self, topic):
        with self._lock:
            return self.count.get(topic, 0)


def wait(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            sys.exit(f'bench_network: no {what} within {timeout} s')
        time.sleep(0.05)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--gestures', type=int, default=300)
    parser.add_argument('--rate', type=float, default=10.0, help='gestures per second at most')
    parser.add_argument('--idle', type=float, default=10.0, help='seconds of idle measurement')
    parser.add_argument('--max-questions', type=int, default=0,
                        help="learner_node's max_questions; 0 = its default")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit('bench_network: needs root (network namespaces)')
    quiet = ['-p', 'diagnostics_period:=3600.0']
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='SUBNET',
               FASTDDS_BUILTIN_TRANSPORTS='UDPv4', ROS_DOMAIN_ID=str(1 + os.getpid() % 200),
               ROS_LOG_DIR=tempfile.mkdtemp(prefix='bench-network-'))
    py = sys.executable
    hosts = TwoHosts()
    try:
        hosts.create()
        pipe = {'stdout': subprocess.PIPE, 'text': True}
        robot = Sizes(hosts.start('robot', [py, HELPER, 'sizes', 'gesture_features',
                                            'gesture_label', 'gesture_feedback'], env, **pipe))
        station = Sizes(hosts.start('workstation', [py, HELPER, 'sizes', 'gesture_prediction',
                                                    'gesture_prediction_details'], env, **pipe))
        labels = '[' + ','.join(f"'{d}'" for d in range(10)) + ']'
        questions = ['-p', f'max_questions:={args.max_questions}'] if args.max_questions else []
        hosts.start('workstation', [py, '-m', 'banditlearn_ros.nodes.learner_node',
                                    '--ros-args', '-p', f'labels:={labels}', *questions,
                                    *quiet], env)
        hosts.start('robot', [py, '-m', 'banditlearn_ros.nodes.teacher_node', '--ros-args',
                              *quiet], env)
        dataset = hosts.start('robot', [
            py, '-m', 'banditlearn_ros.nodes.dataset_node', '--ros-args', '-p', 'dataset:=digits',
            '-p', f'max_examples:={args.gestures}', '-p', f'rate:={args.rate}',
            '-p', 'exit_when_done:=true', *quiet], env)
        gestures = lambda: robot.n('gesture_features')  # noqa: E731
        wait(lambda: gestures() >= 50, 300, '50 gestures')
        start, t0 = link_bytes(hosts), time.monotonic()
        n0, a0 = gestures(), robot.n('gesture_feedback')
        wait(lambda: dataset.poll() is not None, 600, 'end of the stream')
        end, t1 = link_bytes(hosts), time.monotonic()
        n1, a1 = gestures(), robot.n('gesture_feedback')
        time.sleep(2.0)
        idle0, i0 = link_bytes(hosts), time.monotonic()
        time.sleep(args.idle)
        idle1, i1 = link_bytes(hosts), time.monotonic()
    finally:
        hosts.close()
    idle = {k: (idle1[k] - idle0[k]) / (i1 - i0) for k in idle0}
    per = {k: (end[k] - start[k] - idle[k] * (t1 - t0)) / max(1, n1 - n0) for k in start}
    print(f'{sys.platform}, Python {sys.version.split()[0]}, Fast DDS over UDPv4 on a veth')
    print('serialized message sizes (bytes, CDR with its 4-byte header):')
    for topic, size in sorted({**robot.size, **station.size}.items()):
        print(f'  {topic:30s} {size:6d}')
    print(f'gestures measured: {n1 - n0} in {t1 - t0:.1f} s, '
          f'{(a1 - a0) / max(1, n1 - n0):.2f} questions answered per gesture '
          f'(max_questions {args.max_questions or "default"})')
    print(f'link per gesture: {per["bytes"]:.0f} bytes in {per["packets"]:.1f} packets '
          '(both directions, IP and UDP headers included, idle rate subtracted)')
    print(f'idle DDS housekeeping: {idle["bytes"]:.0f} bytes/s in {idle["packets"]:.1f} '
          'packets/s')


if __name__ == '__main__':
    main()
