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

"""The banditlearn_bag command: info, export, write, play (over real rclpy on loopback)."""

import json
import os
from pathlib import Path
import subprocess
import sys
import time

from banditlearn_ros.learning.offline.datasets import load_bundled, load_file
from banditlearn_ros.tools import bag as cli
import numpy as np
import pytest

pytest.importorskip('rosbags')

SERVICE_REASON = 'service-event type test_msgs/srv/BasicTypes_Event is not in the type store'


def _bags(shared_data: Path) -> Path:
    folder = shared_data / 'rosbag2'
    if not folder.is_dir():
        pytest.skip(f'{folder} is absent')
    return folder


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code, err):
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert 'Traceback' not in err and lines[0].startswith('banditlearn_bag ')
    return lines[0]


def _command():
    """Return the console command, or the module when the entry point is not installed."""
    script = Path(sys.executable).with_name('banditlearn_bag')
    if script.exists():
        return [str(script)]
    return [sys.executable, '-m', 'banditlearn_ros.tools.bag']


# ---------------------------------------------------------------------- info
def test_info_on_the_split_sqlite3_bag(shared_data, capsys):
    code, out, _ = _run(capsys, 'info', _bags(shared_data) / 'sqlite3_wbag')
    assert code == 0
    assert 'storage:   sqlite3 (5 files' in out
    assert 'messages:  6074 (6074 decoded)' in out
    assert 'topics:    8' in out
    assert 'problem' not in out


@pytest.mark.parametrize('folder', ['sqlite3_talker', 'mcap_talker'])
def test_info_reports_the_talker_fallback(shared_data, capsys, folder):
    code, out, _ = _run(capsys, 'info', _bags(shared_data) / folder)
    assert code == 0
    assert 'messages:  20 (20 decoded)' in out
    assert 'note:      metadata.yaml and the data file (talker.' in out
    assert 'duration:  4.531 s' in out


@pytest.mark.parametrize('storage', ['sqlite3', 'mcap'])
def test_info_reports_service_events_per_topic(shared_data, capsys, storage):
    code, out, err = _run(capsys, 'info',
                          _bags(shared_data) / f'{storage}_bag_with_topics_and_service_events')
    assert code == 0, err
    assert 'messages:  10 (2 decoded)' in out
    assert out.count('problem: ' + SERVICE_REASON) == 2


def test_info_json_lists_every_topic(shared_data, capsys):
    code, out, _ = _run(capsys, 'info', '--json', _bags(shared_data) / 'mcap_convert_b')
    assert code == 0
    summary = json.loads(out)
    decoded = {t['name']: t['decoded'] for t in summary['topics']}
    assert decoded == {'c_strings': 50, 'a_empty': 25}


