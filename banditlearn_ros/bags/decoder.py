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

"""Decode messages with the bag's own definitions, falling back to the built-in ROS 2 types."""

from typing import Any, Dict, Iterator, List, Tuple

from .errors import short_error as _short


def _kind(msgtype: str) -> str:
    if '/srv/' in msgtype and msgtype.endswith('_Event'):
        return 'service-event type'
    if '/srv/' in msgtype or '/action/' in msgtype:
        return 'service/action type'
    return 'type'


_BUILTIN = {}


def builtin_typestore():
    """Return rosbags' built-in ROS 2 type store (Kilted when this rosbags knows it)."""
    if 'store' not in _BUILTIN:
        from rosbags.typesys import get_typestore, Stores
        name = 'ROS2_KILTED' if hasattr(Stores, 'ROS2_KILTED') else 'LATEST'
        _BUILTIN['store'] = get_typestore(getattr(Stores, name))
        _BUILTIN['name'] = name.replace('ROS2_', 'ROS 2 ').title().replace('Ros', 'ROS')
    return _BUILTIN['store']


def _builtin_name() -> str:
    builtin_typestore()
    return _BUILTIN['name']


def _referenced(fielddefs, names) -> Iterator[str]:
    """Yield the type names the given types' fields refer to."""
    from rosbags.interfaces import Nodetype
    for name in names:
        for _, node in fielddefs[name][1]:
            while node[0] in (Nodetype.ARRAY, Nodetype.SEQUENCE):
                node = node[1][0]
            if node[0] == Nodetype.NAME:
                yield node[1]


def _parse_definition(conn) -> Dict[str, Any]:
    """Parse a connection's embedded definition (msg or idl) into rosbags field definitions."""
    from rosbags.interfaces import MessageDefinitionFormat
    from rosbags.typesys import get_types_from_idl, get_types_from_msg
    data = conn.msgdef.data
    if conn.msgdef.format == MessageDefinitionFormat.MSG:
        if any(line.strip() == '---' for line in data.splitlines()):
            raise ValueError('it holds a request/response (.srv) text, not a message definition')
        return dict(get_types_from_msg(data, conn.msgtype))
    sep = '=' * 80 + '\n'
    types = {}
    if data.startswith(sep + 'IDL: '):
        for part in data.split(sep)[1:]:
            types.update(get_types_from_idl(part.split('\n', 1)[1]))
    else:
        types.update(get_types_from_idl(data))
    return types


class Decoder:
    """Decode one type's messages: the bag's own definition first, then the built-in one."""

    def __init__(self, conn):
        from rosbags.interfaces import MessageDefinitionFormat
        from rosbags.typesys import get_typestore, Stores
        self.msgtype = conn.msgtype
        self.candidates: List[Tuple[str, Any]] = []
        self.notes: List[str] = []
        self.problem = ''
        builtin = builtin_typestore()
        kind = _kind(conn.msgtype)
        embedded_error = ''
        if conn.msgdef.format == MessageDefinitionFormat.NONE:
            embedded_error = 'the bag holds no definition of it'
        else:
            try:
                types = _parse_definition(conn)
                # Fill in types the definition names but does not define (placeholders do that).
                pending = [conn.msgtype] if conn.msgtype in types else []
                seen = set(pending)
                while pending:
                    for ref in _referenced(types, [pending.pop()]):
                        if ref not in types and ref in builtin.fielddefs:
                            types[ref] = builtin.fielddefs[ref]
                        if ref in types and ref not in seen:
                            seen.add(ref)
                            pending.append(ref)
                if conn.msgtype not in types:
                    raise ValueError(f'it does not define {conn.msgtype}')
                store = get_typestore(Stores.EMPTY)
                store.register(types)
                self.candidates.append(('embedded', store))
            except Exception as err:  # rosbags raises several types for bad text
                embedded_error = f"the bag's definition of it cannot be parsed ({_short(err)})"
        if conn.msgtype in builtin.fielddefs:
            self.candidates.append(('builtin', builtin))
            if embedded_error:
                self.notes.append(f'{embedded_error}; decoded with the built-in '
                                  f'{_builtin_name()} definition')
        elif not self.candidates:
            self.problem = (f'{kind} {conn.msgtype} is not in the type store: {embedded_error}, '
                            f"and rosbags' built-in {_builtin_name()} types do not include it")
        self.embedded_text = conn.msgdef.data.strip()

    def decode(self, raw: bytes) -> Tuple[Any, str]:
        """Return (message, '') or (None, reason); switch to a definition that works."""
        errors = []
        for index, (origin, store) in enumerate(self.candidates):
            try:
                msg = store.deserialize_cdr(raw, self.msgtype)
            except Exception as err:  # a definition that does not fit raises many types
                errors.append(f'{origin} definition: {_short(err, 100)}')
                continue
            if index:
                dropped = self.candidates[:index]
                self.candidates = self.candidates[index:]
                if dropped[0][0] == 'embedded':
                    text = ' '.join(self.embedded_text.split())
                    text = text if len(text) <= 60 else text[:57] + '...'
                    self.notes.append(
                        f"the bag's definition of {self.msgtype} ({text!r}) does not match its "
                        f'data (a placeholder?); decoded with the built-in {_builtin_name()} '
                        'definition instead')
            return msg, ''
        if not self.candidates:
            return None, self.problem
        return None, 'cannot decode: ' + '; '.join(errors)
