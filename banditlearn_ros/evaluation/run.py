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
Run banditlearn_evaluate: one task per data set x noise setting x algorithm, shared out.

Tasks run in this process or in worker processes (``--jobs``); summary.json, results.md
and the figures are written as records come in.  The protocol itself is
``learning/offline/evaluation.py``; this module plans the work, counts progress and keeps finished
records on disk.
"""

from dataclasses import dataclass
import importlib.metadata
import json
import os
import platform
import re
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from banditlearn_ros.evaluation.figures import figures, question_figures
from banditlearn_ros.evaluation.options import (
    check_dataset_name, check_fixed_params, Data, drop_unavailable, expand_algorithms, load_data,
    make_algorithm, noise_settings, parse_params, parse_value, UsageError)
from banditlearn_ros.evaluation.report import markdown, noise_label, tuned_params_files
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.offline.evaluation import (
    count_runs, evaluate, questions_algorithm, Record)
from banditlearn_ros.learning.offline.evaluation_streams import TUNING_STREAM
from banditlearn_ros.learning.offline.evaluation_tuning import Algorithm, variant_base
from banditlearn_ros.learning.offline.workers import pool as worker_pool, start_server
from banditlearn_ros.learning.protocol.ask_again import ASK_AGAIN_ALGORITHMS
from banditlearn_ros.learning.protocol.teacher_model import TeacherModel
from banditlearn_ros.learning.storage.persistence import atomic_write_bytes
import numpy as np


VERSIONS_OF = {'scipy': 'scipy', 'sklearn': 'scikit-learn', 'vowpalwabbit': 'vowpalwabbit',
               'matplotlib': 'matplotlib'}
"""The modules whose versions summary.json records, and their distributions' names."""


def run_open_set(args) -> Dict[str, Any]:
    """Run ``--open-set``: figures per data set into summary.json and results.md."""
    from banditlearn_ros.learning.algorithms.open_set import check_open_set, DEFAULTS
    from banditlearn_ros.learning.offline.open_set_eval import open_set_figures, report
    settings = dict(DEFAULTS)
    for item in args.unknown:
        key, _, value = item.partition('=')
        if key not in DEFAULTS:
            raise UsageError(f'--unknown {item!r}: not one of {sorted(DEFAULTS)}')
        try:
            if isinstance(DEFAULTS[key], bool):  # bool('no') is True: only true / false
                if value.lower() not in ('true', 'false'):
                    raise ValueError(value)
                settings[key] = value.lower() == 'true'
            else:
                settings[key] = type(DEFAULTS[key])(parse_value(value))
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


def run_fleet(args) -> Dict[str, Any]:
    """Run ``--fleet R``: single learner, robots alone, robots merging, per data set x noise."""
    from banditlearn_ros.learning.offline.fleet_eval import fleet_figures, report
    if args.fleet < 2 or args.fleet_every < 1:
        raise UsageError('--fleet needs at least 2 robots and --fleet-every at least 1')
    params = parse_params(args.params).get('ucwl', {})
    teachers = noise_settings(args)
    start, records, text = time.perf_counter(), [], ['# banditlearn_evaluate --fleet', '']
    for dataset in args.datasets:
        check_dataset_name(dataset)
        X, y, labels = load_dataset(dataset)
        for teacher in teachers:
            try:
                figures = fleet_figures(X, y, len(labels), args.fleet, args.fleet_every,
                                        teacher, args.permutations, args.seed, args.centring,
                                        params)
            except TypeError as exc:  # an unknown UCWL parameter name
                raise UsageError(f'--params ucwl: {exc}') from None
            records.append({'dataset': dataset, 'noise': noise_label(teacher), **figures})
            text += [f'## {dataset}, {noise_label(teacher)}, centring {args.centring}', '',
                     report(figures), '']
    os.makedirs(args.out, exist_ok=True)
    summary = {'meta': meta(args, time.perf_counter() - start), 'records': records,
               'text': '\n'.join(text)}
    atomic_write_bytes(os.path.join(args.out, 'summary.json'),
                       json.dumps(summary, indent=1).encode())
    atomic_write_bytes(os.path.join(args.out, 'results.md'), summary['text'].encode())
    return summary


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


