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

"""banditlearn_bag record over real rclpy (loopback), a killed recorder, and DDS replay."""

import json
import os
from pathlib import Path
import signal
import subprocess
import sys
import time

from banditlearn_ros import bags as bagio
from banditlearn_ros.bags.recorded_session import learner_config, read_events
from banditlearn_ros.learning import TeacherModel
from banditlearn_ros.learning.offline.replay import replay
from banditlearn_ros.learning.protocol.simulated_teacher import SimulatedTeacher
import numpy as np
import pytest

pytest.importorskip('rosbags')
rclpy = pytest.importorskip('rclpy')

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / 'bags' / 'sample_session'


def _command(tool: str):
    script = Path(sys.executable).with_name(tool)
    if script.exists():
        return [str(script)]
    module = {'banditlearn_bag': 'banditlearn_ros.tools.bag',
              'banditlearn_bringup': 'banditlearn_ros.bringup.main'}[tool]
    return [sys.executable, '-m', module]


def _wait(condition, timeout: float, what: str, poll: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(poll)
    assert condition(), f'gave up waiting for {what}'


def _stop(process, sig=signal.SIGINT):
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _recorded_messages(folder: Path) -> int:
    from banditlearn_ros.bags.mcap import scan_mcap
    files = list(folder.glob('*.mcap'))
    try:
        return sum(len(scan_mcap(f).messages) for f in files)
    except (OSError, ValueError):
        return 0


@pytest.mark.parametrize('stop', [signal.SIGTERM, signal.SIGINT])
def test_record_stops_on_a_signal_with_metadata_and_offered_qos(tmp_path, stop):
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import Image
    from std_msgs.msg import String

    from banditlearn_ros.nodes.bridge import array_to_image
    from ros_harness import Ros
    ros = Ros()
    topic = f'/record_test_{os.getpid()}'
    out = tmp_path / 'rec'
    recorder = subprocess.Popen(
        _command('banditlearn_bag') + ['record', topic, topic + '/image', '-o', str(out),
                                       '--image-rate', '0', '--image-width', '32'],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        text_pub = ros.probe.create_publisher(String, topic, 10)
        image_pub = ros.probe.create_publisher(
            Image, topic + '/image', QoSProfile(depth=10,
                                                reliability=ReliabilityPolicy.BEST_EFFORT))
        # The recorder subscribes once it sees the publishers (discovery every 0.5 s).
        assert ros.spin_until(lambda: text_pub.get_subscription_count() >= 1
                              and image_pub.get_subscription_count() >= 1, 30)
        frame = np.zeros((48, 64, 3), np.uint8)
        frame[:, 32:] = 255
        for i in range(20):
            text_pub.publish(String(data=f'hello {i}'))
            if i < 3:
                image_pub.publish(array_to_image(frame))
            ros.spin_for(0.02)
        text_pub.wait_for_all_acked(rclpy.duration.Duration(seconds=5.0))
        ros.spin_for(1.5)  # best-effort images have no acknowledgement to wait for
        _stop(recorder, stop)
    finally:
        if recorder.poll() is None:
            recorder.kill()
        ros.close()
    out_text, err = recorder.communicate()
    assert recorder.returncode == 0, err
    assert (out / 'metadata.yaml').is_file()
    with bagio.open_bag(out) as bag:
        assert not bag.notes
        texts = [m.msg.data for m in bag.messages([topic])]
        images = [m.msg for m in bag.messages([topic + '/image'])]
        qos = {t.name: t.qos[0]['reliability'] for t in bag.topics.values()}
    assert texts == [f'hello {i}' for i in range(20)]
    assert 1 <= len(images) <= 3 and {(m.width, m.height) for m in images} == {(32, 24)}
    assert qos == {topic: 'RELIABLE', topic + '/image': 'BEST_EFFORT'}
    from rosbags.rosbag2 import Reader
    with Reader(out) as reader:
        assert reader.message_count == len(texts) + len(images)


@pytest.mark.slow
def test_a_killed_recorder_keeps_the_session_and_replay_reproduces_it(tmp_path):
    """The robot user's check: SIGKILL the recorder mid-session, then info and replay."""
    out = tmp_path / 'session'
    recorder = subprocess.Popen(
        _command('banditlearn_bag') + ['record', '-o', str(out), '--flush-every', '0.2'],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    session = None
    try:
        _wait(lambda: out.is_dir(), 30, 'the recorder to start')
        # A teaching session in one process: digits, UCWL, a teacher with 10 % flip noise,
        # 25 gestures a second (a person shows one every second or two; a recorder that
        # cannot keep up with a publisher's queue loses messages, as ros2 bag record does).
        session = subprocess.Popen(
            _command('banditlearn_bringup') + [
                '--system', 'teach_sim', '--noise', '0.1', '--seed', '3', '--rounds', '600',
                '--every', '0',
                '--set', 'dataset_node.start_delay=3.0', '--set', 'dataset_node.rate=25.0',
                # One question per gesture: the ids below count interactions one to one.
                '--set', 'learner_node.max_questions=1'],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # A session that ends early (a bad option, say) fails the test at once, with its reason.
        # About 8 messages a gesture (the recorder keeps each interaction's end too).
        _wait(lambda: _recorded_messages(out) >= 1300 or session.poll() is not None, 240,
              'recorded messages', poll=0.2)
        assert session.poll() is None, f'the session ended early: {session.stderr.read()}'
        recorder.send_signal(signal.SIGKILL)
        recorder.wait(timeout=30)
        written = out / f'{out.name}_0.mcap'
        size_at_kill = written.stat().st_size
        session.wait(timeout=300)
    finally:
        for process in (recorder, session):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    assert recorder.returncode == -signal.SIGKILL
    assert session.returncode == 0, session.stderr.read()
    assert not (out / 'metadata.yaml').exists() and written.stat().st_size == size_at_kill

    info = subprocess.run(_command('banditlearn_bag') + ['info', str(out), '--json'],
                          capture_output=True, text=True, timeout=120)
    assert info.returncode == 0, info.stderr
    summary = json.loads(info.stdout)
    note = next(n for n in summary['notes'] if 'cut off' in n)
    assert 'lost: 1 unfinished or damaged chunk(s)' in note or 'lost: nothing written' in note \
        or 'bytes of an unfinished record' in note

    with bagio.open_bag(out) as bag:
        # No flags: the learner's configuration is in what the killed recorder wrote.
        config = learner_config(bag)
        events, counts = read_events(bag)
        details = [json.loads(m.msg.data) for m in bag.messages(['gesture_prediction_details'])]
    assert counts['features'] >= 150
    # Every interaction from the first on was kept, in order, without a gap.
    assert [d['id'] for d in details] == list(range(len(details)))

    recorded = replay(events, config)
    figures = recorded.figures
    # The replay asks exactly what the session's learner asked ...
    assert figures['questions_as_recorded'] == min(figures['recorded_questions'],
                                                   len(recorded.questions))
    assert figures['recorded_questions'] >= counts['features'] - 1
    # ... so the recorded answers give the learner node's figures.
    answers = [e.value for e in events if e.kind == 'feedback']
    matched = figures['feedback_matched']
    assert matched == len(answers) and figures['feedback_dropped'] == 0
    assert figures['mistake_rate'] == pytest.approx(answers.count(False) / matched,
                                                    abs=1e-9)
    # The session's simulated person, replayed with its seed and noise, says the same.
    teacher = replay(events, config, SimulatedTeacher(TeacherModel(rho0=0.1, rho1=0.1),
                                                      seed=3, labels=config.labels))
    n = len(recorded.questions)
    assert teacher.questions[:n - 1] == recorded.questions[:n - 1]
    assert teacher.figures['true_mistakes'] == pytest.approx(
        figures['true_mistakes'], abs=1)


@pytest.mark.parametrize('answers', ['recorded', 'teacher'])
def test_dds_lockstep_replay_gives_the_deterministic_figures(answers):
    from banditlearn_ros.nodes.learner_node import LearnerNode
    from banditlearn_ros.nodes.teacher_node import TeacherNode
    from banditlearn_ros.nodes.bag_player import BagPlayerNode
    from banditlearn_ros.bags.sample import replay_figures
    from rclpy.parameter import Parameter
    from std_msgs.msg import String
    from ros_harness import Ros

    noise = 0.05
    expected = replay_figures(str(SAMPLE), noise if answers == 'teacher' else None, 0)
    with bagio.open_bag(SAMPLE) as bag:
        config = learner_config(bag)
    ros = Ros()
    try:
        learner = ros.add(LearnerNode(context=ros.context, parameter_overrides=[
            Parameter(name, value=value) for name, value in config.parameters.items()
            if name not in ('model_path', 'autosave_every')] + [
            Parameter('model_path', value=''), Parameter('autosave_every', value=0)]))
        if answers == 'teacher':
            ros.add(TeacherNode(context=ros.context, parameter_overrides=[
                Parameter('rho0', value=noise), Parameter('rho1', value=noise),
                Parameter('labels', value=config.labels)]))
        asked = ros.listen(String, 'gesture_prediction', qos=500)
        player = ros.add(BagPlayerNode(context=ros.context, parameter_overrides=[
            Parameter('bag', value=str(SAMPLE)), Parameter('start_delay', value=0.5),
            Parameter('answers', value=answers)]))
        assert ros.spin_until(lambda: player.finished, 300)
        received = expected['figures']['feedback_received']
        ros.spin_until(lambda: len(asked) >= 100 and learner.live.interaction.stats()[
            'feedback_received'] >= received, 30)
        stats = learner.live.interaction.stats()
    finally:
        ros.close()
    assert [m.data for m in asked] == expected['questions']
    for key in ('interactions', 'questions_asked', 'feedback_received', 'feedback_matched',
                'feedback_dropped', 'updates'):
        assert stats[key] == expected['figures'][key], key
    for key in ('mistake_rate', 'exploration_rate'):
        assert stats[key] == pytest.approx(expected['figures'][key], abs=1e-9), key


def test_a_lockstep_round_ends_on_the_learners_word_not_on_a_clock():
    """
    The player's callbacks called directly, with times given: nothing here depends on timing.

    A gesture's round ends when the learner announces the end of an interaction begun after
    the gesture was sent; an answer alone, the end of an earlier interaction, or a wait
    longer than the old 5 s bound do not end it.
    """
    from banditlearn_ros.nodes.bag_player import BagPlayerNode
    from rclpy.parameter import Parameter
    from std_msgs.msg import Bool, String
    from ros_harness import Ros

    def event(ident, **more):
        return String(data=json.dumps(dict(id=ident, **more)))
    ros = Ros()
    try:
        teacher, recorded = (ros.add(BagPlayerNode(
            node_name=f'bag_player_{answers}', context=ros.context, parameter_overrides=[
                Parameter('bag', value=str(SAMPLE)), Parameter('answers', value=answers)]))
            for answers in ('teacher', 'recorded'))
        # The learner's side of the topic: the player knows ends will be announced.
        ends = ros.probe.create_publisher(String, 'gesture_interaction', 10)
        assert ros.spin_until(lambda: teacher._ends.get_publisher_count() > 0)
        assert ends.topic_name == '/gesture_interaction'
        teacher._on_details(event(6, question=1, label='fist'))  # an earlier gesture's
        t = time.monotonic()  # the player's clock: its callbacks read it too
        teacher._send(teacher.gestures[0], t)
        r = teacher._round
        assert r['after'] == 6
        teacher._on_question(String(data='fist'))
        teacher._on_answer(Bool(data=False))
        assert not teacher._round_over(t + 10.0)  # longer than the old bound
        teacher._on_end(event(6, outcome='superseded', questions=1, answers=0))
        assert not teacher._round_over(t + 10.0)  # not this gesture's interaction
        teacher._on_details(event(7, question=1, label='fist'))
        assert not r['ended']
        teacher._on_end(event(7, outcome='no', questions=1, answers=1))
        assert r['ended'] and teacher._round_over(t + 10.0)
        # A learner that says nothing at all (a refused vector): the bound ends the round.
        teacher._send(teacher.gestures[1], t)
        assert not teacher._round_over(t + 29.0)
        assert teacher._round_over(t + 31.0)
        # Recorded answers: a gesture the learner ended without a question (never taught)
        # gets its recorded answer at once, as the recording did, not after the bound.
        gesture = recorded.gestures[0]
        assert len(gesture.answers) == 1
        recorded._send(gesture, t)
        assert not recorded._round_over(t + 1.0) and recorded.counters.get('answers_sent') == 0
        recorded._on_end(event(0, outcome='unknown', questions=0, answers=0))
        assert not recorded._round_over(t + 1.0)  # the answer goes out now ...
        assert recorded.counters.get('answers_sent') == 1
        assert recorded._round_over(t + 1.0)  # ... and the round is over
    finally:
        ros.close()
