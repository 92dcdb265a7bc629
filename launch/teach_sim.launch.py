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
Launch a simulated teaching session: dataset_node -> learner_node <-> teacher_node.

The same system as ``banditlearn_bringup --system teach_sim``.  Arguments: ``params_file``
(default config/params.yaml), ``sim_params_file`` (overlay, default
config/teach_sim.params.yaml: the digits labels), ``dataset`` and the teacher's ``noise``.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue

PACKAGE = 'banditlearn_ros'


def generate_launch_description():
    """Return the dataset player, the learner and the simulated teacher."""
    config = os.path.join(get_package_share_directory(PACKAGE), 'config')
    params_file = LaunchConfiguration('params_file')
    sim_params_file = LaunchConfiguration('sim_params_file')
    noise = ParameterValue(LaunchConfiguration('noise'), value_type=float)
    return LaunchDescription([
        DeclareLaunchArgument(
            'params_file', default_value=os.path.join(config, 'params.yaml'),
            description='parameter file with learner_node, teacher_node, dataset_node sections'),
        DeclareLaunchArgument(
            'sim_params_file', default_value=os.path.join(config, 'teach_sim.params.yaml'),
            description='overlay loaded after params_file (the data set labels)'),
        DeclareLaunchArgument(
            'dataset', default_value='digits',
            description='digits, iris, wine or a .csv/.npz path (match the labels overlay)'),
        DeclareLaunchArgument(
            'noise', default_value='0.0',
            description='teacher flip noise: rho0 = rho1 (probability of a flipped yes/no)'),
        Node(package=PACKAGE, executable='learner_node', name='learner_node', output='screen',
             parameters=[params_file, sim_params_file]),
        Node(package=PACKAGE, executable='teacher_node', name='teacher_node', output='screen',
             parameters=[params_file, sim_params_file, {'rho0': noise, 'rho1': noise}]),
        Node(package=PACKAGE, executable='dataset_node', name='dataset_node', output='screen',
             parameters=[params_file, sim_params_file,
                         {'dataset': LaunchConfiguration('dataset')}]),
    ])
