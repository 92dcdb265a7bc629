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
A block of UCWL settings over a whole stream in one compiled loop, the settings innermost.

``UCWLGrid`` keeps its state as settings x labels x features and sums one row after the
other, one Python call per round.  Here ``mu`` and ``sigma`` are labels x features x
settings: each multiply-add of a dot product is done for every setting of the block by one
loop over contiguous memory, which the compiler turns into vector instructions.  Each
setting's sum keeps its own order of additions (the 8 running sums and the rest left to
right of ``reductions.block_dot``, numpy's pairwise order), because the vector lanes are
different settings, never parts of one sum: the values are ``UCWLGrid``'s bit for bit.
The rounds run inside the compiled loop too, ties included: a setting's generator (seeded
as ``UCWLGrid`` seeds it) is the list of its 32-bit outputs and a position in it, and
``draw`` turns them into numpy's ``Generator.integers`` (Python sees a round only for a NaN
bound or when the list runs out).  The learned rows' steps are
``engine.ucwl_kernels.learn_diag``'s, its step size and entries (``step_size``,
``sigma_step``) taken for every setting of the block at once.

Driven from Python by ``ucwl_grid_stream`` (``run_stream``, ``StreamBlock``) for
``ucwl_grid_run.run_block`` when numba is there, for up to ``reductions.BLOCK`` features
(longer vectors are summed in halves: ``UCWLGrid`` steps them), and only after
``ucwl_grid_stream.disagreement`` found it equal to the numpy grid.
"""

import math
from typing import Callable, NamedTuple

import numpy as np

from ..algorithms.confidence_weighted import sigma_step, step_size
from ..algorithms.ucwl import RAMP_ANSWERS as RAMP
from ..engine.jit import bind, jit
from ..engine.ucwl_kernels import Compiled

LANES = 8
"""Settings per vector of float64 on AVX-512; blocks are cut in multiples of it."""

WORK_ROWS = 21
"""Scratch rows of ``run_rounds``: 16 running sums, x^2, the largest bounds and scores, steps."""

INT_ROWS = 11
"""Rows of ``run_rounds``' integer scratch (at least max(settings, features) long)."""

SUB_BUDGET = 32 * 2 ** 10
"""Bytes of running sums a sub-block keeps (``sub_block``)."""


