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

"""What a stranger sends is checked against what it carries and against a limit."""

import io
import os
from pathlib import Path
import signal
import tracemalloc

from banditlearn_ros.nodes import bridge
from banditlearn_ros.nodes.bridge import image_to_array, ImageFormatError, UnsupportedEncodingError
import numpy as np
import pytest
from sensor_msgs.msg import Image


def _peak_bytes(call) -> int:
    """Return the peak of memory traced while ``call()`` runs (numpy arrays are traced)."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_huge_step_with_ten_bytes_of_data_allocates_nothing_large():
    # The adversarial case: one row, step 2^28 (2^32 - 1 in the attack), 10 bytes of data.
    msg = Image(height=1, width=10, encoding='mono8', step=2 ** 28, data=bytes(range(10)))
    frames = []
    peak = _peak_bytes(lambda: frames.append(image_to_array(msg)))
    assert peak < 2 ** 20  # the padding to step x height took 256 MiB
    assert frames[0].tolist() == [list(range(10))]


def test_the_last_row_may_lack_its_padding_and_rows_keep_their_pixels():
    rows = np.arange(3 * 8, dtype=np.uint8).reshape(3, 8)
    data = rows.tobytes()[:-2]  # step 8, 6 pixels a row, the last row's padding missing
    msg = Image(height=3, width=6, encoding='mono8', step=8, data=data)
    assert np.array_equal(image_to_array(msg), rows[:, :6])


def test_a_frame_past_the_limit_is_refused_before_its_data_is_read():
    msg = Image(height=4000, width=4000, encoding='bgr8', step=12000, data=bytes(10))
    with pytest.raises(bridge.FrameTooLargeError, match='48000000 bytes'):
        image_to_array(msg, max_bytes=2 ** 20)
    assert issubclass(bridge.FrameTooLargeError, ImageFormatError)
    small = Image(height=2, width=2, encoding='bgr8', step=6, data=bytes(12))
    assert image_to_array(small, max_bytes=12).shape == (2, 2, 3)
    with pytest.raises(bridge.FrameTooLargeError):
        image_to_array(small, max_bytes=11)


def test_an_unsupported_encoding_of_a_megabyte_is_named_bounded():
    msg = Image(height=1, width=1, encoding='x' * 2 ** 20, step=1, data=bytes(1))
    with pytest.raises(UnsupportedEncodingError) as info:
        image_to_array(msg)
    assert len(str(info.value)) < 300 and len(info.value.encoding) < 40


@pytest.mark.ros
def test_the_camera_node_counts_large_frames_and_bounds_its_encoding_list(ros):
    from banditlearn_ros.nodes.camera_node import CameraNode
    from rclpy.parameter import Parameter
    node = ros.add(CameraNode(context=ros.context, parameter_overrides=[
        Parameter('use_mediapipe', value=False), Parameter('max_frame_bytes', value=4096)]))
    for i in range(40):
        node._on_image(Image(height=1, width=1, encoding=f'enc{i:03d}' + 'y' * 100, step=1,
                             data=bytes(1)))
    node._on_image(Image(height=100, width=100, encoding='mono8', step=100, data=bytes(10)))
    level, message, values = node._collect()
    assert values['unsupported_encoding'] == 40 and values['frame_too_large'] == 1
    assert values['bad_image'] == 0
    assert len(message) < 500 and message.endswith(', ...')


class _Log:
    """A logger that keeps its lines as (level, text)."""

    def __init__(self):
        self.lines = []

    def info(self, text, **kwargs):
        self.lines.append(('info', text))

    warning = error = info


def _live(model_path='', **given):
    from banditlearn_ros.learning.live import learner_parameters as lp
    from banditlearn_ros.learning.live.live_learner import LiveLearner
    specs = lp.HEAD_SPECS + tuple(lp.hyperparameter_specs()) + lp.TAIL_SPECS
    values = {spec.name: spec.default for spec in specs}
    values.update(given)
    return LiveLearner(values.__getitem__, model_path, _Log())


def test_a_restart_without_labels_keeps_the_files_labels(tmp_path):
    from banditlearn_ros.learning import load_model
    from banditlearn_ros.learning.live.learner_parameters import DEFAULT_LABELS
    path = str(tmp_path / 'model.npz')
    first = _live(path, labels=['fist', 'two', 'five'])
    assert first.interaction.predict([0.5, 0.25])[0] is not None
    first.save()
    again = _live(path, labels=list(DEFAULT_LABELS))  # no labels named
    assert again.labels == ['fist', 'two', 'five'] and again.labels_from_file
    assert again.current_labels() == ['fist', 'two', 'five']
    again.save()
    assert load_model(path).labels == ['fist', 'two', 'five']
    named = _live(path, labels=['fist', 'two', 'five', 'six'])  # named: appended
    assert named.current_labels() == ['fist', 'two', 'five', 'six']


def _nameable():
    """Return a live learner whose latest gesture ended without a "yes" (it may be named)."""
    live = _live(labels=['fist', 'palm'], max_questions=1)
    assert live.interaction.predict([0.5, 0.25])[0] is not None
    assert live.feedback(False)[0].outcome == 'matched'
    return live


@pytest.mark.parametrize('name, words', [
    ('x' * 2 ** 20, 'longer than 64'), ('two\nlines', 'line break'), ('bell\x07', 'line break'),
    ('', 'empty')])
def test_a_spoken_name_is_bounded_printable_and_on_one_line(name, words):
    live = _nameable()
    with pytest.raises(ValueError, match=words) as info:
        live.name_unknown(name)
    assert len(str(info.value)) < 200  # the refusal does not repeat a megabyte
    assert live.current_labels() == ['fist', 'palm']
    assert live.name_unknown('thumbs up') == (['fist', 'palm', 'thumbs up'], True)


def test_labels_are_strings_of_bounded_length_and_number():
    from banditlearn_ros.learning.live import learner_parameters as lp
    from banditlearn_ros.learning.protocol.labels import MAX_LABELS
    with pytest.raises(ValueError, match='not a string'):
        lp.appended_labels(['fist'], ['fist', False])
    with pytest.raises(ValueError, match='more than the limit'):
        lp.check_labels([f'l{i}' for i in range(MAX_LABELS + 1)])
    with pytest.raises(ValueError, match='longer than'):
        lp.appended_labels(None, ['y' * 65])
    assert lp.appended_labels(['no'], ['no', 'yes', 'on']) == ['yes', 'on']


def test_a_model_file_with_a_label_on_two_lines_is_refused(tmp_path):
    from banditlearn_ros.learning import load_model, make_learner, ModelFileError, save_model
    path = tmp_path / 'model.npz'
    learner = make_learner('ucwl', ['fist', 'palm'], 2)
    learner.labels[1] = 'pa\nlm'
    save_model(learner, path)
    with pytest.raises(ModelFileError, match='line break'):
        load_model(path)


@pytest.mark.ros
@pytest.mark.slow
def test_a_session_whose_model_cannot_be_saved_exits_1(tmp_path):
    import json
    import subprocess
    import sys
    blocker = tmp_path / 'a_file'
    blocker.write_text('not a folder')  # the model's folder cannot be made, even by root
    model = blocker / 'model.npz'
    result = subprocess.run(
        [sys.executable, '-m', 'banditlearn_ros.bringup.main', '--rounds', '6',
         '--out', str(tmp_path / 'out'), '--labels', 'fist,two',
         '--set', 'gesture_show_node.gestures=[fist,two]',
         '--set', f'learner_node.model_path={model}'],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stdout + result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary['model'] is None and summary['interactions'] == 6
    assert 'learner_node could not save on shutdown' in result.stderr
    assert 'Traceback' not in result.stderr


@pytest.mark.ros
@pytest.mark.slow
def test_a_session_whose_figure_fails_still_ends_with_its_summary(tmp_path):
    import json
    import subprocess
    import sys
    broken = tmp_path / 'broken' / 'matplotlib'
    broken.mkdir(parents=True)
    (broken / '__init__.py').write_text("raise RuntimeError('a figure library that fails')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(broken.parent)] + [p for p in [os.environ.get('PYTHONPATH', '')] if p]))
    result = subprocess.run(
        [sys.executable, '-m', 'banditlearn_ros.bringup.main', '--rounds', '6',
         '--out', str(tmp_path / 'out'), '--labels', 'fist,two',
         '--set', 'gesture_show_node.gestures=[fist,two]'],
        capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'no learning curve: RuntimeError: a figure library that fails' in result.stdout
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary['curve'] is None and summary['interactions'] == 6
    assert summary['model'] and os.path.isfile(summary['model'])


def _system(name):
    from banditlearn_ros.systems.system_file import find_system, load_system
    return load_system(find_system(name))


@pytest.mark.parametrize('text, names', [
    ('[fist,no]', ['fist', 'no']), ('[yes,no]', ['yes', 'no']), ('[on, 1.50]', ['on', '1.50'])])
def test_set_labels_are_names_as_typed_never_yaml_booleans(text, names):
    from banditlearn_ros.systems.options import apply_options, build_parser, in_declared_type
    system = _system('full')
    apply_options(system, build_parser().parse_args(['--set', f'learner_node.labels={text}']))
    given = next(e for e in system['nodes'] if e['name'] == 'learner_node')['parameters']
    # What rcl is given, or what the bring-up retypes into the declared string array.
    typed = given['labels'] if all(isinstance(v, str) for v in given['labels']) \
        else in_declared_type(given['labels'], text, 9)
    assert typed == names


def test_labels_option_reaches_the_learner_of_any_system():
    from banditlearn_ros.systems.options import apply_options, build_parser
    from banditlearn_ros.systems.system_file import BringupError
    system = _system('full')
    apply_options(system, build_parser().parse_args(['--labels', 'fist,no,yes']))
    given = next(e for e in system['nodes'] if e['name'] == 'learner_node')['parameters']
    assert given['labels'] == ['fist', 'no', 'yes']
    with pytest.raises(BringupError, match='do not match the labels of the data set'):
        apply_options(_system('teach_sim'), build_parser().parse_args(['--labels', 'a,b']))
    with pytest.raises(SystemExit):
        build_parser().parse_args(['--labels', 'a,' + 'b' * 100])


def test_a_fifo_as_model_file_is_refused_at_once(tmp_path):
    import os
    import threading
    from banditlearn_ros.learning import load_model, ModelFileError
    fifo = tmp_path / 'model.npz'
    os.mkfifo(fifo)
    box = []

    def load():
        try:
            load_model(fifo)
        except ModelFileError as exc:
            box.append(exc)
    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    reader.join(timeout=30.0)
    if reader.is_alive():  # blocked in open(): let it end before failing
        with open(fifo, 'wb'):
            pass
        pytest.fail('opening a FIFO as the model file blocked')
    assert box and 'not a regular file' in str(box[0]) and str(fifo) in str(box[0])


def _zip_with(path, members):
    import zipfile
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def test_a_member_inflating_past_the_limit_is_refused_before_it_is_read(tmp_path):
    from banditlearn_ros.learning import ModelFileError
    from banditlearn_ros.learning.storage import persistence
    path = tmp_path / 'bomb.npz'
    # 64 MiB of zeros, a few kB compressed, with a limit of 16 MiB: refused unread.
    array = np.lib.format.header_data_from_array_1_0(np.zeros(2 ** 23))
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, array)
    _zip_with(path, {'mu.npy': buffer.getvalue() + bytes(2 ** 26)})
    assert path.stat().st_size < 2 ** 20
    box = []

    def load():
        with pytest.raises(ModelFileError, match='more than the limit') as info:
            persistence.read_model_state(path, max_bytes=2 ** 24)
        box.append(info.value)
    assert _peak_bytes(load) < 2 ** 22  # nothing of the 64 MiB was inflated
    assert str(path) in str(box[0])


def test_an_array_header_declaring_more_than_its_member_holds_is_refused(tmp_path):
    from banditlearn_ros.learning import ModelFileError
    from banditlearn_ros.learning.storage import persistence
    path = tmp_path / 'liar.npz'
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {
        'descr': '<f8', 'fortran_order': False, 'shape': (2 ** 20, 2 ** 20)})
    _zip_with(path, {'mu.npy': buffer.getvalue() + bytes(80)})
    with pytest.raises(ModelFileError, match='more than the 2'):
        persistence.read_model_state(path)


def test_a_deeply_nested_header_is_an_error_naming_the_file(tmp_path):
    from banditlearn_ros.learning import make_learner, ModelFileError, save_model
    from banditlearn_ros.learning.storage import persistence
    path = tmp_path / 'deep.npz'
    save_model(make_learner('ucwl', ['a', 'b'], 2), path)
    with np.load(path) as archive:
        contents = {k: archive[k] for k in archive.files}
    contents['__header__'] = np.frombuffer(b'[' * 100000 + b']' * 100000, np.uint8)
    np.savez(path, **contents)
    with pytest.raises(ModelFileError, match='nested too deeply') as info:
        persistence.read_model_state(path)
    assert str(path) in str(info.value)


def test_a_second_learner_on_one_model_file_is_refused_and_stale_temporaries_go(tmp_path):
    import subprocess
    import sys
    path = tmp_path / 'model.npz'
    stale = tmp_path / '.model.npz.abc123.tmp'
    stale.write_bytes(b'half a model: the save was killed')
    other = tmp_path / '.other.npz.abc123.tmp'
    other.write_bytes(b'not ours')
    first = _live(str(path))
    assert not stale.exists() and other.exists()
    assert first.saves.path == str(path)
    code = ('import sys; sys.path.insert(0, sys.argv[2]); import test_robustness as t\n'
            't._live(sys.argv[1])\n')
    result = subprocess.run([sys.executable, '-c', code, str(path), str(Path(__file__).parent)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert 'is in use by another learner' in result.stderr.strip().splitlines()[-1]
    assert str(os.getpid()) in result.stderr


@pytest.mark.ros
def test_two_learners_of_one_name_are_seen_and_said(ros):
    from banditlearn_ros.nodes.learner_node import LearnerNode
    from rclpy.parameter import Parameter
    nodes = [ros.add(LearnerNode(context=ros.context, parameter_overrides=[
        Parameter('model_path', value=''), Parameter('diagnostics_period', value=0.2)]))
        for _ in range(2)]
    assert ros.spin_until(lambda: all(n.namesakes.found == 1 for n in nodes), timeout=30.0)
    level, message, values = nodes[0]._collect()
    assert values['namesakes'] == 1 and message == 'another node is named /learner_node'
    ros.remove(nodes[1])
    assert ros.spin_until(lambda: nodes[0].namesakes.found == 0, timeout=30.0)


class _Process:
    """A node's script in a process group of its own, its output read as it comes."""

    def __init__(self, args, env=None):
        import subprocess
        import threading
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, start_new_session=True, env=env)
        self.lines = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line)

    def wait_for(self, text, timeout=120.0):
        import time
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            if any(text in line for line in self.lines):
                return True
            time.sleep(0.05)
        return any(text in line for line in self.lines)

    def end(self, timeout=120.0):
        import subprocess
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self._reader.join(timeout=10.0)
        return code, ''.join(self.lines)


