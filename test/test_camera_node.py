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

"""camera_node over real DDS on loopback: encodings in, one feature vector per gesture out."""

import threading

from banditlearn_ros.nodes.bridge import array_to_image
from banditlearn_ros.nodes.camera_node import CameraNode
from banditlearn_ros.vision.contour_features import FEATURE_NAMES
from banditlearn_ros.vision.extractors import GestureExtractor
from banditlearn_ros.vision.hand_renderer import HandRenderer
from banditlearn_ros.vision.hand_segmentation import HandSegmenter
import cv2
from diagnostic_msgs.msg import DiagnosticArray
import numpy as np
import pytest
from rclpy.parameter import Parameter
from rclpy.qos import qos_profile_sensor_data
from ros_harness import diagnostic_values
from sensor_msgs.msg import Image
from std_msgs.msg import Float32MultiArray

pytestmark = pytest.mark.ros
DIAG = 'banditlearn_ros: camera_node'
FINGERS = FEATURE_NAMES.index('finger_count')


@pytest.fixture(scope='module')
def scene():
    hand = HandRenderer(seed=12, noise=0.0, blur=0.0).render('three')
    blank = np.full_like(hand.image, 90)
    return hand, blank


def camera(ros, **params):
    params.setdefault('use_mediapipe', False)
    params.setdefault('stable_frames', 3)
    params.setdefault('absent_frames', 2)
    params.setdefault('diagnostics_period', 0.2)
    overrides = [Parameter(k, value=v) for k, v in params.items()]
    return ros.add(CameraNode(context=ros.context, parameter_overrides=overrides))


def rgb8_padded(bgr, pad=13):
    h, w = bgr.shape[:2]
    rows = np.zeros((h, w * 3 + pad), np.uint8)
    rows[:, :w * 3] = bgr[:, :, ::-1].reshape(h, -1)
    rows[:, w * 3:] = 77  # garbage in the padding must be ignored
    msg = Image(height=h, width=w, encoding='rgb8', step=w * 3 + pad)
    msg.data = rows.tobytes()
    return msg


def uyvy(bgr):
    yuv = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV).astype(np.float32)
    h, w = bgr.shape[:2]
    y, u, v = yuv[..., 0], yuv[..., 1], yuv[..., 2]
    packed = np.empty((h, w * 2), np.uint8)
    packed[:, 0::4] = np.round((u[:, 0::2] + u[:, 1::2]) / 2)
    packed[:, 1::4] = y[:, 0::2]
    packed[:, 2::4] = np.round((v[:, 0::2] + v[:, 1::2]) / 2)
    packed[:, 3::4] = y[:, 1::2]
    msg = Image(height=h, width=w, encoding='yuv422', step=w * 2)
    msg.data = packed.tobytes()
    return msg


def mono8(bgr):
    return array_to_image(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), 'mono8')


def unsupported(bgr):
    h, w = bgr.shape[:2]
    msg = Image(height=h, width=w, encoding='bayer_rggb8', step=w)
    msg.data = bytes(h * w)
    return msg


def send(ros, pub, msg, times, node, gap=0.06):
    """Publish ``msg`` ``times`` times, each after the node has taken the last one."""
    for _ in range(times):
        before = node.counters.get('frames_received')
        pub.publish(msg)
        assert ros.spin_until(lambda: node.counters.get('frames_received') > before)
        assert ros.spin_until(lambda: node._slot._frame is None)  # taken: never replaced
        ros.spin_for(gap)


def test_encodings_in_one_feature_vector_per_gesture_out(ros, scene):
    hand, blank = scene
    node = camera(ros, adapt_skin=False)  # so the offline reference below is exact
    features = ros.listen(Float32MultiArray, 'gesture_features')
    diagnostics = ros.listen(DiagnosticArray, '/diagnostics')
    pub = ros.probe.create_publisher(Image, 'image_raw', qos_profile_sensor_data)
    ros.connect(pub)
    expected = GestureExtractor('contour', use_mediapipe=False,
                                segmenter=HandSegmenter(adapt=False)).process(hand.image)
    assert expected.finger_count == 3

    for i, msg in enumerate([array_to_image(hand.image), rgb8_padded(hand.image),
                             uyvy(hand.image)]):
        send(ros, pub, array_to_image(blank), 3, node)
        send(ros, pub, msg, 6, node)  # held for 6 frames: one episode, not two
        assert ros.spin_until(lambda: len(features) == i + 1), msg.encoding
        ros.spin_for(0.2)
        assert len(features) == i + 1, f'{msg.encoding}: more than one vector per gesture'
        out = features[-1]
        assert out.layout.dim[0].label == 'contour'
        assert out.layout.dim[0].size == out.layout.dim[0].stride == len(FEATURE_NAMES)
        x = np.array(out.data)
        assert x.shape == (len(FEATURE_NAMES),) and np.all(np.isfinite(x))
        assert round(x[FINGERS] * 5) == 3, msg.encoding
        tolerance = 1e-4 if i < 2 else 0.05  # 4:2:2 chroma subsampling moves the edge
        assert np.median(np.abs(x - expected.features)) < tolerance, msg.encoding

    processed = node.counters.get('frames_processed')
    send(ros, pub, mono8(hand.image), 3, node)  # accepted, but grey has no skin colour
    assert ros.spin_until(lambda: node.counters.get('frames_processed') == processed + 3)
    send(ros, pub, unsupported(hand.image), 3, node)
    ros.spin_for(0.3)
    assert len(features) == 3
    counts = node.counters.snapshot()
    assert counts['unsupported_encoding'] == 3 and node._bad_encodings == {'bayer_rggb8'}
    assert counts['episodes'] == 3 and counts['bad_image'] == 0
    assert counts['frames_received'] == 3 * 9 + 6
    assert ros.spin_until(lambda: (diagnostic_values(diagnostics, DIAG) or {}).get(
        'unsupported_encoding') == '3')
    values = diagnostic_values(diagnostics, DIAG)
    assert values['episodes'] == '3' and float(values['processing_ms_mean']) > 0
    for key in ('frame_rate', 'processed_rate', 'frames_dropped', 'frames_no_hand'):
        assert key in values
    assert diagnostics[-1].status[0].level == b'\x01'  # WARN: unsupported frames seen


