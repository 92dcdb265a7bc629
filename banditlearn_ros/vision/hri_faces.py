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
What the feedback node tells and hears in ROS4HRI terms (REP-155), without ROS.

A nod or shake becomes facial action units 85 / 84 (FACS, Ekman and Friesen; REP-155's
``/humans/faces/<id>/facs``): one intensity and one confidence per unit number, every unit
not measured at zero confidence, because a ROS4HRI reader (libhri) takes every unit of each
message. A face the node measured is named by the ROS4HRI face whose ROI overlaps it most
(``match_face``), or by an id of its own when no face tracker runs (``FaceIds``). The faces
beside the one the node follows get detectors of their own (``OtherFaces``), so each face's
nods are published. ``EngagementGate`` decides, on message and frame time, whether an answer
from a face counts: only from a person ENGAGED or ENGAGING (REP-155
``/humans/persons/<id>/engagement_status``), once such statuses arrive.
"""

import math
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .face_select import Box, box_of, iou
from .head_gesture import GestureDecision, HeadGestureDetector
from .head_pose import LANDMARKS, NeutralBaseline, PoseSolver

AU_SHAKE = 84
"""FACS action unit 84, head shake back and forth."""
AU_NOD = 85
"""FACS action unit 85, head nod up and down."""
AU_COUNT = 99
"""Units per hri_msgs/FacialActionUnits message (its arrays are indexed by unit number)."""
FULL_SWING = 20.0
"""Degrees of swing, extreme to extreme, that count as intensity 1."""

# hri_msgs/EngagementLevel's levels.
UNKNOWN, DISENGAGED, ENGAGING, ENGAGED, DISENGAGING = range(5)
LEVEL_NAMES = ('UNKNOWN', 'DISENGAGED', 'ENGAGING', 'ENGAGED', 'DISENGAGING')
GATE_MODES = ('auto', 'on', 'off')


def action_units(decision: GestureDecision) -> Tuple[np.ndarray, np.ndarray]:
    """
    Return the intensity and confidence arrays (99 float32 each) of one nod or shake.

    Parameters
    ----------
    decision : GestureDecision
        The detector's decision: a nod sets unit 85, a shake unit 84.

    Returns
    -------
    intensity, confidence : numpy.ndarray
        Indexed by unit number; every other unit at zero intensity and zero confidence.

    Examples
    --------
    >>> from banditlearn_ros.vision.head_gesture import GestureDecision
    >>> d = GestureDecision(True, 'nod', 0.9, 0.9, 0.1, 2.0, 1.0, 2.0, 3, 10.0)
    >>> intensity, confidence = action_units(d)
    >>> float(intensity[85]), round(float(confidence[85]), 6), int((confidence > 0).sum())
    (0.5, 0.9, 1)

    """
    intensity = np.zeros(AU_COUNT, np.float32)
    confidence = np.zeros(AU_COUNT, np.float32)
    unit = AU_NOD if decision.answer else AU_SHAKE
    amplitude = decision.amplitude if math.isfinite(decision.amplitude) else 0.0
    intensity[unit] = min(1.0, max(0.0, amplitude / FULL_SWING))
    confidence[unit] = min(1.0, max(0.0, decision.confidence))
    return intensity, confidence


def normalized_roi(box: Box, width: int, height: int) -> Box:
    """Return a pixel box as REP-155's normalized ROI (xmin, ymin, xmax, ymax in [0, 1])."""
    x0, y0, x1, y1 = box
    clip = lambda v: min(1.0, max(0.0, float(v)))  # noqa: E731 - four uses, one line
    return clip(x0 / width), clip(y0 / height), clip(x1 / width), clip(y1 / height)


def match_face(roi: Box, rois: Mapping[str, Box], min_iou: float = 0.3) -> Optional[str]:
    """
    Return the id of the ROS4HRI face whose ROI overlaps ``roi`` most (None: none enough).

    Both in normalized coordinates; ties go to the smaller id, so the choice is the same on
    every run.
    """
    best, best_iou = None, min_iou
    for face_id in sorted(rois):
        overlap = iou(roi, rois[face_id])
        if overlap >= best_iou and (best is None or overlap > best_iou):
            best, best_iou = face_id, overlap
    return best


