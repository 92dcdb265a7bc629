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
Frames for the camera node: a latest-frame slot and a V4L2-device / video-file reader.

The slot holds one frame: a new frame replaces an unprocessed one (counted as dropped), so
a slow consumer always works on the newest image instead of falling behind a queue.
"""

import os
import sys
import threading
import time
from typing import Callable, Optional, Tuple

import cv2
import numpy as np


class LatestFrame:
    """A one-frame mailbox between a producer (camera, subscription) and a worker."""

    def __init__(self):
        self._cond = threading.Condition()
        self._frame: Optional[Tuple[np.ndarray, float]] = None
        self.dropped = 0
        self._closed = False

    def put(self, frame: np.ndarray, stamp: float) -> bool:
        """Store a frame; returns True when it replaced one nobody took (a drop)."""
        with self._cond:
            replaced = self._frame is not None
            if replaced:
                self.dropped += 1
            self._frame = (frame, stamp)
            self._cond.notify()
            return replaced

    def take(self, timeout: float = 0.1) -> Optional[Tuple[np.ndarray, float]]:
        """Return the newest (frame, stamp) and empty the slot; None after ``timeout``."""
        with self._cond:
            if self._frame is None and not self._closed:
                self._cond.wait(timeout)
            item, self._frame = self._frame, None
            return item

    def close(self) -> None:
        """Wake any waiting consumer for shutdown."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()


LOAD_WAIT = 60.0
"""Seconds a node's cleanup waits for a MediaPipe load in progress (10 s seen under load)."""


IMPORT_DELAY = 0.5
"""Seconds a node waits after configure before importing MediaPipe (see ``BackgroundLoad``)."""


class BackgroundLoad:
    """
    Run ``load()`` once in a thread of its own, ``delay`` seconds from now.

    A managed node imports MediaPipe with one when it is configured, so that activating it
    builds the graphs only.  The import loads large native libraries, which holds the
    interpreter for most of a second; started at once it would hold back the node's own
    start (its first /diagnostics came 0.3-0.4 s later, measured), so it waits ``delay``
    first.  ``wait`` (a ``FrameWorker``'s ``prepare``) blocks until the load is over and
    raises what it raised.
    """

    def __init__(self, load: Callable[[], None], name: str = 'load', delay: float = 0.0):
        self.error: Optional[BaseException] = None
        """What ``load`` raised."""
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(load, delay), name=name,
                                        daemon=True)
        self._thread.start()

    def _run(self, load: Callable[[], None], delay: float) -> None:
        if self._cancel.wait(delay):
            return  # cleaned up before it began: nothing to load
        try:
            load()
        except Exception as exc:  # noqa: B902 - said by wait() and on /diagnostics
            self.error = exc

    @property
    def done(self) -> bool:
        """Return whether the load is over (loaded or failed)."""
        return not self._thread.is_alive()

    def join(self, timeout: Optional[float] = None) -> None:
        """Wait for the load to be over (at most ``timeout`` seconds); cancel one not begun."""
        self._cancel.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def wait(self) -> None:
        """Wait for the load; raise what it raised."""
        if self._thread is not threading.current_thread():
            self._thread.join()
        if self.error is not None:
            raise self.error


class FrameWorker:
    """
    A thread that handles the newest frame of a ``LatestFrame``, from ``start`` to ``stop``.

    A managed node starts one when activated and stops it when deactivated, so an inactive
    node holds no thread; ``handle(frame, stamp)`` must catch what a frame can raise.
    ``prepare()``, when given, runs first in the thread (``prepared``, ``prepare_error``).
    """

    def __init__(self, handle: Callable[[np.ndarray, float], None], name: str = 'frames',
                 prepare: Optional[Callable[[], None]] = None):
        self.slot = LatestFrame()
        self._handle = handle
        self._prepare = prepare
        self.prepared = threading.Event()
        """Set once ``prepare`` returned or raised (at once without one)."""
        self.prepare_error: Optional[BaseException] = None
        """What ``prepare`` raised: the frames are then handled without it."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        # ``prepare`` (MediaPipe's graph: about a second) runs here, so the node that started
        # the worker answers meanwhile; frames that arrive keep only the newest.
        if self._prepare is not None:
            try:
                self._prepare()
            except Exception as exc:  # noqa: B902 - said on /diagnostics; frames still run
                self.prepare_error = exc
        self.prepared.set()
        while not self._stop.is_set():
            item = self.slot.take(timeout=0.1)
            if item is not None:
                self._handle(*item)

    def is_alive(self) -> bool:
        """Return whether the thread still runs."""
        return self._thread.is_alive()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop after the frame in hand; wait up to ``timeout`` seconds for the thread."""
        self._stop.set()
        self.slot.close()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=timeout)


