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
Small files read with a bound: only a regular file, and never more than a limit.

A FIFO named as a parameter file blocks ``open`` for ever, ``/dev/zero`` never ends and a
file of gigabytes would be read whole: the bag tools (metadata.yaml, parameter and model
files) and the bring-up (system and parameter files) read through here, each raising its own
one-line error (``BagError``, ``BringupError``).
"""

import os
import stat
from typing import Type

MIB = 2 ** 20


def human_size(size: int) -> str:
    """Return a byte count as an error line says it (``4 MiB``, ``512 bytes``)."""
    return f'{size / MIB:.0f} MiB' if size >= MIB else f'{size} bytes'


def regular_file(path, what: str = 'file',
                 error: Type[Exception] = ValueError) -> os.stat_result:
    """
    Return ``path``'s status; refuse with one line what is not a regular file.

    A FIFO blocks the reader that opens it until a writer comes, a device can give bytes
    without end: neither is a recording or a parameter file.
    """
    try:
        status = os.stat(path)
    except OSError as err:
        raise error(f'{path}: cannot read the {what} ({err.strerror})') from None
    if not stat.S_ISREG(status.st_mode):
        kind = ('a folder' if stat.S_ISDIR(status.st_mode) else 'a FIFO'
                if stat.S_ISFIFO(status.st_mode) else 'a device'
                if stat.S_ISCHR(status.st_mode) or stat.S_ISBLK(status.st_mode)
                else 'a socket' if stat.S_ISSOCK(status.st_mode) else 'not a regular file')
        raise error(f'{path}: the {what} is {kind}, not a regular file: refused')
    return status


def read_bounded(path, limit: int, what: str = 'file',
                 error: Type[Exception] = ValueError) -> bytes:
    """
    Return the bytes of the regular file ``path``, refusing one larger than ``limit``.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    limit : int
        Most bytes read; a larger file is refused before a byte is read, one that grows
        while it is read is refused at ``limit + 1``.
    what : str
        What the file is, for the error line ('parameter file', 'model file').
    error : type
        The exception raised, with one line saying why (the caller's own kind).

    Returns
    -------
    bytes
        The file's content.

    """
    try:
        # Not blocking: opening a FIFO waits for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as err:
        raise error(f'{path}: cannot read the {what} ({err.strerror})') from None
    with os.fdopen(fd, 'rb') as handle:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            regular_file(path, what, error)  # says what it is
            raise error(f'{path}: the {what} is not a regular file: refused')
        if status.st_size > limit:
            raise error(f'{path}: the {what} holds {status.st_size} bytes, more than the '
                        f'{human_size(limit)} read: refused')
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise error(f'{path}: the {what} grew past {human_size(limit)} while it was read: '
                    'refused')
    return data
