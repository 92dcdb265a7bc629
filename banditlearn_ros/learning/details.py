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

The node and ``benchmarks/bench_learning.py`` both use ``prediction_details``, so the cost
the benchmark prints is the node's.  With many labels, writing every label's score as JSON
costs more than the learning step (about 0.7 ms at K = 1000), so past ``top`` labels only
the ``top`` best bounds are carried, with their label indices.
"""

from typing import Any, Dict

import numpy as np

DETAILS_TOP = 32
"""Most labels whose scores and bounds a details message carries."""


def prediction_details(item: Any, stamp: float, top: int = DETAILS_TOP) -> Dict[str, Any]:
    """
    Return the JSON-able details of one prediction.

    Parameters
    ----------
    item : interaction.Round
        The question asked (its ``id`` and ``prediction``).
    stamp : float
        Time of the prediction, seconds.
    top : int
        With more labels than this, ``scores`` and ``bounds`` hold only the ``top``
        labels with the largest bounds (the said and the greedy label always among them),
        in label order, and ``indices`` names them (``n_labels`` says how many exist);
        with fewer, every label in label order, as ``scores[i]`` of label ``i``.
        0 = always every label.

    Returns
    -------
    dict
        ``id, question, final, label, index, scores, bounds, explored, greedy, probability,
        rejected, stamp`` (+ ``indices, n_labels`` when cut).  ``id`` is the interaction's
        id, ``question`` the question's number in it (1 = the first guess), ``final``
        whether a "no" ends the interaction, ``rejected`` the labels already answered "no"
        in it.  Questions after the first carry question 1's ``scores`` and ``bounds``
        (``ask_again.Questions``: those of the labels not yet rejected are unchanged).

    """
    p = item.prediction
    scores = np.asarray(p.scores, dtype=np.float64)
    bounds = np.asarray(p.bounds, dtype=np.float64)
    out = {'id': item.id, 'question': int(getattr(item, 'question', 1)),
           'final': bool(getattr(item, 'final', True)), 'label': p.label,
           'index': int(p.index)}
    n = scores.shape[0]
    if top <= 0 or n <= top:
        out['scores'], out['bounds'] = scores.tolist(), bounds.tolist()
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
    questions = getattr(item, 'questions', None)
    rejected = ([questions.learner.labels[i] for i in questions.rejected]
                if questions is not None else [])
    out.update(explored=bool(p.explored), greedy=int(p.greedy),
               probability=float(p.probability), rejected=rejected, stamp=stamp)
    return out
