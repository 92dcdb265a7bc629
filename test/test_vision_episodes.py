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

"""Gesture episodes: one observation per steady presentation, re-armed by leaving or changing."""

from banditlearn_ros.vision.episodes import EpisodeDetector
import numpy as np
import pytest

A = np.array([1.0, 2.0, 3.0])
B = np.array([3.0, 0.5, 1.0])


def feed(det, frames):
    return [e for e in (det.update(f, float(i)) for i, f in enumerate(frames)) if e is not None]


def test_one_episode_per_steady_presentation_with_window_mean():
    det = EpisodeDetector(stable_frames=4, tolerance=0.1, absent_frames=2)
    rng = np.random.default_rng(0)
    frames = [A + rng.normal(0, 0.01, 3) for _ in range(30)]
    episodes = feed(det, frames)
    assert len(episodes) == 1
    np.testing.assert_allclose(episodes[0].features, np.mean(frames[:4], axis=0))
    assert episodes[0].frames == 4 and episodes[0].index == 1 and episodes[0].stamp == 3.0


def test_leaving_rearms():
    det = EpisodeDetector(stable_frames=3, absent_frames=2)
    frames = [A] * 5 + [None] * 2 + [A] * 5
    assert len(feed(det, frames)) == 2


def test_short_absence_does_not_rearm():
    det = EpisodeDetector(stable_frames=3, absent_frames=3)
    frames = [A] * 5 + [None] * 2 + [A] * 8
    assert len(feed(det, frames)) == 1


def test_changing_gesture_while_held_gives_a_new_episode():
    det = EpisodeDetector(stable_frames=3, change_tolerance=0.3)
    episodes = feed(det, [A] * 6 + [B] * 6)
    assert len(episodes) == 2
    np.testing.assert_allclose(episodes[1].features, B)


def test_unsteady_hand_gives_nothing():
    det = EpisodeDetector(stable_frames=4, tolerance=0.05)
    frames = [A if i % 2 else B for i in range(20)]
    assert feed(det, frames) == []
    assert det.armed


def test_frame_mode_emits_every_hand_frame():
    det = EpisodeDetector(mode='frame')
    frames = [A, None, B, B]
    episodes = feed(det, frames)
    assert [e.index for e in episodes] == [1, 2, 3]


def test_feature_size_change_restarts_the_window():
    det = EpisodeDetector(stable_frames=3)
    assert feed(det, [A, A, np.ones(5), np.ones(5), np.ones(5)])[0].features.shape == (5,)


@pytest.mark.parametrize('kwargs', [{'mode': 'x'}, {'stable_frames': 0}, {'tolerance': 0},
                                    {'absent_frames': 0}, {'change_tolerance': -1}])
def test_bad_settings_raise(kwargs):
    with pytest.raises(ValueError):
        EpisodeDetector(**kwargs)
