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
The package's folders are its layers: imports run down, never round, and keep to public names.

Every module is parsed with ``ast`` (nothing is imported, so no DDS is needed); every
``import`` counts, at module level or inside a function, relative or absolute.  An
``importlib.import_module`` of a name held in a string is beyond a static scan.

Each top-level folder of the package is one layer (``FOLDERS``, the one place that says
which), lowest first; a module imports only from its own layer or lower ones:

0. foundation: the package root's own files (its ``__version__``, ``parameter_spec``);
1. core: ``learning/`` and ``vision/``, plain Python on numpy/scipy/OpenCV; neither imports
   the other (``test_layers`` checks that they never import rclpy);
2. library: what the nodes and the programs share: ``support/`` (command line, signals, DDS
   profile, launch arguments, image messages), ``bags/`` (rosbag2 without ROS, and its
   rclpy recorder and player), ``page/``, ``systems/`` (system files, the bring-up's options),
   ``console/`` (a session's terminal view and report), ``evaluation/`` (what
   ``banditlearn_evaluate`` runs);
3. nodes: ``nodes/``;
4. programs: ``bringup/`` and ``tools/``, the commands a user runs.

No two folders import each other, at any depth (``learning/protocol`` and
``learning/storage`` included), so every folder can be read after the ones it uses.  A
package's ``__init__`` is its face (it hands its folder's names on) and is left out of that
rule.  A new top-level folder must be placed in ``FOLDERS`` (the test says so).  No module
uses another module's ``_private`` names (no exceptions).
"""

import ast
from pathlib import Path
from typing import Dict, List, Set, Tuple

PACKAGE = 'banditlearn_ros'
SOURCE = Path(__file__).resolve().parents[1] / PACKAGE

FOUNDATION, CORE, LIBRARY, NODES, PROGRAMS = range(5)
LAYER_NAMES = ('foundation', 'core', 'library', 'nodes', 'programs')

# Each top-level folder of the package and its layer; '' is the package root's own files.
FOLDERS: Dict[str, int] = {
    '': FOUNDATION,
    'learning': CORE,
    'vision': CORE,
    'support': LIBRARY,
    'bags': LIBRARY,
    'page': LIBRARY,
    'systems': LIBRARY,
    'console': LIBRARY,
    'evaluation': LIBRARY,
    'nodes': NODES,
    'bringup': PROGRAMS,
    'tools': PROGRAMS,
}

# Packages of one layer that must not import each other.
SEPARATE = ((f'{PACKAGE}.learning', f'{PACKAGE}.vision'),)

# Underscore names that are public by their library's documentation (os._exit, the
# namedtuple methods), not another module's private parts.
DOCUMENTED_PUBLIC = frozenset({'_exit', '_asdict', '_replace', '_fields', '_make'})


def _modules() -> Dict[str, Tuple[Path, bool]]:
    """Map every module's dotted name to its file and whether it is a package."""
    out = {}
    for path in sorted(SOURCE.rglob('*.py')):
        parts = list(path.relative_to(SOURCE.parent).with_suffix('').parts)
        package = parts[-1] == '__init__'
        if package:
            parts.pop()
        out['.'.join(parts)] = (path, package)
    return out


MODULES = _modules()
TREES = {name: ast.parse(path.read_text(encoding='utf-8'), str(path))
         for name, (path, _) in MODULES.items()}


def _known(name: str) -> str:
    """Return the longest module of the package that ``name`` is or lies in."""
    while name not in MODULES:
        name = name.rpartition('.')[0]
    return name


def _from_module(name: str, package: bool, node: ast.ImportFrom) -> str:
    """Return the absolute name of the module a ``from ... import`` in ``name`` reads."""
    if not node.level:
        return node.module or ''
    base = name.split('.') if package else name.split('.')[:-1]
    base = base[:len(base) - node.level + 1]
    return '.'.join(base + ([node.module] if node.module else []))


def _imports(name: str) -> Dict[str, int]:
    """Return the package modules ``name`` imports, each with the line of its first import."""
    package = MODULES[name][1]
    out: Dict[str, int] = {}
    for node in ast.walk(TREES[name]):
        targets: List[str] = []
        if isinstance(node, ast.Import):
            targets = [_known(a.name) for a in node.names if a.name.split('.')[0] == PACKAGE]
        elif isinstance(node, ast.ImportFrom):
            module = _from_module(name, package, node)
            if module.split('.')[0] != PACKAGE:
                continue
            # 'from pkg import name': the submodule pkg.name if there is one, else pkg itself.
            targets = [f'{module}.{a.name}' if f'{module}.{a.name}' in MODULES
                       else _known(module) for a in node.names]
        for target in targets:
            if target != name:
                out.setdefault(target, node.lineno)
    return out


