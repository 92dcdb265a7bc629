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
banditlearn_ctl: ``ros2 param`` / ``service call`` / ``lifecycle`` for this package's nodes.

For a set-up without a ROS installation (the PyPI wheels carry no ``ros2`` command).  It
talks to running nodes over DDS with the same requests: SetParameters, GetParameters,
DescribeParameters, the learner's Trigger services and ChangeState.  A value is read as the
parameter's declared type, so ``set learner_node k abc`` answers that k takes a number
(``ros2 param set`` says only ``Wrong parameter type, expected '3' got '4'``).
"""

import sys
from typing import Any, List, Optional, Sequence

from banditlearn_ros.support.command_line import OneLineParser
import yaml

TIMEOUT = 10.0
"""Seconds to wait for a node to answer (``--timeout``)."""

TRANSITIONS = ('configure', 'activate', 'deactivate', 'cleanup', 'shutdown')

TYPE_NAMES = {1: 'true or false', 2: 'a whole number', 3: 'a number', 4: 'a string',
              6: 'a list of true/false', 7: 'a list of whole numbers', 8: 'a list of numbers',
              9: 'a list of strings'}
"""rcl_interfaces/ParameterType values, as a person reads them."""


class ControlError(Exception):
    """Why a request could not be made or was refused: the command's one line."""


def typed_value(name: str, kind: int, text: str) -> Any:
    """
    Return ``text`` as a value of ParameterType ``kind``, or raise ControlError.

    >>> typed_value('k', 3, '1.5'), typed_value('labels', 9, '[fist, one]')
    (1.5, ['fist', 'one'])
    >>> typed_value('k', 3, 'abc')
    Traceback (most recent call last):
    ...
    banditlearn_ros.tools.control.ControlError: k takes a number, not 'abc'
    """
    try:
        value = yaml.safe_load(text) if text.strip() else ''
    except yaml.YAMLError:
        value = text
    want = TYPE_NAMES.get(kind, 'a value')
    checks = {1: lambda v: isinstance(v, bool),
              2: lambda v: isinstance(v, int) and not isinstance(v, bool),
              3: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
              4: lambda v: True,
              6: lambda v: isinstance(v, list) and all(isinstance(i, bool) for i in v),
              7: lambda v: isinstance(v, list) and all(isinstance(i, int) for i in v),
              8: lambda v: isinstance(v, list) and all(isinstance(i, (int, float)) for i in v),
              9: lambda v: isinstance(v, list)}
    if kind == 4:
        return text
    if kind not in checks or not checks[kind](value):
        raise ControlError(f'{name} takes {want}, not {text!r}')
    if kind == 3:
        return float(value)
    if kind == 8:
        return [float(i) for i in value]
    if kind == 9:
        return [str(i) for i in value]
    return value


