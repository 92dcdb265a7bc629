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


"""camera_node fed compressed frames by a camera driver in another process, over real DDS."""

from pathlib import Path
import subprocess
import sys
import textwrap

from banditlearn_ros.nodes.camera_node import CameraNode
from banditlearn_ros.vision.contour_features import FEATURE_NAMES
from diagnostic_msgs.msg import DiagnosticArray
import numpy as np
import pytest
from rclpy.parameter import Parameter
from ros_harness import diagnostic_values
from std_msgs.msg import Float32MultiArray

pytestmark = pytest.mark.ros
ROOT = Path(__file__).resolve().parents[1]
DIAG = 'banditlearn_ros: camera_node'
FINGERS = FEATURE_NAMES.index('finger_count')

# A camera driver of its own: image_transport's compressed topic, sensor-data QoS, no
# profile of the package. Two bad frames first, then a hand shown for 2 s at 20 Hz
# between empty scenes; stamps 0.05 s apart, as a 20 Hz camera stamps them.
DRIVER = textwrap.dedent("""
    import sys, time
    import numpy as np
    import rclpy
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import CompressedImage
    from banditlearn_ros.support.image_bridge import array_to_compressed
    from banditlearn_ros.vision.hand_renderer import HandRenderer

    rclpy.init()
    node = rclpy.create_node('compressed_driver')
    pub = node.create_publisher(CompressedImage, sys.argv[1], qos_profile_sensor_data)
    deadline = time.monotonic() + 60.0
    while pub.get_subscription_count() < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    hand = HandRenderer(seed=12, noise=0.0, blur=0.0).render('three').image
    blank = np.full_like(hand, 90)
    for fmt, data in (('jpeg', b'\\xff\\xd8\\xff' + bytes(300)), ('tiff', b'II*\\0')):
        bad = CompressedImage(format=fmt)
        bad.data = data
        pub.publish(bad)
        time.sleep(0.05)
    frames = [blank] * 10 + [hand] * 40 + [blank] * 10
    for i, image in enumerate(frames):
        msg = array_to_compressed(image, 'jpeg', quality=95)
        msg.header.stamp.sec, msg.header.stamp.nanosec = 1000 + i // 20, (i % 20) * 50000000
        msg.header.frame_id = 'camera'
        pub.publish(msg)
        time.sleep(0.05)
    print('sent', len(frames), flush=True)
    node.destroy_node()
    rclpy.shutdown()
""")


def test_compressed_frames_from_another_process(ros):
    overrides = [Parameter(k, value=v) for k, v in {
        'image_transport': 'compressed', 'use_mediapipe': False, 'stable_frames': 3,
        'absent_frames': 2, 'diagnostics_period': 0.2}.items()]
    node = ros.add(CameraNode(context=ros.context, parameter_overrides=overrides))
    features = ros.listen(Float32MultiArray, 'gesture_features')
    diagnostics = ros.listen(DiagnosticArray, '/diagnostics')
    topic = node.resolve_topic_name('image_raw') + '/compressed'
    assert [s.topic_name for s in node.subscriptions if s.topic_name == topic]
    driver = subprocess.Popen([sys.executable, '-c', DRIVER, topic], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert ros.spin_until(lambda: driver.poll() is not None, 120.0), 'driver hung'
        out, err = driver.communicate()
        assert driver.returncode == 0 and 'sent 60' in out, err[-2000:]
        assert ros.spin_until(lambda: node._slot._frame is None, 10.0)
        ros.spin_until(lambda: len(features) >= 1, 5.0)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    counts = node.counters.snapshot()
    # Every bad frame counted by kind; the node went on and took the stream.
    assert counts['bad_image'] == 1 and counts['unsupported_encoding'] == 1
    assert node._bad_encodings == {'tiff'}
    assert counts['frames_received'] >= 20
    assert len(features) == 1, 'one vector for the one gesture shown'
    assert round(np.array(features[0].data)[FINGERS] * 5) == 3
    # The sending rate is told by the stamps, whatever the load here (while the frames are
    # in the diagnostics' 5 s window).
    sent = [float(kv.value) for msg in diagnostics for status in msg.status
            if status.name == DIAG for kv in status.values if kv.key == 'frames_sent_hz']
    assert any(value == pytest.approx(20.0, abs=0.01) for value in sent), sent
    assert diagnostic_values(diagnostics, DIAG)['image_transport'] == 'compressed'


def test_feedback_node_takes_compressed_images_and_reports_lost_frames(ros):
    """feedback_node: compressed frames in, the rates in /diagnostics, WARN when most are lost."""
    from banditlearn_ros.support.image_bridge import array_to_compressed
    from banditlearn_ros.nodes.feedback_node import FeedbackNode
    from sensor_msgs.msg import CompressedImage
    overrides = [Parameter('image_transport', value='compressed'),
                 Parameter('diagnostics_period', value=0.2)]
    node = ros.add(FeedbackNode(context=ros.context, parameter_overrides=overrides))
    pub = ros.probe.create_publisher(CompressedImage, 'image_raw/compressed', 10)
    ros.connect(pub)
    bad = CompressedImage(format='tiff')
    bad.data = b'II*\x00'
    pub.publish(bad)
    assert ros.spin_until(lambda: node.counters.get('unsupported_encoding') == 1, 10.0)
    frame = array_to_compressed(np.zeros((120, 160, 3), np.uint8), 'jpeg')
    # A 20 Hz camera for 3 s of which two frames in five arrive.
    sent = [i for i in range(60) if i % 5 in (0, 1)]
    for n, i in enumerate(sent, 1):
        frame.header.stamp.sec, frame.header.stamp.nanosec = 500 + i // 20, (i % 20) * 50000000
        pub.publish(frame)
        assert ros.spin_until(lambda: len(node._watch.rates._frames) == n, 10.0)
    msg = node.diagnostics.publish()
    values = {kv.key: kv.value for kv in msg.status[0].values}
    assert values['image_transport'] == 'compressed'
    assert float(values['frames_sent_hz']) == pytest.approx(20.0, abs=0.01)
    span = sent[-1] - sent[0] + 1
    assert float(values['frames_lost_fraction']) == pytest.approx(1 - len(sent) / span,
                                                                  abs=1e-3)
    assert msg.status[0].level == msg.status[0].WARN
