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

"""
feedback_node's ROS4HRI side (REP-155): nods and shakes out as action units, engagement in.

Each nod or shake of any face in view goes out as AU85 / AU84 on
``/humans/faces/<id>/facs``, stamped with its frame. ``<id>`` is the face a ROS4HRI face
tracker (hri_face_detect) publishes on ``/humans/faces/tracked`` whose ROI overlaps the face
measured here; with no tracker, an id of the node's own, whose face then also goes out on
``/humans/faces/tracked`` and ``/humans/faces/<id>/roi``. ``/humans/persons/tracked`` with
each person's ``face_id`` and ``engagement_status`` feed the engagement gate: an answer
counts only from an ENGAGED or ENGAGING person's face (``vision.hri_faces``). Made only when
hri_msgs can be imported; ``MISSING`` says why not.
"""

import math
import time
from typing import Dict, List, Optional, Tuple

from banditlearn_ros.nodes import qos
from banditlearn_ros.vision import feedback_parameters as rules
from banditlearn_ros.vision.head_gesture import HeadGestureDetector
from banditlearn_ros.vision.hri_faces import (action_units, EngagementGate, FaceIds,
                                              match_face, normalized_roi, OtherFaces)
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

try:
    from hri_msgs.msg import (EngagementLevel, FacialActionUnits, IdsList,
                              NormalizedRegionOfInterest2D)
    MISSING = ''
except ImportError as exc:  # a pip set-up without scripts/hri_msgs.sh, or no ros4hri
    MISSING = f'hri_msgs not installed ({exc}; scripts/setup.sh generates it)'

FACES, PERSONS = '/humans/faces', '/humans/persons'
TRACKER_CHECK = 1.0
"""Seconds between looks at the graph for a ROS4HRI face tracker."""

# REP-155 topics use the system default QoS (reliable, volatile); face_id is latched.
DEFAULT = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=10,
                     reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.VOLATILE)
LATCHED = qos.LATCHED


def start(node) -> Tuple[Optional['HriBridge'], str]:
    """Return the feedback node's bridge made of its parameters (or None) and a start line."""
    v = {name: node.get_parameter(name).value
         for name in ('ros4hri', 'engagement_gate', 'focal_length', 'baseline_frames')}
    if not v['ros4hri'] or MISSING:
        return None, f'ROS4HRI bridge off: {MISSING or "ros4hri is false"}'
    others = OtherFaces(lambda: HeadGestureDetector(**{
        k: node.get_parameter(k).value for k in rules.DETECTOR_PARAMETERS}),
        v['focal_length'] or None, v['baseline_frames'])
    bridge = HriBridge(node, EngagementGate(v['engagement_gate']), others)
    return bridge, f'ROS4HRI bridge on, engagement_gate {v["engagement_gate"]}'


def _seconds(stamp) -> float:
    return stamp.sec + 1e-9 * stamp.nanosec


