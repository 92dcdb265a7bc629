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
Figures of banditlearn_evaluate: learning curves, updates, runtime and first guesses.

Drawn from summary records, so ``--replot`` can redraw them from a summary.json.
"""

import os
from typing import Any, Dict, List

from banditlearn_ros.evaluation.question_figures import first_guess_figure, records_curves
from banditlearn_ros.evaluation.report import by_dataset_and_noise, noise_text
import numpy as np


def question_figures(records: List[Dict[str, Any]], out: str) -> None:
    """Draw first-guess accuracy by interaction per data set x noise, when some run asked again."""
    groups = by_dataset_and_noise(records)
    for (dataset, noise), recs in groups.items():
        asking = [r for r in recs if 'questions_per_interaction' in r]
        if not asking:
            continue
        noise_slug = ''.join(c if c.isalnum() else '_' for c in noise)
        bases = {r['algorithm'].rsplit('-q', 1)[0] for r in asking}
        shown = [r for r in recs if r['algorithm'] in bases or r in asking
                 or r['feedback'] == 'full']
        first_guess_figure(records_curves(shown), f'{dataset}, {noise}: first guesses',
                           os.path.join(out, f'{slug(dataset)}_{noise_slug}_first_guess.png'),
                           references=[r['algorithm'] for r in shown if r['feedback'] == 'full'])


FIGURE_DPI = 150
"""Resolution of every figure (readable when shown at full width in a document)."""

FAMILIES = (('bandit learners (yes/no feedback)', lambda r: r['feedback'] == 'bandit'
             and not r['algorithm'].startswith('vw-')),
            ('full-feedback references', lambda r: r['feedback'] == 'full'
             and not r['algorithm'].startswith('vw-')),
            ('Vowpal Wabbit', lambda r: r['algorithm'].startswith('vw-')))
"""Rows of the learning-curve figure; UCWL is drawn in every row as the reference."""


def figures(records: List[Dict[str, Any]], out: str) -> None:
    """
    Write per data set: learning curves (as Ngo et al. 2013, Fig. 2), updates and runtime bars.

    Drawn from summary records (their sampled mean curves), so ``--replot`` can redraw
    them from a summary.json.  Curves: one row per family of algorithms (``FAMILIES``)
    and one column per noise setting (wrapping after four), UCWL (black, thick) in every
    row, legends outside the axes.  Bars: legend outside the axes.  All at ``FIGURE_DPI``.
    """
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    os.makedirs(out, exist_ok=True)
    by_data: Dict[str, Dict[str, List[Dict[str, Any]]]] = {}
    for rec in records:
        by_data.setdefault(rec['dataset'], {}).setdefault(
            noise_text(rec['noise']), []).append(rec)
    for dataset, by_noise in by_data.items():
        stem = slug(dataset)
        names = list(dict.fromkeys(r['algorithm'] for recs in by_noise.values() for r in recs))
        all_recs = [r for recs in by_noise.values() for r in recs]
        families = [(title, test) for title, test in FAMILIES
                    if any(test(r) and r['algorithm'] != 'ucwl' for r in all_recs)]
        families = families or FAMILIES[:1]
        cmap = plt.get_cmap('tab10')
        n = len(by_noise)
        cols = min(n, 4)  # noise settings wrap after 4 columns: one block of rows each
        blocks = (n + cols - 1) // cols
        nf = len(families)
        fig, axes = plt.subplots(nf * blocks, cols, figsize=(3.6 * cols + 2.2,
                                                             2.8 * nf * blocks),
                                 squeeze=False, dpi=FIGURE_DPI, sharey=True)
        for ax in axes.flat[:]:
            ax.axis('off')
        for fam, (title, test) in enumerate(families):
            members = [a for a in names
                       if any(r['algorithm'] == a and test(r) for r in all_recs)]
            color = {a: cmap(i % 10) for i, a in enumerate(x for x in members if x != 'ucwl')}
            color['ucwl'] = 'k'
            for j, (noise, recs) in enumerate(by_noise.items()):
                row, col = (j // cols) * nf + fam, j % cols
                ax = axes[row, col]
                ax.axis('on')
                for rec in recs:
                    name = rec['algorithm']
                    curve = rec.get('curve_observed')
                    if not curve or (name != 'ucwl' and not test(rec)):
                        continue
                    style = '--' if rec['feedback'] == 'full' else (
                        ':' if name.startswith('vw-') else '-')
                    ax.plot(curve['round'], [100 * v for v in curve['rate']], style,
                            lw=2.2 if name == 'ucwl' else 1.3, label=name,
                            color=color.get(name, 'grey'))
                ax.set_title(f'{dataset}, {noise}' if fam == 0 else '', fontsize=10)
                ax.set_xlabel('rounds' if fam == nf - 1 else '', fontsize=9)
                if col == 0:
                    ax.set_ylabel(f'mistake rate %\n{title}', fontsize=9)
                ax.tick_params(labelsize=8)
                ax.set_ylim(0, 100)
                ax.grid(alpha=0.3)
                if col == cols - 1 or j == n - 1:
                    ax.legend(loc='upper left', bbox_to_anchor=(1.02, 1.0), fontsize=8,
                              frameon=False)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f'{stem}_curves.png'), bbox_inches='tight')
        plt.close(fig)
        for what, key, unit in (('updates', 'updates', 'model updates per pass'),
                                ('runtime', 'seconds', 'seconds per pass')):
            fig, ax = plt.subplots(figsize=(max(5.0, 0.45 * len(names) + 2.5), 3.2),
                                   dpi=FIGURE_DPI)
            width = 0.8 / n
            for j, (noise, recs) in enumerate(by_noise.items()):
                vals = {r['algorithm']: r[key]['mean'] for r in recs}
                ax.bar(np.arange(len(names)) + j * width,
                       [vals.get(a, np.nan) for a in names], width, label=noise)
            ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2)
            ax.set_xticklabels(names, rotation=60, fontsize=8, ha='right')
            ax.set_ylabel(unit, fontsize=9)
            if key == 'seconds':
                ax.set_yscale('log')
            ax.set_title(f'{dataset}: {what}', fontsize=10)
            ax.legend(fontsize=8, loc='upper left', bbox_to_anchor=(1.01, 1.0), frameon=False,
                      title='noise', title_fontsize=8)
            fig.tight_layout()
            fig.savefig(os.path.join(out, f'{stem}_{what}.png'), bbox_inches='tight')
            plt.close(fig)


def slug(text: str) -> str:
    """Return a file-name stem for a data set name or path (letters and digits, else _)."""
    base = os.path.splitext(os.path.basename(text))[0]
    return ''.join(c if c.isalnum() else '_' for c in base)
