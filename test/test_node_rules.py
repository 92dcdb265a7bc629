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

"""The feedback and camera nodes' rules without DDS: answers, listening, settings."""

import ast
import io
import math
from pathlib import Path

from banditlearn_ros.vision import camera_parameters
from banditlearn_ros.vision import feedback_parameters as rules
import pytest


def test_a_button_answers_when_pressed_not_while_held():
    buttons = rules.ButtonPresses(right=0, wrong=2)
    assert buttons.presses([1, 0, 0]) == [(0, True)]
    assert buttons.presses([1, 0, 0]) == []  # held
    assert buttons.presses([0, 0, 1]) == [(2, False)]
    assert buttons.presses([1, 0]) == [(0, True)]  # a short message: button 2 is up
    assert buttons.presses([0, 0, 1]) == [(2, False)]


def test_a_question_opens_a_window_that_expires():
    resets = []
    window = rules.ListeningWindow(True, lambda: resets.append(1))
    assert not window.listening and not window.expired(0.0)
    assert window.question(10.0, 8.0) and window.listening
    assert len(resets) == 2  # afresh for the question, and as listening starts
    assert not window.question(12.0, 8.0)  # already listening: no change to announce
    assert not window.expired(19.5) and window.expired(20.5)
    assert window.switch(False) and not window.listening and window.end == -math.inf
    # On frame time: from the next frame's stamp, however long the camera paused.
    assert window.question(None, 8.0) and not window.at_frame(500.0)
    assert not window.at_frame(508.0) and window.at_frame(508.1) and not window.listening


def test_listening_always_never_expires_and_follows_the_parameter():
    window = rules.ListeningWindow(False, lambda: None)
    assert window.listening and not window.expired(1e12)
    assert window.follow(True) and not window.listening
    assert window.follow(False) and window.listening and window.end == math.inf


@pytest.mark.parametrize('change, reason', [
    ({'joy_right_button': 1}, 'joy_right_button and joy_wrong_button must differ'),
    ({'min_swing': 0.5}, 'min_swing must be in [1.0, 60.0]'),
    ({'refractory': None}, 'refractory must be in [0.0, 30.0]'),
    ({'min_reversals': 3, 'listen_window': 2.0}, ''),
])
def test_feedback_parameter_changes(change, reason):
    assert rules.refusal(change, 0, 1) == reason


def test_detector_values_keep_their_type_and_every_detector_parameter_is_declared():
    assert rules.detector_value('min_reversals', 3.0) == 3
    assert isinstance(rules.detector_value('min_reversals', 3.0), int)
    names = [spec.name for spec in rules.SPECS]
    assert len(names) == len(set(names)) and set(rules.DETECTOR_PARAMETERS) <= set(names)


def test_typed_answers():
    got = []
    hints = io.StringIO()
    keys = rules.KeyboardAnswers(got.append, stream=io.StringIO('y\nmaybe\n\nNO\n'),
                                 hints=hints)
    assert not keys.available()  # not a terminal
    keys.read()
    assert got == [True, False]
    assert hints.getvalue() == 'type y (right) or n (wrong)\n'


def test_camera_settings_rules_and_builders():
    values = {spec.name: spec.default for spec in camera_parameters.SPECS}
    assert camera_parameters.problem(values) == ''
    assert 'mode must be' in camera_parameters.problem(dict(values, mode='burst'))
    assert 'fallback must be' in camera_parameters.problem(dict(values, fallback='x'))
    assert 'must be below max_area' in camera_parameters.problem(
        dict(values, min_area=0.7, max_area=0.6))
    with pytest.raises(ValueError, match='extractor must be one of'):
        camera_parameters.check_extractor('sift')
    episodes = camera_parameters.make_episodes(dict(values, stable_frames=4))
    assert episodes.stable_frames == 4
    segmenter = camera_parameters.make_segmenter(dict(values, work_size=128))
    assert segmenter.work_size == 128


class FakeEstimator:
    """Stands in for Face Mesh: a pose per frame from a list; counts close()."""

    def __init__(self, poses):
        self.poses = list(poses)
        self.closed = 0

    def process(self, frame, stamp):
        return self.poses.pop(0)

    def close(self):
        self.closed += 1


class Pose:
    """The fields of head_pose.HeadPose the answers read."""

    def __init__(self, faces=1, new_person=False):
        self.faces, self.new_person, self.found = faces, new_person, faces > 0


def test_head_answers_skip_idle_frames_and_reset_for_a_new_person():
    from banditlearn_ros.vision.head_answers import HeadAnswers
    from banditlearn_ros.vision.head_gesture import HeadGestureDetector

    class Detector(HeadGestureDetector):
        resets = 0

        def reset(self):
            type(self).resets += 1
            super().reset()

    estimator = FakeEstimator([Pose(faces=2), Pose(new_person=True)])
    head = HeadAnswers(Detector(), {}, idle_every=3, estimator=estimator)
    # Idle, one frame per 0.1 s of frame time: every third of a 30 fps camera.
    assert [head.due(False, 10.0 + k / 30) for k in range(6)] == [True, False, False] * 2
    assert all(head.due(True, 11.0 + k / 30) for k in range(4))
    before = Detector.resets
    assert head.pose(None, 0.0).faces == 2 and head.faces == 2 and head.pose_ms >= 0.0
    assert Detector.resets == before
    head.pose(None, 0.1)
    assert Detector.resets == before + 1 and head.faces == 1
    head.close()
    head.close()
    assert estimator.closed == 1


NODES = Path(__file__).resolve().parents[1] / 'banditlearn_ros' / 'nodes'
# Only nodes/parameters.py declares one parameter or installs rclpy's change callbacks.
ONE_WAY = {'declare', 'declare_parameter', 'add_on_set_parameters_callback',
           'add_post_set_parameters_callback', 'add_pre_set_parameters_callback'}


def _calls(source: str):
    """Return the names of the functions and methods a module's code calls."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            yield func.attr if isinstance(func, ast.Attribute) else getattr(func, 'id', '')


def test_every_node_takes_its_parameters_one_way():
    # A table (declare_specs) declared, changes through watch_changes: no node does it alone.
    found = {path.name: sorted(set(_calls(path.read_text())) & ONE_WAY)
             for path in sorted(NODES.glob('*.py')) if path.name != 'parameters.py'}
    assert {name: calls for name, calls in found.items() if calls} == {}
    declaring = [path.name for path in NODES.glob('*_node.py')
                 if 'declare_specs' in set(_calls(path.read_text()))]
    assert len(declaring) >= 9 and 'learner_node.py' in declaring
    probe = 'self.add_on_set_parameters_callback(f)\ncommon.declare(self, "x", 1, "")\n'
    assert set(_calls(probe)) & ONE_WAY == {'add_on_set_parameters_callback', 'declare'}
