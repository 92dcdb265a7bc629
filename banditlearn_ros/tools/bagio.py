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
Read and write rosbag2 recordings (MCAP and sqlite3) without a ROS installation.

Built on the ``rosbags`` library, so ``ros2 bag record/play`` on a robot and this package
exchange the same files.  Reading is defensive because real bags have quirks: a folder
whose metadata.yaml disagrees with its data file (opening the folder would yield no
messages) is read from its data files instead; an embedded message definition that does
not match the data (a placeholder) is replaced by the built-in ROS 2 definition; a type
that cannot be decoded at all (e.g. a service-event type with no usable definition) is
reported per topic with the reason while every other topic is read.  Nothing here imports
rclpy.
"""

from dataclasses import dataclass, field
import heapq
import io
import json
import os
from pathlib import Path
import shutil
import tempfile
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import yaml

PathLike = Union[str, os.PathLike]

DATA_SUFFIXES = {'.mcap': 'mcap', '.db3': 'sqlite3'}
STORAGES = ('mcap', 'sqlite3')

FEATURES_TYPE = 'std_msgs/msg/Float32MultiArray'
LABEL_TYPE = 'std_msgs/msg/String'
FEEDBACK_TYPE = 'std_msgs/msg/Bool'

# Keys this package stores in metadata.yaml custom_data (ignored by ros2 bag).
CUSTOM_LABELS = 'banditlearn_ros.labels'
CUSTOM_FEATURE_SET = 'banditlearn_ros.feature_set'

# Metadata version 8 is what rosbag2 on Jazzy writes; Jazzy and Kilted both read it.
METADATA_VERSION = 8

# ros2 bag record stores "infinite" durations like this on Iron and later.
_INFINITE = (9223372036, 854775807)


class BagError(Exception):
    """A recording that cannot be opened, read or written; the message says which and why."""


@dataclass
class TopicInfo:
    """
    One topic of a bag, and what reading it found.

    ``count`` is what the storage index (metadata.yaml or the data file) lists; ``read``,
    ``decoded`` and ``failed`` are filled in while messages are read (``Bag.check`` reads
    them all).  ``problems`` say why messages cannot be read, ``notes`` which quirk was
    worked around.
    """

    name: str
    msgtype: str
    count: int
    qos: List[Dict[str, Any]] = field(default_factory=list)
    read: int = 0
    decoded: int = 0
    failed: int = 0
    problems: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    @property
    def readable(self) -> bool:
        """Return True when no problem is known that stops its messages being decoded."""
        return not self.problems

    def as_dict(self) -> Dict[str, Any]:
        """Return a JSON-friendly summary."""
        return {'name': self.name, 'type': self.msgtype, 'count': self.count,
                'read': self.read, 'decoded': self.decoded, 'failed': self.failed,
                'qos': self.qos, 'problems': list(self.problems), 'notes': list(self.notes)}


@dataclass
class BagMessage:
    """One message: topic, type, receive time in ns, decoded message (or None), raw CDR."""

    topic: str
    msgtype: str
    stamp_ns: int
    msg: Any
    raw: bytes


def _short(err: BaseException, limit: int = 160) -> str:
    """Return the first line of an error, shortened for a one-line report."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return text if len(text) <= limit else text[:limit - 3] + '...'


def _qos_dict(qos) -> Dict[str, Any]:
    """Return a rosbags Qos as a plain dict (enum names, durations as [sec, nsec])."""
    out = {}
    for key, value in qos._asdict().items():
        if hasattr(value, 'name'):
            out[key] = value.name
        elif isinstance(value, tuple):
            out[key] = list(value)
        else:
            out[key] = value
    return out


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


class _Decoder:
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


def _conn_key(conn) -> Tuple:
    return (conn.msgtype, conn.msgdef.format, conn.msgdef.data)


def _same_stream(meta, data) -> bool:
    """Return True when rosbags would map the data file's connection to the metadata one."""
    return (meta.topic == data.topic and meta.msgtype == data.msgtype and meta.ext == data.ext
            and (not meta.digest or not data.digest or meta.digest == data.digest))


