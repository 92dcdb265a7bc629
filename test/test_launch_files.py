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

"""The launch files name only installed executables and files, and parameters nodes declare."""

import importlib.util
import os
from pathlib import Path
import runpy
import shutil
import sys
import types

from banditlearn_ros.bringup import system
from banditlearn_ros.learning.offline.datasets import DatasetError, load_dataset
from banditlearn_ros.systems import system_file
import pytest
import rclpy
from rclpy.context import Context
from rclpy.parameter import Parameter
import setuptools
import yaml

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = 'banditlearn_ros'
LAUNCH_FILES = ['banditlearn.launch.py', 'teach_sim.launch.py', 'replay.launch.py']


# The stand-ins below take the arguments the real launch and launch_ros classes take (their
# signatures in launch 3.x and launch_ros 0.26-0.28: Jazzy, Kilted, Rolling) and refuse what
# those refuse, when they are built and when ``ros2 launch`` executes them (``execute``): a
# launch file that passes the real classes something they cannot take fails here.
SUBSTITUTABLE = (str,)
"""What our launch files pass where launch takes SomeSubstitutionsType (text only)."""

# ExecuteProcess's own keywords, ExecuteLocal's, and Action's (``condition``).
EXECUTE_PROCESS_KEYWORDS = {
    'cmd', 'prefix', 'name', 'cwd', 'env', 'additional_env', 'shell', 'sigterm_timeout',
    'sigkill_timeout', 'emulate_tty', 'output', 'output_format', 'cached_output', 'log_cmd',
    'on_exit', 'respawn', 'respawn_delay', 'respawn_max_retries', 'condition'}


def substitutions(value, what):
    """Check a SomeSubstitutionsType argument: text, or a list of texts."""
    parts = value if isinstance(value, (list, tuple)) else [value]
    assert parts and all(isinstance(p, SUBSTITUTABLE) for p in parts), \
        f'{what}: {value!r} is not a substitution (text)'
    return ''.join(parts)


def prefix_namespace(base, ns):
    """launch_ros.utilities.prefix_namespace."""
    if base is None and ns is None:
        return None
    if ns is None:
        combined = base
    elif not base or ns.startswith('/'):
        combined = ns
    else:
        combined = ('' if base == '/' else base) + '/' + ns
    return combined if combined == '/' else combined.rstrip('/')


class LaunchConfiguration:
    """Stand-in for launch.substitutions.LaunchConfiguration; the context is a dict."""

    def __init__(self, variable_name, *, default=None):
        self.name = substitutions(variable_name, 'LaunchConfiguration')

    def perform(self, context):
        return context[self.name]


class Action:
    """Stand-in for launch.Action: takes only ``condition``."""

    def __init__(self, *, condition=None):
        self.condition = condition


class OpaqueFunction(Action):
    """Stand-in for launch.actions.OpaqueFunction."""

    def __init__(self, *, function, args=None, kwargs=None, **left_over_kwargs):
        super().__init__(**left_over_kwargs)
        if not callable(function):
            raise TypeError(f"OpaqueFunction expected a callable for 'function', got "
                            f"'{type(function)}'")
        self.function = function


class DeclareLaunchArgument(Action):
    """Stand-in for launch.actions.DeclareLaunchArgument."""

    def __init__(self, name, *, default_value=None, description=None, choices=None,
                 **kwargs):
        super().__init__(**kwargs)
        assert isinstance(name, str), name
        if default_value is not None:
            substitutions(default_value, f'{name} default_value')
        if choices is not None:
            if len(choices) == 0:
                raise RuntimeError('Provided choices arg is empty.')
            if default_value is not None and default_value not in choices:
                raise RuntimeError(f'Provided default_value "{default_value}" is not in '
                                   f'provided choices "{choices}".')
        self.name, self.default_value, self.description = name, default_value, description
        self.choices = choices


class LogInfo(Action):
    """Stand-in for launch.actions.LogInfo."""

    def __init__(self, *, msg, **kwargs):
        super().__init__(**kwargs)
        self.msg = substitutions(msg, 'LogInfo msg')


class LaunchDescription:
    """Stand-in for launch.LaunchDescription."""

    def __init__(self, initial_entities=None, *, deprecated_reason=None):
        self.entities = list(initial_entities or [])


class ExecuteProcess(Action):
    """Stand-in for launch.actions.ExecuteProcess: keeps its arguments, checks their names."""

    def __init__(self, *, cmd, **kwargs):
        unknown = set(kwargs) - EXECUTE_PROCESS_KEYWORDS
        if unknown:
            raise TypeError(f'ExecuteProcess got unexpected keyword arguments {unknown}')
        super().__init__(condition=kwargs.get('condition'))
        self.cmd = [substitutions(part, 'cmd') for part in cmd]
        for key in ('prefix', 'name', 'cwd', 'output'):
            if kwargs.get(key) is not None:
                substitutions(kwargs[key], key)
        self.kwargs = kwargs

    def execute(self, context):
        """Do what ros2 launch checks as it starts the process (nothing more here)."""


