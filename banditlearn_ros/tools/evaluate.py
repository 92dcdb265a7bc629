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
banditlearn_evaluate: the papers' offline protocol on real data, beside Vowpal Wabbit.

For every data set x feedback-noise setting x algorithm: tune on a separate permutation
(or take fixed parameters), run one pass over each of N shared random permutations, and
write ``summary.json``, ``results.md`` and figures to the output folder.  See
``learning/evaluation.py`` for the protocol and ``docs/benchmarks.md`` for results.
"""

import argparse
import json
import os
import platform
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from banditlearn_ros.learning import ALGORITHMS, BANDIT_ALGORITHMS, FULL_FEEDBACK_ALGORITHMS
from banditlearn_ros.learning.ask_again import (
    ASK_AGAIN_ALGORITHMS, DEFAULT_REVEAL_STEP, REVEAL_STEPS)
from banditlearn_ros.learning.base import HyperparameterError
from banditlearn_ros.learning.centring import CENTRING_MODES, DEFAULT_CENTRING
from banditlearn_ros.learning.datasets import BUNDLED, DatasetError, load_dataset
from banditlearn_ros.learning.evaluation import (
    Algorithm, core_algorithm, count_runs, evaluate, questions_algorithm, Record, TUNING_STREAM,
    variant_base, VARIANTS, WIDE_GRIDS)
from banditlearn_ros.learning.feedback import TeacherModel
from banditlearn_ros.learning.persistence import atomic_write_bytes
from banditlearn_ros.learning.workers import pool as worker_pool
from banditlearn_ros.shutdown import exit_status, sigterm_as_interrupt
from banditlearn_ros.tools.question_figures import first_guess_figure, records_curves
import numpy as np

EXAMPLES = """
examples:
  banditlearn_evaluate --datasets digits --label-noise 0 0.1 0.2 --out results/
  banditlearn_evaluate --datasets wine iris --algorithms ucwl vw --permutations 5 --out r/
  banditlearn_evaluate --datasets my_features.csv --algorithms ucwl --no-tune \\
      --params ucwl:eta=0.95,C=1,k=2.8 --out r/
  banditlearn_evaluate --datasets synsep:20000 --flip 0.15,0.15 0.2,0.4 --out r/

algorithm groups: core (every learning-core algorithm), bandit, full, vw (every Vowpal
Wabbit option), all (core + vw).  Vowpal Wabbit runs need the optional vowpalwabbit
package; without it those algorithms are skipped with a message.

data files (--datasets FILE):
  .csv  one example per row: the features, then the label in the last column (a name
        or a number); a first row that does not parse as numbers is a header
  .npz  arrays X (n x d features) and y (n labels), optionally labels (the names);
        banditlearn_render and banditlearn_bag export write this format
  Features are used as they are (not rescaled).

output (--out DIR):
  summary.json  meta (command, seed, machine, versions, partial) and one record per
                data set x noise x algorithm: mistake rates (observed, true), updates,
                seconds (mean, std over permutations), params, tuned, edge_of_grid,
                curve_observed
  results.md    the same as tables; the terminal shows a table when the run ends
  DATA_curves.png, DATA_updates.png, DATA_runtime.png  figures (150 dpi)