def _difference(meta, candidates) -> str:
    same_topic = [c for c in candidates if c.topic == meta.topic]
    if not same_topic:
        return 'the data files hold no such topic'
    other = same_topic[0]
    if other.msgtype != meta.msgtype:
        return f'type {meta.msgtype} vs {other.msgtype}'
    if other.ext != meta.ext:
        if other.ext.serialization_format != meta.ext.serialization_format:
            return 'serialization format differs'
        return 'offered QoS profiles differ'
    return 'type hash differs'


class Bag:
    """
    An open rosbag2 recording: a folder with metadata.yaml, or one .mcap/.db3 file.

    Use as a context manager.  ``topics`` holds what the index lists, ``notes`` the
    recording-level quirks worked around; ``messages`` reads, ``check`` reads everything
    so the per-topic counts and problems are complete.

    Parameters
    ----------
    path : str or os.PathLike
        A rosbag2 folder, its metadata.yaml, or a single .mcap/.db3 data file.

    """

    def __init__(self, path: PathLike):
        self.path = Path(path)
        self.notes: List[str] = []
        self.problems: List[str] = []
        self.files: List[Path] = []
        self.storage = ''
        self.custom_data: Dict[str, str] = {}
        self.metadata_count: Optional[int] = None
        self._readers: List[Any] = []
        self._decoders: Dict[Tuple, _Decoder] = {}
        self._observed: Optional[Tuple[int, int]] = None
        self._span = (2 ** 63 - 1, -1)
        self.topics: Dict[str, TopicInfo] = {}
        try:
            self._open()
        except BagError:
            self.close()
            raise
        except Exception as err:  # rosbags raises many types on a damaged file
            self.close()
            raise BagError(f'{self.path}: cannot open ({_short(err)})') from None
        self._index_topics()

    # ------------------------------------------------------------------ opening
    def _open(self) -> None:
        path = self.path
        if not path.exists():
            raise BagError(f'{path}: no such file or folder')
        if path.is_file() and path.name == 'metadata.yaml':
            self.path = path = path.parent
        if path.is_dir():
            self._open_folder(path)
        elif path.suffix in DATA_SUFFIXES:
            self.storage = DATA_SUFFIXES[path.suffix]
            self.files = [path]
            self._readers = [self._reader(path)]
        elif path.suffix == '.bag':
            raise BagError(f'{path}: a ROS 1 bag; convert it first with rosbags-convert')
        else:
            raise BagError(f'{path}: not a rosbag2 recording (use a folder with metadata.yaml '
                           'or a .mcap / .db3 file)')

    def _reader(self, path: Path):
        from rosbags.rosbag2 import Reader
        reader = Reader(path)
        try:
            reader.open()
        except Exception as err:  # one clear line for a damaged or foreign file
            raise BagError(f'{path}: cannot open as {DATA_SUFFIXES.get(path.suffix, "rosbag2")}'
                           f' ({_short(err)})') from None
        return reader

    def _open_folder(self, folder: Path) -> None:
        meta_path = folder / 'metadata.yaml'
        data_files = sorted(p for p in folder.iterdir() if p.suffix in DATA_SUFFIXES)
        if not meta_path.is_file():
            if not data_files:
                raise BagError(f'{folder}: not a rosbag2 folder (no metadata.yaml and no '
                               '.mcap / .db3 file)')
            self.files = data_files
            self.storage = DATA_SUFFIXES[data_files[0].suffix]
            self._readers = [self._reader(p) for p in data_files]
            self.notes.append('no metadata.yaml: read the data files directly ('
                              + ', '.join(p.name for p in data_files) + ')')
            return
        try:
            meta = yaml.safe_load(meta_path.read_text(encoding='utf-8'))
            info = meta['rosbag2_bagfile_information']
            listed = [folder / Path(p).name for p in info.get('relative_file_paths', [])]
            self.storage = str(info.get('storage_identifier', ''))
            self.custom_data = dict(info.get('custom_data') or {})
            self.metadata_count = int(info.get('message_count', 0))
            compressed = bool(info.get('compression_mode')) and \
                str(info.get('compression_mode')).lower() != 'none'
        except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError) as err:
            raise BagError(f'{meta_path}: not a readable rosbag2 metadata file '
                           f'({_short(err)})') from None
        self.files = listed or data_files
        folder_reader = self._reader(folder)
        self._readers = [folder_reader]
        if compressed:
            return
        mismatched = self._mismatched(folder_reader)
        if not mismatched:
            return
        # rosbags (like rosbag2) maps the data file's streams to metadata.yaml's topics;
        # where they disagree those messages are silently skipped, so read the files.
        lost = sum(c.msgcount for c, _ in mismatched)
        detail = '; '.join(f'{c.topic}: {why}' for c, why in mismatched)
        folder_reader.close()
        self._readers = [self._reader(p) for p in self.files]
        names = ', '.join(p.name for p in self.files)
        self.notes.append(
            f'metadata.yaml and the data file ({names}) disagree ({detail}), so opening the '
            f'folder would yield 0 of those {lost} messages; read the data file directly '
            'instead')

    def _mismatched(self, folder_reader) -> List[Tuple[Any, str]]:
        """Return the metadata topics with messages that no data-file stream matches."""
        file_conns = []
        for path in self.files:
            if path.suffix not in DATA_SUFFIXES:
                return []
            reader = self._reader(path)
            try:
                file_conns.extend(reader.connections)
            finally:
                reader.close()
        out = []
        for conn in folder_reader.connections:
            if conn.msgcount and not any(_same_stream(conn, c) for c in file_conns):
                out.append((conn, _difference(conn, file_conns)))
        return out

    def _index_topics(self) -> None:
        for reader in self._readers:
            for conn in reader.connections:
                topic = self.topics.get(conn.topic)
                if topic is None:
                    qos = [_qos_dict(q) for q in
                           getattr(conn.ext, 'offered_qos_profiles', None) or []]
                    topic = self.topics[conn.topic] = TopicInfo(conn.topic, conn.msgtype, 0, qos)
                elif conn.msgtype != topic.msgtype and conn.msgtype not in topic.msgtype:
                    topic.msgtype += ' | ' + conn.msgtype
                topic.count += conn.msgcount

    # ------------------------------------------------------------------ facts
    @property
    def message_count(self) -> int:
        """Return the number of messages the index lists."""
        return sum(t.count for t in self.topics.values())

    @property
    def start_ns(self) -> int:
        """Return the earliest message time in ns (as read after ``check``; 0 when empty)."""
        if self._observed:
            return self._observed[0]
        starts = [r.start_time for r in self._readers if r.message_count]
        return min(starts) if starts else 0

    @property
    def end_ns(self) -> int:
        """Return the latest message time in ns (as read after ``check``; 0 when empty)."""
        if self._observed:
            return self._observed[1]
        ends = [r.end_time - 1 for r in self._readers if r.message_count]
        return max(ends) if ends else 0

    @property
    def duration_s(self) -> float:
        """Return the time between the first and last message, in seconds."""
        return max(0, self.end_ns - self.start_ns) / 1e9

    def resolve_topic(self, name: str) -> str:
        """
        Return the bag's topic for a name as a node would use it.

        'gesture_features' matches '/gesture_features' and a unique '/ns/gesture_features'.
        """
        if name in self.topics:
            return name
        absolute = '/' + name.lstrip('/')
        if absolute in self.topics:
            return absolute
        bare = name.strip('/')
        ends = [t for t in self.topics if t.strip('/') == bare or t.endswith('/' + bare)]
        if len(ends) == 1:
            return ends[0]
        known = ', '.join(sorted(self.topics)) or 'none'
        if ends:
            raise BagError(f'{self.path}: topic {name!r} is ambiguous ({", ".join(ends)})')
        raise BagError(f'{self.path}: no topic {name!r} (topics: {known})')

    # ------------------------------------------------------------------ reading
    def _decoder(self, conn) -> _Decoder:
        key = _conn_key(conn)
        decoder = self._decoders.get(key)
        if decoder is None:
            decoder = self._decoders[key] = _Decoder(conn)
        return decoder

    def _note(self, topic: TopicInfo, texts: Iterable[str], problem: bool = False) -> None:
        target = topic.problems if problem else topic.notes
        for text in texts:
            if text and text not in target:
                target.append(text)

    def messages(self, topics: Optional[Sequence[str]] = None,
                 decode: bool = True) -> Iterator[BagMessage]:
        """
        Yield the messages of the chosen topics (all by default) in time order.

        Parameters
        ----------
        topics : sequence of str, optional
            Topic names; resolved with ``resolve_topic``.
        decode : bool
            Decode with rosbags; messages that cannot be decoded are skipped and counted
            in their topic's ``failed`` and ``problems``.  False yields raw CDR only.

        """
        wanted = None if topics is None else {self.resolve_topic(t) for t in topics}
        generators = []
        for reader in self._readers:
            conns = [c for c in reader.connections if wanted is None or c.topic in wanted]
            if conns:
                generators.append(reader.messages(connections=conns))
        try:
            for conn, stamp, raw in heapq.merge(*generators, key=lambda item: item[1]):
                topic = self.topics[conn.topic]
                topic.read += 1
                self._span = (min(self._span[0], stamp), max(self._span[1], stamp))
                raw = bytes(raw)
                if not decode:
                    yield BagMessage(conn.topic, conn.msgtype, stamp, None, raw)
                    continue
                decoder = self._decoder(conn)
                msg, reason = decoder.decode(raw)
                self._note(topic, decoder.notes)
                if msg is None:
                    topic.failed += 1
                    self._note(topic, [reason], problem=True)
                    continue
                topic.decoded += 1
                yield BagMessage(conn.topic, conn.msgtype, stamp, msg, raw)
        except BagError:
            raise
        except Exception as err:  # a damaged chunk in the middle of a file
            raise BagError(f'{self.path}: reading stopped ({_short(err)})') from None

    def reset_counts(self) -> None:
        """Zero the per-topic read/decoded/failed counters before a new pass."""
        for topic in self.topics.values():
            topic.read = topic.decoded = topic.failed = 0
        self._span = (2 ** 63 - 1, -1)

    def check(self, decode: bool = True) -> 'Bag':
        """Read (and decode) every message so each topic's counts and problems are complete."""
        self.reset_counts()
        for _ in self.messages(decode=decode):
            pass
        # Old recorders wrote approximate times into metadata.yaml; trust what was read.
        self._observed = self._span if self._span[0] <= self._span[1] else None
        for topic in self.topics.values():
            if topic.read < topic.count:
                self._note(topic, [f'the index lists {topic.count} messages but only '
                                   f'{topic.read} could be read'], problem=True)
            if topic.count and not topic.read and not topic.problems:
                self._note(topic, ['no message could be read'], problem=True)
        return self

    def summary(self) -> Dict[str, Any]:
        """Return a JSON-friendly description (call ``check`` first for decoded counts)."""
        return {'path': str(self.path), 'storage': self.storage,
                'files': [p.name for p in self.files], 'messages': self.message_count,
                'start_ns': self.start_ns, 'end_ns': self.end_ns,
                'duration_s': self.duration_s, 'notes': list(self.notes),
                'custom_data': dict(self.custom_data),
                'topics': [t.as_dict() for t in self.topics.values()]}

    def close(self) -> None:
        """Close the data files."""
        readers, self._readers = self._readers, []
        for reader in readers:
            try:
                reader.close()
            except Exception:  # closing a half-opened reader; nothing left to report
                pass

    def __enter__(self) -> 'Bag':
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_bag(path: PathLike) -> Bag:
    """Open a rosbag2 folder or a single .mcap/.db3 file (raises BagError with the reason)."""
    return Bag(path)


