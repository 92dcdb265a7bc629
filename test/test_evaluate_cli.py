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

"""banditlearn_evaluate: help, readable errors, outputs and reproducibility (small runs)."""

import json
import os
import subprocess
import sys

from banditlearn_ros.evaluation import run as evaluation_run
from banditlearn_ros.evaluation.figures import slug
from banditlearn_ros.evaluation.options import expand_algorithms
from banditlearn_ros.evaluation.report import compare, terminal_table
from banditlearn_ros.evaluation.run import GRID_SHARE, task_rounds
from banditlearn_ros.learning.offline import vowpal
from banditlearn_ros.learning.offline.evaluation import count_runs
from banditlearn_ros.tools import evaluate
import numpy as np
from PIL import Image
import pytest


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, '-m', 'banditlearn_ros.tools.evaluate', *args],
                          capture_output=True, text=True, timeout=240, cwd=cwd)


def test_help_documents_the_options(capsys):
    with pytest.raises(SystemExit) as exc:
        evaluate.main(['--help'])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for option in ('--datasets', '--label-noise', '--flip', '--no-answer', '--algorithms',
                   '--params', '--no-tune', '--wide-grids', '--permutations', '--seed',
                   '--out', '--figures', 'synsep', 'vw-oaa', '--tuning-permutations',
                   'data files', '.csv', '.npz', 'last column', 'summary.json'):
        assert option in text


@pytest.mark.parametrize('args,words', [
    (['--datasets', 'no_such_file.csv'], 'no such file'),
    (['--datasets', 'iris', '--algorithms', 'nope'], "unknown algorithm 'nope'"),
    (['--datasets', 'iris', '--flip', '0.6,0.6'], 'rho0 + rho1'),
    (['--datasets', 'iris', '--flip', '0.2'], 'RHO0,RHO1'),
    (['--datasets', 'iris', '--label-noise', '1.5'], 'label_noise'),
    (['--datasets', 'iris', '--algorithms', 'ucwl', '--params', 'ucwl:eta=2'], 'eta'),
    (['--datasets', 'iris', '--algorithms', 'ucwl', '--params', 'ucwl:eta'], 'key=value'),
    (['--datasets', 'iris', '--algorithms', 'ucwl', '--params', 'mpa:C=1'], 'not being run'),
    (['--datasets', 'iris', '--permutations', '0'], '--permutations'),
    (['--datasets', 'iris', '--tuning-permutations', '0'], '--tuning-permutations'),
    (['--datasets', 'synsep:abc'], 'whole numbers'),
    (['--datasets', 'foo'], "unknown data set 'foo'; choose from digits, iris, wine, synsep"),
    (['--datasets', 'iris', '--algorithms', 'ucwl', '--params', 'ucwl:zz=1'],
     "--params ucwl: unknown hyperparameter 'zz'; ucwl has eta, C, k"),
    (['--datasets', 'iris', '--algorithms', 'ucwl-variance', '--params',
      'ucwl-variance:eta=0.9,q=2'], "unknown hyperparameter 'q'"),
    (['--permutations', 'x'], 'invalid int'),
])
def test_bad_input_exits_non_zero_with_one_readable_line(tmp_path, capsys, args, words):
    try:
        code = evaluate.main([*args, '--out', str(tmp_path / 'out'), '--no-progress'])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    assert code != 0
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert 'Traceback' not in err and words in lines[0]
    assert not (tmp_path / 'out' / 'summary.json').exists()


def test_console_command_reports_bad_input_without_traceback(tmp_path):
    res = _cli('--datasets', 'missing.npz', '--out', str(tmp_path))
    assert res.returncode == 2
    assert res.stderr.strip() == 'banditlearn_evaluate: error: missing.npz: no such file'


