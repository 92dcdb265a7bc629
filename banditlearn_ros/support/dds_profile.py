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
Which Fast DDS profile a process of the package uses: the user's own, else the package's.

The package ships ``config/fastdds_profile.xml`` (a shared-memory segment of 8 MiB, so a
camera frame between processes is not dropped; docs/robot.md). Fast DDS reads its profile
file from ``FASTDDS_DEFAULT_PROFILES_FILE`` once, when the process makes its first
participant, so the choice is made before ``rclpy.init``: in the node scripts (``run_node``),
in ``banditlearn_bringup`` and, as ``SetEnvironmentVariable``, in the launch files.  A profile
the user named (``FASTDDS_DEFAULT_PROFILES_FILE``, the older ``FASTRTPS_DEFAULT_PROFILES_FILE``,
or Fast DDS's default file in the working folder) wins; another middleware than Fast DDS
(``RMW_IMPLEMENTATION``) is left alone; ``BANDITLEARN_DDS_PROFILE=off`` turns the package's
off.
"""

from dataclasses import dataclass
import os
from pathlib import Path
from typing import List, Mapping, MutableMapping, Optional

PROFILE_NAME = 'fastdds_profile.xml'
"""The shipped profile's file name, in the package's ``config`` folder."""

VARIABLE = 'FASTDDS_DEFAULT_PROFILES_FILE'
"""The variable Fast DDS (2.x and 3.x) reads its profile file from."""

USER_VARIABLES = (VARIABLE, 'FASTRTPS_DEFAULT_PROFILES_FILE')
"""Variables by which a user names a profile of their own (the second: Fast DDS < 2.14)."""

DEFAULT_FILES = ('DEFAULT_FASTDDS_PROFILES.xml', 'DEFAULT_FASTRTPS_PROFILES.xml')
"""Files Fast DDS loads from the working folder without being told."""

FAST_DDS_RMWS = ('rmw_fastrtps_cpp', 'rmw_fastrtps_dynamic_cpp')
"""The middlewares built on Fast DDS; an unset ``RMW_IMPLEMENTATION`` is Fast DDS too (the
default of Jazzy, Kilted and the PyPI wheels)."""

OFF = ('off', '0', 'false', 'no', 'none')


@dataclass(frozen=True)
class Choice:
    """The profile a process uses and the start line that says so."""

    path: Optional[str]
    """The package's profile to set in ``FASTDDS_DEFAULT_PROFILES_FILE``; None = set nothing."""
    line: str
    """One line for the start of a node, the bring-up or a launch."""


def shipped_profile() -> Optional[str]:
    """Return the package's profile file: the source tree's, else the installed share's."""
    source = Path(__file__).resolve().parents[2] / 'config' / PROFILE_NAME
    if source.is_file():
        return str(source)
    try:
        from ament_index_python.packages import get_package_share_directory
        share = Path(get_package_share_directory('banditlearn_ros')) / 'config' / PROFILE_NAME
    except (ImportError, LookupError, ValueError, OSError):
        return None
    return str(share) if share.is_file() else None


def choose(environ: Mapping[str, str], shipped: Optional[str],
           cwd: Optional[str] = None) -> Choice:
    """
    Return which profile a process started with ``environ`` should use.

    Parameters
    ----------
    environ : mapping
        The process's environment (not changed).
    shipped : str or None
        The package's profile file (``shipped_profile()``); None when it is not installed.
    cwd : str, optional
        The working folder, where Fast DDS looks for its default file (default: the current).

    Returns
    -------
    Choice
        ``path`` set only when the package's profile is to be used.

    """
    rmw = environ.get('RMW_IMPLEMENTATION', '').strip()
    if rmw and rmw not in FAST_DDS_RMWS:
        return Choice(None, f'DDS profile: none set ({rmw} is not Fast DDS)')
    for name in USER_VARIABLES:
        value = environ.get(name, '')
        if value:
            if shipped and os.path.abspath(value) == os.path.abspath(shipped):
                return Choice(None, f"DDS profile: the package's, {value} ({name})")
            return Choice(None, f'DDS profile: yours, {value} ({name})')
    folder = cwd if cwd is not None else os.getcwd()
    for name in DEFAULT_FILES:
        if os.path.isfile(os.path.join(folder, name)):
            return Choice(None, f'DDS profile: yours, {name} in {folder}')
    if environ.get('BANDITLEARN_DDS_PROFILE', '').strip().lower() in OFF:
        return Choice(None, 'DDS profile: Fast DDS defaults (BANDITLEARN_DDS_PROFILE=off)')
    if shipped is None:
        return Choice(None, f'DDS profile: Fast DDS defaults ({PROFILE_NAME} not found)')
    return Choice(shipped, f"DDS profile: the package's, {shipped} (8 MiB shared-memory "
                           f'segment; set {VARIABLE} to use your own)')


def apply(environ: Optional[MutableMapping[str, str]] = None) -> Choice:
    """
    Set the package's profile in ``environ`` (default ``os.environ``) unless the user chose.

    Call before ``rclpy.init``: Fast DDS reads the variable when the first participant is made.
    """
    environ = os.environ if environ is None else environ
    choice = choose(environ, shipped_profile())
    if choice.path is not None:
        environ[VARIABLE] = choice.path
    return choice


def launch_actions() -> List[object]:
    """
    Return the launch actions that give every node of a launch file the chosen profile.

    A ``SetEnvironmentVariable`` when the package's profile is to be used, and a ``LogInfo``
    with the start line; the choice is made on the environment ``ros2 launch`` runs in.
    """
    from launch.actions import LogInfo, SetEnvironmentVariable
    choice = choose(os.environ, shipped_profile())
    actions: List[object] = [LogInfo(msg=choice.line)]
    if choice.path is not None:
        actions.insert(0, SetEnvironmentVariable(VARIABLE, choice.path))
    return actions
