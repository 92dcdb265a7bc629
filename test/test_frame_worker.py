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

"""MediaPipe loads in a thread of its own: the camera's worker (``prepare``), Face Mesh (head)."""

import threading

from banditlearn_ros.vision.frame_source import FrameWorker
from banditlearn_ros.vision.head_answers import HeadAnswers
from banditlearn_ros.vision.head_gesture import HeadGestureDetector
import numpy as np

WAIT = 10.0


def test_prepare_runs_first_in_the_worker_and_the_newest_frame_follows():
    release, order, handled = threading.Event(), [], threading.Event()

    def prepare():
        order.append(('prepare', threading.current_thread().name))
        release.wait(WAIT)

    def handle(frame, stamp):
        order.append(('frame', stamp))
        handled.set()
    worker = FrameWorker(handle, 'worker_under_test', prepare=prepare)
    try:
        for stamp in (1.0, 2.0, 3.0):  # while preparing: only the newest is kept
            worker.slot.put(np.zeros((2, 2, 3), np.uint8), stamp)
        assert not worker.prepared.is_set() and not handled.is_set()
        release.set()
        assert handled.wait(WAIT) and worker.prepared.is_set()
        assert worker.prepare_error is None
        assert order == [('prepare', 'worker_under_test'), ('frame', 3.0)]
    finally:
        worker.stop()
    assert not worker.is_alive()


def test_a_failing_prepare_is_kept_and_frames_still_run():
    handled = threading.Event()

    def prepare():
        raise ImportError('no mediapipe here')
    worker = FrameWorker(lambda frame, stamp: handled.set(), prepare=prepare)
    try:
        assert worker.prepared.wait(WAIT)
        assert isinstance(worker.prepare_error, ImportError)
        worker.slot.put(np.zeros((2, 2, 3), np.uint8), 1.0)
        assert handled.wait(WAIT)
    finally:
        worker.stop()


def test_without_prepare_the_worker_is_prepared_at_once():
    worker = FrameWorker(lambda frame, stamp: None)
    try:
        assert worker.prepared.wait(WAIT) and worker.prepare_error is None
    finally:
        worker.stop()


class SlowEstimator:
    """A pose estimator whose ``load`` waits for ``release`` (or raises ``error``)."""

    def __init__(self, error=None):
        self.release, self.error, self.loads, self.closed = threading.Event(), error, 0, False

    def load(self):
        self.loads += 1
        self.release.wait(WAIT)
        if self.error is not None:
            raise self.error

    def close(self):
        self.closed = True


def test_face_mesh_loads_in_a_thread_and_close_waits_for_it():
    estimator = SlowEstimator()
    head = HeadAnswers(HeadGestureDetector(), {}, 1, estimator=estimator)
    head.start_loading()
    assert head.loading and estimator.loads == 1
    closer = threading.Thread(target=head.close)
    closer.start()
    closer.join(0.2)
    assert closer.is_alive() and not estimator.closed  # waits for the load in progress
    estimator.release.set()
    closer.join(WAIT)
    assert not closer.is_alive() and not head.loading
    assert estimator.closed and head.load_error is None


def test_a_face_mesh_that_cannot_load_is_said():
    estimator = SlowEstimator(ImportError('no mediapipe here'))
    estimator.release.set()
    head = HeadAnswers(HeadGestureDetector(), {}, 1, estimator=estimator)
    head.start_loading()
    head._loader.join(WAIT)
    assert not head.loading and isinstance(head.load_error, ImportError)