def _script(name):
    import shutil
    import sys
    path = Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if not found:
        pytest.skip(f'the {name} script is not installed')
    return found


def _saved_model(path):
    from banditlearn_ros.learning import make_learner, save_model
    learner = make_learner('ucwl', ['fist', 'palm'], 2)
    learner.learn([1.0, 0.5], 'fist', True)
    save_model(learner, path)


@pytest.mark.ros
@pytest.mark.parametrize('first, second, gap', [
    (signal.SIGINT, signal.SIGINT, 0.0), (signal.SIGINT, signal.SIGINT, 0.3),
    (signal.SIGINT, signal.SIGINT, 1.0), (signal.SIGTERM, signal.SIGINT, 0.0),
    (signal.SIGTERM, signal.SIGINT, 0.5)])
def test_a_process_group_ctrl_c_and_a_forwarded_second_signal_end_a_node_once(
        tmp_path, first, second, gap):
    import time
    path = tmp_path / 'model.npz'
    _saved_model(path)
    node = _Process([_script('learner_node'), '--ros-args', '-p', f'model_path:={path}'])
    try:
        assert node.wait_for('learner ready'), ''.join(node.lines)
        os.killpg(node.process.pid, first)  # a terminal's Ctrl-C: the whole group
        time.sleep(gap)
        if node.process.poll() is None:
            os.killpg(node.process.pid, second)  # what ros2 launch forwards
    finally:
        code, out = node.end()
    assert code == 0, out
    assert out.count('model saved to') == 1, out
    assert 'Traceback' not in out and 'KeyboardInterrupt' not in out, out


