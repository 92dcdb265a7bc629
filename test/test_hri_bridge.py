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

"""feedback_node in ROS4HRI over DDS: nods and shakes as action units, the engagement gate."""

import json
from pathlib import Path
import time

from banditlearn_ros.nodes import hri_bridge
from banditlearn_ros.nodes.feedback_node import FeedbackNode
from banditlearn_ros.support.image_bridge import array_to_image
from banditlearn_ros.vision.face_renderer import FaceRenderer
from banditlearn_ros.vision.head_motion_synth import oscillation
from diagnostic_msgs.msg import DiagnosticArray
import numpy as np
import pytest
import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.time import Time
from ros_harness import BOUND
from sensor_msgs.msg import Image
from std_msgs.msg import Bool, Header, String

try:
    import hri_msgs.msg as hri_msgs
except ImportError:
    hri_msgs = None
try:
    import mediapipe
except ImportError:
    mediapipe = None

pytestmark = pytest.mark.ros
needs_hri = pytest.mark.skipif(
    hri_msgs is None or mediapipe is None,
    reason='needs hri_msgs (scripts/setup.sh generates it) and mediapipe')

# RIHS01 type hashes of ros4hri's hri_msgs 2.0 (the ROS 2 branch), the same in every
# distribution: a field name or type of ours that differs would change them.
ROS4HRI_HASHES = {
    'FacialActionUnits': '43f431104624b6ff7f84350f1faa3747efc8a9330dee942b717a08830a267ed3',
    'IdsList': '7e0812d1ac945c98fd3e393568d581ad0ab567f37b24eff633eab778c1bfe62d',
    'NormalizedRegionOfInterest2D':
        '2e50c93f1ca166ee77af9a5424dc951ae4e452b740162a7f83c082d917dcaff5',
    'EngagementLevel': '275391f46d2e6cc0d21085f8e02dce6a8150baa57539ec99bd9f4e0321443788',
}

RATE = 30.0
LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)


class FacsReader:
    """Read /humans/faces/<id>/facs as libhri does: every unit of each message."""

    def __init__(self, probe, face):
        self.messages = []  # (stamp, {unit: (intensity, confidence)})
        probe.create_subscription(hri_msgs.FacialActionUnits, f'/humans/faces/{face}/facs',
                                  self._on_facs, 10)

    def _on_facs(self, msg):
        units = {unit: (float(msg.intensity[unit]), float(msg.confidence[unit]))
                 for unit in range(len(msg.intensity))}
        stamp = msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec
        self.messages.append((stamp, units))

    def units(self):
        """Return the units with a confidence above zero, per message."""
        return [sorted(u for u, (_, c) in units.items() if c > 0) for _, units in self.messages]


class Harness:
    """A FeedbackNode (always listening) and a probe playing camera, learner and ROS4HRI."""

    def __init__(self, context):
        self.node = FeedbackNode(context=context, parameter_overrides=[
            Parameter('listen_on_prediction', value=False)])
        self.probe = rclpy.create_node('probe', context=context)
        self.executor = SingleThreadedExecutor(context=context)
        self.executor.add_node(self.node)
        self.executor.add_node(self.probe)
        self.feedback, self.diag, self.tracked = [], [], []
        self.probe.create_subscription(Bool, 'gesture_feedback',
                                       lambda m: self.feedback.append(m.data), 10)
        self.probe.create_subscription(DiagnosticArray, '/diagnostics', self.diag.append, 10)
        self.probe.create_subscription(hri_msgs.IdsList, '/humans/faces/tracked',
                                       lambda m: self.tracked.append(list(m.ids)), 10)
        self.image = self.probe.create_publisher(Image, 'image_raw', 10)
        self.frames = 0

    def spin_until(self, condition, timeout=BOUND):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.02)
            if condition():
                return True
        return condition()

    def send(self, image, t):
        """Publish one frame stamped 1000 + t s; wait until the node has processed it."""
        msg = array_to_image(image)
        msg.header.stamp.sec = 1000 + int(t)
        msg.header.stamp.nanosec = int(round((t % 1) * 1e9)) % 1000000000
        msg.header.frame_id = 'camera'
        self.image.publish(msg)
        self.frames += 1
        done = self.frames
        assert self.spin_until(lambda: self.node.counters.get('frames')
                               + self.node.counters.get('frames_skipped') >= done, timeout=30.0)

    def diagnostics(self):
        values = {}
        for array in self.diag:
            for status in array.status:
                if 'feedback_node' in status.name:
                    values = {kv.key: kv.value for kv in status.values}
        return values

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
def harness(context):
    h = Harness(context)
    assert h.spin_until(lambda: h.image.get_subscription_count() > 0 and
                        h.node.head is not None and not h.node.head.loading, timeout=60.0)
    yield h
    h.close()


