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
The bring-up's teaching sessions end to end, over real ROS 2 topics (small sizes).

The default session (rendered gestures, simulated person) and the camera session (a video
file of rendered hands as the camera, the answers typed on a pseudo-terminal) must learn:
above chance, updates made, the JSON summary last with its files.  Nothing here is timed.
"""

import json
import os
import pty
import re
import select
import subprocess
import sys
import termios
import time

from banditlearn_ros.vision.gesture_show import GestureShow
import cv2
import pytest

pytestmark = pytest.mark.ros
GESTURES = ['fist', 'two', 'five']
# The rendered session's features (config/gestures.system.yaml): learn fast on rendered hands.
FEATURES = ['bias'] + [f'fingers_is_{i}' for i in range(6)] + [
    'solidity', 'convexity', 'deep_defects', 'defect_depth_max', 'bbox_aspect']
BRINGUP = [sys.executable, '-m', 'banditlearn_ros.bringup.main']


def camera_session(video, tmp_path, *options):
    """Return the bring-up's command for a camera session on ``video`` (contour features)."""
    return BRINGUP + ['--camera', str(video), '--out', str(tmp_path),
                      '--labels', ','.join(GESTURES),
                      '--set', 'camera_node.use_mediapipe=false',
                      '--set', 'camera_node.stable_frames=4',
                      '--set', 'camera_node.absent_frames=3',
                      '--set', f'learner_node.model_path={tmp_path / "model.npz"}', *options]


def last_json(text):
    lines = [line for line in text.replace('\r', '\n').splitlines() if line.strip()]
    return json.loads(lines[-1])


@pytest.mark.slow
def test_default_session_learns_and_ends_with_the_summary(tmp_path):
    result = subprocess.run(
        BRINGUP + ['--rounds', '45', '--every', '15', '--out', str(tmp_path),
                   '--labels', ','.join(GESTURES),
                   '--set', f'gesture_show_node.gestures={GESTURES}'],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    summary = last_json(result.stdout)
    assert summary['interactions'] == 45
    assert summary['labels'] == GESTURES  # the learner's, in its order
    # Judged: the shown gesture known, or an answer given (the last one may have neither).
    assert 44 <= summary['judged'] <= 45, summary
    # The simulated person answers: nobody is told to type anything.
    assert 'type ' not in result.stdout and 'answer with y' not in result.stdout
    assert os.path.isfile(summary['model']) and os.path.isfile(summary['curve'])
    assert os.path.dirname(summary['model']) == str(tmp_path)
    assert summary['questions_per_interaction'] >= 1.0
    # Chance is 1/3; the learner starts knowing nothing.
    assert summary['accuracy_last_50'] > 0.5, result.stdout
    header = [line for line in result.stdout.splitlines() if line.split()[:1] == ['done']]
    assert header, result.stdout


def write_video(path, presentations=12, hold=36, gap=14, fps=30):
    """Write a video of rendered hands: the empty scene, then the gesture held still."""
    show = GestureShow(GESTURES, width=320, height=240, noise=2.0, clutter=0, seed=5)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*'MJPG'), fps, (320, 240))
    assert writer.isOpened()
    order = []
    for _ in range(presentations):
        p = show.present()
        order.append(p.gesture)
        for image in [p.scene] * gap + [p.hand] * hold:
            writer.write(show.frame(image))
    writer.release()
    return order


@pytest.mark.serial  # it answers from what the bar shows: a presentation missed under load
def test_camera_session_learns_from_keyboard_answers_on_a_pty(tmp_path):
    video = tmp_path / 'hands.avi'
    order = write_video(video)
    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[3] &= ~termios.ECHO  # what the session draws, without the typed keys' echo
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    proc = subprocess.Popen(
        camera_session(video, tmp_path, '--rounds', '36', '--set', 'image_source_node.loop=true',
                       '--set', f'camera_node.feature_names={FEATURES}'),
        stdin=slave, stdout=slave, stderr=subprocess.PIPE, close_fds=True)
    os.close(slave)
    output = b''
    answered = set()
    added = False
    deadline = time.monotonic() + 400
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            output += chunk
            # The bar, redrawn in place: "[###---] N right50 .. | ? -> label? ..."
            text = output.decode(errors='replace').replace('\x1b[K', '')
            bar = text.replace('\r', '\n').splitlines()[-1]
            if '| ? -> ' not in bar or not bar.endswith('? ...'):
                continue
            n = int(re.search(r'(\d+)/\d+ ', bar).group(1))
            asked = bar.rsplit(', ', 1)[-1].split('| ? -> ')[-1][:-len('? ...')]
            key = (n, bar.count('?'))
            if key in answered:
                continue
            answered.add(key)
            truth = order[(n - 1) % len(order)]
            os.write(master, b'y\n' if asked == truth else b'n\n')
            if n == 3 and not added:  # a new gesture, typed during the session
                os.write(master, b'+wave\n')
                added = True
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        try:
            while True:
                ready, _, _ = select.select([master], [], [], 0.1)
                if not ready:
                    break
                output += os.read(master, 4096)
        except OSError:
            pass
        os.close(master)
    text = output.decode(errors='replace')
    assert proc.returncode == 0, proc.stderr.read().decode() + text[-2000:]
    summary = last_json(text)
    assert summary['interactions'] >= 36
    assert summary['updates'] > 0
    assert summary['accuracy'] > 1 / 3, text[-3000:]
    assert os.path.isfile(summary['model']) and os.path.isfile(summary['curve'])
    assert "new gesture 'wave' added" in text, text[-3000:]
    assert summary['labels'] == GESTURES + ['wave']  # the learner's, with the added one
    # Drawn to the terminal's width (80 columns when the terminal does not say): the bar,
    # redrawn in place, and the column lines; messages are printed whole and may wrap.
    drawn = [s.replace('\x1b[K', '') for s in re.split('[\r\n]', text)]
    view = [s for s in drawn if ' | ' in s or re.match(r'\s+\d+/\d+ ', s)]
    assert len(view) > 36, drawn
    too_wide = [s for s in view if len(s) > 79]
    assert not too_wide, too_wide