@pytest.mark.ros
def test_a_node_signalled_while_it_imports_ends_quietly():
    import time
    node = _Process([_script('learner_node'), '--ros-args', '-p', "model_path:=''"])
    try:
        # Wait until the package's first handler is in (SIGTERM caught: bit 15 of SigCgt).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and node.process.poll() is None:
            with open(f'/proc/{node.process.pid}/status') as status:
                caught = int(next(x for x in status if x.startswith('SigCgt')).split()[1], 16)
            if caught & (1 << (signal.SIGTERM - 1)):
                break
            time.sleep(0.005)
        os.killpg(node.process.pid, signal.SIGINT)
        os.killpg(node.process.pid, signal.SIGINT)
    finally:
        code, out = node.end()
    assert code == 0, out
    assert 'Traceback' not in out and 'KeyboardInterrupt' not in out, out


@pytest.mark.ros
@pytest.mark.parametrize('first, second, gap, name', [
    # Two signals pending together are handled in the order of their numbers, not of their
    # arrival (Python runs the handlers later): either may be the one the summary names.
    (signal.SIGTERM, signal.SIGINT, 0.0, ('SIGTERM', 'Ctrl-C')),
    (signal.SIGINT, signal.SIGINT, 0.0, ('Ctrl-C',)),
    (signal.SIGINT, signal.SIGINT, 0.2, ('Ctrl-C',)),
    (signal.SIGINT, signal.SIGTERM, 0.5, ('Ctrl-C',)),
    (signal.SIGTERM, signal.SIGINT, 1.0, ('SIGTERM',))])