@pytest.mark.skipif(hri_msgs is None, reason='hri_msgs is not installed')
def test_the_messages_have_ros4hri_type_hashes():
    # The install prefix of the hri_msgs imported: <prefix>/lib/pythonX.Y/site-packages/.
    module = Path(hri_msgs.__file__).resolve()
    share = next(p / 'share' / 'hri_msgs' for p in module.parents
                 if (p / 'share' / 'hri_msgs' / 'msg').is_dir())
    for name, expected in ROS4HRI_HASHES.items():
        with open(share / 'msg' / f'{name}.json') as f:
            hashes = json.load(f)['type_hashes']
        assert hashes[0]['type_name'] == f'hri_msgs/msg/{name}'
        assert hashes[0]['hash_string'] == 'RIHS01_' + expected, name


@pytest.mark.parametrize('missing, ros4hri, why', [
    ('hri_msgs not installed (No module named hri_msgs)', True, 'hri_msgs not installed'),
    ('', False, 'ros4hri is false')])
def test_without_the_bridge_the_node_says_why_and_publishes_no_humans_topic(
        context, monkeypatch, missing, ros4hri, why):
    monkeypatch.setattr(hri_bridge, 'MISSING', missing)
    node = FeedbackNode(context=context, parameter_overrides=[
        Parameter('ros4hri', value=ros4hri)])
    try:
        assert node.hri is None
        assert node._hri_line.startswith(f'ROS4HRI bridge off: {why}')
        assert not [p for p in node.publishers if p.topic_name.startswith('/humans')]
        assert not [s for s in node.subscriptions if s.topic_name.startswith('/humans')]
        assert node._collect()[2]['ros4hri'].startswith('ROS4HRI bridge off')
    finally:
        node.close()
        node.destroy_node()


def test_an_unknown_engagement_gate_is_refused(context):
    with pytest.raises(ValueError, match='auto | on | off'):
        FeedbackNode(context=context, parameter_overrides=[
            Parameter('engagement_gate', value='sometimes')])


def _motion(t):
    """Still, a nod at 0.8 s, still, a shake at 2.6 s (yaw, pitch per sample time)."""
    pitch = oscillation(t, 0.8, 2.0, 1.5, 12.0)
    yaw = oscillation(t, 2.6, 2.0, 1.5, 16.0)
    return yaw, pitch


@needs_hri
@pytest.mark.slow
def test_a_rendered_head_nods_then_shakes_as_au85_then_au84(harness):
    h = harness
    assert h.node.hri is not None, h.node._hri_line
    reader = FacsReader(h.probe, 'bl1')  # the first face of the node's own ids
    face = FaceRenderer(320, 240, face_height=132, step=0.5, cache=64)
    t = np.arange(0.0, 4.4, 1 / RATE)
    yaw, pitch = _motion(t)
    for ti, y, p in zip(t, yaw, pitch):
        h.send(face.render(y, p), ti)
    assert h.spin_until(lambda: len(h.feedback) >= 2 and len(reader.messages) >= 2), (
        h.feedback, h.node.counters.snapshot())
    assert h.feedback == [True, False]
    assert reader.units() == [[85], [84]]  # every other unit at zero confidence
    sent = {round(1000 + ti, 6) for ti in t}
    stamps = [stamp for stamp, _ in reader.messages]
    assert all(round(s, 6) in sent for s in stamps)  # each is a frame's own stamp
    assert 1000.8 < stamps[0] < 1002.6 < stamps[1] < 1004.4
    nod, shake = reader.messages[0][1], reader.messages[1][1]
    assert 0.0 < nod[85][0] <= 1.0 and 0.0 < shake[84][0] <= 1.0
    # No face tracker runs: the node names the face itself, on /humans/faces/tracked.
    assert h.spin_until(lambda: h.tracked and h.tracked[-1] == ['bl1'])
    assert h.spin_until(lambda: 'engagement_gate' in h.diagnostics(), timeout=5.0)
    values = h.diagnostics()
    assert values['ros4hri'] == 'on' and values['face_ids'] == 'own'
    assert values['engagement_gate'].startswith('auto: open')


def _two_faces(renderer, left, right):
    return np.hstack([renderer.render(*left), renderer.render(*right)])