def parse_source(source: str):
    """Return what cv2.VideoCapture should open for 'v4l2:/dev/video0', '0' or a file path."""
    spec = source.strip()
    if spec.startswith('v4l2:'):
        spec = spec[5:]
    if spec.startswith('/dev/video') and spec[10:].isdigit():
        spec = spec[10:]
    if spec.isdigit():
        # Checked here: OpenCV would print its own lines about a missing camera first.
        if sys.platform.startswith('linux') and not os.path.exists(f'/dev/video{spec}'):
            raise FileNotFoundError(f'video source {source!r}: no camera at /dev/video{spec}')
        return int(spec)
    if not os.path.exists(spec):
        raise FileNotFoundError(f'video source {source!r}: no such device or file')
    return spec


class VideoSource:
    """
    Read a V4L2 camera or a video file in a thread and hand each frame to ``sink``.

    Parameters
    ----------
    source : str
        'v4l2:/dev/video0', '/dev/video0', a device number, or a video file.
    sink : callable
        Called as ``sink(frame_bgr, stamp)`` for every frame.
    loop : bool
        Start a file again at its end.
    realtime : bool
        Pace a file at its own frame rate (a camera paces itself).
    on_end : callable, optional
        Called once when the source ends or fails, with the reason.
    paused : bool
        Open the source now but read only after ``start()``.

    """

    def __init__(self, source: str, sink: Callable[[np.ndarray, float], None],
                 loop: bool = False, realtime: bool = True,
                 on_end: Optional[Callable[[str], None]] = None, paused: bool = False):
        self.target = parse_source(source)
        self.is_file = isinstance(self.target, str) and not self.target.startswith('/dev/')
        self._cap = cv2.VideoCapture(self.target)
        if not self._cap.isOpened():
            raise OSError(f'cannot open video source {source!r}')
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps and fps > 0 else 30.0
        self._sink, self._loop, self._realtime = sink, bool(loop), bool(realtime)
        self._on_end = on_end
        self._stop = threading.Event()
        self.frames = 0
        self._thread = threading.Thread(target=self._run, name='video_source', daemon=True)
        if not paused:
            self.start()

    def start(self) -> None:
        """Start reading (once; a no-op when already started)."""
        if self._thread.ident is None and not self._stop.is_set():
            self._thread.start()

    def _run(self) -> None:
        period = 1.0 / self.fps
        next_time = time.monotonic()
        reason = 'stopped'
        while not self._stop.is_set():
            ok, frame = self._cap.read()
            if not ok:
                if self.is_file and self._loop and self.frames > 0:
                    self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                    continue
                reason = 'end of file' if self.is_file else 'camera read failed'
                break
            self.frames += 1
            self._sink(frame, time.time())
            if self.is_file and self._realtime:
                next_time += period
                delay = next_time - time.monotonic()
                if delay > 0:
                    self._stop.wait(delay)
                else:
                    next_time = time.monotonic()
        self._cap.release()
        if self._on_end is not None and not self._stop.is_set():
            self._on_end(reason)

    def close(self) -> None:
        """Stop reading and release the device."""
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=2.0)
        elif not self._thread.is_alive() and self._thread.ident is None:
            self._cap.release()  # never started
