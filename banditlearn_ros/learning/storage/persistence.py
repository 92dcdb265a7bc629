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
Model files: a versioned ``.npz`` (no pickle) holding the arrays and a JSON header.

The JSON header (algorithm, hyperparameters, labels, feature size, package version,
format version, random-generator state) is stored inside the same archive as a byte
array, so one atomic rename publishes a consistent model.
"""

import json
import os
import stat
import tempfile
from typing import Any, BinaryIO, Callable, Dict, Union
import zipfile
import zlib

import numpy as np

from ..algorithms.base import OnlineClassifier, OPEN_SET_PREFIX
from ..algorithms.open_set import Calibration
from ..algorithms.registry import ALGORITHMS
from ..protocol.fleet_saved import fleet_from_state, fleet_state
from ..protocol.labels import check_labels, clipped

FORMAT = 'banditlearn_ros.model'
FORMAT_VERSION = 1
_HEADER_KEY = '__header__'
TEMP_SUFFIX = '.tmp'
"""A save writes ``.<name>.<random>.tmp`` beside the model file, then renames it."""


class ModelFileError(Exception):
    """A model file that cannot be used; the message names the file and what is wrong."""

    def __init__(self, path: Union[str, os.PathLike], problem: str):
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f'model file {self.path}: {problem}')


def _package_version() -> str:
    from ... import __version__
    return __version__


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: Union[str, os.PathLike], data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename."""
    atomic_write(path, lambda handle: handle.write(data))


def atomic_write(path: Union[str, os.PathLike], write: Callable[[BinaryIO], Any]) -> None:
    """
    Let ``write(handle)`` fill a temporary file beside ``path``, fsync it, rename it.

    A symbolic link is followed: its target is written (the temporary file beside the
    target), so the link stays a link instead of being replaced by a plain file.
    """
    path = os.path.realpath(os.fspath(path))
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix='.' + os.path.basename(path) + '.', suffix=TEMP_SUFFIX,
                               dir=folder)
    try:
        # mkstemp makes the file 0600; a saved file gets the mode any new file would get.
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, 'wb') as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


FLEET_PREFIX = 'fleet_'
"""Model-file arrays of the fleet's evidence (``fleet_saved.fleet_state``)."""


def model_state(learner: OnlineClassifier) -> Dict[str, Any]:
    """
    Return what a model file holds: ``state_dict()`` and the fleet's evidence, if any.

    A learner that merged other robots' evidence carries it as ``learner.fleet``; saved
    with the model, a restart keeps it and never counts it twice.
    """
    state = learner.state_dict()
    fleet = getattr(learner, 'fleet', None)
    if fleet is not None:
        state['extra']['fleet'], held = fleet_state(fleet)
        state['arrays'].update({FLEET_PREFIX + k: v for k, v in held.items()})
    return state


def save_model(learner: OnlineClassifier, path: Union[str, os.PathLike]) -> None:
    """Save a learner atomically; a crash mid-write leaves the previous file intact."""
    save_state(model_state(learner), path)


def save_state(state: Dict[str, Any], path: Union[str, os.PathLike]) -> None:
    """
    Save a learner's ``state_dict()`` atomically (``save_model`` of a copy taken earlier).

    The copy is taken under the learner's lock; writing it needs no lock, so a background
    writer never holds up the learner.
    """
    state = dict(state)
    arrays = state.pop('arrays')
    header = dict(state, format=FORMAT, format_version=FORMAT_VERSION,
                  package_version=_package_version(),
                  array_shapes={k: list(v.shape) for k, v in arrays.items()})
    payload = {_HEADER_KEY: np.frombuffer(json.dumps(header).encode('utf-8'), dtype=np.uint8)}
    payload.update(arrays)
    atomic_write(path, lambda handle: _write_npz(handle, payload))


def _write_npz(handle: BinaryIO, arrays: Dict[str, np.ndarray]) -> None:
    """
    Write what ``np.savez`` writes (an uncompressed zip of .npy files) straight from the arrays.

    ``np.savez`` copies each array into bytes first (``tobytes``), holding the GIL for
    milliseconds at 1000 labels; here the file gets the arrays' own memory, so a writer
    thread leaves the learner's thread running.
    """
    with zipfile.ZipFile(handle, mode='w', compression=zipfile.ZIP_STORED,
                         allowZip64=True) as archive:
        for name, array in arrays.items():
            array = np.ascontiguousarray(array)
            with archive.open(name + '.npy', mode='w', force_zip64=True) as member:
                np.lib.format.write_array_header_1_0(
                    member, np.lib.format.header_data_from_array_1_0(array))
                member.write(memoryview(array.reshape(-1)).cast('B'))


MAX_MODEL_BYTES = 2 ** 30
"""Default largest model read, in bytes of arrays (a full-covariance UCWL of 10 labels and
3000 features takes 720 MB)."""

MAX_FEATURES = 2 ** 27
"""Largest ``n_features`` a model file may declare: one array of them at ``MAX_MODEL_BYTES``."""

MAX_HEADER_BYTES = 2 ** 20
"""Largest JSON header read, in bytes."""