# ---------------------------------------------------------------------- writing
def recorded_qos(reliable: bool = True, transient_local: bool = False):
    """
    Return the offered QoS that ros2 bag record stores for a default publisher.

    Reliable and volatile unless told otherwise; history is not visible to the recorder,
    so it is stored as unknown with depth 0, and durations as infinite, as rosbag2 does.
    """
    from rosbags.interfaces import (
        Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime)
    infinite = QosTime(*_INFINITE)
    return Qos(history=QosHistory.UNKNOWN, depth=0,
               reliability=QosReliability.RELIABLE if reliable else QosReliability.BEST_EFFORT,
               durability=(QosDurability.TRANSIENT_LOCAL if transient_local
                           else QosDurability.VOLATILE),
               deadline=infinite, lifespan=infinite, liveliness=QosLiveliness.AUTOMATIC,
               liveliness_lease_duration=infinite, avoid_ros_namespace_conventions=False)


class BagWriter:
    """
    Write a new rosbag2 folder atomically: it appears complete or not at all.

    Parameters
    ----------
    path : str or os.PathLike
        The bag folder to create; it must not exist (as with ``ros2 bag record -o``).
    storage : str
        'mcap' (default, as on Jazzy and Kilted) or 'sqlite3'.

    """

    def __init__(self, path: PathLike, storage: str = 'mcap'):
        if storage not in STORAGES:
            raise BagError(f'storage {storage!r}: choose from {", ".join(STORAGES)}')
        self.path = Path(path)
        if self.path.exists():
            raise BagError(f'{self.path}: exists already; not overwriting')
        parent = self.path.parent if str(self.path.parent) else Path('.')
        if not parent.is_dir():
            raise BagError(f'{parent}: no such folder')
        self.storage = storage
        self.typestore = builtin_typestore()
        self._tmp = Path(tempfile.mkdtemp(prefix='.' + self.path.name + '.', dir=parent))
        from rosbags.rosbag2 import StoragePlugin, Writer
        plugin = StoragePlugin.MCAP if storage == 'mcap' else StoragePlugin.SQLITE3
        self._writer = Writer(self._tmp / self.path.name, version=METADATA_VERSION,
                              storage_plugin=plugin)
        self._connections: Dict[str, Any] = {}
        self._opened = False

    def set_custom_data(self, key: str, value: str) -> None:
        """Store a key/value in metadata.yaml's custom_data."""
        self._writer.set_custom_data(key, value)

    def add_topic(self, topic: str, msgtype: str, qos=None) -> None:
        """Add a topic with its type (from the built-in type store) and offered QoS."""
        if not self._opened:
            self._writer.open()
            self._opened = True
        if msgtype not in self.typestore.fielddefs:
            raise BagError(f'{msgtype}: not a type this writer knows')
        self._connections[topic] = self._writer.add_connection(
            topic, msgtype, typestore=self.typestore,
            offered_qos_profiles=[qos if qos is not None else recorded_qos()])

    def message(self, msgtype: str, **fields):
        """Return a new message object of a built-in type, for ``write``."""
        return self.typestore.types[msgtype](**fields)

    def write(self, topic: str, stamp_ns: int, msg) -> None:
        """Serialise and write one message at the given receive time (ns)."""
        conn = self._connections[topic]
        self._writer.write(conn, int(stamp_ns), self.typestore.serialize_cdr(msg, conn.msgtype))

    def close(self) -> None:
        """Finish the bag and move it into place."""
        try:
            if not self._opened:
                self._writer.open()
                self._opened = True
            self._writer.close()
            os.replace(self._tmp / self.path.name, self.path)
        finally:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def abort(self) -> None:
        """Drop the half-written bag."""
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> 'BagWriter':
        return self

    def __exit__(self, exc_type, *rest) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def features_message(writer: BagWriter, row: np.ndarray, feature_set: str):
    """Return a Float32MultiArray as the topic contract says: dim[0] = (feature set, d, d)."""
    d = int(len(row))
    dim = writer.message('std_msgs/msg/MultiArrayDimension', label=feature_set, size=d,
                         stride=d)
    layout = writer.message('std_msgs/msg/MultiArrayLayout', dim=[dim], data_offset=0)
    return writer.message(FEATURES_TYPE, layout=layout,
                          data=np.asarray(row, dtype=np.float32))


