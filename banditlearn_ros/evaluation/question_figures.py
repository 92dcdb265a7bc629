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
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

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


FIGURE_DPI = 150
MARKERS = 'osD^v<>PX*'


def panels(names: Sequence[str], references: Sequence[str] = ()) -> List[List[str]]:
    """
    Return the curve names grouped into panels: one per algorithm with its ask-again runs.

    ``ucwl``, ``ucwl-q2`` and ``ucwl-qK`` share a panel, names of no such family share
    one, the full-feedback ``references`` share the last one.  Nine lines on one axes
    cannot be told apart; three or four can.
    """
    asked = re.compile(r'-q(\d+|K)$')
    families = {n.rsplit('-q', 1)[0] for n in names if asked.search(n)}
    refs = [n for n in names if n in set(references)]
    groups: Dict[str, List[str]] = {}
    for name in names:
        if name in refs:
            continue
        key = name.rsplit('-q', 1)[0] if asked.search(name) else name
        groups.setdefault(key if key in families else '', []).append(name)
    return [g for g in groups.values() if g] + ([refs] if refs else [])


def reference_names(names: Sequence[str]) -> List[str]:
    """Return the names that are neither ask-again runs nor question counts (the old rule)."""
    return [n for n in names if '-q' not in n and 'question' not in n]


def draw_first_guess(curves: Dict[str, Tuple[np.ndarray, np.ndarray]], title: str,
                     window: Tuple[int, int] = (101, 150),
                     references: Optional[Sequence[str]] = None, x_label: str = 'interaction'):
    """Return the matplotlib figure of ``first_guess_figure`` (not saved, not closed)."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    if references is None:  # not said: the names that are no ask-again run
        references = reference_names(list(curves))
    groups = panels(list(curves), references)
    fig, axes = plt.subplots(len(groups), 1, figsize=(7.2, 2.3 * len(groups) + 0.6),
                             dpi=FIGURE_DPI, sharex=True, sharey=True, squeeze=False)
    for ax, names in zip(axes[:, 0], groups):
        ax.axvspan(window[0], window[1], color='0.9', lw=0,
                   label=f'interactions {window[0]}-{window[1]}')
        for j, name in enumerate(names):
            x, acc = curves[name]
            style = '--' if name in set(references) else '-'
            ax.plot(x, 100 * np.asarray(acc), style, lw=1.3, label=name,
                    marker=MARKERS[j % len(MARKERS)], markersize=3.5,
                    markevery=max(len(x) // 8, 1))
        ax.set_ylim(0, 100)
        ax.set_ylabel('first guess right %', fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc='upper left', bbox_to_anchor=(1.01, 1.0), frameon=False)
    axes[-1, 0].set_xlabel(x_label, fontsize=8)
    axes[0, 0].set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def first_guess_figure(curves: Dict[str, Tuple[np.ndarray, np.ndarray]], title: str,
                       path: str, window: Tuple[int, int] = (101, 150),
                       references: Optional[Sequence[str]] = None) -> str:
    """
    Draw first-guess accuracy against interaction; return ``path``.

    One panel per algorithm with its ask-again runs (``<alg>-q<N>``, ``-qK``), the
    full-feedback ``references`` (dashed) in a panel of their own, markers on every line, the
    legends outside the data, and the interactions of ``window`` shaded and named in the
    legend.  At ``FIGURE_DPI``, written to a temporary name and renamed.
    """
    import matplotlib.pyplot as plt
    fig = draw_first_guess(curves, title, window, references)
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        tmp = path + '.tmp.png'
        fig.savefig(tmp, dpi=FIGURE_DPI, bbox_inches='tight')
        os.replace(tmp, path)
    finally:
        plt.close(fig)
    return path