class Node(ExecuteProcess):
    """Stand-in for launch_ros.actions.Node: keeps its arguments, expands name and namespace."""

    UNSPECIFIED_NODE_NAME = '<node_name_unspecified>'
    UNSPECIFIED_NODE_NAMESPACE = '<node_namespace_unspecified>'

    def __init__(self, **given):
        self._take(**given)  # launch_ros's signature: an unknown or missing name is refused
        self.kwargs = given  # what the launch file passed, as passed
        self.node_name = None

    def _take(self, *, executable, package=None, name=None, namespace=None, exec_name=None,
              parameters=None, remappings=None, ros_arguments=None, arguments=None,
              **kwargs):
        substitutions(executable, 'executable')
        for key, value in (('package', package), ('name', name), ('namespace', namespace),
                           ('exec_name', exec_name)):
            if value is not None:
                substitutions(value, key)
        if parameters is not None and not isinstance(parameters, list):
            raise TypeError("'parameters' of Node must be a list")
        for item in ros_arguments or []:
            substitutions(item, 'ros_arguments')
        cmd = [executable] + list(arguments or []) + (
            ['--ros-args'] + list(ros_arguments) if ros_arguments else [])
        ExecuteProcess.__init__(self, cmd=cmd, name=exec_name, **kwargs)

    def execute(self, context):
        """Expand the node's name and namespace as launch_ros's Node._perform_substitutions."""
        from rclpy.validate_namespace import validate_namespace
        from rclpy.validate_node_name import validate_node_name
        name, namespace = self.kwargs.get('name'), self.kwargs.get('namespace')
        expanded_name = self.UNSPECIFIED_NODE_NAME
        if name is not None:
            expanded_name = substitutions(name, 'name')
            validate_node_name(expanded_name)
        expanded_namespace = substitutions(namespace, 'namespace') \
            if namespace is not None else None
        expanded_namespace = prefix_namespace(context.get('ros_namespace'), expanded_namespace)
        if expanded_namespace is not None and not expanded_namespace.startswith('/'):
            expanded_namespace = '/' + expanded_namespace
        if expanded_namespace is None:
            expanded_namespace = self.UNSPECIFIED_NODE_NAMESPACE
        else:
            validate_namespace(expanded_namespace)
        self.node_name = prefix_namespace(expanded_namespace, expanded_name)


class LifecycleNode(Node):
    """Stand-in for launch_ros.actions.LifecycleNode: name and namespace are required."""

    def __init__(self, **given):
        def required(*, name, namespace, **kwargs):
            """Refuse what launch_ros's LifecycleNode.__init__ refuses: no name or namespace."""
        required(**given)
        super().__init__(**given)

    def execute(self, context):
        """Subscribe to the node's transition events as launch_ros does (by its full name)."""
        from rclpy.expand_topic_name import expand_topic_name
        from rclpy.validate_full_topic_name import validate_full_topic_name
        super().execute(context)
        if self.UNSPECIFIED_NODE_NAME in self.node_name:
            raise RuntimeError('node_name unexpectedly incomplete for lifecycle node')
        for suffix in ('transition_event', 'change_state'):
            # launch_ros's own node ('launch_ros_<pid>' in '/') creates these endpoints.
            validate_full_topic_name(expand_topic_name(
                f'{self.node_name}/{suffix}', 'launch_ros_1', '/'))


class Event:
    """Stand-in for launch.Event."""


