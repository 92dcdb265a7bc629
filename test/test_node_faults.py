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

"""Nothing a robot meets ends a node: bad frames, raising callbacks, SIGTERM, bad arguments."""

import os
import signal
import subprocess
import sys
import textwrap
import time

from banditlearn_ros.nodes import common
from banditlearn_ros.nodes.bridge import image_to_array, ImageFormatError
from diagnostic_msgs.msg import DiagnosticArray
import numpy as np
import pytest
from rclpy.qos import qos_profile_sensor_data
from ros_harness import diagnostic_values
from sensor_msgs.msg import Image
from std_msgs.msg import String

pytestmark = pytest.mark.ros


def yuyv(width, height=4):
    msg = Image(height=height, width=width, encoding='yuyv', step=width * 2)
    msg.data = bytes(np.full(height * width * 2, 128, np.uint8))
    return msg


@pytest.mark.parametrize('encoding', ['yuyv', 'uyvy', 'yuv422', 'yuv422_yuy2'])
def test_odd_width_422_is_a_format_error_and_even_width_converts(encoding):
    msg = yuyv(5)
    msg.encoding = encoding
    with pytest.raises(ImageFormatError, match='even width'):
        image_to_array(msg)
    msg = yuyv(6)
    msg.encoding = encoding
    assert image_to_array(msg).shape == (4, 6, 3)


class FakeLogger:
    def __init__(self):
        self.lines = []

    def error(self, text):
        self.lines.append(text)


def test_guard_counts_by_kind_and_logs_each_kind_once_per_period():
    now = [0.0]
    log = FakeLogger()
    guard = common.CallbackGuard(log, log_period=10.0, hold=5.0, clock=lambda: now[0])

    def on_message(x):
        if x == 'bad':
            raise ValueError('a bad one')
        if x == 'key':
            raise KeyError('missing')
        return x

    guarded = guard.wrap(on_message)
    assert guarded('good') == 'good'
    for _ in range(3):
        assert guarded('bad') is None
    guarded('key')
    assert guard.counts() == {'on_message.ValueError': 3, 'on_message.KeyError': 1}
    assert len(log.lines) == 2  # one line per kind, not per message
    assert 'ValueError: a bad one' in log.lines[0] and 'test_node_faults.py' in log.lines[0]
    now[0] = 11.0
    guarded('bad')
    assert len(log.lines) == 3 and '3 since the last report, 4 in all' in log.lines[2]
    values = guard.values()
    assert values['callback_errors'] == 5 and values['callback_errors.on_message.ValueError'] == 4
    assert guard.recent_problem().startswith('5 callback error(s); latest: on_message failed')
    now[0] = 17.0
    assert guard.recent_problem() == ''


def test_a_callback_cut_short_by_the_shutdown_is_no_fault():
    # After a signal shut the context down, a callback's publish fails ("publisher's context
    # is invalid"): the node is going down, and that is not logged as an error.
    ended = [False]
    log = FakeLogger()
    guard = common.CallbackGuard(log, ended=lambda: ended[0])

    def on_features(x):
        raise RuntimeError("Failed to publish: publisher's context is invalid")

    guarded = guard.wrap(on_features)
    assert guarded(1) is None and guard.counts() == {'on_features.RuntimeError': 1}
    ended[0] = True
    assert guarded(2) is None
    assert guard.counts() == {'on_features.RuntimeError': 1} and len(log.lines) == 1


def test_a_failing_service_answers_instead_of_raising():
    guard = common.CallbackGuard(FakeLogger())

    class Response:
        success = True
        message = ''

    def on_save(request, response):
        raise OSError('disk full')

    response = guard.wrap_service(on_save)(None, Response())
    assert response.success is False and 'OSError: disk full' in response.message


class Echo(common.GuardedNode):
    """Raises on 'boom', echoes the rest; a timer and diagnostics like every node here."""

    def __init__(self, **kwargs):
        super().__init__('echo', **kwargs)
        self.pub = self.create_publisher(String, 'echo_out', 10)
        self.create_subscription(String, 'echo_in', self._on_text, 10)
        self.diagnostics = common.Diagnostics(self, 'echo', lambda: (common.OK, 'fine', {}),
                                              period=0.1)

    def _on_text(self, msg):
        if msg.data == 'boom':
            raise RuntimeError('exploded')
        self.pub.publish(msg)