class Control:
    """One rclpy context and node that sends this command's requests."""

    def __init__(self, namespace: str = '', timeout: float = TIMEOUT):
        import rclpy
        self.timeout = float(timeout)
        self.rclpy = rclpy
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node('banditlearn_ctl', context=self.context,
                                      start_parameter_services=False)
        from rclpy.executors import SingleThreadedExecutor
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.namespace = namespace.strip('/')

    def target(self, node: str) -> str:
        """Return the node's full name (``/ns/node``)."""
        if node.startswith('/'):
            return node
        return f'/{self.namespace}/{node}' if self.namespace else f'/{node}'

    def call(self, kind, service: str, request):
        """Send ``request`` to ``service``; return the response or raise ControlError."""
        client = self.node.create_client(kind, service)
        if not client.wait_for_service(timeout_sec=self.timeout):
            raise ControlError(f'no answer from {service} within {self.timeout:g} s (is the '
                               'node running, in this ROS_DOMAIN_ID and namespace?)')
        future = client.call_async(request)
        self.executor.spin_until_future_complete(future, timeout_sec=self.timeout)
        if not future.done() or future.result() is None:
            raise ControlError(f'{service} did not answer within {self.timeout:g} s')
        return future.result()

    def describe(self, node: str, name: str):
        """Return the parameter's descriptor (its type and constraints)."""
        from rcl_interfaces.srv import DescribeParameters
        reply = self.call(DescribeParameters, f'{self.target(node)}/describe_parameters',
                          DescribeParameters.Request(names=[name]))
        if not reply.descriptors or reply.descriptors[0].type == 0:
            raise ControlError(f'{self.target(node)} has no parameter {name!r}')
        return reply.descriptors[0]

    def get(self, node: str, name: str) -> Any:
        """Return a parameter's value."""
        from rcl_interfaces.srv import GetParameters
        from rclpy.parameter import parameter_value_to_python
        self.describe(node, name)
        reply = self.call(GetParameters, f'{self.target(node)}/get_parameters',
                          GetParameters.Request(names=[name]))
        return parameter_value_to_python(reply.values[0])

    def set(self, node: str, name: str, text: str) -> str:  # noqa: A003
        """Set a parameter from its text; return the node's answer or raise ControlError."""
        from rcl_interfaces.srv import SetParameters
        from rclpy.parameter import Parameter
        descriptor = self.describe(node, name)
        value = typed_value(name, descriptor.type, text)
        request = SetParameters.Request(parameters=[
            Parameter(name, Parameter.Type(descriptor.type), value).to_parameter_msg()])
        result = self.call(SetParameters, f'{self.target(node)}/set_parameters',
                           request).results[0]
        if not result.successful:
            raise ControlError(f'{name} = {text} refused: {result.reason or "no reason given"}')
        return f'{self.target(node)}: {name} = {value!r}'

    def trigger(self, node: str, service: str) -> str:
        """Call a std_srvs/Trigger service of the node; return its message."""
        from std_srvs.srv import Trigger
        reply = self.call(Trigger, f'{self.target(node)}/{service}', Trigger.Request())
        if not reply.success:
            raise ControlError(reply.message or f'{service} failed')
        return reply.message

    def transition(self, node: str, name: str) -> str:
        """Ask a managed node for a lifecycle transition by name."""
        from lifecycle_msgs.msg import Transition
        from lifecycle_msgs.srv import ChangeState
        ident = getattr(Transition, f'TRANSITION_{name.upper()}')
        reply = self.call(ChangeState, f'{self.target(node)}/change_state',
                          ChangeState.Request(transition=Transition(id=ident)))
        if not reply.success:
            raise ControlError(f"{self.target(node)}: {name} failed (see the node's log)")
        return f'{self.target(node)}: {name} done'

    def close(self) -> None:
        """Release the node and the context."""
        self.executor.remove_node(self.node)
        self.executor.shutdown()
        self.node.destroy_node()
        self.rclpy.shutdown(context=self.context)


def build_parser() -> OneLineParser:
    """Return the argument parser."""
    p = OneLineParser(prog='banditlearn_ctl', description='Set and read parameters of running '
                      'banditlearn_ros nodes, call their services and lifecycle transitions, '
                      'without the ros2 command.')
    p.add_argument('--namespace', default='', help="the nodes' namespace (default none)")
    p.add_argument('--timeout', type=float, default=TIMEOUT,
                   help=f'seconds to wait for a node (default {TIMEOUT:g})')
    sub = p.add_subparsers(dest='command', required=True, parser_class=OneLineParser)
    s = sub.add_parser('set', help='set a parameter: set learner_node k 1.5')
    s.add_argument('node')
    s.add_argument('name')
    s.add_argument('value')
    g = sub.add_parser('get', help='print a parameter: get learner_node labels')
    g.add_argument('node')
    g.add_argument('name')
    for name, text in (('save', 'save the model now (~/save_model)'),
                       ('reset', 'start a fresh model (~/reset_model)')):
        c = sub.add_parser(name, help=text)
        c.add_argument('node', nargs='?', default='learner_node')
    lc = sub.add_parser('lifecycle', help="a managed node's transition: lifecycle camera_node "
                        'deactivate')
    lc.add_argument('node')
    lc.add_argument('transition', choices=TRANSITIONS)
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Console entry point ``banditlearn_ctl``; one line out, non-zero on failure."""
    args = build_parser().parse_args(argv)
    control: Optional[Control] = None
    try:
        control = Control(args.namespace, args.timeout)
        lines: List[str]
        if args.command == 'set':
            lines = [control.set(args.node, args.name, args.value)]
        elif args.command == 'get':
            lines = [repr(control.get(args.node, args.name))]
        elif args.command in ('save', 'reset'):
            lines = [control.trigger(args.node, f'{args.command}_model')]
        else:
            lines = [control.transition(args.node, args.transition)]
    except ControlError as exc:
        print(f'banditlearn_ctl: {exc}', file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        if control is not None:
            control.close()
    print('\n'.join(lines))
    return 0


if __name__ == '__main__':
    sys.exit(main())