"""


class UsageError(Exception):
    """A command-line value the tool refuses; the message is the one line printed."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage block)."""

    def error(self, message):
        """Print one line and exit 2."""
        self.exit(2, f'{self.prog}: error: {message} (see --help)\n')


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser (its --help is the tool's documentation)."""
    p = _Parser(
        prog='banditlearn_evaluate',
        description='Offline evaluation of bandit learners (the protocol of Ngo et al. '
                    '2013, section 5): one pass, online mistake rate against the '
                    'observed and the true label, updates and runtime over shared random '
                    'permutations, with tuning on a separate permutation; Vowpal Wabbit '
                    '--cbify baselines.',
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--datasets', nargs='+', default=['digits'], metavar='DATA',
                   help='digits, iris, wine (scikit-learn, scaled to [0, 1]), synsep '
                        '(Kakade et al. 2008; synsep:N[:SEED] for N examples, default '
                        '10000) or a .csv/.npz file (default: digits)')
    p.add_argument('--label-noise', nargs='+', type=float, default=None, metavar='P',
                   help='label-noise probabilities: the observed label is uniform random '
                        'with probability P (Ngo et al. 2013; Crammer and Gentile 2011); '
                        'default 0')
    p.add_argument('--flip', nargs='+', default=[], metavar='RHO0,RHO1',
                   help='flip-noise settings of Agarwal and Manwani (2021): rho0 = P(says '
                        'right | wrong), rho1 = P(says wrong | right), e.g. 0.15,0.15 0.2,0.4')
    p.add_argument('--no-answer', type=float, default=0.0, metavar='P',
                   help='probability that the person gives no answer in a round (no '
                        'update); applied to every noise setting (default 0)')
    p.add_argument('--algorithms', nargs='+', default=['all'], metavar='ALG',
                   help='algorithms or groups: ' + ', '.join(sorted(ALGORITHMS))
                        + ', ' + ', '.join(sorted(VARIANTS))
                        + ', vw-<option> (epsilon first bag cover squarecb regcb regcbopt '
                          'softmax synthcover), vw-oaa; groups core bandit full vw all '
                          '(default all)')
    p.add_argument('--params', action='append', default=[], metavar='ALG:K=V[,K=V]',
                   help='fixed parameters, e.g. ucwl:eta=0.95,C=1,k=2.8 (repeatable); '
                        'fixed values are not tuned')
    p.add_argument('--centring', default=DEFAULT_CENTRING, choices=CENTRING_MODES,
                   help='mean taken out of every vector before the core algorithms see it, '
                        "as the learner node does (learning.centring); none = the papers' "
                        'protocol; ucwl-paper is always none and runs beside ucwl '
                        f'(default {DEFAULT_CENTRING})')
    p.add_argument('--no-tune', action='store_true',
                   help="do not tune: use --params and the algorithms' defaults")
    p.add_argument('--wide-grids', action='store_true',
                   help="tune UCWL and Vowpal Wabbit over grids wider than the paper's")
    p.add_argument('--permutations', type=int, default=20, metavar='N',
                   help='number of reported random permutations (default 20)')
    p.add_argument('--tuning-permutations', type=int, default=1, metavar='N',
                   help='tune on N separate permutations (never reported) and pick the '
                        'setting with the lowest mean observed-label mistake rate; '
                        "default 1 = the paper's protocol")
    p.add_argument('--max-questions', nargs='+', type=int, default=[], metavar='N',
                   help='also run each algorithm that can ask again (ucwl, confidit and '
                        'their variants) with up to N questions per interaction, with the '
                        'parameters tuned for one question; reported as <alg>-qN (0 = every '
                        'label: -qK) with first-guess mistakes, questions and answers per '
                        'interaction, and a first-guess learning-curve figure')
    p.add_argument('--reveal-step', default=DEFAULT_REVEAL_STEP, choices=REVEAL_STEPS,
                   help='what a revealed label teaches the labels not asked, for '
                        f'--max-questions (default {DEFAULT_REVEAL_STEP})')
    p.add_argument('--seed', type=int, default=0,
                   help='seed of permutations, noise and learners: the same seed gives '
                        'the same numbers (default 0)')
    p.add_argument('--out', default='evaluation_results', metavar='DIR',
                   help='output folder for summary.json, results.md and figures '
                        '(default evaluation_results)')
    p.add_argument('--figures', default=None, metavar='DIR',
                   help='folder for the PNG figures (default: the --out folder)')
    p.add_argument('--jobs', type=int, default=1, metavar='N',
                   help='worker processes (default 1), also for a tuning grid; results do not '
                        'depend on it')
    p.add_argument('--no-figures', action='store_true', help='skip the matplotlib figures')
    p.add_argument('--replot', default=None, metavar='SUMMARY',
                   help='run nothing: redraw the figures (into --figures, else beside the '
                        'file) and rewrite results.md from an existing summary.json')
    p.add_argument('--no-progress', action='store_true', help='no progress bar')
    p.add_argument('--open-set', type=int, default=0, metavar='N',
                   help='open-set mode: per split (--permutations of them) N labels are '
                        'never taught; reports AUROC and rejection at 5 %% false rejection '
                        'per score, and sessions (UCWL, three questions) with rejection of '
                        'never-taught gestures on and off (default 0 = off)')
    p.add_argument('--interactions', type=int, default=500, metavar='N',
                   help='gestures per open-set session (default 500)')
    p.add_argument('--unknown-share', type=float, default=0.2, metavar='P',
                   help='share of never-taught gestures in an open-set session (default 0.2)')
    p.add_argument('--unknown', action='append', default=[], metavar='K=V',
                   help='open-set setting (learning.open_set: target, rate, window, warmup, '
                        'min_yes, score, variance_floor), e.g. --unknown target=0.03')
    return p


def run_open_set(args) -> Dict[str, Any]:
    """Run ``--open-set``: figures per data set into summary.json and results.md."""
    from banditlearn_ros.learning.open_set import check_open_set, DEFAULTS
    from banditlearn_ros.learning.open_set_eval import open_set_figures, report
    settings = dict(DEFAULTS)
    for item in args.unknown:
        key, _, value = item.partition('=')
        if key not in DEFAULTS:
            raise UsageError(f'--unknown {item!r}: not one of {sorted(DEFAULTS)}')
        try:
            settings[key] = type(DEFAULTS[key])(_parse_value(value))
        except (TypeError, ValueError):
            raise UsageError(f'--unknown {item!r}: {key} must be a {type(DEFAULTS[key]).__name__}'
                             ) from None
    check_open_set(**settings)
    if args.interactions < 1 or not 0.0 < args.unknown_share < 1.0:
        raise UsageError('--interactions must be >= 1 and --unknown-share in (0, 1)')
    start, records, text = time.perf_counter(), [], ['# banditlearn_evaluate --open-set', '']
    for dataset in args.datasets:
        check_dataset_name(dataset)
        X, y, labels = load_dataset(dataset)
        if not 1 <= args.open_set < len(labels):
            raise UsageError(f'{dataset}: --open-set must be in 1..{len(labels) - 1}')
        figures = open_set_figures(X, y, labels, len(labels) - args.open_set, settings,
                                   args.permutations, args.interactions, args.unknown_share)
        records.append({'dataset': dataset, 'never_taught': args.open_set, **figures})
        text += [f'## {dataset}: {len(labels) - args.open_set} taught / {args.open_set} '
                 'never taught', '', report(figures, settings, args.permutations,
                                            args.interactions), '']
    os.makedirs(args.out, exist_ok=True)
    summary = {'meta': {**meta(args, time.perf_counter() - start), 'open_set': settings},
               'records': records, 'text': '\n'.join(text)}
    atomic_write_bytes(os.path.join(args.out, 'summary.json'),
                       json.dumps(summary, indent=1).encode())
    atomic_write_bytes(os.path.join(args.out, 'results.md'), summary['text'].encode())
    return summary


def _parse_value(text: str) -> Any:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_params(items: Sequence[str]) -> Dict[str, Dict[str, Any]]:
    """Parse ``ALG:k=v,k=v`` items into {alg: {k: v}}."""
    fixed: Dict[str, Dict[str, Any]] = {}
    for item in items:
        name, sep, rest = item.partition(':')
        if not sep or not rest:
            raise UsageError(f'--params {item!r}: use ALG:key=value[,key=value]')
        for pair in rest.split(','):
            key, eq, value = pair.partition('=')
            if not eq or not key.strip():
                raise UsageError(f'--params {item!r}: {pair!r} is not key=value')
            fixed.setdefault(name.strip(), {})[key.strip()] = _parse_value(value.strip())
    return fixed


def noise_settings(args) -> List[TeacherModel]:
    """Return one TeacherModel per requested noise setting."""
    teachers = []
    try:
        for p in (args.label_noise if args.label_noise is not None
                  else ([] if args.flip else [0.0])):
            teachers.append(TeacherModel(label_noise=p, no_answer=args.no_answer))
        for pair in args.flip:
            parts = pair.split(',')
            if len(parts) != 2:
                raise UsageError(f'--flip {pair!r}: use RHO0,RHO1 such as 0.2,0.4')
            try:
                rho0, rho1 = float(parts[0]), float(parts[1])
            except ValueError:
                raise UsageError(f'--flip {pair!r}: RHO0 and RHO1 must be numbers') from None
            teachers.append(TeacherModel(rho0=rho0, rho1=rho1, no_answer=args.no_answer))
    except HyperparameterError as exc:
        raise UsageError(f'noise setting: {exc}') from None
    return teachers


def expand_algorithms(names: Sequence[str], centring: str = DEFAULT_CENTRING) -> List[str]:
    """
    Expand groups and check names, keeping the given order without duplicates.

    With centring, ``ucwl`` brings ``ucwl-paper`` (the papers' exact UCWL) beside it, so
    every table shows both.
    """
    from banditlearn_ros.tools.vowpal import NAMES as VW_NAMES
    groups = {
        'core': list(BANDIT_ALGORITHMS) + list(VARIANTS) + list(FULL_FEEDBACK_ALGORITHMS),
        'bandit': list(BANDIT_ALGORITHMS) + list(VARIANTS),
        'full': list(FULL_FEEDBACK_ALGORITHMS),
        'vw': list(VW_NAMES),
    }
    groups['all'] = groups['core'] + groups['vw']
    out: List[str] = []
    for name in names:
        for item in groups.get(name, [name]):
            if item not in ALGORITHMS and item not in VARIANTS and item not in VW_NAMES:
                raise UsageError(
                    f'unknown algorithm {item!r}; choose from {sorted(ALGORITHMS)}, '
                    f'{sorted(VARIANTS)}, {VW_NAMES} or a group {sorted(groups)}')
            if item not in out:
                out.append(item)
            if item == 'ucwl' and centring != 'none' and 'ucwl-paper' not in out:
                out.append('ucwl-paper')
    return out


def check_dataset_name(name: str) -> None:
    """Refuse a data set name that is neither known nor a .csv/.npz file, listing the valid."""
    if name in BUNDLED or name.split(':')[0] == 'synsep':
        return
    if os.path.splitext(name)[1].lower() in ('.csv', '.npz'):
        return  # a file; load_dataset says clearly when it is missing or unreadable
    raise UsageError(f'unknown data set {name!r}; choose from {", ".join(BUNDLED)}, '
                     'synsep[:N[:SEED]] or a .csv/.npz file (see --help)')


def check_param_names(name: str, params: Dict[str, Any], wide: bool) -> None:
    """Refuse ``--params`` keys the algorithm does not have, naming the ones it has."""
    if name.startswith('vw-'):
        from banditlearn_ros.tools import vowpal
        if not vowpal.available():
            return  # skipped with a message anyway
        known = list(make_algorithm(name, TeacherModel(), {}, wide).grid)
    else:
        known = list(ALGORITHMS[variant_base(name)[0]]._hyperparameters)
    unknown = [key for key in params if key not in known]
    if unknown:
        raise UsageError(f'--params {name}: unknown hyperparameter '
                         f'{", ".join(map(repr, unknown))}; {name} has {", ".join(known)}')


def make_algorithm(name: str, teacher: TeacherModel, fixed: Dict[str, Any],
                   wide: bool, centring: str = DEFAULT_CENTRING) -> Algorithm:
    """Return the protocol Algorithm for a core or Vowpal Wabbit name."""
    if name.startswith('vw-'):
        from banditlearn_ros.tools.vowpal import vw_algorithm
        return vw_algorithm(name, fixed, wide)
    grid = WIDE_GRIDS.get(variant_base(name)[0]) if wide else None
    return core_algorithm(name, teacher, fixed, grid, centring)


def noise_label(teacher: TeacherModel) -> str:
    """Return a short name for a noise setting, e.g. ``p=0.1`` or ``rho=0.2,0.4``."""
    if teacher.rho0 or teacher.rho1:
        text = f'rho={teacher.rho0:g},{teacher.rho1:g}'
    else:
        text = f'p={teacher.label_noise:g}'
    if teacher.no_answer:
        text += f' silent={teacher.no_answer:g}'
    return text


GRID_SHARE = 0.07
"""Cost of one UCWL setting's run inside the vectorised tuning grid, relative to one run on
its own (bench_learning.py: about 2.4 us per setting-round at d=124/K=6 against 16-35 us per
round of a Vowpal Wabbit example or a numpy learner; a wine run agreed)."""


def task_rounds(algorithm: Algorithm, n_examples: int, n_permutations: int, do_tune: bool,
                n_tuning: int) -> float:
    """
    Return the work of one task in rounds, the progress bar's unit.

    A run over the data is ``n_examples`` rounds, whatever the algorithm (their costs per
    round are within a few times of each other); a run inside the UCWL grid counts
    ``GRID_SHARE`` of that.  Counting runs instead (1485 cheap grid runs beside 20 Vowpal
    Wabbit runs) made the ETA far off.
    """
    tuning = count_runs(algorithm, 0, do_tune, n_tuning)
    grid = algorithm.run_grid is not None and tuning > 1
    return n_examples * (n_permutations + tuning * (GRID_SHARE if grid else 1.0))


_PROGRESS: Optional[Any] = None
"""Per-run progress callback for tasks run in this process (``--jobs 1``)."""


def _task(args: Tuple) -> List[Record]:
    (name, dataset, teacher, fixed, wide, n_perm, seed, do_tune, curves, n_tuning,
     max_questions, reveal_step, centring, grid_jobs) = args
    X, y, labels = _DATA[dataset]
    algorithm = make_algorithm(name, teacher, fixed, wide, centring)
    algorithm.grid_jobs = grid_jobs
    n, grid = len(y), algorithm.run_grid is not None

    def progress(runs: int) -> None:
        # The grid reports all its runs at once; single runs one by one.
        _PROGRESS(runs * n * (GRID_SHARE if grid and runs > 1 else 1.0))
    record = evaluate(algorithm, X, y, len(labels), teacher, dataset, n_perm, seed, do_tune,
                      curves, progress if _PROGRESS is not None else None, n_tuning=n_tuning)
    out = [record]
    if variant_base(name)[0] in ASK_AGAIN_ALGORITHMS:
        for mq in max_questions:
            asking = questions_algorithm(name, mq, teacher, record.params, reveal_step)
            out.append(evaluate(asking, X, y, len(labels), teacher, dataset, n_perm, seed,
                                False, True))
    return out


_DATA: Dict[str, Tuple[np.ndarray, np.ndarray, List[str]]] = {}


def _keep_data(data: Dict[str, Tuple[np.ndarray, np.ndarray, List[str]]]) -> None:
    """Give a worker process the parent's data sets (it was not forked from the parent)."""
    _DATA.update(data)


def replot(args) -> Dict[str, Any]:
    """Redraw figures and results.md from a summary.json (no learning)."""
    try:
        with open(args.replot, encoding='utf-8') as handle:
            summary = json.load(handle)
        records = summary['records']
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f'{args.replot}: not a readable summary.json ({exc})') from None
    folder = os.path.dirname(os.path.abspath(args.replot))
    atomic_write_bytes(os.path.join(folder, 'results.md'),
                       markdown(records, summary['meta']).encode())
    figures(records, args.figures or folder)
    question_figures(records, args.figures or folder)
    return summary


