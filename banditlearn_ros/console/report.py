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

"""The end of a teaching session: its learning-curve figure and its one-line summary."""

import json
import math
import os
import textwrap
import threading
from typing import Any, Dict, List, Optional

from banditlearn_ros.learning.protocol.session import SessionLog


def preload_plotting() -> threading.Thread:
    """
    Import matplotlib (Agg) in a thread; return it, started.

    The import takes 0.5-2.5 s and otherwise comes between a session's last line and its
    summary.  The bring-up runs it while it waits for discovery, when no node is spun yet;
    a failed import is left for ``plot_learning_curve`` to meet and report.

    Returns
    -------
    threading.Thread
        The started thread; join it before the nodes are spun.

    """
    def load() -> None:
        try:
            import matplotlib
            matplotlib.use('Agg')
            from matplotlib import pyplot  # noqa: F401
        except Exception:  # the same import fails again later and is reported there
            pass
    thread = threading.Thread(target=load, name='preload_plotting', daemon=True)
    thread.start()
    return thread


def plot_learning_curve(log: SessionLog, path: str, title: str = '',
                        n_labels: Optional[int] = None) -> str:
    """
    Draw the first-guess accuracy per interaction (windowed and cumulative) to a PNG.

    Parameters
    ----------
    log : SessionLog
        The session.
    path : str
        Where to write the figure (written to a temporary name, then renamed).
    title : str
        Figure title.
    n_labels : int, optional
        Labels the learner chooses from, for the chance line (default: those the session
        saw, which can be more than the learner's when gestures it was never taught came).

    Returns
    -------
    str
        ``path``.

    """
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import pyplot as plt
    t, windowed, cumulative = log.curve()
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    try:
        ax.plot(t, windowed, color='tab:blue', label=f'last {log.window} interactions')
        ax.plot(t, cumulative, color='tab:gray', linestyle='--', label='since the start')
        labels = max(n_labels or len(log.labels()), 1)
        ax.axhline(1.0 / labels, color='tab:red', linestyle=':', linewidth=1,
                   label=f'chance (1/{labels})')
        ax.set_xlabel('interaction (presented gesture)')
        ax.set_ylabel('first guess right')
        ax.set_ylim(0.0, 1.02)
        ax.set_xlim(0, max(int(t[-1]) if t.size else 1, 1))
        ax.grid(alpha=0.3)
        ax.legend(loc='lower right')
        ax.set_title(title or 'banditlearn_ros: learning from yes/no')
        fig.tight_layout()
        tmp = path + '.tmp.png'
        fig.savefig(tmp)
        os.replace(tmp, path)
    finally:
        plt.close(fig)
    return path


def session_summary(log: SessionLog, model: Optional[str], curve: Optional[str],
                    labels: Optional[List[str]] = None, **extra: Any) -> Dict[str, Any]:
    """
    Return the summary record: the keys of the one-line JSON the session ends with.

    ``labels`` are the learner's, in its order (default: those seen in the session).
    ``judged`` counts the interactions the accuracies are over: those whose first guess
    was judged (the shown gesture known, or a first answer given).
    """
    last = log.accuracy(50)
    qpi = log.questions_per_interaction()
    out: Dict[str, Any] = {
        'interactions': log.interactions,
        'labels': list(labels) if labels is not None else log.labels(),
        'accuracy_last_50': None if math.isnan(last) else round(last, 4),
        'accuracy': None if math.isnan(log.accuracy()) else round(log.accuracy(), 4),
        'judged': int(log.first_right().size),
        'questions_per_interaction': None if math.isnan(qpi) else round(qpi, 4),
        'model': model,
        'curve': curve,
    }
    out.update(extra)
    return out


def summary_line(summary: Dict[str, Any]) -> str:
    """Return the summary as one line of JSON."""
    return json.dumps(summary, separators=(', ', ': '))


def summary_sentence(summary: Dict[str, Any]) -> str:
    """
    Return what the session learned in words, for the person (the JSON line is for scripts).

    >>> print(summary_sentence({'interactions': 3, 'labels': ['a', 'b'], 'model': 'm.npz',
    ...                         'accuracy_last_50': 0.5, 'questions_per_interaction': 1.5}))
    Learned 2 gestures (a, b) in 3 interactions: 50 % of first guesses right over
    the last 3, 1.50 questions each. Model: m.npz.
    """
    labels = summary.get('labels') or []
    n = summary.get('interactions', 0)
    text = (f'Learned {len(labels)} gesture{"s" * (len(labels) != 1)} ({", ".join(labels)}) '
            f'in {n} interactions')
    accuracy, qpi = summary.get('accuracy_last_50'), summary.get('questions_per_interaction')
    if isinstance(accuracy, float) and math.isfinite(accuracy):
        text += (f': {100.0 * accuracy:.0f} % of first guesses right over the last '
                 f'{min(50, summary.get("judged", n) or n)}')
        if isinstance(qpi, float) and math.isfinite(qpi):
            text += f', {qpi:.2f} questions each'
    text += '.'
    never = summary.get('never_taught')
    if never:
        text += (f' Never taught: {never["shown"]} shown, {never["rejected"]} said to be '
                 f'unknown, {never["questions_per_gesture"]:.2f} questions each; taught '
                 f'gestures rejected: {never["taught_rejected"]}.')
    files = [f'{name}: {summary[key]}' for name, key in (('Model', 'model'), ('curve', 'curve'))
             if summary.get(key)]
    text += ' ' + '; '.join(files) + '.' if files else ''
    # Lines for an 80-column terminal; a figure keeps its ' %'.
    return textwrap.fill(text.replace(' %', '\0%'), 79).replace('\0%', ' %')