@pytest.mark.slow
def test_small_run_writes_summary_table_and_figures(tmp_path):
    out, figs = tmp_path / 'out', tmp_path / 'figs'
    algos = ['ucwl', 'mpa', 'perceptron'] + (['vw-epsilon'] if vowpal.available() else [])
    args = ['--datasets', 'iris', '--label-noise', '0', '0.2', '--flip', '0.2,0.4',
            '--permutations', '2', '--seed', '3', '--out', str(out), '--figures', str(figs),
            '--algorithms', *algos, '--params', 'ucwl:eta=0.9,C=1', '--no-progress']
    if 'vw-epsilon' in algos:
        args += ['--params', 'vw-epsilon:epsilon=0.1,learning_rate=2']
    res = _cli(*args)
    assert res.returncode == 0, res.stderr
    summary = json.loads((out / 'summary.json').read_text())
    records = summary['records']
    # ucwl brings the papers' exact UCWL (no centring) beside it.
    assert len(records) == 3 * (len(algos) + 1)
    assert {r['algorithm'] for r in records} == set(algos) | {'ucwl-paper'}
    ucwl = [r for r in records if r['algorithm'] == 'ucwl']
    assert all(r['params']['centring'] == 'running' for r in ucwl)
    assert all('centring' not in r['params'] for r in records if r['algorithm'] == 'ucwl-paper')
    assert all(r['params']['eta'] == 0.9 and r['params']['C'] == 1 for r in ucwl)
    assert all(r['tuned'] for r in ucwl)  # k is still tuned
    for rec in records:
        assert rec['permutations'] == 2 and rec['rounds'] == 150
        for key in ('mistake_rate_observed', 'mistake_rate_true', 'updates', 'seconds'):
            assert set(rec[key]) == {'mean', 'std'}
    noisy = [r for r in records if r['noise']['label_noise'] == 0.2]
    assert any(r['mistake_rate_observed']['mean'] != r['mistake_rate_true']['mean']
               for r in noisy)
    table = (out / 'results.md').read_text()
    assert '## iris, p=0.2' in table and '## iris, rho=0.2,0.4' in table
    for name in ('iris_curves.png', 'iris_updates.png', 'iris_runtime.png'):
        assert (figs / name).stat().st_size > 1000
        with Image.open(figs / name) as image:
            assert min(image.info['dpi']) >= 149.9
    # The terminal shows the results: one table per noise setting, mean ± sd, settings.
    assert 'iris, p=0.2: 2 permutations x 150 rounds' in res.stdout
    assert 'iris, rho=0.2,0.4' in res.stdout
    ucwl_row = next(line for line in res.stdout.splitlines()
                    if line.strip().startswith('ucwl') and 'p=0' not in line)
    assert ' ± ' in ucwl_row and 'tuned: ' in ucwl_row and 'eta=0.9' in ucwl_row
    # The figures can be redrawn from summary.json alone.
    assert evaluate.main(['--replot', str(out / 'summary.json'), '--figures',
                          str(tmp_path / 'replot')]) == 0
    assert (tmp_path / 'replot' / 'iris_curves.png').stat().st_size > 1000
    assert evaluate.main(['--replot', str(tmp_path / 'nope.json')]) == 2
    # Same seed, same numbers (the runtimes aside).
    res2 = _cli(*[a if a != str(out) else str(tmp_path / 'again') for a in args],
                '--no-figures')
    assert res2.returncode == 0, res2.stderr
    again = json.loads((tmp_path / 'again' / 'summary.json').read_text())['records']
    for a, b in zip(records, again):
        for key in ('mistake_rate_observed', 'mistake_rate_true', 'updates', 'params'):
            assert a[key] == b[key]


def test_tuning_permutations_are_recorded_and_used(tmp_path):
    runs = {}
    for n in (1, 3):
        out = tmp_path / f'n{n}'
        extra = [] if n == 1 else ['--tuning-permutations', str(n)]
        code = evaluate.main(['--datasets', 'wine', '--label-noise', '0.2', '--algorithms',
                              'ucwl', '--params', 'ucwl:eta=0.9', '--permutations', '2',
                              '--seed', '1', '--out', str(out), '--no-figures',
                              '--no-progress', *extra])
        assert code == 0
        summary = json.loads((out / 'summary.json').read_text())
        assert summary['meta']['tuning_permutations'] == n
        assert f'tuning_permutations={n} ' in (out / 'results.md').read_text()
        runs[n] = summary['records'][0]
    assert runs[1]['params']['eta'] == runs[3]['params']['eta'] == 0.9
    # The same seed tunes on different evidence, so the tuned C and k differ here.
    assert runs[1]['params'] != runs[3]['params']


