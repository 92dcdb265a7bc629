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

The same system as ``banditlearn_bringup --system teach_sim``.  Arguments: ``namespace``,
``use_sim_time``, ``log_level``, ``params_file`` (default config/params.yaml),
``sim_params_file`` (overlay, default config/teach_sim.params.yaml), ``model_path`` (default:
memory only), ``dataset`` and the teacher's ``noise``.  The learner and the teacher are given
the label names of the data set played, so ``dataset:=iris`` learns iris's three names.
Topics are relative: ``PushROSNamespace`` / ``SetRemap`` around this file move them.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = 'banditlearn_ros'
TRUE = ('true', '1', 'yes', 'on')


def generate_launch_description():
    """Return the arguments, then the dataset player, the learner and the simulated teacher."""
    config = os.path.join(get_package_share_directory(PACKAGE), 'config')
    return LaunchDescription([
        DeclareLaunchArgument(
            'namespace', default_value='',
            description='namespace of the three nodes and their topics (e.g. robot1)'),
        DeclareLaunchArgument(
            'use_sim_time', default_value='false', choices=['true', 'false'],
            description='use the /clock topic (a bag played with --clock)'),
        DeclareLaunchArgument(
            'log_level', default_value='info',
            choices=['debug', 'info', 'warn', 'error', 'fatal'],
            description='log level of the nodes'),
        DeclareLaunchArgument(
            'params_file', default_value=os.path.join(config, 'params.yaml'),
            description='parameter file (sections /**/learner_node, /**/teacher_node, '
                        '/**/dataset_node apply in any namespace)'),
        DeclareLaunchArgument(
            'sim_params_file', default_value=os.path.join(config, 'teach_sim.params.yaml'),
            description='overlay loaded after params_file (the demo keeps its model in memory)'),
        DeclareLaunchArgument(
            'model_path', default_value='',
            description="learner model file to load and save; '' = the files' (memory only)"),
        DeclareLaunchArgument(
            'dataset', default_value='digits',
            description='digits, iris, wine or a .csv/.npz path; the learner and the teacher '
                        'get its label names'),
        DeclareLaunchArgument(
            'noise', default_value='0.0',
            description='teacher flip noise: rho0 = rho1 (probability of a flipped yes/no)'),
        OpaqueFunction(function=nodes),
    ])


def nodes(context):
    """Return the three nodes, with the label names read from the data set to be played."""
    from banditlearn_ros.learning.datasets import load_dataset

    def arg(name):
        return LaunchConfiguration(name).perform(context)
    dataset = arg('dataset')
    _, _, names = load_dataset(dataset)  # a DatasetError says what is wrong with it
    labels = [str(name) for name in names]
    noise = float(arg('noise'))
    files = [arg('params_file'), arg('sim_params_file')]
    common = {'use_sim_time': arg('use_sim_time').lower() in TRUE}
    learner = {**common, 'labels': labels}
    if arg('model_path'):
        learner['model_path'] = arg('model_path')
    options = {'package': PACKAGE, 'namespace': arg('namespace') or None, 'output': 'screen',
               'ros_arguments': ['--log-level', arg('log_level')]}
    return [
        Node(executable='learner_node', name='learner_node',
             parameters=files + [learner], **options),
        Node(executable='teacher_node', name='teacher_node',
             parameters=files + [{**common, 'labels': list(labels), 'rho0': noise,
                                  'rho1': noise}], **options),
        Node(executable='dataset_node', name='dataset_node',
             parameters=files + [{**common, 'dataset': dataset}], **options),
    ]
