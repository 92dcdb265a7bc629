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
The learner node's model file: read at start, made to agree with the parameters, saved.

A restart must not lose what was learned nor silently change it: the file's labels come
first (the parameter may only append), construction-only hyperparameters stay the file's,
and a bad file is either refused or kept aside.  ``log`` is any logger with ``info``,
``warning`` and ``error`` (the node's), so the same lines appear with or without ROS.
"""

import contextlib
import fcntl
import hashlib
import os
import tempfile
import threading
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

from .learner_parameters import CONSTRUCTION_ONLY, DEFAULT_LABELS, tunable_changes
from .. import BanditLearner, load_model, ModelFileError
from ..algorithms.label_gaussians import LabelGaussians
from ..algorithms.nearest_examples import LIMIT as NEAREST_LIMIT, PER_ROW as NEAREST_PER_ROW
from ..storage.persistence import MAX_MODEL_BYTES, model_state, save_state, TEMP_SUFFIX


def load_bandit(path: str, expect_features: int,
                max_bytes: int = MAX_MODEL_BYTES) -> BanditLearner:
    """Load a model file that holds a bandit learner, or raise ModelFileError."""
    learner = load_model(path, expect_features=expect_features, max_bytes=max_bytes)
    if not isinstance(learner, BanditLearner):
        raise ModelFileError(path, f'holds a {learner.name} learner, which needs full '
                                   'labels; learner_node runs bandit learners only')
    return learner


def load_checked(path: str, expect_features: int, labels: List[str],
                 max_bytes: int = MAX_MODEL_BYTES) -> BanditLearner:
    """Load a model whose labels ``labels`` may extend but not remove or rename."""
    learner = load_bandit(path, expect_features, max_bytes)
    wanted = list(labels)
    # The default list means no list was given: the file's labels are used as they are.
    if wanted != DEFAULT_LABELS and wanted[:learner.n_labels] != list(learner.labels):
        raise ModelFileError(
            path, f'holds labels {list(learner.labels)}; the labels parameter {wanted} '
            'removes or renames some (labels can only be appended); give the labels of '
            'the file, or set start_fresh_on_bad_model to start a new model')
    return learner


_CLAIMED: Dict[str, int] = {}
"""Model files this process has claimed: real path -> the open, locked lock file."""


def lock_path(model_path: str) -> str:
    """
    Return the lock file of a model file: in the temporary folder, named after its path.

    Not beside the model file: a learner that never saves leaves nothing in its folder.
    """
    real = os.path.realpath(model_path)
    digest = hashlib.sha256(real.encode('utf-8', 'surrogateescape')).hexdigest()[:24]
    return os.path.join(tempfile.gettempdir(), f'banditlearn_ros-{os.getuid()}',
                        f'{digest}.lock')


def claim(model_path: str) -> str:
    """
    Claim ``model_path`` for this process, so that no second learner saves to it; return ''.

    A lock (``flock``) is taken on ``lock_path(model_path)``, held until the process ends
    (the kernel drops it even after SIGKILL). Another process holding it is a second
    learner on the same file: ModelFileError. Claimed, the temporary files a killed save
    left behind are removed. Where no lock file can be made, the reason is returned.
    """
    if not model_path:
        return ''
    real = os.path.realpath(model_path)
    if real in _CLAIMED:
        return ''
    path = lock_path(model_path)
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        return f'no lock file {path} ({exc.strerror})'
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.read(fd, 64).decode('ascii', 'replace').strip() or 'unknown'
        os.close(fd)
        raise ModelFileError(model_path, f'is in use by another learner (process {holder}); '
                                         'give each learner its own model_path '
                                         '(banditlearn_bringup: --set '
                                         'learner_node.model_path=FILE)') from None
    os.ftruncate(fd, 0)
    os.write(fd, f'{os.getpid()}\n'.encode('ascii'))
    _CLAIMED[real] = fd
    for name in {real, os.path.abspath(model_path)}:
        remove_stale_temporaries(name)
        remove_stale_temporaries(name + '.fresh.npz')
    return ''


def remove_stale_temporaries(path: str) -> List[str]:
    """Remove the temporary files an interrupted save of ``path`` left; return them."""
    folder, base = os.path.split(path)
    removed = []
    try:
        names = os.listdir(folder or '.')
    except OSError:
        return removed
    for name in names:
        if name.startswith(f'.{base}.') and name.endswith(TEMP_SUFFIX):
            try:
                os.unlink(os.path.join(folder, name))
                removed.append(name)
            except OSError:
                pass
    return removed


class ModelStart(NamedTuple):
    """What a node starts from: the learner read (or None), where to save, a problem."""

    learner: Optional[BanditLearner]
    save_path: str
    problem: str
    path: str


def load_at_start(model_path: str, expect_features: int, labels: List[str],
                  start_fresh: bool, log, max_bytes: int = MAX_MODEL_BYTES) -> ModelStart:
    """
    Read ``model_path`` if it exists; with ``start_fresh`` a bad file is kept aside.

    A bad file raises ModelFileError unless ``start_fresh``: then it is left untouched and
    the model goes to ``<model_path>.fresh.npz`` (read from there if a fresh one exists).
    """
    path = model_path
    if not path or not os.path.exists(path):
        return ModelStart(None, model_path, '', '')
    try:
        return ModelStart(load_checked(path, expect_features, labels, max_bytes), path, '',
                          path)
    except ModelFileError as exc:
        if not start_fresh:
            raise
        save_path = path + '.fresh.npz'
        problem = f'bad model file kept aside: {exc}'
        log.error(
            f'{exc}; starting with a fresh model (start_fresh_on_bad_model is true); the '
            f'bad file is left untouched and the new model is saved to {save_path}')
    if not os.path.exists(save_path):
        return ModelStart(None, save_path, problem, '')
    try:
        learner = load_checked(save_path, expect_features, labels, max_bytes)
    except ModelFileError as exc2:
        log.error(f'{exc2}; starting from scratch')
        return ModelStart(None, save_path, problem, '')
    return ModelStart(learner, save_path, problem, save_path)


def reconcile(learner: BanditLearner, algorithm: str,
              hyperparameters: Callable[[str], Dict[str, Any]], labels: List[str],
              log) -> Tuple[str, List[str]]:
    """
    Make a loaded learner and the parameters agree; return ``(algorithm, labels)`` to use.

    The file's algorithm and construction-only hyperparameters win (with a warning); the
    parameters' tunable ones are set; the parameter's new labels are appended after the
    file's, unless it holds the default list (no labels named: the file's labels are used).
    ``hyperparameters(algorithm)`` gives the parameters' values.
    """
    if learner.name != algorithm:
        log.warning(
            f'model file holds a {learner.name} learner; parameter algorithm='
            f'{algorithm!r} is ignored while this file is used')
        algorithm = learner.name
    wanted = hyperparameters(learner.name)
    held = learner.get_params()
    for name in CONSTRUCTION_ONLY:
        if name in wanted and wanted[name] != held.get(name):
            log.warning(
                f'model file has {name}={held.get(name)!r}; parameter value '
                f'{wanted[name]!r} needs a new model (~/reset_model)')
    tunable = tunable_changes(wanted, learner)
    if tunable:
        log.info(f'parameters override the file: {tunable}')
        learner.set_params(**tunable)
    if list(labels) == DEFAULT_LABELS:
        # No labels were named: the file's are the model's (the default list is not merged).
        return algorithm, list(learner.labels)
    for name in labels:
        if name not in learner.labels:
            learner.add_label(name)
    return algorithm, list(learner.labels)


class ModelSaves:
    """Where the model is saved, the updates since the last save and the last failure."""

    def __init__(self, path: str, clock: Callable[[], float] = time.monotonic):
        self.path = path
        self.updates_since_save = 0
        self.failed_at: Optional[float] = None
        self._clock = clock
        self._write_lock = threading.Lock()

    def save(self, learner: Optional[BanditLearner]) -> str:
        """Save atomically; return where (raises OSError or ValueError, remembered)."""
        return self.save_with(contextlib.nullcontext(), lambda: learner)

    def save_with(self, lock, learner_of: Callable[[], Optional[BanditLearner]]) -> str:
        """
        Save ``learner_of()``'s state, copied while ``lock`` is held and written without it.

        Saves are one at a time and in the order of their copies, so an older copy never
        replaces a newer file.  Returns where (raises OSError or ValueError, remembered).
        """
        with self._write_lock:
            with lock:
                learner = learner_of()
                if not self.path:
                    self.failed_at = self._clock()
                    raise ValueError('model_path is empty: the model lives in memory only')
                if learner is None:
                    self.failed_at = self._clock()
                    raise ValueError('no model yet (no feature vector seen)')
                state = model_state(learner)
                copied, self.updates_since_save = self.updates_since_save, 0
            try:
                save_state(state, self.path)
            except (OSError, ValueError):
                self.failed_at = self._clock()
                with lock:
                    self.updates_since_save += copied  # not on disk: due again
                raise
            self.failed_at = None
            return self.path

    def autosave_due(self, updated: bool, every: int) -> bool:
        """Return True when an update brought the count since the last save to ``every``."""
        return bool(updated and every > 0 and self.path and self.updates_since_save >= every)

    def error_now(self, hold: float) -> bool:
        """Return True while the last save failed and none succeeded since (within hold)."""
        failed_at = self.failed_at
        if failed_at is None:
            return False
        return hold <= 0 or self._clock() - failed_at < hold


RESET_BACKUP = '.before-reset-'
"""A reset keeps the model before it as ``<model_path>.before-reset-<UTC time>.npz``."""

MAX_RESET_BACKUPS = 20
"""Backups of one model file kept at most; a reset past them is refused (none is deleted)."""


def reset_backups(model_path: str) -> List[str]:
    """Return the backups a reset left beside ``model_path``, oldest first."""
    folder, base = os.path.split(os.path.abspath(model_path))
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(os.path.join(folder, n) for n in names
                  if n.startswith(base + RESET_BACKUP) and n.endswith('.npz'))


def back_up_before_reset(model_path: str, learner: Optional[BanditLearner],
                         now: Callable[[], float] = time.time) -> str:
    """
    Keep ``learner`` beside ``model_path`` before a reset; return the backup ('' = none).

    ``~/reset_model`` can be called by any peer in the ROS domain, and the next autosave
    would make it permanent: the model before it stays in ``<model_path>.before-reset-
    <UTC time>.npz`` until the user deletes it (to go back: stop the node, move the backup
    over the model file, start it again).  Nothing is kept for a model that learned nothing
    or lives in memory only.  Raises OSError or ValueError (the reset must then not happen),
    also when ``MAX_RESET_BACKUPS`` are already there.
    """
    if not model_path or learner is None or not learner.n_updates:
        return ''
    if len(reset_backups(model_path)) >= MAX_RESET_BACKUPS:
        raise ValueError(f'{MAX_RESET_BACKUPS} backups of earlier resets are beside '
                         f'{model_path} already; delete the ones not needed first')
    stamp = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(now()))
    path = f'{os.path.abspath(model_path)}{RESET_BACKUP}{stamp}.npz'
    suffix = 1
    while os.path.lexists(path):
        suffix += 1
        path = f'{os.path.abspath(model_path)}{RESET_BACKUP}{stamp}-{suffix}.npz'
    save_state(model_state(learner), path)
    return path


def available_memory() -> int:
    """Return the bytes of memory available now (a large number where it cannot be read)."""
    try:
        return os.sysconf('SC_AVPHYS_PAGES') * os.sysconf('SC_PAGE_SIZE')
    except (ValueError, OSError, AttributeError):
        return 2 ** 62


def state_bytes(size: int, n_labels: int, full: bool, open_set: bool = True) -> int:
    """
    Return the bytes a model of ``n_labels`` x ``size`` takes, with its never-taught state.

    The never-taught check (``open_set``) keeps per label the sums of its Gaussian
    (``LabelGaussians.state_bytes``) and up to ``nearest_examples.LIMIT`` confirmed vectors,
    each with its label and two answer counts; all are saved in the model file beside the
    learner's arrays.
    """
    needed = 8 * n_labels * size * (size + 1 if full else 2)
    if open_set:
        needed += (LabelGaussians.state_bytes(n_labels, size)
                   + 8 * NEAREST_LIMIT * (size + len(NEAREST_PER_ROW)))
    return needed


def size_problem(size: int, *, fixed: int, max_size: int, n_labels: int,
                 full: bool, max_bytes: int = 0) -> str:
    """
    Return why a first vector of ``size`` values cannot make the model, or ''.

    A wrong size against a fixed ``fixed`` is '' here: the learner's own check counts it.
    ``'too_long'`` past ``max_size``; ``'model_too_large'`` when the model of ``n_labels``
    classifiers with its never-taught state (``state_bytes``) would take more than half the
    memory available, or more than ``max_bytes`` (> 0: a model file larger than that would
    be refused at the next start).
    """
    if fixed and size != fixed:
        return ''
    if not fixed and size > max_size:
        return 'too_long'
    needed = state_bytes(size, n_labels, full)
    if needed > available_memory() // 2 or 0 < max_bytes < needed:
        return 'model_too_large'
    return ''


def check_growth(learner: Optional[BanditLearner], n_labels: int, max_bytes: int) -> None:
    """
    Raise ValueError when ``learner`` with ``n_labels`` labels would pass ``max_bytes``.

    A label appended to a running learner (a parameter change, a gesture named): its model
    file must still load at the next start.  No learner yet or no labels: nothing to check.
    """
    if learner is None or not n_labels:
        return
    full = learner.get_params().get('covariance') == 'full'
    needed = state_bytes(learner.n_features, n_labels, full)
    if needed > max_bytes:
        raise ValueError(f'{n_labels} labels of {learner.n_features} features would take '
                         f'{needed} bytes, more than max_model_bytes {max_bytes}')


def file_age(path: str) -> float:
    """Return the seconds since ``path`` was written, -1.0 where it cannot be read."""
    try:
        return max(0.0, time.time() - os.path.getmtime(path))
    except (OSError, TypeError):
        return -1.0
