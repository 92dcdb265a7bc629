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
learner_node's memory at 1000 labels x 784 features, with the compiled UCWL steps and without.

Starts learner_node (UCWL, diagonal) three ways in one run: just started (no vector yet),
learning with the numpy code (``BANDITLEARN_COMPILED=0``) and learning with the numba
kernels; each answers ``--rounds`` gestures, then its resident memory is read from /proc
(VmRSS; RssAnon = its own heap and arrays; RssFile = mapped library pages, which the kernel
can drop and read again).  Also printed: the model's arrays and its file.

    nice -n 5 .venv/bin/python benchmarks/bench_footprint.py [--labels 1000] [--features 784]
"""

import argparse
import json
import os
from pathlib import Path
import sys
import tempfile
import time

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_startup import Probe, script  # noqa: E402, I100
import numpy as np  # noqa: E402, I100, I202


def memory(pid: int) -> dict:
    """Return VmRSS, VmHWM, RssAnon and RssFile of ``pid`` in MB."""
    out = {}
    with open(f'/proc/{pid}/status') as handle:
        for line in handle:
            key = line.split(':')[0]
            if key in ('VmRSS', 'VmHWM', 'RssAnon', 'RssFile'):
                out[key] = int(line.split()[1]) / 1024
    return out


def run(probe: Probe, folder: Path, labels, features: int, rounds: int, compiled: str):
    """Start learner_node, answer ``rounds`` gestures; return its memory (None = no vector)."""
    from diagnostic_msgs.msg import DiagnosticArray
    from std_msgs.msg import Bool, Float32MultiArray, String
    params = folder / f'learner_{compiled}.yaml'
    params.write_text('/**:\n  ros__parameters:\n' + ''.join(
        f'    {k}: {json.dumps(v)}\n' for k, v in {
            'labels': labels, 'feature_size': features, 'diagnostics_period': 0.2,
            'max_questions': 1, 'autosave_every': 0}.items()))
    os.environ['BANDITLEARN_COMPILED'] = '1' if compiled in ('yes', 'idle') else '0'
    node = probe.node
    said, diag = [], {}
    node.create_subscription(String, 'gesture_prediction', said.append, 100)
    node.create_subscription(DiagnosticArray, '/diagnostics', lambda m: diag.update(
        {kv.key: kv.value for s in m.status if 'learner' in s.name for kv in s.values}), 50)
    send = node.create_publisher(Float32MultiArray, 'gesture_features', 10)
    answer = node.create_publisher(Bool, 'gesture_feedback', 10)
    _, proc = probe.start('learner_node', ['--params-file', str(params)])

    def spin_until(condition, timeout=120.0):
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError(f'learner_node ({compiled}) did not answer')
            probe.rclpy.spin_once(node, timeout_sec=0.05)
    try:
        spin_until(lambda: send.get_subscription_count() and answer.get_subscription_count())
        if compiled == 'idle':
            spin_until(lambda: diag.get('compiled_steps') == 'True')
            return memory(proc.pid)
        rng = np.random.default_rng(0)
        for i in range(rounds):
            send.publish(Float32MultiArray(data=rng.random(features).astype(float).tolist()))
            spin_until(lambda n=i + 1: len(said) >= n)
            answer.publish(Bool(data=bool(rng.integers(2))))
        spin_until(lambda: diag.get('feedback_received') == str(rounds))
        if compiled == 'yes':
            spin_until(lambda: diag.get('compiled_steps') == 'True')
        return memory(proc.pid)
    finally:
        probe.stop(proc)
        for item in (send, answer):
            node.destroy_publisher(item)
        for sub in list(node.subscriptions)[1:]:
            node.destroy_subscription(sub)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--labels', type=int, default=1000)
    parser.add_argument('--features', type=int, default=784)
    parser.add_argument('--rounds', type=int, default=30)
    args = parser.parse_args()
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    from banditlearn_ros.learning import make_learner, save_model
    labels = [f'g{i}' for i in range(args.labels)]
    learner = make_learner('ucwl', labels, args.features)
    arrays = sum(a.nbytes for a in learner.state_dict()['arrays'].values()) / 2 ** 20
    print(f'load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; '
          f'{args.labels} labels x {args.features} features, {args.rounds} gestures answered; '
          f'{" ".join(script("learner_node"))}')
    with tempfile.TemporaryDirectory() as folder:
        save_model(learner, Path(folder) / 'm.npz')
        size = (Path(folder) / 'm.npz').stat().st_size / 2 ** 20
        print(f'model: arrays {arrays:.1f} MB, file {size:.1f} MB')
        probe = Probe()
        try:
            print('\nlearner_node (MB)                 VmRSS  VmHWM  RssAnon RssFile')
            for how, what in (('idle', 'started, compiled steps loaded, no vector'),
                              ('no', 'learning, numpy code'),
                              ('yes', 'learning, numba kernels')):
                mem = run(probe, Path(folder), labels, args.features, args.rounds, how)
                print(f'{what:34s} {mem["VmRSS"]:5.0f}  {mem["VmHWM"]:5.0f}  '
                      f'{mem["RssAnon"]:6.0f}  {mem["RssFile"]:6.0f}')
        finally:
            probe.close()


if __name__ == '__main__':
    main()
