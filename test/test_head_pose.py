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

"""Head pose: PnP maths, neutral baseline, face choice, and real faces turned by warping."""

from banditlearn_ros.vision import head_motion_synth as hs
from banditlearn_ros.vision.face_select import FaceTracker
from banditlearn_ros.vision.head_gesture import HeadGestureDetector
from banditlearn_ros.vision.head_pose import (
    euler_to_rotation, FaceMeshHeadPose, NeutralBaseline, PoseSolver, rotation_to_euler)
import cv2
import numpy as np
import pytest
from vision_helpers import project_model

SIZE = (640, 480)


@pytest.mark.parametrize('angles', [(0, 0, 0), (25, 0, 0), (0, -20, 0), (0, 0, 15),
                                    (-30, 12, -8), (10, 25, 5)])
def test_euler_round_trip(angles):
    back = rotation_to_euler(euler_to_rotation(*angles))
    assert np.allclose(back, angles, atol=1e-9)


@pytest.mark.parametrize('angles', [(0, 0, 0), (20, 0, 0), (0, 15, 0), (-25, -10, 5)])
def test_pnp_recovers_the_projected_model(angles):
    rng = np.random.default_rng(1)
    pts = project_model(*angles, SIZE) + rng.normal(0, 0.3, (12, 2))
    got = PoseSolver().solve(pts, SIZE)
    assert np.allclose(got, angles, atol=1.5), got


def test_pnp_warm_start_follows_a_sequence():
    solver = PoseSolver()
    for pitch in np.linspace(-15, 15, 11):
        got = solver.solve(project_model(5, pitch, 0, SIZE), SIZE)
        assert abs(got[1] - pitch) < 0.5


def test_pnp_rejects_bad_points():
    assert PoseSolver().solve(np.full((12, 2), np.nan), SIZE) is None
    assert PoseSolver().solve(np.zeros((5, 2)), SIZE) is None


def test_baseline_removes_a_persons_offset_and_ignores_gestures():
    base = NeutralBaseline(warmup=5, adapt_tau=5.0)
    for i in range(4):
        assert base.update(i / 30, (3.0, 22.0, -2.0)) is None
    rel = base.update(4 / 30, (3.0, 22.0, -2.0))
    assert np.allclose(rel, 0.0)
    # A 15-degree nod far from neutral does not move the baseline.
    for i in range(5, 65):
        base.update(i / 30, (3.0, 37.0, -2.0))
    assert abs(base.neutral[1] - 22.0) < 1e-9
    # A small posture change is followed slowly.
    for i in range(65, 65 + 30 * 20):
        base.update(i / 30, (3.0, 25.0, -2.0))
    assert 24.0 < base.neutral[1] <= 25.0


def test_tracker_picks_big_central_face_and_keeps_it():
    tracker = FaceTracker()
    small_side = (10, 10, 90, 110)
    big_centre = (250, 150, 400, 340)
    sel = tracker.update([small_side, big_centre], SIZE)
    assert sel.index == 1 and sel.new_person
    # Next frame: someone bigger walks in; the answering person stays the same.
    bigger = (420, 50, 640, 400)
    sel2 = tracker.update([bigger, (255, 152, 402, 344)], SIZE)
    assert sel2.index == 1 and not sel2.new_person and sel2.track_id == sel.track_id


def test_tracker_drops_a_lost_person_after_max_missed():
    tracker = FaceTracker(max_missed=3)
    first = tracker.update([(250, 150, 400, 340)], SIZE)
    for _ in range(3):
        assert tracker.update([], SIZE) is None
    assert tracker.tracking
    assert tracker.update([], SIZE) is None
    assert not tracker.tracking
    other = tracker.update([(20, 20, 120, 140)], SIZE)
    assert other.new_person and other.track_id != first.track_id


