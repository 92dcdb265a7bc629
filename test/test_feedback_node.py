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

"""feedback_node over real rclpy on this machine: Joy, Bool, Image, listening window."""

import time

from banditlearn_ros.nodes.bridge import array_to_image
from banditlearn_ros.nodes.feedback_node import FeedbackNode
from banditlearn_ros.vision import face_warp as fw
from banditlearn_ros.vision import head_motion_synth as hs
from diagnostic_msgs.msg import DiagnosticArray
import numpy as np
import pytest
import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile
from ros_harness import BOUND
from sensor_msgs.msg import Image, Joy
from std_msgs.msg import Bool, Float32, String


class Harness:
    """A FeedbackNode plus a probe node that publishes inputs and records outputs."""

    def __init__(self, context, **params):
        overrides = [Parameter(k, value=v) for k, v in params.items()]
        self.node = FeedbackNode(context=context, parameter_overrides=overrides)
        self.probe = rclpy.create_node('probe', context=context)
        self.executor = SingleThreadedExecutor(context=context)
        self.executor.add_node(self.node)
        self.executor.add_node(self.probe)
        self.feedback, self.confidence, self.listening, self.diag = [], [], [], []
        self.probe.create_subscription(Bool, 'gesture_feedback',
                                       lambda m: self.feedback.append(m.data), 10)
        self.probe.create_subscription(Float32, 'feedback_confidence',
                                       lambda m: self.confidence.append(m.data), 10)
        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.probe.create_subscription(Bool, 'feedback_listening',
                                       lambda m: self.listening.append(m.data), latched)
        self.probe.create_subscription(DiagnosticArray, '/diagnostics',
                                       lambda m: self.diag.append(m), 10)
        self.joy = self.probe.create_publisher(Joy, 'joy', 10)
        self.image = self.probe.create_publisher(Image, 'image_raw', 10)
        self.prediction = self.probe.create_publisher(String, 'gesture_prediction', 10)

    def spin_until(self, condition, timeout=BOUND):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.02)
            if condition():
                return True
        return condition()

    def wait_connected(self, publisher, timeout=BOUND):
        assert self.spin_until(lambda: publisher.get_subscription_count() > 0, timeout)

    def close(self):
        self.node.close()
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        self.probe.destroy_node()


@pytest.fixture
def context():
    ctx = Context()
    rclpy.init(context=ctx)
    yield ctx
    rclpy.shutdown(context=ctx)


@pytest.fixture
def harness(context, request):
    params = getattr(request, 'param', {})
    h = Harness(context, **params)
    yield h
    h.close()


def _joy(*buttons):
    return Joy(buttons=list(buttons), axes=[0.0, 0.0])


def test_joy_buttons_answer_once_per_press(harness):
    h = harness
    h.wait_connected(h.joy)
    h.joy.publish(_joy(1, 0))
    assert h.spin_until(lambda: h.feedback == [True])
    h.joy.publish(_joy(1, 0))  # still held: no second answer
    h.joy.publish(_joy(0, 0))
    h.joy.publish(_joy(0, 1))
    assert h.spin_until(lambda: len(h.feedback) >= 2)
    h.spin_until(lambda: False, timeout=0.3)
    assert h.feedback == [True, False]
    assert h.spin_until(lambda: len(h.confidence) == 2)
    assert h.confidence == [1.0, 1.0]
    assert h.node.counters.get('joy_answers') == 2


@pytest.mark.parametrize('harness', [{'joy_right_button': 3, 'joy_wrong_button': 5}],
                         indirect=True)
def test_joy_button_indices_are_parameters(harness):
    h = harness
    h.wait_connected(h.joy)
    h.joy.publish(_joy(1, 1, 0, 0, 0, 1))  # 5 = wrong; 0 and 1 mean nothing now
    assert h.spin_until(lambda: h.feedback == [False])
    h.joy.publish(_joy(0, 0, 0, 1, 0, 0))  # 3 = right; 5 released
    assert h.spin_until(lambda: h.feedback == [False, True])
    h.joy.publish(_joy(0, 0))  # too short for the indices: no answer, no crash
    h.spin_until(lambda: False, timeout=0.2)
    assert h.feedback == [False, True]