def run(args) -> Dict[str, Any]:
    """Run the whole evaluation the arguments describe and write the output folder."""
    if args.replot:
        return replot(args)
    if args.permutations < 1:
        raise UsageError(f'--permutations must be >= 1, got {args.permutations}')
    if args.open_set:
        return run_open_set(args)
    if args.jobs < 1:
        raise UsageError(f'--jobs must be >= 1, got {args.jobs}')
    if args.permutations > TUNING_STREAM:
        raise UsageError(f'--permutations must be <= {TUNING_STREAM}, got {args.permutations}')
    if args.tuning_permutations < 1:
        raise UsageError(f'--tuning-permutations must be >= 1, got {args.tuning_permutations}')
    if any(mq < 0 for mq in args.max_questions):
        raise UsageError(f'--max-questions must be >= 0 (0 = every label), got '
                         f'{args.max_questions}')
    teachers = noise_settings(args)
    names = expand_algorithms(args.algorithms, args.centring)
    fixed = parse_params(args.params)
    unknown = set(fixed) - set(names)
    if unknown:
        raise UsageError(f'--params for {sorted(unknown)}, which are not being run')
    from banditlearn_ros.tools import vowpal
    if any(n.startswith('vw-') for n in names) and not vowpal.available():
        print('banditlearn_evaluate: vowpalwabbit is not installed; skipping the Vowpal '
              "Wabbit baselines (pip install 'banditlearn_ros[vowpal]')", file=sys.stderr)
        names = [n for n in names if not n.startswith('vw-')]
    for dataset in args.datasets:
        check_dataset_name(dataset)
        try:
            X, y, labels = load_dataset(dataset)
        except DatasetError as exc:
            raise UsageError(str(exc)) from None
        if len(labels) < 2:
            raise UsageError(f'{dataset}: needs at least two labels')
        _DATA[dataset] = (np.ascontiguousarray(X, dtype=np.float64), y, labels)
    # Check every fixed parameter now, so a typo fails before hours of work.
    for name, params in fixed.items():
        check_param_names(name, params, args.wide_grids)
        if not name.startswith('vw-'):
            try:
                base, preset = variant_base(name)
                # centring is the protocol's (evaluation.centred_streams), not the learner's.
                given = {k: v for k, v in {**preset, **params}.items() if k != 'centring'}
                ALGORITHMS[base](2, 1, **given)
            except HyperparameterError as exc:
                raise UsageError(f'--params {name}: {exc}') from None
    tasks, work, in_parent = [], [], []
    for dataset in args.datasets:
        for teacher in teachers:
            for name in names:
                algorithm = make_algorithm(name, teacher, fixed.get(name, {}), args.wide_grids,
                                           args.centring)
                work.append(task_rounds(algorithm, len(_DATA[dataset][1]), args.permutations,
                                        not args.no_tune, args.tuning_permutations))
                # A tuning grid is split over the workers itself, so its task runs in this
                # process, before the others, with every job (not one job among the tasks).
                grid = algorithm.run_grid is not None and count_runs(
                    algorithm, 0, not args.no_tune, args.tuning_permutations) > 1
                in_parent.append(grid and args.jobs > 1)
                tasks.append((name, dataset, teacher, fixed.get(name, {}), args.wide_grids,
                              args.permutations, args.seed, not args.no_tune,
                              not args.no_figures, args.tuning_permutations,
                              tuple(args.max_questions), args.reveal_step, args.centring,
                              args.jobs if in_parent[-1] else 1))
    os.makedirs(args.out, exist_ok=True)
    # A bar redrawn with carriage returns only where someone watches: not into a log file.
    bar = _progress(sum(work), args.no_progress or not sys.stderr.isatty())
    start = time.perf_counter()
    records: List[Record] = []
    results: List[Optional[List[Record]]] = [None] * len(tasks)
    finished = [0.0]  # rounds of the tasks done so far (the bar is reset to it per task)

    remaining = {dataset: sum(1 for t in tasks if t[1] == dataset) for dataset in args.datasets}
    global _PROGRESS
    _PROGRESS = bar.update if args.jobs == 1 else None

    def done(i, result):
        task = tasks[i]
        results[i] = result  # records stay in task order, whichever finishes first
        records[:] = [r for done_records in results if done_records for r in done_records]
        finished[0] += work[i]
        bar.update(finished[0] - bar.n)
        # Finished records are kept on disk as they come, so a long run that is stopped
        # leaves what it measured (partial: true until the end); a data set's figures are
        # drawn as soon as its last record is in.
        write_summary(args, records, time.perf_counter() - start, partial=True)
        remaining[task[1]] -= 1
        if remaining[task[1]] == 0 and not args.no_figures:
            figures([r.summary() for r in records if r.dataset == task[1]],
                    args.figures or args.out)
            question_figures([r.summary() for r in records if r.dataset == task[1]],
                             args.figures or args.out)

    try:
        if args.jobs == 1:
            for i, task in enumerate(tasks):
                done(i, _task(task))
        else:
            _PROGRESS = bar.update
            for i, task in enumerate(tasks):
                if in_parent[i]:
                    done(i, _task(task))
            _PROGRESS = None
            with worker_pool(args.jobs, _keep_data, (_DATA,)) as pool:  # not a fork
                futures = {i: pool.submit(_task, task) for i, task in enumerate(tasks)
                           if not in_parent[i]}
                for i, fut in futures.items():
                    done(i, fut.result())
    finally:
        _PROGRESS = None
        bar.close()
    summary = write_summary(args, records, time.perf_counter() - start, partial=False)
    atomic_write_bytes(os.path.join(args.out, 'results.md'),
                       markdown(summary['records'], summary['meta']).encode())
    return summary


