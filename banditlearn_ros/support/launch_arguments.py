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
What every launch file of the package shares: its common arguments and how they are read.

Each file in ``launch/`` takes ``namespace``, ``use_sim_time``, ``log_level``,
``params_file`` and ``model_path`` (``common_arguments``) and reads them in its
``OpaqueFunction`` through ``Values``.  The launch modules are imported when these are
called, not with this module, so the package imports where the launch tools are absent.
"""

import os
from typing import Any, Dict, List

PACKAGE = 'banditlearn_ros'
TRUE = ('true', '1', 'yes', 'on')
LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'fatal']
MODEL_IN_FILES = "learner model file to load and save; '' = the files' (memory only)"


def share_path(*parts: str) -> str:
    """Return a path in the package's installed share folder."""
    from ament_index_python.packages import get_package_share_directory
    return os.path.join(get_package_share_directory(PACKAGE), *parts)


def common_arguments(*, params: str, model: str = MODEL_IN_FILES,
                     namespace: str = 'namespace of the three nodes and their topics '
                     '(e.g. robot1)',
                     sim_time: str = 'use the /clock topic (a bag played with --clock)'
                     ) -> List[Any]:
    """
    Return the DeclareLaunchArgument of the five arguments every launch file takes.

    Parameters
    ----------
    params, model, namespace, sim_time : str
        What ``params_file``, ``model_path``, ``namespace`` and ``use_sim_time`` mean in
        this launch file (their descriptions).  ``params_file`` defaults to the installed
        ``config/params.yaml``, ``model_path`` to '' (the parameter files' own).

    """
    from launch.actions import DeclareLaunchArgument
    return [
        DeclareLaunchArgument('namespace', default_value='', description=namespace),
        DeclareLaunchArgument('use_sim_time', default_value='false',
                              choices=['true', 'false'], description=sim_time),
        DeclareLaunchArgument('log_level', default_value='info', choices=LOG_LEVELS,
                              description='log level of the nodes'),
        DeclareLaunchArgument('params_file', default_value=share_path('config', 'params.yaml'),
                              description=params),
        DeclareLaunchArgument('model_path', default_value='', description=model),
    ]


class Values:
    """The launch arguments' values in an ``OpaqueFunction`` (``values('name')``)."""

    def __init__(self, context):
        self._context = context

    def __call__(self, name: str) -> str:
        """Return the value of a launch argument, as text."""
        from launch.substitutions import LaunchConfiguration
        return LaunchConfiguration(name).perform(self._context)

    def flag(self, name: str) -> bool:
        """Return a true/false launch argument as a bool."""
        return self(name).lower() in TRUE

    def sim_time(self) -> Dict[str, bool]:
        """Return the ``use_sim_time`` parameter every node gets."""
        return {'use_sim_time': self.flag('use_sim_time')}

    def learner(self, **parameters: Any) -> Dict[str, Any]:
        """Return the learner's own parameters: sim time, ``parameters``, ``model_path`` if set."""
        out = {**self.sim_time(), **parameters}
        if self('model_path'):
            out['model_path'] = self('model_path')
        return out

    def node_options(self, namespace: str) -> Dict[str, Any]:
        """
        Return the Node arguments every node gets: package, namespace, output, log level.

        The namespace is always text: launch_ros's ``LifecycleNode`` takes no None (its node
        name would be '<node_namespace_unspecified>/camera_node' and the launch would stop),
        and '' is the root namespace for ``Node`` and ``LifecycleNode`` alike, under a
        ``PushROSNamespace`` too.
        """
        return {'package': PACKAGE, 'namespace': namespace or '', 'output': 'screen',
                'ros_arguments': ['--log-level', self('log_level')]}


AUTOSTART = ('configure and activate the managed nodes (camera_node, feedback_node) at start; '
             'false = they wait unconfigured: ros2 lifecycle set /camera_node configure')
ACTIVATE = ('with autostart: also activate the managed nodes; false = they start configured '
            'but inactive (no camera frames read): ros2 lifecycle set /camera_node activate')


def autostart_argument() -> List[Any]:
    """Return the ``autostart`` and ``activate`` launch arguments (files with managed nodes)."""
    from launch.actions import DeclareLaunchArgument
    return [DeclareLaunchArgument('autostart', default_value='true', choices=['true', 'false'],
                                  description=AUTOSTART),
            DeclareLaunchArgument('activate', default_value='true', choices=['true', 'false'],
                                  description=ACTIVATE)]


def managed(autostart: bool, activate: bool = True, **node_arguments: Any) -> List[Any]:
    """
    Return a managed node's launch actions, driven as launch_ros drives lifecycle nodes.

    A ``launch_ros.actions.LifecycleNode`` whose own ``autostart`` parameter is false; with
    ``autostart`` the launch file takes it through configure, and (with ``activate``) on
    reaching ``inactive`` from configuring (once) through activate (``ChangeState`` events,
    as in launch_ros's lifecycle_pub_sub_launch.py example). Without ``autostart`` it stays
    unconfigured until someone drives it (``ros2 lifecycle``); without ``activate`` it
    waits inactive.
    """
    from launch.actions import EmitEvent, RegisterEventHandler
    from launch.events import matches_action
    from launch_ros.actions import LifecycleNode
    from launch_ros.event_handlers import OnStateTransition
    from launch_ros.events.lifecycle import ChangeState
    from lifecycle_msgs.msg import Transition

    parameters = list(node_arguments.get('parameters', []))
    last = parameters.pop() if parameters and isinstance(parameters[-1], dict) else {}
    node_arguments['parameters'] = parameters + [{**last, 'autostart': False}]
    node = LifecycleNode(**node_arguments)

    def change(transition: int):
        return EmitEvent(event=ChangeState(lifecycle_node_matcher=matches_action(node),
                                           transition_id=transition))
    if not autostart:
        return [node]
    if not activate:
        return [node, change(Transition.TRANSITION_CONFIGURE)]
    return [
        # Once, after configure only: a later `ros2 lifecycle set ... deactivate` (also
        # ending in inactive) or cleanup and configure by hand must not be undone.
        RegisterEventHandler(OnStateTransition(
            target_lifecycle_node=node, start_state='configuring', goal_state='inactive',
            entities=[change(Transition.TRANSITION_ACTIVATE)], handle_once=True)),
        node,
        change(Transition.TRANSITION_CONFIGURE),
    ]
