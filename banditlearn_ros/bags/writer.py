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

"""Write rosbag2 folders atomically, and data sets as bags a robot can play."""

import json
import os
from pathlib import Path
import shutil
import tempfile
from typing import Any, Dict, Optional, Sequence

import numpy as np

from .constants import (
    CUSTOM_FEATURE_SET, CUSTOM_LABELS, FEATURES_TYPE, FEEDBACK_TYPE, LABEL_TYPE, METADATA_VERSION,
    PathLike, STORAGES)
from .decoder import builtin_typestore
from .errors import BagError
from .recorded_qos import recorded_qos


class BagWriter:
    """
    Write a new rosbag2 folder atomically: it appears complete or not at all.

    Parameters
    ----------
    path : str or os.PathLike
        The bag folder to create; it must not exist (as with ``ros2 bag record -o``).
    storage : str
        'mcap' (default, as on Jazzy and Kilted) or 'sqlite3'.

    """

    def __init__(self, path: PathLike, storage: str = 'mcap'):
        if storage not in STORAGES:
            raise BagError(f'storage {storage!r}: choose from {", ".join(STORAGES)}')
        self.path = Path(path)
        if self.path.exists():
            raise BagError(f'{self.path}: exists already; not overwriting')
        parent = self.path.parent if str(self.path.parent) else Path('.')
        if not parent.is_dir():
            raise BagError(f'{parent}: no such folder')
        self.storage = storage
        self.typestore = builtin_typestore()
        self._tmp = Path(tempfile.mkdtemp(prefix='.' + self.path.name + '.', dir=parent))
        from rosbags.rosbag2 import StoragePlugin, Writer
        plugin = StoragePlugin.MCAP if storage == 'mcap' else StoragePlugin.SQLITE3
        self._writer = Writer(self._tmp / self.path.name, version=METADATA_VERSION,
                              storage_plugin=plugin)
        self._connections: Dict[str, Any] = {}
        self._opened = False

    def set_custom_data(self, key: str, value: str) -> None:
        """Store a key/value in metadata.yaml's custom_data."""
        self._writer.set_custom_data(key, value)

    def add_topic(self, topic: str, msgtype: str, qos=None) -> None:
        """Add a topic with its type (from the built-in type store) and offered QoS."""
        if not self._opened:
            self._writer.open()
            self._opened = True
        if msgtype not in self.typestore.fielddefs:
            raise BagError(f'{msgtype}: not a type this writer knows')
        self._connections[topic] = self._writer.add_connection(
            topic, msgtype, typestore=self.typestore,
            offered_qos_profiles=[qos if qos is not None else recorded_qos()])

    def message(self, msgtype: str, **fields):
        """Return a new message object of a built-in type, for ``write``."""
        return self.typestore.types[msgtype](**fields)

    def write(self, topic: str, stamp_ns: int, msg) -> None:
        """Serialise and write one message at the given receive time (ns)."""
        conn = self._connections[topic]
        self._writer.write(conn, int(stamp_ns), self.typestore.serialize_cdr(msg, conn.msgtype))

    def close(self) -> None:
        """Finish the bag and move it into place."""
        try:
            if not self._opened:
                self._writer.open()
                self._opened = True
            self._writer.close()
            os.replace(self._tmp / self.path.name, self.path)
        finally:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def abort(self) -> None:
        """Drop the half-written bag."""
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> 'BagWriter':
        return self

    def __exit__(self, exc_type, *rest) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def features_message(writer: BagWriter, row: np.ndarray, feature_set: str):
    """Return a Float32MultiArray as the topic contract says: dim[0] = (feature set, d, d)."""
    d = int(len(row))
    dim = writer.message('std_msgs/msg/MultiArrayDimension', label=feature_set, size=d,
                         stride=d)
    layout = writer.message('std_msgs/msg/MultiArrayLayout', dim=[dim], data_offset=0)
    return writer.message(FEATURES_TYPE, layout=layout,
                          data=np.asarray(row, dtype=np.float32))


def write_dataset_bag(path: PathLike, X: np.ndarray, y: np.ndarray, label_names: Sequence[str],
                      *, storage: str = 'mcap', rate_hz: float = 2.0,
                      start_ns: Optional[int] = None, feature_set: str = 'dataset',
                      features_topic: str = '/gesture_features',
                      label_topic: str = '/gesture_label',
                      feedback: Optional[Sequence[bool]] = None,
                      feedback_topic: str = '/gesture_feedback') -> Dict[str, Any]:
    """
    Write a data set as a bag a robot can play: one label, then one features message per row.

    Example i is stamped ``start + i / rate_hz``; its label goes out a tenth of a period
    before its features (so a teacher knows the truth before the learner answers), and an
    optional feedback Bool half a period after.  The label names and feature-set name go
    into metadata.yaml's custom_data so ``export`` restores the label order.

    Parameters
    ----------
    path : str or os.PathLike
        The bag folder to create.
    X, y, label_names
        The data set as ``learning.offline.datasets`` returns it.
    storage : str
        'mcap' or 'sqlite3'.
    rate_hz : float
        Examples per second in recorded time.
    start_ns : int, optional
        Time of the first example; now by default.
    feature_set : str
        The features' layout label (the feature-set name in the topic contract).
    features_topic, label_topic, feedback_topic : str
        Topic names as ros2 bag record stores them (fully qualified).
    feedback : sequence of bool, optional
        One yes/no per row, written on ``feedback_topic``.

    Returns
    -------
    dict
        Counts per topic, the storage and the time span.

    """
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or len(X) == 0 or len(X) != len(y):
        raise BagError('a data set needs X as n x d (n >= 1) with one label per row')
    if not np.all(np.isfinite(X)):
        raise BagError('features contain NaN or infinity')
    if not (np.isfinite(rate_hz) and rate_hz > 0):
        raise BagError(f'rate {rate_hz}: must be a positive number of examples per second')
    names = [str(n) for n in label_names]
    if len(y) and (int(y.min()) < 0 or int(y.max()) >= len(names)):
        raise BagError('label indices fall outside the label names')
    if feedback is not None and len(feedback) != len(X):
        raise BagError('feedback needs one value per row')
    if start_ns is None:
        import time
        start_ns = time.time_ns()
    period = int(round(1e9 / rate_hz))
    lead = max(1, period // 10)
    with BagWriter(path, storage) as writer:
        writer.add_topic(label_topic, LABEL_TYPE)
        writer.add_topic(features_topic, FEATURES_TYPE)
        if feedback is not None:
            writer.add_topic(feedback_topic, FEEDBACK_TYPE)
        writer.set_custom_data(CUSTOM_LABELS, json.dumps(names))
        writer.set_custom_data(CUSTOM_FEATURE_SET, feature_set)
        for i, row in enumerate(X):
            t = start_ns + lead + i * period
            writer.write(label_topic, t - lead, writer.message(LABEL_TYPE, data=names[int(y[i])]))
            writer.write(features_topic, t, features_message(writer, row, feature_set))
            if feedback is not None:
                writer.write(feedback_topic, t + period // 2,
                             writer.message(FEEDBACK_TYPE, data=bool(feedback[i])))
    counts = {label_topic: len(X), features_topic: len(X)}
    if feedback is not None:
        counts[feedback_topic] = len(X)
    last = (len(X) - 1) * period + lead + (period // 2 if feedback is not None else 0)
    return {'path': str(path), 'storage': storage, 'counts': counts, 'start_ns': start_ns,
            'duration_s': last / 1e9}