def test_the_bringup_saves_and_sums_up_once_whatever_signals_follow(tmp_path, first, second,
                                                                    gap, name):
    import re
    import sys
    import time
    from banditlearn_ros.learning import load_model
    path = tmp_path / 'model.npz'
    bringup = _Process(
        [sys.executable, '-m', 'banditlearn_ros.bringup.main', '--system', 'teach_sim',
         '--every', '10', '--set', f'learner_node.model_path={path}',
         '--set', 'learner_node.autosave_every=0', '--set', 'dataset_node.rate=40.0'])
    try:
        progress = re.compile(r'^\s*\d+\s+[\d.]+%')
        deadline = time.monotonic() + 300  # a condition, not a speed: two progress lines
        while time.monotonic() < deadline and bringup.process.poll() is None and sum(
                bool(progress.match(x)) for x in bringup.lines) < 2:
            time.sleep(0.05)
        os.killpg(bringup.process.pid, first)
        time.sleep(gap)
        if bringup.process.poll() is None:
            os.killpg(bringup.process.pid, second)
    finally:
        code, out = bringup.end(timeout=300)
    assert code == 0, out
    summary = [x for x in out.splitlines() if x.startswith('interrupted (')]
    assert len(summary) == 1, out
    assert summary[0].startswith(tuple(f'interrupted ({n}): ' for n in name)), out
    updates = int(re.search(r'(\d+) updates', summary[0]).group(1))
    assert updates >= 10 and load_model(str(path)).n_updates == updates
    assert 'Traceback' not in out, out


