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

"""Pair recorded features with their labels into a data set (NPZ)."""

from dataclasses import dataclass, field
import io
import json
from typing import Dict, Iterable, Iterator, List, Optional, Sequence

import numpy as np

from .constants import (CUSTOM_FEATURE_SET, CUSTOM_LABELS, FEATURES_TYPE, FEEDBACK_TYPE,
                        LABEL_TYPE, PathLike)
from .errors import BagError
from .reader import Bag, BagMessage


@dataclass
class ExportResult:
    """A data set read back from a bag, and what was skipped on the way and why."""

    X: np.ndarray
    y: np.ndarray
    labels: List[str]
    feature_set: str = ''
    feedback: Optional[np.ndarray] = None
    skipped: Dict[str, int] = field(default_factory=dict)

    def npz_bytes(self) -> bytes:
        """Return the NPZ file contents (arrays X, y, labels; feedback when recorded)."""
        arrays = {'X': self.X.astype(np.float32), 'y': self.y.astype(np.int64),
                  'labels': np.array(self.labels, dtype=str),
                  'feature_set': np.array(self.feature_set)}
        if self.feedback is not None:
            arrays['feedback'] = self.feedback.astype(np.int8)
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        return buffer.getvalue()


def _label_order(seen: Sequence[str], stored: Optional[str]) -> List[str]:
    """Return label names: the bag's stored order when it covers them all, else sorted."""
    if stored:
        try:
            names = [str(n) for n in json.loads(stored)]
        except (ValueError, TypeError):
            names = []
        if names and set(seen) <= set(names) and len(set(names)) == len(names):
            return names

    def key(name):
        try:
            return (0, float(name), '')
        except ValueError:
            return (1, 0.0, name)
    return sorted(set(seen), key=key)


def export_dataset(bag: Bag, features_topic: str = 'gesture_features',
                   label_topic: str = 'gesture_label',
                   feedback_topic: Optional[str] = None) -> ExportResult:
    """
    Pair each features message with the latest label before it into a data set.

    Features with no label before them, of a different length than the first, or with
    NaN are skipped and counted in ``skipped`` by reason.  A feedback topic (optional)
    gives each row the first yes/no after it (-1 when none came before the next row).

    Parameters
    ----------
    bag : Bag
        An open bag.
    features_topic, label_topic, feedback_topic : str
        Topic names as a node uses them ('gesture_features' finds '/gesture_features').

    Returns
    -------
    ExportResult
        X (float32 values as float64), y, label names, and the skip counts.

    """
    f_topic = bag.resolve_topic(features_topic)
    l_topic = bag.resolve_topic(label_topic)
    b_topic = bag.resolve_topic(feedback_topic) if feedback_topic else None
    for name, want in ((f_topic, FEATURES_TYPE), (l_topic, LABEL_TYPE),
                       (b_topic, FEEDBACK_TYPE)):
        if name and bag.topics[name].msgtype != want:
            raise BagError(f'{bag.path}: topic {name} has type {bag.topics[name].msgtype}, '
                           f'not {want}')
    wanted = [t for t in (f_topic, l_topic, b_topic) if t]
    rows: List[np.ndarray] = []
    label_of_row: List[str] = []
    feedback: List[int] = []
    skipped: Dict[str, int] = {}
    feature_sets: List[str] = []
    current = None
    width = None
    bag.reset_counts()
    # Labels sort before features stamped at the same time.
    for item in time_groups(bag.messages(wanted), l_topic):
        if item.topic == l_topic:
            current = str(item.msg.data)
        elif item.topic == b_topic:
            if feedback and feedback[-1] == -1:
                feedback[-1] = int(bool(item.msg.data))
        else:
            data = np.asarray(item.msg.data, dtype=np.float32)
            reason = ''
            if current is None:
                reason = 'no label before it'
            elif data.size == 0:
                reason = 'empty features'
            elif width is not None and data.size != width:
                reason = f'{data.size} values where the first message had {width}'
            elif not np.all(np.isfinite(data)):
                reason = 'NaN or infinity in the features'
            if reason:
                skipped[reason] = skipped.get(reason, 0) + 1
                continue
            width = data.size
            rows.append(data)
            label_of_row.append(current)
            feedback.append(-1)
            dims = item.msg.layout.dim
            if dims and dims[0].label not in feature_sets:
                feature_sets.append(str(dims[0].label))
    problems = [p for t in wanted for p in bag.topics[t].problems]
    if not rows:
        why = []
        if not bag.topics[f_topic].decoded:
            why.append(f'no readable message on {f_topic}'
                       + (f' ({problems[0]})' if problems else ''))
        if not bag.topics[l_topic].decoded:
            why.append(f'no readable message on {l_topic}')
        why.extend(f'{n} skipped: {r}' for r, n in skipped.items())
        raise BagError(f'{bag.path}: nothing to export ({"; ".join(why) or "no pairs"})')
    labels = _label_order(label_of_row, bag.custom_data.get(CUSTOM_LABELS))
    index = {name: i for i, name in enumerate(labels)}
    X = np.vstack(rows).astype(np.float64)
    y = np.array([index[name] for name in label_of_row], dtype=np.int64)
    fb = np.array(feedback, dtype=np.int8) if b_topic else None
    feature_set = bag.custom_data.get(CUSTOM_FEATURE_SET) or ','.join(feature_sets)
    return ExportResult(X, y, labels, feature_set, fb, skipped)


def time_groups(messages: Iterable[BagMessage], first_topic: str) -> Iterator[BagMessage]:
    """
    Yield messages in time order with ``first_topic`` first among equal stamps.

    A label and the features stamped with it then arrive label first, whichever order the
    bag stored them in.

    Parameters
    ----------
    messages : iterable of BagMessage
        Messages in time order.
    first_topic : str
        The topic that leads each group of equal stamps.

    """
    group: List[BagMessage] = []
    for item in messages:
        if group and item.stamp_ns != group[0].stamp_ns:
            yield from sorted(group, key=lambda m: m.topic != first_topic)
            group = []
        group.append(item)
    yield from sorted(group, key=lambda m: m.topic != first_topic)


def save_npz(result: ExportResult, path: PathLike) -> None:
    """Write an exported data set atomically as NPZ (readable by datasets.load_file)."""
    from banditlearn_ros.learning.storage.persistence import atomic_write_bytes
    atomic_write_bytes(path, result.npz_bytes())
