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
A bag folder that grows while it is recorded: split files, flushed often, metadata at the end.

This is the storage half of ``banditlearn_bag record`` (the rclpy half only hands over
CDR bytes), usable without ROS.  Files are ``<name>_<i>.mcap`` (or ``.db3``) as ``ros2 bag
record`` names them; metadata.yaml is written on ``close``.  A recording that never
reaches ``close`` (SIGKILL, power loss) is read back by the salvaging reader and made whole
by ``reindex``.
"""

from pathlib import Path
from typing import Any, Dict, List, Optional

from .constants import STORAGES
from .db3 import Db3FileWriter
from .decoder import builtin_typestore
from .errors import BagError
from .mcap import McapFileWriter
from .metadata import BagMetadata, FileEntry, TopicEntry
from .recorded_qos import qos_yaml_from_dicts

_SUFFIX = {'mcap': '.mcap', 'sqlite3': '.db3'}


class Recording:
    """
    Write messages into a new bag folder, splitting by size or duration.

    Parameters
    ----------
    path : str or os.PathLike
        The bag folder to create; it must not exist.
    storage : str
        'mcap' (default) or 'sqlite3'.
    max_bytes : int
        Start a new file when the current one passes this size (0 = never).
    max_duration_s : float
        Start a new file when the current one spans this many seconds (0 = never).
    chunk_bytes : int
        Largest chunk (MCAP) or uncommitted batch (sqlite3) before it is written out.

    """

    def __init__(self, path, storage: str = 'mcap', max_bytes: int = 0,
                 max_duration_s: float = 0.0, chunk_bytes: int = 256 * 1024):
        if storage not in STORAGES:
            raise BagError(f'storage {storage!r}: choose from {", ".join(STORAGES)}')
        if max_bytes < 0 or max_duration_s < 0:
            raise BagError('split sizes and durations must be >= 0')
        self.path = Path(path)
        if self.path.exists():
            raise BagError(f'{self.path}: exists already; not overwriting')
        if not self.path.parent.is_dir():
            raise BagError(f'{self.path.parent}: no such folder')
        self.path.mkdir()
        self.storage = storage
        self.max_bytes = int(max_bytes)
        self.max_ns = int(max_duration_s * 1e9)
        self.chunk_bytes = int(chunk_bytes)
        self.typestore = builtin_typestore()
        self.custom_data: Dict[str, str] = {}
        self.topics: Dict[str, TopicEntry] = {}
        self._ids: Dict[str, int] = {}
        self._definitions: Dict[str, tuple] = {}
        self._files: List[FileEntry] = []
        self._writer: Optional[Any] = None
        self._file_start: Optional[int] = None
        self.closed = False

    # -- topics --------------------------------------------------------------------------
    def add_topic(self, topic: str, msgtype: str, qos: List[Dict[str, Any]]) -> None:
        """Add a topic with its type and the QoS its publishers offer (``qos_from_rclpy``)."""
        if topic in self.topics:
            return
        if msgtype not in self._definitions:
            try:
                text, _ = self.typestore.generate_msgdef(msgtype)
                digest = self.typestore.hash_rihs01(msgtype)
            except Exception:  # a type the built-in store lacks: recorded without definition
                text, digest = '', ''
            self._definitions[msgtype] = (text, digest)
        self.topics[topic] = TopicEntry(topic, msgtype, qos_yaml_from_dicts(qos),
                                        type_hash=self._definitions[msgtype][1])
        self._ids[topic] = len(self._ids) + 1
        if self._writer is not None:
            self._add_channel(topic)

    def _add_channel(self, topic: str) -> None:
        entry = self.topics[topic]
        text, digest = self._definitions[entry.msgtype]
        self._writer.add_channel(self._ids[topic], topic, entry.msgtype, text, 'ros2msg',
                                 entry.qos_yaml, digest)

    # -- files ---------------------------------------------------------------------------
    def _open_file(self) -> None:
        name = f'{self.path.name}_{len(self._files)}{_SUFFIX[self.storage]}'
        cls = McapFileWriter if self.storage == 'mcap' else Db3FileWriter
        self._writer = cls(self.path / name, chunk_bytes=self.chunk_bytes)
        self._files.append(FileEntry(name, 0, 0, 0))
        self._file_start = None
        for topic in self.topics:
            self._add_channel(topic)

    def _close_file(self) -> None:
        writer, self._writer = self._writer, None
        entry = self._files[-1]
        entry.count = writer.message_count
        if entry.count:
            entry.start_ns, entry.end_ns = writer.start_ns, writer.end_ns
        writer.close(self._metadata().text())

    @property
    def files(self) -> List[str]:
        """Return the data file names so far."""
        return [f.path for f in self._files]

    # -- messages ------------------------------------------------------------------------
    def write(self, topic: str, stamp_ns: int, data: bytes) -> None:
        """Write one message's CDR bytes at its receive time (ns)."""
        if self.closed:
            raise BagError(f'{self.path}: the recording is closed')
        if topic not in self.topics:
            raise BagError(f'{topic}: add the topic before writing to it')
        if self._writer is not None and (
                (self.max_bytes and self._writer.size >= self.max_bytes)
                or (self.max_ns and self._file_start is not None
                    and stamp_ns - self._file_start >= self.max_ns)):
            self._close_file()
        if self._writer is None:
            self._open_file()
        if self._file_start is None:
            self._file_start = stamp_ns
        self._writer.write(self._ids[topic], int(stamp_ns), data)
        self.topics[topic].count += 1

    def flush(self) -> None:
        """Hand what was written to the operating system (a finished chunk or a commit)."""
        if self._writer is not None:
            self._writer.flush()

    def _metadata(self) -> BagMetadata:
        return BagMetadata(self.storage, list(self._files), list(self.topics.values()),
                           dict(self.custom_data))

    def close(self) -> Path:
        """Finish the current file and write metadata.yaml; return its path."""
        if self.closed:
            return self.path / 'metadata.yaml'
        if self._writer is None:
            self._open_file()
        self._close_file()
        self.closed = True
        return self._metadata().write(self.path)

    @property
    def message_count(self) -> int:
        """Return the messages written so far."""
        return sum(t.count for t in self.topics.values())