@pytest.mark.parametrize('harness', [{'bool_topics': ['big_button']}], indirect=True)
def test_bool_topic_is_passed_through(harness):
    h = harness
    pub = h.probe.create_publisher(Bool, 'big_button', 10)
    h.wait_connected(pub)
    pub.publish(Bool(data=False))
    pub.publish(Bool(data=True))
    assert h.spin_until(lambda: h.feedback == [False, True])
    assert h.node.counters.get('bool_answers') == 2


def test_parameter_changes_are_validated(harness):
    node = harness.node
    result = node.set_parameters([Parameter('joy_wrong_button', value=0)])[0]
    assert not result.successful and 'differ' in result.reason
    result = node.set_parameters([Parameter('min_confidence', value=1.5)])[0]
    assert not result.successful
    result = node.set_parameters([Parameter('min_swing', value=8.0)])[0]
    assert result.successful and node.detector.min_swing == 8.0
    result = node.set_parameters([Parameter('max_faces', value=2)])[0]
    assert not result.successful  # read-only: needs a restart
    assert node.describe_parameter('min_swing').floating_point_range[0].from_value == 1.0


def test_unsupported_and_broken_images_are_counted(harness):
    h = harness
    h.wait_connected(h.image)
    bad = Image(height=4, width=4, encoding='32FC1', step=16, data=bytes(64))
    h.image.publish(bad)
    assert h.spin_until(lambda: h.node.counters.get('unsupported_encoding') == 1)
    short = Image(height=4, width=4, encoding='bgr8', step=12, data=bytes(10))
    h.image.publish(short)
    assert h.spin_until(lambda: h.node.counters.get('bad_image') == 1)
    msg = h.node.diagnostics.publish()
    values = {kv.key: kv.value for kv in msg.status[0].values}
    assert values['unsupported_encoding'] == '1' and values['bad_image'] == '1'
    assert msg.status[0].level == msg.status[0].WARN
    assert h.spin_until(lambda: any(
        kv.key == 'unsupported_encoding' and kv.value == '1'
        for m in h.diag for s in m.status for kv in s.values), timeout=3.0)
    # The node still works: an empty frame is looked at (no face) and a button still answers.
    h.node.set_parameters([Parameter('listen_on_prediction', value=False)])
    assert h.spin_until(lambda: not h.node.head.loading, timeout=60.0)  # frames skipped till
    h.image.publish(array_to_image(np.zeros((120, 160, 3), np.uint8)))
    assert h.spin_until(lambda: h.node.counters.get('frames_no_face') == 1, timeout=30.0)
    h.joy.publish(_joy(1, 0))
    assert h.spin_until(lambda: h.feedback == [True])


def _nod_poses(start=0.0, rate=30.0):
    t = np.arange(0, 3.0, 1 / rate)
    pitch = hs.oscillation(t, 1.0, 2.0, 2.0, 8.0)
    return start + t, np.zeros_like(t), pitch


def test_listening_window_gates_head_gestures(harness):
    h = harness
    node = h.node
    assert h.spin_until(lambda: h.listening == [False])
    assert not node.listening
    # A nod while nobody asked anything is ignored.
    for t, y, p in zip(*_nod_poses(100.0)):
        node.feed_pose(t, y, p)
    assert node.counters.get('gestures_ignored') == 1
    assert h.feedback == []
    # A prediction opens the window; the cue says so; a nod answers "right" and closes it.
    h.wait_connected(h.prediction)
    h.prediction.publish(String(data='fist'))
    assert h.spin_until(lambda: node.listening and h.listening[-1:] == [True])
    for t, y, p in zip(*_nod_poses(200.0)):
        node.feed_pose(t, y, p)
    assert h.spin_until(lambda: h.feedback == [True])
    assert h.spin_until(lambda: h.listening[-1:] == [False])
    assert h.confidence and 0.5 <= h.confidence[-1] <= 1.0
    assert node.counters.get('nods') == 1
    values = {kv.key: kv.value for kv in node.diagnostics.publish().status[0].values}
    # /diagnostics shows the nod that answered (6 significant digits; Float32 on the wire).
    assert values['last_gesture'] == 'nod'
    assert float(values['last_confidence']) == pytest.approx(h.confidence[-1], abs=1e-5)


