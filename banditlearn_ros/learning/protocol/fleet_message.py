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
The fleet's message: one robot's evidence as bounded JSON, read back with every check.

A message is compact JSON in a std_msgs/String (readable with ``ros2 topic echo``): ids,
a version, label names, per-label counts, and the two evidence arrays as base64 of
little-endian float64 (exact, and about a third of the size of decimal text).  Reading
refuses anything a learner could be harmed by (``Evidence.from_text``): wrong sizes, NaN
or infinity, a negative or huge precision, bad ids or names, an oversized message.
``fleet_evidence`` merges what is read.
"""

import base64
from dataclasses import dataclass
import json
import math
import re
from typing import Any, Dict, Optional, Tuple

import numpy as np

from .labels import check_labels, clipped

SCHEMA = 'banditlearn_fleet_evidence/1'
"""The message format: this name, then the fields of ``Evidence.to_text``."""

FLEET_MODES = ('off', 'share', 'take', 'both')
"""The learner node's ``fleet`` parameter: send, take, both or neither (``off``, the default).
YAML reads ``off`` as false (a parameter file, ``-p fleet:=off``, ``ros2 param set``), so
false means ``off`` too; ``none``, the name before, is kept as another way to say it."""

FLEET_FRAMES = ('fixed', 'moving')
"""The fleet's centring frame: the pooled mean stops after the warm-up, or keeps moving
(``protocol/fleet_evidence`` says why it stops)."""

ID_PATTERN = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$')
"""A robot id or fleet name: up to 64 letters, digits, ``_ . -`` (a hostname fits)."""

MAX_PRECISION = 1e9
"""Largest precision gain taken per weight; a larger one is refused as hostile.  Measured:
at most 12.8 on digits after its 1797 interactions (wine 5.8, iris 9.1); a gain grows with
the squares of the features, so raw features in the hundreds reach far more, not 1e9."""

MAX_WEIGHTED = 1e12
"""Largest |precision-weighted mean gain| taken per weight."""

NEGATIVE_TOLERANCE = 1e-6
"""A precision gain below ``-NEGATIVE_TOLERANCE * (1 + its row's largest)`` is refused:
learning only adds precision, so only rounding can make a gain negative."""

MAX_MESSAGE_CHARS = 64 * 1024 * 1024
"""Longest evidence message read (1024 labels x 4096 features would not fit; 100 x 4096 do)."""

REFUSALS = ('malformed', 'wrong_size', 'not_finite', 'precision_out_of_range',
            'centring_mismatch', 'bad_result')
"""Why a message was refused (counted by reason, on /diagnostics as ``fleet_refused_*``)."""


class EvidenceError(ValueError):
    """Evidence refused: ``reason`` is one of ``REFUSALS``."""

    def __init__(self, reason: str, text: str):
        super().__init__(text)
        self.reason = reason


def check_id(kind: str, value: Any) -> str:
    """Return ``value`` if it is a valid robot id or fleet name, else raise ValueError."""
    if not isinstance(value, str) or not ID_PATTERN.match(value):
        raise ValueError(f'{kind} {clipped(value)} must be 1-64 letters, digits, _ . - '
                         '(starting with a letter or digit)')
    return value


def robot_id_from(hostname: str) -> str:
    """Return a valid robot id made from a hostname (other characters become ``-``)."""
    cleaned = re.sub(r'[^A-Za-z0-9_.-]', '-', hostname).strip('-_.')[:64]
    return cleaned or 'robot'


def encode_array(array: np.ndarray) -> str:
    """Return an array as base64 of little-endian float64 (exact, compact)."""
    return base64.b64encode(np.ascontiguousarray(array, dtype='<f8').tobytes()).decode('ascii')


def decode_array(text: Any, shape: Tuple[int, ...], what: str) -> np.ndarray:
    """Return the float64 array of ``shape`` in base64 ``text``; raise ``EvidenceError``."""
    if not isinstance(text, str):
        raise EvidenceError('malformed', f'{what} is not base64 text')
    try:
        raw = base64.b64decode(text.encode('ascii'), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise EvidenceError('malformed', f'{what} is not base64 text') from None
    if len(raw) != 8 * int(np.prod(shape)):
        raise EvidenceError('wrong_size', f'{what} holds {len(raw) // 8} numbers, expected '
                                          f'{int(np.prod(shape))}')
    return np.frombuffer(raw, dtype='<f8').astype(np.float64).reshape(shape)


def read_count(value: Any, what: str) -> int:
    """Return a whole number in [0, 2^53) or raise ``EvidenceError`` (malformed)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2 ** 53:
        raise EvidenceError('malformed', f'{what} {clipped(value)} is not a count')
    return value


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EvidenceError('malformed', f'{what} {clipped(value)} is not a number')
    if not math.isfinite(value):
        raise EvidenceError('not_finite', f'{what} is not finite')
    return float(value)


@dataclass(frozen=True)
class CentringStats:
    """A robot's own centring statistics: vectors, their mean, distances, their mean."""

    mode: str
    count: int
    mean: np.ndarray
    spread_count: int
    spread: float


@dataclass(frozen=True)
class Evidence:
    """
    What one robot learned beyond its prior, per label name: one fleet message.

    Attributes
    ----------
    robot, fleet : str
        Who sent it and the fleet it belongs to (``check_id``).
    version : int
        Grows with each message of a robot; a robot's newer version replaces its older one.
    labels : tuple of str
        Label names, one row of ``precision`` and ``weighted`` each.
    precision, weighted : numpy.ndarray
        ``Sigma^-1 - Sigma_0^-1`` and ``Sigma^-1 mu - Sigma_0^-1 mu_0`` per label (diagonal).
    answers : tuple of int
        Answers each label had on the sending robot (UCWL's ``no_weight='ramp'`` counts).
    confirmed : tuple
        "Yes" answers of a label on probation there, or None for a label that is not.
    updates : int
        Updates the sender's learner made itself (shown on /diagnostics).
    centring : CentringStats or None
        The sender's own centring statistics (None: its learner does not centre).

    """

    robot: str
    fleet: str
    version: int
    labels: Tuple[str, ...]
    precision: np.ndarray
    weighted: np.ndarray
    answers: Tuple[int, ...]
    confirmed: Tuple[Optional[int], ...]
    updates: int
    centring: Optional[CentringStats]

    @property
    def n_features(self) -> int:
        """Return the feature size of the evidence."""
        return int(self.precision.shape[1])

    def to_text(self) -> str:
        """Return the message text: compact JSON, arrays as base64 little-endian float64."""
        message: Dict[str, Any] = {
            'schema': SCHEMA, 'robot': self.robot, 'fleet': self.fleet,
            'version': self.version, 'n_features': self.n_features,
            'labels': list(self.labels), 'answers': list(self.answers),
            'confirmed': list(self.confirmed), 'updates': self.updates,
            'precision': encode_array(self.precision), 'weighted': encode_array(self.weighted)}
        if self.centring is not None:
            c = self.centring
            message['centring'] = {'mode': c.mode, 'count': c.count, 'mean': encode_array(c.mean),
                                   'spread_count': c.spread_count, 'spread': c.spread}
        return json.dumps(message, separators=(',', ':'))

    @classmethod
    def from_text(cls, text: Any, max_precision: float = MAX_PRECISION) -> 'Evidence':
        """
        Read and check a message; raise ``EvidenceError`` (with its reason) for a bad one.

        Checked: the schema, ids, label names, sizes (labels x features, each array), every
        number finite, precision gains not negative beyond rounding and at most
        ``max_precision``, weighted-mean gains at most ``MAX_WEIGHTED``.
        """
        if not isinstance(text, str) or len(text) > MAX_MESSAGE_CHARS:
            raise EvidenceError('malformed', 'not a text message of a bounded length')
        try:
            message = json.loads(text)
        except ValueError:
            raise EvidenceError('malformed', 'not JSON') from None
        if not isinstance(message, dict) or message.get('schema') != SCHEMA:
            raise EvidenceError('malformed', f'not a {SCHEMA} message')
        try:
            robot = check_id('robot id', message.get('robot'))
            fleet = check_id('fleet name', message.get('fleet'))
            labels = message.get('labels')
            if not isinstance(labels, list):
                raise ValueError('labels are not a list')
            check_labels(labels)
        except ValueError as exc:
            raise EvidenceError('malformed', str(exc)) from None
        version = read_count(message.get('version'), 'version')
        d = read_count(message.get('n_features'), 'n_features')
        if not 1 <= d <= 65536:
            raise EvidenceError('wrong_size', f'n_features {d} is out of range')
        k = len(labels)
        answers, confirmed = message.get('answers'), message.get('confirmed')
        if not isinstance(answers, list) or len(answers) != k \
                or not isinstance(confirmed, list) or len(confirmed) != k:
            raise EvidenceError('wrong_size', 'answers and confirmed need one entry per label')
        answers = tuple(read_count(a, 'answers') for a in answers)
        confirmed = tuple(None if c is None else read_count(c, 'confirmed') for c in confirmed)
        updates = read_count(message.get('updates'), 'updates')
        precision = decode_array(message.get('precision'), (k, d), 'precision')
        weighted = decode_array(message.get('weighted'), (k, d), 'weighted')
        check_gains(precision, weighted, max_precision)
        centring = None
        if message.get('centring') is not None:
            centring = read_centring(message['centring'], d)
        return cls(robot, fleet, version, tuple(labels), precision, weighted, answers,
                   confirmed, updates, centring)


def check_gains(precision: np.ndarray, weighted: np.ndarray, max_precision: float) -> None:
    """Raise ``EvidenceError`` for gains that are not finite, negative or too large."""
    if not (np.isfinite(precision).all() and np.isfinite(weighted).all()):
        raise EvidenceError('not_finite', 'evidence holds NaN or infinity')
    if precision.size:
        floor = -NEGATIVE_TOLERANCE * (1.0 + np.abs(precision).max(axis=1, keepdims=True))
        if (precision < floor).any() or precision.max() > max_precision \
                or np.abs(weighted).max() > MAX_WEIGHTED:
            raise EvidenceError('precision_out_of_range',
                                f'precision gains must lie in [0, {max_precision:g}] and '
                                f'weighted-mean gains within {MAX_WEIGHTED:g}')


def read_centring(value: Any, d: int) -> CentringStats:
    """Return the centring statistics of a message; raise ``EvidenceError``."""
    if not isinstance(value, dict) or not isinstance(value.get('mode'), str) \
            or len(value['mode']) > 16:
        raise EvidenceError('malformed', 'centring is not a table with a mode')
    mean = decode_array(value.get('mean'), (d,), 'centring mean')
    if not np.isfinite(mean).all():
        raise EvidenceError('not_finite', 'centring mean holds NaN or infinity')
    spread = _number(value.get('spread'), 'centring spread')
    if spread < 0.0:
        raise EvidenceError('malformed', 'centring spread is negative')
    return CentringStats(value['mode'], read_count(value.get('count'), 'centring count'), mean,
                         read_count(value.get('spread_count'), 'centring spread_count'), spread)