def sums(x, xx, nz, n_nz, mu, sigma, acc, picked, scores, variances) -> None:
    """
    Fill ``scores = mu_i . x`` and ``variances = sigma_i . x^2`` for every label and setting.

    ``mu`` and ``sigma`` are features x (labels x settings), ``scores`` and ``variances``
    (labels x settings), flat; ``acc`` holds 16 running sums of each, ``picked`` is
    scratch; ``nz[:n_nz]`` are the features where x is not 0, in increasing order.  Each
    sum is ``reductions.block_dot``'s, then ``0.0 +`` as ``pairwise_dot``: running sum r
    adds the products of the features j = r mod 8 in increasing order (four per pass
    over the settings, one after the other).  A feature where x is 0 adds a product of 0
    (``mu`` and ``sigma`` are finite), which changes a running sum at most in the sign of
    a zero, and ``0.0 +`` makes every zero +0.0: leaving those features out (and starting
    each running sum at its first product instead of at a product of 0) gives the same
    bits.
    """
    d, n = mu.shape
    end = d - d % 8 if d >= 8 else 0
    split = 0
    while split < n_nz and nz[split] < end:
        split += 1
    for r in range(8 if d >= 8 else 0):  # sum r takes the features j = r mod 8, in order
        m = 0
        for jj in range(split):
            if nz[jj] % 8 == r:
                picked[m] = nz[jj]
                m += 1
        a, b = r, 8 + r  # rows of acc (indexed, not viewed: a view costs two atomic counts)
        if m == 0:
            for q in range(n):
                acc[a, q] = 0.0
                acc[b, q] = 0.0
            continue
        if m >= 4:  # the first four features in one pass, from their products
            j0, j1, j2, j3 = picked[0], picked[1], picked[2], picked[3]
            x0, x1, x2, x3 = x[j0], x[j1], x[j2], x[j3]
            q0, q1, q2, q3 = xx[j0], xx[j1], xx[j2], xx[j3]
            for q in range(n):
                acc[a, q] = ((mu[j0, q] * x0 + mu[j1, q] * x1) + mu[j2, q] * x2) + mu[j3, q] * x3
                acc[b, q] = (((sigma[j0, q] * q0 + sigma[j1, q] * q1) + sigma[j2, q] * q2)
                             + sigma[j3, q] * q3)
            t = 4
        else:
            j0 = picked[0]
            x0, q0 = x[j0], xx[j0]
            for q in range(n):
                acc[a, q] = mu[j0, q] * x0
                acc[b, q] = sigma[j0, q] * q0
            t = 1
        while t + 3 < m:  # four features per pass: one load and store of the sums
            j0, j1, j2, j3 = picked[t], picked[t + 1], picked[t + 2], picked[t + 3]
            x0, x1, x2, x3 = x[j0], x[j1], x[j2], x[j3]
            q0, q1, q2, q3 = xx[j0], xx[j1], xx[j2], xx[j3]
            for q in range(n):
                acc[a, q] = ((((acc[a, q] + mu[j0, q] * x0) + mu[j1, q] * x1)
                              + mu[j2, q] * x2) + mu[j3, q] * x3)
                acc[b, q] = ((((acc[b, q] + sigma[j0, q] * q0) + sigma[j1, q] * q1)
                              + sigma[j2, q] * q2) + sigma[j3, q] * q3)
            t += 4
        if t + 1 < m:  # at most three left: two of them in one pass
            j0, j1 = picked[t], picked[t + 1]
            x0, x1, q0, q1 = x[j0], x[j1], xx[j0], xx[j1]
            for q in range(n):
                acc[a, q] = (acc[a, q] + mu[j0, q] * x0) + mu[j1, q] * x1
                acc[b, q] = (acc[b, q] + sigma[j0, q] * q0) + sigma[j1, q] * q1
            t += 2
        if t < m:
            j0 = picked[t]
            x0, q0 = x[j0], xx[j0]
            for q in range(n):
                acc[a, q] += mu[j0, q] * x0
                acc[b, q] += sigma[j0, q] * q0
    if d >= 8:
        for q in range(n):
            scores[q] = ((acc[0, q] + acc[1, q]) + (acc[2, q] + acc[3, q])) + (
                (acc[4, q] + acc[5, q]) + (acc[6, q] + acc[7, q]))
            variances[q] = ((acc[8, q] + acc[9, q]) + (acc[10, q] + acc[11, q])) + (
                (acc[12, q] + acc[13, q]) + (acc[14, q] + acc[15, q]))
    else:
        for q in range(n):
            scores[q] = 0.0
            variances[q] = 0.0
    for jj in range(split, n_nz):  # the rest, left to right
        j = nz[jj]
        xj, qj = x[j], xx[j]
        for q in range(n):
            scores[q] += mu[j, q] * xj
            variances[q] += sigma[j, q] * qj
    for q in range(n):
        scores[q] = 0.0 + scores[q]
        variances[q] = 0.0 + variances[q]


def choose(scores, variances, k, bounds, chosen, top, n_top, greedy, top_score,
           n_greedy, plain) -> bool:
    """
    Fill the bounds and each setting's first largest one; True when any setting has a tie.

    ``engine.ucwl_kernels.select_diag`` per setting (labels x settings here), the largest bound
    and score kept in ``top`` and ``top_score``: a tie of the bounds or of the scores is
    left to the caller, which draws it.  ``plain`` is 0 for a setting with a NaN bound or
    score (which the caller's ties treat as numpy's ``max`` does), else 1.
    """
    n_labels, n = scores.shape
    for i in range(n_labels):
        for s in range(n):
            bounds[i, s] = scores[i, s] + k[s] * math.sqrt(max(variances[i, s], 0.0))
    for s in range(n):
        chosen[s] = 0
        greedy[s] = 0
        top[s] = bounds[0, s]
        top_score[s] = scores[0, s]
    for i in range(1, n_labels):
        for s in range(n):
            if bounds[i, s] > top[s]:
                chosen[s] = i
                top[s] = bounds[i, s]
            if scores[i, s] > top_score[s]:
                greedy[s] = i
                top_score[s] = scores[i, s]
    for s in range(n):
        n_top[s] = 0
        n_greedy[s] = 0
        plain[s] = 1
    for i in range(n_labels):
        for s in range(n):
            n_top[s] += bounds[i, s] == top[s]
            n_greedy[s] += scores[i, s] == top_score[s]
            if bounds[i, s] != bounds[i, s] or scores[i, s] != scores[i, s]:
                plain[s] = 0
    tied = False
    for s in range(n):
        tied |= n_top[s] > 1 or n_greedy[s] > 1
    return tied