def test_stale_frames_are_dropped_and_the_newest_is_processed(ros, scene):
    hand, _ = scene
    node = camera(ros, mode='frame')
    original = node.extractor.process
    busy, release = threading.Event(), threading.Event()

    def slow(frame, landmarks=None):
        busy.set()
        assert release.wait(60.0)  # a slow extractor: busy until all the frames came
        return original(frame, landmarks)

    node.extractor.process = slow
    seen = []
    update = node.episodes.update
    node.episodes.update = lambda f, stamp=0.0: (seen.append(stamp), update(f, stamp))[1]
    pub = ros.probe.create_publisher(Image, 'image_raw', qos_profile_sensor_data)
    ros.connect(pub)
    msg = array_to_image(hand.image)

    def one(i):
        before = node.counters.get('frames_received')
        msg.header.stamp.sec = i
        pub.publish(msg)
        assert ros.spin_until(lambda: node.counters.get('frames_received') > before)
    # Each frame is taken by the node before the next is sent, so none is lost in the
    # subscription's queue however slow the machine; the extractor holds the first while
    # the other 24 arrive.
    one(1)
    assert busy.wait(30.0)
    for i in range(2, 26):
        one(i)
    release.set()
    assert ros.spin_until(lambda: node.counters.get('frames_processed') == 2)
    ros.spin_for(0.2)
    counts = node.counters.snapshot()
    # The 23 between the first and the newest were replaced in the slot unseen.
    assert (counts['frames_dropped'], counts['frames_processed']) == (23, 2)
    assert seen == [1.0, 25.0]  # the newest frame was processed, not a queued stale one


def test_parameters_are_validated(ros):
    node = camera(ros)
    bad = node.set_parameters([Parameter('mode', value='sometimes')])[0]
    assert not bad.successful and 'mode' in bad.reason
    bad = node.set_parameters([Parameter('min_area', value=0.7)])[0]
    assert not bad.successful and 'max_area' in bad.reason
    assert not node.set_parameters([Parameter('extractor', value='landmarks')])[0].successful
    assert not node.set_parameters([Parameter('stable_frames', value=0)])[0].successful
    assert node.set_parameters([Parameter('stable_frames', value=2)])[0].successful
    node._apply_pending()
    assert node.episodes.stable_frames == 2
    assert node.counters.get('parameter_rejections') == 2


def test_reads_a_video_file_itself(ros, scene, tmp_path):
    hand, blank = scene
    path = str(tmp_path / 'hand.avi')
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*'MJPG'), 30.0, (640, 480))
    if not writer.isOpened():
        pytest.skip('OpenCV cannot write MJPG video here')
    for frame in [blank] * 3 + [hand.image] * 12:
        writer.write(frame)
    writer.release()
    node = camera(ros, source=path)
    features = ros.listen(Float32MultiArray, 'gesture_features')
    assert ros.spin_until(lambda: len(features) >= 1)
    assert round(features[0].data[FINGERS] * 5) == 3
    assert ros.spin_until(lambda: 'ended' in node._source_problem)


@pytest.mark.parametrize('params, message', [
    (['source:=/nonexistent/hand.avi'], 'camera_node: video source'),
    (['extractor:=sift'], 'camera_node: extractor must be one of'),
    (['mode:=sometimes'], "camera_node: mode must be 'episode' or 'frame'"),
])
def test_bad_start_is_one_readable_error(params, message):
    import subprocess
    import sys
    args = [a for p in params + ['use_mediapipe:=false'] for a in ('-p', p)]
    result = subprocess.run(
        [sys.executable, '-m', 'banditlearn_ros.nodes.camera_node', '--ros-args'] + args,
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert message in result.stderr and 'Traceback' not in result.stderr, result.stderr


def test_close_stops_the_worker(ros):
    node = camera(ros)
    worker = node._worker
    ros.remove(node)
    assert not worker.is_alive()
    assert threading.active_count() >= 1
