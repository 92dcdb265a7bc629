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
A teaching session recorded on a busy machine: the bag must hold every gesture and answer.

Starts ``--busy`` busy loops (default: one per core; this script starts and ends them),
then ``banditlearn_bag record`` (waited for with ``--ready-file``), then README command 1
(``banditlearn_bringup --rounds N``) in its own process; stops the recorder with Ctrl-C,
counts each topic, runs ``banditlearn_bag info``'s pairing check and replays the bag with
``--rounds N``.  Prints, per run: the load average, the messages per topic, what the
pairing check says, and the live summary's figures against the replay's.

DDS stays on this machine (``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``) in the domain of
``--domain`` (default: ``ROS_DOMAIN_ID``, else 0).

    .venv/bin/python benchmarks/bench_recorder_load.py [--rounds 40] [--runs 1] [--busy N]
        [--domain 153] [--keep FOLDER]
"""

import argparse
import json
import os
from pathlib import Path
import signal
import subprocess
import sys
import tempfile
import time

from busy import busy_loops

BIN = Path(sys.executable).parent


def _tool(name):
    script = BIN / name
    if script.exists():
        return [str(script)]
    module = {'banditlearn_bag': 'banditlearn_ros.tools.bag',
              'banditlearn_bringup': 'banditlearn_ros.bringup.main'}[name]
    return [sys.executable, '-m', module]


def one_run(folder: Path, rounds: int, env) -> dict:
    """Record one session; return the counts, the pairing check and both figures."""
    bag, ready = folder / 'bag', folder / 'bag.ready'
    recorder = subprocess.Popen(_tool('banditlearn_bag') + [
        'record', '-o', str(bag), '--ready-file', str(ready)], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not ready.exists() and recorder.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        session = subprocess.run(_tool('banditlearn_bringup') + [
            '--rounds', str(rounds), '--out', str(folder / 'session'),
            '--discovery-wait', '5'], env=env, capture_output=True, text=True, timeout=900)
        if session.returncode:
            raise SystemExit(f'the session failed: {session.stderr.strip()[-400:]}')
        live = json.loads(session.stdout.strip().splitlines()[-1])
    finally:
        if recorder.poll() is None:
            recorder.send_signal(signal.SIGINT)
        said, err = recorder.communicate(timeout=120)
    if recorder.returncode:
        raise SystemExit(f'the recorder failed: {err.strip()[-400:]}')
    info = subprocess.run(_tool('banditlearn_bag') + ['info', str(bag), '--json'], env=env,
                          capture_output=True, text=True, timeout=300)
    summary = json.loads(info.stdout)
    counts = {t['name']: t['count'] for t in summary['topics']}
    figures = folder / 'figures.json'
    replayed = subprocess.run(_tool('banditlearn_bag') + [
        'replay', str(bag), '--rounds', str(rounds), '-o', str(figures)], env=env,
        capture_output=True, text=True, timeout=600)
    document = json.loads(figures.read_text()) if replayed.returncode == 0 else {}
    return {'counts': counts, 'pairing': summary.get('pairing'),
            'recorder_lost': [line.strip() for line in said.splitlines() if 'lost' in line],
            'live': {k: live.get(k) for k in ('interactions', 'accuracy', 'accuracy_last_50')},
            'replay': {k: document.get('session', {}).get(k)
                       for k in ('interactions', 'accuracy', 'accuracy_last_50')},
            'questions_as_recorded': document.get('figures', {}).get('questions_as_recorded'),
            'recorded_questions': document.get('figures', {}).get('recorded_questions'),
            'replay_error': replayed.stderr.strip()[-300:] if replayed.returncode else ''}


def main(argv=None) -> int:
    """Run the sessions and print the figures of each."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--rounds', type=int, default=40)
    parser.add_argument('--runs', type=int, default=1)
    parser.add_argument('--busy', type=int, default=os.cpu_count() or 1,
                        help='busy loops started for the run (default: one per core)')
    parser.add_argument('--domain', type=int, default=int(os.environ.get('ROS_DOMAIN_ID', 0)))
    parser.add_argument('--keep', default='', metavar='FOLDER',
                        help='keep each run (bag, session, figures) in FOLDER/runN')
    args = parser.parse_args(argv)
    env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               ROS_DOMAIN_ID=str(args.domain))
    loops = busy_loops(args.busy)
    print(f'{args.busy} busy loop(s) started (pids {[p.pid for p in loops]}); domain '
          f'{args.domain}; {args.rounds} rounds per session', flush=True)
    try:
        for run in range(1, args.runs + 1):
            before = os.getloadavg()[0]
            started = time.monotonic()
            if args.keep:
                folder = Path(args.keep) / f'run{run}'
                folder.mkdir(parents=True)
                result = one_run(folder, args.rounds, env)
            else:
                with tempfile.TemporaryDirectory(prefix='bench_recorder_') as folder:
                    result = one_run(Path(folder), args.rounds, env)
            print(f'run {run}: load {before:.1f} -> {os.getloadavg()[0]:.1f}, '
                  f'{time.monotonic() - started:.0f} s', flush=True)
            for topic in ('/gesture_label', '/gesture_features', '/gesture_prediction',
                          '/gesture_prediction_details', '/gesture_feedback',
                          '/gesture_interaction'):
                print(f'  {topic:<30} {result["counts"].get(topic, 0)}')
            pairing = result['pairing']
            print('  pairing check: ' + ('(none in this version of info)' if pairing is None
                                         else '; '.join(pairing) or 'everything pairs up'))
            for line in result['recorder_lost']:
                print(f'  recorder: {line}')
            print(f'  live   {result["live"]}')
            print(f'  replay {result["replay"]}  questions as recorded '
                  f'{result["questions_as_recorded"]} of {result["recorded_questions"]}'
                  + (f'  error: {result["replay_error"]}' if result['replay_error'] else ''),
                  flush=True)
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
    return 0


if __name__ == '__main__':
    sys.exit(main())