def test_jobs_reach_the_tuning_grid_and_change_no_result(tmp_path, monkeypatch):
    from banditlearn_ros.learning.offline import ucwl_grid_run
    jobs_seen = []
    run_grid = ucwl_grid_run.run_grid

    def spy(*args, **kwargs):
        jobs_seen.append(kwargs.get('jobs'))
        return run_grid(*args, **kwargs)
    monkeypatch.setattr(ucwl_grid_run, 'run_grid', spy)
    records = {}
    for jobs in (1, 2):
        out = tmp_path / f'j{jobs}'
        code = evaluate.main(['--datasets', 'iris', '--label-noise', '0.1', '--algorithms',
                              'ucwl', 'banditron', '--params', 'ucwl:eta=0.9', '--permutations',
                              '3', '--seed', '2', '--out', str(out), '--no-figures',
                              '--no-progress', '--jobs', str(jobs)])
        assert code == 0
        records[jobs] = json.loads((out / 'summary.json').read_text())['records']
        for record in records[jobs]:
            record.pop('seconds')
    # ucwl and ucwl-paper (the group 'ucwl'): each grid ran with every job, in this process.
    assert jobs_seen == [1, 1, 2, 2]
    assert [r['algorithm'] for r in records[2]] == ['ucwl', 'ucwl-paper', 'banditron']
    assert records[1] == records[2]


