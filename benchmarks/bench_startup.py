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
How fast each node starts: its import, and its start-to-ready as another node sees it.

For each node, in fresh processes: the import of its module (wall and CPU seconds, and
whether scipy.stats or numba came with it), and the time from starting its script to (a) its
name in the ROS graph and (b) its first /diagnostics message (``diagnostics_period`` 0.1 s),
wall and the CPU seconds its main thread used until then; "diagnostics - visible" (median) is
the node's own share once DDS discovery has made it visible (discovery took 0.4-3.5 s here,
alike for every node).  Baseline in the same run: a process
that imports only numpy and rclpy.node (what any node must load).  The machine's load is
printed: on a shared machine wall times stretch, CPU times much less.

    nice -n 5 .venv/bin/python benchmarks/bench_startup.py [--repeats 5] [--nodes learner_node]
"""

import argparse
import os
from pathlib import Path
import statistics
import subprocess
import sys
import time
import uuid

NODES = ('learner_node', 'camera_node', 'feedback_node', 'teacher_node')
TICK = os.sysconf('SC_CLK_TCK')

IMPORT = ('import time, sys; w = time.perf_counter(); c = time.process_time(); {what}; '
          'print(time.perf_counter() - w, time.process_time() - c, '
          "'scipy.stats' in sys.modules, 'numba' in sys.modules)")


def import_times(what: str, repeats: int):
    """Return (wall, cpu, scipy.stats loaded, numba loaded) medians of importing ``what``."""
    rows = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, '-c', IMPORT.format(what=what)], check=True,
                             capture_output=True, text=True).stdout.split()
        rows.append((float(out[0]), float(out[1]), out[2] == 'True', out[3] == 'True'))
    return (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows),
            rows[0][2], rows[0][3])


def cpu_seconds(pid: int) -> float:
    """
    Return the user + system CPU seconds of process ``pid``'s main thread so far.

    The main thread is the one that starts the node; learner_node's numba thread, which
    starts once the node is up, is not counted.
    """
    with open(f'/proc/{pid}/task/{pid}/stat') as handle:
        fields = handle.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def script(name: str):
    """Return the command that starts node ``name`` (its console script, as ros2 run does)."""
    path = Path(sys.executable).parent / name
    if path.exists():
        return [str(path)]
    return [sys.executable, '-m', f'banditlearn_ros.nodes.{name}']


class Probe:
    """A node of this process that watches the graph and /diagnostics."""

    def __init__(self):
        import rclpy
        from diagnostic_msgs.msg import DiagnosticArray
        rclpy.init()
        self.rclpy = rclpy
        self.node = rclpy.create_node('startup_probe_' + uuid.uuid4().hex[:6])
        self.seen = {}
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diag, 50)

    def _on_diag(self, msg):
        now = time.perf_counter()
        for status in msg.status:
            self.seen.setdefault(status.hardware_id.lstrip('/'), now)

    def start(self, name: str, extra=(), timeout: float = 60.0):
        """Start node ``name``; return (visible s, diagnostics s, CPU s at each) and the proc."""
        fresh = f'{name}_{uuid.uuid4().hex[:6]}'
        self.seen.pop(fresh, None)
        args = script(name) + ['--ros-args', '-r', f'__node:={fresh}',
                               '-p', 'diagnostics_period:=0.1', *extra]
        start = time.perf_counter()
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        visible = cpu_visible = None
        deadline = start + timeout
        while time.perf_counter() < deadline:
            self.rclpy.spin_once(self.node, timeout_sec=0.005)
            if visible is None and fresh in self.node.get_node_names():
                visible, cpu_visible = time.perf_counter() - start, cpu_seconds(proc.pid)
            if fresh in self.seen:
                ready = self.seen[fresh] - start
                return (visible or ready, ready, cpu_visible or cpu_seconds(proc.pid),
                        cpu_seconds(proc.pid)), proc
            if proc.poll() is not None:
                raise RuntimeError(f'{name} ended: {proc.stderr.read().decode()[-500:]}')
        proc.kill()
        raise RuntimeError(f'{name}: no /diagnostics within {timeout} s')

    def stop(self, proc) -> None:
        """End a node started here (SIGINT, as Ctrl-C) and wait for it."""
        proc.send_signal(2)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def close(self) -> None:
        """Destroy the probe."""
        self.node.destroy_node()
        self.rclpy.shutdown()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--repeats', type=int, default=5)
    parser.add_argument('--nodes', nargs='+', default=list(NODES))
    parser.add_argument('--each', action='store_true',
                        help='print every start, not only the medians')
    parser.add_argument('--skip-import', action='store_true',
                        help='only the start to ready, not the import times')
    args = parser.parse_args()
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    print(f'load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; '
          f'median of {args.repeats} fresh processes')
    if not args.skip_import:
        print('\nimport (s)                      wall    cpu   scipy.stats numba')
        base = import_times('import numpy, rclpy.node', args.repeats)
        print(f'{"baseline numpy + rclpy.node":30s} {base[0]:5.2f}  {base[1]:5.2f}')
        for name in args.nodes:
            wall, cpu, stats, numba = import_times(f'import banditlearn_ros.nodes.{name}',
                                                   args.repeats)
            print(f'{name:30s} {wall:5.2f}  {cpu:5.2f}   {str(stats):11s} {numba}')
    probe = Probe()
    print('\nstart to ready (s)      visible  cpu  | first diagnostics  cpu')
    try:
        for name in args.nodes:
            rows = []
            for _ in range(args.repeats):
                row, proc = probe.start(name)
                probe.stop(proc)
                rows.append(row)
                if args.each:
                    print(f'  {name}: visible {row[0]:.2f} s, first diagnostics {row[1]:.2f} s'
                          f' (main-thread CPU {row[3]:.2f} s)', flush=True)
            med = [statistics.median(r[i] for r in rows) for i in range(4)]
            worst = max(r[1] for r in rows)
            after = statistics.median(r[1] - r[0] for r in rows)
            print(f'{name:22s} {med[0]:6.2f} {med[2]:6.2f} | {med[1]:6.2f} {med[3]:6.2f}'
                  f'   (slowest diagnostics {worst:.2f}; diagnostics - visible {after:.2f})')
    finally:
        probe.close()
    print(f'\nload average after: {os.getloadavg()[0]:.2f}')


if __name__ == '__main__':
    main()
