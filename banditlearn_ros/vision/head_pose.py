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
Head pose (yaw, pitch, roll) from MediaPipe Face Mesh landmarks and a generic 3-D face.

Camera frame as in OpenCV: x to the image's right, y down, z away from the camera. Angles in
degrees, ``R = Ry(yaw) @ Rx(pitch) @ Rz(roll)``: pitch > 0 turns the face down (a nod's first
half), yaw > 0 turns the nose toward the image's left, roll > 0 tilts clockwise in the image.
A generic face model biases absolute pitch by 5-35 degrees from person to person, so the
angles that matter are relative to each person's neutral pose (:class:`NeutralBaseline`).
MediaPipe is imported only when a :class:`FaceMeshHeadPose` is first used.
"""

from dataclasses import dataclass, field
import math
from typing import List, Optional, Tuple

import cv2
import numpy as np

from .face_select import box_of, FaceTracker

# Face Mesh landmark index -> generic adult face point (mm), face looking into the camera,
# origin between the eyes (nasion). Rounded anthropometric averages, written for this module:
# eye corners 90 / 30 mm apart, nose tip ~48 mm below and ~30 mm in front of the nasion,
# mouth corners 50 mm apart, chin ~120 mm below; cheek points on the face's sides.
FACE_MODEL = {
    1: (0.0, 48.0, -30.0),      # nose tip
    168: (0.0, 0.0, 0.0),       # between the eyes
    33: (-45.0, 5.0, 25.0),     # outer eye corner, image left
    263: (45.0, 5.0, 25.0),     # outer eye corner, image right
    133: (-15.0, 5.0, 12.0),    # inner eye corner, image left
    362: (15.0, 5.0, 12.0),     # inner eye corner, image right
    61: (-25.0, 80.0, 5.0),     # mouth corner, image left
    291: (25.0, 80.0, 5.0),     # mouth corner, image right
    152: (0.0, 120.0, 0.0),     # chin
    10: (0.0, -60.0, 10.0),     # top of the forehead
    234: (-70.0, 30.0, 75.0),   # cheek edge, image left
    454: (70.0, 30.0, 75.0),    # cheek edge, image right
}
LANDMARKS = tuple(FACE_MODEL)
MODEL_POINTS = np.array([FACE_MODEL[i] for i in LANDMARKS], np.float64)


def euler_to_rotation(yaw: float, pitch: float, roll: float) -> np.ndarray:
    """Return ``Ry(yaw) @ Rx(pitch) @ Rz(roll)`` for angles in degrees."""
    a, b, c = np.radians([yaw, pitch, roll])
    rot_y = np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])
    rot_x = np.array([[1, 0, 0], [0, np.cos(b), -np.sin(b)], [0, np.sin(b), np.cos(b)]])
    rot_z = np.array([[np.cos(c), -np.sin(c), 0], [np.sin(c), np.cos(c), 0], [0, 0, 1]])
    return rot_y @ rot_x @ rot_z


def rotation_to_euler(rot: np.ndarray) -> Tuple[float, float, float]:
    """Return (yaw, pitch, roll) in degrees of a rotation matrix (inverse of the above)."""
    pitch = math.asin(max(-1.0, min(1.0, -rot[1, 2])))
    yaw = math.atan2(rot[0, 2], rot[2, 2])
    roll = math.atan2(rot[1, 0], rot[1, 1])
    return math.degrees(yaw), math.degrees(pitch), math.degrees(roll)


def camera_matrix(width: int, height: int, focal: Optional[float] = None) -> np.ndarray:
    """Return a pinhole camera matrix; the focal length defaults to the image width (~53 deg)."""
    f = float(focal) if focal else float(width)
    return np.array([[f, 0.0, width / 2.0], [0.0, f, height / 2.0], [0.0, 0.0, 1.0]])


class PoseSolver:
    """
    Solve the head pose from 2-D landmarks with ``cv2.solvePnP``, warm-started frame to frame.

    The previous frame's solution seeds the iterative solver, which is faster and steadier
    than solving from scratch; :meth:`reset` drops it (a new person).
    """

    def __init__(self, focal: Optional[float] = None):
        self.focal = focal
        self._guess: Optional[Tuple[np.ndarray, np.ndarray]] = None

    def reset(self) -> None:
        """Forget the warm start."""
        self._guess = None

    def solve(self, image_points: np.ndarray,
              image_size: Tuple[int, int]) -> Optional[Tuple[float, float, float]]:
        """
        Return absolute (yaw, pitch, roll) in degrees, or None when the solver fails.

        ``image_points`` are the pixels of :data:`LANDMARKS` in order; ``image_size`` is
        (width, height).
        """
        pts = np.ascontiguousarray(image_points, np.float64).reshape(-1, 1, 2)
        if pts.shape[0] != len(MODEL_POINTS) or not np.isfinite(pts).all():
            return None
        cam = camera_matrix(image_size[0], image_size[1], self.focal)
        if self._guess is not None:
            ok, rvec, tvec = cv2.solvePnP(MODEL_POINTS, pts, cam, None,
                                          self._guess[0].copy(), self._guess[1].copy(),
                                          useExtrinsicGuess=True, flags=cv2.SOLVEPNP_ITERATIVE)
        else:
            ok, rvec, tvec = cv2.solvePnP(MODEL_POINTS, pts, cam, None,
                                          flags=cv2.SOLVEPNP_ITERATIVE)
        if not ok or tvec[2, 0] <= 0 or not np.isfinite(rvec).all():
            self._guess = None
            return None
        self._guess = (rvec, tvec)
        rot, _ = cv2.Rodrigues(rvec)
        return rotation_to_euler(rot)


class NeutralBaseline:
    """
    Learn one person's neutral head pose and express angles relative to it.

    The median of the first ``warmup`` samples is the neutral pose (until then, no relative
    angle is given). Afterwards it follows slow posture changes with time constant
    ``adapt_tau`` seconds, but only from samples within ``adapt_band`` degrees of it, so
    gestures and glances do not pull it.
    """

    def __init__(self, warmup: int = 10, adapt_tau: float = 20.0, adapt_band: float = 6.0):
        self.warmup = int(warmup)
        self.adapt_tau = float(adapt_tau)
        self.adapt_band = float(adapt_band)
        self._samples: List[Tuple[float, float, float]] = []
        self.neutral: Optional[np.ndarray] = None
        self._last_t: Optional[float] = None

    def reset(self) -> None:
        """Forget the person."""
        self._samples.clear()
        self.neutral = None
        self._last_t = None

    @property
    def ready(self) -> bool:
        """Return whether the neutral pose is known."""
        return self.neutral is not None

    def update(self, t: float, angles: Tuple[float, float, float]
               ) -> Optional[Tuple[float, float, float]]:
        """Add an absolute (yaw, pitch, roll); return it relative to the neutral, or None."""
        a = np.asarray(angles, np.float64)
        if self.neutral is None:
            self._samples.append(tuple(a))
            self._last_t = t
            if len(self._samples) < self.warmup:
                return None
            self.neutral = np.median(np.asarray(self._samples), axis=0)
            self._samples.clear()
        rel = a - self.neutral
        dt = max(0.0, t - self._last_t) if self._last_t is not None else 0.0
        self._last_t = t
        if self.adapt_tau > 0 and np.all(np.abs(rel[:2]) < self.adapt_band):
            self.neutral = self.neutral + (1.0 - math.exp(-dt / self.adapt_tau)) * rel
        rel = a - self.neutral
        return float(rel[0]), float(rel[1]), float(rel[2])


@dataclass
class HeadPose:
    """The answering person's pose in one frame (angles in degrees)."""

    found: bool
    faces: int = 0
    yaw: float = math.nan
    pitch: float = math.nan
    roll: float = math.nan
    absolute: Tuple[float, float, float] = (math.nan, math.nan, math.nan)
    track_id: int = 0
    new_person: bool = False
    baseline_ready: bool = False
    box: Optional[Tuple[float, float, float, float]] = None
    landmarks: Optional[np.ndarray] = field(default=None, repr=False)
    faces_landmarks: List[np.ndarray] = field(default_factory=list, repr=False)
    """Every face's landmarks in the frame (N x 2 pixels), the followed one's included."""

    @property
    def relative(self) -> Optional[Tuple[float, float, float]]:
        """Return (yaw, pitch, roll) relative to the neutral pose, or None before it is known."""
        if not self.baseline_ready:
            return None
        return self.yaw, self.pitch, self.roll


