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

"""The ask-again learning curve: first-guess accuracy by interaction, for 1, 2, 3, K questions."""

import os
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np


def windowed_from_cumulative(rounds: Sequence[int], rates: Sequence[float]
                             ) -> Tuple[np.ndarray, np.ndarray]:
    """
    Return (interaction, accuracy) between the sample points of a cumulative mistake rate.

    ``rates[j]`` is the mean cumulative mistake rate after ``rounds[j]`` interactions (the
    ``curve_observed`` of a summary record); the accuracy between two points is
    ``1 - (mistakes_j - mistakes_i) / (rounds_j - rounds_i)``, plotted at their midpoint.
    """
    r = np.asarray(rounds, dtype=np.float64)
    m = r * np.asarray(rates, dtype=np.float64)
    if len(r) < 2:
        return np.array([]), np.array([])
    return 0.5 * (r[1:] + r[:-1]), 1.0 - np.diff(m) / np.diff(r)


def records_curves(records: List[Dict[str, Any]]) -> Dict[str, Tuple[np.ndarray, np.ndarray]]:
    """Return {algorithm: (interaction, first-guess accuracy)} from summary records."""
    out = {}
    for rec in records:
        curve = rec.get('curve_observed')
        if curve:
            out[rec['algorithm']] = windowed_from_cumulative(curve['round'], curve['rate'])
    return out


def first_guess_figure(curves: Dict[str, Tuple[np.ndarray, np.ndarray]], title: str,
                       path: str, window: Tuple[int, int] = (101, 150)) -> str:
    """
    Draw first-guess accuracy against interaction, one line per protocol; return ``path``.

    Names ending in ``-q<N>`` / ``-qK`` are ask-again runs (solid), others references
    (dashed); ``window`` is shaded (the interactions the done-when figures use).
    """
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5.2, 3.2), dpi=80)
    ax.axvspan(window[0], window[1], color='0.9', lw=0)
    for name, (x, acc) in curves.items():
        style = '-' if '-q' in name or 'question' in name else '--'
        ax.plot(x, 100 * np.asarray(acc), style, lw=1.4, label=name)
    ax.set_xlabel('interaction (presented gesture)', fontsize=8)
    ax.set_ylabel('first-guess accuracy %', fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.set_ylim(0, 100)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=6, loc='lower right')
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