def test_guarded_node_survives_its_callbacks_and_reports_on_diagnostics(ros):
    node = ros.add(Echo(context=ros.context))
    out = ros.listen(String, 'echo_out')
    diagnostics = ros.listen(DiagnosticArray, '/diagnostics')
    pub = ros.probe.create_publisher(String, 'echo_in', 10)
    ros.connect(pub)
    pub.publish(String(data='boom'))
    assert ros.spin_until(lambda: node.callback_guard.counts() == {'on_text.RuntimeError': 1})
    pub.publish(String(data='still here'))
    assert ros.spin_until(lambda: [m.data for m in out] == ['still here'])

    def warned():
        for msg in reversed(diagnostics):
            status = msg.status[0]
            return status.level == common.WARN and 'exploded' in status.message
        return False
    assert ros.spin_until(warned)
    values = diagnostic_values(diagnostics, 'echo')
    assert values['callback_errors'] == '1'
    assert values['callback_errors.on_text.RuntimeError'] == '1'


PLAIN_NODE = """
import sys
from banditlearn_ros.nodes import common
from rclpy.node import Node


class Plain(Node):
    def __init__(self):
        super().__init__('plain')
        self.ticks = 0
        self.create_timer(0.05, self.tick)

    def tick(self):
        self.ticks += 1
        if self.ticks == 3:
            raise ZeroDivisionError('tick three')
        if self.ticks == 6:
            print('alive after the error', flush=True)

    def close(self):
        print(f'closed after {self.ticks} ticks', flush=True)


common.run_node(Plain, args=sys.argv, name='plain')
"""


