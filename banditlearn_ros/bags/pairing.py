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
Whether a recording holds every gesture, question and answer of its session.

A recorder that missed messages gives a replay that differs from the session without a
word, so ``banditlearn_bag info`` checks what the learner's own messages say it had:
every question's details carry the feature and yes/no messages the learner had taken
(``inputs``), every finished interaction how many questions it asked and answers it
took; the bag must hold at least those.  A true label is sent before every gesture, so
labels and gestures must be as many; a question's String and its details are one each.
Each check runs only where the bag has what it needs (a camera session has no labels, an
old bag no ``inputs``).
"""

import json
from typing import Any, Dict, List, Optional

from .constants import CUSTOM_LOST
from .errors import BagError
from .reader import Bag

TOPICS = ('gesture_label', 'gesture_features', 'gesture_prediction',
          'gesture_prediction_details', 'gesture_feedback', 'gesture_interaction')


def _session_topic(topic: str) -> bool:
    """Return whether a replay needs ``topic`` (a package topic, under any namespace)."""
    return any(topic.rstrip('/').endswith('/' + name) or topic == name
               for name in TOPICS + ('learner_config', 'gesture_name'))


def _json_messages(bag: Bag, topic: Optional[str]) -> List[Dict[str, Any]]:
    out = []
    if topic is None:
        return out
    for item in bag.messages([topic]):
        try:
            doc = json.loads(item.msg.data)
        except (ValueError, AttributeError):
            continue
        if isinstance(doc, dict):
            out.append(doc)
    return out


def _int(doc: Dict[str, Any], *keys: str) -> Optional[int]:
    value: Any = doc
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def pairing_problems(bag: Bag) -> List[str]:
    """
    Return what the recording lacks of its session, one sentence each ([] = it pairs up).

    Parameters
    ----------
    bag : Bag
        An open recording; its per-topic read counts are reset afterwards.

    Returns
    -------
    list of str
        E.g. ``the learner had taken 40 yes/no answers by its last question; the bag
        holds 38``.

    """
    found: Dict[str, Optional[str]] = {}
    for name in TOPICS:
        try:
            found[name] = bag.resolve_topic(name)
        except BagError:
            found[name] = None
    count = {name: bag.topics[topic].count if topic else 0 for name, topic in found.items()}
    try:
        details = _json_messages(bag, found['gesture_prediction_details'])
        ended = _json_messages(bag, found['gesture_interaction'])
    except BagError as err:  # a damaged file: info says so elsewhere; check what counts can
        details, ended = [], []
        problems_read = [f'questions and answers could not be paired ({err})']
    else:
        problems_read = []
    finally:
        bag.reset_counts()
    problems = problems_read
    try:
        lost = json.loads(bag.custom_data.get(CUSTOM_LOST) or '{}')
    except ValueError:
        lost = {}
    if isinstance(lost, dict):
        for topic, n in sorted(lost.items()):
            if isinstance(n, int) and n > 0:
                problems.append(f'the recorder was told that {n} message(s) on {topic} were '
                                'lost' + (': a replay cannot match the session'
                                          if _session_topic(topic) else
                                          ' (a replay does not need them)'))
    gestures, answers = count['gesture_features'], count['gesture_feedback']
    if count['gesture_label'] and count['gesture_label'] != gestures:
        problems.append(f'{count["gesture_label"]} true labels for {gestures} gestures (one is '
                        'sent before each): the session missed a presentation (its summary '
                        'says presentations_missed) or the recorder a label; true-label '
                        'figures and --answers teacher see only those labels')
    if found['gesture_prediction'] and found['gesture_prediction_details'] and \
            count['gesture_prediction'] != count['gesture_prediction_details']:
        problems.append(f'{count["gesture_prediction"]} questions but '
                        f'{count["gesture_prediction_details"]} question details (one each): '
                        'the recorder missed some')
    ids = [_int(d, 'id') for d in details]
    first = next((i for i in ids if i is not None), None)
    restarted = any(b is not None and a is not None and b < a for a, b in zip(ids, ids[1:]))
    if first is not None and not restarted:
        taken_f = max((_int(d, 'inputs', 'features') or 0 for d in details), default=0)
        taken_b = max((_int(d, 'inputs', 'feedback') or 0 for d in details), default=0)
        if first == 0 and taken_f > gestures:
            problems.append(f'the learner had taken {taken_f} gestures by its last question; '
                            f'the bag holds {gestures}: the recorder missed some, a replay '
                            'cannot ask the same questions')
        if first == 0 and taken_b > answers:
            problems.append(f'the learner had taken {taken_b} yes/no answers by its last '
                            f'question; the bag holds {answers}: the recorder missed some, a '
                            'replay cannot ask the same questions')
        asked: Dict[int, int] = {}
        for i in ids:
            if i is not None:
                asked[i] = asked.get(i, 0) + 1
        missing = sum(max(0, (_int(e, 'questions') or 0) - asked.get(_int(e, 'id'), 0))
                      for e in ended if _int(e, 'id') is not None and _int(e, 'id') >= first)
        if missing:
            problems.append(f'{missing} question(s) of finished interactions are not in the '
                            'bag: the recorder missed them')
        took = sum(_int(e, 'answers') or 0 for e in ended
                   if _int(e, 'id') is not None and _int(e, 'id') >= first)
        if first == 0 and took > answers:
            problems.append(f'the finished interactions took {took} answers; the bag holds '
                            f'{answers}: the recorder missed some, a replay cannot ask the same '
                            'questions')
    return problems
