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
Hand-pose features from MediaPipe's 21 hand landmarks.

Positions are normalised: the wrist goes to the origin, the wrist-to-middle-knuckle
distance becomes 1 and that direction points up, so the features do not depend on where
the hand is, how big it looks or how it is turned in the image plane.  Then come the
bending angle at every finger joint, the spread between neighbouring fingers, and the
distances between fingertips and from each fingertip to the wrist.
"""

from typing import List, Tuple

import numpy as np

from .geometry import angle_at

N_LANDMARKS = 21
_TIPS = (4, 8, 12, 16, 20)
_FINGERS = ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12), (13, 14, 15, 16), (17, 18, 19, 20))
_FINGER_NAMES = ('thumb', 'index', 'middle', 'ring', 'little')
_JOINT_NAMES = ('mcp', 'pip', 'dip')


def _names() -> List[str]:
    names = ['bias']
    for i in range(1, N_LANDMARKS):
        names += [f'lm{i:02d}_x', f'lm{i:02d}_y']
    for f in _FINGER_NAMES:
        names += [f'{f}_bend_{j}' for j in _JOINT_NAMES]
    names += [f'spread_{a}_{b}' for a, b in zip(_FINGER_NAMES, _FINGER_NAMES[1:])]
    for i in range(5):
        for j in range(i + 1, 5):
            names.append(f'tip_distance_{_FINGER_NAMES[i]}_{_FINGER_NAMES[j]}')
    names += [f'tip_to_wrist_{f}' for f in _FINGER_NAMES]
    names += [f'extension_{f}' for f in _FINGER_NAMES]
    return names


FEATURE_NAMES: Tuple[str, ...] = tuple(_names())
"""Names of the landmark features, in vector order."""


def normalise_landmarks(landmarks: np.ndarray) -> np.ndarray:
    """Return (21, 2) positions with the wrist at 0, the middle knuckle at (0, -1)."""
    lm = np.asarray(landmarks, dtype=np.float64)
    if lm.shape[0] != N_LANDMARKS or lm.shape[1] < 2:
        raise ValueError(f'expected ({N_LANDMARKS}, 2 or 3) landmarks, got {lm.shape}')
    xy = lm[:, :2] - lm[0, :2]
    axis = xy[9]
    length = float(np.linalg.norm(axis))
    if length < 1e-9:
        raise ValueError('degenerate landmarks: wrist and middle knuckle coincide')
    # Rotate so the wrist->middle-knuckle direction is "up" (-y) and scale it to 1.
    up = axis / length
    side = np.array([-up[1], up[0]])
    return np.column_stack([xy @ side, xy @ up]) / length * np.array([1.0, -1.0])


class LandmarkFeatures:
    """
    Turn 21 hand landmarks into ``len(FEATURE_NAMES)`` pose features.

    Joint angles use z when the landmarks have it (MediaPipe's relative depth), so a finger
    bent towards the camera still reads as bent.

    Examples
    --------
    >>> import numpy as np
    >>> lm = np.random.default_rng(0).normal(size=(21, 3)) * 10 + 100
    >>> LandmarkFeatures().features(lm).shape == (len(FEATURE_NAMES),)
    True

    """

    name = 'landmarks'
    names = FEATURE_NAMES

    @property
    def dim(self) -> int:
        """Length of the feature vector."""
        return len(FEATURE_NAMES)

    def features(self, landmarks: np.ndarray) -> np.ndarray:
        """Return the feature vector of (21, 2) or (21, 3) landmarks (any units)."""
        lm = np.asarray(landmarks, dtype=np.float64)
        xy = normalise_landmarks(lm)
        scale = float(np.linalg.norm(lm[9, :2] - lm[0, :2]))
        pts3 = np.zeros((N_LANDMARKS, 3))
        pts3[:, :2] = lm[:, :2] / scale
        if lm.shape[1] >= 3:
            pts3[:, 2] = (lm[:, 2] - lm[0, 2]) / scale
        values = [1.0]
        values += list((xy[1:] / 2.5).ravel())
        for chain in _FINGERS:
            prev = 0
            for j in range(3):
                a, b, c = (prev if j == 0 else chain[j - 1]), chain[j], chain[j + 1]
                # Bend = pi - interior angle: 0 for a straight finger.
                values.append((np.pi - angle_at(pts3[b], pts3[a], pts3[c])) / np.pi)
        for f in range(4):
            u = xy[_FINGERS[f][3]] - xy[_FINGERS[f][0]]
            v = xy[_FINGERS[f + 1][3]] - xy[_FINGERS[f + 1][0]]
            values.append(angle_at(np.zeros(2), u, v) / np.pi)
        tips = xy[list(_TIPS)]
        for i in range(5):
            for j in range(i + 1, 5):
                values.append(np.linalg.norm(tips[i] - tips[j]) / 2.5)
        values += list(np.linalg.norm(tips, axis=1) / 2.5)
        for chain in _FINGERS:
            # Extension: tip distance from the wrist over the knuckle's (> 1 when straight).
            knuckle = np.linalg.norm(xy[chain[0]]) + 1e-9
            values.append(min(np.linalg.norm(xy[chain[3]]) / knuckle, 4.0) / 4.0)
        return np.nan_to_num(np.asarray(values, dtype=np.float64))