@pytest.mark.parametrize('harness', [{'refractory': 10.0}], indirect=True)
def test_each_question_opens_a_window_that_hears_the_next_answer(harness):
    # "fist?" -- shake -- "palm?" -- nod right away: the second window must not be deaf
    # because the shake's refractory block (10 s here) is still running.
    h = harness
    node = h.node
    h.wait_connected(h.prediction)
    h.prediction.publish(String(data='fist'))
    assert h.spin_until(lambda: node.listening)
    t = np.arange(0, 3.0, 1 / 30)
    for ti, y in zip(t, hs.oscillation(t, 1.0, 2.0, 2.0, 12.0)):
        node.feed_pose(100.0 + ti, y, 0.0)
    assert h.spin_until(lambda: h.feedback == [False] and not node.listening)
    h.prediction.publish(String(data='palm'))
    assert h.spin_until(lambda: node.listening)
    for t, y, p in zip(*_nod_poses(103.0)):
        node.feed_pose(t, y, p)
    assert h.spin_until(lambda: h.feedback == [False, True])
    assert node.counters.get('predictions') == 2 and node.counters.get('nods') == 1


@pytest.mark.parametrize('harness', [{'listen_window': 0.5}], indirect=True)
def test_listening_window_times_out_on_frame_time(harness):
    # The window runs on the frames' stamps, as the detector: a second of wall time without
    # frames leaves it open (a loaded machine has not seen the gesture yet); frames whose
    # stamps (far from the wall clock) pass its end close it.
    h = harness
    h.wait_connected(h.prediction)
    h.prediction.publish(String(data='point'))
    assert h.spin_until(lambda: h.listening[-1:] == [True])
    h.spin_until(lambda: False, timeout=1.0)
    assert h.node.listening and h.node.counters.get('windows_timed_out') == 0
    for stamp in (5000.0, 5000.2, 5000.4):
        h.node.feed_pose(stamp, 0.0, 0.0)
    assert h.node.listening
    h.node.feed_pose(5000.6, 0.0, 0.0)
    assert h.spin_until(lambda: h.listening[-1:] == [False])
    assert h.node.counters.get('windows_timed_out') == 1


@pytest.mark.parametrize('harness', [{'listen_window': 0.5, 'use_camera': False}],
                         indirect=True)
def test_without_a_camera_the_window_times_out_on_the_nodes_clock(harness):
    h = harness
    h.wait_connected(h.prediction)
    h.prediction.publish(String(data='point'))
    assert h.spin_until(lambda: h.listening[-1:] == [True])
    assert h.spin_until(lambda: h.listening[-1:] == [False])
    assert h.node.counters.get('windows_timed_out') == 1


@pytest.mark.parametrize('harness', [{'listen_on_prediction': False}], indirect=True)
def test_diagnostics_warn_when_no_face_is_seen_for_a_while(harness):
    h = harness
    h.wait_connected(h.image)
    assert h.spin_until(lambda: not h.node.head.loading, timeout=60.0)
    for k in range(5):  # one empty frame per second of camera time
        msg = array_to_image(np.zeros((120, 160, 3), np.uint8))
        msg.header.stamp.sec = 2000 + k
        h.image.publish(msg)
        assert h.spin_until(lambda k=k: h.node.counters.get('frames_no_face') == k + 1,
                            timeout=30.0)
    status = h.node.diagnostics.publish().status[0]
    values = {kv.key: kv.value for kv in status.values}
    assert status.level == status.WARN and 'no face seen for 4 s' in status.message
    assert float(values['seconds_without_face']) == 4.0


