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
Tables of banditlearn_evaluate's results: the terminal table, results.md and the UCWL verdict.

Everything here reads summary records (plain dicts, as in summary.json), so ``--replot``
can rewrite results.md from a file without running anything.
"""

from typing import Any, Dict, List, Optional, Tuple

from banditlearn_ros.learning.offline.evaluation_tuning import VARIANTS
from banditlearn_ros.learning.protocol.teacher_model import TeacherModel


def noise_label(teacher: TeacherModel) -> str:
    """Return a short name for a noise setting, e.g. ``p=0.1`` or ``rho=0.2,0.4``."""
    if teacher.rho0 or teacher.rho1:
        text = f'rho={teacher.rho0:g},{teacher.rho1:g}'
    else:
        text = f'p={teacher.label_noise:g}'
    if teacher.no_answer:
        text += f' silent={teacher.no_answer:g}'
    return text


def by_dataset_and_noise(records: List[Dict[str, Any]]
                         ) -> Dict[Tuple[str, str], List[Dict[str, Any]]]:
    """Return the records grouped by (data set, noise name), in the order they come."""
    groups: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault((rec['dataset'], noise_text(rec['noise'])), []).append(rec)
    return groups


def terminal_table(records: List[Dict[str, Any]]) -> str:
    """
    Return the results as plain-text tables for the terminal, one per data set x noise.

    Mean ± sd over the permutations; ``*`` marks a tuned value on the edge of its grid
    (the edges are listed under the table): the grid may not hold the best setting.
    """
    groups = by_dataset_and_noise(records)
    out: List[str] = []
    for (dataset, noise), recs in groups.items():
        recs = sorted(recs, key=lambda r: r['mistake_rate_observed']['mean'])
        rows = [('algorithm', 'feedback', 'observed %', 'true %', 'updates', 's/pass',
                 'settings')]
        for rec in recs:
            params = ', '.join(f'{k}={fmt(v)}' for k, v in rec['params'].items())
            params = ('tuned: ' if rec.get('tuned') else 'fixed: ') + (params or '-')
            rows.append((rec['algorithm'] + (' *' if rec['edge_of_grid'] else ''),
                         rec['feedback'], pct(rec['mistake_rate_observed']),
                         pct(rec['mistake_rate_true']), f"{rec['updates']['mean']:.0f}",
                         f"{rec['seconds']['mean']:.3f}", params))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
        n_perm = recs[0].get('permutations', '?')
        out.append(f'{dataset}, {noise}: {n_perm} permutations x {recs[0].get("rounds", "?")} '
                   'rounds, mistake rates mean ± sd')
        for j, row in enumerate(rows):
            cells = [row[i].ljust(widths[i]) if i < 2 else row[i].rjust(widths[i])
                     for i in range(len(widths))]
            out.append('  ' + '  '.join(cells) + '  ' + row[-1])
            if j == 0:
                out.append('  ' + '  '.join('-' * w for w in widths) + '  ' + '-' * 8)
        for rec in recs:
            if rec['edge_of_grid']:
                out.append(f"  * {rec['algorithm']}: edge of grid: "
                           + '; '.join(rec['edge_of_grid']))
        verdict = compare(recs)
        if verdict:
            out.append('  ' + verdict)
        out.append('')
    return '\n'.join(out)


def pct(stat: Dict[str, float]) -> str:
    """Return a rate's mean and standard deviation in percent, e.g. ``25.0 ± 5.0``."""
    return f"{100 * stat['mean']:.1f} ± {100 * stat['std']:.1f}"


def markdown(records: List[Dict[str, Any]], info: Dict[str, Any]) -> str:
    """Return the results as Markdown tables, one per data set x noise setting."""
    lines = ['# banditlearn_evaluate results', '',
             f"Command: `{info['command']}`  ", f"Seed {info['seed']}, "
             f"{info['permutations']} permutations, "
             f"tuning_permutations={info.get('tuning_permutations', 1)} (separate "
             "permutations whose mean picks the parameters; 1 = the paper's protocol), "
             f"machine: {info['machine']}  ",
             'Versions: ' + ', '.join(f'{k} {v}' for k, v in info['versions'].items()), '',
             'Mistake rates in % (mean ± std over the permutations); observed = against '
             'the label the person had in mind, true = against the true label. '
             '`*` marks a tuned value on the edge of its grid.', '']
    groups = by_dataset_and_noise(records)
    lines += overview(records)
    for (dataset, noise), recs in groups.items():
        lines += [f'## {dataset}, {noise}', '',
                  '| algorithm | feedback | observed % | true % | updates | seconds | '
                  'parameters |',
                  '| --- | --- | --- | --- | --- | --- | --- |']
        for rec in sorted(recs, key=lambda r: r['mistake_rate_observed']['mean']):
            params = ', '.join(f'{k}={fmt(v)}' for k, v in rec['params'].items())
            if rec['edge_of_grid']:
                params += ' *'
            lines.append(
                f"| {rec['algorithm']} | {rec['feedback']} | {pct(rec['mistake_rate_observed'])}"
                f" | {pct(rec['mistake_rate_true'])} | {rec['updates']['mean']:.0f} | "
                f"{rec['seconds']['mean']:.3f} | {params} |")
        verdict = compare(recs)
        if verdict:
            lines += ['', verdict]
        edges = [f"{r['algorithm']}: {'; '.join(r['edge_of_grid'])}" for r in recs
                 if r['edge_of_grid']]
        if edges:
            lines += ['', 'Edge of grid: ' + ' | '.join(edges)]
        lines.append('')
        lines += questions_table(recs)
    return '\n'.join(lines)


