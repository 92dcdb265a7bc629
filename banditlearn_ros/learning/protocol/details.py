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
What the learner node says about each prediction (the details message), built in one place.

The node and ``benchmarks/bench_learning.py`` both use ``details_json``, so the cost
the benchmark prints is the node's.  With many labels, writing every label's score as JSON
costs more than the learning step (about 0.7 ms at K = 1000), so past ``top`` labels only
the ``top`` best bounds are carried, with their label indices.

``details_json`` writes the message.  With orjson installed (the ``[fast]`` extra) it writes
the same JSON values as ``json.dumps`` (floats as the shortest text that parses back to the
same float64, as ``repr`` writes them) in compact form, 4-5x faster (2.6 against 10.7 us at
K = 6, 3.0 against 15 us at K = 10); without it, or when a value orjson would write
differently (a non-finite float) may be present, it is ``json.dumps``.
"""

import json
from typing import Any, Dict, Optional, Tuple

import numpy as np

from .interaction_records import finite_or_none, Round

try:
    import orjson
except ImportError:  # the optional [fast] extra is not installed
    orjson = None
_NUMPY = orjson.OPT_SERIALIZE_NUMPY if orjson is not None else 0
_dumps = orjson.dumps if orjson is not None else None
_NDARRAY, _FLOAT64 = np.ndarray, np.dtype(np.float64)

DETAILS_TOP = 32
"""Most labels whose scores and bounds a details message carries."""


def prediction_details(item: Any, stamp: float, top: int = DETAILS_TOP,
                       inputs: Optional[Tuple[int, int]] = None) -> Dict[str, Any]:
    """
    Return the JSON-able details of one prediction.

    Parameters
    ----------
    item : rounds.Round
        The question asked (its ``id`` and ``prediction``).
    stamp : float
        Time of the prediction, seconds.
    top : int
        With more labels than this, ``scores`` and ``bounds`` hold only the ``top``
        labels with the largest bounds (the said and the greedy label always among them),
        in label order, and ``indices`` names them (``n_labels`` says how many exist);
        with fewer, every label in label order, as ``scores[i]`` of label ``i``.
        0 = always every label.
    inputs : (int, int), optional
        Feature and yes/no messages the learner had taken when it asked (refused ones
        too): ``inputs`` ``{features, feedback}``, so that a replay takes a recording's
        messages in the learner's order (``input_order``).

    Returns
    -------
    dict
        ``id, question, final, label, index, scores, bounds, explored, greedy, probability,
        rejected, stamp`` (+ ``indices, n_labels`` when cut, ``inputs`` when given).
        ``id`` is the interaction's id, ``question`` the question's number in it (1 = the
        first guess), ``final`` whether a "no" ends the interaction, ``rejected`` the
        labels already answered "no" in it.  Questions after the first carry question 1's
        ``scores`` and ``bounds`` (``ask_again.Questions``: those of the labels not yet
        rejected are unchanged).
        With rejection of never-taught gestures on (``learning.algorithms.open_set``), ``unknown``
        holds ``score, threshold, armed, rejected`` (None for an infinite score or
        threshold); ``rejected`` True means the label was not said: its name is wanted.

    """
    return _details(item, stamp, top, True, inputs)


def _details(item: Any, stamp: float, top: int, lists: bool,
             inputs: Optional[Tuple[int, int]] = None) -> Dict[str, Any]:
    """Build ``prediction_details``; ``lists`` False leaves scores and bounds as arrays."""
    p = item.prediction
    scores, bounds = p.scores, p.bounds
    if type(scores) is not np.ndarray or scores.dtype != np.float64:
        scores = np.asarray(scores, dtype=np.float64)
    if type(bounds) is not np.ndarray or bounds.dtype != np.float64:
        bounds = np.asarray(bounds, dtype=np.float64)
    questions = getattr(item, 'questions', None)
    out = {'id': item.id, 'question': int(getattr(item, 'question', 1)),
           'final': bool(getattr(item, 'final', True)), 'label': p.label,
           'index': int(p.index)}
    n = scores.shape[0]
    if top <= 0 or n <= top:
        if lists:
            scores, bounds = scores.tolist(), bounds.tolist()
        out['scores'], out['bounds'] = scores, bounds
    else:
        keep = np.argpartition(bounds, n - top)[n - top:]
        must = (int(p.index), int(p.greedy))
        missing = [j for j in dict.fromkeys(must) if not (keep == j).any()]
        if missing:  # a tie at the cut or a greedy label of low bound: make room for them
            free = [i for i in np.argsort(bounds[keep]).tolist() if int(keep[i]) not in must]
            keep[free[:len(missing)]] = missing
        keep.sort()
        out['scores'], out['bounds'] = scores[keep].tolist(), bounds[keep].tolist()
        out['indices'], out['n_labels'] = keep.tolist(), n
    if questions is not None and questions.rejected:
        labels = questions.learner.labels
        rejected = [labels[i] for i in questions.rejected]
    else:
        rejected = []
    out['explored'] = bool(p.explored)
    out['greedy'] = int(p.greedy)
    out['probability'] = float(p.probability)
    out['rejected'] = rejected
    out['stamp'] = stamp
    out.update(_inputs(inputs))
    verdict = getattr(item, 'verdict', None)
    if verdict is not None:
        out['unknown'] = {'score': finite_or_none(verdict.score),
                          'threshold': finite_or_none(verdict.threshold),
                          'armed': bool(verdict.armed), 'rejected': bool(verdict.reject)}
    return out


def details_json(item: Any, stamp: float, top: int = DETAILS_TOP,
                 inputs: Optional[Tuple[int, int]] = None) -> str:
    """
    Return the details message of one prediction as JSON text (``prediction_details``).

    ``json.loads`` of the text equals ``json.loads(json.dumps(prediction_details(...)))``
    with or without orjson; only the whitespace and the escaping of non-ASCII names differ.
    """
    if orjson is not None:
        # Arrays as they are: orjson writes each float64 as float's repr would (shortest
        # round trip).  It writes NaN and infinity as null, json.dumps as NaN / Infinity;
        # no value here is None, so b'null' can only come from such a float or a name.
        # A Round carrying every label as float64 arrays (the node's every message) is
        # written from its fields directly; anything else goes through ``_details``.
        try:
            p = item.prediction
            scores, bounds = p.scores, p.bounds
            if (type(item) is Round and item.verdict is None and type(scores) is _NDARRAY
                    and type(bounds) is _NDARRAY
                    and scores.dtype is _FLOAT64 and bounds.dtype is _FLOAT64
                    and not 0 < top < bounds.shape[0]):
                questions = item.questions
                rejected = questions.rejected if questions is not None else None
                if rejected:
                    labels = questions.learner.labels
                    rejected = [labels[i] for i in rejected]
                text = _dumps({
                    'id': item.id, 'question': item.question, 'final': item.final,
                    'label': p.label, 'index': p.index, 'scores': scores, 'bounds': bounds,
                    'explored': bool(p.explored), 'greedy': int(p.greedy),
                    'probability': float(p.probability), 'rejected': rejected or [],
                    'stamp': stamp, **_inputs(inputs)}, option=_NUMPY)
            else:
                text = _dumps(_details(item, stamp, top, False, inputs), option=_NUMPY)
        except orjson.JSONEncodeError:  # e.g. an array orjson does not take (not contiguous)
            text = b'null'
        if b'null' not in text:
            return text.decode()
    return json.dumps(prediction_details(item, stamp, top, inputs))


def _inputs(inputs: Optional[Tuple[int, int]]) -> Dict[str, Any]:
    """Return the ``inputs`` entry of a details message ({} without counts)."""
    if inputs is None:
        return {}
    return {'inputs': {'features': int(inputs[0]), 'feedback': int(inputs[1])}}