def test_json_events_are_bounded_in_length_and_depth():
    from banditlearn_ros.nodes.events import MAX_EVENT_CHARS, read_event
    assert read_event('{"label": "fist", "question": 1}') == {'label': 'fist', 'question': 1}
    with pytest.raises(ValueError, match='nested too deeply'):
        read_event('[' * 30000 + ']' * 30000)
    with pytest.raises(ValueError, match='longer than'):
        read_event('"' + 'x' * MAX_EVENT_CHARS + '"')


@pytest.mark.ros
def test_the_teacher_counts_a_deeply_nested_question_and_goes_on(ros):
    from banditlearn_ros.nodes.teacher_node import TeacherNode
    from std_msgs.msg import String
    node = ros.add(TeacherNode(context=ros.context))
    node._on_question(String(data='[' * 100000 + ']' * 100000))
    node._on_question(String(data='{"label": "' + 'x' * 10 ** 6 + '"}'))
    assert node.counters.get('bad_details') == 2


def test_the_learner_refuses_a_model_file_past_max_model_bytes_at_start(tmp_path):
    from banditlearn_ros.learning import ModelFileError
    from banditlearn_ros.learning import make_learner, save_model
    path = tmp_path / 'model.npz'
    save_model(make_learner('ucwl', ['fist', 'palm'], 64), path)  # 2 KiB of arrays
    assert _live(str(path), max_model_bytes=2 ** 20).interaction.learner.n_features == 64
    with pytest.raises(ModelFileError, match='more than the limit of 1024'):
        _live(str(path), max_model_bytes=1024)