@dataclass(frozen=True)
class Task:
    """One data set x noise setting x algorithm: what ``run_task`` needs besides the data."""

    name: str
    dataset: str
    teacher: TeacherModel
    fixed: Dict[str, Any]
    wide: bool
    permutations: int
    seed: int
    tune: bool
    curves: bool
    tuning_permutations: int
    max_questions: Tuple[int, ...]
    reveal_step: str
    centring: str
    grid_jobs: int
    full_grid: bool = False


def run_task(task: Task, data: Data,
             progress: Optional[Callable[[float], None]] = None) -> List[Record]:
    """
    Run one task on its data set: the record, then one per ``--max-questions`` value.

    ``progress`` (rounds done) is given in the process that draws the bar; a worker
    process gets none, and its task counts as a whole when it returns.
    """
    X, y, labels = data
    algorithm = make_algorithm(task.name, task.teacher, task.fixed, task.wide, task.centring)
    algorithm.grid_jobs = task.grid_jobs
    algorithm.grid_prune = not task.full_grid
    n, grid = len(y), algorithm.run_grid is not None

    def runs_done(runs: int) -> None:
        # The grid reports all its runs at once; single runs one by one.
        progress(runs * n * (GRID_SHARE if grid and runs > 1 else 1.0))
    record = evaluate(algorithm, X, y, len(labels), task.teacher, task.dataset,
                      task.permutations, task.seed, task.tune, task.curves,
                      runs_done if progress is not None else None,
                      n_tuning=task.tuning_permutations)
    out = [record]
    if variant_base(task.name)[0] in ASK_AGAIN_ALGORITHMS:
        for mq in task.max_questions:
            asking = questions_algorithm(task.name, mq, task.teacher, record.params,
                                         task.reveal_step)
            out.append(evaluate(asking, X, y, len(labels), task.teacher, task.dataset,
                                task.permutations, task.seed, False, True))
    return out


def check_run_args(args) -> None:
    """Refuse counts out of range before anything is loaded."""
    if args.jobs < 1:
        raise UsageError(f'--jobs must be >= 1, got {args.jobs}')
    if args.permutations > TUNING_STREAM:
        raise UsageError(f'--permutations must be <= {TUNING_STREAM}, got {args.permutations}')
    if args.tuning_permutations < 1:
        raise UsageError(f'--tuning-permutations must be >= 1, got {args.tuning_permutations}')
    if any(mq < 0 for mq in args.max_questions):
        raise UsageError(f'--max-questions must be >= 0 (0 = every label), got '
                         f'{args.max_questions}')


def choose(args) -> Tuple[List[TeacherModel], List[str], Dict[str, Dict[str, Any]]]:
    """Return the noise settings, the algorithms and their fixed parameters, checked."""
    teachers = noise_settings(args)
    names = expand_algorithms(args.algorithms, args.centring)
    fixed = parse_params(args.params)
    unknown = set(fixed) - set(names)
    if unknown:
        raise UsageError(f'--params for {sorted(unknown)}, which are not being run')
    return teachers, drop_unavailable(names), fixed


def plan(args, data: Dict[str, Data], teachers: List[TeacherModel], names: List[str],
         fixed: Dict[str, Dict[str, Any]]) -> Tuple[List[Task], List[float], List[bool]]:
    """
    Return the tasks, the work of each in rounds, and which of them run in this process.

    A tuning grid is split over the workers itself, so its task runs in this process,
    before the others, with every job (not one job among the tasks).
    """
    tasks, work, in_parent = [], [], []
    for dataset in args.datasets:
        for teacher in teachers:
            for name in names:
                algorithm = make_algorithm(name, teacher, fixed.get(name, {}), args.wide_grids,
                                           args.centring)
                work.append(task_rounds(algorithm, len(data[dataset][1]), args.permutations,
                                        not args.no_tune, args.tuning_permutations))
                grid = algorithm.run_grid is not None and count_runs(
                    algorithm, 0, not args.no_tune, args.tuning_permutations) > 1
                in_parent.append(grid and args.jobs > 1)
                tasks.append(Task(
                    name=name, dataset=dataset, teacher=teacher, fixed=fixed.get(name, {}),
                    wide=args.wide_grids, permutations=args.permutations, seed=args.seed,
                    tune=not args.no_tune, curves=not args.no_figures,
                    tuning_permutations=args.tuning_permutations,
                    max_questions=tuple(args.max_questions), reveal_step=args.reveal_step,
                    centring=args.centring, grid_jobs=args.jobs if in_parent[-1] else 1,
                    full_grid=args.full_grid))
    return tasks, work, in_parent


