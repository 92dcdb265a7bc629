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
Two hosts on one machine: two network namespaces joined by a veth pair, and what runs in them.

As a module: ``TwoHosts`` makes the namespaces, starts processes in them and removes everything
again.  As a script (run inside a namespace):

- ``two_hosts.py probe`` prints every /diagnostics status, prediction and answer as one
  JSON line, and sets float parameters of nodes on its host when told on stdin;
- ``two_hosts.py learner AUDIT --ros-args ...`` runs the real ``LearnerNode`` and appends one
  JSON line to AUDIT for every yes/no it applies (the features and the label it was applied
  to), so a test can check that no answer was applied to the wrong prediction.
"""

import atexit
import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Dict, List, Optional

HOSTS = ('robot', 'workstation')


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(['ip', *args], capture_output=True, text=True, timeout=30,
                          check=check)


class TwoHosts:
    """
    Two namespaces ``robot`` and ``workstation`` with one veth link in a private /24.

    Names carry this process's id, so parallel runs never meet; ``close`` (also registered
    with ``atexit``) ends the processes started here, by their id, and deletes the namespaces.
    """

    def __init__(self, tag: str = ''):
        pid = os.getpid()
        tag = tag or str(pid)
        self.netns = {host: f'bl{host[0]}{tag}' for host in HOSTS}
        self.dev = {host: f'bl{host[0]}{tag}v' for host in HOSTS}
        net = 10 + pid % 200
        self.address = {'robot': f'10.231.{net}.1', 'workstation': f'10.231.{net}.2'}
        self.processes: List[subprocess.Popen] = []
        self._made: List[str] = []
        self._veth_outside = False
        atexit.register(self.close)

    def create(self) -> None:
        """Make both namespaces and the link; raise CalledProcessError if the kernel refuses."""
        for host in HOSTS:
            _ip('netns', 'add', self.netns[host])
            self._made.append(self.netns[host])
        _ip('link', 'add', self.dev['robot'], 'type', 'veth', 'peer', 'name',
            self.dev['workstation'])
        self._veth_outside = True
        for host in HOSTS:
            ns, dev = self.netns[host], self.dev[host]
            _ip('link', 'set', dev, 'netns', ns)
            self._veth_outside = False  # a veth pair goes with its first end's namespace
            _ip('-n', ns, 'addr', 'add', self.address[host] + '/24', 'dev', dev)
            _ip('-n', ns, 'link', 'set', 'lo', 'up')
            _ip('-n', ns, 'link', 'set', dev, 'up')

    def set_link(self, up: bool) -> None:
        """Take the link down or bring it up (on the robot's end, as a Wi-Fi drop-out)."""
        _ip('-n', self.netns['robot'], 'link', 'set', self.dev['robot'],
            'up' if up else 'down')

    def start(self, host: str, argv: List[str], env: Dict[str, str],
              **popen) -> subprocess.Popen:
        """Start ``argv`` in ``host``'s namespace (``ip netns exec`` execs it: same pid)."""
        proc = subprocess.Popen(['ip', 'netns', 'exec', self.netns[host], *argv], env=env,
                                **popen)
        self.processes.append(proc)
        return proc

    def close(self) -> None:
        """End every process started here (SIGINT, then SIGKILL) and delete the namespaces."""
        for proc in self.processes:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 10.0
        for proc in self.processes:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5.0)
        self.processes = []
        if self._veth_outside:  # made, but moving it failed: it is still in this namespace
            _ip('link', 'del', self.dev['robot'], check=False)
            self._veth_outside = False
        while self._made:
            _ip('netns', 'del', self._made.pop(), check=False)


class Probe:
    """A probe process: the newest /diagnostics of every node, events counted, commands sent."""

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.latest: Dict[str, Dict[str, str]] = {}
        self.events: Dict[str, int] = {}
        self.last: Dict[str, float] = {}
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            with self._lock:
                if 'event' in record:
                    key = record['event'] + ('' if record.get('ok', True) else '_failed')
                    self.events[key] = self.events.get(key, 0) + 1
                    self.last[key] = record.get('t', 0.0)
                else:
                    self.latest[record['name']] = record['values']

    def count(self, event: str) -> int:
        """Return how many ``event`` lines ('prediction', 'answer', 'set', ...) came so far."""
        with self._lock:
            return self.events.get(event, 0)

    def when(self, event: str) -> float:
        """Return the monotonic time of the last ``event`` line that carried one."""
        with self._lock:
            return self.last.get(event, 0.0)

    def set_parameter(self, node: str, name: str, value: float, timeout: float = 30.0) -> None:
        """Set a float parameter of a node on the probe's host; raise if it is not set."""
        done = self.count('set') + self.count('set_failed')
        self.proc.stdin.write(f'set {node} {name} {value}\n')
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while self.count('set') + self.count('set_failed') == done:
            if time.monotonic() > deadline:
                raise TimeoutError(f'{node}.{name} not set within {timeout} s')
            time.sleep(0.05)
        if self.count('set_failed'):
            raise RuntimeError(f'{node} refused {name}={value}')

    def get(self, node: str, key: str, default: float = 0.0) -> float:
        """Return the newest value of ``key`` of the status of ``node`` as a number."""
        with self._lock:
            values = self.latest.get('banditlearn_ros: ' + node, {})
        try:
            return float(values[key])
        except (KeyError, ValueError):
            return default

    def forget(self, node: str) -> None:
        """Drop what ``node`` said so far (before a restart)."""
        with self._lock:
            self.latest.pop('banditlearn_ros: ' + node, None)

    def values(self, node: str) -> Dict[str, str]:
        """Return a copy of the newest status of ``node``."""
        with self._lock:
            return dict(self.latest.get('banditlearn_ros: ' + node, {}))


