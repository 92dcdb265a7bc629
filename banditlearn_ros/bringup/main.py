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
banditlearn_bringup: start a system of nodes in one process, without ``ros2 launch``.

A system is a YAML file (``config/<name>.system.yaml``, read by ``system_file``) naming the
nodes, the parameter files (the same ``config/params.yaml`` the launch files read) and
per-node overrides; the options are ``bringup_options``.  All nodes run on one executor
(``bringup.system``); the command prints the online mistake rate as the learner learns and
ends cleanly when the data set is played (or after ``--rounds`` / ``--duration``).
"""

import argparse
# Imported here, before any thread: on Python 3.10 a thread importing it while the main thread
# did once ended the bring-up with KeyError: 'asyncio.streams'.
import asyncio  # noqa: F401
import json
import math
import os
import sys
import time
from typing import List, Optional

from banditlearn_ros.bringup.system import start, System
from banditlearn_ros.console.log_filter import StderrFilter
from banditlearn_ros.console.report import preload_plotting
from banditlearn_ros.support import dds_profile
from banditlearn_ros.support.shutdown import (
    exit_status, hold_signals, ignore_signals, requested, requested_name, stop_on_first_signal,
    Terminated)
from banditlearn_ros.systems.options import apply_options, build_parser
from banditlearn_ros.systems.system_file import (
    BringupError, CAMERA_SYSTEM, DEFAULT_SYSTEM, find_system, list_systems, load_system)

LOG_DIR = '~/.ros/banditlearn_ros'
"""Where a system without --out keeps MediaPipe's and OpenCV's log lines."""

HEAD_SYSTEM = 'head_answers'
"""The system of ``--answers head``: a rendered face answers, the feedback node hears it."""


class Reporter:
    """Progress lines: rounds, true and reported mistake rates, exploration, updates."""

    def __init__(self, system: System, every: int, out=sys.stdout):
        from banditlearn_ros.nodes.camera_node import CameraNode
        from banditlearn_ros.nodes.learner_node import LearnerNode
        from banditlearn_ros.nodes.teacher_node import TeacherNode
        self.system = system
        self.learner = system.find(LearnerNode)
        self.teacher = system.find(TeacherNode)
        self.camera = system.find(CameraNode)
        self.every = every
        self.out = out
        self._next = every if every > 0 else math.inf
        self.lines = 0
        self.start = time.monotonic()

    def rounds(self) -> int:
        """Return the rounds played: predictions answered (or not) by the teacher."""
        from banditlearn_ros.nodes.bag_player import BagPlayerNode
        player = self.system.find(BagPlayerNode)
        if player is not None and self.teacher is None and self.learner is not None:
            # A line once the learner holds the round's answers, not at its question.
            held = self.learner.progress().feedback_received >= player.answers_played
            return player.rounds_done - (0 if held else 1)
        if self.teacher is not None:
            return self.teacher.progress().rounds
        if self.learner is not None:
            return self.learner.progress().predictions
        return 0

    def header(self) -> None:
        """Print the column names."""
        print(f'{"round":>7} {"mistakes":>9} {"window":>7} {"said-wrong":>11} '
              f'{"explored":>9} {"updates":>8}', file=self.out, flush=True)

    def poll(self) -> None:
        """Print a line for every multiple of ``every`` passed since the last call."""
        if self.rounds() >= self._next:
            self.line(self.rounds())
            while self._next <= self.rounds():
                self._next += self.every

    def line(self, rounds: int) -> None:
        """Print one progress line."""
        true_all = true_win = math.nan
        if self.teacher is not None:
            t = self.teacher.progress()
            true_all, true_win = t.true_mistake_rate, t.true_mistake_rate_window
        said = explored = math.nan
        updates = 0
        if self.learner is not None:
            s = self.learner.progress()
            said, explored, updates = s.mistake_rate_window, s.exploration_rate_window, s.updates
            if self.teacher is None:
                true_all, true_win = s.mistake_rate, s.mistake_rate_window
        print(f'{rounds:>7} {_pct(true_all):>9} {_pct(true_win):>7} {_pct(said):>11} '
              f'{_pct(explored):>9} {updates:>8}', file=self.out, flush=True)
        self.lines += 1


def _pct(value: float) -> str:
    return '-' if value != value else f'{100 * value:.1f}%'


def run(options: argparse.Namespace, out=sys.stdout) -> int:
    """Run a system until its stream ends, ``--rounds``/``--duration`` or Ctrl-C."""
    from banditlearn_ros.bringup import session as session_bringup
    from rclpy.executors import ExternalShutdownException
    default = CAMERA_SYSTEM if getattr(options, 'camera', None) else \
        'teach_sim' if options.dataset else DEFAULT_SYSTEM
    if getattr(options, 'answers', None) == 'head':
        if options.system or getattr(options, 'camera', None) or options.dataset:
            raise BringupError('--answers head runs its own system (head_answers); drop '
                               '--system, --camera and --dataset')
        default = HEAD_SYSTEM
    system = load_system(find_system(options.system or default))
    session = session_bringup.is_session(system)
    apply_options(system, options)
    from banditlearn_ros.bags.played_learner import configure_learner
    notes = configure_learner(system)  # a played recording brings its learner's parameters
    if session:
        out_dir = session_bringup.prepare(system, options)
    elif getattr(options, 'out', None):
        out_dir = _stream_out(system, options.out)
    names = ', '.join(e['name'] for e in system['nodes'])
    print(f'banditlearn_bringup: system {system["path"].stem.replace(".system", "")} '
          f'({names})', file=out, flush=True)
    print(f'  parameters: {", ".join(str(p) for p in system["params_files"])}', file=out,
          flush=True)
    for note in notes:
        print(f'  note: {note}', file=out, flush=True)
    if system.get('ros_args'):
        print(f'  ros arguments: {" ".join(system["ros_args"])}', file=out, flush=True)
    stderr = None
    if session:
        session_bringup.keep_third_party_logs(out_dir)
    elif {'camera_node', 'feedback_node'} & {e['name'] for e in system['nodes']}:
        # MediaPipe's and OpenCV's own lines to a file, as in a session, not between the rows.
        folder = out_dir if getattr(options, 'out', None) else os.path.expanduser(LOG_DIR)
        os.makedirs(folder, exist_ok=True)
        stderr = StderrFilter(os.path.join(folder, 'third_party.log')).start()
        print(f'  MediaPipe / OpenCV log lines: {stderr.path}', file=out, flush=True)
    print(f'  {dds_profile.apply().line}', file=out, flush=True)  # before rclpy.init
    running = start(system, log_level=options.log_level)
    from banditlearn_ros.nodes.page_node import PageNode
    page = running.find(PageNode)
    if page is not None:  # the link a person opens on a phone (with its token, if any)
        print(f'  teaching page: {page.url}', file=out, flush=True)
        if getattr(options, 'answers', None) == 'page':
            session_bringup.wait_for_page(page, out)
    # A session's plotting import fills the discovery wait, not the time before its summary.
    plotting = preload_plotting() if session else None
    if options.discovery_wait:
        running.wait_for_peers(least=options.discovery_wait)
    if plotting is not None:
        plotting.join()
    if session:
        return session_bringup.run_session(running, options, out_dir, out)
    reporter = Reporter(running, system['every'], out=out)
    # A stream that ends: a data set played, or a recorded session (nodes/bag_player.py).
    from banditlearn_ros.nodes.bag_player import BagPlayerNode
    from banditlearn_ros.nodes.dataset_node import DatasetNode
    dataset = running.find(DatasetNode) or running.find(BagPlayerNode)
    limit = options.rounds if dataset is None else 0
    deadline = time.monotonic() + options.duration if options.duration else math.inf
    interrupted = ''
    try:
        reporter.header()
        while not requested():
            running.spin_once(0.1)
            for line in stderr.take() if stderr is not None else ():
                stderr.write(line)
            reporter.poll()
            if dataset is not None and dataset.finished:
                break
            if limit and reporter.rounds() >= limit:
                break
            if time.monotonic() >= deadline:
                break
        # Let the last answers reach the learner before the summary.
        for _ in range(0 if requested() else 10):
            running.spin_once(0.02)
        reporter.poll()  # the last round's line, once its answers are in
    except (KeyboardInterrupt, ExternalShutdownException) as exc:
        interrupted = 'SIGTERM' if isinstance(exc, Terminated) else 'Ctrl-C'
    finally:
        hold_signals()  # one way out: the save and the summary, whatever arrives now
        interrupted = requested_name() or interrupted
        summary = _summary(reporter)
        failed = running.close()
        if stderr is not None:
            stderr.stop()
    print((f'interrupted ({interrupted}): ' if interrupted else 'finished: ') + summary,
          file=out, flush=True)
    if getattr(options, 'out', None):
        print(f'summary and model in {_write_stream_summary(reporter, out_dir, interrupted)}',
              file=out, flush=True)
    if failed:
        print(f'banditlearn_bringup: error: {", ".join(failed)} could not save on shutdown '
              '(see the log above)', file=sys.stderr)
        return 1
    return 0


def _stream_out(system, out: str) -> str:
    """Make ``--out`` for a played stream; its learner's model goes there unless set."""
    folder = os.path.abspath(os.path.expanduser(out))
    os.makedirs(folder, exist_ok=True)
    for entry in system['nodes']:
        if entry['name'] == 'learner_node':
            entry['parameters'].setdefault('model_path',
                                           os.path.join(folder, 'gesture_model.npz'))
    return folder