class FaceIds:
    """
    Ids of the node's own for the faces it sees, when no ROS4HRI face tracker names them.

    A face keeps its id while its box overlaps its last one (IoU >= ``min_iou``) and it was
    seen within ``max_missing`` seconds of frame time; a new face gets ``prefix`` + a number.
    """

    def __init__(self, prefix: str = 'bl', min_iou: float = 0.3, max_missing: float = 1.5):
        self.prefix = prefix
        self.min_iou = float(min_iou)
        self.max_missing = float(max_missing)
        self._faces: Dict[str, Tuple[Box, float]] = {}
        self._count = 0

    def update(self, boxes: Sequence[Box], stamp: float) -> List[str]:
        """Return one id per box of this frame (any box type; normalized or pixels alike)."""
        self._faces = {k: v for k, v in self._faces.items()
                       if 0.0 <= stamp - v[1] <= self.max_missing}
        free = dict(self._faces)
        ids = []
        for box in boxes:
            scores = [(iou(box, old), k) for k, (old, _) in free.items()]
            overlap, key = max(scores) if scores else (0.0, None)
            if key is None or overlap < self.min_iou:
                self._count += 1
                key = f'{self.prefix}{self._count}'
            else:
                del free[key]
            self._faces[key] = (tuple(box), stamp)
            ids.append(key)
        return ids

    @property
    def tracked(self) -> List[str]:
        """Return the ids of the faces seen lately, sorted."""
        return sorted(self._faces)


class _Face:
    """One face beside the followed one: its box, pose solver, neutral pose and detector."""

    def __init__(self, box: Box, stamp: float, detector: HeadGestureDetector,
                 focal: Optional[float], warmup: int):
        self.box, self.seen = box, stamp
        self.solver = PoseSolver(focal)
        self.baseline = NeutralBaseline(warmup=warmup)
        self.detector = detector


class OtherFaces:
    """
    Nods and shakes of the faces the feedback node does not follow, one detector each.

    Parameters
    ----------
    make_detector : callable
        Returns a new ``HeadGestureDetector`` (the node's settings) for a new face.
    focal : float, optional
        Focal length in pixels (default the image width), as ``head_pose.PoseSolver``.
    warmup : int
        Frames that define a new face's neutral pose.
    min_iou, max_missing : float
        A face is the same as one of the last frames when their boxes overlap this much, for
        this many seconds of frame time without a match.

    """

    def __init__(self, make_detector: Callable[[], HeadGestureDetector],
                 focal: Optional[float] = None, warmup: int = 10, min_iou: float = 0.3,
                 max_missing: float = 1.5):
        self.make_detector = make_detector
        self.focal, self.warmup = focal, int(warmup)
        self.min_iou, self.max_missing = float(min_iou), float(max_missing)
        self._faces: List[_Face] = []

    def __len__(self) -> int:
        """Return the number of faces followed."""
        return len(self._faces)

    def reset(self) -> None:
        """Forget every face (a new stream)."""
        self._faces = []

    def question(self) -> None:
        """Tell every detector a question was asked (motion from before answers nothing)."""
        for face in self._faces:
            face.detector.question()

    @property
    def following(self) -> bool:
        """Return whether a detector follows a gesture to its end (every frame counts)."""
        return any(face.detector.following for face in self._faces)

    def update(self, faces: Sequence[np.ndarray], skip: Optional[Box],
               image_size: Tuple[int, int],
               stamp: float) -> List[Tuple[Box, Optional[GestureDecision]]]:
        """
        Give one frame's faces (Face Mesh landmarks, N x 2 pixels) to their detectors.

        ``skip`` is the box of the face the node follows (measured elsewhere). Returns
        (box, decision or None) for every other face in this frame.
        """
        boxes = [box_of(points) for points in faces]
        keep = [i for i, box in enumerate(boxes) if skip is None or iou(box, skip) < 0.9]
        free = list(self._faces)
        out = []
        for i in keep:
            scores = [iou(boxes[i], face.box) for face in free]
            best = int(np.argmax(scores)) if scores else -1
            if best >= 0 and scores[best] >= self.min_iou:
                face = free.pop(best)
            else:
                face = _Face(boxes[i], stamp, self.make_detector(), self.focal, self.warmup)
                self._faces.append(face)
            face.box, face.seen = boxes[i], stamp
            out.append((boxes[i], self._step(face, faces[i], image_size, stamp)))
        for face in free:  # not in this frame
            face.detector.lost(stamp)
        self._faces = [f for f in self._faces if 0.0 <= stamp - f.seen <= self.max_missing]
        return out

    @staticmethod
    def _step(face: _Face, points: np.ndarray, image_size: Tuple[int, int],
              stamp: float) -> Optional[GestureDecision]:
        angles = face.solver.solve(points[list(LANDMARKS)], image_size)
        if angles is None:
            face.detector.lost(stamp)
            return None
        relative = face.baseline.update(stamp, angles)
        if relative is None:
            face.detector.lost(stamp)
            return None
        return face.detector.update(stamp, relative[0], relative[1])


