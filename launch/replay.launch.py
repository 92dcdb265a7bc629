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
Replay a recorded teaching session into the learner: a bag player -> learner_node.

The same system as ``banditlearn_bringup --system replay``.  Arguments: ``bag`` (default:
the installed sample session), ``player`` ('ros2bag': ``ros2 bag play``; 'package': the
package's bag_player node, lock-step, no rosbag2 needed; 'auto': ``ros2 bag play`` where
rosbag2 is installed, else the package's), ``rate``, ``delay`` (seconds before playing, so
the learner is up), ``teacher`` (false: the bag's recorded yes/no are played too; true:
only labels and features are played and teacher_node answers, with ``noise``), ``labels``
('' = the recorded ones), ``namespace``, ``use_sim_time`` (ros2 bag play publishes the
bag's clock too), ``log_level``, ``params_file``, ``replay_params_file`` and
``model_path``.  The learner gets what the bag recorded of it (``learner_config``: its
parameters and start model; older bags: the label names stored) over the files.  The
learner's own predictions are not played from the bag: it makes them again.
"""

import importlib.util
import json
import shutil

from banditlearn_ros.support import dds_profile
from banditlearn_ros.support.launch_arguments import common_arguments, share_path, Values
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess, LogInfo, OpaqueFunction
from launch_ros.actions import Node

# Played topics, relative (the namespace is put in front by remapping).
INPUTS = ('gesture_label', 'gesture_features')
ANSWERS = 'gesture_feedback'


def generate_launch_description():
    """Return the arguments, then the bag player, the learner (and the teacher)."""
    return LaunchDescription(dds_profile.launch_actions() + [
        DeclareLaunchArgument(
            'bag', default_value=share_path('bags', 'sample_session'),
            description='bag folder to replay (default: the sample session shipped with the '
                        'package)'),
        DeclareLaunchArgument(
            'player', default_value='auto', choices=['auto', 'ros2bag', 'package'],
            description="'ros2bag': ros2 bag play; 'package': the package's bag_player node "
                        "(lock-step, needs no rosbag2); 'auto': ros2 bag play where rosbag2 "
                        "is installed, else the package's"),
        DeclareLaunchArgument(
            'rate', default_value='1.0', description='playback speed factor (> 0)'),
        DeclareLaunchArgument(
            'delay', default_value='2.0',
            description='seconds before the first message, so the learner is up'),
        DeclareLaunchArgument(
            'teacher', default_value='false', choices=['true', 'false'],
            description="false: play the bag's recorded yes/no; true: teacher_node answers "
                        'from the played labels'),
        DeclareLaunchArgument(
            'noise', default_value='0.0',
            description='teacher flip noise: rho0 = rho1 (with teacher:=true)'),
        DeclareLaunchArgument(
            'labels', default_value='',
            description="comma-separated label names of the learner; '' = those stored in "
                        "the bag, else the parameter files'"),
    ] + common_arguments(
        namespace='namespace of the nodes and the played topics (e.g. robot1)',
        sim_time="use the bag's time: ros2 bag play publishes /clock",
        params='parameter file (sections /**/learner_node, /**/teacher_node)') + [
        DeclareLaunchArgument(
            'replay_params_file', default_value=share_path('config', 'replay.params.yaml'),
            description="overlay loaded after params_file (the sample session's labels, a "
                        'model in memory)'),
        OpaqueFunction(function=actions),
    ])


def bag_labels(bag: str):
    """Return the label names a bag stores (custom_data), or None when it cannot be read."""
    try:
        from banditlearn_ros import bags as bagio
        with bagio.open_bag(bag) as opened:
            names = json.loads(opened.custom_data.get(bagio.CUSTOM_LABELS, 'null'))
    except Exception:  # rosbags missing on this robot, or an unreadable bag: use the files
        return None
    return [str(n) for n in names] if isinstance(names, list) and names else None


def rosbag2_installed() -> bool:
    """Return True where ``ros2 bag`` works (the ros2 command and rosbag2's verb package)."""
    return shutil.which('ros2') is not None and importlib.util.find_spec('ros2bag') is not None


def recorded_parameters(bag: str):
    """Return the learner parameters the bag recorded (``learner_config``), or None."""
    try:
        from banditlearn_ros.bags.played_learner import recorded_learner
        return recorded_learner(bag)[0]
    except Exception:  # rosbags missing on this robot, or an unreadable bag: use the files
        return None


def actions(context):
    """Return the bag player and the nodes, as the arguments ask."""
    arg = Values(context)
    bag = arg('bag')
    teacher = arg.flag('teacher')
    sim_time = arg.flag('use_sim_time')
    namespace = arg('namespace').strip('/')
    rate = float(arg('rate'))
    delay = float(arg('delay'))
    if not rate > 0 or delay < 0:
        raise ValueError(f'rate {rate} must be > 0 and delay {delay} >= 0')
    topics = list(INPUTS) + ([] if teacher else [ANSWERS])
    played = ['/' + t for t in topics]
    command = ['ros2', 'bag', 'play', bag, '--rate', str(rate), '--topics'] + played
    if delay > 0:
        command += ['--delay', str(delay)]
    if namespace:
        command += ['--remap'] + [f'/{t}:=/{namespace}/{t}' for t in topics]
    if sim_time:
        command += ['--clock', '100']
    player = arg('player')
    chosen = []
    if player == 'auto':
        player = 'ros2bag' if rosbag2_installed() else 'package'
        chosen = [LogInfo(msg=f'player:=auto chose {player}: ' + (
            'ros2 bag play (rosbag2 is installed)' if player == 'ros2bag' else
            "the package's bag_player node (no ros2 bag command here)"))]
    if player == 'ros2bag' and not rosbag2_installed():
        raise RuntimeError('player:=ros2bag needs rosbag2 (the ros2 bag command): install '
                           'ros-$ROS_DISTRO-rosbag2, or use player:=package')
    recorded = recorded_parameters(bag) or {}
    labels = [s.strip() for s in arg('labels').split(',') if s.strip()] or (
        None if recorded else bag_labels(bag))
    files = [arg('params_file'), arg('replay_params_file')]
    learner = arg.learner(labels=labels) if labels else arg.learner()
    options = arg.node_options(namespace)
    out = chosen + [Node(executable='learner_node', name='learner_node',
                         parameters=files + [{**recorded, **learner}], **options)]
    if teacher:
        noise = float(arg('noise'))
        teacher_params = {**arg.sim_time(), 'rho0': noise, 'rho1': noise}
        if labels:
            teacher_params['labels'] = list(labels)
        out.append(Node(executable='teacher_node', name='teacher_node',
                        parameters=files + [teacher_params], **options))
    if player == 'package':
        out.append(Node(executable='bag_player', name='bag_player', parameters=files + [{
            **arg.sim_time(), 'bag': bag, 'answers': 'teacher' if teacher else 'recorded',
            'start_delay': min(delay, 60.0)}], **options))
    else:
        out.append(ExecuteProcess(cmd=command, name='bag_play', output='screen'))
    return out