def _write_stream_summary(reporter: Reporter, folder: str, interrupted: str) -> str:
    """Write ``summary.json`` of a played stream into ``folder``; return the folder."""
    record = {'rounds': reporter.rounds(), 'interrupted': bool(interrupted)}
    if reporter.teacher is not None:
        t = reporter.teacher.progress()
        record.update(mistake_rate=t.true_mistake_rate,
                      mistake_rate_last=t.true_mistake_rate_window, window=t.window_rounds)
    if reporter.learner is not None:
        s = reporter.learner.progress()
        record.update(updates=s.updates, feedback_matched=s.feedback_matched,
                      feedback_dropped=s.feedback_dropped, feedback_dropped_by=s.dropped_by,
                      model=os.path.expanduser(reporter.learner.get_parameter('model_path').value))
    record = {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
              for k, v in record.items()}
    with open(os.path.join(folder, 'summary.json'), 'w', encoding='utf-8') as handle:
        handle.write(json.dumps(record) + '\n')
    return folder


def _summary(reporter: Reporter) -> str:
    rounds = reporter.rounds()
    text = f'{rounds} rounds in {time.monotonic() - reporter.start:.1f} s'
    if reporter.teacher is not None:
        t = reporter.teacher.progress()
        text += (f', online mistake rate {_pct(t.true_mistake_rate)} '
                 f'(last {t.window_rounds}: {_pct(t.true_mistake_rate_window)})')
    if reporter.learner is not None:
        s = reporter.learner.progress()
        text += (f', {s.updates} updates, feedback matched {s.feedback_matched}'
                 f' / dropped {s.feedback_dropped}')
        if s.dropped_by:
            text += ' (' + ', '.join(f'{r} {n}' for r, n in s.dropped_by.items()) + ')'
        if s.learning_problem:
            text += f'; WARNING {s.learning_problem}'
    camera = reporter.camera
    if rounds == 0 and camera is not None and camera.counters.get('frames_received') == 0:
        text += (f'; no image arrived on {camera.resolve_topic_name("image_raw")}: start a '
                 'camera driver or remap its topic (--remap image_raw:=TOPIC), or let the '
                 'bring-up read one: banditlearn_bringup --camera SOURCE')
    return text


def main(argv: Optional[List[str]] = None) -> None:
    """Console entry point ``banditlearn_bringup``."""
    stop_on_first_signal()
    options = build_parser().parse_args(argv)
    if options.list:
        for name in list_systems():
            try:
                description = load_system(find_system(name))['description']
            except BringupError as exc:
                description = f'(unreadable: {exc})'
            print(f'{name}: {description}')
        sys.exit(0)
    try:
        code = run(options)
    except KeyboardInterrupt as exc:  # a signal while the nodes start
        sys.exit(exit_status(exc))
    except BringupError as exc:
        for line in str(exc).splitlines():
            print(f'banditlearn_bringup: error: {line}', file=sys.stderr)
        sys.exit(1)
    except Exception as exc:  # noqa: B902 - a CLI ends with one readable line
        print(f'banditlearn_bringup: error: {type(exc).__name__}: {exc}', file=sys.stderr)
        sys.exit(1)
    ignore_signals()  # for good: Python's default handlers come back as it exits
    sys.exit(code)


if __name__ == '__main__':
    main()
