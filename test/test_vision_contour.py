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

"""Contour features: finger count against the renderer's truth, invariance, names."""

from banditlearn_ros.vision.contour_features import ContourFeatures, FEATURE_NAMES
from banditlearn_ros.vision.geometry import largest_contour
from banditlearn_ros.vision.hand_renderer import GESTURES, HandRenderer
from banditlearn_ros.vision.hand_segmentation import HandSegmenter
import cv2
import numpy as np
import pytest
from vision_helpers import render_many

# Rotation-invariant groups (the central moments and orientation terms keep direction).
ROTATION_INVARIANT = [i for i, n in enumerate(FEATURE_NAMES)
                      if n.startswith(('hu_', 'fourier_', 'signature_', 'defect_', 'finger_',
                                       'solidity', 'circularity', 'convexity', 'palm_'))]

# Features that do not jump by a whole step when the finger count changes.
COUNT_FREE = np.array([not n.startswith(('fingers_is_', 'finger_count', 'deep_defects'))
                       for n in FEATURE_NAMES])


@pytest.fixture(scope='module')
def hands():
    return render_many(HandRenderer(seed=11), 140, seed=5)


def test_names_and_size():
    x = ContourFeatures().features(np.array([[0, 0], [30, 0], [30, 50], [0, 50]], float))
    assert len(FEATURE_NAMES) == len(set(FEATURE_NAMES)) >= 100
    assert x.shape == (len(FEATURE_NAMES),) and np.all(np.isfinite(x))
    assert np.abs(x).max() < 10  # scaled to a range a linear learner can use


def test_finger_count_matches_renderer_truth(hands):
    seg = HandSegmenter(adapt=False)
    features = ContourFeatures()
    per = {g: [] for g in GESTURES}
    for hand in hands:
        found = seg.segment(hand.image)
        assert found.found, f'no hand found in a rendered {hand.gesture}'
        count = features.analyse(found.contour)[1].finger_count
        per[hand.gesture].append(count == hand.finger_count)
    overall = np.mean([ok for v in per.values() for ok in v])
    report = {g: f'{np.mean(v):.2f}' for g, v in per.items()}
    print('finger count accuracy per gesture', report, 'overall', overall)
    assert overall >= 0.9, report
    assert all(np.mean(v) >= 0.75 for v in per.values()), report


def test_finger_count_feature_is_the_count(hands):
    features = ContourFeatures()
    i = FEATURE_NAMES.index('finger_count')
    hand = next(h for h in hands if h.gesture == 'three')
    vec, shape = features.analyse(largest_contour(hand.mask))
    assert vec[i] * 5 == pytest.approx(shape.finger_count)


def test_contour_translation_scale_exact(hands):
    features = ContourFeatures()
    for hand in hands[:10]:
        c = largest_contour(hand.mask)
        a = features.features(c)
        for scale, shift in ((0.37, (5.0, -40.0)), (2.9, (1000.0, 333.0))):
            b = features.features(c * scale + np.array(shift))
            np.testing.assert_allclose(a, b, atol=1e-6)


def test_silhouette_translation_and_scaling_rasterised(hands):
    """Re-drawn at another place and size, the same silhouette keeps its features."""
    features = ContourFeatures()
    same = []
    for hand in hands[:12]:
        a, sa = features.analyse(largest_contour(hand.mask))
        x, y, w, h = cv2.boundingRect(hand.mask)
        crop = hand.mask[y:y + h, x:x + w]
        for scale in (0.7, 1.6):
            big = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
            canvas = np.zeros((big.shape[0] + 90, big.shape[1] + 140), np.uint8)
            canvas[60:60 + big.shape[0], 100:100 + big.shape[1]] = big
            b, sb = features.analyse(largest_contour(canvas))
            same.append(sb.finger_count == sa.finger_count)
            # Aliasing moves features a little; a different gesture moves them a lot.
            assert np.median(np.abs(a - b)) < 0.01
            keep = np.ones(len(a), bool) if same[-1] else COUNT_FREE
            assert np.abs(a - b)[keep].max() < 0.25
    # Finger gaps a few pixels wide can close when the hand is drawn 0.7 times as big.
    assert np.mean(same) >= 0.9, same


def test_rotation_invariant_groups(hands):
    features = ContourFeatures()
    for hand in hands[:8]:
        c = largest_contour(hand.mask)
        a = features.features(c)
        angle = np.radians(73.0)
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        b = features.features(c @ rot.T)
        diff = np.abs(a - b)[ROTATION_INVARIANT]
        assert np.median(diff) < 0.01 and diff.max() < 0.2


def test_same_gesture_is_nearer_than_another(hands):
    features = ContourFeatures()
    X = np.array([features.features(largest_contour(h.mask)) for h in hands])
    y = np.array([h.label for h in hands])
    d = np.linalg.norm(X[:, None] - X[None], axis=2)
    np.fill_diagonal(d, np.inf)
    nearest = y[np.argmin(d, axis=1)]
    assert np.mean(nearest == y) > 0.7  # chance is 1/7


def test_degenerate_contours_raise():
    with pytest.raises(ValueError):
        ContourFeatures().features(np.array([[0, 0], [1, 1]], float))
    with pytest.raises(ValueError):
        ContourFeatures().features(np.array([[0, 0], [1, 1], [2, 2]], float))
