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
SynSep: the separable synthetic "text" data set of Kakade, Shalev-Shwartz and Tewari 2008.

Seed 004 (section 4) uses it: 9 classes, 400 dimensions, linearly separable.  The
construction (Kakade et al. 2008, Figure 1) imitates documents over a vocabulary of 400
words: the first 120 words carry the topic, the last 280 are noise.

What is implemented here:

1. For each of the 9 classes a prototype bit vector ``v_j`` with ``N_j`` ones, ``N_j``
   drawn uniformly from 20..40, placed at random among the first 120 coordinates.
2. An example of class j (class drawn uniformly): ``x = v_j`` with 5 of its ones turned
   off at random and 20 of the 280 noise coordinates turned on at random.
3. Separability is guaranteed, not hoped for: prototypes are redrawn until every pair
   overlaps in fewer than ``N_j - 5`` words.  Then ``w_i = 2 v_i - 1[first 120]`` scores
   the own class ``N_j - 5`` and any other class at most ``2 |v_i & v_j| - (N_j - 5)``,
   so it separates every example with a margin of at least 2 (``separating_weights``).

Everything comes from one seeded generator, so a seed gives the same data set.  The
paper's sizes are 10^6 (Kakade et al.) and 10^5 (Agarwal and Manwani 2021); the default here
is 10^4,
enough for a one-pass learning curve and fast enough for the evaluation tool's grids.
"""

from typing import List, Tuple

import numpy as np

N_CLASSES = 9
N_FEATURES = 400
N_TOPIC = 120
TURN_OFF = 5
TURN_ON = 20


def prototypes(rng: np.random.Generator) -> List[np.ndarray]:
    """Draw the 9 topic-word sets, redrawing until the separability condition holds."""
    while True:
        protos = []
        for _ in range(N_CLASSES):
            size = int(rng.integers(20, 41))
            protos.append(np.sort(rng.choice(N_TOPIC, size, replace=False)))
        sets = [set(p.tolist()) for p in protos]
        ok = all(len(sets[i] & sets[j]) < len(protos[j]) - TURN_OFF
                 for j in range(N_CLASSES) for i in range(N_CLASSES) if i != j)
        if ok:
            return protos


def make_synsep(n: int = 10000, seed: int = 0) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """
    Generate SynSep with ``n`` examples from ``seed``.

    Returns
    -------
    tuple
        ``(X, y, label_names)``: X is n x 400 with entries in {0, 1}.

    """
    if int(n) < 1:
        raise ValueError(f'SynSep needs at least one example, got n={n}')
    rng = np.random.default_rng([int(seed), 4008])
    protos = prototypes(rng)
    y = rng.integers(0, N_CLASSES, int(n))
    X = np.zeros((int(n), N_FEATURES))
    for i, label in enumerate(y.tolist()):
        on = protos[label]
        off = rng.choice(on.size, TURN_OFF, replace=False)
        X[i, np.delete(on, off)] = 1.0
        X[i, N_TOPIC + rng.choice(N_FEATURES - N_TOPIC, TURN_ON, replace=False)] = 1.0
    # (No f-string: pydocstyle's parser on Python 3.12 misreads the word class inside one.)
    return X, y.astype(np.int64), ['class' + str(j) for j in range(N_CLASSES)]


def separating_weights(seed: int = 0) -> np.ndarray:
    """Return the 9 x 400 weights ``2 v_i - 1[first 120]`` that separate SynSep(seed)."""
    protos = prototypes(np.random.default_rng([int(seed), 4008]))
    W = np.zeros((N_CLASSES, N_FEATURES))
    W[:, :N_TOPIC] = -1.0
    for j, p in enumerate(protos):
        W[j, p] = 1.0
    return W


def load_synsep(spec: str = 'synsep') -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """Load ``synsep``, ``synsep:N`` or ``synsep:N:SEED`` (N examples, generator seed)."""
    parts = spec.split(':')
    if parts[0] != 'synsep' or len(parts) > 3:
        raise ValueError(f'{spec!r}: use synsep, synsep:N or synsep:N:SEED')
    try:
        n = int(parts[1]) if len(parts) > 1 else 10000
        seed = int(parts[2]) if len(parts) > 2 else 0
    except ValueError:
        raise ValueError(f'{spec!r}: N and SEED must be whole numbers') from None
    return make_synsep(n, seed)
