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
Camera frames to nods and shakes: the head pose of each frame, then the gesture detector.

``feedback_node`` gives frames and counts what happened; the pose estimator (Face Mesh,
made on the first frame so that MediaPipe loads only when a camera is used), the idle frame
skipping and the detector's resets live here.
"""

import math
import threading
import time
from typing import Any, Callable, Dict, Optional

from .head_gesture import HeadGestureDetector

LOAD_WAIT = 60.0
"""Seconds ``close`` waits for a Face Mesh load in progress (10 s measured under load)."""

NO_FACE_WARNING = 3.0
"""Seconds of frame time without a face, while listening, before /diagnostics warns."""

IDLE_RATE = 30.0
"""Frames per second ``idle_every`` counts in: idle, one frame per ``idle_every / 30`` s."""


class Released(RuntimeError):
    """A frame came after ``close`` (a deactivation): there is no Face Mesh to look with."""


class HeadAnswers:
    """
    Head pose per frame into a ``HeadGestureDetector``, fewer frames while idle.

    Parameters
    ----------
    detector : HeadGestureDetector
        The nod/shake detector; reset when a new person answers.
    pose_args : dict
        Arguments of ``head_pose.FaceMeshHeadPose``.
    idle_every : int
        While not listening, one frame per ``idle_every / 30`` s of frame time is processed
        (every n-th frame of a 30 fps camera; a slower one keeps more of its frames), which
        keeps the face track and neutral pose fresh at a fraction of the cost.
    estimator : optional
        Anything with ``process(frame, stamp)`` and ``close()``; None: Face Mesh, made on the
        first frame.

    Attributes
    ----------
    pose_ms : float
        Smoothed milliseconds of one head-pose estimate.
    faces : int
        Faces in view in the last frame processed.

    """

    def __init__(self, detector: HeadGestureDetector, pose_args: Dict[str, Any],
                 idle_every: int, estimator: Any = None):
        self.detector = detector
        self.pose_args = pose_args
        self.idle_every = idle_every
        self.pose_ms = 0.0
        self.faces = 0
        self._estimator = estimator
        self._last_due = -math.inf
        self._seen: Optional[float] = None  # frame time of the last face (or first frame)
        self._now: Optional[float] = None  # frame time of the last frame processed
        self._loader: Optional[threading.Thread] = None
        self.load_error: Optional[BaseException] = None
        """What loading Face Mesh in the background raised (``start_loading``)."""
        # A frame in flight and ``close`` on another thread: the release waits for the frame
        # (MediaPipe's graph would otherwise go from under it), and a later frame is refused
        # rather than loading Face Mesh again. Re-entrant: one thread may close inside pose.
        self._use = threading.RLock()
        self._closed = False

    def due(self, listening: bool, stamp: float) -> bool:
        """
        Return False for a frame (taken at ``stamp``) skipped while not listening.

        Measured in frame time, so a 10 fps camera is not cut to 3 fps. Every frame counts
        while the detector follows the motion going on after an answer: the rest of a shake
        is followed to its end, and never answers the next question.
        """
        if not (listening or self.detector.following or stamp < self._last_due
                or stamp - self._last_due >= (self.idle_every - 0.5) / IDLE_RATE):
            return False
        self._last_due = stamp
        return True

    def load(self, graph: bool = False) -> None:
        """Make the pose estimator; ``graph``: load Face Mesh now, not on the first frame."""
        if self._estimator is None:
            from .head_pose import FaceMeshHeadPose
            self._estimator = FaceMeshHeadPose(**self.pose_args)
        if graph and hasattr(self._estimator, 'load'):
            self._estimator.load()

    def restart(self) -> None:
        """Forget the motion followed: frames of a new stream (the node activated again)."""
        self.detector.reset()
        self._last_due = -math.inf
        self._seen = self._now = None

    def start_loading(self, after: Optional[Callable[[], None]] = None) -> None:
        """
        Load Face Mesh in a thread: about a second, during which the node keeps answering.

        Until it is loaded ``loading`` is True and frames should be skipped (``pose`` would
        load it again on the caller's thread); what it raised is ``load_error``.  ``after``
        runs first in that thread (the node's MediaPipe import, to wait for).
        """
        self.load_error = None
        self._closed = False
        self._loader = threading.Thread(target=self._load_in_thread, args=(after,),
                                        daemon=True, name='face_mesh_load')
        self._loader.start()

    def _load_in_thread(self, after: Optional[Callable[[], None]]) -> None:
        try:
            if after is not None:
                after()
            self.load(graph=True)
        except Exception as exc:  # noqa: B902 - said on /diagnostics; pose() raises it again
            self.load_error = exc

    @property
    def loading(self) -> bool:
        """Return True while ``start_loading``'s thread runs."""
        return self._loader is not None and self._loader.is_alive()

    @property
    def state(self) -> str:
        """Return 'loading', 'loaded', 'not loaded' or why loading failed (a session's summary)."""
        if self.loading:
            return 'loading'
        if self.load_error is not None:
            return f'failed: {self.load_error}'
        return 'loaded' if self._estimator is not None else 'not loaded'

    def pose(self, frame, stamp: float):
        """Return the head pose of a frame (raises what the estimator raises; ``Released``)."""
        start = time.perf_counter()
        with self._use:
            if self._closed:
                raise Released('Face Mesh was released (the node was deactivated)')
            self.load()
            estimator = self._estimator
            pose = estimator.process(frame, stamp)
        elapsed = 1e3 * (time.perf_counter() - start)
        self.pose_ms = 0.9 * self.pose_ms + 0.1 * elapsed if self.pose_ms else elapsed
        self.faces = pose.faces
        if pose.found or self._seen is None or self._now is None or stamp < self._now:
            self._seen = stamp
        self._now = stamp
        if pose.new_person:
            self.detector.reset()
        return pose

    @property
    def without_face(self) -> float:
        """Return the seconds of frame time since a face was last seen (0: one is in view)."""
        return 0.0 if self._now is None else self._now - self._seen

    def values(self) -> Dict[str, Any]:
        """Return what /diagnostics shows of the head: pose time, faces, Face Mesh's state."""
        return {'pose_ms': self.pose_ms, 'faces_in_view': self.faces,
                'seconds_without_face': self.without_face, 'face_mesh': self.state}

    def face_warning(self, listening: bool) -> str:
        """Return what /diagnostics should warn about a face long gone ('' if nothing)."""
        if not listening or self.without_face < NO_FACE_WARNING:
            return ''
        return (f'no face seen for {self.without_face:.0f} s of camera time: is the person '
                'in view, lit and facing the camera?')

    def question(self) -> None:
        """
        Mark that a question was asked: motion from before it must not answer it.

        Placed after the last frame given (``HeadGestureDetector.question``), so the
        camera's stamps and the caller's clock need not agree.
        """
        self.detector.question()

    def lost(self, stamp: float) -> None:
        """Tell the detector that no relative pose came with this frame."""
        self.detector.lost(stamp)

    def update(self, stamp: float, yaw: float, pitch: float):
        """Give the detector one relative pose; return its decision or None."""
        return self.detector.update(stamp, yaw, pitch)

    def close(self) -> None:
        """Release the pose estimator (MediaPipe), once a load in progress has finished."""
        if self._loader is not None:
            self._loader.join(timeout=LOAD_WAIT)
            self._loader = None
        with self._use:
            self._closed = True
            if self._estimator is not None:
                self._estimator.close()
                self._estimator = None