HANGING_NODE = """
import sys
import time
from banditlearn_ros.nodes import common
from rclpy.node import Node


class Hanging(Node):
    def __init__(self):
        super().__init__('hanging')
        print('building', flush=True)
        time.sleep(600)  # a start that hangs: a device that never answers


common.run_node(Hanging, args=sys.argv, name='hanging')
"""


@pytest.mark.ros
def test_a_start_that_hangs_still_ends_on_ctrl_c(tmp_path):
    import sys
    script = tmp_path / 'hanging.py'
    script.write_text(HANGING_NODE)
    node = _Process([sys.executable, str(script)])
    try:
        assert node.wait_for('building'), ''.join(node.lines)
        os.killpg(node.process.pid, signal.SIGINT)
    finally:
        code, out = node.end(timeout=120)
    assert code == 0, out
    assert 'Traceback' not in out, out


@pytest.mark.ros
def test_a_flood_of_refused_names_is_logged_once_per_throttle_period(ros):
    """A sender repeating bad names gets one warning per 5 s, not one per name (item 8)."""
    import time
    from banditlearn_ros.nodes import qos
    from diagnostic_msgs.msg import DiagnosticArray
    from ros_harness import diagnostic_values
    from std_msgs.msg import String
    node = _Process([_script('learner_node'), '--ros-args', '-p', "model_path:=''",
                     '-p', 'diagnostics_period:=0.2'])
    try:
        assert node.wait_for('learner ready'), ''.join(node.lines)
        names = ros.probe.create_publisher(String, 'gesture_name', 100)
        diagnostics = ros.listen(DiagnosticArray, '/diagnostics')
        ros.connect(names)

        def refused():
            values = diagnostic_values(diagnostics, 'banditlearn_ros: learner_node')
            return int(values['names_refused']) if values else 0
        # Bursts of EVENT_DEPTH names, each waited for: a reader keeps only that many, so a
        # longer burst to a node slowed by a loaded machine loses names (as it should) and
        # the count would say how busy the machine was rather than what the node does.
        start = time.monotonic()
        for burst in range(20):
            for i in range(qos.EVENT_DEPTH):
                names.publish(String(data=f'bad\nname {burst}.{i}'))
            assert ros.spin_until(lambda b=burst: refused() >= (b + 1) * qos.EVENT_DEPTH), \
                (burst, refused())
        seconds = time.monotonic() - start
        os.killpg(node.process.pid, signal.SIGINT)
    finally:
        code, out = node.end()
    warned = sum('refused' in line for line in out.splitlines())
    assert 1 <= warned <= 1 + seconds / 5.0, (refused(), warned, out[-2000:])
