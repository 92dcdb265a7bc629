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
MCAP files that a killed recorder leaves readable, and a reader for cut-off ones.

The writer puts schemas and channels outside chunks (written and flushed as soon as a
topic appears) and hands every finished chunk to the operating system at once, so a
SIGKILL leaves a file whose complete chunks are all readable.  ``scan_mcap`` reads such a
file record by record from the start, without the summary section rosbags needs, and says
what it could not read.  Layout per the MCAP specification (mcap.dev/spec), ros2 profile
as rosbag2_storage_mcap writes it.
"""

from dataclasses import dataclass, field
import struct
from typing import BinaryIO, Dict, List, Tuple
import zlib

from .limits import inflate, regular_file

MAGIC = b'\x89MCAP0\r\n'

OP_HEADER, OP_FOOTER, OP_SCHEMA, OP_CHANNEL, OP_MESSAGE = 0x01, 0x02, 0x03, 0x04, 0x05
OP_CHUNK, OP_MESSAGE_INDEX, OP_CHUNK_INDEX = 0x06, 0x07, 0x08
OP_STATISTICS, OP_METADATA, OP_METADATA_INDEX = 0x0B, 0x0C, 0x0D
OP_SUMMARY_OFFSET, OP_DATA_END = 0x0E, 0x0F


def _u16(v: int) -> bytes:
    return struct.pack('<H', v)


def _u32(v: int) -> bytes:
    return struct.pack('<I', v)


def _u64(v: int) -> bytes:
    return struct.pack('<Q', v)


def _str(text: str) -> bytes:
    data = text.encode('utf-8')
    return _u32(len(data)) + data


def _map(pairs: Dict[str, str]) -> bytes:
    body = b''.join(_str(k) + _str(v) for k, v in pairs.items())
    return _u32(len(body)) + body


def _record(op: int, body: bytes) -> bytes:
    return bytes([op]) + _u64(len(body)) + body


@dataclass
class _Chunk:
    start: int = 2 ** 63 - 1
    end: int = 0
    body: bytearray = field(default_factory=bytearray)
    index: Dict[int, List[Tuple[int, int]]] = field(default_factory=dict)


class McapFileWriter:
    """
    Write one MCAP file of the ros2 profile, chunk by chunk.

    Parameters
    ----------
    path : str
        The file to create (must not exist).
    chunk_bytes : int
        A chunk is closed and written when its records pass this size; ``flush`` closes
        it earlier (the recorder does so every second).

    """

    def __init__(self, path, chunk_bytes: int = 256 * 1024):
        self.path = str(path)
        self.chunk_bytes = int(chunk_bytes)
        self._file: BinaryIO = open(self.path, 'xb')
        self._schemas: Dict[str, int] = {}
        self._schema_records: List[bytes] = []
        self._channel_records: List[bytes] = []
        self._chunk_indexes: List[bytes] = []
        self._counts: Dict[int, int] = {}
        self._chunk = _Chunk()
        self._sequence = 0
        self.start_ns = 2 ** 63 - 1
        self.end_ns = 0
        self._file.write(MAGIC + _record(OP_HEADER, _str('ros2') + _str('banditlearn_ros')))
        self._file.flush()

    @property
    def size(self) -> int:
        """Return the bytes written so far plus the open chunk."""
        return self._file.tell() + len(self._chunk.body)

    @property
    def message_count(self) -> int:
        """Return the messages written (including the open chunk)."""
        return sum(self._counts.values())

    def add_channel(self, channel_id: int, topic: str, msgtype: str, definition: str,
                    encoding: str, qos_yaml: str, type_hash: str = '') -> None:
        """Add a topic (schema written once per type); written and flushed at once."""
        if msgtype not in self._schemas:
            schema_id = len(self._schemas) + 1
            self._schemas[msgtype] = schema_id
            data = definition.encode('utf-8')
            record = _record(OP_SCHEMA, _u16(schema_id) + _str(msgtype) + _str(encoding)
                             + _u32(len(data)) + data)
            self._schema_records.append(record)
            self._file.write(record)
        record = _record(OP_CHANNEL, _u16(channel_id) + _u16(self._schemas[msgtype])
                         + _str(topic) + _str('cdr')
                         + _map({'offered_qos_profiles': qos_yaml}))
        self._channel_records.append(record)
        self._counts[channel_id] = 0
        self._file.write(record)
        self._file.flush()

    def write(self, channel_id: int, stamp_ns: int, data: bytes) -> None:
        """Add one message (CDR bytes) at its receive time."""
        chunk = self._chunk
        chunk.index.setdefault(channel_id, []).append((stamp_ns, len(chunk.body)))
        chunk.body += _record(OP_MESSAGE, _u16(channel_id) + _u32(self._sequence)
                              + _u64(stamp_ns) + _u64(stamp_ns) + bytes(data))
        self._sequence = (self._sequence + 1) & 0xFFFFFFFF
        chunk.start = min(chunk.start, stamp_ns)
        chunk.end = max(chunk.end, stamp_ns)
        self.start_ns = min(self.start_ns, stamp_ns)
        self.end_ns = max(self.end_ns, stamp_ns)
        self._counts[channel_id] += 1
        if len(chunk.body) >= self.chunk_bytes:
            self.flush()

    def flush(self) -> None:
        """Close the open chunk (if any) and hand everything to the operating system."""
        chunk = self._chunk
        if chunk.body:
            body = bytes(chunk.body)
            start = self._file.tell()
            self._file.write(_record(OP_CHUNK, _u64(chunk.start) + _u64(chunk.end)
                                     + _u64(len(body)) + _u32(zlib.crc32(body)) + _str('')
                                     + _u64(len(body)) + body))
            index_start = self._file.tell()
            offsets = {}
            for channel_id, entries in sorted(chunk.index.items()):
                offsets[channel_id] = self._file.tell()
                pairs = b''.join(_u64(t) + _u64(o) for t, o in entries)
                self._file.write(_record(OP_MESSAGE_INDEX, _u16(channel_id)
                                         + _u32(len(pairs)) + pairs))
            end = self._file.tell()
            pairs = b''.join(_u16(c) + _u64(o) for c, o in offsets.items())
            self._chunk_indexes.append(_record(
                OP_CHUNK_INDEX, _u64(chunk.start) + _u64(chunk.end) + _u64(start)
                + _u64(index_start - start) + _u32(len(pairs)) + pairs
                + _u64(end - index_start) + _str('') + _u64(len(body)) + _u64(len(body))))
            self._chunk = _Chunk()
        self._file.flush()

    def close(self, serialized_metadata: str = '') -> None:
        """Write the last chunk, the summary section and the footer; close the file."""
        self.flush()
        out = self._file
        metadata_start = out.tell()
        out.write(_record(OP_METADATA, _str('rosbag2')
                          + _map({'serialized_metadata': serialized_metadata})))
        metadata_end = out.tell()
        out.write(_record(OP_DATA_END, _u32(0)))
        summary_start = out.tell()
        groups = []
        for op, records in ((OP_SCHEMA, self._schema_records),
                            (OP_CHANNEL, self._channel_records),
                            (OP_CHUNK_INDEX, self._chunk_indexes)):
            if records:
                begin = out.tell()
                out.write(b''.join(records))
                groups.append((op, begin, out.tell() - begin))
        begin = out.tell()
        out.write(_record(OP_METADATA_INDEX, _u64(metadata_start)
                          + _u64(metadata_end - metadata_start) + _str('rosbag2')))
        groups.append((OP_METADATA_INDEX, begin, out.tell() - begin))
        begin = out.tell()
        counts = b''.join(_u16(c) + _u64(n) for c, n in sorted(self._counts.items()))
        empty = not self.message_count
        out.write(_record(OP_STATISTICS, _u64(self.message_count) + _u16(len(self._schemas))
                          + _u32(len(self._channel_records)) + _u32(0) + _u32(1)
                          + _u32(len(self._chunk_indexes))
                          + _u64(0 if empty else self.start_ns)
                          + _u64(0 if empty else self.end_ns)
                          + _u32(len(counts)) + counts))
        groups.append((OP_STATISTICS, begin, out.tell() - begin))
        offsets_start = out.tell()
        for op, begin, length in groups:
            out.write(_record(OP_SUMMARY_OFFSET, bytes([op]) + _u64(begin) + _u64(length)))
        out.write(_record(OP_FOOTER, _u64(summary_start) + _u64(offsets_start) + _u32(0)))
        out.write(MAGIC)
        out.close()

    def abandon(self) -> None:
        """Close the file as it is (what was flushed stays readable by ``scan_mcap``)."""
        try:
            self._file.close()
        except OSError:
            pass


# ---------------------------------------------------------------------- salvage
@dataclass
class McapScan:
    """What a record-by-record read of an MCAP file found."""

    schemas: Dict[int, Tuple[str, str, str]] = field(default_factory=dict)
    channels: Dict[int, Tuple[str, int, str, Dict[str, str]]] = field(default_factory=dict)
    messages: List[Tuple[int, int, bytes]] = field(default_factory=list)
    complete: bool = False
    chunks: int = 0
    """Chunks read whole."""
    chunks_lost: int = 0
    bytes_lost: int = 0
    problems: List[str] = field(default_factory=list)


class _Cursor:
    def __init__(self, data: bytes, pos: int = 0):
        self.data = data
        self.pos = pos

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ValueError('record ends early')
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def u16(self) -> int:
        return struct.unpack('<H', self.take(2))[0]

    def u32(self) -> int:
        return struct.unpack('<I', self.take(4))[0]

    def u64(self) -> int:
        return struct.unpack('<Q', self.take(8))[0]

    def string(self) -> str:
        return self.take(self.u32()).decode('utf-8')

    def mapping(self) -> Dict[str, str]:
        end = self.pos + self.u32()
        out = {}
        while self.pos < end:
            key = self.string()
            out[key] = self.string()
        return out


def _records(data: bytes, start: int, scan: McapScan, where: str):
    """Yield (op, body) from ``start``; a record cut short ends the walk and is noted."""
    pos = start
    while pos < len(data):
        if pos + 9 > len(data):
            scan.bytes_lost += len(data) - pos
            scan.problems.append(f'{where} ends {len(data) - pos} bytes into a record header')
            return
        op = data[pos]
        length = struct.unpack_from('<Q', data, pos + 1)[0]
        if pos + 9 + length > len(data):
            scan.bytes_lost += len(data) - pos
            what = 'chunk' if op == OP_CHUNK else f'record (opcode 0x{op:02x})'
            scan.problems.append(
                f'{where} ends in the middle of a {what}: {len(data) - pos} of its '
                f'{9 + length} bytes are there, the rest was never written')
            if op == OP_CHUNK:
                scan.chunks_lost += 1
            return
        yield op, data[pos + 9:pos + 9 + length]
        pos += 9 + length


def _take(op: int, body: bytes, scan: McapScan) -> None:
    cur = _Cursor(body)
    if op == OP_SCHEMA:
        sid = cur.u16()
        scan.schemas[sid] = (cur.string(), cur.string(), cur.take(cur.u32()).decode('utf-8'))
    elif op == OP_CHANNEL:
        cid, sid = cur.u16(), cur.u16()
        scan.channels[cid] = (cur.string(), sid, cur.string(), cur.mapping())
    elif op == OP_MESSAGE:
        cid = cur.u16()
        cur.u32()
        stamp = cur.u64()
        cur.u64()
        scan.messages.append((cid, stamp, body[cur.pos:]))


def scan_mcap(path) -> McapScan:
    """
    Read an MCAP file record by record, as far as it goes.

    Works without a summary section or footer (a recorder killed mid-recording leaves
    neither): every complete chunk is read, a chunk cut off or failing its checksum is
    counted in ``chunks_lost`` and ``bytes_lost``, and ``problems`` say what was lost.

    Parameters
    ----------
    path : str or os.PathLike
        The .mcap file.

    Returns
    -------
    McapScan
        Schemas, channels, messages (channel id, log time, CDR) in file order, and
        whether the file ended properly (``complete``).

    """
    regular_file(path, 'MCAP file')
    with open(path, 'rb') as handle:
        data = handle.read()
    scan = McapScan()
    if not data:
        raise ValueError('the file is empty')
    if data[:8] != MAGIC:
        raise ValueError('not an MCAP file (its first bytes are not the MCAP magic)')
    if len(data) < 17 or data[8] != OP_HEADER or \
            17 + struct.unpack_from('<Q', data, 9)[0] > len(data):
        raise ValueError('the MCAP header record is missing or cut off')
    for op, body in _records(data, 8, scan, 'the file'):
        if op == OP_HEADER:
            profile = _Cursor(body).string()
            if profile != 'ros2':
                raise ValueError(f'MCAP profile {profile!r}, not ros2')
        elif op == OP_CHUNK:
            number = scan.chunks + scan.chunks_lost + 1
            cur = _Cursor(body)
            cur.u64()
            cur.u64()
            size, crc, kind = cur.u64(), cur.u32(), cur.string()
            try:
                inner = inflate(kind, cur.take(cur.u64()), size)
                if crc and zlib.crc32(inner) != crc:
                    raise ValueError('checksum mismatch')
            except Exception as err:  # a damaged chunk: count it, read on
                scan.chunks_lost += 1
                scan.bytes_lost += len(body)
                scan.problems.append(f'chunk {number} cannot be read ({err})')
                continue
            scan.chunks += 1
            for inner_op, inner_body in _records(inner, 0, scan, f'chunk {number}'):
                _take(inner_op, inner_body, scan)
        elif op == OP_DATA_END:
            scan.complete = True
            break
        else:
            _take(op, body, scan)
    if not scan.complete and not scan.problems:
        scan.problems.append('the file stops after a complete record, before its summary '
                             'section (the recorder did not close it)')
    return scan
