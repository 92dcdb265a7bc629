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

"""Managed camera and feedback nodes driven over rclpy's lifecycle services, as ros2 lifecycle."""

import copy

from banditlearn_ros.nodes.bridge import array_to_image
from banditlearn_ros.nodes.camera_node import CameraNode
from banditlearn_ros.nodes.feedback_node import FeedbackNode
from banditlearn_ros.nodes.learner_node import LearnerNode
from banditlearn_ros.nodes.managed import bring_up
from banditlearn_ros.vision.hand_renderer import HandRenderer
from diagnostic_msgs.msg import DiagnosticArray
from lifecycle_msgs.msg import Transition
from lifecycle_msgs.srv import ChangeState, GetState
import numpy as np
import pytest
from rclpy.parameter import Parameter
from rclpy.qos import qos_profile_sensor_data
from ros_harness import diagnostic_values
from sensor_msgs.msg import Image, Joy
from std_msgs.msg import Bool, Float32MultiArray, String

pytestmark = pytest.mark.ros
DIAG = 'banditlearn_ros: camera_node'
LABELS = ['fist', 'one', 'two', 'three', 'four', 'five']


@pytest.fixture(scope='module')
def frames():
    hand = HandRenderer(seed=12, noise=0.0, blur=0.0).render('three').image
    return array_to_image(hand), array_to_image(np.full_like(hand, 90))


def overrides(**params):
    return [Parameter(k, value=v) for k, v in params.items()]


def camera(ros, **params):
    return ros.add(CameraNode(context=ros.context, parameter_overrides=overrides(
        use_mediapipe=False, extractor='contour', adapt_skin=False, stable_frames=3,
        absent_frames=2, diagnostics_period=0.2, **params)))


class Lifecycle:
    """``ros2 lifecycle get/set`` for one node, over its services."""

    def __init__(self, ros, name):
        self.ros = ros
        self._change = ros.probe.create_client(ChangeState, f'/{name}/change_state')
        self._get = ros.probe.create_client(GetState, f'/{name}/get_state')

    def get(self) -> str:
        return self.ros.call(self._get, GetState.Request()).current_state.label

    def change(self, transition: int) -> bool:
        request = ChangeState.Request()
        request.transition.id = transition
        return self.ros.call(self._change, request, timeout=20.0).success


def flat(state, prefix=''):
    """Return a learner's state as ``{dotted key: array}``."""
    out = {}
    for key, value in state.items():
        if isinstance(value, dict):
            out.update(flat(value, f'{prefix}{key}.'))
        else:
            out[prefix + key] = np.asarray(value)
    return out


def gesture(ros, pub, node, frames, features):
    """Show no hand, then a held hand; return the feature vector it gave."""
    hand, blank = frames
    count = len(features)
    for msg in [blank] * 3 + [hand] * 6:
        before = node.counters.get('frames_processed')
        pub.publish(msg)
        assert ros.spin_until(lambda: node.counters.get('frames_processed') > before)
    assert ros.spin_until(lambda: len(features) > count)
    return np.array(features[-1].data)


def test_an_inactive_camera_takes_no_images_and_wakes_with_the_same_features(ros, frames):
    node = camera(ros)
    life = Lifecycle(ros, 'camera_node')
    features = ros.listen(Float32MultiArray, 'gesture_features')
    diagnostics = ros.listen(DiagnosticArray, '/diagnostics')
    pub = ros.probe.create_publisher(Image, 'image_raw', qos_profile_sensor_data)
    assert life.get() == 'active'  # autostart: configured and activated at start
    ros.connect(pub)
    first = gesture(ros, pub, node, frames, features)

    assert life.change(Transition.TRANSITION_DEACTIVATE)
    assert life.get() == 'inactive'
    assert '/image_raw' not in {s.topic_name for s in node.subscriptions}
    assert ros.spin_until(lambda: pub.get_subscription_count() == 0)
    assert node._worker is None and node.extractor is not None  # configuration kept
    received, published = node.counters.get('frames_received'), len(features)
    for msg in frames * 5:
        pub.publish(msg)
        ros.spin_for(0.03)
    assert node.counters.get('frames_received') == received and len(features) == published
    diagnostics.clear()
    assert ros.spin_until(lambda: diagnostic_values(diagnostics, DIAG) is not None)
    assert diagnostic_values(diagnostics, DIAG)['lifecycle_state'] == 'inactive'

    assert life.change(Transition.TRANSITION_ACTIVATE)
    ros.connect(pub)
    again = gesture(ros, pub, node, frames, features)
    np.testing.assert_allclose(again, first, rtol=0, atol=1e-6)  # float32 on the wire

    # cleanup forgets the extractor; configure makes it again of the parameters
    assert life.change(Transition.TRANSITION_DEACTIVATE)
    assert life.change(Transition.TRANSITION_CLEANUP)
    assert life.get() == 'unconfigured' and node.extractor is None
    assert not life.change(Transition.TRANSITION_ACTIVATE)  # not a transition of unconfigured
    assert life.change(Transition.TRANSITION_CONFIGURE) and life.change(
        Transition.TRANSITION_ACTIVATE)
    ros.connect(pub)
    np.testing.assert_allclose(gesture(ros, pub, node, frames, features), first, atol=1e-6)