@pytest.mark.parametrize('harness', [{'listen_on_prediction': False}], indirect=True)
def test_always_listening_when_the_window_is_off(harness):
    h = harness
    assert h.spin_until(lambda: h.listening[-1:] == [True])
    t = np.arange(0, 3.0, 1 / 30)
    yaw = hs.oscillation(t, 1.0, 2.0, 2.0, 12.0)
    for ti, y in zip(t, yaw):
        h.node.feed_pose(ti, y, 0.0)
    assert h.spin_until(lambda: h.feedback == [False])


@pytest.mark.parametrize('harness', [{'listen_on_prediction': False}], indirect=True)
@pytest.mark.slow
def test_camera_images_of_a_nodding_face_answer_right(harness, shared_data):
    # Real face photo, turned frame by frame into a nod, sent as bgr8 Image messages.
    import cv2
    from banditlearn_ros.vision.head_pose import FaceMeshHeadPose
    h = harness
    img = fw.fit_frame(cv2.imread(str(shared_data / 'real' / 'faces' / 'mps_business-person.png')))
    finder = FaceMeshHeadPose(static_image_mode=True)
    landmarks = finder.landmarks(img, depth=True)[0]
    finder.close()
    h.wait_connected(h.image)
    # Frames that come while Face Mesh loads (in the background, seconds on a busy machine)
    # are skipped, as documented: this test sends each frame once, so it waits for the load.
    assert h.spin_until(lambda: not h.node.head.loading, timeout=120.0), h.node.head.state
    assert h.node.head.state == 'loaded', h.node.head.state
    t = np.arange(0, 2.4, 1 / 30)
    pitch = hs.oscillation(t, 0.7, 2.0, 1.5, 12.0)
    for i, (ti, p) in enumerate(zip(t, pitch)):
        msg = array_to_image(fw.rotate_face(img, landmarks, 0.0, p, 0.0, step=6))
        msg.header.stamp.sec = 1000 + int(ti)
        msg.header.stamp.nanosec = int(round((ti % 1) * 1e9))
        h.image.publish(msg)
        # One frame at a time, so the best-effort camera queue drops nothing.
        assert h.spin_until(lambda: h.node.counters.get('frames') == i + 1, timeout=30.0), \
            h.node.counters.snapshot()
    assert h.spin_until(lambda: h.feedback == [True]), h.node.counters.snapshot()
    assert h.node.counters.get('frames_no_face') == 0


def test_parameter_file_section_matches_the_node(context):
    import yaml
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / 'config' / 'params.yaml'
    section = yaml.safe_load(path.read_text())['/**/feedback_node']['ros__parameters']
    overrides = [Parameter(k, value=v) for k, v in section.items()]
    node = FeedbackNode(context=context, parameter_overrides=overrides)
    try:
        for key, value in section.items():
            assert node.has_parameter(key), key
            assert node.get_parameter(key).value == value, key
            # The file holds the defaults: a fresh node without it has the same values.
        fresh = FeedbackNode(node_name='fresh', context=context)
        try:
            for key, value in section.items():
                assert fresh.get_parameter(key).value == value, key
        finally:
            fresh.close()
            fresh.destroy_node()
    finally:
        node.close()
        node.destroy_node()


def test_keyboard_words():
    from banditlearn_ros.vision.feedback_parameters import parse_answer
    assert parse_answer('y\n') is True and parse_answer(' YES ') is True
    assert parse_answer('n') is False and parse_answer('No\n') is False
    assert parse_answer('') is None and parse_answer('maybe') is None


@pytest.mark.parametrize('harness', [{'keyboard': True}], indirect=True)
def test_keyboard_mode_stays_off_without_a_terminal(harness):
    # pytest's stdin is not a terminal: the node must not start a reader on it.
    import sys
    assert not sys.stdin.isatty()
    assert harness.node._keyboard_thread is None