def _open_regular(path: str):
    """Open ``path`` for reading without blocking; refuse a FIFO, a device or a folder."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise ModelFileError(path, f'cannot be opened ({exc.strerror})') from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ModelFileError(path, 'is not a regular file (a FIFO, a device or a folder)')
    return os.fdopen(fd, 'rb')


def _read_member(path: str, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    """Read one .npy member after checking what its header declares against its size."""
    name = info.filename[:-len('.npy')]
    with archive.open(info) as handle:
        version = np.lib.format.read_magic(handle)
        read_header = np.lib.format.read_array_header_2_0 if version[0] >= 2 \
            else np.lib.format.read_array_header_1_0
        shape, fortran, dtype = read_header(handle, max_header_size=10000)
        if dtype.hasobject:
            raise ModelFileError(path, f'array {name!r} holds objects, not numbers')
        count = int(np.prod(shape, dtype=object))
        if count * dtype.itemsize > info.file_size:
            raise ModelFileError(path, f'array {name!r} declares shape {shape}, more than '
                                       f'the {info.file_size} bytes it holds')
        # Inflated straight into the array (the learner's arrays are updated in place): the
        # peak is the array, not the array and a copy of its bytes.
        out = np.empty(count, dtype=dtype)
        view = memoryview(out).cast('B')
        done = 0
        while done < len(view):
            got = handle.readinto(view[done:done + _CHUNK])
            if not got:
                raise ModelFileError(path, f'array {name!r} is cut short')
            done += got
    return out.reshape(shape, order='F' if fortran else 'C')


_CHUNK = 2 ** 20
"""Bytes inflated per read of a member."""

MAX_INFLATION = 100
"""Most a compressed member may grow past ``MAX_SMALL_MEMBER``, times its stored bytes."""

MAX_SMALL_MEMBER = 2 ** 26
"""A compressed member up to this many bytes inflated is read whatever its ratio (64 MiB)."""


def _check_inflation(path: str, info: zipfile.ZipInfo) -> None:
    """
    Refuse a compressed member that would inflate past ``MAX_INFLATION`` x its stored bytes.

    This package writes members stored, not compressed (``_write_npz``); learned numbers
    compress a little, zeros about 1000 x: a 1 MB member that inflates to 1 GB is a bomb,
    refused before a byte of it is inflated.
    """
    if info.compress_type == zipfile.ZIP_STORED or info.file_size <= MAX_SMALL_MEMBER:
        return
    if info.file_size > MAX_INFLATION * max(info.compress_size, 1):
        raise ModelFileError(
            path, f'member {info.filename!r} of {info.compress_size} compressed bytes '
            f'declares {info.file_size} (more than {MAX_INFLATION} x); save it uncompressed '
            '(numpy.savez) to use it')


def _read_members(path: str, archive: zipfile.ZipFile, max_bytes: int) -> Dict[str, Any]:
    """
    Read the archive's arrays; every declared size is checked before anything is read.

    A member's uncompressed size is what the archive declares (the zip reader never gives
    more), so the sum of them is held against ``max_bytes`` and each array's own header
    against its member before a byte of data is inflated.
    """
    infos = archive.infolist()
    for info in infos:
        if not info.filename.endswith('.npy') or info.is_dir():
            raise ModelFileError(path, f'member {info.filename!r} is not an .npy array')
    total = sum(info.file_size for info in infos)
    if max_bytes and total > max_bytes:
        raise ModelFileError(path, f'its arrays take {total} bytes, more than the limit of '
                                   f'{max_bytes}')
    for info in infos:
        _check_inflation(path, info)
    header = [i for i in infos if i.filename == _HEADER_KEY + '.npy']
    if header and header[0].file_size > MAX_HEADER_BYTES:
        raise ModelFileError(path, f'header of {header[0].file_size} bytes is larger than '
                                   f'{MAX_HEADER_BYTES}')
    return {info.filename[:-len('.npy')]: _read_member(path, archive, info) for info in infos}


def read_model_state(path: Union[str, os.PathLike],
                     max_bytes: int = MAX_MODEL_BYTES) -> Dict[str, Any]:
    """Read and check a model file; return the state dict. Raises ModelFileError."""
    path = os.fspath(path)
    if not os.path.lexists(path):
        raise ModelFileError(path, 'does not exist')
    try:
        with _open_regular(path) as handle, zipfile.ZipFile(handle) as archive:
            contents = _read_members(path, archive, max_bytes)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError, NotImplementedError,
            zlib.error) as exc:
        raise ModelFileError(path, f'is not a readable .npz archive ({exc})') from None
    for name, value in contents.items():
        if name != _HEADER_KEY and value.dtype.kind not in 'fiub':
            raise ModelFileError(path, f'array {name!r} holds {value.dtype}, not numbers')
    if _HEADER_KEY not in contents:
        raise ModelFileError(path, 'has no banditlearn_ros header (not a model file)')
    try:
        header = json.loads(contents.pop(_HEADER_KEY).tobytes().decode('utf-8'))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(path, f'has a corrupt header ({exc})') from None
    except RecursionError:
        raise ModelFileError(path, 'has a corrupt header (nested too deeply)') from None
    if not isinstance(header, dict) or header.get('format') != FORMAT:
        raise ModelFileError(path, 'header does not describe a banditlearn_ros model')
    if header.get('format_version') != FORMAT_VERSION:
        raise ModelFileError(
            path, f'format version {header.get("format_version")!r} is not supported '
                  f'(this package reads version {FORMAT_VERSION})')
    for key in ('algorithm', 'hyperparameters', 'labels', 'n_features', 'array_shapes'):
        if key not in header:
            raise ModelFileError(path, f'header lacks {key!r}')
    _check_header(path, header)
    for name, shape in header['array_shapes'].items():
        if name not in contents:
            raise ModelFileError(path, f'array {name!r} is missing')
        if list(contents[name].shape) != list(shape):
            raise ModelFileError(
                path, f'array {name!r} has shape {contents[name].shape}, header says {shape}')
    header['arrays'] = contents
    return header


def _check_header(path: str, header: Dict[str, Any]) -> None:
    """Refuse header values of the wrong kind before a learner is built from them."""
    labels = header['labels']
    if not isinstance(labels, list) or not all(isinstance(v, str) for v in labels):
        raise ModelFileError(path, f'labels {clipped(labels)} are not a list of names')
    try:
        check_labels(labels)
    except ValueError as exc:
        raise ModelFileError(path, f'labels: {exc}') from None
    n = header['n_features']
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_FEATURES:
        raise ModelFileError(path, f'n_features {clipped(n)} is not a whole number in '
                                   f'[1, {MAX_FEATURES}]')
    if not isinstance(header['hyperparameters'], dict):
        raise ModelFileError(path, 'hyperparameters are not a table of names and values')
    shapes = header['array_shapes']
    if not isinstance(shapes, dict) or not all(
            isinstance(v, list) and all(isinstance(d, int) for d in v) for v in shapes.values()):
        raise ModelFileError(path, 'array_shapes is not a table of shapes')
    for key in ('extra', 'rng_state'):
        if header.get(key) is not None and not isinstance(header[key], dict):
            raise ModelFileError(path, f'{key} is not a table')


def _check_learner_arrays(path: str, state: Dict[str, Any], names) -> None:
    """
    Refuse a header whose labels and ``n_features`` the learner's arrays do not hold.

    A learner is built from the header before its arrays are copied in; checked here first,
    what it allocates is bounded by what the file holds (itself bounded by ``max_bytes``),
    not by a number in the header (``covariance: full`` takes labels x d^2 doubles).
    """
    k, d = len(state['labels']), state['n_features']
    for name in names:
        array = state['arrays'].get(name)
        if array is None:
            raise ModelFileError(path, f'array {name!r} is missing')
        if array.ndim < 2 or array.shape[:2] != (k, d) or any(
                n != d for n in array.shape[2:]):
            raise ModelFileError(
                path, f'array {name!r} has shape {array.shape}, not that of {k} labels x '
                f'{d} features (n_features)')


def load_model(path: Union[str, os.PathLike], expect_features: int = 0,
               max_bytes: int = MAX_MODEL_BYTES) -> OnlineClassifier:
    """
    Load a learner saved by ``save_model``.

    Parameters
    ----------
    path : str or os.PathLike
        The model file.
    expect_features : int
        When > 0, the feature size the caller needs; a different one is an error.
    max_bytes : int
        Largest total of the arrays' declared sizes read (0 = no limit).

    Returns
    -------
    OnlineClassifier
        The learner, ready to continue exactly where it stopped.

    """
    state = read_model_state(path, max_bytes)
    algorithm = state['algorithm']
    if algorithm not in ALGORITHMS:
        raise ModelFileError(path, f'unknown algorithm {algorithm!r}')
    if expect_features and int(state['n_features']) != int(expect_features):
        raise ModelFileError(
            path, f'holds {state["n_features"]} features, expected {expect_features}')
    _check_learner_arrays(path, state, ALGORITHMS[algorithm].array_names())
    try:
        learner = ALGORITHMS[algorithm].from_state_dict(state)
        extra = state.get('extra') or {}
        if 'open_set' in extra:  # a file saved before rejection existed has none
            held = {k[len(OPEN_SET_PREFIX):]: v for k, v in state['arrays'].items()
                    if k.startswith(OPEN_SET_PREFIX)}
            learner.calibration = Calibration.from_state(
                extra['open_set'], held, learner.n_features)
        if 'fleet' in extra:  # what other robots' evidence brought: never counted twice
            held = {k[len(FLEET_PREFIX):]: v for k, v in state['arrays'].items()
                    if k.startswith(FLEET_PREFIX)}
            learner.fleet = fleet_from_state(extra['fleet'], held, learner.n_features)
        return learner
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, OverflowError) as exc:
        # A value the learner refuses (bad hyperparameter, non-finite mean, non-positive
        # variance, wrong random-generator state): still one line naming the file.
        raise ModelFileError(path, f'{type(exc).__name__}: {exc}' if isinstance(
            exc, (KeyError, AttributeError, IndexError)) else str(exc)) from None
