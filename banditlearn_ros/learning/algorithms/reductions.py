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
Dot products rounded the same way on every CPU: the learners' decisions depend on them.

A learner's choice between labels compares sums such as ``mu_i . x`` that can be nearly
equal.  BLAS (``np.dot``, ``@``) picks its kernel by CPU (OpenBLAS: Prescott, Haswell,
SkylakeX ...), and each kernel adds the products in a different order, so the last bits
differ, a near tie goes the other way, and a replayed session diverges from the one
recorded on another machine.  Here the products are formed elementwise (exact IEEE
multiplications) and summed by ``np.add.reduce`` over the last, contiguous axis, which
numpy does in plain C in a fixed pairwise order, whatever the CPU:

- fewer than 8 numbers: added left to right;
- up to 128 (``BLOCK``): 8 running sums over the numbers of index ``j mod 8``, combined as
  ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the remaining ``n mod 8``
  numbers added left to right;
- more: split at ``n2 = n // 2 - (n // 2) % 8`` and the two halves' sums added;
- more than 8192 (``CHUNK``, numpy's buffer size): each 8192 summed as above, and the
  chunk sums added left to right (``row_dots`` cuts the chunks itself, so only a buffer
  size set below numpy's default with ``np.setbufsize`` would change the order).

``pairwise_dot`` writes that order out in loops, so numba compiles it to the same
additions (``learning/engine``: without fastmath numba neither reorders nor fuses them into
FMA; the engine compiles ``block_dot`` and ``halves_dot`` first and binds the compiled
``pairwise_dot`` to them, ``engine.jit.bind``, so nothing here is rewritten);
``test/test_reductions.py`` checks numpy, this code and a plain recursive reference against
each other bit for bit.  The order is numpy's own (``pairwise_sum`` in numpy's
``loops_utils.h.src``), an implementation detail that has been stable since numpy 1.9;
the start-up check of ``engine.ucwl_kernels`` would notice a change.
"""

from typing import Optional

import numpy as np

BLOCK = 128
"""Largest count numpy sums with 8 running sums before splitting in two."""

CHUNK = 8192
"""numpy's default buffer size: a reduction's inner loop sums at most this many numbers."""

_STACK = 64
"""Depth of the explicit split stack of ``pairwise_dot``: enough for 2^64 numbers."""


def row_dots(rows: np.ndarray, x: np.ndarray, work: Optional[np.ndarray] = None,
             out: Optional[np.ndarray] = None) -> np.ndarray:
    """
    Return ``rows . x`` along the last axis, summed in numpy's fixed pairwise order.

    Parameters
    ----------
    rows : numpy.ndarray
        float64, (..., d).
    x : numpy.ndarray
        float64, (d,).
    work : numpy.ndarray, optional
        float64 of ``rows``' shape for the products: a caller that sums large arrays every
        round passes one it keeps, instead of a fresh allocation per call.
    out : numpy.ndarray, optional
        float64 of shape (...,) for the result.

    Returns
    -------
    numpy.ndarray
        (...,): the same bits on every CPU, unlike ``rows @ x``.

    """
    products = np.multiply(rows, x, out=work)
    d = products.shape[-1]
    if d <= CHUNK:
        return np.add.reduce(products, axis=-1, out=out)
    total = np.add.reduce(products[..., :CHUNK], axis=-1, out=out)
    for lo in range(CHUNK, d, CHUNK):
        total += np.add.reduce(products[..., lo:lo + CHUNK], axis=-1)
    return total


def row_dot(row: np.ndarray, x: np.ndarray) -> float:
    """Return ``row . x`` (both 1-D) as a float, summed as ``row_dots`` sums."""
    return float(row_dots(row, x))


def block_dot(a, b, lo, n) -> float:
    """Sum ``a[lo + j] * b[lo + j]`` for j < n <= ``BLOCK`` as numpy sums one block."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i] * b[i]
        return res
    r0, r1, r2, r3 = a[lo] * b[lo], a[lo + 1] * b[lo + 1], a[lo + 2] * b[lo + 2], \
        a[lo + 3] * b[lo + 3]
    r4, r5, r6, r7 = a[lo + 4] * b[lo + 4], a[lo + 5] * b[lo + 5], a[lo + 6] * b[lo + 6], \
        a[lo + 7] * b[lo + 7]
    end = lo + n - n % 8
    i = lo + 8
    while i < end:
        r0 += a[i] * b[i]
        r1 += a[i + 1] * b[i + 1]
        r2 += a[i + 2] * b[i + 2]
        r3 += a[i + 3] * b[i + 3]
        r4 += a[i + 4] * b[i + 4]
        r5 += a[i + 5] * b[i + 5]
        r6 += a[i + 6] * b[i + 6]
        r7 += a[i + 7] * b[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < lo + n:
        res += a[i] * b[i]
        i += 1
    return res


def two_block_dots(A, B, i, x, y, n):
    """
    Return ``pairwise_dot(A[i], x)`` and ``pairwise_dot(B[i], y)`` for 8 <= n <= ``BLOCK``.

    The same additions in the same order as ``block_dot`` (8 running sums, then the rest
    left to right), two rows interleaved so their 16 chains overlap in the CPU (for numba:
    ``engine.ucwl_kernels`` compiles it).  The rows are indexed, not taken as views: compiled, a
    view costs two atomic reference counts.
    """
    p0, p1, p2, p3 = A[i, 0] * x[0], A[i, 1] * x[1], A[i, 2] * x[2], A[i, 3] * x[3]
    p4, p5, p6, p7 = A[i, 4] * x[4], A[i, 5] * x[5], A[i, 6] * x[6], A[i, 7] * x[7]
    q0, q1, q2, q3 = B[i, 0] * y[0], B[i, 1] * y[1], B[i, 2] * y[2], B[i, 3] * y[3]
    q4, q5, q6, q7 = B[i, 4] * y[4], B[i, 5] * y[5], B[i, 6] * y[6], B[i, 7] * y[7]
    end = n - n % 8
    j = 8
    while j < end:
        p0 += A[i, j] * x[j]
        p1 += A[i, j + 1] * x[j + 1]
        p2 += A[i, j + 2] * x[j + 2]
        p3 += A[i, j + 3] * x[j + 3]
        p4 += A[i, j + 4] * x[j + 4]
        p5 += A[i, j + 5] * x[j + 5]
        p6 += A[i, j + 6] * x[j + 6]
        p7 += A[i, j + 7] * x[j + 7]
        q0 += B[i, j] * y[j]
        q1 += B[i, j + 1] * y[j + 1]
        q2 += B[i, j + 2] * y[j + 2]
        q3 += B[i, j + 3] * y[j + 3]
        q4 += B[i, j + 4] * y[j + 4]
        q5 += B[i, j + 5] * y[j + 5]
        q6 += B[i, j + 6] * y[j + 6]
        q7 += B[i, j + 7] * y[j + 7]
        j += 8
    p = ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7))
    q = ((q0 + q1) + (q2 + q3)) + ((q4 + q5) + (q6 + q7))
    while j < n:
        p += A[i, j] * x[j]
        q += B[i, j] * y[j]
        j += 1
    return 0.0 + p, 0.0 + q  # pairwise_dot's 0.0 + (a -0.0 sum becomes 0.0)