class EngagementGate:
    """
    Whether an answer from a face counts, by the engagement of the person it belongs to.

    Parameters
    ----------
    mode : str
        'on': an answer counts only from a face whose person is ENGAGED or ENGAGING now;
        'off': every answer counts (as without ROS4HRI); 'auto': 'on' while engagement
        statuses arrive, open by itself after ``quiet`` seconds without any.
    max_age : float
        Seconds a status stays true (hri_engagement publishes about 10 per second).
    quiet : float
        Seconds without any status after which 'auto' opens the gate.

    Times are the messages' stamps and the camera frames' stamps, so the gate is tested
    without a clock.

    Examples
    --------
    >>> gate = EngagementGate('auto')
    >>> gate.allows('face_a', 10.0)
    (True, 'open: no engagement statuses')
    >>> gate.person_face('p1', 'face_a'); gate.status('p1', ENGAGED, 10.0)
    >>> gate.allows('face_a', 10.5), gate.allows('face_b', 10.5)[0]
    ((True, 'person p1 ENGAGED'), False)

    """

    def __init__(self, mode: str = 'auto', max_age: float = 1.0, quiet: float = 3.0):
        if mode not in GATE_MODES:
            raise ValueError(f'engagement_gate must be one of {" | ".join(GATE_MODES)}, '
                             f'not {mode!r}')
        self.mode, self.max_age, self.quiet = mode, float(max_age), float(quiet)
        self._status: Dict[str, Tuple[int, float]] = {}
        self._faces: Dict[str, str] = {}
        self._last = -math.inf

    def status(self, person: str, level: int, stamp: float) -> None:
        """Take one engagement status of a person, stamped ``stamp``."""
        self._status[person] = (int(level), float(stamp))
        self._last = max(self._last, float(stamp))

    def person_face(self, person: str, face: str) -> None:
        """Take the face a person is matched to (REP-155 ``/humans/persons/<id>/face_id``)."""
        if face:
            self._faces[person] = face
        else:
            self._faces.pop(person, None)

    def persons(self, tracked: Iterable[str]) -> None:
        """Forget the persons no longer tracked."""
        keep = set(tracked)
        for table in (self._status, self._faces):
            for person in [p for p in table if p not in keep]:
                del table[person]

    def gating(self, now: float) -> bool:
        """Return whether answers are checked against engagement at time ``now``."""
        if self.mode != 'auto':
            return self.mode == 'on'
        return abs(now - self._last) <= self.quiet

    def state(self, now: float) -> str:
        """Return the gate's state in words for /diagnostics."""
        if self.mode == 'off':
            return 'off: every answer counts'
        if not self.gating(now):
            return f'auto: open, no engagement statuses for {self.quiet:g} s'
        heard = '' if math.isfinite(self._last) else ' (no status heard yet)'
        return f'{self.mode}: answers only from ENGAGED or ENGAGING persons{heard}'

    def allows(self, face: Optional[str], now: float) -> Tuple[bool, str]:
        """Return whether an answer from ``face`` at ``now`` counts, and why."""
        if not self.gating(now):
            return True, 'open: no engagement statuses' if self.mode == 'auto' else 'open'
        heard = []
        for person in sorted(p for p, f in self._faces.items() if f == face):
            level, stamp = self._status.get(person, (UNKNOWN, -math.inf))
            fresh = abs(now - stamp) <= self.max_age
            if fresh and level in (ENGAGED, ENGAGING):
                return True, f'person {person} {LEVEL_NAMES[level]}'
            heard.append(f'{person} {LEVEL_NAMES[level] if fresh else "no recent status"}')
        if not heard:
            return False, f'face {face} belongs to no person with an engagement status'
        return False, 'not engaged: ' + ', '.join(heard)