def write_summary(args, records: List[Record], seconds: float, partial: bool) -> Dict[str, Any]:
    """Write summary.json atomically and return it."""
    summary = {
        'meta': {**meta(args, seconds), 'partial': partial},
        'records': [r.summary() for r in records],
    }
    atomic_write_bytes(os.path.join(args.out, 'summary.json'),
                       (json.dumps(summary, indent=1) + '\n').encode())
    return summary


def meta(args, seconds: float) -> Dict[str, Any]:
    """Return what produced the numbers: command, seed, machine and versions."""
    versions = {'python': platform.python_version(), 'numpy': np.__version__}
    for module in ('scipy', 'sklearn', 'vowpalwabbit', 'matplotlib'):
        try:
            versions[module] = __import__(module).__version__
        except (ImportError, AttributeError):
            versions[module] = None
    return {
        'command': 'banditlearn_evaluate ' + ' '.join(sys.argv[1:]),
        'seed': args.seed, 'permutations': args.permutations,
        'tuning_permutations': args.tuning_permutations,
        'centring': getattr(args, 'centring', None),
        'machine': f'{platform.machine()} {platform.processor() or ""} '
                   f'{os.cpu_count()} cpus, {platform.system()} {platform.release()}',
        'versions': versions, 'wall_seconds': round(seconds, 1),
    }


