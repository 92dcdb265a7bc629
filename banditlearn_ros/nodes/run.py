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
A node's life: its start line, its ``main`` (``run_node``) and its last words.

``run_node`` is every node's ``main``: a bad command line or start ends it with one readable
line, Ctrl-C and SIGTERM end it cleanly once the node has saved, and a callback's exception
never does.
"""

import gc
from typing import Callable, Optional

from banditlearn_ros.nodes.callback_guard import CallbackGuard, GuardedNode
from banditlearn_ros.support import dds_profile, shutdown
from rclpy.exceptions import ParameterException
import rclpy.logging
from rclpy.node import Node


_NOT_ANNOUNCED = ('/parameter_events', '/diagnostics', '/rosout')


def topics_line(node: Node) -> str:
    """
    Return what a node listens to and publishes, as rclpy resolved the names.

    The names are the subscriptions' and publishers' own ``topic_name``: after the
    namespace and every remapping, so the start line says where the node really is.
    """
    def names(endpoints) -> str:
        found = sorted({e.topic_name for e in endpoints
                        if not e.topic_name.endswith(_NOT_ANNOUNCED)})
        return ', '.join(found) or 'nothing'
    return f'listens to {names(node.subscriptions)}; publishes {names(node.publishers)}'


def shutdown_logger(node: Node):
    """
    Return a console-only logger for the last words of a node (saved on shutdown, ...).

    Once Ctrl-C or SIGTERM has arrived, the node's own logger can no longer publish to
    /rosout and rcl complains on every line. rclpy's signal thread shuts the context down at
    its own pace, so ``context.ok()`` can still be true a moment before a line's publish
    fails: the last words always go to the console, through a logger of the node's name plus
    ``.shutdown``.
    """
    return rclpy.logging.get_logger(f'{node.get_logger().name}.shutdown')


START_ERRORS = (ValueError, OSError, RuntimeError, ParameterException)
"""Errors that end a node at start with one readable line instead of a traceback."""


def wants_help(argv) -> bool:
    """Return True when ``-h``/``--help`` comes before any ``--ros-args``."""
    for arg in argv:
        if arg == '--ros-args':
            return False
        if arg in ('-h', '--help'):
            return True
    return False


def node_usage(label: str, doc: str) -> str:
    """Return a node's ``--help`` text: what it does and how ROS arguments are given."""
    about = (doc or '').strip().split('\n\n')[0]
    return (f'usage: {label} [--ros-args [-p NAME:=VALUE]... [--params-file FILE] '
            f'[-r FROM:=TO]...]\n\n{about}\n\n'
            f'Parameters are listed with their ranges by `ros2 param describe` on the running '
            f'node and in docs/parameters.md; the launch files take params_file:=FILE.')


def _rcl_message(exc: BaseException) -> str:
    """Return the useful part of an rcl error ("... Error: error not set, at file.c:352")."""
    text = str(exc).replace('failed to initialize rcl: ', '')
    return text.split('. Error:')[0].split(', at /')[0].strip()