class EmitEvent(Action):
    """Stand-in for launch.actions.EmitEvent."""

    def __init__(self, *, event, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(event, Event):
            raise RuntimeError(f"EmitEvent() expected an event instance, got '{event}'.")
        self.event = event


class RegisterEventHandler(Action):
    """Stand-in for launch.actions.RegisterEventHandler."""

    def __init__(self, event_handler, **kwargs):
        super().__init__(**kwargs)
        self.event_handler = event_handler


class OnStateTransition:
    """Stand-in for launch_ros.event_handlers.OnStateTransition."""

    def __init__(self, *, entities, target_lifecycle_node=None, transition=None,
                 start_state=None, goal_state=None, matcher=None, handle_once=False):
        if not isinstance(target_lifecycle_node, (LifecycleNode, type(None))):
            raise RuntimeError("OnStateTransition requires a 'LifecycleNode' action as the "
                               'target')
        self.target, self.entities = target_lifecycle_node, entities
        self.start_state, self.goal_state = start_state, goal_state
        self.handle_once = handle_once


class ChangeState(Event):
    """Stand-in for launch_ros.events.lifecycle.ChangeState."""

    def __init__(self, *, lifecycle_node_matcher, transition_id):
        from lifecycle_msgs.msg import Transition
        valid = {getattr(Transition, k) for k in dir(Transition)
                 if k.startswith('TRANSITION_') and not k.startswith('TRANSITION_CALLBACK')}
        if transition_id not in valid:
            raise ValueError(f"given transition_id of '{transition_id}'")
        self.matcher, self.transition_id = lifecycle_node_matcher, transition_id


def matches_action(target_action):
    """Stand-in for launch.events.matches_action: a matcher that knows its action."""
    def matcher(candidate):
        return candidate is target_action
    matcher.action = target_action
    return matcher


class SetEnvironmentVariable(Action):
    """Stand-in for launch.actions.SetEnvironmentVariable: a name and a value, substitutions."""

    def __init__(self, name, value, **kwargs):
        super().__init__(**kwargs)
        self.name = substitutions(name, 'SetEnvironmentVariable name')
        self.value = substitutions(value, 'SetEnvironmentVariable value')


@pytest.fixture(scope='module')
def setup_args():
    """Return the keyword arguments setup.py passes to setuptools.setup."""
    captured = {}
    real, cwd = setuptools.setup, Path.cwd()
    setuptools.setup = lambda **kwargs: captured.update(kwargs)
    try:
        os.chdir(ROOT)
        runpy.run_path(str(ROOT / 'setup.py'), run_name='__main__')
    finally:
        setuptools.setup = real
        os.chdir(cwd)
    return captured


@pytest.fixture(scope='module')
def share(setup_args, tmp_path_factory):
    """Install the data_files into a fake prefix; return the package's share folder."""
    prefix = tmp_path_factory.mktemp('install')
    for destination, files in setup_args['data_files']:
        for name in files:
            target = prefix / destination
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, target)
    return prefix / 'share' / PACKAGE


@pytest.fixture(scope='module')
def console_scripts(setup_args):
    scripts = {}
    for line in setup_args['entry_points']['console_scripts']:
        name, target = (part.strip() for part in line.split('='))
        scripts[name] = target
    return scripts


