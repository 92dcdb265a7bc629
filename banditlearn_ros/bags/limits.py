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
Every size a bag or a file declares is held to a bound before memory is taken for it.

A 100 kB MCAP file can declare a chunk that inflates to gigabytes, a FIFO named like a bag
blocks ``open`` for ever, and ``/dev/zero`` given as a parameter file never ends.  So the
bag tools open only regular files, read small files (parameters, metadata.yaml, a start
model) with a size bound, and walk an MCAP file's records (``check_mcap``) before rosbags
or the salvage reader decompresses anything: every chunk's declared size is bounded, every
compressed chunk is inflated once in pieces to prove it gives what it declares, and every
chunk the summary indexes must be a chunk the walk met.  Record layout per the MCAP
specification (mcap.dev/spec).
"""

import os
import struct
from typing import Dict, Tuple

from .errors import BagError
from ..support import bounded_files
from ..support.bounded_files import human_size

MIB = bounded_files.MIB

MAX_CHUNK_BYTES = 128 * MIB
"""Largest uncompressed chunk (or message outside a chunk) read; a 4K bgr8 image is 25 MB,
and rosbag2 closes a chunk at 768 KiB, so only a damaged or hostile file comes near."""

MAX_RECORD_BYTES = 64 * MIB
"""Largest record of any other kind (schema, channel, metadata, attachment, index)."""

MAX_METADATA_BYTES = 16 * MIB
"""Largest metadata.yaml read (a year of split files lists in well under 1 MB)."""

MAX_PARAMS_BYTES = 4 * MIB
"""Largest ROS 2 parameter file read (the package's params.yaml is a few kB)."""

_PIECE = 8 * MIB
"""Bytes inflated at a time while a chunk is checked (memory held by the check)."""


def regular_file(path, what: str = 'file') -> os.stat_result:
    """Return ``path``'s status; a FIFO, a device or a folder is a BagError (one line)."""
    return bounded_files.regular_file(path, what, BagError)


def read_bounded(path, limit: int, what: str = 'file') -> bytes:
    """Return the regular file ``path``'s bytes, at most ``limit`` (else a BagError)."""
    return bounded_files.read_bounded(path, limit, what, BagError)


# ---------------------------------------------------------------------- MCAP
def _decompressor(kind: str):
    if kind == 'zstd':
        try:
            from compression import zstd
        except ImportError:
            from backports import zstd
        return zstd.ZstdDecompressor()
    if kind == 'lz4':
        import lz4.frame
        return lz4.frame.LZ4FrameDecompressor()
    raise ValueError(f'unknown chunk compression {kind!r}')


def inflate(kind: str, data: bytes, size: int, keep: bool = True) -> bytes:
    """
    Decompress a chunk that declares ``size`` bytes, never producing more than that.

    Parameters
    ----------
    kind : str
        '' (stored), 'zstd' or 'lz4', as an MCAP chunk names it.
    data : bytes
        The compressed bytes (one or more frames, as MCAP writers may concatenate).
    size : int
        The uncompressed size the chunk declares; held to ``MAX_CHUNK_BYTES`` first.
    keep : bool
        False only checks (the output is counted in pieces and dropped).

    Returns
    -------
    bytes
        The chunk's records (empty when ``keep`` is False).

    Raises
    ------
    ValueError
        Saying what is wrong: too large a declared size, an output larger or smaller than
        declared, an unknown compression or damaged data.

    """
    if size > MAX_CHUNK_BYTES:
        raise ValueError(f'it declares {size} bytes uncompressed, more than the '
                         f'{human_size(MAX_CHUNK_BYTES)} a chunk may hold here')
    if kind == '':
        if len(data) != size:
            raise ValueError(f'it declares {size} bytes but stores {len(data)}')
        return data if keep else b''
    out = []
    total = 0
    rest = bytes(data)
    while rest:
        engine = _decompressor(kind)
        feed = rest
        while not engine.eof:
            piece = engine.decompress(feed, max_length=min(_PIECE, size + 1 - total))
            feed = b''
            total += len(piece)
            if total > size:
                raise ValueError(f'it inflates past the {size} bytes it declares')
            if keep:
                out.append(piece)
            if not piece and engine.needs_input:
                raise ValueError('its compressed data ends early')
        rest = engine.unused_data
    if total != size:
        raise ValueError(f'it inflates to {total} bytes, not the {size} it declares')
    return b''.join(out)


OP_FOOTER, OP_MESSAGE, OP_CHUNK, OP_CHUNK_INDEX = 0x02, 0x05, 0x06, 0x08
MAGIC = b'\x89MCAP0\r\n'


class _Body:
    """A record body read field by field from a file, never past the record's end."""

    def __init__(self, handle, start: int, length: int):
        self.handle = handle
        self.end = start + length
        handle.seek(start)

    def take(self, n: int) -> bytes:
        if n < 0 or self.handle.tell() + n > self.end:
            raise ValueError('a field runs past the end of its record')
        data = self.handle.read(n)
        if len(data) != n:
            raise ValueError('the file ends inside a record')
        return data

    def u32(self) -> int:
        return struct.unpack('<I', self.take(4))[0]

    def u64(self) -> int:
        return struct.unpack('<Q', self.take(8))[0]

    def string(self) -> str:
        return self.take(self.u32()).decode('utf-8', 'replace')


def check_mcap(path) -> None:
    """
    Walk an MCAP file's records and refuse, with one line, any size it cannot keep.

    Nothing is held but one record's header and one piece of an inflating chunk.  A file
    cut off by a killed recorder passes (the readers say what was lost); a record running
    past the end of a file that still ends with the MCAP magic does not.

    Parameters
    ----------
    path : str or os.PathLike
        The .mcap file (regular: see ``regular_file``).

    Raises
    ------
    BagError
        Naming the record (by its offset) and the bound it breaks.

    """
    with open(path, 'rb') as handle:
        size = os.fstat(handle.fileno()).st_size
        if handle.read(8) != MAGIC:
            return  # not MCAP: the readers say so
        try:
            _walk(handle, size, path)
        except ValueError as err:
            raise BagError(f'{path}: damaged MCAP file ({err}): refused') from None


def _walk(handle, size: int, path) -> None:
    chunks: Dict[int, Tuple[int, str, int, int]] = {}
    starts = set()
    pos = 8
    number = 0
    while pos + 9 <= size:
        handle.seek(pos)
        op, length = struct.unpack('<BQ', handle.read(9))
        end = pos + 9 + length
        if end > size:
            handle.seek(size - 8)
            if handle.read(8) == MAGIC:
                raise ValueError(f'the record at byte {pos} declares {length} bytes, past '
                                 'the end of the file')
            return  # cut off: salvage reads what is there
        starts.add(pos)
        if op == OP_CHUNK:
            number += 1
            chunks[pos] = _check_chunk(handle, pos, length, number)
        elif op == OP_MESSAGE:
            if length > MAX_CHUNK_BYTES:
                raise ValueError(f'the message at byte {pos} declares {length} bytes, more '
                                 f'than the {human_size(MAX_CHUNK_BYTES)} read here')
        elif length > MAX_RECORD_BYTES:
            raise ValueError(f'the record (opcode 0x{op:02x}) at byte {pos} declares '
                             f'{length} bytes, more than the {human_size(MAX_RECORD_BYTES)} '
                             'read here')
        elif op == OP_CHUNK_INDEX:
            _check_index(handle, pos, length, chunks)
        elif op == OP_FOOTER:
            body = _Body(handle, pos + 9, length)
            summary, offsets = body.u64(), body.u64()
            for name, offset in (('summary section', summary), ('summary offsets', offsets)):
                if offset and offset not in starts:
                    raise ValueError(f'the footer points its {name} at byte {offset}, '
                                     'where no record starts')
            return
        pos = end


def _check_chunk(handle, pos: int, length: int, number: int) -> Tuple[int, str, int, int]:
    body = _Body(handle, pos + 9, length)
    body.u64()
    body.u64()
    declared = body.u64()
    body.take(4)
    kind = body.string()
    stored = body.u64()
    where = f'chunk {number} (byte {pos})'
    if declared > MAX_CHUNK_BYTES:
        raise ValueError(f'{where} declares {declared} bytes uncompressed, more than the '
                         f'{human_size(MAX_CHUNK_BYTES)} a chunk may hold here')
    if stored > body.end - handle.tell():
        raise ValueError(f'{where} declares {stored} compressed bytes, more than its '
                         'record holds')
    if kind:
        try:
            inflate(kind, body.take(stored), declared, keep=False)
        except ValueError as err:
            raise ValueError(f'{where}: {err}') from None
        except Exception as err:  # the decompressor's own error on damaged data
            raise ValueError(f'{where} cannot be decompressed ({err})') from None
    return (9 + length, kind, stored, declared)


def _check_index(handle, pos: int, length: int, chunks) -> None:
    body = _Body(handle, pos + 9, length)
    body.u64()
    body.u64()
    start, chunk_length = body.u64(), body.u64()
    body.take(body.u32())
    body.u64()
    found = (chunk_length, body.string(), body.u64(), body.u64())
    if chunks.get(start) != found:
        raise ValueError(f'the chunk index at byte {pos} describes a chunk at byte {start} '
                         'that the file does not hold as described')