def _load_face(path):
    img = cv2.imread(str(path))
    h, w = img.shape[:2]
    scale = min(SIZE[1] / h, SIZE[0] / w)
    img = cv2.resize(img, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
    top = (SIZE[1] - img.shape[0]) // 2
    left = (SIZE[0] - img.shape[1]) // 2
    return cv2.copyMakeBorder(img, top, SIZE[1] - img.shape[0] - top, left,
                              SIZE[0] - img.shape[1] - left, cv2.BORDER_REPLICATE)


FACES = ['mps_business-person.png', 'astronaut.png', 'mps_face2.png']


@pytest.fixture(scope='module')
def faces(request):
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent.parent / 'shared' / 'data' / 'real' / 'faces'
    if not root.is_dir():
        pytest.skip(f'real faces folder {root} is absent')
    out = {}
    finder = FaceMeshHeadPose(static_image_mode=True)
    for name in FACES:
        img = _load_face(root / name)
        found = finder.landmarks(img, depth=True)
        out[name] = (img, found)
    finder.close()
    return out


@pytest.mark.slow
def test_face_mesh_finds_the_real_faces(shared_data, faces):
    for name, (img, found) in faces.items():
        assert len(found) >= 1, name
        assert found[0].shape == (468, 3)


@pytest.mark.parametrize('name', FACES)
@pytest.mark.slow
def test_pose_follows_the_applied_rotation(shared_data, faces, name):
    img, found = faces[name]
    est = FaceMeshHeadPose(baseline_warmup=1, static_image_mode=True)
    try:
        assert est.process(img, 0.0).found
        for k, (axis, angle) in enumerate([(0, 15.0), (0, -15.0), (1, 15.0), (1, -15.0)]):
            applied = [0.0, 0.0, 0.0]
            applied[axis] = angle
            pose = est.process(hs.rotate_face(img, found[0], *applied), 0.1 * (k + 1))
            got = (pose.yaw, pose.pitch)
            print(name, 'applied', applied[:2], 'estimated', np.round(got, 1))
            # Same direction, a real share of the size, and little leak into the other axis.
            assert np.sign(got[axis]) == np.sign(angle), (name, applied, got)
            assert abs(got[axis]) >= 0.4 * abs(angle), (name, applied, got)
            assert abs(got[1 - axis]) < abs(got[axis]), (name, applied, got)
    finally:
        est.close()


@pytest.mark.parametrize('kind', ['nod', 'shake'])
@pytest.mark.slow
def test_warped_real_face_gesture_is_detected(shared_data, faces, kind):
    # A 2 Hz nod/shake made by turning a real photo frame by frame, 30 frames a second,
    # through Face Mesh (video mode), the pose solver, the baseline and the detector.
    img, found = faces['mps_business-person.png']
    rate = 30.0
    t = np.arange(0, 2.2, 1 / rate)
    wave = hs.oscillation(t, 0.6, 2.0, 1.5, 12.0)
    est = FaceMeshHeadPose(baseline_warmup=10)
    det = HeadGestureDetector()
    decisions, track = [], []
    try:
        for ti, w in zip(t, wave):
            angles = (0.0, w, 0.0) if kind == 'nod' else (w, 0.0, 0.0)
            pose = est.process(hs.rotate_face(img, found[0], *angles, step=6), ti)
            assert pose.found
            if pose.relative is None:
                continue
            track.append((w, pose.yaw, pose.pitch))
            d = det.update(ti, pose.yaw, pose.pitch)
            if d is not None:
                decisions.append(d)
    finally:
        est.close()
    track = np.array(track)
    axis = 2 if kind == 'nod' else 1
    corr = np.corrcoef(track[:, 0], track[:, axis])[0, 1]
    print(kind, 'correlation applied/estimated', round(corr, 3), decisions)
    assert corr > 0.8
    assert [d.kind for d in decisions] == [kind]


def test_two_real_faces_keep_the_same_answering_person(shared_data):
    # Two children in one photo: the bigger / more central face is chosen, and the same face
    # is kept while the picture moves from frame to frame.
    from banditlearn_ros.vision.face_select import box_of
    img = _load_face(shared_data / 'real' / 'faces' / 'mps_face_test.jpg')
    est = FaceMeshHeadPose(max_faces=3, baseline_warmup=3)
    try:
        faces = est.landmarks(img)
        assert len(faces) == 2
        scores = [est.tracker.score(box_of(f), SIZE) for f in faces]
        best = box_of(faces[int(np.argmax(scores))])
        first = est.process(img, 0.0)
        assert first.found and first.faces == 2 and first.new_person
        start = np.mean(np.reshape(first.box, (2, 2)), axis=0)
        assert np.allclose(start, np.mean(np.reshape(best, (2, 2)), axis=0), atol=15)
        for k in range(1, 8):
            pose = est.process(np.roll(img, 4 * k, axis=1), k / 30.0)
            assert pose.found and pose.faces == 2
            assert pose.track_id == first.track_id and not pose.new_person
            centre = np.mean(np.reshape(pose.box, (2, 2)), axis=0)
            assert abs(centre[0] - (start[0] + 4 * k)) < 15
        assert est.baseline.ready
    finally:
        est.close()