@pytest.mark.slow
def test_camera_session_says_why_no_answer_comes(tmp_path):
    video = tmp_path / 'hands.avi'
    write_video(video, presentations=6)
    # A note after 2.5 s of waiting, and again 15 s later.
    result = subprocess.run(
        camera_session(video, tmp_path, '--duration', '35',
                       '--set', 'image_source_node.loop=true',
                       '--set', 'session_node.answer_warning=2.5'),
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stdout.splitlines() if line.startswith('no answer for')]
    assert len(notes) >= 2, result.stdout
    # Face Mesh loads in a thread; on a busy machine it can still be loading at the first
    # note, which then says so (its frames are skipped, not missing), or the feedback node's
    # last report can still show no frames (3.10 beside a second suite, load 9-12). 15 s later
    # the frames have come: the note says what the face did. The rendered hand can be taken
    # for a face (seen once in CI), and the note then says so.
    face = ('sees no face', 'but no nod or shake')
    early = face + ('still loading Face Mesh', 'gets no camera frames')
    assert any(h in notes[0] for h in early), notes[0]
    assert any(h in notes[-1] for h in face), notes[-1]
    assert all('keyboard off' in note for note in notes), notes
    summary = last_json(result.stdout)
    assert summary['interactions'] > 0 and summary['updates'] == 0


@pytest.mark.slow
def test_camera_session_ends_with_its_video_and_keeps_mediapipe_lines_out(tmp_path):
    video = tmp_path / 'hands.avi'
    write_video(video, presentations=4)
    result = subprocess.run(
        camera_session(video, tmp_path),
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert 'the video ended: the session ends with it' in result.stdout, result.stdout
    summary = last_json(result.stdout)
    # Nobody answered: nothing judged, and no curve drawn over nothing.
    assert summary['judged'] == 0 and summary['accuracy'] is None
    assert summary['curve'] is None and not (tmp_path / 'learning_curve.png').exists()
    assert 'no learning curve: no interaction was judged' in result.stdout
    # The feedback node's Face Mesh logs from C++; those lines went to a file, not the view.
    from banditlearn_ros.console.log_filter import is_third_party
    assert not [line for line in result.stderr.splitlines() if is_third_party(line)]
    kept = tmp_path / 'third_party.log'
    if kept.exists():
        assert all(is_third_party(line) for line in kept.read_text().splitlines())
        assert 'kept out of the view' in result.stdout


def test_a_planned_session_ends_only_once_the_learner_ended_its_last_interaction():
    """
    Quiet after the last "no" is no end; the question asked again may come late.

    Callbacks are called directly and the quiet is set, so nothing here depends on timing.
    """
    from banditlearn_ros.nodes.session_node import SessionNode
    from rclpy.parameter import Parameter
    from std_msgs.msg import Bool, String
    from ros_harness import Ros

    def asked(ident, question, label):
        return String(data=json.dumps({'id': ident, 'question': question, 'label': label}))

    ros = Ros()
    try:
        session = ros.add(SessionNode(context=ros.context, parameter_overrides=[
            Parameter('interactions', value=1), Parameter('settle', value=0.01),
            Parameter('answer_warning', value=3600.0), Parameter('prompts', value=False)]))
        session._on_details(asked(0, 1, 'four'))
        session._on_feedback(Bool(data=False))
        session._last_event -= 60.0  # a minute of quiet, far more than settle
        assert not session.finished
        session._on_interaction(String(data=json.dumps(
            {'id': 0, 'outcome': 'yes', 'questions': 2, 'answers': 2})))
        session._on_interaction(String(data='{not json'))  # skipped, the node goes on
        assert not session.finished
        session._on_details(asked(0, 2, 'five'))
        session._on_feedback(Bool(data=True))
        session._last_event -= 60.0
        assert session.finished
        assert session.log.questions_per_interaction() == 2.0
    finally:
        ros.close()