@pytest.mark.slow
def test_every_shared_bag_gives_info_without_a_traceback(shared_data):
    """Run the installed command on every bag folder as a user would (files: test_bagio)."""
    paths = sorted(p for p in _bags(shared_data).iterdir() if p.is_dir())
    paths.append(_bags(shared_data) / 'mcap_bag_with_topics_and_service_events'
                 / 'bag_with_topics_and_service_events.mcap')
    assert len(paths) == 9
    for path in paths:
        done = subprocess.run(_command() + ['info', str(path)], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, (path, done.stderr)
        assert 'Traceback' not in done.stderr + done.stdout
        assert 'decoded)' in done.stdout


def test_bad_paths_give_one_line(tmp_path, capsys):
    line = _one_line_error(*_run(capsys, 'info', tmp_path / 'missing')[::2])
    assert 'no such file' in line
    broken = tmp_path / 'broken.mcap'
    broken.write_bytes(b'\x89MCAP0\r\n garbage')
    line = _one_line_error(*_run(capsys, 'info', broken)[::2])
    assert 'cannot open as mcap' in line


def test_broken_mcap_in_a_real_process_has_no_traceback(tmp_path):
    broken = tmp_path / 'recording.mcap'
    broken.write_bytes(b'')
    done = subprocess.run(_command() + ['info', str(broken)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().count('\n') == 0 and 'Traceback' not in done.stderr
    assert 'empty' in done.stderr


def test_info_export_write_need_no_rclpy(shared_data, tmp_path):
    """Only play uses rclpy: the rest works where no ROS is installed at all."""
    code = (
        'import sys; sys.modules["rclpy"] = None\n'
        'from banditlearn_ros.tools import bag\n'
        f'assert bag.main(["info", {str(_bags(shared_data) / "sqlite3_talker")!r}]) == 0\n'
        f'assert bag.main(["write", "iris", "-o", {str(tmp_path / "b")!r}]) == 0\n'
        f'assert bag.main(["export", {str(tmp_path / "b")!r}, "-o", '
        f'{str(tmp_path / "x.npz")!r}]) == 0\n'
        'assert bag.main(["play", sys.argv[1]]) == 1\n'
        'print("rclpy" in sys.modules and sys.modules["rclpy"] is None)\n')
    done = subprocess.run([sys.executable, '-c', code, str(tmp_path / 'b')],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith('True')
    assert 'play: error: play needs rclpy' in done.stderr


# ---------------------------------------------------------------------- write + export
@pytest.mark.parametrize('storage', ['mcap', 'sqlite3'])
def test_write_then_export_equals_the_data_set(tmp_path, capsys, storage):
    bagdir = tmp_path / 'wine_bag'
    code, out, err = _run(capsys, 'write', 'wine', '-o', bagdir, '--storage', storage,
                          '--rate', '20')
    assert code == 0, err
    assert f'{storage} bag, 178 examples of 13 features (3 labels)' in out
    code, out, err = _run(capsys, 'info', bagdir)
    assert code == 0 and 'messages:  356 (356 decoded)' in out
    npz = tmp_path / 'wine.npz'
    code, out, err = _run(capsys, 'export', bagdir, '-o', npz)
    assert code == 0, err
    assert '178 examples, 13 features, 3 labels' in out
    X, y, names = load_bundled('wine')
    X2, y2, names2 = load_file(str(npz))
    assert names2 == names
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(X2, X.astype(np.float32))


def test_write_from_a_csv_file(tmp_path, capsys):
    csv = tmp_path / 'gestures.csv'
    csv.write_text('a,b,label\n0.1,0.2,fist\n0.3,0.4,open\n0.5,0.6,fist\n')
    code, out, err = _run(capsys, 'write', csv, '-o', tmp_path / 'bag', '--rate', '5')
    assert code == 0, err
    code, out, err = _run(capsys, 'export', tmp_path / 'bag', '-o', tmp_path / 'out.npz',
                          '--features-topic', '/gesture_features')
    assert code == 0, err
    X, y, names = load_file(str(tmp_path / 'out.npz'))
    assert names == ['fist', 'open'] and y.tolist() == [0, 1, 0]
    np.testing.assert_allclose(X, [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], rtol=1e-6)
    with np.load(tmp_path / 'out.npz') as data:
        assert str(data['feature_set']) == 'gestures'


def test_bad_write_and_export_input_gives_one_line(shared_data, tmp_path, capsys):
    cases = [
        (['write', 'nosuchset', '-o', tmp_path / 'a'], 'no such file'),
        (['write', 'iris', '-o', tmp_path / 'b', '--rate', '0'], '--rate'),
        (['write', 'iris', '-o', tmp_path], 'exists already'),
        (['write', 'iris', '-o', tmp_path / 'c', '--limit', '-2'], '--limit'),
        (['export', _bags(shared_data) / 'sqlite3_talker', '-o', tmp_path / 'x.npz'],
         "no topic 'gesture_features'"),
        (['export', _bags(shared_data) / 'sqlite3_talker', '-o', tmp_path / 'x.txt'], '.npz'),
        (['play', _bags(shared_data) / 'sqlite3_talker', '--rate', '-1'], '--rate'),
    ]
    for argv, expect in cases:
        line = _one_line_error(*_run(capsys, *argv)[::2])
        assert expect in line, (argv, line)
    assert not any((tmp_path / n).exists() for n in 'abc')


# ---------------------------------------------------------------------- play
@pytest.fixture
def ros_node():
    """Yield an rclpy node and executor in a context of this test's own."""
    rclpy = pytest.importorskip('rclpy')
    from rclpy.executors import SingleThreadedExecutor
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node(f'bag_play_test_{os.getpid()}', context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    yield node, executor
    executor.shutdown()
    node.destroy_node()
    rclpy.shutdown(context=context)


def _spin_until(executor, done, process, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not done():
        executor.spin_once(timeout_sec=0.05)
        if process.poll() is not None and not done():
            # Let messages already on the wire arrive after the player exits.
            for _ in range(20):
                executor.spin_once(timeout_sec=0.05)
            break


def _play(args, executor, done):
    """Run ``banditlearn_bag play`` while spinning until ``done``; return (rc, out, err)."""
    player = subprocess.Popen(_command() + ['play'] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        _spin_until(executor, done, player)
        out, err = player.communicate(timeout=30)
    finally:
        if player.poll() is None:
            player.kill()
            player.wait()
    return player.returncode, out, err


def test_play_replays_features_and_labels_in_order(tmp_path, ros_node, capsys):
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from std_msgs.msg import Float32MultiArray, String
    node, executor = ros_node
    X, y, names = load_bundled('iris')
    bagdir = tmp_path / 'iris_bag'
    assert _run(capsys, 'write', 'iris', '-o', bagdir, '--rate', '20')[0] == 0
    # Played under this test's own names so other processes on the machine never interfere.
    prefix = f'/bag_play_{os.getpid()}'
    qos = QoSProfile(depth=200, reliability=ReliabilityPolicy.RELIABLE)
    got = []
    node.create_subscription(Float32MultiArray, prefix + '/features',
                             lambda m: got.append(('features', np.array(m.data))), qos)
    node.create_subscription(String, prefix + '/label',
                             lambda m: got.append(('label', m.data)), qos)
    started = time.monotonic()
    rc, out, err = _play([str(bagdir), '--rate', '3', '--wait-for-subscribers', '15',
                          '--remap', f'gesture_features:={prefix}/features',
                          f'gesture_label:={prefix}/label'],
                         executor, lambda: len(got) >= 300)
    elapsed = time.monotonic() - started
    assert rc == 0, err
    assert 'Traceback' not in err
    assert 'published 150 on /gesture_features' in out
    labels = [v for kind, v in got if kind == 'label']
    features = [v for kind, v in got if kind == 'features']
    assert labels == [names[i] for i in y]
    np.testing.assert_array_equal(np.vstack(features), X.astype(np.float32))
    # 149 periods of 50 ms at 3x: about 2.5 s of playing, not all at once.
    assert elapsed > 149 * 0.05 / 3


def test_play_real_talker_bag_and_skip_what_is_not_installed(shared_data, ros_node):
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String
    node, executor = ros_node
    topic = f'/talker_replay_{os.getpid()}'
    got = []
    node.create_subscription(String, topic, lambda m: got.append(m.data),
                             QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE))
    rc, out, err = _play([str(_bags(shared_data) / 'sqlite3_talker'), '--rate', '10',
                          '--topics', '/topic', '--wait-for-subscribers', '15',
                          '--remap', f'/topic:={topic}'],
                         executor, lambda: len(got) >= 10)
    assert rc == 0, err
    assert 'note: metadata.yaml and the data file (talker.db3) disagree' in out
    assert got == [f'Hello, world! {i}' for i in range(10)]

    done = subprocess.run(
        _command() + ['play', str(_bags(shared_data) / 'mcap_bag_with_topics_and_service_events'),
                      '--rate', '100'], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert 'Traceback' not in done.stderr
    assert ('skipping /test_service1/_service_event (4 msgs): '
            'test_msgs/srv/BasicTypes_Event is a service event') in done.stdout
    assert "skipping /test_topic1 (1 msgs): no Python message package 'test_msgs'" in done.stdout
    assert 'none of its topics can be published here' in done.stderr
