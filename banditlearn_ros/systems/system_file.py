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
System files: which nodes a bring-up starts, with which parameter files and overrides.

A system is a YAML file (``config/<name>.system.yaml``) naming the nodes, the parameter
files (the same ``config/params.yaml`` the launch files read) and per-node overrides.
Reading and checking one needs no ROS, so every mistake in it is reported before any node
starts, as one line (``BringupError``).
"""

import os
from pathlib import Path
from typing import Any, Dict, List, Optional

from banditlearn_ros.support.bounded_files import read_bounded
import yaml

DEFAULT_SYSTEM = 'gestures'
CAMERA_SYSTEM = 'camera'
SYSTEM_SUFFIX = '.system.yaml'
_ENTRY_KEYS = {'node', 'name', 'parameters', 'remappings'}
_SYSTEM_KEYS = {'description', 'params_files', 'nodes', 'report'}


class BringupError(Exception):
    """A problem the user can fix; printed as one line."""


def config_dirs() -> List[Path]:
    """Return where system and parameter files are looked for: source tree, then share."""
    dirs = []
    source = Path(__file__).resolve().parents[2] / 'config'
    if source.is_dir():
        dirs.append(source)
    try:
        from ament_index_python.packages import get_package_share_directory
        share = Path(get_package_share_directory('banditlearn_ros')) / 'config'
        if share.is_dir() and share not in dirs:
            dirs.append(share)
    except (ImportError, LookupError, ValueError, OSError):
        pass
    return dirs


DATASET_PARAMS = 'datasets'
"""Folder (in config/) of the learner settings tuned per built-in data set."""


def dataset_params_file(dataset: str, folders: Optional[List[Path]] = None) -> Optional[Path]:
    """
    Return the shipped learner settings tuned for a built-in data set (digits, wine, iris).

    ``<config>/datasets/<name>.params.yaml`` in ``folders`` (default ``config_dirs()``),
    written by ``banditlearn_evaluate --params-out``; None for a data set file or a name
    with no such file.
    """
    if not dataset.replace('_', '').replace('-', '').isalnum():
        return None  # a path (or a synsep:N spec): no shipped settings
    for folder in config_dirs() if folders is None else folders:
        candidate = folder / DATASET_PARAMS / f'{dataset}.params.yaml'
        if candidate.is_file():
            return candidate
    return None


def find_system(name_or_path: str) -> Path:
    """Return the system file for a name (``teach_sim``) or a path."""
    path = Path(name_or_path).expanduser()
    if path.suffix in ('.yaml', '.yml') or os.sep in name_or_path:
        if not path.is_file():
            raise BringupError(f'system file {path} does not exist')
        return path
    for folder in config_dirs():
        candidate = folder / (name_or_path + SYSTEM_SUFFIX)
        if candidate.is_file():
            return candidate
    raise BringupError(f'no system {name_or_path!r}; known: {", ".join(list_systems()) or "none"}')


def list_systems() -> List[str]:
    """Return the names of the systems shipped in the config folders."""
    names = set()
    for folder in config_dirs():
        names.update(p.name[:-len(SYSTEM_SUFFIX)] for p in folder.glob('*' + SYSTEM_SUFFIX))
    return sorted(names)


MAX_YAML_BYTES = 2 ** 22
"""Largest system or parameter file read (4 MiB; the shipped ones take a few kB)."""


def read_yaml(path: Path) -> Any:
    """
    Return what a YAML file holds; an unreadable, invalid or huge file is a BringupError.

    Only a regular file of at most ``MAX_YAML_BYTES`` is read: ``/dev/zero``, a FIFO or a
    file of gigabytes named as a parameter file is refused before anything is read.
    """
    try:
        data = read_bounded(path, MAX_YAML_BYTES, 'parameter or system file', BringupError)
        return yaml.safe_load(data.decode('utf-8'))
    except UnicodeDecodeError as exc:
        raise BringupError(f'{path}: not UTF-8 text ({exc.reason})') from None
    except yaml.YAMLError as exc:
        raise BringupError(f'{path}: not valid YAML ({str(exc).splitlines()[0]})') from None


def load_system(path: Path) -> Dict[str, Any]:
    """Read and check a system file; paths in it become absolute."""
    system = read_yaml(path)
    if not isinstance(system, dict) or not isinstance(system.get('nodes'), list) \
            or not system['nodes']:
        raise BringupError(f'{path}: a system needs a non-empty list under "nodes"')
    unknown = set(system) - _SYSTEM_KEYS
    if unknown:
        raise BringupError(
            f'{path}: unknown keys {sorted(unknown)}; allowed {sorted(_SYSTEM_KEYS)}')
    entries, names = [], set()
    for raw in system['nodes']:
        if isinstance(raw, str):
            raw = {'node': raw}
        if not isinstance(raw, dict) or not isinstance(raw.get('node'), str):
            raise BringupError(f'{path}: each node entry needs "node: <name>", got {raw!r}')
        bad = set(raw) - _ENTRY_KEYS
        if bad:
            raise BringupError(f'{path}: node {raw["node"]}: unknown keys {sorted(bad)}')
        entry = {'node': raw['node'],
                 'name': raw.get('name') or raw['node'].split(':')[-1].split('.')[-1],
                 'parameters': dict(raw.get('parameters') or {}),
                 'remappings': dict(raw.get('remappings') or {})}
        if entry['name'] in names:
            raise BringupError(f'{path}: two nodes are named {entry["name"]!r}')
        names.add(entry['name'])
        entries.append(entry)
    files = system.get('params_files') or []
    if isinstance(files, str):
        files = [files]
    params_files = [(path.parent / Path(f).expanduser()).resolve() for f in files]
    report = system.get('report') or {}
    return {'path': path, 'description': system.get('description', ''),
            'params_files': params_files, 'nodes': entries,
            'every': int(report.get('every', 100))}


def section_node(key: str) -> str:
    """
    Return the node name a parameter-file section is for; ``'*'`` for every node.

    ``learner_node``, ``/learner_node``, ``/robot1/learner_node`` and ``/**/learner_node``
    all name learner_node (rcl matches the namespace; the bring-up runs one node per name);
    ``/**`` and ``/*`` apply to every node.
    """
    last = str(key).strip('/').split('/')[-1]
    return '*' if last in ('**', '*', '') else last


def base_values(params_files: List[Path]) -> Dict[str, Dict[str, Any]]:
    """Return ``{node name or '*': {parameter: value}}`` from the files, later ones winning."""
    values: Dict[str, Dict[str, Any]] = {}
    for path in params_files:
        data = read_yaml(path) or {}
        if not isinstance(data, dict):
            raise BringupError(f'{path}: a parameter file maps node names to sections')
        for node, section in data.items():
            params = (section or {}).get('ros__parameters', {}) if isinstance(section, dict) \
                else {}
            values.setdefault(section_node(node), {}).update(params or {})
    return values


def file_value(params_files: List[Path], node: str, key: str, default: Any = None) -> Any:
    """Return what the parameter files give ``node``'s ``key`` (a node section beats ``/**``)."""
    base = base_values(params_files)
    for section in (node, '*'):
        if key in base.get(section, {}):
            return base[section][key]
    return default


def coerce(value: Any, like: Any) -> Any:
    """Keep a parameter's type: an int given where the files hold a float becomes a float."""
    if isinstance(like, float) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value