class FaceMeshHeadPose:
    """
    Frame in, the answering person's head pose out: Face Mesh, face choice, PnP, baseline.

    Parameters
    ----------
    max_faces : int
        Faces Face Mesh looks for; the tracker picks one of them.
    refine_landmarks : bool
        Face Mesh's iris refinement (slower; not needed for the pose).
    min_detection_confidence, min_tracking_confidence : float
        Face Mesh thresholds.
    static_image_mode : bool
        Detect on every frame instead of tracking (for unrelated still images).
    focal : float, optional
        Focal length in pixels; default the image width.
    baseline_warmup : int
        Frames that define a new person's neutral pose.

    """

    def __init__(self, max_faces: int = 3, refine_landmarks: bool = False,
                 min_detection_confidence: float = 0.5, min_tracking_confidence: float = 0.5,
                 static_image_mode: bool = False, focal: Optional[float] = None,
                 baseline_warmup: int = 10, tracker: Optional[FaceTracker] = None):
        self.max_faces = int(max_faces)
        self.refine_landmarks = bool(refine_landmarks)
        self.min_detection_confidence = float(min_detection_confidence)
        self.min_tracking_confidence = float(min_tracking_confidence)
        self.static_image_mode = bool(static_image_mode)
        self.tracker = tracker or FaceTracker()
        self.solver = PoseSolver(focal)
        self.baseline = NeutralBaseline(warmup=baseline_warmup)
        self._mesh = None

    def _ensure(self):
        if self._mesh is None:
            import mediapipe as mp  # lazy: the vision layer imports without it
            self._mesh = mp.solutions.face_mesh.FaceMesh(
                static_image_mode=self.static_image_mode, max_num_faces=self.max_faces,
                refine_landmarks=self.refine_landmarks,
                min_detection_confidence=self.min_detection_confidence,
                min_tracking_confidence=self.min_tracking_confidence)
        return self._mesh

    def load(self) -> None:
        """Load Face Mesh now rather than on the first frame (a node's activation)."""
        self._ensure()

    def close(self) -> None:
        """Release MediaPipe's graph."""
        if self._mesh is not None:
            self._mesh.close()
            self._mesh = None

    def landmarks(self, bgr: np.ndarray, depth: bool = False) -> List[np.ndarray]:
        """
        Return every face's landmarks as N x 2 pixel arrays (Face Mesh on a BGR image).

        With ``depth`` the arrays are N x 3: Face Mesh's relative depth, scaled like x.
        """
        if bgr.ndim == 2:
            rgb = cv2.cvtColor(bgr, cv2.COLOR_GRAY2RGB)
        else:
            rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        result = self._ensure().process(rgb)
        faces = []
        h, w = bgr.shape[:2]
        for face in result.multi_face_landmarks or []:
            if depth:
                pts = np.array([(p.x * w, p.y * h, p.z * w) for p in face.landmark])
            else:
                pts = np.array([(p.x * w, p.y * h) for p in face.landmark], np.float64)
            faces.append(pts)
        return faces

    def process(self, bgr: np.ndarray, stamp: float) -> HeadPose:
        """Return the pose of the person answering in a frame taken at ``stamp`` seconds."""
        faces = self.landmarks(bgr)
        return self.from_landmarks(faces, (bgr.shape[1], bgr.shape[0]), stamp)

    def from_landmarks(self, faces: List[np.ndarray], image_size: Tuple[int, int],
                       stamp: float) -> HeadPose:
        """Return the pose from already-found landmarks (``image_size`` = width, height)."""
        boxes = [box_of(f) for f in faces]
        chosen = self.tracker.update(boxes, image_size, stamp)
        if chosen is None:
            if not self.tracker.tracking:
                self.solver.reset()
                self.baseline.reset()
            return HeadPose(False, faces=len(faces), faces_landmarks=faces)
        if chosen.new_person:
            self.solver.reset()
            self.baseline.reset()
        pts = faces[chosen.index]
        angles = self.solver.solve(pts[list(LANDMARKS)], image_size)
        if angles is None:
            return HeadPose(False, faces=len(faces), track_id=chosen.track_id,
                            new_person=chosen.new_person, box=chosen.box,
                            faces_landmarks=faces)
        rel = self.baseline.update(stamp, angles)
        pose = HeadPose(True, faces=len(faces), absolute=angles, track_id=chosen.track_id,
                        new_person=chosen.new_person, baseline_ready=rel is not None,
                        box=chosen.box, landmarks=pts, faces_landmarks=faces)
        if rel is not None:
            pose.yaw, pose.pitch, pose.roll = rel
        return pose
