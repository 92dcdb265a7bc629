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

import math

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


# -- presentations measured in time ---------------------------------------------------------

def timed(**kwargs):
    kwargs.setdefault('stable_frames', 8)
    return EpisodeDetector(stable_seconds=0.2, absent_seconds=0.15, **kwargs)


def hold(det, features, start, seconds, fps):
    """Feed ``features`` at ``fps`` for ``seconds`` from ``start``; return the episodes' stamps."""
    out = []
    for i in range(int(round(seconds * fps))):
        episode = det.update(features, start + i / fps)
        if episode is not None:
            out.append(round(episode.stamp - start, 6))
    return out


@pytest.mark.parametrize('fps', [30.0, 15.0, 8.0, 4.0])
def test_a_gesture_held_for_the_time_gives_one_episode_at_any_frame_rate(fps):
    det = timed()
    stamps = hold(det, [1.0, 2.0], 100.0, 1.0, fps)
    # One episode, once the first frames span 0.2 s (the first frame at or after 0.2 s).
    assert len(stamps) == 1
    assert stamps[0] == pytest.approx(math.ceil(0.2 * fps - 1e-9) / fps)


def test_a_gesture_held_too_briefly_in_time_gives_none_however_many_frames():
    det = timed(stable_frames=2)
    assert hold(det, [1.0, 2.0], 0.0, 0.15, 60.0) == []  # 9 frames, 0.133 s


def test_absence_in_time_re_arms():
    det = timed()
    assert len(hold(det, [1.0, 2.0], 0.0, 0.5, 10.0)) == 1  # the last hand at 0.4 s
    det.update(None, 0.5)  # 0.1 s after the last hand: not yet gone
    assert not det.armed
    det.update(None, 0.56)  # 0.16 s: gone
    assert det.armed
    assert len(hold(det, [1.0, 2.0], 0.7, 0.5, 10.0)) == 1


def test_time_window_keeps_only_the_frames_it_needs():
    det = timed(tolerance=0.15)
    # A wobble early on: the window in time drops it and publishes once steady for 0.2 s.
    det.update([5.0, 5.0], 0.0)
    stamps = hold(det, [1.0, 2.0], 0.05, 1.0, 20.0)
    assert stamps == [pytest.approx(0.2)]


def test_frames_count_when_no_time_is_set():
    det = EpisodeDetector(stable_frames=3)
    assert hold(det, [1.0, 2.0], 0.0, 1.0, 4.0) == [pytest.approx(0.5)]  # the third frame
    with pytest.raises(ValueError):
        EpisodeDetector(stable_seconds=-1.0)
