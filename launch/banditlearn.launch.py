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

Arguments: ``image_topic`` (the camera's sensor_msgs/Image topic, default image_raw) and
``params_file`` (default: the package's config/params.yaml).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = 'banditlearn_ros'


def generate_launch_description():
    """Return the camera, learner and feedback nodes, all reading one parameter file."""
    share = get_package_share_directory(PACKAGE)
    image_topic = LaunchConfiguration('image_topic')
    params_file = LaunchConfiguration('params_file')
    return LaunchDescription([
        DeclareLaunchArgument(
            'image_topic', default_value='image_raw',
            description='sensor_msgs/Image topic of the camera (camera_node and feedback_node)'),
        DeclareLaunchArgument(
            'params_file', default_value=os.path.join(share, 'config', 'params.yaml'),
            description='parameter file with camera_node, learner_node, feedback_node sections'),
        Node(package=PACKAGE, executable='camera_node', name='camera_node', output='screen',
             parameters=[params_file], remappings=[('image_raw', image_topic)]),
        Node(package=PACKAGE, executable='learner_node', name='learner_node', output='screen',
             parameters=[params_file]),
        Node(package=PACKAGE, executable='feedback_node', name='feedback_node', output='screen',
             parameters=[params_file], remappings=[('image_raw', image_topic)]),
    ])
