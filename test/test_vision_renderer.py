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

"""Synthetic hand renderer: seeded, every gesture, consistent ground truth."""

from banditlearn_ros.vision.hand_renderer import FINGER_COUNT, GESTURES, HandRenderer
import numpy as np
import pytest
from vision_helpers import render_many


def test_same_seed_same_images():
    a = render_many(HandRenderer(seed=3), 4, seed=9)
    b = render_many(HandRenderer(seed=3), 4, seed=9)
    c = render_many(HandRenderer(seed=3), 4, seed=10)
    assert all(np.array_equal(x.image, y.image) for x, y in zip(a, b))
    assert not all(np.array_equal(x.image, y.image) for x, y in zip(a, c))


@pytest.mark.parametrize('gesture', GESTURES)
def test_ground_truth_is_consistent(gesture):
    renderer = HandRenderer(seed=5)
    hand = renderer.render(gesture)
    assert hand.image.shape == (480, 640, 3) and hand.image.dtype == np.uint8
    assert hand.finger_count == FINGER_COUNT[gesture]
    assert hand.label == renderer.gestures.index(gesture)
    ys, xs = np.nonzero(hand.mask)
    assert xs.min() > 0 and ys.min() > 0 and xs.max() < 639 and ys.max() < 479
    # Landmarks lie on the silhouette (a pixel or two of slack for the outline).
    pts = np.round(hand.landmarks[:, :2]).astype(int)
    assert (hand.mask[pts[:, 1], pts[:, 0]] > 0).mean() >= 0.9
    # The hand's pixels carry the skin colour, near enough (shading, light, noise).
    mean = hand.image[hand.mask > 0].mean(axis=0)
    assert np.abs(mean - np.array(hand.skin_bgr)).max() < 70


def test_variation_in_pose_and_appearance():
    hands = render_many(HandRenderer(seed=6), 40, seed=1)
    assert len({h.gesture for h in hands}) == len(GESTURES)
    assert np.std([h.centre[0] for h in hands]) > 50
    assert np.ptp([h.scale for h in hands]) > 20
    assert np.ptp([h.angle for h in hands if h.gesture != 'thumbs_up']) > 30
    assert len({h.skin_bgr for h in hands}) > 20


def test_bad_arguments():
    with pytest.raises(ValueError):
        HandRenderer(gestures=('fist', 'wave'))
    with pytest.raises(ValueError):
        HandRenderer(gestures=('fist', 'one')).render('five')
    with pytest.raises(ValueError):
        HandRenderer(width=32)