def _progress(total: int, disabled: bool):
    try:
        from tqdm import tqdm
    except ImportError:
        disabled = True
    if disabled:
        class _Null:
            n = 0

            def update(self, n=1):
                self.n += n

            def close(self):
                pass
        return _Null()
    # delay keeps short runs quiet; the bar appears once work takes a few seconds.  The
    # unit is a round (one example through one run), so the ETA weighs runs by their size.
    return tqdm(total=total, unit='round', unit_scale=True, desc='evaluate', delay=2.0,
                file=sys.stderr, bar_format='{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/'
                '{total_fmt} rounds [{elapsed} elapsed, ETA {remaining}]')


def terminal_table(records: List[Dict[str, Any]]) -> str:
    """
    Return the results as plain-text tables for the terminal, one per data set x noise.

    Mean ± sd over the permutations; ``*`` marks a tuned value on the edge of its grid
    (the edges are listed under the table): the grid may not hold the best setting.
    """
    groups: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault((rec['dataset'], _noise_text(rec['noise'])), []).append(rec)
    out: List[str] = []
    for (dataset, noise), recs in groups.items():
        recs = sorted(recs, key=lambda r: r['mistake_rate_observed']['mean'])
        rows = [('algorithm', 'feedback', 'observed %', 'true %', 'updates', 's/pass',
                 'settings')]
        for rec in recs:
            params = ', '.join(f'{k}={_fmt(v)}' for k, v in rec['params'].items())
            params = ('tuned: ' if rec.get('tuned') else 'fixed: ') + (params or '-')
            rows.append((rec['algorithm'] + (' *' if rec['edge_of_grid'] else ''),
                         rec['feedback'], _pct(rec['mistake_rate_observed']),
                         _pct(rec['mistake_rate_true']), f"{rec['updates']['mean']:.0f}",
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


def _pct(stat: Dict[str, float]) -> str:
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
    groups: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault((rec['dataset'], _noise_text(rec['noise'])), []).append(rec)
    lines += overview(records)
    for (dataset, noise), recs in groups.items():
        lines += [f'## {dataset}, {noise}', '',
                  '| algorithm | feedback | observed % | true % | updates | seconds | '
                  'parameters |',
                  '| --- | --- | --- | --- | --- | --- | --- |']
        for rec in sorted(recs, key=lambda r: r['mistake_rate_observed']['mean']):
            params = ', '.join(f'{k}={_fmt(v)}' for k, v in rec['params'].items())
            if rec['edge_of_grid']:
                params += ' *'
            lines.append(
                f"| {rec['algorithm']} | {rec['feedback']} | {_pct(rec['mistake_rate_observed'])}"
                f" | {_pct(rec['mistake_rate_true'])} | {rec['updates']['mean']:.0f} | "
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
            f"| {rec['algorithm']} | {_pct(rec['mistake_rate_observed'])} | "
            f"{_pct(rec['mistake_rate_true'])} | "
            f"{rec['questions_per_interaction']['mean']:.2f} | "
            f"{rec['answers_per_interaction']['mean']:.2f} | "
            f"{100 * o.get('yes', 0):.1f} / {100 * o.get('out_of_questions', 0):.1f} / "
            f"{100 * o.get('all_rejected', 0):.1f} |")
    return lines + ['']


def question_figures(records: List[Dict[str, Any]], out: str) -> None:
    """Draw first-guess accuracy by interaction per data set x noise, when some run asked again."""
    groups: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault((rec['dataset'], _noise_text(rec['noise'])), []).append(rec)
    for (dataset, noise), recs in groups.items():
        asking = [r for r in recs if 'questions_per_interaction' in r]
        if not asking:
            continue
        noise_slug = ''.join(c if c.isalnum() else '_' for c in noise)
        bases = {r['algorithm'].rsplit('-q', 1)[0] for r in asking}
        shown = [r for r in recs if r['algorithm'] in bases or r in asking
                 or r['feedback'] == 'full']
        first_guess_figure(records_curves(shown), f'{dataset}, {noise}: first guesses',
                           os.path.join(out, f'{_slug(dataset)}_{noise_slug}_first_guess.png'),
                           references=[r['algorithm'] for r in shown if r['feedback'] == 'full'])


def overview(records: List[Dict[str, Any]]) -> List[str]:
    """Return one compact table per data set: algorithms x noise settings, observed %."""
    lines: List[str] = []
    datasets = list(dict.fromkeys(r['dataset'] for r in records))
    for dataset in datasets:
        recs = [r for r in records if r['dataset'] == dataset]
        noises = list(dict.fromkeys(_noise_text(r['noise']) for r in recs))
        algos = list(dict.fromkeys(r['algorithm'] for r in recs))
        cell = {(r['algorithm'], _noise_text(r['noise'])): r for r in recs}
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
            verdict = compare([r for r in recs if _noise_text(r['noise']) == noise])
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


def _fmt(v: Any) -> str:
    return f'{v:g}' if isinstance(v, float) else str(v)


def _noise_text(noise: Dict[str, float]) -> str:
    return noise_label(TeacherModel(**noise))


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
            _noise_text(rec['noise']), []).append(rec)
    for dataset, by_noise in by_data.items():
        stem = _slug(dataset)
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


def _slug(text: str) -> str:
    base = os.path.splitext(os.path.basename(text))[0]
    return ''.join(c if c.isalnum() else '_' for c in base)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Console entry point; bad input exits 2 with one readable line."""
    sigterm_as_interrupt()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        summary = run(args)
    except (UsageError, DatasetError, HyperparameterError) as exc:
        print(f'banditlearn_evaluate: error: {exc}', file=sys.stderr)
        return 2
    except OSError as exc:
        print(f'banditlearn_evaluate: error: {exc}', file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        print('banditlearn_evaluate: interrupted', file=sys.stderr)
        return exit_status(exc)
    if 'text' in summary:  # --open-set
        print(summary['text'])
        print(f'wrote {args.out}/summary.json and {args.out}/results.md')
        return 0
    print(terminal_table(summary['records']))
    if not args.replot:
        n = len(summary['records'])
        print(f"wrote {n} record{'' if n == 1 else 's'} to {args.out}/summary.json and "
              f'{args.out}/results.md' + ('' if args.no_figures else
                                          f', figures to {args.figures or args.out}/'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
