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
The teaching page: how fast it loads in a phone-sized chromium, what an idle server costs.

Starts two ``page_node`` processes at once: one serving the page (a phone connected and idle
for the whole measurement) and, as the baseline, one left unconfigured (the same rclpy node
and /diagnostics timer, no server). CPU is read from /proc/<pid>/stat (utime + stime) over
``--seconds``; the difference is what the server adds. The load time is chromium's navigation
timing (request to load event) and the time until the page's WebSocket brought the state.

    .venv/bin/python benchmarks/bench_page.py [--seconds 60] [--loads 5]

Needs the system chromium and playwright (scripts/setup.sh). DDS stays on this machine
(``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``, ``ROS_DOMAIN_ID`` 158 unless set).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

BROWSER_ARGS = ['--headless', '--no-sandbox', '--disable-gpu',
                '--disable-background-networking', '--disable-component-update',
                '--disable-sync', '--no-first-run']


def cpu_seconds(pid: int) -> float:
    """Return the user + system CPU seconds of a process so far."""
    with open(f'/proc/{pid}/stat', encoding='ascii') as handle:
        fields = handle.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def start_node(port: int, autostart: bool) -> subprocess.Popen:
    """Start a page_node process on ``port`` (configured and serving, or unconfigured)."""
    return subprocess.Popen(
        [sys.executable, '-m', 'banditlearn_ros.nodes.page_node', '--ros-args',
         '-r', f'__node:=page_bench_{port}', '-p', f'port:={port}',
         '-p', f'autostart:={str(autostart).lower()}'],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for_port(port: int, timeout: float = 60.0) -> None:
    """Wait until something listens on localhost:``port``."""
    import socket
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(('127.0.0.1', port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f'nothing listens on port {port} after {timeout:g} s')


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--seconds', type=float, default=60.0)
    parser.add_argument('--loads', type=int, default=5)
    parser.add_argument('--port', type=int, default=18642)
    options = parser.parse_args()
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ.setdefault('ROS_DOMAIN_ID', '158')
    from playwright.sync_api import sync_playwright
    print(f'load average before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores')
    serving = start_node(options.port, True)
    baseline = start_node(options.port + 1, False)
    try:
        wait_for_port(options.port)
        url = f'http://127.0.0.1:{options.port}/'
        with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
            browser = p.chromium.launch_persistent_context(
                profile, executable_path='/usr/bin/chromium', headless=True,
                args=BROWSER_ARGS, viewport={'width': 390, 'height': 844}, is_mobile=True)
            loads, states = [], []
            for _ in range(options.loads):
                page = browser.new_page()
                begun = time.perf_counter()
                page.goto(url)
                page.wait_for_selector('#link.up')
                states.append(time.perf_counter() - begun)
                loads.append(page.evaluate(
                    'performance.getEntriesByType("navigation")[0].loadEventEnd') / 1000.0)
                page.close()
            page = browser.new_page()  # one phone stays connected, idle
            page.goto(url)
            page.wait_for_selector('#link.up')
            time.sleep(2.0)
            before = {proc.pid: cpu_seconds(proc.pid) for proc in (serving, baseline)}
            begun = time.monotonic()
            time.sleep(options.seconds)
            spent = time.monotonic() - begun
            used = {pid: cpu_seconds(pid) - t for pid, t in before.items()}
            browser.close()
        print(f'page load (navigation to load event), {options.loads} loads: median '
              f'{1000 * statistics.median(loads):.0f} ms, max {1000 * max(loads):.0f} ms')
        print(f'page load until the state arrived on the WebSocket: median '
              f'{1000 * statistics.median(states):.0f} ms, max {1000 * max(states):.0f} ms')
        serve = 100 * used[serving.pid] / spent
        base = 100 * used[baseline.pid] / spent
        print(f'idle CPU over {spent:.0f} s, % of one core: page_node serving one idle page '
              f'{serve:.2f} %, unconfigured page_node (baseline) {base:.2f} %, the server adds '
              f'{serve - base:.2f} %')
        print(f'load average after: {os.getloadavg()[0]:.2f} (1 min)')
    finally:
        for proc in (serving, baseline):
            proc.terminate()
            proc.wait(30)


if __name__ == '__main__':
    main()