@needs_hri
@pytest.mark.slow
def test_only_the_engaged_persons_nods_and_shakes_answer(harness):
    h = harness
    from banditlearn_ros.vision.face_select import box_of
    from banditlearn_ros.vision.head_pose import FaceMeshHeadPose
    face = FaceRenderer(320, 240, face_height=132, step=0.5, cache=64)
    # What hri_face_detect would publish: the two faces' ROIs, as Face Mesh finds them.
    finder = FaceMeshHeadPose(static_image_mode=True, max_faces=2)
    still = _two_faces(face, (0.0, 0.0), (0.0, 0.0))
    boxes = sorted(box_of(pts) for pts in finder.landmarks(still))
    finder.close()
    assert len(boxes) == 2
    pub = h.probe.create_publisher
    faces_pub = pub(hri_msgs.IdsList, '/humans/faces/tracked', 10)
    persons_pub = pub(hri_msgs.IdsList, '/humans/persons/tracked', 10)
    rois = {f: pub(hri_msgs.NormalizedRegionOfInterest2D, f'/humans/faces/{f}/roi', 10)
            for f in ('fa', 'fb')}
    statuses = {p: pub(hri_msgs.EngagementLevel, f'/humans/persons/{p}/engagement_status',
                       10) for p in ('pa', 'pb')}
    for person, face_id in (('pa', 'fa'), ('pb', 'fb')):
        pub(String, f'/humans/persons/{person}/face_id', LATCHED).publish(String(data=face_id))
    levels = {'pa': hri_msgs.EngagementLevel.ENGAGED, 'pb': hri_msgs.EngagementLevel.DISENGAGED}
    left, right = FacsReader(h.probe, 'fa'), FacsReader(h.probe, 'fb')
    assert h.spin_until(lambda: h.node.hri.tracker_runs(), timeout=10.0)

    def ros4hri(ti, engagement):  # ten times per second of frame time, on the camera's clock
        stamp = Time(seconds=1000 + ti).to_msg()
        faces_pub.publish(hri_msgs.IdsList(header=_header(stamp), ids=['fa', 'fb']))
        for face_id, (x0, y0, x1, y1) in zip(('fa', 'fb'), boxes):
            rois[face_id].publish(hri_msgs.NormalizedRegionOfInterest2D(
                header=_header(stamp), xmin=x0 / 640, ymin=y0 / 240, xmax=x1 / 640,
                ymax=y1 / 240, c=1.0))
        if not engagement:
            return
        persons_pub.publish(hri_msgs.IdsList(header=_header(stamp), ids=['pa', 'pb']))
        for person, level in levels.items():
            statuses[person].publish(hri_msgs.EngagementLevel(header=_header(stamp),
                                                              level=level))

    def play(t, left_pose, right_pose, engagement):
        for i, (ti, lp, rp) in enumerate(zip(t, left_pose, right_pose)):
            if i % 3 == 0:
                ros4hri(ti, engagement)
                h.spin_until(lambda: False, timeout=0.02)
            h.send(_two_faces(face, lp, rp), ti)

    # Engagement statuses arrive: the right face (pb, not engaged) nods, the left one (pa,
    # engaged) shakes; only the shake answers.
    t = np.arange(0.0, 4.4, 1 / RATE)
    yaw, pitch = _motion(t)
    still = np.zeros_like(t)
    play(t, zip(yaw, still), zip(still, pitch), engagement=True)
    assert h.spin_until(lambda: len(left.messages) >= 1 and len(right.messages) >= 1), (
        h.feedback, h.node.counters.snapshot())
    assert right.units() == [[85]] and left.units() == [[84]]
    assert h.spin_until(lambda: h.feedback == [False]), h.feedback
    assert h.node.counters.get('answers_not_engaged') == 1
    values = h.diagnostics()
    assert values['face_ids'] == 'from the ROS4HRI face tracker'
    assert values['engagement_gate'].startswith('auto: answers only from')
    # No engagement publisher any more: after 3 s the gate opens by itself, and the face the
    # node follows answers as without ROS4HRI. Both nod; one answer, two units 85.
    t = np.arange(4.4, 9.6, 1 / RATE)
    pitch = oscillation(t, 8.0, 2.0, 1.5, 12.0)
    play(t, zip(still, pitch), zip(still, pitch), engagement=False)
    assert h.spin_until(lambda: len(left.messages) >= 2 and len(right.messages) >= 2), (
        h.feedback, h.node.counters.snapshot())
    assert right.units() == [[85], [85]] and left.units() == [[84], [85]]
    assert h.spin_until(lambda: h.feedback == [False, True]), h.feedback
    assert h.node.counters.get('answers_not_engaged') == 1
    assert h.node.counters.get('gestures_of_other_faces') == 1  # the face not followed
    h.diag.clear()
    assert h.spin_until(lambda: 'engagement_gate' in h.diagnostics(), timeout=5.0)
    assert h.diagnostics()['engagement_gate'].startswith('auto: open')


def _header(stamp):
    return Header(stamp=stamp, frame_id='camera')