def test_csv_input_and_fixed_parameters_without_tuning(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.random((60, 3))
    y = np.where(X[:, 0] > 0.5, 'big', 'small')
    path = tmp_path / 'data.csv'
    with open(path, 'w') as handle:
        handle.write('a,b,c,label\n')
        for row, label in zip(X, y):
            handle.write(','.join(f'{v:.5f}' for v in row) + f',{label}\n')
    out = tmp_path / 'out'
    code = evaluate.main(['--datasets', str(path), '--algorithms', 'ucwl', 'banditron',
                          '--no-tune', '--params', 'ucwl:eta=0.8,C=2,k=1',
                          '--permutations', '2', '--out', str(out), '--no-figures',
                          '--no-progress'])
    assert code == 0
    records = json.loads((out / 'summary.json').read_text())['records']
    assert [r['algorithm'] for r in records] == ['ucwl', 'ucwl-paper', 'banditron']
    assert records[0]['params'] == {'eta': 0.8, 'C': 2, 'k': 1, 'centring': 'running'}
    assert not records[0]['tuned'] and records[1]['params'] == {'no_weight': 'equal'}
    assert records[2]['params'] == {'centring': 'running'}
    assert records[0]['dataset'] == str(path)
    # The papers' row takes fixed parameters too (its preset centring is the protocol's).
    code = evaluate.main(['--datasets', str(path), '--algorithms', 'ucwl-paper', '--no-tune',
                          '--params', 'ucwl-paper:eta=0.8,C=2,k=1', '--permutations', '2',
                          '--out', str(tmp_path / 'paper'), '--no-figures', '--no-progress'])
    assert code == 0
    paper = json.loads((tmp_path / 'paper' / 'summary.json').read_text())['records']
    assert [(r['algorithm'], r['params']) for r in paper] == [
        ('ucwl-paper', {'no_weight': 'equal', 'eta': 0.8, 'C': 2, 'k': 1})]


def test_missing_vowpal_wabbit_is_skipped_with_a_message(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(vowpal, 'available', lambda: False)
    out = tmp_path / 'out'
    code = evaluate.main(['--datasets', 'iris', '--algorithms', 'perceptron', 'vw',
                          '--permutations', '1', '--out', str(out), '--no-figures',
                          '--no-progress'])
    assert code == 0
    assert 'vowpalwabbit is not installed' in capsys.readouterr().err
    records = json.loads((out / 'summary.json').read_text())['records']
    assert [r['algorithm'] for r in records] == ['perceptron']


def test_algorithm_groups_expand_in_order():
    names = expand_algorithms(['ucwl', 'bandit', 'vw-oaa'])
    assert names[:6] == ['ucwl', 'ucwl-paper', 'confidit', 'banditron', 'rcnbf', 'rcine']
    assert expand_algorithms(['ucwl'], 'none') == ['ucwl']
    assert names[-1] == 'vw-oaa' and len(names) == len(set(names))
    assert os.path.basename(slug('/a/b/my data.csv')) == 'my_data'


def test_comparison_sentence_names_the_gap_of_each_ucwl_reading():
    def rec(name, rate):
        return {'algorithm': name, 'mistake_rate_observed': {'mean': rate}}

    text = compare([rec('ucwl', 0.20), rec('ucwl-variance', 0.27),
                    rec('vw-regcb', 0.25), rec('vw-oaa', 0.10), rec('mscw', 0.1)])
    assert text == ('UCWL 20.0 % vs best VW --cbify option vw-regcb 25.0 %: UCWL is 5.0 '
                    'points below it; ucwl-variance is 2.0 points above it (27.0 %).')
    assert compare([rec('ucwl', 0.2), rec('vw-oaa', 0.1)]) is None
    assert 'ucwl-variance' in expand_algorithms(['bandit'])


def test_progress_counts_rounds_and_weighs_grid_runs():
    from banditlearn_ros.learning.offline.evaluation import core_algorithm
    ucwl, mpa = core_algorithm('ucwl'), core_algorithm('mpa')
    n_ucwl = count_runs(ucwl, 0, True)
    n_mpa = count_runs(mpa, 0, True)
    assert ucwl.run_grid is not None and mpa.run_grid is None
    # 100 rounds per run: 20 reported runs + the tuning runs, grid runs at GRID_SHARE each.
    assert task_rounds(ucwl, 100, 20, True, 1) == pytest.approx(
        100 * (20 + GRID_SHARE * n_ucwl))
    assert task_rounds(mpa, 100, 20, True, 1) == 100 * (20 + n_mpa)
    assert task_rounds(ucwl, 100, 20, False, 1) == 100 * 20


def test_terminal_table_flags_the_edge_of_the_grid():
    rec = {'dataset': 'd', 'noise': {'label_noise': 0.1, 'rho0': 0, 'rho1': 0,
                                     'no_answer': 0},
           'algorithm': 'ucwl', 'feedback': 'bandit', 'permutations': 4, 'rounds': 9,
           'mistake_rate_observed': {'mean': 0.25, 'std': 0.05},
           'mistake_rate_true': {'mean': 0.2, 'std': 0.01},
           'updates': {'mean': 7.0, 'std': 1.0}, 'seconds': {'mean': 0.5, 'std': 0.0},
           'params': {'eta': 0.95, 'k': 2.8}, 'tuned': True,
           'edge_of_grid': ['eta=0.95 is at the top of its grid [0.55, 0.95]']}
    text = terminal_table([rec])
    assert 'd, p=0.1: 4 permutations x 9 rounds' in text
    row = next(line for line in text.splitlines() if line.strip().startswith('ucwl'))
    assert row.split()[:2] == ['ucwl', '*'] and '25.0 ± 5.0' in row and '20.0 ± 1.0' in row
    assert 'tuned: eta=0.95, k=2.8' in row
    assert '* ucwl: edge of grid: eta=0.95 is at the top' in text


def test_seconds_per_pass_have_one_format_in_the_column():
    base = {'dataset': 'd', 'noise': {'label_noise': 0.0, 'rho0': 0, 'rho1': 0,
                                      'no_answer': 0},
            'feedback': 'bandit', 'permutations': 2, 'rounds': 9,
            'mistake_rate_true': {'mean': 0.2, 'std': 0.01},
            'updates': {'mean': 7.0, 'std': 1.0}, 'params': {}, 'tuned': False,
            'edge_of_grid': []}
    recs = [dict(base, algorithm=name, seconds={'mean': s, 'std': 0.0},
                 mistake_rate_observed={'mean': m, 'std': 0.0})
            for name, s, m in (('a', 0.0123456, 0.1), ('b', 12.5, 0.2), ('c', 1.0, 0.3))]
    text = terminal_table(recs)
    cells = [line.split()[9] for line in text.splitlines()
             if line.strip()[:1] in ('a', 'b', 'c') and 'bandit' in line]
    assert cells == ['0.012', '12.500', '1.000'], text


def test_a_redirected_run_draws_no_progress_frames_and_counts_records_in_words(
        tmp_path, monkeypatch, capsys):
    seen = []
    real = evaluation_run.progress_bar
    monkeypatch.setattr(evaluation_run, 'progress_bar',
                        lambda total, disabled: seen.append(disabled) or real(total, True))
    assert evaluate.main(['--datasets', 'iris', '--algorithms', 'perceptron', '--no-tune',
                          '--permutations', '1', '--out', str(tmp_path), '--no-figures']) == 0
    assert seen == [True]  # stderr is not a terminal here: no bar redrawn with '\r'
    assert 'wrote 1 record to ' in capsys.readouterr().out


def test_first_guess_figure_splits_nine_lines_into_panels_with_legends_outside(tmp_path):
    from banditlearn_ros.evaluation.question_figures import draw_first_guess, first_guess_figure
    import matplotlib.pyplot as plt
    x = np.arange(5, 200, 10, dtype=np.float64)
    names = ['ucwl', 'ucwl-q2', 'ucwl-q3', 'ucwl-qK', 'confidit', 'confidit-q3',
             'mscw-ii', 'marow', 'perceptron']
    curves = {n: (x, np.linspace(0.2, 0.3 + 0.05 * i, x.size)) for i, n in enumerate(names)}
    refs = ['mscw-ii', 'marow', 'perceptron']
    fig = draw_first_guess(curves, 'wine, p=0: first guesses', references=refs)
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        axes = fig.axes
        assert [[line.get_label() for line in ax.get_lines()] for ax in axes] == [
            names[:4], names[4:6], refs]
        for ax in axes:
            legend = ax.get_legend()
            labels = [text.get_text() for text in legend.get_texts()]
            assert labels[0] == 'interactions 101-150'  # the shaded band is named
            box, frame = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
            assert box.x0 >= frame.x1  # outside the data, to the right
            assert all(line.get_marker() not in (None, 'None', '') for line in ax.get_lines())
        assert axes[-1].get_xlabel() == 'interaction'
    finally:
        plt.close(fig)
    # No full-feedback run: an algorithm and its ask-again runs still share one panel.
    fig = draw_first_guess({n: curves[n] for n in names[4:6]}, 'wine', references=[])
    assert [[line.get_label() for line in ax.get_lines()] for ax in fig.axes] == [names[4:6]]
    plt.close(fig)
    path = first_guess_figure(curves, 'wine', str(tmp_path / 'f.png'), references=refs)
    with Image.open(path) as image:
        assert min(image.info['dpi']) >= 149.9
        assert image.size[0] >= 1000


def _record(dataset, algorithm, noise, params, rate=0.25):
    return {'dataset': dataset, 'algorithm': algorithm, 'tuned': True, 'permutations': 20,
            'noise': {'label_noise': noise, 'rho0': 0.0, 'rho1': 0.0, 'no_answer': 0.0},
            'mistake_rate_observed': {'mean': rate, 'std': 0.01}, 'params': params}


def test_params_out_writes_the_tuned_ucwl_settings_as_a_learner_parameter_file(tmp_path):
    from banditlearn_ros.bags.recorded_session import learner_section
    summary = {'meta': {'command': 'banditlearn_evaluate --datasets iris /d/my data.csv'},
               'records': [
                   _record('iris', 'ucwl-paper', 0.0, {'C': 2.0, 'eta': 0.95, 'k': 1.8,
                                                       'no_weight': 'equal'}),
                   _record('iris', 'ucwl', 0.0, {'C': 32.0, 'eta': 0.8, 'k': 0.4,
                                                 'centring': 'running'}),
                   _record('iris', 'ucwl', 0.2, {'C': 1.0, 'eta': 0.9, 'k': 1.0,
                                                 'centring': 'running'}),
                   _record('/d/my data.csv', 'ucwl', 0.1, {'C': 0.5, 'eta': 0.95, 'k': 2.8,
                                                           'centring': 'running'})]}
    paths = evaluation_run.write_params_files(str(tmp_path / 'tuned'), summary)
    assert [os.path.basename(p) for p in paths] == ['iris.params.yaml',
                                                    'my_data.params.yaml']
    # The first noise setting's ucwl record; the papers' UCWL is not the node's learner.
    assert learner_section(paths[0]) == {'C': 32.0, 'eta': 0.8, 'k': 0.4,
                                         'centring': 'running'}
    assert learner_section(paths[1])['eta'] == 0.95
    text = open(paths[0]).read()
    assert 'mean observed mistake rate 25.0 %' in text and 'Made by: banditlearn_evaluate' in text


def test_the_shipped_tuned_settings_are_learner_parameters_of_each_data_set():
    from banditlearn_ros.bags.recorded_session import learner_section
    from banditlearn_ros.learning.offline.replay import LearnerConfig
    folder = os.path.join(os.path.dirname(__file__), '..', 'config', 'datasets')
    found = sorted(name for name in os.listdir(folder) if name.endswith('.params.yaml'))
    assert found == ['digits.params.yaml', 'iris.params.yaml', 'wine.params.yaml']
    for name in found:
        values = learner_section(os.path.join(folder, name))
        assert set(values) == {'C', 'eta', 'k', 'centring'}, (name, values)
        LearnerConfig.from_parameters({**values, 'labels': ['a', 'b', 'c']})  # accepted
