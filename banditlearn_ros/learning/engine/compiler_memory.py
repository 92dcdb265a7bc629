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
Give back the memory numba's compiler held once the UCWL steps are compiled.

Loading the compiled steps, even from numba's disk cache, runs LLVM: it touches about 70 MB
of ``libllvmlite.so``'s pages, which then stay resident in the learner's process although
no step calls LLVM again (a compiled step is plain machine code).  They are pages of a file,
so the kernel may drop them and read them again when needed; ``release`` asks it to do that
now (``madvise(MADV_PAGEOUT)``, Linux 5.4 and later), and asks glibc to return the free
parts of its heap to the system (``malloc_trim``).  Neither changes any value in the
process: a later compilation reads the pages back.  Where either call is missing (another
C library, another kernel, another OS), nothing happens.
"""

import ctypes
import ctypes.util
from typing import Iterator, Tuple

MADV_PAGEOUT = 21
"""Linux's advice "reclaim these pages now" (include/uapi/asm-generic/mman-common.h)."""

COMPILER_LIBRARIES = ('libllvmlite.so',)
"""Mapped files whose pages only compilation uses."""


def release() -> int:
    """
    Drop the compiler's resident pages and trim the C heap; return the bytes advised.

    Returns
    -------
    int
        Bytes of ``COMPILER_LIBRARIES``' mappings the kernel was asked to reclaim (0 where
        that is not possible).  What the kernel frees shows in /proc/self/status (RssFile).

    """
    try:
        libc = ctypes.CDLL(ctypes.util.find_library('c') or None, use_errno=True)
    except OSError:
        return 0
    trim = getattr(libc, 'malloc_trim', None)
    if trim is not None:
        trim.argtypes = [ctypes.c_size_t]
        trim(0)
    madvise = getattr(libc, 'madvise', None)
    if madvise is None:
        return 0
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    advised = 0
    for start, end in compiler_mappings():
        if madvise(start, end - start, MADV_PAGEOUT) == 0:
            advised += end - start
    return advised


def compiler_mappings(maps: str = '/proc/self/maps') -> Iterator[Tuple[int, int]]:
    """Yield ``(start, end)`` of each mapping of a ``COMPILER_LIBRARIES`` file (none off Linux)."""
    try:
        with open(maps) as handle:
            lines = handle.readlines()
    except OSError:
        return
    for line in lines:
        fields = line.split()
        if len(fields) > 5 and fields[5].endswith(COMPILER_LIBRARIES):
            start, end = (int(value, 16) for value in fields[0].split('-'))
            yield start, end
