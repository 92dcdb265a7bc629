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
Managed (lifecycle) nodes: the camera and the feedback node sleep while inactive.

A robot's CPU is shared with navigation, speech and perception, so a node that only needs to
look while a person teaches drops its image subscription, its worker and MediaPipe's graphs
when it is deactivated, and takes them again when activated; MediaPipe itself is imported
when the node is configured (a second of CPU), so waking builds graphs only (the ROS 2
managed-node states: unconfigured, inactive, active, finalized). ``ManagedNode`` maps
rclpy's transition callbacks onto four hooks a node writes (``configure``, ``activate``,
``deactivate``, ``cleanup``); a hook that raises fails its transition with a logged reason
and leaves the node running. With its ``autostart`` parameter true (the default) a node
configures and activates itself once built, as ``ros2 run`` users expect; the launch file sets
it false and drives the transitions itself, and ``banditlearn_bringup`` does the same
(``bring_up``).
"""

from typing import Any, Callable, Iterable

from banditlearn_ros.nodes.callback_guard import GuardedNode
from banditlearn_ros.nodes.parameters import declare_specs
from banditlearn_ros.parameter_spec import Spec
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn

SUCCESS = TransitionCallbackReturn.SUCCESS
FAILURE = TransitionCallbackReturn.FAILURE
ERROR = TransitionCallbackReturn.ERROR

AUTOSTART_DESCRIPTION = (
    'configure and activate at start; false = wait unconfigured for a lifecycle manager '
    '(ros2 launch autostart:=..., ros2 lifecycle set NODE configure)')


class ManagedNode(GuardedNode, LifecycleNode):
    """
    A guarded lifecycle node; subclasses write the hooks and call ``start()`` last in __init__.

    The hooks run on the thread that takes the transition (a service call on the executor,
    or the caller of ``trigger_*``). What /diagnostics should show goes through
    ``lifecycle_values()``.
    """

    def __init__(self, node_name: str, **kwargs):
        self._built = False
        self._machine_destroyed = False
        super().__init__(node_name, **kwargs)
        self.lifecycle_error = None
        """What the last failed transition raised (``bring_up`` raises it again)."""
        self.lifecycle_failures = 0
        """Failed transitions, on /diagnostics."""
        declare_specs(self, (Spec('autostart', True, AUTOSTART_DESCRIPTION, read_only=True),))

    # -- the hooks a node writes ----------------------------------------------------------
    def configure(self) -> None:
        """Read parameters and make the models (unconfigured -> inactive)."""

    def activate(self) -> None:
        """Take subscriptions, threads and MediaPipe's graphs (inactive -> active)."""

    def deactivate(self) -> None:
        """Release what ``activate`` took (active -> inactive); must be safe to call twice."""

    def cleanup(self) -> None:
        """Drop what ``configure`` made (inactive -> unconfigured)."""

    def release(self, name: str, how: Callable[[Any], Any], forget: bool = True) -> None:
        """
        Release ``self.<name>`` with ``how`` when it is set, then forget it (unless not to).

        For ``deactivate``: what ``activate`` took goes the same way, and a second call
        finds nothing to release.  ``forget=False`` keeps what ``configure`` made.
        """
        taken = getattr(self, name)
        if taken is not None:
            how(taken)
        if forget:
            setattr(self, name, None)

    # -- rclpy's transition callbacks -----------------------------------------------------
    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Run ``configure``; an exception fails the transition (the node stays unconfigured)."""
        return self._run('configure', self.configure, FAILURE)

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Run ``activate``; on an exception release what it took and stay inactive."""
        result = self._run('activate', self.activate, FAILURE)
        if result != SUCCESS:
            self._run('deactivate', self.deactivate, FAILURE)
        return result

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Run ``deactivate``."""
        return self._run('deactivate', self.deactivate, ERROR)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Run ``cleanup``."""
        return self._run('cleanup', self.cleanup, ERROR)

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Release everything from any state (-> finalized)."""
        result = self._run('deactivate', self.deactivate, ERROR)
        return self._run('cleanup', self.cleanup, ERROR) if result == SUCCESS else result

    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Release everything after a failed transition and go back to unconfigured."""
        self._run('deactivate', self.deactivate, ERROR)
        return self._run('cleanup', self.cleanup, FAILURE)

    def _run(self, name: str, hook, failed) -> TransitionCallbackReturn:
        try:
            hook()
        except Exception as exc:  # noqa: B902 - a failed transition never ends the node
            self.lifecycle_error = exc
            self.lifecycle_failures += 1
            self.get_logger().error(f'{name} failed: {type(exc).__name__}: {exc}')
            return failed
        return SUCCESS

    # -- state ---------------------------------------------------------------------------
    @property
    def lifecycle_state(self) -> str:
        """Return the state's label: unconfigured, inactive, active or finalized."""
        if self._machine_destroyed:
            return 'finalized'
        return self._state_machine.current_state[1]

    def lifecycle_values(self) -> dict:
        """Return the /diagnostics values of the lifecycle: the state, failed transitions."""
        return {'lifecycle_state': self.lifecycle_state,
                'lifecycle_failures': self.lifecycle_failures}

    def start(self) -> None:
        """Configure and activate when ``autostart`` is true (the end of a node's __init__)."""
        self._built = True
        if self.get_parameter('autostart').value:
            bring_up([self])

    def close(self) -> None:
        """
        Release everything (the end of the process): the shutdown transition, once.

        The transition publishes its event (a launch file listens); once the context has
        ended that cannot be, and rclpy would log an error for a clean stop: the hooks then
        run by hand.
        """
        if not self._built or self.lifecycle_state == 'finalized':
            return  # a Ctrl-C inside __init__ (maybe before the state machine is made)
        if self.context.ok():
            try:
                self.trigger_shutdown()
                return
            except Exception:  # noqa: B902 - rcl gone meanwhile: release by hand
                pass
        self.deactivate()
        self.cleanup()

    def destroy_node(self):
        """
        Release threads and MediaPipe, then the node and its lifecycle state machine.

        rclpy leaves the state machine to the garbage collector, and with it the node and its
        five lifecycle services in the graph: a later node of the same name would share
        ``change_state`` with a server nobody spins.
        """
        self.close()
        super().destroy_node()
        machine = getattr(self, '_state_machine', None)
        if machine is not None and not self._machine_destroyed:
            self._machine_destroyed = True
            machine.destroy_when_not_in_use()


def bring_up(nodes: Iterable, goal: str = 'active') -> None:
    """
    Take managed nodes to ``goal``: all configured first, then all activated.

    The order ``ros2 launch`` gives them with ``autostart:=true``; nodes already past a step
    are left as they are.

    Parameters
    ----------
    nodes : iterable of rclpy.node.Node
        The nodes; those that are not ``ManagedNode`` are skipped.
    goal : str
        ``'inactive'`` (configure only) or ``'active'``.

    Raises
    ------
    Exception
        What the failing hook raised (a bad video source: OSError), so a start fails with
        the same one-line error as an unmanaged node; RuntimeError when it raised nothing.

    """
    nodes = [node for node in nodes if isinstance(node, ManagedNode)]
    steps = [('unconfigured', 'trigger_configure')]
    if goal == 'active':
        steps.append(('inactive', 'trigger_activate'))
    for before, step in steps:
        for node in nodes:
            if node.lifecycle_state != before:
                continue
            node.lifecycle_error = None
            if getattr(node, step)() != SUCCESS:
                raise node.lifecycle_error or RuntimeError(
                    f'{node.get_name()}: {step[len("trigger_"):]} failed (see the log above)')
