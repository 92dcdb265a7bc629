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

"""Face Mesh is released at deactivation only once the frame in flight is done with it."""

import threading
from types import SimpleNamespace

from banditlearn_ros.vision.head_answers import HeadAnswers, Released
from banditlearn_ros.vision.head_gesture import HeadGestureDetector
import pytest

WAIT = 10.0


class GraphEstimator:
    """Like MediaPipe's solutions: ``close`` drops the graph a frame in flight still uses."""

    def __init__(self):
        self.graph = SimpleNamespace(wait_until_idle=lambda: None)
        self.inside, self.go_on = threading.Event(), threading.Event()
        self.closed = 0

    def process(self, frame, stamp):
        self.inside.set()
        self.go_on.wait(WAIT)
        self.graph.wait_until_idle()  # AttributeError on None: the race seen at deactivation
        return SimpleNamespace(faces=1, new_person=False, found=True)

    def close(self):
        self.closed += 1
        self.graph = None


def test_close_waits_for_the_frame_in_flight_and_later_frames_are_refused():
    estimator = GraphEstimator()
    head = HeadAnswers(HeadGestureDetector(), {}, 1, estimator=estimator)
    result = {}

    def look():
        try:
            result['pose'] = head.pose(None, 0.0)
        except Exception as exc:  # noqa: B902 - what the node's callback would have logged
            result['error'] = exc
    frame = threading.Thread(target=look)
    frame.start()
    assert estimator.inside.wait(WAIT)
    closer = threading.Thread(target=head.close)  # the deactivation, on another thread
    closer.start()
    closer.join(0.3)
    assert closer.is_alive() and estimator.closed == 0  # waits for the frame
    estimator.go_on.set()
    frame.join(WAIT)
    closer.join(WAIT)
    assert 'error' not in result and result['pose'].faces == 1
    assert estimator.closed == 1 and head.state == 'not loaded'
    with pytest.raises(Released):  # a frame after the release: no Face Mesh made again
        head.pose(None, 0.1)
    assert head.state == 'not loaded'


def test_activated_again_it_looks_again():
    estimator = GraphEstimator()
    estimator.go_on.set()
    head = HeadAnswers(HeadGestureDetector(), {}, 1, estimator=estimator)
    head.close()
    with pytest.raises(Released):
        head.pose(None, 0.0)
    head._estimator = estimator  # what a new activation loads (here: the same stand-in)
    estimator.graph = SimpleNamespace(wait_until_idle=lambda: None)
    head.start_loading()
    head._loader.join(WAIT)
    assert head.pose(None, 0.1).faces == 1
