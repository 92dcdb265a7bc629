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

"""banditlearn_ros: teach a robot gestures with yes/no (online learning from one bit)."""

__version__ = '0.1.0'


def _quiet_until_started() -> None:
    """
    End a node's script signalled while it still imports at once, quietly, with status 0.

    ``ros2 launch`` and a terminal's Ctrl-C can signal a node before ``run_node`` exists:
    Python would print a KeyboardInterrupt traceback from deep in an import. Nothing is
    learned yet, so nothing is lost; ``run_node`` replaces this handler with its own. This
    is the first code of the package a node's script runs, and it imports nothing that is
    not loaded already (``_signal`` is built in; ``os`` and ``sys`` came with the
    interpreter), so no module has to be read from disk before the handler is in place.
    A signal before it (while the interpreter itself starts and runs the environment's
    ``.pth`` files) is Python's own.
    """
    import _signal
    import sys
    script = sys.argv[0].replace('\\', '/').rpartition('/')[2] if sys.argv else ''
    if script.removesuffix('.exe') not in _NODE_SCRIPTS:
        return
    try:
        for signum in (_signal.SIGINT, _signal.SIGTERM):
            _signal.signal(signum, _quiet_exit)
    except ValueError:  # not the main thread: the script's own start installs nothing here
        pass


def _quiet_exit(signum, frame):
    import os
    os._exit(0)


_NODE_SCRIPTS = ('learner_node', 'teacher_node', 'dataset_node', 'camera_node',
                 'feedback_node', 'gesture_show_node', 'face_show_node', 'image_source_node',
                 'bag_player', 'page_node')
_quiet_until_started()