class HriBridge:
    """
    Publish each face's nods and shakes in ROS4HRI terms and gate answers by engagement.

    Parameters
    ----------
    node : rclpy.node.Node
        The feedback node: its publishers, subscriptions, clock and ``counters``.
    gate : EngagementGate
        Decides which faces' answers count.
    others : OtherFaces
        Detectors for the faces beside the one the node follows.

    """

    def __init__(self, node, gate: EngagementGate, others: OtherFaces):
        self.node, self.gate, self.others = node, gate, others
        self.own_ids = FaceIds()
        self.face_id: Optional[str] = None  # the followed face's id in the last frame
        self._rois: Dict[str, Tuple[float, float, float, float]] = {}
        self._subs: Dict[str, list] = {}  # 'face:<id>' / 'person:<id>' -> subscriptions
        self._facs: Dict[str, object] = {}
        self._own: Dict[str, object] = {}  # own faces' ROI publishers
        self._tracked_pub = None
        self._tracker, self._checked = False, -math.inf
        self.now = -math.inf  # frame time of the last frame
        self._taken = [
            node.create_subscription(IdsList, f'{FACES}/tracked', self._on_faces, DEFAULT),
            node.create_subscription(IdsList, f'{PERSONS}/tracked', self._on_persons,
                                     DEFAULT)]

    # -- the faces of a frame ----------------------------------------------------------
    def tracker_runs(self) -> bool:
        """Return whether a ROS4HRI face tracker publishes (the graph, once a second)."""
        wall = time.monotonic()
        if wall - self._checked >= TRACKER_CHECK:
            self._checked = wall
            count = self.node.count_publishers(f'{FACES}/tracked')
            self._tracker = count - (self._tracked_pub is not None) > 0
            if self._tracker and self._tracked_pub is not None:
                self._drop_own()
        return self._tracker

    def frame(self, header, stamp: float, size: Tuple[int, int], pose) -> List:
        """
        Name one frame's faces and run the other faces' detectors.

        ``stamp`` is the frame's time (its header's, or the node's clock for an unstamped
        frame), ``size`` (width, height), ``pose`` the frame's ``HeadPose`` (the followed
        face's box, every face's landmarks). Returns the other faces' decisions that answer: only
        while the gate checks engagement, from an engaged person's face.
        """
        self.now = stamp
        faces = pose.faces_landmarks or []
        others = self.others.update(faces, pose.box, size, stamp)
        boxes = ([pose.box] if pose.box is not None else []) + [box for box, _ in others]
        ids = self._name(boxes, size, header, stamp)
        self.face_id = ids[0] if pose.box is not None else None
        answers = []
        for (_, decision), face in zip(others, ids[len(ids) - len(others):]):
            if decision is None:
                continue
            self.publish(face, decision, header)
            if not self.gate.gating(stamp):  # open: the followed face answers, as before
                self.node.counters.add('gestures_of_other_faces')
            elif self.gate.allows(face, stamp)[0]:
                answers.append(decision)
            else:
                self.node.counters.add('answers_not_engaged')
        return answers

    def followed(self, decision, header) -> bool:
        """Publish the followed face's decision; return whether it may answer."""
        self.publish(self.face_id, decision, header)
        allowed, why = self.gate.allows(self.face_id, decision.stamp)
        if not allowed:
            self.node.counters.add('answers_not_engaged')
            self.node.get_logger().info(f'{decision.kind} not taken: {why}')
        return allowed

    def _name(self, boxes, size, header, stamp) -> List[Optional[str]]:
        rois = [normalized_roi(box, *size) for box in boxes]
        if self.tracker_runs():
            return [match_face(roi, self._rois) for roi in rois]
        ids = self.own_ids.update(rois, stamp)
        if self._tracked_pub is None:
            self._tracked_pub = self.node.create_publisher(IdsList, f'{FACES}/tracked',
                                                           DEFAULT)
        for face, roi in zip(ids, rois):
            if face not in self._own:
                self._own[face] = self.node.create_publisher(
                    NormalizedRegionOfInterest2D, f'{FACES}/{face}/roi', DEFAULT)
            msg = NormalizedRegionOfInterest2D(header=header, c=1.0)
            msg.xmin, msg.ymin, msg.xmax, msg.ymax = roi
            self._own[face].publish(msg)
        for face in [f for f in self._own if f not in self.own_ids.tracked]:
            self.node.destroy_publisher(self._own.pop(face))
        self._tracked_pub.publish(IdsList(header=header, ids=self.own_ids.tracked))
        return ids

    def publish(self, face: Optional[str], decision, header) -> None:
        """Publish one nod or shake as action units of ``face`` (counted when unnamed)."""
        if face is None:  # a tracker runs but no ROI of its matches this face
            self.node.counters.add('gestures_of_unnamed_faces')
            return
        if face not in self._facs:
            self._facs[face] = self.node.create_publisher(
                FacialActionUnits, f'{FACES}/{face}/facs', DEFAULT)
        intensity, confidence = action_units(decision)
        self._facs[face].publish(FacialActionUnits(header=header, intensity=intensity,
                                                   confidence=confidence))
        self.node.counters.add('action_units_published')

    # -- what ROS4HRI publishes ---------------------------------------------------------
    def _on_faces(self, msg) -> None:
        if not self.tracker_runs():
            return  # our own list, heard back
        self._follow('face', msg.ids, lambda face: [self.node.create_subscription(
            NormalizedRegionOfInterest2D, f'{FACES}/{face}/roi',
            lambda m, face=face: self._on_roi(face, m), DEFAULT)])
        self._rois = {k: v for k, v in self._rois.items() if k in msg.ids}

    def _on_roi(self, face: str, msg) -> None:
        self._rois[face] = (msg.xmin, msg.ymin, msg.xmax, msg.ymax)

    def _on_persons(self, msg) -> None:
        self._follow('person', msg.ids, lambda person: [
            self.node.create_subscription(
                EngagementLevel, f'{PERSONS}/{person}/engagement_status',
                lambda m, p=person: self._on_status(p, m), DEFAULT),
            self.node.create_subscription(
                String, f'{PERSONS}/{person}/face_id',
                lambda m, p=person: self.gate.person_face(p, m.data), LATCHED)])
        self.gate.persons(msg.ids)

    def _on_status(self, person: str, msg) -> None:
        stamp = _seconds(msg.header.stamp)
        if stamp <= 0.0:  # unstamped: the node's clock
            stamp = self.node.get_clock().now().nanoseconds * 1e-9
        self.gate.status(person, msg.level, stamp)

    def _follow(self, kind: str, ids, subscribe) -> None:
        wanted = {f'{kind}:{i}' for i in ids}
        for key in [k for k in self._subs if k.startswith(kind + ':') and k not in wanted]:
            for sub in self._subs.pop(key):
                self.node.destroy_subscription(sub)
        for i in ids:
            if f'{kind}:{i}' not in self._subs:
                self._subs[f'{kind}:{i}'] = subscribe(i)

    # -- state and release ---------------------------------------------------------------
    def question(self) -> None:
        """Mark a question asked: motion from before it answers nothing on any face."""
        self.others.question()

    def values(self) -> Dict[str, object]:
        """Return the bridge's state for /diagnostics."""
        now = self.now if math.isfinite(self.now) else \
            self.node.get_clock().now().nanoseconds * 1e-9
        return {'ros4hri': 'on', 'engagement_gate': self.gate.state(now),
                'face_ids': 'from the ROS4HRI face tracker' if self._tracker else 'own',
                'other_faces': len(self.others)}

    def _drop_own(self) -> None:
        for pub in list(self._own.values()) + [self._tracked_pub]:
            self.node.destroy_publisher(pub)
        self._own, self._tracked_pub = {}, None

    def close(self) -> None:
        """Drop every subscription and publisher the bridge made."""
        for sub in self._taken + [s for subs in self._subs.values() for s in subs]:
            self.node.destroy_subscription(sub)
        for pub in self._facs.values():
            self.node.destroy_publisher(pub)
        if self._tracked_pub is not None:
            self._drop_own()
        self._taken, self._subs, self._facs = [], {}, {}