def _run(tmp_path, source, *args):
    script = tmp_path / 'plain_node.py'
    script.write_text(textwrap.dedent(source))
    return subprocess.Popen([sys.executable, str(script)] + list(args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_line(process, text, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if text in line:
            return
        if not line and process.poll() is not None:
            break
    raise AssertionError(f'no line with {text!r}: {process.stderr.read()[-2000:]}')


@pytest.mark.parametrize('sig', [signal.SIGTERM, signal.SIGINT])
def test_run_node_survives_a_plain_nodes_callback_and_ends_cleanly_on_a_signal(tmp_path, sig):
    process = _run(tmp_path, PLAIN_NODE)
    try:
        _wait_for_line(process, 'alive after the error')
        os.kill(process.pid, sig)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert 'closed after' in out  # close() ran: a learner would have saved here
    assert 'ZeroDivisionError: tick three' in err and 'Traceback' not in err


def test_bad_ros_arguments_are_one_line():
    result = subprocess.run(
        [sys.executable, '-m', 'banditlearn_ros.nodes.learner_node', '--ros-args', '-p',
         'model_path:='], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    # rcl itself logs '[rcl]: Failed to parse global arguments' first; ours is the one line
    # that says what was wrong, and there is no traceback.
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith('learner_node: bad command line:'), result.stderr
    assert 'model_path:=' in last and 'Traceback' not in result.stderr


@pytest.mark.parametrize('node', ['learner_node', 'teacher_node', 'dataset_node',
                                  'camera_node', 'feedback_node', 'page_node'])
def test_help_prints_usage_without_starting_the_node(node):
    result = subprocess.run([sys.executable, '-m', f'banditlearn_ros.nodes.{node}', '--help'],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f'usage: {node} [--ros-args')
    assert result.stderr == ''  # a started node logs its start on stderr


def test_odd_width_yuyv_leaves_a_running_camera_node_running(ros, tmp_path):
    process = subprocess.Popen(
        [sys.executable, '-m', 'banditlearn_ros.nodes.camera_node', '--ros-args', '-p',
         'use_mediapipe:=false', '-p', 'diagnostics_period:=0.2'],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        diagnostics = ros.listen(DiagnosticArray, '/diagnostics')
        pub = ros.probe.create_publisher(Image, 'image_raw', qos_profile_sensor_data)
        ros.connect(pub, timeout=30.0)

        def value(key):
            return (diagnostic_values(diagnostics, 'banditlearn_ros: camera_node')
                    or {}).get(key)

        def publish_until(msg, condition, timeout=30.0):
            # Sensor-data QoS is best effort: a frame may be lost, so send until one counts.
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                pub.publish(msg)
                if ros.spin_until(condition, 1.0):
                    return True
            return False
        assert publish_until(yuyv(641, 48), lambda: int(value('bad_image') or 0) >= 1)
        assert publish_until(yuyv(640, 48), lambda: int(value('frames_processed') or 0) >= 1)
        assert process.poll() is None
        assert value('callback_errors') == '0'  # a counted bad frame, not a failure
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    assert process.returncode == 0, process.stderr.read()[-2000:]


def test_sigterm_raises_what_ctrl_c_raises_and_tools_exit_143():
    from banditlearn_ros.support import shutdown
    old = signal.getsignal(signal.SIGTERM)
    try:
        shutdown.sigterm_as_interrupt()
        with pytest.raises(KeyboardInterrupt) as info:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler runs at the next bytecode; this is never reached
        assert isinstance(info.value, shutdown.Terminated)
        assert shutdown.exit_status(info.value) == 143
        assert shutdown.exit_status(KeyboardInterrupt()) == 130
    finally:
        signal.signal(signal.SIGTERM, old)


def test_a_second_signal_during_the_save_on_shutdown_is_held_back():
    """Ctrl-C reaches the whole process group (and ros2 launch forwards one more)."""
    from banditlearn_ros.support.shutdown import signals_held
    # Python's own Ctrl-C handler, whatever an earlier test in this worker left (rclpy.init
    # installs its own, which raises nothing).
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        arrived = []
        with signals_held():
            # Both would end the save with a KeyboardInterrupt (or the process) if not held.
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGTERM)
            arrived.append('save finished')
        assert arrived == ['save finished']
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1.0)  # the handler runs at the next bytecode; sleep ends at once
    finally:
        signal.signal(signal.SIGINT, inherited)


HALF_MADE_NODE = """
import sys
import weakref

import rclpy
from rclpy.node import Node
from std_msgs.msg import String

from banditlearn_ros.nodes import common

made = []


class HalfMade(Node):
    def __init__(self):
        super().__init__('half_made')
        self.pub = self.create_publisher(String, 'out', 10)
        self.timer = self.create_timer(1.0, self.tick)  # a cycle: only the collector frees it
        made.append(weakref.ref(self))
        raise ValueError('the model file is corrupt')

    def tick(self):
        pass


shutdown = rclpy.shutdown


def checked_shutdown(*args, **kwargs):
    print('node alive at shutdown:', made[0]() is not None, flush=True)
    return shutdown(*args, **kwargs)


rclpy.shutdown = checked_shutdown
common.run_node(HalfMade, args=sys.argv, name='half_made')
"""


def test_a_node_refused_at_start_is_freed_before_its_context_ends(tmp_path):
    # Its handles freed only as the interpreter ended, after rclpy.shutdown, crashed the
    # learner node once in 12 suites (SIGSEGV instead of exit 1 on a corrupt model file).
    process = _run(tmp_path, HALF_MADE_NODE)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 1, err
    assert out.splitlines() == ['node alive at shutdown: False']
    assert err.strip().splitlines()[-1] == 'half_made: the model file is corrupt'


def test_a_signal_swallowed_by_an_import_callback_prints_nothing_and_is_still_the_end(
        monkeypatch):
    # A signal while a node is built raises; landing in importlib's weakref callback, Python
    # cannot raise it and prints "Exception ignored". It is recorded, so the start ends anyway.
    import types
    from banditlearn_ros.support import shutdown
    seen = []
    monkeypatch.setattr(sys, 'unraisablehook', seen.append)
    monkeypatch.setattr(shutdown, '_REQUESTED', [])
    shutdown.raise_on_signal(True)
    try:
        hook = sys.unraisablehook
        interrupt = types.SimpleNamespace(exc_value=KeyboardInterrupt())
        other = types.SimpleNamespace(exc_value=ValueError('not ours'))
        hook(interrupt)  # no signal recorded: not ours to drop
        assert seen == [interrupt]
        shutdown._REQUESTED.append(signal.SIGINT)
        hook(interrupt)  # the signal's own exception: recorded, dropped quietly
        hook(other)
        assert seen == [interrupt, other]
    finally:
        shutdown.raise_on_signal(False)