def test_without_autostart_a_camera_waits_unconfigured(ros, frames):
    node = camera(ros, autostart=False)
    life = Lifecycle(ros, 'camera_node')
    assert life.get() == 'unconfigured' and node.extractor is None
    assert '/image_raw' not in {s.topic_name for s in node.subscriptions}
    bring_up([node], goal='inactive')
    assert life.get() == 'inactive' and node.extractor is not None
    bring_up([node])
    assert life.get() == 'active'
    assert '/image_raw' in {s.topic_name for s in node.subscriptions}


def test_a_bad_source_fails_activation_and_the_node_stays_inactive(ros):
    node = camera(ros, autostart=False, source='/nonexistent/hand.avi')
    life = Lifecycle(ros, 'camera_node')
    assert life.change(Transition.TRANSITION_CONFIGURE)
    assert not life.change(Transition.TRANSITION_ACTIVATE)
    assert life.get() == 'inactive' and node._worker is None
    assert node.lifecycle_values() == {'lifecycle_state': 'inactive', 'lifecycle_failures': 1}
    with pytest.raises(OSError, match='video source'):
        bring_up([node])  # the start path raises what the hook raised


def test_a_destroyed_managed_node_takes_its_lifecycle_services_out_of_the_graph(ros):
    """
    Alone, rclpy's destroy_node keeps the state machine, its five services and the node.

    They stayed in the graph while anything held the Python node (here the test; in a test
    run, a reference cycle until the collector ran): a later node of the same name then shared
    ``/camera_node/change_state`` with a server nobody spins.
    """
    node = camera(ros)
    assert ros.spin_until(lambda: '/camera_node/change_state' in services(ros))
    ros.remove(node)  # the test keeps ``node``
    assert ros.spin_until(lambda: not {'/camera_node/change_state', '/camera_node/get_state'}
                          & services(ros))
    assert ros.spin_until(lambda: 'camera_node' not in ros.probe.get_node_names())
    assert node.lifecycle_state == 'finalized'


def services(ros) -> set:
    return {name for name, _ in ros.probe.get_service_names_and_types()}


def test_the_learners_model_and_labels_survive_a_pause_of_camera_and_feedback(ros, frames):
    cam = camera(ros)
    ros.add(FeedbackNode(context=ros.context, parameter_overrides=overrides(
        use_camera=False, listen_on_prediction=False)))
    learner = ros.add(LearnerNode(context=ros.context, parameter_overrides=overrides(
        labels=LABELS, model_path='', centring='none', max_questions=1)))
    lives = [Lifecycle(ros, 'camera_node'), Lifecycle(ros, 'feedback_node')]
    features = ros.listen(Float32MultiArray, 'gesture_features')
    predictions = ros.listen(String, 'gesture_prediction')
    plain, keyed = ros.listen(Bool, 'gesture_feedback'), ros.listen(String, 'gesture_answer')

    class Answers:  # a yes/no in either form: keyed once the feedback node heard a question
        def __len__(self):
            return len(plain) + len(keyed)

    answers = Answers()
    image = ros.probe.create_publisher(Image, 'image_raw', qos_profile_sensor_data)
    joy = ros.probe.create_publisher(Joy, 'joy', 10)

    def round_trip():
        asked, answered = len(predictions), len(answers)
        ros.connect(image, subscribers=1)
        ros.connect(joy)
        gesture(ros, image, cam, frames, features)
        assert ros.spin_until(lambda: len(predictions) > asked)
        joy.publish(Joy(buttons=[1, 0]))  # button 0: right
        joy.publish(Joy(buttons=[0, 0]))
        assert ros.spin_until(lambda: len(answers) > answered)
        assert ros.spin_until(lambda: learner.live.interaction.stats()['updates'] >= 1)

    round_trip()
    model = flat(copy.deepcopy(learner.live.interaction.learner.state_dict()))
    for life in lives:
        assert life.change(Transition.TRANSITION_DEACTIVATE) and life.get() == 'inactive'
    assert ros.spin_until(lambda: joy.get_subscription_count() == 0)
    joy.publish(Joy(buttons=[1, 0]))
    ros.spin_for(0.3)
    assert len(answers) == 1  # an inactive feedback node answers nothing
    for life in lives:
        assert life.change(Transition.TRANSITION_ACTIVATE) and life.get() == 'active'
    after = flat(learner.live.interaction.learner.state_dict())
    assert learner.live.labels == LABELS and set(after) == set(model) and len(model) > 2
    for key, value in model.items():
        np.testing.assert_array_equal(after[key], value, err_msg=key)
    round_trip()  # and the teaching goes on
    assert len(answers) == 2


