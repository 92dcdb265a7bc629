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

"""ROS4HRI without ROS: action units, ROI matching, own face ids, the engagement gate."""

from banditlearn_ros.vision import hri_faces as hf
from banditlearn_ros.vision.head_gesture import GestureDecision, HeadGestureDetector
from banditlearn_ros.vision.head_motion_synth import oscillation
from banditlearn_ros.vision.head_pose import camera_matrix, euler_to_rotation, LANDMARKS
from banditlearn_ros.vision.head_pose import MODEL_POINTS
import numpy as np
import pytest


def _decision(answer, confidence=0.8, amplitude=12.0):
    return GestureDecision(answer, 'nod' if answer else 'shake', confidence, 0.5, 0.5, 3.0,
                           2.0, 3.0, 3, amplitude)


def test_a_nod_is_unit_85_and_a_shake_unit_84_all_others_at_zero_confidence():
    for answer, unit, other in ((True, 85, 84), (False, 84, 85)):
        intensity, confidence = hf.action_units(_decision(answer, 0.7, 30.0))
        assert intensity.dtype == confidence.dtype == np.float32
        assert intensity.shape == confidence.shape == (99,)
        assert confidence[unit] == pytest.approx(0.7, abs=1e-6)
        assert intensity[unit] == 1.0  # 30 degrees: past a full swing
        assert np.count_nonzero(confidence) == 1 and np.count_nonzero(intensity) == 1
        assert confidence[other] == 0.0
    assert hf.action_units(_decision(True, amplitude=5.0))[0][85] == pytest.approx(0.25)


def test_rois_are_normalized_and_clipped():
    assert hf.normalized_roi((-10, 20, 330, 120), 320, 240) == (0.0, 20 / 240, 1.0, 0.5)


def test_a_face_takes_the_id_of_the_roi_it_overlaps_most():
    rois = {'b': (0.5, 0.1, 0.9, 0.9), 'a': (0.0, 0.1, 0.45, 0.9)}
    assert hf.match_face((0.05, 0.15, 0.4, 0.85), rois) == 'a'
    assert hf.match_face((0.55, 0.1, 0.95, 0.9), rois) == 'b'
    assert hf.match_face((0.0, 0.0, 0.05, 0.05), rois) is None  # overlaps nothing enough
    assert hf.match_face((0.1, 0.1, 0.4, 0.9), {}) is None


def test_own_ids_follow_faces_and_new_faces_get_new_ids():
    ids = hf.FaceIds(prefix='bl', max_missing=1.0)
    left, right = (0, 0, 10, 10), (20, 0, 30, 10)
    assert ids.update([left, right], 0.0) == ['bl1', 'bl2']
    assert ids.update([(21, 0, 31, 10), (1, 0, 11, 10)], 0.1) == ['bl2', 'bl1']
    assert ids.tracked == ['bl1', 'bl2']
    assert ids.update([right], 0.5) == ['bl2']
    assert ids.update([left], 2.0) == ['bl3']  # bl1 gone for 1.9 s: a new face
    assert ids.tracked == ['bl3']


def test_gate_auto_opens_without_statuses_and_gates_while_they_arrive():
    gate = hf.EngagementGate('auto', max_age=1.0, quiet=3.0)
    assert gate.allows('f1', 5.0)[0] and not gate.gating(5.0)
    gate.person_face('p1', 'f1')
    gate.person_face('p2', 'f2')
    gate.status('p1', hf.ENGAGED, 10.0)
    gate.status('p2', hf.DISENGAGED, 10.0)
    assert gate.gating(10.2)
    assert gate.allows('f1', 10.2) == (True, 'person p1 ENGAGED')
    assert gate.allows('f2', 10.2) == (False, 'not engaged: p2 DISENGAGED')
    assert not gate.allows('f3', 10.2)[0]  # a face of no known person
    assert not gate.allows('f1', 11.5)[0]  # the status is 1.5 s old
    gate.status('p1', hf.ENGAGING, 11.4)
    assert gate.allows('f1', 11.5) == (True, 'person p1 ENGAGING')
    gate.status('p1', hf.DISENGAGING, 11.6)
    assert not gate.allows('f1', 11.7)[0]
    assert gate.gating(14.6) and not gate.gating(14.7)  # 3 s after the last status
    assert gate.allows('f2', 14.7) == (True, 'open: no engagement statuses')
    assert gate.state(14.7).startswith('auto: open')
    assert gate.state(12.0).startswith('auto: answers only from')


def test_gate_on_and_off_and_forgotten_persons():
    on, off = hf.EngagementGate('on'), hf.EngagementGate('off')
    assert not on.allows('f1', 0.0)[0] and 'no status heard yet' in on.state(0.0)
    assert off.allows('f1', 0.0)[0] and off.state(0.0).startswith('off')
    off.status('p1', hf.DISENGAGED, 0.0)
    assert off.allows('f9', 0.0)[0]
    on.person_face('p1', 'f1')
    on.status('p1', hf.ENGAGED, 100.0)
    assert on.allows('f1', 100.5)[0]
    assert not on.allows('f1', 200.0)[0]  # 'on' never opens by itself
    on.persons(['p2'])
    assert not on.allows('f1', 100.5)[0]
    with pytest.raises(ValueError, match='auto | on | off'):
        hf.EngagementGate('sometimes')


def _face_points(yaw, pitch, x_offset, size=(640, 240)):
    # The generic face model projected at a pose: what Face Mesh gives for that face.
    cam = camera_matrix(*size)
    pts = MODEL_POINTS @ euler_to_rotation(yaw, pitch, 0.0).T + np.array([x_offset, 0.0, 600.0])
    uv = pts[:, :2] / pts[:, 2:] * cam[0, 0] + cam[:2, 2]
    full = np.tile(uv.mean(axis=0), (468, 1))
    full[list(LANDMARKS)] = uv
    return full


def test_other_faces_get_their_own_detectors():
    faces = hf.OtherFaces(HeadGestureDetector, warmup=5)
    t = np.arange(0.0, 3.0, 1 / 30)
    pitch = oscillation(t, 0.8, 2.0, 1.5, 12.0)
    decisions = []
    for ti, p in zip(t, pitch):
        left = _face_points(0.0, 0.0, -200.0)
        right = _face_points(0.0, p, 200.0)
        out = faces.update([left, right], None, (640, 240), ti)
        assert len(out) == 2
        decisions += [(i, d.answer) for i, (_, d) in enumerate(out) if d is not None]
    assert decisions == [(1, True)]  # the right face nodded, the left one kept still
    assert len(faces) == 2
    skip = hf.box_of(_face_points(0.0, 0.0, -200.0))
    assert len(faces.update([_face_points(0.0, 0.0, -200.0)], skip, (640, 240), 3.0)) == 0
    faces.update([], None, (640, 240), 5.0)
    assert len(faces) == 0  # both gone for more than 1.5 s
