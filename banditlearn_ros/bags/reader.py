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
Open and read rosbag2 recordings, working around the quirks of real bags.

A folder whose metadata.yaml disagrees with its data file (opening the folder would yield
no messages) is read from its data files instead; a type that cannot be decoded is
reported per topic with the reason while every other topic is read.
"""

from dataclasses import dataclass, field
import heapq
import os
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import yaml

from .constants import DATA_SUFFIXES, PathLike
from .cut_off_mcap import open_mcap_or_salvage, SalvagedMcap
from .decoder import Decoder
from .errors import BagError, short_error as _short
from .limits import check_mcap, MAX_METADATA_BYTES, read_bounded, regular_file
from .recorded_qos import qos_dict as _qos_dict


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
        self._readers: List[Any] = []
        self._decoders: Dict[Tuple, Decoder] = {}
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
        if path.name == 'metadata.yaml' and not path.is_dir():
            self.path = path = path.parent
        if path.is_dir():
            self._open_folder(path)
        elif path.suffix in DATA_SUFFIXES:
            _check_data_file(path)
            self.storage = DATA_SUFFIXES[path.suffix]
            self.files = [path]
            self._readers = [self._file_reader(path)]
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

    def _file_reader(self, path: Path):
        """Open one data file; a cut-off MCAP is read as far as it goes, with a note."""
        reader = open_mcap_or_salvage(path, self._reader)
        self.notes.extend(getattr(reader, 'notes', []))
        return reader

    def _read_files_directly(self, data_files: List[Path], why: str) -> None:
        self.files = data_files
        self.storage = DATA_SUFFIXES[data_files[0].suffix]
        self._readers = [self._file_reader(p) for p in data_files]
        self.notes.insert(0, f'{why}: read the data files directly ('
                          + ', '.join(p.name for p in data_files) + ')')

    def _open_folder(self, folder: Path) -> None:
        meta_path = folder / 'metadata.yaml'
        data_files = sorted(p for p in folder.iterdir() if p.suffix in DATA_SUFFIXES)
        for path in data_files:
            _check_data_file(path)
        meta_text = None
        if os.path.lexists(meta_path):
            meta_text = read_bounded(meta_path, MAX_METADATA_BYTES, 'metadata file')
        if meta_text is None:
            if not data_files:
                raise BagError(f'{folder}: not a rosbag2 folder (no metadata.yaml and no '
                               '.mcap / .db3 file)')
            self._read_files_directly(data_files, 'no metadata.yaml')
            return
        try:
            meta = yaml.safe_load(meta_text.decode('utf-8'))
            info = meta['rosbag2_bagfile_information']
            listed = [folder / Path(p).name for p in info.get('relative_file_paths', [])]
            self.storage = str(info.get('storage_identifier', ''))
            self.custom_data = dict(info.get('custom_data') or {})
            compressed = bool(info.get('compression_mode')) and \
                str(info.get('compression_mode')).lower() != 'none'
        except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError,
                AttributeError) as err:
            if not data_files:
                raise BagError(f'{meta_path}: not a readable rosbag2 metadata file '
                               f'({_short(err)})') from None
            self.custom_data = {}
            self._read_files_directly(
                data_files, f'metadata.yaml cannot be used ({_short(err, 100)}; '
                '"banditlearn_bag reindex" writes a new one)')
            return
        self.files = listed or data_files
        try:
            folder_reader = self._reader(folder)
        except BagError as err:
            if not data_files:
                raise
            self._read_files_directly(
                data_files, f'the folder cannot be opened through metadata.yaml ({err}; '
                '"banditlearn_bag reindex" writes a new one)')
            return
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
            try:
                reader = self._reader(path)
            except BagError:
                return []
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
    def salvaged(self) -> bool:
        """Return whether a data file was cut off and read record by record (``reindex``)."""
        return any(isinstance(r, SalvagedMcap) for r in self._readers)

    def connections(self) -> List[Any]:
        """Return the rosbags connections of every data file (with their message definitions)."""
        return [conn for reader in self._readers for conn in reader.connections]

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
    def _decoder(self, conn) -> Decoder:
        key = _conn_key(conn)
        decoder = self._decoders.get(key)
        if decoder is None:
            decoder = self._decoders[key] = Decoder(conn)
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


def _check_data_file(path: Path) -> None:
    """Refuse a data file that is not a regular file, or an MCAP file declaring too much."""
    regular_file(path, 'data file')
    if path.suffix == '.mcap':
        check_mcap(path)


def open_bag(path: PathLike) -> Bag:
    """Open a rosbag2 folder or a single .mcap/.db3 file (raises BagError with the reason)."""
    return Bag(path)
