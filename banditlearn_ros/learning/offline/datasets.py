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
Feature streams for offline runs and demos: bundled data sets and the user's own files.

Every loader returns ``(X, y, label_names)`` with X as float64 rows scaled to [0, 1]
where the paper does so (Ngo et al. 2013, section 5: "All feature values are normalized to
[0, 1]"), y as label indices and the names of the labels.
"""

import csv
import difflib
import importlib.util
import os
from typing import List, Tuple

import numpy as np

Dataset = Tuple[np.ndarray, np.ndarray, List[str]]

BUNDLED = ('digits', 'iris', 'wine')


class DatasetError(ValueError):
    """A data set that cannot be read; the message says which and why."""


def scale_unit(X: np.ndarray) -> np.ndarray:
    """Scale each column to [0, 1] by its min and max (constant columns become 0)."""
    X = np.asarray(X, dtype=np.float64)
    low, high = X.min(axis=0), X.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    return (X - low) / span


def load_bundled(name: str) -> Dataset:
    """Load scikit-learn's bundled digits, iris or wine, scaled to [0, 1]."""
    if name not in BUNDLED:
        raise DatasetError(f'unknown bundled data set {name!r}; choose from {BUNDLED}')
    raw = _bundled_csv(name)
    if raw is None:
        try:
            from sklearn import datasets
        except ImportError:
            raise DatasetError(f'{name}: needs scikit-learn (pip install scikit-learn)'
                               ) from None
        bunch = getattr(datasets, f'load_{name}')()
        raw = bunch.data, bunch.target, [str(n) for n in bunch.target_names]
    data, target, names = raw
    X = data / 16.0 if name == 'digits' else scale_unit(data)
    return X.astype(np.float64), np.asarray(target).astype(np.int64), names


def _bundled_csv(name: str):
    """
    Read scikit-learn's copy of a bundled data set without importing scikit-learn.

    ``import sklearn.datasets`` takes about a second, most of what loading digits for an
    evaluation cost; the files are plain CSV in the installed package (the same values
    ``load_digits``, ``load_iris`` and ``load_wine`` return: test_datasets checks).  None
    when they are not where this expects them: the caller then asks scikit-learn.
    """
    spec = importlib.util.find_spec('sklearn')
    folders = (spec.submodule_search_locations or []) if spec is not None else []
    path = os.path.join(folders[0] if folders else '', 'datasets', 'data',
                        {'digits': 'digits.csv.gz', 'iris': 'iris.csv',
                         'wine': 'wine_data.csv'}[name])
    if not folders or not os.path.isfile(path):
        return None
    if name == 'digits':  # 64 pixels and the digit, no header
        table = np.loadtxt(path, delimiter=',')
        return table[:, :-1], table[:, -1].astype(np.int64), [str(d) for d in range(10)]
    with open(path, newline='') as f:  # header: rows, features, then the label names
        header = next(csv.reader(f))
    table = np.loadtxt(path, delimiter=',', skiprows=1)
    return table[:, :-1], table[:, -1].astype(np.int64), [str(n) for n in header[2:]]


def load_file(path: str) -> Dataset:
    """
    Load a user's CSV or NPZ file.

    CSV: one row per example, the last column the label (a name or a number); a first row
    that does not parse as numbers is taken as a header.  NPZ: arrays ``X`` (n x d) and
    ``y`` (n), optionally ``labels`` (names).  Features are used as they are (not rescaled).

    Parameters
    ----------
    path : str
        A ``.csv`` or ``.npz`` file.

    Returns
    -------
    tuple
        ``(X, y, label_names)``.

    """
    if not os.path.isfile(path):
        raise DatasetError(f'{path}: no such file')
    if path.endswith('.npz'):
        try:
            with np.load(path, allow_pickle=False) as data:
                X = np.asarray(data['X'], dtype=np.float64)
                y_raw = np.asarray(data['y'])
                names = [str(n) for n in data['labels']] if 'labels' in data.files else None
        except KeyError as exc:
            raise DatasetError(f'{path}: an NPZ data set needs arrays X and y ({exc})') from None
        except (ValueError, OSError) as exc:
            raise DatasetError(f'{path}: not a readable NPZ file ({exc})') from None
    elif path.endswith('.csv'):
        with open(path, newline='', encoding='utf-8') as handle:
            rows = [row for row in csv.reader(handle) if row]
        if rows and not _numeric(rows[0][:-1]):
            rows = rows[1:]
        if not rows:
            raise DatasetError(f'{path}: no data rows')
        width = len(rows[0])
        if width < 2 or any(len(r) != width for r in rows):
            raise DatasetError(f'{path}: every row needs the same number (>= 2) of columns')
        try:
            X = np.array([[float(v) for v in r[:-1]] for r in rows])
        except ValueError as exc:
            raise DatasetError(f'{path}: a feature is not a number ({exc})') from None
        y_raw = np.array([r[-1].strip() for r in rows])
        names = None
    else:
        raise DatasetError(f'{path}: use a .csv or .npz file')
    if X.ndim != 2 or len(X) != len(y_raw) or len(X) == 0:
        raise DatasetError(f'{path}: X must be n x d with one label per row')
    if not np.all(np.isfinite(X)):
        raise DatasetError(f'{path}: features contain NaN or infinity')
    y, names = _encode_labels(y_raw, names)
    return X, y, names


def _numeric(values) -> bool:
    try:
        [float(v) for v in values]
    except ValueError:
        return False
    return True


def _encode_labels(y_raw: np.ndarray, names):
    if names is not None and np.issubdtype(y_raw.dtype, np.integer):
        y = y_raw.astype(np.int64)
        if y.min() < 0 or y.max() >= len(names):
            raise DatasetError('label indices fall outside the label names')
        return y, names
    uniques = sorted({str(v) for v in y_raw}, key=lambda s: (not _numeric([s]), _sortkey(s)))
    index = {name: i for i, name in enumerate(uniques)}
    return np.array([index[str(v)] for v in y_raw], dtype=np.int64), uniques


def _sortkey(s: str):
    return float(s) if _numeric([s]) else s


def load_dataset(name_or_path: str) -> Dataset:
    """Load a bundled data set by name, SynSep (``synsep[:N[:SEED]]``) or a CSV/NPZ file."""
    if name_or_path in BUNDLED:
        return load_bundled(name_or_path)
    if name_or_path.split(':')[0] == 'synsep':
        from .synsep import load_synsep
        try:
            return load_synsep(name_or_path)
        except ValueError as exc:
            raise DatasetError(str(exc)) from None
    if not os.path.isfile(name_or_path) and not name_or_path.endswith(('.csv', '.npz')):
        # A word that is no file: most likely a mistyped name, so the names are what helps.
        close = difflib.get_close_matches(name_or_path, BUNDLED, n=1)
        raise DatasetError(f'{name_or_path}: no such file or data set; '
                           + (f'did you mean {close[0]}? ' if close else '')
                           + f'built in: {", ".join(BUNDLED)}, synsep[:N[:SEED]], or a '
                           '.csv / .npz file')
    return load_file(name_or_path)
