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
The UCWL grid's block steps: every setting of a block summed, chosen and stepped in one call.

Written for numba (``build_blocks`` compiles them on the learner's compiled sums and step,
``engine.ucwl_kernels``); ``ucwl_grid.grid_kernels`` checks them against the numpy grid
before ``UCWLGrid`` uses them.
"""

import math
from typing import Callable, NamedTuple

from ..algorithms.reductions import BLOCK, pairwise_dot, two_block_dots
from ..engine.jit import bind, jit
from ..engine.ucwl_kernels import Compiled, learn_diag


def select_block(x, xx, mu, sigma, k, scores, variances, bounds, chosen, tied) -> None:
    """
    Sum, bound and choose for every setting of a block, in one call.

    Each setting's ``scores``, ``variances`` and ``bounds`` (settings x labels) are
    ``engine.ucwl_kernels.select_diag``'s, with the dot products ``reductions.pairwise_dot``, as
    the numpy code's ``row_dots``; ``chosen`` gets the first largest bound, and ``tied``
    marks the settings whose largest bound or score is shared (their caller draws).
    """
    n_settings, n_labels = scores.shape
    d = x.shape[0]
    short = 8 <= d <= BLOCK
    for s in range(n_settings):
        weight = k[s]
        best, greedy = 0, 0
        rows_mu, rows_sigma = mu[s], sigma[s]
        for i in range(n_labels):
            if short:
                score, variance = two_block_dots(rows_mu, rows_sigma, i, x, xx, d)
            else:
                score, variance = pairwise_dot(mu[s, i], x), pairwise_dot(sigma[s, i], xx)
            scores[s, i] = score
            variances[s, i] = variance
            bounds[s, i] = score + weight * math.sqrt(max(variance, 0.0))
            if bounds[s, i] > bounds[s, best]:
                best = i
            if score > scores[s, greedy]:
                greedy = i
        n_best, n_greedy = 0, 0
        for i in range(n_labels):
            if bounds[s, i] == bounds[s, best]:
                n_best += 1
            if scores[s, i] == scores[s, greedy]:
                n_greedy += 1
        chosen[s] = best
        tied[s] = n_best > 1 or n_greedy > 1


def learn_block(x, mu, sigma, chosen, z, active, scores, variances, params, n_updates,
                changed) -> None:
    """
    Step each active setting's chosen row with ``engine.ucwl_kernels.learn_diag``, in one call.

    ``m`` and ``v`` are the chosen row's sums from ``select_block`` (the same rows summed
    the same way as the numpy code's ``row_dots`` of the taken rows).
    """
    for s in range(chosen.shape[0]):
        if not active[s]:
            continue
        i = chosen[s]
        sign = z[s]
        if learn_diag(mu[s], sigma[s], i, x, sign, sign * scores[s, i], variances[s, i],
                      params[s], 0) == 1:
            n_updates[s] += 1
            changed[s] = True


class GridKernels(NamedTuple):
    """``select_block`` and ``learn_block``, compiled."""

    select: Callable
    learn: Callable


def build_blocks(steps: Compiled) -> GridKernels:
    """Compile the block steps, bound to the learner's compiled sums and step."""
    sums = {'pairwise_dot': steps.pairwise_dot, 'two_block_dots': steps.two_block_dots}
    return GridKernels(jit(bind(select_block, **sums)),
                       jit(bind(learn_block, learn_diag=steps.learn_diag)))
