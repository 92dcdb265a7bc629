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
Benchmark what the ROS4HRI bridge adds per camera frame, without ROS.

The faces beside the followed one each get a pose solve, a neutral pose and a detector
(``hri_faces.OtherFaces``); every face gets an id (``FaceIds``) and every answer a gate
check (``EngagementGate``). Printed: microseconds of thread CPU per frame for 0-3 other
faces, next to the followed face's own pose solve and detector step measured in the same
run (the work the node did before), so the ratio carries across machines. Face Mesh itself
(5-6 ms a frame, docs/benchmarks.md) is not repeated: it finds every face in one pass
either way.

Run: .venv/bin/python benchmarks/bench_hri_faces.py [--frames 600]
"""

import argparse
import os
import time

from banditlearn_ros.vision.face_select import box_of
from banditlearn_ros.vision.head_gesture import HeadGestureDetector
from banditlearn_ros.vision.head_motion_synth import oscillation
from banditlearn_ros.vision.head_pose import (camera_matrix, euler_to_rotation, LANDMARKS,
                                              MODEL_POINTS, NeutralBaseline, PoseSolver)
from banditlearn_ros.vision.hri_faces import (EngagementGate, FaceIds, normalized_roi,
                                              OtherFaces)
import numpy as np

SIZE = (640, 480)


def face_points(yaw: float, pitch: float, x: float) -> np.ndarray:
    """Return Face Mesh-like landmarks (468 x 2) of the generic face at a pose."""
    cam = camera_matrix(*SIZE)
    pts = MODEL_POINTS @ euler_to_rotation(yaw, pitch, 0.0).T + np.array([x, 0.0, 700.0])
    uv = pts[:, :2] / pts[:, 2:] * cam[0, 0] + cam[:2, 2]
    full = np.tile(uv.mean(axis=0), (468, 1))
    full[list(LANDMARKS)] = uv
    return full


def run(frames: int, others: int) -> float:
    """Return microseconds per frame of the bridge's plain work with ``others`` faces."""
    t = np.arange(frames) / 30.0
    pitch = oscillation(t % 4.0, 1.0, 2.0, 1.5, 12.0)
    xs = [-250.0 + 500.0 * k / max(1, others) for k in range(others + 1)]
    faces = OtherFaces(HeadGestureDetector)
    ids, gate = FaceIds(), EngagementGate('auto')
    start = time.thread_time()
    for ti, p in zip(t, pitch):
        landmarks = [face_points(0.0, p, x) for x in xs]
        followed = box_of(landmarks[0])
        out = faces.update(landmarks, followed, SIZE, ti)
        ids.update([normalized_roi(b, *SIZE) for b in [followed] + [b for b, _ in out]], ti)
        gate.allows('bl1', ti)
    total = time.thread_time() - start
    # The landmarks are made in the loop; take their cost out.
    start = time.thread_time()
    for p in pitch:
        [face_points(0.0, p, x) for x in xs]
    return 1e6 * (total - (time.thread_time() - start)) / frames


def followed(frames: int) -> float:
    """Return microseconds per frame of the followed face's pose solve, baseline, detector."""
    t = np.arange(frames) / 30.0
    pitch = oscillation(t % 4.0, 1.0, 2.0, 1.5, 12.0)
    solver, baseline, detector = PoseSolver(), NeutralBaseline(), HeadGestureDetector()
    points = [face_points(0.0, p, 0.0)[list(LANDMARKS)] for p in pitch]
    start = time.thread_time()
    for ti, pts in zip(t, points):
        rel = baseline.update(ti, solver.solve(pts, SIZE))
        if rel is not None:
            detector.update(ti, rel[0], rel[1])
    return 1e6 * (time.thread_time() - start) / frames


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--frames', type=int, default=600, help='frames per case')
    args = parser.parse_args()
    print(f'load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; '
          f'{args.frames} frames per case')
    base = followed(args.frames)
    print(f'followed face (pose solve + neutral pose + detector): {base:.0f} us CPU per frame')
    for others in range(4):
        cost = run(args.frames, others)
        print(f'bridge with {others} other face(s): {cost:.0f} us CPU per frame '
              f'({cost / base:.2f}x the followed face)')


if __name__ == '__main__':
    main()
