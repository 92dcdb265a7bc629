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

"""The real-camera path on real photos of hands: the extractor it picks, MediaPipe, the node."""

from pathlib import Path
import sys

from banditlearn_ros.vision import camera_settings, extractors
from banditlearn_ros.vision.landmark_features import FEATURE_NAMES
from banditlearn_ros.vision.mediapipe_hands import mediapipe_available, MediaPipeHands
import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'benchmarks'))
from real_photos import (  # noqa: E402, I202 (the benchmark's own framing of the photos)
    camera_frame, camera_values, LABELS, missing_reason, PHOTOS)

needs_photos = pytest.mark.skipif(bool(missing_reason()) or not mediapipe_available(),
                                  reason=missing_reason() or 'mediapipe is not installed')
# Photos of four gestures by different people (sign_digits/<class>/<file>).
SAMPLE = (('0', 'IMG_1118.JPG'), ('1', 'IMG_1129.JPG'), ('5', 'IMG_1123.JPG'),
          ('9', 'IMG_1127.JPG'))
FILLS_THE_FRAME = ('1', 'IMG_1323.JPG')
"""A photo whose hand, enlarged to fill a 480 x 480 frame, MediaPipe's palm detector misses."""


def photo(cls: str, name: str) -> np.ndarray:
    image = cv2.imread(str(PHOTOS / cls / name))
    assert image is not None, f'cannot read {cls}/{name}'
    return image


def test_auto_is_landmarks_with_mediapipe_and_contour_without(monkeypatch):
    monkeypatch.setattr(extractors, 'mediapipe_available', lambda: True)
    assert extractors.resolve_extractor('auto') == ('landmarks', 'auto: MediaPipe is installed')
    assert extractors.resolve_extractor('auto', use_mediapipe=False)[0] == 'contour'
    assert extractors.resolve_extractor('combined') == ('combined', '')
    monkeypatch.setattr(extractors, 'mediapipe_available', lambda: False)
    kind, note = extractors.resolve_extractor('auto')
    assert kind == 'contour' and 'not installed' in note
    with pytest.raises(ValueError, match='extractor must be one of'):
        extractors.resolve_extractor('sift')


def test_the_real_camera_path_has_no_render_fitted_constants():
    values = camera_values()
    assert values['extractor'] == 'auto'
    assert values['feature_offsets'] == [] and values['feature_scales'] == []
    assert values['feature_names'] == []


def test_retry_margin_is_checked():
    with pytest.raises(ValueError, match='retry_margin'):
        MediaPipeHands(retry_margin=-0.1)


@needs_photos
def test_the_default_extractor_gives_landmark_features_of_real_photos():
    extractor, note = camera_settings.make_extractor(camera_values())
    try:
        assert extractor.kind == 'landmarks' and note == 'auto: MediaPipe is installed'
        rows = [extractor.process(camera_frame(photo(*item))).features for item in SAMPLE]
    finally:
        extractor.close()
    assert all(r is not None and r.shape == (len(FEATURE_NAMES),) for r in rows)
    assert all(np.all(np.isfinite(r)) for r in rows)
    # A closed hand ("0") and an open palm ("5") differ in how far the fingertips reach.
    index = FEATURE_NAMES.index('extension_index')
    assert rows[0][index] < rows[2][index]


@needs_photos
def test_a_hand_that_fills_the_frame_is_found_by_the_second_look():
    frame = cv2.resize(photo(*FILLS_THE_FRAME), (480, 480))
    plain = MediaPipeHands(static_image_mode=True)
    retry = MediaPipeHands(static_image_mode=True, retry_margin=0.5)
    try:
        assert plain.best(frame) is None
        hand = retry.best(frame)
        padded = retry.best(cv2.copyMakeBorder(frame, 240, 240, 240, 240,
                                               cv2.BORDER_REPLICATE))
    finally:
        plain.close()
        retry.close()
    assert hand is not None and (retry.retries, retry.retry_found) == (1, 1)
    # Landmarks come back in the frame's own pixels: the padded copy's, moved by the pad.
    xy = hand.landmarks[:, :2]
    assert np.all(xy > -10) and np.all(xy < 490)
    assert padded is not None
    assert np.allclose(xy, padded.landmarks[:, :2] - 240, atol=3.0)
