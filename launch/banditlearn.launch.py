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
Launch the full system: camera_node -> learner_node <- feedback_node.

Arguments: ``namespace``, ``use_sim_time``, ``log_level``, ``params_file`` (default: the
package's config/params.yaml), ``camera_params_file`` (overlay loaded after it, default
config/camera.params.yaml: the learner settings measured on a real camera; '' = none),
``model_path`` (default: the file's), ``image_topic`` (the camera's sensor_msgs/Image topic;
camera_node and feedback_node read ``image_raw`` remapped to it), ``autostart`` (default
true: the managed camera_node and feedback_node are configured and activated; false: they wait
unconfigured for ``ros2 lifecycle set``) and ``activate`` (false: with autostart they are
configured only and wait inactive), ``page`` (an address: the managed page_node serves the
teaching page there; '' = none).  Every other topic is relative: ``namespace`` or a
``PushROSNamespace`` / ``SetRemap`` around this file moves it.
"""

from banditlearn_ros.support import dds_profile
from banditlearn_ros.support.launch_arguments import (
    autostart_argument, common_arguments, managed, share_path, Values)
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch_ros.actions import Node


def generate_launch_description():
    """Return the arguments, then the camera, learner and feedback nodes."""
    return LaunchDescription(dds_profile.launch_actions() + common_arguments(
        params='parameter file (sections /**/camera_node, /**/learner_node, '
               '/**/feedback_node apply in any namespace)',
        model="learner model file to load and save; '' = the params_file's") + [
        DeclareLaunchArgument(
            'camera_params_file', default_value=share_path('config', 'camera.params.yaml'),
            description='overlay loaded after params_file: the learner settings measured on '
                        "a real camera (reveal_step none, C 0.5); '' = params_file alone"),
        DeclareLaunchArgument(
            'image_topic', default_value='image_raw',
            description='sensor_msgs/Image topic of the camera (camera_node and feedback_node); '
                        'relative names are in the namespace'),
    ] + autostart_argument() + [
        DeclareLaunchArgument(
            'page', default_value='',
            description='serve the teaching page (page_node) on this address: localhost = this '
                        'machine only, 0.0.0.0 = every network (the logged link carries a '
                        "random token); '' = no page"),
        OpaqueFunction(function=nodes),
    ])


def nodes(context):
    """Return the three nodes with the arguments' values; camera and feedback are managed."""
    arg = Values(context)
    files = [f for f in (arg('params_file'), arg('camera_params_file')) if f]
    image = [('image_raw', arg('image_topic'))]
    options = arg.node_options(arg('namespace'))
    start = {'autostart': arg.flag('autostart'), 'activate': arg.flag('activate')}
    page = '127.0.0.1' if arg('page') == 'localhost' else arg('page')
    return managed(**start, executable='camera_node', name='camera_node',
                   parameters=files + [arg.sim_time()], remappings=image, **options) + [
        Node(executable='learner_node', name='learner_node', parameters=files + [arg.learner()],
             **options),
    ] + managed(**start, executable='feedback_node', name='feedback_node',
                parameters=files + [arg.sim_time()], remappings=image, **options) + (
        managed(**start, executable='page_node', name='page_node', remappings=image,
                parameters=[{**arg.sim_time(), 'host': page}], **options) if page else [])
