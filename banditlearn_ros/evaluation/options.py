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
What banditlearn_evaluate's arguments name: algorithms, noise settings, data sets, parameters.

Each check raises ``UsageError`` with the one line the command prints, before any work.
"""

import os
import sys
from typing import Any, Dict, List, Sequence, Tuple

from banditlearn_ros.learning import ALGORITHMS, BANDIT_ALGORITHMS, FULL_FEEDBACK_ALGORITHMS
from banditlearn_ros.learning.algorithms.base import HyperparameterError
from banditlearn_ros.learning.algorithms.centring import DEFAULT_CENTRING
from banditlearn_ros.learning.offline.datasets import BUNDLED, DatasetError, load_dataset
from banditlearn_ros.learning.offline.evaluation import core_algorithm
from banditlearn_ros.learning.offline.evaluation_tuning import (
    Algorithm, variant_base, VARIANTS, WIDE_GRIDS)
from banditlearn_ros.learning.protocol.teacher_model import TeacherModel
import numpy as np


class UsageError(Exception):
    """A command-line value the tool refuses; the message is the one line printed."""


def parse_value(text: str) -> Any:
    """Return ``text`` as an int, else a float, else the text itself."""
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
            fixed.setdefault(name.strip(), {})[key.strip()] = parse_value(value.strip())
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
    from banditlearn_ros.learning.offline.vowpal import NAMES as VW_NAMES
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
        from banditlearn_ros.learning.offline import vowpal
        if not vowpal.available():
            return  # skipped with a message anyway
        known = list(make_algorithm(name, TeacherModel(), {}, wide).grid)
    else:
        known = list(ALGORITHMS[variant_base(name)[0]].hyperparameter_names())
    unknown = [key for key in params if key not in known]
    if unknown:
        raise UsageError(f'--params {name}: unknown hyperparameter '
                         f'{", ".join(map(repr, unknown))}; {name} has {", ".join(known)}')


def make_algorithm(name: str, teacher: TeacherModel, fixed: Dict[str, Any],
                   wide: bool, centring: str = DEFAULT_CENTRING) -> Algorithm:
    """Return the protocol Algorithm for a core or Vowpal Wabbit name."""
    if name.startswith('vw-'):
        from banditlearn_ros.learning.offline.vowpal import vw_algorithm
        return vw_algorithm(name, fixed, wide)
    grid = WIDE_GRIDS.get(variant_base(name)[0]) if wide else None
    return core_algorithm(name, teacher, fixed, grid, centring)


Data = Tuple[np.ndarray, np.ndarray, List[str]]
"""A loaded data set: features (n x d, C-contiguous float64), labels (n), label names."""


def load_data(datasets: Sequence[str]) -> Dict[str, Data]:
    """Load every named data set once, refusing unknown names and sets of one label."""
    data: Dict[str, Data] = {}
    for dataset in datasets:
        check_dataset_name(dataset)
        try:
            X, y, labels = load_dataset(dataset)
        except DatasetError as exc:
            raise UsageError(str(exc)) from None
        if len(labels) < 2:
            raise UsageError(f'{dataset}: needs at least two labels')
        data[dataset] = (np.ascontiguousarray(X, dtype=np.float64), y, labels)
    return data


def check_fixed_params(fixed: Dict[str, Dict[str, Any]], wide: bool) -> None:
    """Check every ``--params`` value now, so that a typo fails before hours of work."""
    for name, params in fixed.items():
        check_param_names(name, params, wide)
        if not name.startswith('vw-'):
            try:
                base, preset = variant_base(name)
                # centring is the protocol's (evaluation.centred_streams), not the learner's.
                given = {k: v for k, v in {**preset, **params}.items() if k != 'centring'}
                ALGORITHMS[base](2, 1, **given)
            except HyperparameterError as exc:
                raise UsageError(f'--params {name}: {exc}') from None


def drop_unavailable(names: List[str]) -> List[str]:
    """Return the names without the Vowpal Wabbit ones when vowpalwabbit is not installed."""
    from banditlearn_ros.learning.offline import vowpal
    if any(n.startswith('vw-') for n in names) and not vowpal.available():
        print('banditlearn_evaluate: vowpalwabbit is not installed; skipping the Vowpal '
              "Wabbit baselines (pip install 'banditlearn_ros[vowpal]')", file=sys.stderr)
        return [n for n in names if not n.startswith('vw-')]
    return names
