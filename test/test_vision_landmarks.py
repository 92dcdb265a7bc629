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

"""Landmark features: invariance, meaning of the angles, MediaPipe on a real photo."""

from banditlearn_ros.vision.hand_renderer import HandRenderer
from banditlearn_ros.vision.landmark_features import (
    FEATURE_NAMES, LandmarkFeatures, normalise_landmarks)
from banditlearn_ros.vision.mediapipe_hands import mediapipe_available, MediaPipeHands
import cv2
import numpy as np
import pytest


def test_names_and_size():
    lm = HandRenderer(seed=1).render('five').landmarks
    x = LandmarkFeatures().features(lm)
    assert x.shape == (len(FEATURE_NAMES),) and len(set(FEATURE_NAMES)) == len(FEATURE_NAMES)
    assert np.all(np.isfinite(x)) and np.abs(x).max() <= 4


def test_translation_scale_rotation_invariance():
    f = LandmarkFeatures()
    for g in ('fist', 'two', 'five', 'thumbs_up'):
        lm = HandRenderer(seed=2).render(g).landmarks
        a = f.features(lm)
        angle = np.radians(40)
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        moved = lm.copy()
        moved[:, :2] = (lm[:, :2] @ rot.T) * 1.7 + [55.0, -20.0]
        moved[:, 2] = lm[:, 2] * 1.7
        # arccos near a straight joint turns 1e-16 rounding into ~1e-8.
        np.testing.assert_allclose(f.features(moved), a, atol=1e-6)


def test_normalised_frame():
    lm = HandRenderer(seed=3).render('one').landmarks
    xy = normalise_landmarks(lm)
    np.testing.assert_allclose(xy[0], [0, 0], atol=1e-12)
    np.testing.assert_allclose(xy[9], [0, -1], atol=1e-12)


def test_bends_tell_extended_from_folded():
    f = LandmarkFeatures()
    x = f.features(HandRenderer(seed=4).render('one').landmarks)
    bend = {n: v for n, v in zip(FEATURE_NAMES, x) if '_bend_' in n}
    straight = bend['index_bend_pip'] + bend['index_bend_dip']
    folded = bend['middle_bend_pip'] + bend['middle_bend_dip']
    assert straight < 0.1 < folded


def test_bad_landmarks_raise():
    with pytest.raises(ValueError):
        LandmarkFeatures().features(np.zeros((20, 3)))
    with pytest.raises(ValueError):
        LandmarkFeatures().features(np.zeros((21, 3)))


@pytest.mark.skipif(not mediapipe_available(), reason='mediapipe missing')
def test_mediapipe_landmarks_on_a_real_photo(shared_data):
    img = cv2.imread(str(shared_data / 'real' / 'hands' / 'mps_hand_thumb_up.jpg'))
    hands = MediaPipeHands(static_image_mode=True)
    try:
        hand = hands.best(img)
    finally:
        hands.close()
    assert hand is not None and hand.landmarks.shape == (21, 3)
    assert np.all((hand.landmarks[:, 0] >= 0) & (hand.landmarks[:, 0] < img.shape[1]))
    x = LandmarkFeatures().features(hand.landmarks)
    names = dict(zip(FEATURE_NAMES, x))
    # A thumb up: the thumb is the most extended finger.
    assert names['extension_thumb'] == max(names[f'extension_{f}'] for f in
                                           ('thumb', 'index', 'middle', 'ring', 'little'))