def test_an_inactive_feedback_node_holds_no_subscription_nor_face_mesh(ros):
    node = ros.add(FeedbackNode(context=ros.context, parameter_overrides=overrides(
        use_camera=True, bool_topics=['big_button'], diagnostics_period=0.2)))
    life = Lifecycle(ros, 'feedback_node')
    mine = {'/image_raw', '/gesture_prediction', '/joy', '/big_button'}
    assert mine <= {s.topic_name for s in node.subscriptions}
    head = node.head
    assert ros.spin_until(lambda: not head.loading, 60.0)
    loaded = head.state == 'loaded'
    assert loaded or head.state.startswith('failed')  # no mediapipe: said, not hidden
    assert life.change(Transition.TRANSITION_DEACTIVATE) and life.get() == 'inactive'
    assert not mine & {s.topic_name for s in node.subscriptions}
    assert head._estimator is None  # the graph released; MediaPipe stays imported
    diagnostics = ros.listen(DiagnosticArray, '/diagnostics')
    name = 'banditlearn_ros: feedback_node'
    assert ros.spin_until(lambda: diagnostic_values(diagnostics, name) is not None)
    values = diagnostic_values(diagnostics, name)
    assert values['lifecycle_state'] == 'inactive' and values['mediapipe_loaded'] == 'False'
    assert values['mediapipe_imported'] == str(loaded)
    assert life.change(Transition.TRANSITION_ACTIVATE) and life.get() == 'active'
    assert mine <= {s.topic_name for s in node.subscriptions} and node.head is head
    assert ros.spin_until(lambda: not head.loading, 60.0)
    assert (head.state == 'loaded') == loaded  # the graph built again on waking
    assert life.change(Transition.TRANSITION_DEACTIVATE)
    assert life.change(Transition.TRANSITION_CLEANUP) and life.get() == 'unconfigured'
    assert node.head is None and head._estimator is None  # Face Mesh released


def test_the_bring_up_drives_managed_nodes_and_leaves_those_without_autostart(tmp_path):
    from banditlearn_ros.bringup.system import System
    from banditlearn_ros.systems.system_file import config_dirs, load_system
    path = tmp_path / 'managed.system.yaml'
    path.write_text(
        f'params_files: [{config_dirs()[0] / "params.yaml"}]\n'
        'nodes:\n'
        '  - node: camera_node\n'
        '    parameters: {use_mediapipe: false, extractor: contour}\n'
        '  - node: feedback_node\n'
        '    parameters: {use_camera: false, autostart: false}\n')
    running = System(load_system(path))
    try:
        cam, feedback = running.find(CameraNode), running.find(FeedbackNode)
        # both were built with autostart false; the bring-up took the camera to active
        assert cam.get_parameter('autostart').value is False
        assert cam.lifecycle_state == 'active'
        assert '/image_raw' in {s.topic_name for s in cam.subscriptions}
        assert feedback.lifecycle_state == 'unconfigured' and feedback.head is None
    finally:
        assert running.close() == []
    assert cam.lifecycle_state == 'finalized' and cam.extractor is None


@pytest.mark.parametrize('where', ['own', 'lifecycle'])
def test_a_node_interrupted_in_its_constructor_is_destroyed_without_its_hooks(monkeypatch, where):
    """
    Ctrl-C inside __init__: rclpy's shutdown destroys the half-made node, quietly.

    In the node's own __init__ (before ``_taken`` is set), or in rclpy's lifecycle part,
    before its state machine exists (the 3.10 CI's camera_node: AttributeError in close()).
    """
    import rclpy
    import rclpy.lifecycle.node
    from banditlearn_ros.nodes import feedback_node
    from banditlearn_ros.nodes.managed import ManagedNode

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    made, errors, building = [], [], ManagedNode.__init__

    def tracked(self, *args, **kwargs):
        made.append(self)
        building(self, *args, **kwargs)
    if where == 'own':
        monkeypatch.setattr(feedback_node, 'FrameWatch', interrupted)
    else:
        monkeypatch.setattr(rclpy.lifecycle.node, 'check_is_valid_srv_type', interrupted)
    monkeypatch.setattr(ManagedNode, '__init__', tracked)
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        with pytest.raises(KeyboardInterrupt):
            FeedbackNode(context=context)
        assert len(made) == 1 and not hasattr(made[0], '_taken')
        assert hasattr(made[0], '_state_machine') == (where == 'own')
        logger = type('Logger', (), {'error': staticmethod(errors.append)})()
        made[0].get_logger = lambda: logger
        made[0].destroy_node()  # what rclpy's shutdown does with the nodes it tracks
    finally:
        rclpy.shutdown(context=context)
    assert not errors, errors