GRAPH = {name: _imports(name) for name in MODULES}


def _top_folder(name: str) -> str:
    """Return the package's top-level folder ``name`` lies in ('' for the root's own files)."""
    parts = name.split('.')[1:]
    if not parts:
        return ''
    return parts[0] if len(parts) > 1 or MODULES[name][1] else ''


def _layer(name: str) -> int:
    return FOLDERS[_top_folder(name)]


def _folder(name: str) -> str:
    """Return the folder a module's file is in, as a dotted name (a package: its own)."""
    return name if MODULES[name][1] else name.rpartition('.')[0]


def _circles(graph: Dict[str, Dict[str, int]]) -> List[List[str]]:
    """Return the strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    groups: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def _private_uses(name: str) -> List[Tuple[str, int, str]]:
    """
    Return (name, line, code) for each private name of another module that ``name`` uses.

    Counted: ``from module import _name``; ``module._name`` for a module this one imports;
    and ``obj._name`` where ``obj`` is not ``self``, ``cls`` or ``super()`` and this module
    defines no ``_name`` (a method, a class, an attribute it assigns, or a module or class
    level name): an attribute the module defines belongs to its own objects, such as another
    instance of its class, which a static scan cannot tell apart by type.
    """
    tree = TREES[name]
    package = MODULES[name][1]
    own, modules = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
            if isinstance(node, ast.ClassDef):
                own.update(_assigned(node.body))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            own.add(node.attr)
        elif isinstance(node, ast.Global):
            own.update(node.names)
        elif isinstance(node, ast.Import):
            modules.update(a.asname or a.name.split('.')[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _from_module(name, package, node)
            modules.update(a.asname or a.name for a in node.names
                           if f'{module}.{a.name}' in MODULES)
    own.update(_assigned(tree.body))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found += [(a.name, node.lineno, f'from {"." * node.level}{node.module or ""} '
                       f'import {a.name}') for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Attribute) and _private(node.attr) \
                and not _self_or_super(node.value):
            of_module = isinstance(node.value, ast.Name) and node.value.id in modules
            if of_module or node.attr not in own:
                found.append((node.attr, node.lineno, ast.unparse(node)))
    return found


def _assigned(body: List[ast.stmt]) -> Set[str]:
    """Return the names a module's or a class's own statements assign."""
    out = set()
    for statement in body:
        targets = statement.targets if isinstance(statement, ast.Assign) else \
            [statement.target] if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            out.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return out


def _private(name: str) -> bool:
    return name.startswith('_') and not name.startswith('__') and name not in DOCUMENTED_PUBLIC


def _self_or_super(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in ('self', 'cls')
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id == 'super'


def test_every_folder_has_a_layer():
    unplaced = sorted({_top_folder(name) for name in MODULES} - set(FOLDERS))
    assert not unplaced, f'place these folders in FOLDERS: {unplaced}'
    assert set(FOLDERS) <= {_top_folder(name) for name in MODULES}, 'a folder that is gone'


def test_the_layers_run_up_the_folders():
    # The root's own files are the foundation; each folder is one layer.
    assert _layer(PACKAGE) == _layer(f'{PACKAGE}.parameter_spec') == FOUNDATION
    assert _layer(f'{PACKAGE}.bags') == _layer(f'{PACKAGE}.bags.reader') == LIBRARY
    assert _layer(f'{PACKAGE}.tools.bag') == _layer(f'{PACKAGE}.bringup.main') == PROGRAMS
    assert _folder(f'{PACKAGE}.learning.protocol') == f'{PACKAGE}.learning.protocol'
    assert _folder(f'{PACKAGE}.learning.protocol.labels') == f'{PACKAGE}.learning.protocol'


def test_the_scan_sees_function_level_and_relative_imports():
    # The scan must count what a module-level-only scan would miss, or it proves nothing.
    # in cmd_record:
    assert f'{PACKAGE}.bags.rclpy_record' in GRAPH[f'{PACKAGE}.tools.bag_commands']
    persistence = f'{PACKAGE}.learning.storage.persistence'
    assert f'{PACKAGE}.learning.algorithms.registry' in GRAPH[persistence]
    assert PACKAGE in GRAPH[persistence]  # from ... import __version__
    assert GRAPH[f'{PACKAGE}.learning'].keys() >= {
        persistence, f'{PACKAGE}.learning.algorithms.registry'}


def test_the_circle_finder_finds_circles():
    graph = {'a': {'b': 1}, 'b': {'c': 1}, 'c': {'a': 1, 'd': 1}, 'd': {}, 'e': {'e': 1}}
    assert _circles(graph) == [['a', 'b', 'c']]


def test_no_import_circle():
    circles = _circles(GRAPH)
    assert not circles, 'modules that import each other (directly or around a circle): ' + \
        '; '.join(' <-> '.join(group) for group in circles)


def _folder_graph() -> Dict[str, Dict[str, str]]:
    """Return folder -> {folder it imports: the first import that says so}, faces left out."""
    out: Dict[str, Dict[str, str]] = {}
    for name, imports in GRAPH.items():
        if MODULES[name][1]:
            continue
        own = out.setdefault(_folder(name), {})
        for target, line in imports.items():
            if not MODULES[target][1] and _folder(target) != _folder(name):
                own.setdefault(_folder(target), f'{name}:{line} imports {target}')
    for imported in list(out.values()):
        for folder in imported:
            out.setdefault(folder, {})
    return out


def test_no_two_folders_import_each_other():
    folders = _folder_graph()
    circles = _circles(folders)
    why = ['; '.join(folders[a][b] for a in group for b in group if b in folders[a])
           for group in circles]
    assert not circles, 'folders that import each other: ' + ' | '.join(why)


def test_the_folder_graph_sees_subfolders():
    folders = _folder_graph()
    live, protocol = f'{PACKAGE}.learning.live', f'{PACKAGE}.learning.protocol'
    assert protocol in folders[live] and live not in folders[protocol]
    assert _circles({'a': {'b': ''}, 'b': {'a': ''}}) == [['a', 'b']]


def test_no_import_from_a_lower_layer_into_a_higher_one():
    upward = []
    for name, imports in GRAPH.items():
        for target, line in imports.items():
            if _layer(target) > _layer(name):
                upward.append(f'{MODULES[name][0].relative_to(SOURCE.parent)}:{line}: '
                              f'{LAYER_NAMES[_layer(name)]} {name} imports '
                              f'{LAYER_NAMES[_layer(target)]} {target}')
    assert not upward, '\n'.join(upward)


def test_separate_packages_do_not_import_each_other():
    crossing = []
    for name, imports in GRAPH.items():
        for first, second in SEPARATE:
            for own, other in ((first, second), (second, first)):
                if name == own or name.startswith(own + '.'):
                    crossing += [f'{name} imports {t}' for t in imports
                                 if t == other or t.startswith(other + '.')]
    assert not crossing, crossing


def test_no_module_uses_another_modules_private_names():
    uses = {}
    for name in MODULES:
        for private, line, code in _private_uses(name):
            uses.setdefault((name, private), []).append(
                f'{MODULES[name][0].relative_to(SOURCE.parent)}:{line}: {code}')
    found = [where for _, wheres in sorted(uses.items()) for where in wheres]
    assert not found, 'use a public name (or add one to the module that owns it):\n' + \
        '\n'.join(found)


def test_the_private_scan_sees_a_reach_through():
    probe = f'{PACKAGE}.learning.algorithms.probe'
    source = ('import os\nfrom . import reductions as kernels\nfrom y import _z\n'
              '_dot = None\n\nclass A:\n    _table = {}\n\n'
              'def f(a):\n    _tail = a._tail\n    self._own = a._lock\n'
              '    return a._own, a._table, a._dot, kernels._dot, super()._p, os._exit\n')
    MODULES[probe] = (SOURCE / 'learning' / 'algorithms' / 'probe.py', False)
    TREES[probe] = ast.parse(source)
    try:
        found = sorted((n, code) for n, _, code in _private_uses(probe))
    finally:
        del TREES[probe], MODULES[probe]
    # A module's private is never this module's own, even under a name it also defines;
    # a local variable (_tail) does not make another object's _tail this module's own.
    assert found == [('_dot', 'kernels._dot'), ('_lock', 'a._lock'), ('_tail', 'a._tail'),
                     ('_z', 'from y import _z')]


MODULE_LINES = 450  # past this, a module holds more than one responsibility
NODE_LINES = {f'{PACKAGE}.nodes.learner_node': 220}  # a node converts; behaviour lives below
# A module past MODULE_LINES is held here at its size, by name, until it is split (none
# now); its entry goes once it is under MODULE_LINES, and it may not grow meanwhile.
STILL_LONG = {}


def test_modules_stay_small():
    too_long = []
    for name, (path, _) in sorted(MODULES.items()):
        lines = len(path.read_text().splitlines())
        limit = NODE_LINES.get(name, STILL_LONG.get(name, MODULE_LINES))
        if lines > limit:
            too_long.append(f'{path.relative_to(SOURCE.parent)}: {lines} lines (at most {limit})')
    assert not too_long, 'split by responsibility:\n' + '\n'.join(too_long)
    assert set(NODE_LINES) | set(STILL_LONG) <= set(MODULES), \
        'a limit for a module that no longer exists'