def run_node(node_factory: Callable[..., Node], args=None, name: str = '',
             errors: tuple = START_ERRORS,
             until: Optional[Callable[[Node], bool]] = None) -> None:
    """
    Run a node: init, spin, clean shutdown on Ctrl-C or SIGTERM (the ``main`` of every node).

    Only start-up ends the process with an error: a bad command line, or an exception of a
    type in ``errors`` while the node is built, gives ``<name>: <message>`` on stderr and exit
    status 1. A signal ends it with status 0 once ``node.close()`` has run (1 if that returned
    False: the model could not be saved). Once running, a callback's exception is caught (by
    ``GuardedNode``, and for any other node, at the executor) and the node goes on.
    ``until(node)`` True ends the spin.
    """
    import sys

    label = name or getattr(node_factory, '__module__', 'node').rsplit('.', 1)[-1]
    argv = sys.argv[1:] if args is None else list(args)
    if wants_help(argv):
        module = sys.modules.get(getattr(node_factory, '__module__', ''), None)
        print(node_usage(label, getattr(module, '__doc__', '') or node_factory.__doc__ or ''))
        return
    shutdown.stop_on_first_signal()
    profile = dds_profile.apply()  # before the first participant: Fast DDS reads it then
    try:
        import rclpy
        from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
        from rclpy.signals import SignalHandlerOptions
        # rclpy's own handler would shut the context down from its signal thread while this
        # thread still spins, closes and destroys the node: the shutdown transition could not
        # publish ("Unable to start transition 7"), nor the log lines reach /rosout. Here the
        # signal only asks (shutdown.requested) and this thread ends everything, in order.
        rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
        rclpy.logging.get_logger(label).info(profile.line)
    except KeyboardInterrupt:  # a signal before the node exists: nothing to save
        shutdown.ignore_signals()
        sys.exit(0)
    except Exception as exc:  # noqa: B902 - rcl reports a bad --ros-args as RCLError
        print(f'{label}: bad command line: {_rcl_message(exc)}', file=sys.stderr)
        sys.exit(1)
    node = executor = None
    failure = None
    closed = True
    try:
        # Made before the node, so that a signal during the node's start cannot leave a
        # half-made executor behind (rclpy then complains as the process ends).
        executor = SingleThreadedExecutor()
        shutdown.raise_on_signal(True)  # nothing learned yet: a hanging start can be ended
        if shutdown.requested():  # asked already (during rclpy.init): build nothing
            raise KeyboardInterrupt
        node = node_factory()
        shutdown.raise_on_signal(False)  # from here a signal only asks: no half update
        if not shutdown.requested():
            _spin(node, executor, until)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except errors as exc:
        # The message, not the exception: its traceback holds the half-made node, whose
        # handles would then be freed only as the interpreter ends, after the context.
        failure = str(exc)
    finally:
        # One way out, whatever signals arrive and how often: from here on they are
        # swallowed, then ignored for good (Python's default handler, back as the
        # interpreter exits, would kill the process).
        shutdown.hold_signals()
        shutdown.raise_on_signal(False)
        if executor is not None:
            # Out of the executor before it is destroyed: a spin left between two ready
            # callbacks keeps the node's handles in use, and rclpy's destroy_node then waits
            # for them without end. shutdown() drops that half-done wait.
            if node is not None:
                executor.remove_node(node)
            executor.shutdown(timeout_sec=0)
        if node is not None:
            close = getattr(node, 'close', None)
            if close is not None:
                closed = close() is not False
            _destroy_within(node, DESTROY_WAIT, label)
        elif failure is not None:
            gc.collect()  # free a half-made node's handles while its context still lives
        if rclpy.ok():
            rclpy.shutdown()
        shutdown.ignore_signals()
    if failure is not None:
        print(f'{label}: {failure}', file=sys.stderr)
        _leave(1)
    if not closed:
        print(f'{label}: could not save on shutdown (see the log above)', file=sys.stderr)
        _leave(1)
    _leave(0)


def _leave(status: int) -> None:
    """
    End the process now: the node is closed (saved), destroyed, and rclpy is shut down.

    What the interpreter would still do is free every module (MediaPipe's, OpenCV's, the DDS
    libraries'): gesture_show_node, SIGINT at a load of 27 on 2 cores, ended 3.7 s after the
    signal that way and 1.9 s without, of a 2 s bound. The exit functions (a coverage run's)
    and the logs are flushed first; nothing else is left to do.
    """
    import atexit
    import logging
    import os
    import sys
    run_exit_functions = getattr(atexit, '_run_exitfuncs', None)
    if run_exit_functions is not None:
        run_exit_functions()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said
            pass
    os._exit(status)


DESTROY_WAIT = 3.0
"""Seconds ``destroy_node`` may take once the node has closed (saved) before the process ends."""


def _destroy_within(node: Node, seconds: float, label: str) -> None:
    """
    Destroy a closed node; end the process if that has not returned within ``seconds``.

    rclpy's ``destroy_node`` waits, in a loop with no end, until no one uses the node's
    handles: a thread that still holds one would keep a stopped node spinning a core. What
    had to be saved is saved (``close`` ran), so the process then ends with status 0.
    """
    import os
    import sys
    import threading

    done = threading.Event()

    def watchdog():
        if not done.wait(seconds):
            print(f'{label}: destroying the node took more than {seconds:g} s; '
                  f'ending the process', file=sys.stderr, flush=True)
            sys.stdout.flush()
            os._exit(0)
    threading.Thread(target=watchdog, name='destroy_watchdog', daemon=True).start()
    try:
        node.destroy_node()
    finally:
        done.set()


def _spin(node: Node, executor, until: Optional[Callable[[Node], bool]]) -> None:
    import rclpy
    from rclpy.executors import ExternalShutdownException
    executor.add_node(node)
    # A node that is not a GuardedNode still survives its callbacks: the executor re-raises a
    # callback's exception from spin_once, and it is recorded here.
    guard = node.callback_guard if isinstance(node, GuardedNode) \
        else CallbackGuard(node.get_logger())
    while rclpy.ok() and not shutdown.requested() and \
            not (until is not None and until(node)):
        try:
            executor.spin_once(timeout_sec=0.2)
        except (KeyboardInterrupt, ExternalShutdownException):
            raise
        except Exception as exc:  # noqa: B902 - a callback never ends a node
            if not rclpy.ok():  # the context ended under spin_once: not a fault
                break
            guard.record('executor', exc)