def questions_table(recs: List[Dict[str, Any]]) -> List[str]:
    """Return the ask-again table of one data set x noise setting (empty without such runs)."""
    asking = [r for r in recs if 'questions_per_interaction' in r]
    if not asking:
        return []
    lines = ['Asking again after a no (`--max-questions`): mistakes are those of the first '
             'guess; the one-question runs and the full-feedback references above are on '
             'the same permutations.', '',
             '| algorithm | first guess observed % | true % | questions / interaction | '
             'answers / interaction | ended yes / out of questions / all rejected % |',
             '| --- | --- | --- | --- | --- | --- |']
    for rec in asking:
        o = rec.get('outcomes', {})
        lines.append(
            f"| {rec['algorithm']} | {pct(rec['mistake_rate_observed'])} | "
            f"{pct(rec['mistake_rate_true'])} | "
            f"{rec['questions_per_interaction']['mean']:.2f} | "
            f"{rec['answers_per_interaction']['mean']:.2f} | "
            f"{100 * o.get('yes', 0):.1f} / {100 * o.get('out_of_questions', 0):.1f} / "
            f"{100 * o.get('all_rejected', 0):.1f} |")
    return lines + ['']


def overview(records: List[Dict[str, Any]]) -> List[str]:
    """Return one compact table per data set: algorithms x noise settings, observed %."""
    lines: List[str] = []
    datasets = list(dict.fromkeys(r['dataset'] for r in records))
    for dataset in datasets:
        recs = [r for r in records if r['dataset'] == dataset]
        noises = list(dict.fromkeys(noise_text(r['noise']) for r in recs))
        algos = list(dict.fromkeys(r['algorithm'] for r in recs))
        cell = {(r['algorithm'], noise_text(r['noise'])): r for r in recs}
        lines += [f'## Overview: {dataset}, observed-label online mistake rate %', '',
                  '| algorithm | feedback | ' + ' | '.join(noises) + ' |',
                  '| --- | --- |' + ' --- |' * len(noises)]
        for algo in algos:
            row = []
            for noise in noises:
                rec = cell.get((algo, noise))
                row.append('' if rec is None else
                           f"{100 * rec['mistake_rate_observed']['mean']:.1f}")
            feedback = next(r['feedback'] for r in recs if r['algorithm'] == algo)
            lines.append(f'| {algo} | {feedback} | ' + ' | '.join(row) + ' |')
        gaps = []
        for noise in noises:
            verdict = compare([r for r in recs if noise_text(r['noise']) == noise])
            if verdict:
                gaps.append(f'- {noise}: {verdict}')
        lines += [''] + gaps + ([''] if gaps else [])
    return lines


def compare(recs: List[Dict[str, Any]]) -> Optional[str]:
    """Return a sentence comparing UCWL with the best Vowpal Wabbit --cbify option."""
    rate = {r['algorithm']: r['mistake_rate_observed']['mean'] for r in recs}
    vw = {k: v for k, v in rate.items() if k.startswith('vw-') and k != 'vw-oaa'}
    if 'ucwl' not in rate or not vw:
        return None
    best = min(vw, key=vw.get)
    sentences = []
    for name in ['ucwl'] + [v for v in VARIANTS if v in rate]:
        gap = 100 * (vw[best] - rate[name])
        word = 'below' if gap > 0 else 'above'
        label = 'UCWL' if name == 'ucwl' else name
        sentences.append(f'{label} is {abs(gap):.1f} points {word} it'
                         + (f' ({100 * rate[name]:.1f} %)' if name != 'ucwl' else ''))
    return (f"UCWL {100 * rate['ucwl']:.1f} % vs best VW --cbify option {best} "
            f'{100 * vw[best]:.1f} %: ' + '; '.join(sentences) + '.')


def fmt(v: Any) -> str:
    """Return a parameter value as a table shows it (floats in ``%g``)."""
    return f'{v:g}' if isinstance(v, float) else str(v)


def noise_text(noise: Dict[str, float]) -> str:
    """Return the short name of a summary record's noise setting."""
    return noise_label(TeacherModel(**noise))


TUNED_ALGORITHM = 'ucwl'
"""The learner node's default algorithm: the one whose tuned settings ``--params-out`` writes."""


def tuned_params_files(records: List[Dict[str, Any]], command: str) -> Dict[str, str]:
    """
    Return, per data set, a ROS parameter file with the learner settings tuned for it.

    The ``ucwl`` record of the first noise setting that was tuned; its settings go under
    ``/**/learner_node`` (any namespace), so the file can be loaded over params.yaml.
    Data sets with no such record are left out.
    """
    files: Dict[str, str] = {}
    for record in records:
        name = record['dataset']
        if record['algorithm'] != TUNED_ALGORITHM or not record.get('tuned') or name in files:
            continue
        rate = 100 * record['mistake_rate_observed']['mean']
        lines = [
            f'# Learner settings tuned for the data set {name} by banditlearn_evaluate, as the',
            '# papers tune (Ngo et al. 2013, section 5: on permutations never reported), at',
            f"# noise {noise_text(record['noise'])}: mean observed mistake rate {rate:.1f} % over "
            f"{record['permutations']} reported permutations.",
            f'# Made by: {command}',
            '/**/learner_node:', '  ros__parameters:']
        lines += [f'    {key}: {_yaml_scalar(value)}' for key, value in record['params'].items()]
        files[name] = '\n'.join(lines) + '\n'
    return files


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"