def pairwise_dot(a, b) -> float:
    """
    Return ``a . b`` (1-D, equal length) summed exactly as ``row_dots`` sums, in loops.

    Written for numba (``engine.ucwl_kernels`` compiles it); in Python it is slow but exact.
    """
    n = a.shape[0]
    if n <= BLOCK:  # the common case, without the calls below (a third of the time)
        return 0.0 + block_dot(a, b, 0, n)
    total = 0.0
    for lo in range(0, n, CHUNK):
        total = total + halves_dot(a, b, lo, min(CHUNK, n - lo))
    return total


def halves_dot(a, b, lo, n) -> float:
    """
    Sum ``a[lo + j] * b[lo + j]`` for j < n as numpy sums one inner loop (pairwise).

    The split into halves is walked with an explicit stack rather than recursion, which
    numba compiles less reliably.
    """
    if n <= BLOCK:
        return block_dot(a, b, lo, n)
    los = np.empty(_STACK, np.int64)
    counts = np.empty(_STACK, np.int64)
    left_done = np.zeros(_STACK, np.bool_)
    lefts = np.empty(_STACK)
    top = 0
    los[0], counts[0], left_done[0] = lo, n, False
    value = 0.0
    have_value = False
    while True:
        if have_value:  # hand the finished sum to the node above
            if top < 0:
                return value
            half = counts[top] // 2
            half -= half % 8
            if not left_done[top]:
                lefts[top] = value
                left_done[top] = True
                have_value = False
                top += 1
                los[top], counts[top], left_done[top] = los[top - 1] + half, \
                    counts[top - 1] - half, False
            else:
                value = lefts[top] + value
                top -= 1
            continue
        m = counts[top]
        if m <= BLOCK:
            value = block_dot(a, b, los[top], m)
            have_value = True
            top -= 1
            continue
        half = m // 2
        half -= half % 8
        top += 1
        los[top], counts[top], left_done[top] = los[top - 1], half, False
