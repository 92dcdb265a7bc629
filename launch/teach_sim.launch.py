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
memory only), ``dataset``, ``tuned_params`` (true: the learner settings tuned for a built-in
data set, config/datasets/, are loaded last) and the teacher's ``noise``.  The learner and
the teacher are given the label names of the data set played, so ``dataset:=iris`` learns
iris's three names.
Topics are relative: ``PushROSNamespace`` / ``SetRemap`` around this file move them.
"""

from pathlib import Path

from banditlearn_ros.support import dds_profile
from banditlearn_ros.support.launch_arguments import common_arguments, share_path, Values
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch_ros.actions import Node


def generate_launch_description():
    """Return the arguments, then the dataset player, the learner and the simulated teacher."""
    return LaunchDescription(dds_profile.launch_actions() + common_arguments(
        params='parameter file (sections /**/learner_node, /**/teacher_node, '
               '/**/dataset_node apply in any namespace)') + [
        DeclareLaunchArgument(
            'sim_params_file', default_value=share_path('config', 'teach_sim.params.yaml'),
            description='overlay loaded after params_file (the demo keeps its model in memory)'),
        DeclareLaunchArgument(
            'dataset', default_value='digits',
            description='digits, iris, wine or a .csv/.npz path; the learner and the teacher '
                        'get its label names'),
        DeclareLaunchArgument(
            'tuned_params', default_value='true',
            description='load the learner settings tuned for a built-in data set '
                        '(config/datasets/<dataset>.params.yaml) after the parameter files'),
        DeclareLaunchArgument(
            'noise', default_value='0.0',
            description='teacher flip noise: rho0 = rho1 (probability of a flipped yes/no)'),
        OpaqueFunction(function=nodes),
    ])


def nodes(context):
    """Return the three nodes, with the label names read from the data set to be played."""
    from banditlearn_ros.systems.system_file import dataset_params_file
    from banditlearn_ros.learning.offline.datasets import load_dataset

    arg = Values(context)
    dataset = arg('dataset')
    _, _, names = load_dataset(dataset)  # a DatasetError says what is wrong with it
    labels = [str(name) for name in names]
    noise = float(arg('noise'))
    files = [arg('params_file'), arg('sim_params_file')]
    tuned = dataset_params_file(dataset, [Path(share_path('config'))])
    if tuned is not None and arg('tuned_params').lower() == 'true':
        files.append(str(tuned))
    options = arg.node_options(arg('namespace'))
    return [
        Node(executable='learner_node', name='learner_node',
             parameters=files + [arg.learner(labels=labels)], **options),
        Node(executable='teacher_node', name='teacher_node',
             parameters=files + [{**arg.sim_time(), 'labels': list(labels), 'rho0': noise,
                                  'rho1': noise}], **options),
        Node(executable='dataset_node', name='dataset_node',
             parameters=files + [{**arg.sim_time(), 'dataset': dataset}], **options),
    ]
