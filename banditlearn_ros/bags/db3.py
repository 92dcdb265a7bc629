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
sqlite3 (.db3) files as rosbag2_storage_sqlite3 writes them, committed as the recording goes.

Each ``flush`` commits, so a killed recorder loses only what came after the last commit;
sqlite's journal keeps the file consistent.  Table layout of rosbag2's schema version 4
(Jazzy), which rosbags and ``ros2 bag`` read.
"""

import sqlite3
from typing import Dict

_SCHEMA = """
CREATE TABLE schema(schema_version INTEGER PRIMARY KEY, ros_distro TEXT NOT NULL);
CREATE TABLE metadata(id INTEGER PRIMARY KEY, metadata_version INTEGER NOT NULL,
                      metadata TEXT NOT NULL);
CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL,
                    serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL,
                    type_description_hash TEXT NOT NULL);
CREATE TABLE message_definitions(id INTEGER PRIMARY KEY, topic_type TEXT NOT NULL,
                                 encoding TEXT NOT NULL,
                                 encoded_message_definition TEXT NOT NULL,
                                 type_description_hash TEXT NOT NULL);
CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL,
                      timestamp INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX timestamp_idx ON messages (timestamp ASC);
INSERT INTO schema(schema_version, ros_distro) VALUES (4, 'banditlearn_ros');
"""


class Db3FileWriter:
    """Write one rosbag2 sqlite3 file; the interface of ``McapFileWriter``."""

    def __init__(self, path, chunk_bytes: int = 256 * 1024):
        self.path = str(path)
        self.chunk_bytes = int(chunk_bytes)
        with open(self.path, 'xb'):
            pass
        self._db = sqlite3.connect(self.path)
        self._db.executescript(_SCHEMA)
        self._db.commit()
        self._counts: Dict[int, int] = {}
        self._pending = 0
        self._size = 0
        self._types = set()
        self.start_ns = 2 ** 63 - 1
        self.end_ns = 0

    @property
    def size(self) -> int:
        """Return the bytes of message data written so far (close to the file size)."""
        return self._size

    @property
    def message_count(self) -> int:
        """Return the messages written."""
        return sum(self._counts.values())

    def add_channel(self, channel_id: int, topic: str, msgtype: str, definition: str,
                    encoding: str, qos_yaml: str, type_hash: str = '') -> None:
        """Add a topic and its type's definition; committed at once."""
        if msgtype not in self._types:
            self._types.add(msgtype)
            self._db.execute('INSERT INTO message_definitions (topic_type, encoding, '
                             'encoded_message_definition, type_description_hash) '
                             'VALUES (?, ?, ?, ?)', (msgtype, encoding, definition, type_hash))
        self._db.execute('INSERT INTO topics VALUES (?, ?, ?, ?, ?, ?)',
                         (channel_id, topic, msgtype, 'cdr', qos_yaml, type_hash))
        self._counts[channel_id] = 0
        self._db.commit()

    def write(self, channel_id: int, stamp_ns: int, data: bytes) -> None:
        """Add one message (CDR bytes) at its receive time."""
        self._db.execute('INSERT INTO messages (topic_id, timestamp, data) VALUES (?, ?, ?)',
                         (channel_id, int(stamp_ns), bytes(data)))
        self._counts[channel_id] += 1
        self._pending += len(data)
        self._size += len(data) + 24
        self.start_ns = min(self.start_ns, stamp_ns)
        self.end_ns = max(self.end_ns, stamp_ns)
        if self._pending >= self.chunk_bytes:
            self.flush()

    def flush(self) -> None:
        """Commit what was written."""
        self._db.commit()
        self._pending = 0

    def close(self, serialized_metadata: str = '') -> None:
        """Store the metadata text in the file, commit and close."""
        from .constants import METADATA_VERSION
        self._db.execute('INSERT INTO metadata (metadata_version, metadata) VALUES (?, ?)',
                         (METADATA_VERSION, serialized_metadata))
        self._db.commit()
        self._db.close()

    def abandon(self) -> None:
        """Close without the metadata (what was committed stays readable)."""
        try:
            self._db.close()
        except sqlite3.Error:
            pass