def draw(U, at, m):
    """
    Return (numpy's ``Generator.integers(m)``, the next ``at``) from 32-bit draws ``U[at:]``.

    numpy 1.26's method for a range below 2**32 (Lemire's multiply and reject): each call
    takes the next 32-bit output of the generator (the low half of a 64-bit one, then its
    high half).  ``U`` (uint64) holds those outputs of the setting's seed in order, so a
    setting's ``at`` stands for its generator; the next ``at`` is -1 when ``U`` ran out.
    ``disagreement`` compares the loop that uses this with numpy's generators.
    """
    low, excl = np.uint64(0xFFFFFFFF), np.uint64(m)
    threshold = (low - (excl - np.uint64(1))) % excl
    while at < U.shape[0]:
        product = U[at] * excl
        at += 1
        if (product & low) >= threshold:
            return np.int64(product >> np.uint64(32)), at
    return np.int64(0), -1


def pick(bounds, top, chosen, draws) -> None:
    """Set ``chosen[s]`` to the ``draws[s]``-th largest bound in label order (-1: leave)."""
    n_labels, n = bounds.shape
    for s in range(n):
        if draws[s] >= 0:
            left = draws[s]
            for i in range(n_labels):
                if bounds[i, s] == top[s]:
                    if left == 0:
                        chosen[s] = i
                        break
                    left -= 1


def draw_ties(U, at, bounds, top, chosen, n_top, n_greedy, plain, draws, ahead) -> bool:
    """
    Draw every setting's ties as ``UCWLGrid`` does, by its ``at`` in ``U``; False: the caller.

    First every draw, nothing kept; then, if no setting has a NaN bound or score (the
    caller treats those as numpy's ``max`` does) and ``U`` sufficed, the draws are kept.
    """
    n = at.shape[0]
    for s in range(n):
        draws[s] = -1
        ahead[s] = at[s]
        if n_top[s] <= 1 and n_greedy[s] <= 1:
            continue
        if not plain[s]:
            return False
        if n_top[s] > 1:
            draws[s], ahead[s] = draw(U, ahead[s], n_top[s])
        if n_greedy[s] > 1 and ahead[s] >= 0:
            ahead[s] = draw(U, ahead[s], n_greedy[s])[1]
        if ahead[s] < 0:
            return False
    for s in range(n):
        at[s] = ahead[s]
    pick(bounds, top, chosen, draws)
    return True


