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
Answers given with the head: the simulated person's face, and the whole loop end to end.

``banditlearn_bringup --answers head``: a rendered face nods or shakes for the simulated
person's yes/no, the real feedback node hears it from the images, the learner learns from
what it heard. Nothing here is timed, and nothing depends on the machine's speed.
"""

import importlib.util
import json
import subprocess
import sys

from banditlearn_ros.vision.face_renderer import FaceRenderer
from banditlearn_ros.vision.head_actor import FrameClock, HeadActor
from banditlearn_ros.vision.head_gesture import HeadGestureDetector
import numpy as np
import pytest

BRINGUP = [sys.executable, '-m', 'banditlearn_ros.bringup.main']
HAS_MEDIAPIPE = importlib.util.find_spec('mediapipe') is not None


def test_a_yes_is_a_nod_and_a_no_a_shake_one_after_the_other():
    actor = HeadActor(seed=3)
    actor.answer(True, now=0.0)
    actor.answer(False, now=actor.gestures[0].start + 0.01)  # asked again during the nod
    nod, shake = actor.gestures
    assert shake.start >= nod.end + actor.gap
    t = np.arange(0.0, shake.end + 0.5, 0.01)
    poses = np.array([actor.pose(ti) for ti in t])
    during_nod = (t >= nod.start) & (t <= nod.end)
    during_shake = (t >= shake.start) & (t <= shake.end)
    assert np.abs(poses[during_nod, 1]).max() > 5.0 and np.abs(poses[during_nod, 0]).max() == 0
    assert np.abs(poses[during_shake, 0]).max() > 8.0
    assert np.abs(poses[during_shake, 1]).max() == 0
    assert np.all(poses[t > shake.end] == 0.0)


def test_heard_answers_belong_to_the_latest_gesture():
    actor = HeadActor(seed=1)
    actor.heard(True, now=0.0)  # nothing was asked with the head: a false answer
    actor.answer(True, now=1.0)
    actor.answer(False, now=1.1)  # a new question before the nod began: the nod is dropped
    assert len(actor.gestures) == 1 and actor.dropped == 1
    actor.answer(True, now=actor.gestures[0].start + 0.1)
    first, second = actor.gestures
    actor.heard(True, now=first.end)  # a "no" heard as "yes"
    actor.heard(True, now=first.end + 0.1)  # heard twice: the second is false
    assert actor.stats(now=first.end) == {'gestures': 1, 'heard': 1, 'heard_right': 0,
                                          'false_answers': 2, 'dropped': 1}
    assert actor.stats(now=second.start)['gestures'] == 2  # begun: made
    # The second gesture goes unheard; an answer long after it is no answer to it.
    actor.heard(True, now=second.end + actor.late + 0.1)
    assert actor.stats() == {'gestures': 2, 'heard': 1, 'heard_right': 0,
                             'false_answers': 3, 'dropped': 1}
    # Each false answer says when it came and after which gesture, to see why.
    assert [d['latest'] and d['latest']['start'] for d in actor.false_detail] == [
        None, round(first.start, 3), round(second.start, 3)]
    assert actor.false_detail[1]['latest']['heard_yes'] is True


def test_the_face_clock_shows_every_gesture_whole_however_late_its_frames():
    # A busy machine: the face's timer fires every 0.05-0.3 s (3-20 frames a second).
    # Timed by its frames, the face's gestures reach the detector at their own speed.
    rng = np.random.default_rng(4)
    actor, clock, detector = HeadActor(seed=4), FrameClock(rate=20.0), HeadGestureDetector()
    wall = 100.0

    def frame():
        nonlocal wall
        wall += rng.uniform(0.05, 0.3)
        now = clock.tick(wall, actor.resting(clock.time(-np.inf)))
        return now, detector.update(now, *actor.pose(now))

    answers = [bool(a) for a in rng.integers(0, 2, 12)]
    for answer in answers:
        for _ in range(10):  # at rest: the clock catches up with the wall
            now, _ = frame()
        assert now == wall
        actor.answer(answer, clock.time(wall))
        detector.question()
        while not actor.resting(now):
            now, decision = frame()
            if decision is not None:
                actor.heard(decision.answer, now)
    assert actor.stats() == {'gestures': 12, 'heard': 12, 'heard_right': 12,
                             'false_answers': 0, 'dropped': 0}
    assert sum(answers) not in (0, 12)  # both kinds were made


def test_the_face_clock_steps_one_frame_at_a_time():
    clock = FrameClock(rate=10.0)
    assert clock.time(5.0) == 5.0  # before the first frame: the wall
    assert clock.tick(5.0, resting=False) == 5.0
    assert [round(clock.tick(w, resting=False), 6) for w in (9.0, 9.5)] == [5.1, 5.2]
    assert clock.tick(9.6, resting=True) == 9.6  # at rest and behind: caught up
    assert round(clock.tick(9.6, resting=True), 6) == 9.7  # not behind: a frame on
    with pytest.raises(ValueError):
        FrameClock(rate=0.0)


def test_the_face_renderer_refuses_tiny_images_and_caches_poses():
    with pytest.raises(ValueError):
        FaceRenderer(8, 8)
    face = FaceRenderer(64, 48, step=1.0, cache=2)
    a = face.render(10.2, 0.0)
    assert face.render(9.8, 0.1) is a  # the same pose once rounded
    assert not np.array_equal(face.render(0.0, 0.0), a)


@pytest.mark.skipif(not HAS_MEDIAPIPE, reason='mediapipe is not installed')
def test_face_mesh_reads_the_rendered_face_turn():
    from banditlearn_ros.vision.head_pose import FaceMeshHeadPose
    face = FaceRenderer(320, 240, face_height=132)
    est = FaceMeshHeadPose(max_faces=1)
    try:
        for i in range(12):  # the neutral pose
            est.process(face.render(0.0, 0.0), i / 20)
        turned = est.process(face.render(15.0, 0.0), 0.65)
        down = est.process(face.render(0.0, 10.0), 0.7)
    finally:
        est.close()
    assert turned.found and down.found
    # Within a few degrees of the rendered turn, the other angle near zero.
    assert 10.0 <= turned.yaw <= 22.0 and abs(turned.pitch) <= 5.0
    assert 6.0 <= down.pitch <= 15.0 and abs(down.yaw) <= 5.0


def test_answers_head_refuses_another_system():
    result = subprocess.run(BRINGUP + ['--answers', 'head', '--system', 'gestures'],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        'banditlearn_bringup: error: --answers head runs its own system (head_answers); '
        'drop --system, --camera and --dataset']


@pytest.mark.ros
@pytest.mark.skipif(not HAS_MEDIAPIPE, reason='mediapipe is not installed')
def test_a_short_session_answered_with_the_head(tmp_path):
    result = subprocess.run(
        BRINGUP + ['--answers', 'head', '--rounds', '8', '--every', '4', '--out', str(tmp_path),
                   '--labels', 'fist,two,five',
                   '--set', "gesture_show_node.gestures=['fist', 'two', 'five']"],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.replace('\r', '\n').splitlines() if line.strip()]
    summary = json.loads(lines[-1])
    # Not serial: the face is timed by its own frames (FrameClock) and a hand is shown its
    # frames too, so a busy machine slows the session down instead of losing gestures (held
    # with both cores kept busy). A presentation the camera node did not take is no
    # interaction.
    assert summary['system'] == 'head_answers'
    assert summary['interactions'] + summary['presentations_missed'] == 8, summary
    assert summary['interactions'] >= 6, summary
    head = summary['head_answers']
    # What the feedback node saw, in full on a failure (pytest shortens a dict): once in
    # about twenty suites it heard none of the answers, and the summary did not say why.
    said = json.dumps(summary)
    heard_by = head['listener']
    assert heard_by['face_mesh'] == 'loaded', said
    assert heard_by['pose_errors'] == 0, said
    # Every interaction's questions were answered with the head (at least one each), the
    # feedback node heard them, and the learner learned from what it heard.
    assert head['gestures'] >= summary['interactions'], said
    assert head['heard'] >= head['gestures'] - 1, said
    assert head['heard_right'] >= head['heard'] - 1, said
    assert head['false_answers'] == 0, said
    assert summary['updates'] >= head['heard_right'] - 1, said