def run(args) -> Dict[str, Any]:
    """Run the whole evaluation the arguments describe and write the output folder."""
    if args.replot:
        return replot(args)
    if args.permutations < 1:
        raise UsageError(f'--permutations must be >= 1, got {args.permutations}')
    if args.open_set:
        return run_open_set(args)
    if args.fleet:
        return run_fleet(args)
    check_run_args(args)
    if args.jobs > 1:
        start_server()  # its imports run beside this process's loading of the data and steps
    teachers, names, fixed = choose(args)
    data = load_data(args.datasets)
    check_fixed_params(fixed, args.wide_grids)
    tasks, work, in_parent = plan(args, data, teachers, names, fixed)
    os.makedirs(args.out, exist_ok=True)
    # A bar redrawn with carriage returns only where someone watches: not into a log file.
    bar = progress_bar(sum(work), args.no_progress or not sys.stderr.isatty())
    start = time.perf_counter()
    records: List[Record] = []
    results: List[Optional[List[Record]]] = [None] * len(tasks)
    finished = [0.0]  # rounds of the tasks done so far (the bar is reset to it per task)
    remaining = {dataset: sum(1 for t in tasks if t.dataset == dataset)
                 for dataset in args.datasets}

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
        remaining[task.dataset] -= 1
        if remaining[task.dataset] == 0 and not args.no_figures:
            drawn = [r.summary() for r in records if r.dataset == task.dataset]
            figures(drawn, args.figures or args.out)
            question_figures(drawn, args.figures or args.out)

    try:
        for i, task in enumerate(tasks):
            if args.jobs == 1 or in_parent[i]:
                done(i, run_task(task, data[task.dataset], bar.update))
        if args.jobs > 1:
            # A worker is sent its task's data set with the task: no state shared by module.
            with worker_pool(args.jobs) as pool:  # not a fork of this (threaded) process
                futures = {i: pool.submit(run_task, task, data[task.dataset])
                           for i, task in enumerate(tasks) if not in_parent[i]}
                for i, fut in futures.items():
                    done(i, fut.result())
    finally:
        bar.close()
    summary = write_summary(args, records, time.perf_counter() - start, partial=False)
    atomic_write_bytes(os.path.join(args.out, 'results.md'),
                       markdown(summary['records'], summary['meta']).encode())
    if args.params_out:
        write_params_files(args.params_out, summary)
    return summary


def write_params_files(folder: str, summary: Dict[str, Any]) -> List[str]:
    """Write ``<data set>.params.yaml`` per tuned data set into ``folder``; return the paths."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for dataset, text in tuned_params_files(summary['records'],
                                            summary['meta']['command']).items():
        stem = os.path.splitext(os.path.basename(dataset))[0]
        path = os.path.join(folder, re.sub(r'[^A-Za-z0-9_-]', '_', stem) + '.params.yaml')
        atomic_write_bytes(path, text.encode())
        paths.append(path)
    return paths


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
    # From the installed metadata: importing them only for this took 0.7 s of a run.
    for module, distribution in VERSIONS_OF.items():
        try:
            versions[module] = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
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


def progress_bar(total: float, disabled: bool):
    """Return a tqdm bar counting rounds (a silent counter without tqdm or a terminal)."""
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
    # Tasks finish in bursts (a whole grid at once): the ETA uses the mean rate since the
    # start (smoothing 0), not the last bursts', which made it jump from hours to seconds.
    return tqdm(total=total, unit='round', unit_scale=True, desc='evaluate', delay=2.0,
                smoothing=0,
                file=sys.stderr, bar_format='{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/'
                '{total_fmt} rounds [{elapsed} elapsed, ETA {remaining}]')