def run_rounds(X, order, y_obs, y_true, u_silent, u_flip, rates, t, resume, mu, sigma, k,
               params, work, ints, scores, variances, bounds, counts, answers, ramp, U,
               at) -> int:
    """
    Run rounds from ``t`` to ``len(order)``; return it, or a round whose ties need the caller.

    Ties are drawn here (``draw_ties``: setting s's generator is ``U`` from ``at[s]``),
    except with a NaN bound or score or when ``U`` runs out: then the round is returned
    and ``resume`` continues it after the caller drew: ``ints[7]`` (one of the largest
    bounds, counted in label order; -1: none) or ``ints[0]`` (``chosen``).
    ``rates`` = (rho0, rho1, no_answer); ``counts`` = (mistakes observed, mistakes true,
    updates) per setting; ``work`` (``WORK_ROWS`` rows) and ``ints`` (``INT_ROWS``) are
    scratch.
    ``ramp`` > 0 (K - 2, ``no_weight`` 'ramp'): each setting's cap of a "no"
    (``params[s, 8]``) follows its chosen label's ``answers`` as ``UCWLGrid.learn`` sets it.
    Each round is ``ucwl_grid_run.run_block``'s: select, count, the person's answer, then
    ``engine.ucwl_kernels.learn_diag`` on each setting's chosen row, its steps taken for all
    settings at once: the step sizes, then whether every step is finite (entry by entry
    only where a bound does not settle it), then the entries, each a loop over the
    settings that step, for one feature.  Features where x is 0 are left out: the step
    leaves their ``mu`` and ``sigma`` as they are, bit for bit.
    """
    n_rounds, d, n_labels, n = order.shape[0], X.shape[1], scores.shape[0], k.shape[0]
    flat = n_labels * n
    mu_flat, sigma_flat = mu.reshape((d, flat)), sigma.reshape((d, flat))
    scores_flat, variances_flat = scores.reshape(flat), variances.reshape(flat)
    acc, xx, top, top_score = work[:16], work[16, :d], work[17, :n], work[18, :n]
    az, coefficient = work[19, :n], work[20, :n]
    chosen, greedy, n_top, n_greedy, nz, picked = ints[0], ints[1], ints[2], ints[3], \
        ints[4], ints[5]
    plain, draws, ahead, steps, at_row = ints[6], ints[7], ints[8, :n], ints[9], ints[10]
    rho0, rho1, no_answer = rates[0], rates[1], rates[2]
    precision = n > 0 and params[0, 6] != 0.0  # one diagonal step for the block
    n_params = params.shape[1]
    settings = params.reshape(n * n_params)  # the same numbers: what step_size takes
    while t < n_rounds:
        x = X[order[t]]
        n_nz = 0
        for j in range(d):
            xx[j] = x[j] * x[j]
            if x[j] != 0.0:
                nz[n_nz] = j
                n_nz += 1
        if not resume:
            sums(x, xx, nz, n_nz, mu_flat, sigma_flat, acc, picked, scores_flat,
                 variances_flat)
            if choose(scores, variances, k, bounds, chosen, top, n_top, greedy, top_score,
                      n_greedy, plain) and not draw_ties(U, at, bounds, top, chosen, n_top,
                                                         n_greedy, plain, draws, ahead):
                return t
        else:  # the caller drew ties: draws[s] = which of the largest bounds, in label order
            pick(bounds, top, chosen, draws)
        resume = False
        label, truth = y_obs[t], y_true[t]
        learn = not u_silent[t] < no_answer
        u = u_flip[t]
        stepping = False
        for s in range(n):
            c = chosen[s]
            right = c == label
            if not right:
                counts[0, s] += 1
            if c != truth:
                counts[1, s] += 1
            az[s] = 0.0
            if not learn:
                continue
            said = right
            if rho0 != 0.0 or rho1 != 0.0:
                said = right != (u < (rho1 if right else rho0))
            if ramp > 0.0:  # UCWLGrid.learn's float operations, then the answer counted
                had = answers[c, s]
                params[s, 8] = params[s, 4] / math.sqrt(1.0 + ramp * (had / (had + RAMP)))
                answers[c, s] = had + 1.0
            z = 1.0 if said else -1.0
            alpha, coefficient[s] = step_size(z, z * scores[c, s], variances[c, s], settings,
                                              s * n_params)
            if alpha > 0.0:
                az[s] = alpha * z
                stepping = True
        if not stepping:
            t += 1
            continue
        # learn_diag refuses a step with a non-finite entry az sigma_j x_j.  Here sigma <= 1
        # (it starts at 1 and no step raises it), so each |az sigma_j x_j| is at most
        # |az| max|x_j| as rounded: when that is finite, so is every entry.
        x_max = 0.0
        for jj in range(n_nz):
            a = abs(x[nz[jj]])
            if a > x_max or a != a:  # NaN stays
                x_max = a
        n_steps = 0  # the settings that step, and where their chosen row is in a feature's
        for s in range(n):
            if az[s] == 0.0:
                continue
            c = chosen[s]
            if not math.isfinite(az[s] * x_max):
                for jj in range(n_nz):
                    j = nz[jj]
                    if not math.isfinite(az[s] * (sigma[j, c, s] * x[j])):
                        az[s] = 0.0
                        break
                if az[s] == 0.0:
                    continue
            counts[2, s] += 1
            steps[n_steps] = s
            at_row[n_steps] = c * n + s
            n_steps += 1
        for jj in range(n_nz):
            j = nz[jj]
            xj = x[j]
            for m in range(n_steps):
                s, o = steps[m], at_row[m]
                sx = sigma_flat[j, o] * xj
                mu_flat[j, o] += az[s] * sx
                sigma_flat[j, o] = sigma_step(sigma_flat[j, o], sx, xj, coefficient[s],
                                              precision)
        t += 1
    return n_rounds


class RoundKernels(NamedTuple):
    """``run_rounds``, compiled."""

    run: Callable


def sub_block(n_labels: int, budget: int = SUB_BUDGET) -> int:
    """
    Return how many settings one pass over the stream steps: a multiple of ``LANES``.

    The 16 running sums of a sub-block (16 x labels x settings float64) stay within
    ``budget`` bytes, so that they stay in the fastest cache.
    """
    return max(LANES, budget // (16 * 8 * int(n_labels)) // LANES * LANES)


def build(steps: Compiled) -> RoundKernels:
    """
    Compile ``run_rounds`` on the learner's compiled steps (``ucwl_grid_stream`` checks it).

    Each callee is compiled first and bound into its caller (``engine.jit.bind``).
    """
    draw_fast, pick_fast = jit(draw), jit(pick)
    ties = jit(bind(draw_ties, draw=draw_fast, pick=pick_fast))
    return RoundKernels(jit(bind(run_rounds, sums=jit(sums), choose=jit(choose),
                                 draw_ties=ties, pick=pick_fast, step_size=steps.step_size,
                                 sigma_step=steps.sigma_step)))