def write_dataset_bag(path: PathLike, X: np.ndarray, y: np.ndarray, label_names: Sequence[str],
                      *, storage: str = 'mcap', rate_hz: float = 2.0,
                      start_ns: Optional[int] = None, feature_set: str = 'dataset',
                      features_topic: str = '/gesture_features',
                      label_topic: str = '/gesture_label',
                      feedback: Optional[Sequence[bool]] = None,
                      feedback_topic: str = '/gesture_feedback') -> Dict[str, Any]:
    """
    Write a data set as a bag a robot can play: one label, then one features message per row.

    Example i is stamped ``start + i / rate_hz``; its label goes out a tenth of a period
    before its features (so a teacher knows the truth before the learner answers), and an
    optional feedback Bool half a period after.  The label names and feature-set name go
    into metadata.yaml's custom_data so ``export`` restores the label order.

    Parameters
    ----------
    path : str or os.PathLike
        The bag folder to create.
    X, y, label_names
        The data set as ``learning.datasets`` returns it.
    storage : str
        'mcap' or 'sqlite3'.
    rate_hz : float
        Examples per second in recorded time.
    start_ns : int, optional
        Time of the first example; now by default.
    feature_set : str
        The features' layout label (the feature-set name in the topic contract).
    features_topic, label_topic, feedback_topic : str
        Topic names as ros2 bag record stores them (fully qualified).
    feedback : sequence of bool, optional
        One yes/no per row, written on ``feedback_topic``.

    Returns
    -------
    dict
        Counts per topic, the storage and the time span.

    """
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or len(X) == 0 or len(X) != len(y):
        raise BagError('a data set needs X as n x d (n >= 1) with one label per row')
    if not np.all(np.isfinite(X)):
        raise BagError('features contain NaN or infinity')
    if not (np.isfinite(rate_hz) and rate_hz > 0):
        raise BagError(f'rate {rate_hz}: must be a positive number of examples per second')
    names = [str(n) for n in label_names]
    if len(y) and (int(y.min()) < 0 or int(y.max()) >= len(names)):
        raise BagError('label indices fall outside the label names')
    if feedback is not None and len(feedback) != len(X):
        raise BagError('feedback needs one value per row')
    if start_ns is None:
        import time
        start_ns = time.time_ns()
    period = int(round(1e9 / rate_hz))
    lead = max(1, period // 10)
    with BagWriter(path, storage) as writer:
        writer.add_topic(label_topic, LABEL_TYPE)
        writer.add_topic(features_topic, FEATURES_TYPE)
        if feedback is not None:
            writer.add_topic(feedback_topic, FEEDBACK_TYPE)
        writer.set_custom_data(CUSTOM_LABELS, json.dumps(names))
        writer.set_custom_data(CUSTOM_FEATURE_SET, feature_set)
        for i, row in enumerate(X):
            t = start_ns + lead + i * period
            writer.write(label_topic, t - lead, writer.message(LABEL_TYPE, data=names[int(y[i])]))
            writer.write(features_topic, t, features_message(writer, row, feature_set))
            if feedback is not None:
                writer.write(feedback_topic, t + period // 2,
                             writer.message(FEEDBACK_TYPE, data=bool(feedback[i])))
    counts = {label_topic: len(X), features_topic: len(X)}
    if feedback is not None:
        counts[feedback_topic] = len(X)
    last = (len(X) - 1) * period + lead + (period // 2 if feedback is not None else 0)
    return {'path': str(path), 'storage': storage, 'counts': counts, 'start_ns': start_ns,
            'duration_s': last / 1e9}


# ---------------------------------------------------------------------- export
@dataclass
class ExportResult:
    """A data set read back from a bag, and what was skipped on the way and why."""

    X: np.ndarray
    y: np.ndarray
    labels: List[str]
    feature_set: str = ''
    feedback: Optional[np.ndarray] = None
    skipped: Dict[str, int] = field(default_factory=dict)

    def npz_bytes(self) -> bytes:
        """Return the NPZ file contents (arrays X, y, labels; feedback when recorded)."""
        arrays = {'X': self.X.astype(np.float32), 'y': self.y.astype(np.int64),
                  'labels': np.array(self.labels, dtype=str),
                  'feature_set': np.array(self.feature_set)}
        if self.feedback is not None:
            arrays['feedback'] = self.feedback.astype(np.int8)
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        return buffer.getvalue()


def _label_order(seen: Sequence[str], stored: Optional[str]) -> List[str]:
    """Return label names: the bag's stored order when it covers them all, else sorted."""
    if stored:
        try:
            names = [str(n) for n in json.loads(stored)]
        except (ValueError, TypeError):
            names = []
        if names and set(seen) <= set(names) and len(set(names)) == len(names):
            return names

    def key(name):
        try:
            return (0, float(name), '')
        except ValueError:
            return (1, 0.0, name)
    return sorted(set(seen), key=key)


def export_dataset(bag: Bag, features_topic: str = 'gesture_features',
                   label_topic: str = 'gesture_label',
                   feedback_topic: Optional[str] = None) -> ExportResult:
    """
    Pair each features message with the latest label before it into a data set.

    Features with no label before them, of a different length than the first, or with
    NaN are skipped and counted in ``skipped`` by reason.  A feedback topic (optional)
    gives each row the first yes/no after it (-1 when none came before the next row).

    Parameters
    ----------
    bag : Bag
        An open bag.
    features_topic, label_topic, feedback_topic : str
        Topic names as a node uses them ('gesture_features' finds '/gesture_features').

    Returns
    -------
    ExportResult
        X (float32 values as float64), y, label names, and the skip counts.

    """
    f_topic = bag.resolve_topic(features_topic)
    l_topic = bag.resolve_topic(label_topic)
    b_topic = bag.resolve_topic(feedback_topic) if feedback_topic else None
    for name, want in ((f_topic, FEATURES_TYPE), (l_topic, LABEL_TYPE),
                       (b_topic, FEEDBACK_TYPE)):
        if name and bag.topics[name].msgtype != want:
            raise BagError(f'{bag.path}: topic {name} has type {bag.topics[name].msgtype}, '
                           f'not {want}')
    wanted = [t for t in (f_topic, l_topic, b_topic) if t]
    rows: List[np.ndarray] = []
    label_of_row: List[str] = []
    feedback: List[int] = []
    skipped: Dict[str, int] = {}
    feature_sets: List[str] = []
    current = None
    width = None
    bag.reset_counts()
    # Labels sort before features stamped at the same time.
    for item in _time_groups(bag.messages(wanted), l_topic):
        if item.topic == l_topic:
            current = str(item.msg.data)
        elif item.topic == b_topic:
            if feedback and feedback[-1] == -1:
                feedback[-1] = int(bool(item.msg.data))
        else:
            data = np.asarray(item.msg.data, dtype=np.float32)
            reason = ''
            if current is None:
                reason = 'no label before it'
            elif data.size == 0:
                reason = 'empty features'
            elif width is not None and data.size != width:
                reason = f'{data.size} values where the first message had {width}'
            elif not np.all(np.isfinite(data)):
                reason = 'NaN or infinity in the features'
            if reason:
                skipped[reason] = skipped.get(reason, 0) + 1
                continue
            width = data.size
            rows.append(data)
            label_of_row.append(current)
            feedback.append(-1)
            dims = item.msg.layout.dim
            if dims and dims[0].label not in feature_sets:
                feature_sets.append(str(dims[0].label))
    problems = [p for t in wanted for p in bag.topics[t].problems]
    if not rows:
        why = []
        if not bag.topics[f_topic].decoded:
            why.append(f'no readable message on {f_topic}'
                       + (f' ({problems[0]})' if problems else ''))
        if not bag.topics[l_topic].decoded:
            why.append(f'no readable message on {l_topic}')
        why.extend(f'{n} skipped: {r}' for r, n in skipped.items())
        raise BagError(f'{bag.path}: nothing to export ({"; ".join(why) or "no pairs"})')
    labels = _label_order(label_of_row, bag.custom_data.get(CUSTOM_LABELS))
    index = {name: i for i, name in enumerate(labels)}
    X = np.vstack(rows).astype(np.float64)
    y = np.array([index[name] for name in label_of_row], dtype=np.int64)
    fb = np.array(feedback, dtype=np.int8) if b_topic else None
    feature_set = bag.custom_data.get(CUSTOM_FEATURE_SET) or ','.join(feature_sets)
    return ExportResult(X, y, labels, feature_set, fb, skipped)


def _time_groups(messages: Iterable[BagMessage], first_topic: str) -> Iterator[BagMessage]:
    """Yield messages in time order with ``first_topic`` first among equal stamps."""
    group: List[BagMessage] = []
    for item in messages:
        if group and item.stamp_ns != group[0].stamp_ns:
            yield from sorted(group, key=lambda m: m.topic != first_topic)
            group = []
        group.append(item)
    yield from sorted(group, key=lambda m: m.topic != first_topic)


def save_npz(result: ExportResult, path: PathLike) -> None:
    """Write an exported data set atomically as NPZ (readable by datasets.load_file)."""
    from banditlearn_ros.learning.persistence import atomic_write_bytes
    atomic_write_bytes(path, result.npz_bytes())