def _probe() -> None:
    """Print /diagnostics and predictions as JSON lines; obey ``set NODE PARAM FLOAT`` on stdin."""
    import queue

    import rclpy
    from diagnostic_msgs.msg import DiagnosticArray
    from rclpy.executors import ExternalShutdownException
    from rclpy.parameter import Parameter
    from rclpy.parameter_client import AsyncParameterClient
    from std_msgs.msg import Bool, String

    def emit(record) -> None:
        print(json.dumps(record), flush=True)

    def show(msg) -> None:
        for status in msg.status:
            emit({'name': status.name,
                  'values': {kv.key: kv.value for kv in status.values}})

    commands: 'queue.Queue[str]' = queue.Queue()

    def read_commands() -> None:
        for line in sys.stdin:
            commands.put(line)

    rclpy.init()
    node = rclpy.create_node(f'two_hosts_probe_{os.getpid()}')
    node.create_subscription(DiagnosticArray, '/diagnostics', show, 50)
    node.create_subscription(String, 'gesture_prediction',
                             lambda msg: emit({'event': 'prediction'}), 50)
    node.create_subscription(Bool, 'gesture_feedback',
                             lambda msg: emit({'event': 'answer', 't': time.monotonic()}), 50)
    threading.Thread(target=read_commands, daemon=True).start()
    try:
        while rclpy.ok():
            rclpy.spin_once(node, timeout_sec=0.01)
            try:
                _, target, name, value = commands.get_nowait().split()
            except queue.Empty:
                continue
            client = AsyncParameterClient(node, target)
            client.wait_for_services(timeout_sec=10.0)
            future = client.set_parameters([Parameter(name, value=float(value))])
            rclpy.spin_until_future_complete(node, future, timeout_sec=10.0)
            ok = future.done() and all(r.successful for r in future.result().results)
            emit({'event': 'set', 'ok': ok})
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()


def _sizes(topics: List[str]) -> None:
    """Print ``{"topic", "bytes"}`` for every message of ``topics`` (serialized, as sent)."""
    import rclpy
    from rclpy.executors import ExternalShutdownException
    from std_msgs.msg import Bool, Float32MultiArray, String

    types = {'gesture_features': Float32MultiArray, 'gesture_feedback': Bool}

    rclpy.init()
    node = rclpy.create_node(f'two_hosts_sizes_{os.getpid()}')
    for topic in topics:
        node.create_subscription(
            types.get(topic, String), topic,
            lambda raw, topic=topic: print(json.dumps({'topic': topic, 'bytes': len(raw)}),
                                           flush=True), 50, raw=True)
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()


def link_bytes(hosts: TwoHosts) -> Dict[str, int]:
    """Return the robot end's byte and packet counters of the link (both directions)."""
    out = _ip('-n', hosts.netns['robot'], '-s', '-j', 'link', 'show', 'dev',
              hosts.dev['robot']).stdout
    stats = json.loads(out)[0]['stats64']
    return {'bytes': stats['rx']['bytes'] + stats['tx']['bytes'],
            'packets': stats['rx']['packets'] + stats['tx']['packets']}


def _audited_learner(audit_path: str) -> None:
    from banditlearn_ros.learning import HyperparameterError, ModelFileError
    from banditlearn_ros.nodes import common
    from banditlearn_ros.nodes.learner_node import LearnerNode

    audit = open(audit_path, 'a')
    rounds: Dict[tuple, tuple] = {}

    def make() -> LearnerNode:
        node = LearnerNode()
        interaction = node.live.interaction
        predict, feedback = interaction.predict, interaction.feedback

        # The features as they came (the learner keeps them centred), by interaction id.
        shown: Dict[int, list] = {}

        def remember(item) -> None:
            rounds[(item.id, item.question)] = (shown[item.id], item.prediction.label)

        def audited_predict(values, now: Optional[float] = None):
            item, reason = predict(values, now)
            if item is not None:
                shown[item.id] = [float(v) for v in values]
                remember(item)
            return item, reason

        def audited_feedback(correct: bool, now: Optional[float] = None, key=None):
            result = feedback(correct, now, key=key)
            if result.outcome == 'matched':
                x, label = rounds.pop((result.round_id, result.question))
                audit.write(json.dumps({'x': x, 'label': label, 'correct': bool(correct)})
                            + '\n')
                audit.flush()
                if result.next_round is not None:
                    remember(result.next_round)
            return result

        interaction.predict, interaction.feedback = audited_predict, audited_feedback
        return node

    common.run_node(make, name='learner_node',
                    errors=common.START_ERRORS + (ModelFileError, HyperparameterError))


if __name__ == '__main__':
    if sys.argv[1:2] == ['probe']:
        _probe()
    elif sys.argv[1:2] == ['sizes']:
        _sizes(sys.argv[2:])
    elif sys.argv[1:2] == ['learner']:
        _audited_learner(sys.argv[2])
    else:
        sys.exit('usage: two_hosts.py probe | sizes TOPIC... | learner AUDIT [--ros-args ...]')