def load_launch(path: Path, share: Path, monkeypatch):
    """Import a launch file with stub launch modules; return its description."""
    def share_dir(package):
        if package != PACKAGE:
            raise LookupError(package)
        return str(share)
    stubs = {
        'launch': {'LaunchDescription': LaunchDescription},
        'launch.actions': {'DeclareLaunchArgument': DeclareLaunchArgument,
                           'EmitEvent': EmitEvent, 'ExecuteProcess': ExecuteProcess,
                           'LogInfo': LogInfo, 'OpaqueFunction': OpaqueFunction,
                           'RegisterEventHandler': RegisterEventHandler,
                           'SetEnvironmentVariable': SetEnvironmentVariable},
        'launch.events': {'matches_action': matches_action},
        'launch.substitutions': {'LaunchConfiguration': LaunchConfiguration},
        'launch_ros': {},
        'launch_ros.actions': {'LifecycleNode': LifecycleNode, 'Node': Node},
        'launch_ros.event_handlers': {'OnStateTransition': OnStateTransition},
        'launch_ros.events': {},
        'launch_ros.events.lifecycle': {'ChangeState': ChangeState},
        'ament_index_python': {},
        'ament_index_python.packages': {'get_package_share_directory': share_dir},
    }
    for name, attrs in stubs.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        monkeypatch.setitem(sys.modules, name, module)
    spec = importlib.util.spec_from_file_location(path.stem.replace('.', '_'), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    description = module.generate_launch_description()
    description.module = module  # so a test can stand in for what the machine has
    return description


@pytest.fixture(scope='module')
def declared():
    """Return ``{node name: declared parameter names}`` for the launched and configured nodes."""
    sections = {'camera_node', 'feedback_node', 'learner_node', 'teacher_node', 'dataset_node',
                'page_node'}
    for name in ('params.yaml', 'teach_sim.params.yaml'):
        sections |= {system_file.section_node(key) for key
                     in yaml.safe_load((ROOT / 'config' / name).read_text())}
    context = Context()
    rclpy.init(context=context, args=['--ros-args', '--log-level', 'error'])
    out = {}
    try:
        from banditlearn_ros.nodes.bag_player import BagPlayerNode
        for section in sorted(sections | {'bag_player'}):
            cls = BagPlayerNode if section == 'bag_player' else system.node_class(section)
            # page_node would open its port when it starts itself: left unconfigured.
            node = cls(context=context, parameter_overrides=[
                Parameter('autostart', value=False)] if section == 'page_node' else None)
            out[section] = set(node.get_parameters_by_prefix(''))
            node.destroy_node()
    finally:
        rclpy.shutdown(context=context)
    return out


def arguments_of(description):
    """Return the declared launch arguments by name."""
    return {e.name: e for e in description.entities if isinstance(e, DeclareLaunchArgument)}


def launched(description, **given):
    """Return the Node actions as ``ros2 launch ... name:=value`` would make them."""
    arguments = arguments_of(description)
    unknown = set(given) - set(arguments)
    assert not unknown, f'launch arguments {unknown} are not declared'
    context = {name: a.default_value for name, a in arguments.items()}
    context.update(given)
    return [e for e in _actions(description, context) if isinstance(e, Node)]


def _actions(description, context):
    """Return the actions ``ros2 launch`` would run, each executed as the real one checks."""
    for argument in description.entities:
        if isinstance(argument, DeclareLaunchArgument) and argument.choices and \
                context.get(argument.name) not in argument.choices:
            raise RuntimeError(f'Argument {argument.name} provided value '
                               f'{context.get(argument.name)!r} is not valid.')
    out = list(description.entities)
    for entity in description.entities:
        if isinstance(entity, OpaqueFunction):
            out += entity.function(context)
    for entity in out:
        if isinstance(entity, ExecuteProcess):
            entity.execute(context)
    return out


def processes(description, **given):
    """Return the ExecuteProcess actions as ``ros2 launch ... name:=value`` would make them."""
    context = {name: a.default_value for name, a in arguments_of(description).items()}
    context.update(given)
    return [e for e in _actions(description, context)
            if isinstance(e, ExecuteProcess) and not isinstance(e, Node)]


def section(path: Path, node: str):
    """Return the parameters a file gives ``node`` (any section key naming it)."""
    out = {}
    for key, body in (yaml.safe_load(path.read_text()) or {}).items():
        if system_file.section_node(key) in (node, '*'):
            out.update(body['ros__parameters'])
    return out


@pytest.mark.parametrize('launch_file', LAUNCH_FILES)
def test_launch_file_names_installed_things(launch_file, share, console_scripts, declared,
                                            monkeypatch):
    installed = share / 'launch' / launch_file
    assert installed.is_file(), f'{launch_file} is not installed by setup.py data_files'
    description = load_launch(installed, share, monkeypatch)
    arguments = arguments_of(description)
    nodes = launched(description)
    assert nodes and all(a.description for a in arguments.values())
    assert {'namespace', 'use_sim_time', 'log_level', 'params_file', 'model_path'} <= set(
        arguments)
    for action in nodes:
        kw = action.kwargs
        assert kw['package'] == PACKAGE
        executable = kw['executable']
        assert executable in console_scripts, f'{executable} is not a console script'
        module = console_scripts[executable].split(':')[0]
        assert importlib.util.find_spec(module) is not None, f'{module} does not exist'
        assert kw.get('name') == executable  # so the params.yaml section applies
        assert kw['namespace'] == '' and kw['ros_arguments'] == ['--log-level', 'info']
        assert action.node_name == '/' + executable  # the root namespace
        for item in kw.get('parameters', []):
            if isinstance(item, dict):
                unknown = set(item) - declared[kw['name']]
                assert not unknown, f'{executable} does not declare {unknown}'
                assert item['use_sim_time'] is False
                continue
            path = Path(item)
            assert path.is_file() and share in path.parents, f'{item} is not installed'
            unknown = set(section(path, kw['name'])) - declared[kw['name']]
            assert not unknown, f'{path.name}: {kw["name"]} does not declare {unknown}'
        for pair in kw.get('remappings', []):
            assert len(pair) == 2 and isinstance(pair[0], str)


def test_full_system_arguments(share, monkeypatch):
    description = load_launch(share / 'launch' / 'banditlearn.launch.py', share, monkeypatch)
    arguments = arguments_of(description)
    assert 'image_topic' in arguments
    assert arguments['params_file'].default_value == str(share / 'config' / 'params.yaml')
    nodes = {e.kwargs['executable']: e.kwargs for e in launched(
        description, image_topic='/camera/image_raw', namespace='robot1', use_sim_time='true',
        log_level='debug', model_path='/tmp/m.npz')}
    assert set(nodes) == {'camera_node', 'learner_node', 'feedback_node'}
    for name in ('camera_node', 'feedback_node'):
        assert nodes[name]['remappings'] == [('image_raw', '/camera/image_raw')]
    for kw in nodes.values():
        assert kw['namespace'] == 'robot1' and kw['ros_arguments'] == ['--log-level', 'debug']
        assert kw['parameters'][-1]['use_sim_time'] is True
    assert nodes['learner_node']['parameters'][-1]['model_path'] == '/tmp/m.npz'


def test_the_robot_gets_the_learner_settings_measured_on_a_real_camera(share, monkeypatch):
    """banditlearn.launch.py (always a real camera) loads camera.params.yaml after params.yaml."""
    description = load_launch(share / 'launch' / 'banditlearn.launch.py', share, monkeypatch)
    overlay = share / 'config' / 'camera.params.yaml'
    assert arguments_of(description)['camera_params_file'].default_value == str(overlay)

    def learner_values(**given):
        nodes = {e.kwargs['executable']: e.kwargs for e in launched(description, **given)}
        values = {}
        for item in nodes['learner_node']['parameters']:
            values.update(item if isinstance(item, dict) else section(Path(item),
                                                                      'learner_node'))
        return nodes, values
    nodes, values = learner_values()
    for kw in nodes.values():
        assert [str(p) for p in kw['parameters'][:2]] == [
            str(share / 'config' / 'params.yaml'), str(overlay)]
    assert values['reveal_step'] == 'none' and values['C'] == 0.5
    assert values['new_label_probation'] == 0
    # The same settings as the bring-up's camera system, from the same file.
    camera = yaml.safe_load((ROOT / 'config' / 'camera.system.yaml').read_text())
    assert camera['params_files'] == ['params.yaml', 'camera.params.yaml']
    assert not any(e.get('parameters') for e in camera['nodes'] if e['node'] == 'learner_node')
    # The overlay changes only what was measured; params.yaml keeps the rendered session's.
    assert set(section(overlay, 'learner_node')) == {'reveal_step', 'C', 'new_label_probation'}
    base = section(ROOT / 'config' / 'params.yaml', 'learner_node')
    assert (base['reveal_step'], base['C'], base['new_label_probation']) == ('all', 1.0, 3)
    # '' leaves params_file alone; a user's own params_file still comes first.
    nodes, values = learner_values(camera_params_file='')
    assert values['reveal_step'] == 'all' and values['C'] == 1.0
    assert all(len([p for p in kw['parameters'] if not isinstance(p, dict)]) == 1
               for kw in nodes.values())
    mine = {e.kwargs['executable']: e.kwargs for e in launched(
        description, params_file='/my/params.yaml')}
    assert [str(p) for p in mine['learner_node']['parameters'][:2]] == [
        '/my/params.yaml', str(overlay)]


def test_full_system_drives_its_managed_nodes_like_launch_ros(share, monkeypatch):
    from lifecycle_msgs.msg import Transition
    description = load_launch(share / 'launch' / 'banditlearn.launch.py', share, monkeypatch)
    argument = arguments_of(description)['autostart']
    assert argument.default_value == 'true'
    for autostart in ('true', 'false'):
        context = {name: a.default_value for name, a in arguments_of(description).items()}
        context['autostart'] = autostart
        actions = _actions(description, context)
        managed = {a.kwargs['name']: a for a in actions if isinstance(a, LifecycleNode)}
        assert set(managed) == {'camera_node', 'feedback_node'}
        plain = [a.kwargs['name'] for a in actions if type(a) is Node]
        assert plain == ['learner_node']
        for node in managed.values():  # the launch file drives them, not the node itself
            assert node.kwargs['parameters'][-1]['autostart'] is False
        emitted = [a.event for a in actions if isinstance(a, EmitEvent)]
        handlers = [a.event_handler for a in actions if isinstance(a, RegisterEventHandler)]
        if autostart == 'false':
            assert emitted == [] and handlers == []
            continue
        # configure each node once; on reaching inactive, activate that node.
        assert sorted((e.matcher.action.kwargs['name'], e.transition_id) for e in emitted) == [
            ('camera_node', Transition.TRANSITION_CONFIGURE),
            ('feedback_node', Transition.TRANSITION_CONFIGURE)]
        assert sorted(h.target.kwargs['name'] for h in handlers) == sorted(managed)
        for handler in handlers:
            # once, after configure: a later deactivate by hand also ends in inactive
            assert (handler.start_state, handler.goal_state) == ('configuring', 'inactive')
            assert handler.handle_once
            (then,) = handler.entities
            assert then.event.transition_id == Transition.TRANSITION_ACTIVATE
            assert then.event.matcher.action is handler.target
        # a handler is registered before its node starts, the configure event after it
        for handler in handlers:
            node = handler.target
            position = [i for i, a in enumerate(actions) if a is node][0]
            assert any(isinstance(a, RegisterEventHandler) and a.event_handler is handler
                       for a in actions[:position])
            assert any(isinstance(a, EmitEvent) and a.event.matcher.action is node
                       for a in actions[position:])


@pytest.mark.parametrize('launch_file', LAUNCH_FILES)
@pytest.mark.parametrize('namespace, pushed, full', [
    ('', None, ''), ('robot1', None, '/robot1'), ('/robot1', None, '/robot1'),
    ('', '/robot2', '/robot2'), ('robot1', '/robot2', '/robot2/robot1')])
def test_every_node_gets_a_valid_full_name_in_any_namespace(launch_file, namespace, pushed,
                                                            full, share, monkeypatch):
    """
    Without a namespace, with one, and inside a ``PushROSNamespace``, as ros2 launch runs them.

    launch_ros's LifecycleNode needs its namespace as text: None made the whole launch stop
    ("Invalid topic name: '<node_namespace_unspecified>/camera_node/transition_event'").
    """
    description = load_launch(share / 'launch' / launch_file, share, monkeypatch)
    if launch_file == 'replay.launch.py':
        monkeypatch.setattr(description.module, 'rosbag2_installed', lambda: False)
    context = {name: a.default_value for name, a in arguments_of(description).items()}
    context['namespace'] = namespace
    if pushed is not None:
        context['ros_namespace'] = pushed
    nodes = [a for a in _actions(description, context) if isinstance(a, Node)]
    assert nodes
    assert sorted(n.node_name for n in nodes) == sorted(
        f'{full}/{n.kwargs["name"]}' for n in nodes)


def test_a_launch_file_passing_no_namespace_fails_as_under_ros2_launch():
    """The stand-in refuses what launch_ros refuses: the check above can fail."""
    with pytest.raises(TypeError):
        LifecycleNode(executable='camera_node', name='camera_node')  # no namespace
    node = LifecycleNode(executable='camera_node', name='camera_node', namespace=None)
    with pytest.raises(Exception, match='node_namespace_unspecified'):
        node.execute({})
    with pytest.raises(TypeError):
        Node(executable='learner_node', namespce='robot1')
    with pytest.raises(AssertionError, match='not a substitution'):
        Node(executable='learner_node', namespace=1)
    with pytest.raises(RuntimeError, match='not in provided choices'):
        DeclareLaunchArgument('x', default_value='maybe', choices=['true', 'false'])


def test_full_system_can_start_its_managed_nodes_configured_but_inactive(share, monkeypatch):
    from lifecycle_msgs.msg import Transition
    description = load_launch(share / 'launch' / 'banditlearn.launch.py', share, monkeypatch)
    assert arguments_of(description)['activate'].default_value == 'true'
    for autostart, activate, configured in (('true', 'false', True), ('false', 'false', False),
                                            ('false', 'true', False)):
        context = {name: a.default_value for name, a in arguments_of(description).items()}
        context.update(autostart=autostart, activate=activate)
        actions = _actions(description, context)
        managed = [a for a in actions if isinstance(a, LifecycleNode)]
        emitted = [a.event for a in actions if isinstance(a, EmitEvent)]
        assert not [a for a in actions if isinstance(a, RegisterEventHandler)]
        assert sorted((e.matcher.action.kwargs['name'], e.transition_id) for e in emitted) == (
            [('camera_node', Transition.TRANSITION_CONFIGURE),
             ('feedback_node', Transition.TRANSITION_CONFIGURE)] if configured else [])
        for node in managed:
            assert node.kwargs['parameters'][-1]['autostart'] is False
    with pytest.raises(RuntimeError, match='not valid'):
        launched(description, activate='maybe')


def test_full_system_serves_the_teaching_page_only_when_asked(share, monkeypatch, declared):
    description = load_launch(share / 'launch' / 'banditlearn.launch.py', share, monkeypatch)
    defaults = {name: a.default_value for name, a in arguments_of(description).items()}
    assert defaults['page'] == ''
    for page, host in (('', None), ('localhost', '127.0.0.1'), ('0.0.0.0', '0.0.0.0')):
        actions = _actions(description, dict(defaults, page=page))
        managed = {a.kwargs['name']: a for a in actions if isinstance(a, LifecycleNode)}
        if host is None:
            assert 'page_node' not in managed
            continue
        kw = managed['page_node'].kwargs
        assert kw['executable'] == 'page_node'
        (parameters,) = kw['parameters']
        assert parameters['host'] == host and parameters['autostart'] is False
        assert set(parameters) <= declared['page_node']
        configured = [a.event.matcher.action.kwargs['name'] for a in actions
                      if isinstance(a, EmitEvent)]
        assert 'page_node' in configured  # driven through configure and activate like the others


@pytest.mark.parametrize('dataset', ['digits', 'iris', 'wine'])
def test_teach_sim_gives_the_learner_the_labels_of_the_data_set(dataset, share, monkeypatch):
    description = load_launch(share / 'launch' / 'teach_sim.launch.py', share, monkeypatch)
    nodes = {e.kwargs['executable']: e.kwargs for e in launched(
        description, dataset=dataset, noise='0.1')}
    names = [str(n) for n in load_dataset(dataset)[2]]
    assert nodes['learner_node']['parameters'][-1]['labels'] == names
    assert nodes['teacher_node']['parameters'][-1]['labels'] == names
    assert nodes['teacher_node']['parameters'][-1]['rho0'] == 0.1
    assert nodes['dataset_node']['parameters'][-1]['dataset'] == dataset
    with pytest.raises(DatasetError):
        launched(description, dataset='/no/such.csv')


def test_every_parameter_in_the_files_is_declared(declared):
    for name in ('params.yaml', 'teach_sim.params.yaml'):
        for key, body in yaml.safe_load((ROOT / 'config' / name).read_text()).items():
            assert key.startswith('/**/'), f'{name}: {key} applies only in the root namespace'
            node = system_file.section_node(key)
            unknown = set(body['ros__parameters']) - declared[node]
            assert not unknown, f'{name}: {node} does not declare {sorted(unknown)}'


def test_every_declared_parameter_of_my_nodes_is_documented(declared):
    text = (ROOT / 'config' / 'params.yaml').read_text()
    sections = {system_file.section_node(k): v for k, v in yaml.safe_load(text).items()}
    for node in ('learner_node', 'teacher_node', 'dataset_node'):
        missing = declared[node] - set(sections[node]['ros__parameters']) - {
            'use_sim_time', 'start_type_description_service'}
        assert not missing, f'params.yaml lacks {node} {sorted(missing)}'
    lines = text.splitlines()
    node = None
    for i, line in enumerate(lines):
        if not line.startswith(' ') and line.endswith(':'):
            node = system_file.section_node(line[:-1])
        key = line.strip().split(':')[0]
        if node not in ('learner_node', 'teacher_node', 'dataset_node') or \
                not line.startswith('    ') or line.strip().startswith('#'):
            continue
        above = lines[i - 1].strip()
        assert above.startswith('#'), f'{node}.{key} has no comment'


# ---------------------------------------------------------------------- replay.launch.py
# ros2 bag play's options on Jazzy and Kilted that the replay launch file may use, with
# whether each takes values (ros2bag/verb/play.py).
BAG_PLAY_OPTIONS = {'--rate': 1, '--topics': '+', '--delay': 1, '--remap': '+', '--clock': 1}


def _bag_play(cmd):
    """Parse a ``ros2 bag play`` command as its argument parser would; return the options."""
    assert cmd[:3] == ['ros2', 'bag', 'play'], cmd
    bag, rest = cmd[3], cmd[4:]
    assert not bag.startswith('-'), 'the bag path comes first'
    options, key = {}, None
    for part in rest:
        if part.startswith('--'):
            assert part in BAG_PLAY_OPTIONS, f'ros2 bag play has no option {part}'
            key = part
            options[key] = []
        else:
            assert key is not None, f'{part}: a value with no option'
            options[key].append(part)
            if BAG_PLAY_OPTIONS[key] == 1:
                assert len(options[key]) == 1, f'{key} takes one value'
    return bag, options


def test_replay_plays_inputs_and_answers_into_the_learner(share, monkeypatch):
    description = load_launch(share / 'launch' / 'replay.launch.py', share, monkeypatch)
    monkeypatch.setattr(description.module, 'rosbag2_installed', lambda: True)
    arguments = arguments_of(description)
    sample = share / 'bags' / 'sample_session'
    assert arguments['bag'].default_value == str(sample)
    assert (sample / 'metadata.yaml').is_file(), 'setup.py does not install the sample'
    nodes = {e.kwargs['executable']: e.kwargs for e in launched(description)}
    assert set(nodes) == {'learner_node'}
    (play,) = processes(description)
    bag, options = _bag_play(play.cmd)
    assert bag == str(sample)
    # The learner's questions are not played: it asks them again.
    assert options['--topics'] == ['/gesture_label', '/gesture_features', '/gesture_feedback']
    assert float(options['--rate'][0]) == 1.0 and float(options['--delay'][0]) > 0
    assert '--remap' not in options and '--clock' not in options
    # The learner gets the labels the bag stores (the sample's six gestures).
    assert nodes['learner_node']['parameters'][-1]['labels'] == [
        'fist', 'one', 'two', 'three', 'four', 'five']


def test_replay_with_teacher_namespace_and_sim_time(share, monkeypatch, tmp_path):
    description = load_launch(share / 'launch' / 'replay.launch.py', share, monkeypatch)
    monkeypatch.setattr(description.module, 'rosbag2_installed', lambda: True)
    given = {'teacher': 'true', 'noise': '0.1', 'namespace': 'robot1', 'use_sim_time': 'true',
             'rate': '2.5', 'delay': '0', 'labels': 'a, b', 'bag': str(tmp_path / 'mine')}
    nodes = {e.kwargs['executable']: e.kwargs for e in launched(description, **given)}
    assert set(nodes) == {'learner_node', 'teacher_node'}
    assert nodes['teacher_node']['parameters'][-1]['rho1'] == 0.1
    for kw in nodes.values():
        assert kw['namespace'] == 'robot1' and kw['parameters'][-1]['use_sim_time'] is True
        assert kw['parameters'][-1]['labels'] == ['a', 'b']
    bag, options = _bag_play(processes(description, **given)[0].cmd)
    assert bag == str(tmp_path / 'mine')
    assert options['--topics'] == ['/gesture_label', '/gesture_features']
    assert options['--remap'] == ['/gesture_label:=/robot1/gesture_label',
                                  '/gesture_features:=/robot1/gesture_features']
    assert options['--rate'] == ['2.5'] and '--delay' not in options
    assert '--clock' in options
    with pytest.raises(ValueError):
        processes(description, rate='0')


def test_replay_without_rosbag2_uses_the_packages_player(share, monkeypatch):
    description = load_launch(share / 'launch' / 'replay.launch.py', share, monkeypatch)
    monkeypatch.setattr(description.module, 'rosbag2_installed', lambda: False)
    sample = share / 'bags' / 'sample_session'
    for given in ({}, {'player': 'package'}):
        assert processes(description, **given) == []
        nodes = {e.kwargs['executable']: e.kwargs for e in launched(description, **given)}
        assert set(nodes) == {'learner_node', 'bag_player'}
        player = nodes['bag_player']['parameters'][-1]
        assert player['bag'] == str(sample) and player['answers'] == 'recorded'
        # The learner is the recorded one: its parameters from the bag's learner_config.
        learner = nodes['learner_node']['parameters'][-1]
        assert learner['labels'] == ['fist', 'one', 'two', 'three', 'four', 'five']
        assert learner['max_questions'] == 1 and learner['model_path'] == ''
    with pytest.raises(RuntimeError, match='player:=ros2bag needs rosbag2'):
        launched(description, player='ros2bag')


@pytest.mark.parametrize('installed, chosen', [(True, 'ros2bag'), (False, 'package')])
def test_replay_says_which_player_auto_chose(installed, chosen, share, monkeypatch):
    description = load_launch(share / 'launch' / 'replay.launch.py', share, monkeypatch)
    monkeypatch.setattr(description.module, 'rosbag2_installed', lambda: installed)
    context = {name: a.default_value for name, a in arguments_of(description).items()}

    def said():  # besides the DDS profile line every launch file says
        return [a.msg for a in _actions(description, context)
                if isinstance(a, LogInfo) and not a.msg.startswith('DDS profile')]
    assert len(said()) == 1 and said()[0].startswith(f'player:=auto chose {chosen}')
    context['player'] = chosen  # named by the user: nothing to say
    assert not said()


def test_replay_params_are_declared_by_their_nodes():
    from banditlearn_ros.nodes.bag_player import BagPlayerNode
    path = ROOT / 'config' / 'replay.params.yaml'
    context = Context()
    rclpy.init(context=context, args=['--ros-args', '--log-level', 'error'])
    try:
        for key in yaml.safe_load(path.read_text()):
            assert key.startswith('/**/'), key
            name = system_file.section_node(key)
            cls = BagPlayerNode if name == 'bag_player' else system.node_class(name)
            node = cls(context=context)
            unknown = set(section(path, name)) - set(node.get_parameters_by_prefix(''))
            node.destroy_node()
            assert not unknown, f'{name} does not declare {unknown}'
    finally:
        rclpy.shutdown(context=context)


@pytest.mark.parametrize('launch_file', LAUNCH_FILES)
def test_launch_gives_the_nodes_the_packages_dds_profile(launch_file, share, monkeypatch):
    """Without a profile of the user's, the launch sets the package's (installed) one."""
    for name in ('FASTDDS_DEFAULT_PROFILES_FILE', 'FASTRTPS_DEFAULT_PROFILES_FILE',
                 'RMW_IMPLEMENTATION', 'BANDITLEARN_DDS_PROFILE'):
        monkeypatch.delenv(name, raising=False)
    installed = share / 'config' / 'fastdds_profile.xml'
    assert installed.is_file(), 'setup.py does not install config/fastdds_profile.xml'
    description = load_launch(share / 'launch' / launch_file, share, monkeypatch)
    settings = [e for e in description.entities if isinstance(e, SetEnvironmentVariable)]
    assert [s.name for s in settings] == ['FASTDDS_DEFAULT_PROFILES_FILE']
    assert Path(settings[0].value).read_bytes() == installed.read_bytes()
    # Set before any node is started, and said in the launch's log.
    first_node = min(i for i, e in enumerate(description.entities)
                     if isinstance(e, (Node, OpaqueFunction)))
    assert description.entities.index(settings[0]) < first_node
    logs = [e.msg for e in description.entities
            if isinstance(e, LogInfo) and e.msg.startswith('DDS profile')]
    assert len(logs) == 1 and "the package's" in logs[0]


@pytest.mark.parametrize('launch_file', LAUNCH_FILES)
def test_launch_keeps_the_users_dds_profile(launch_file, share, monkeypatch, tmp_path):
    """A profile the user named wins: the launch sets nothing and says whose is used."""
    mine = tmp_path / 'mine.xml'
    mine.write_text('<dds/>')
    monkeypatch.setenv('FASTDDS_DEFAULT_PROFILES_FILE', str(mine))
    description = load_launch(share / 'launch' / launch_file, share, monkeypatch)
    assert not [e for e in description.entities if isinstance(e, SetEnvironmentVariable)]
    logs = [e.msg for e in description.entities
            if isinstance(e, LogInfo) and e.msg.startswith('DDS profile')]
    assert len(logs) == 1 and str(mine) in logs[0] and 'yours' in logs[0]
