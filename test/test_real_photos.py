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

from banditlearn_ros.vision import camera_parameters, extractors
from banditlearn_ros.vision.landmark_features import FEATURE_NAMES
from banditlearn_ros.vision.mediapipe_hands import mediapipe_available, MediaPipeHands
import cv2
import numpy as np
import pytest
from rclpy.parameter import Parameter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'benchmarks'))
from real_photos import (  # noqa: E402, I202 (the benchmark's own framing of the photos)
    camera_frame, camera_values, LABELS, missing_reason, PHOTOS)

needs_photos = pytest.mark.skipif(bool(missing_reason()) or not mediapipe_available(),
                                  reason=missing_reason() or 'mediapipe is not installed')
# Photos of four gestures by different people (sign_digits/<class>/<file>).
SAMPLE = (('0', 'IMG_1118.JPG'), ('1', 'IMG_1129.JPG'), ('5', 'IMG_1123.JPG'),
          ('9', 'IMG_1127.JPG'))
# Two people each of three gestures, for the node and the learner.
SHOWN = (('0', 'IMG_1118.JPG'), ('0', 'IMG_1128.JPG'), ('5', 'IMG_1123.JPG'),
         ('5', 'IMG_1133.JPG'), ('9', 'IMG_1127.JPG'), ('9', 'IMG_1137.JPG'))
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
    extractor, note = camera_parameters.make_extractor(camera_values())
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


def _values(**changes):
    return [Parameter(k, value=v) for k, v in changes.items()]


@needs_photos
@pytest.mark.ros
def test_camera_node_to_learner_on_real_photos():
    """Real photos through camera_node: landmark vectors out, centred and learned."""
    from banditlearn_ros.learning.live.live_learner import LiveLearner
    from banditlearn_ros.nodes.bridge import array_to_image
    from banditlearn_ros.nodes.camera_node import CameraNode
    from rclpy.qos import qos_profile_sensor_data
    from real_photos import learner_values
    from ros_harness import Ros
    from sensor_msgs.msg import Image
    from std_msgs.msg import Float32MultiArray

    classes = [int(c) for c, _ in SHOWN]
    frames = [camera_frame(photo(*item)) for item in SHOWN]
    ros = Ros()
    try:
        node = ros.add(CameraNode(context=ros.context, parameter_overrides=_values(
            stable_frames=3, absent_frames=2, publish_debug_image=False)))
        assert node.extractor.kind == 'landmarks'  # the default with MediaPipe installed
        out = ros.listen(Float32MultiArray, 'gesture_features')
        pub = ros.probe.create_publisher(Image, 'image_raw', qos_profile_sensor_data)
        ros.connect(pub)
        black = array_to_image(np.zeros_like(frames[0]))
        for i, frame in enumerate(frames):
            for msg in [black] * 3 + [array_to_image(frame)] * 5:
                before = node.counters.get('frames_processed')
                pub.publish(msg)
                assert ros.spin_until(
                    lambda: node.counters.get('frames_processed') > before, 10.0)
            assert ros.spin_until(lambda: len(out) == i + 1), f'no vector for photo {i}'
    finally:
        ros.close()
    vectors = np.array([msg.data for msg in out], np.float64)
    assert vectors.shape == (len(SHOWN), len(FEATURE_NAMES))
    assert all(msg.layout.dim[0].label == 'landmarks' for msg in out)
    # What the extractor gives offline (a fresh detection; the node tracks from frame to
    # frame, which moves the landmarks a little): each vector nearest its own photo's.
    extractor, _ = camera_parameters.make_extractor(camera_values())
    try:
        offline = np.array([extractor.process(f).features for f in frames])
    finally:
        extractor.close()
    distances = np.linalg.norm(vectors[:, None, :] - offline[None, :, :], axis=2)
    assert list(np.argmin(distances, axis=1)) == list(range(len(SHOWN))), distances
    assert np.median(np.abs(vectors - offline)) < 0.02

    # The learner node's own state with the camera system's values: taught the truth four
    # times over, it names every photo at its first guess, and the mean it took out is the
    # mean of every vector it was given.
    values = learner_values(labels=[LABELS[c] for c in sorted(set(classes))])
    live = LiveLearner(values.__getitem__, '', _Log())
    right = []
    for _ in range(4):
        for x, c in zip(vectors, classes):
            item, reason = live.interaction.predict(x)
            assert item is not None, reason
            right.append(item.prediction.label == LABELS[c])
            while item is not None:
                result, _ = live.feedback(item.prediction.label == LABELS[c])
                item = result.next_round
    centring = live.interaction.learner.centring
    assert centring.mode == 'running' and centring.count == 4 * len(SHOWN)
    assert np.allclose(centring.mean, vectors.mean(axis=0), atol=1e-9)
    assert all(right[-len(SHOWN):]), right


class _Log:
    def info(self, *_args, **_kwargs):
        pass

    warning = error = info


def _held(extractor, frame, frames: int):
    """Show a black frame, then ``frame`` for ``frames`` frames; return the tracked vectors."""
    extractor.process(np.zeros_like(frame))
    return [extractor.process(frame).features for _ in range(frames)]


@needs_photos
def test_a_still_hand_publishes_the_same_episode_however_many_frames_were_processed():
    extractor, _ = camera_parameters.make_extractor(camera_values(extractor='landmarks'))
    try:
        published = {}
        for cls, name in SAMPLE:
            frame = camera_frame(photo(cls, name))
            for frames in (2, 8):  # a loaded machine's window, an idle one's
                rows = _held(extractor, frame, frames)
                assert all(row is not None for row in rows), (cls, name)
                mean = np.mean(rows, axis=0)
                published[cls, name, frames] = {
                    how: extractor.episode_features(frame, mean, how)
                    for how in ('fresh_look', 'window_mean')}
        drift = [np.linalg.norm(published[k + (2,)]['window_mean']
                                - published[k + (8,)]['window_mean']) for k in SAMPLE]
        assert max(drift) > 1e-3, drift  # tracking's drift: the mean hangs on the window
        for key in SAMPLE:
            assert np.array_equal(published[key + (2,)]['fresh_look'],
                                  published[key + (8,)]['fresh_look']), key
    finally:
        extractor.close()


@needs_photos
def test_a_fresh_look_leaves_the_tracking_as_it_was():
    frame = camera_frame(photo(*SAMPLE[0]))
    rows = {}
    for look in (False, True):
        extractor, _ = camera_parameters.make_extractor(camera_values(extractor='landmarks'))
        try:
            first = _held(extractor, frame, 2)
            if look:
                assert extractor.look_afresh(frame) is not None
            rows[look] = first + [extractor.process(frame).features for _ in range(3)]
        finally:
            extractor.close()
    for a, b in zip(rows[False], rows[True]):
        np.testing.assert_array_equal(a, b)


def test_without_mediapipe_an_episode_publishes_its_window_mean():
    extractor = extractors.GestureExtractor('contour', use_mediapipe=False)
    mean = np.arange(3.0)
    assert extractor.episode_features(np.zeros((8, 8, 3), np.uint8), mean) is mean
    assert camera_parameters.problem(dict(camera_values(), episode_features='median')) \
        .startswith('episode_features must be')
