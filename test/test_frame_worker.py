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

"""The camera's worker loads MediaPipe (``prepare``) in its own thread, before any frame."""

import threading

from banditlearn_ros.vision.frame_source import FrameWorker
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
