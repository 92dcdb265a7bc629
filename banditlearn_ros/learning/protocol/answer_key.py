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
A yes/no that names its question: the wire form of ``gesture_answer``, without ROS.

A std_msgs/Bool on ``gesture_feedback`` carries no id, so the learner applies it to its
latest open question. A source that knows which question it answers (the page, whose taps
carry the question shown; the feedback node, which heard the question before the nod)
says so in a std_msgs/String on ``gesture_answer``: ``{"id", "question", "yes",
"source"}``. The learner applies it to that question only, so a tap and a nod made at the
same moment are one answer whatever order they arrive in: the second names a question
already answered and is refused (``Interaction.feedback``'s ``key``).

Examples
--------
>>> text = answer_json(7, 1, True, 'page')
>>> read_answer(text)
Answer(id=7, question=1, yes=True, source='page')
>>> read_answer('{"id": 7, "question": 1, "yes": "yes", "source": "page"}')
Traceback (most recent call last):
...
ValueError: an answer's "yes" is true or false

"""

import json
from typing import Any, NamedTuple, Optional, Tuple

TOPIC = 'gesture_answer'
"""The keyed answers' topic (std_msgs/String)."""

RESULT_TOPIC = 'gesture_answer_taken'
"""The learner's word on each answer it heard (std_msgs/String, ``result_json``)."""

PLAIN = 'feedback'
"""The source named for a plain std_msgs/Bool on ``gesture_feedback``."""

MAX_CHARS = 512
"""Longest answer text read (a real one is under 80 characters)."""

MAX_SOURCE = 32
"""Longest source name, in characters."""


class Answer(NamedTuple):
    """A yes/no for question ``question`` of interaction ``id``, from ``source``."""

    id: int  # noqa: A003 (the name the details JSON uses)
    question: int
    yes: bool
    source: str

    @property
    def key(self) -> Tuple[int, int]:
        """Return ``(id, question)``, the question this answers."""
        return (self.id, self.question)


def answer_json(ident: int, question: int, yes: bool, source: str) -> str:
    """
    Return the ``gesture_answer`` text of a yes/no for one question.

    Parameters
    ----------
    ident, question : int
        The interaction id and question number of the details message answered.
    yes : bool
        True: the question was right.
    source : str
        Who answered (``page``, ``head``, ``joy``, ...), for the counts and the page.

    Returns
    -------
    str
        Compact JSON, checked by ``read_answer`` first (a bad value raises ValueError).

    """
    answer = _checked(ident, question, yes, source)
    return json.dumps(answer._asdict(), separators=(',', ':'))


def read_answer(text: str) -> Answer:
    """
    Read a ``gesture_answer`` text; raise ValueError with the reason when it is not one.

    Parameters
    ----------
    text : str
        The message's data.

    Returns
    -------
    Answer
        The checked answer.

    """
    if not isinstance(text, str) or len(text) > MAX_CHARS:
        raise ValueError(f'an answer is a JSON object of at most {MAX_CHARS} characters')
    try:
        doc = json.loads(text)
    except (TypeError, ValueError):
        raise ValueError('an answer is a JSON object') from None
    if not isinstance(doc, dict):
        raise ValueError('an answer is a JSON object')
    return _checked(doc.get('id'), doc.get('question'), doc.get('yes'),
                    doc.get('source', 'unnamed'))


def result_json(answer: Answer, outcome: str) -> str:
    """Return the learner's word on ``answer``: taken (``matched``) or why it was refused."""
    return json.dumps(dict(answer._asdict(), outcome=str(outcome)), separators=(',', ':'))


def _checked(ident: Any, question: Any, yes: Any, source: Any) -> Answer:
    for name, value, low in (('id', ident, 0), ('question', question, 1)):
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise ValueError(f'an answer\'s "{name}" is an integer of at least {low}')
    if not isinstance(yes, bool):
        raise ValueError('an answer\'s "yes" is true or false')
    if not isinstance(source, str) or not source or len(source) > MAX_SOURCE:
        raise ValueError(f'an answer\'s "source" is a name of 1 to {MAX_SOURCE} characters')
    return Answer(int(ident), int(question), yes, source)


class HeardQuestion:
    """
    The question a listener heard last (its details message), so that its answers name it.

    Unknown (``key`` None: before any question, or after details it cannot read), an answer
    goes out as a plain std_msgs/Bool, which the learner applies to its latest open question.
    """

    def __init__(self):
        self.key: Optional[Tuple[int, int]] = None

    def heard(self, details: Any) -> None:
        """Keep the (interaction id, question) of a details JSON value; forget it if absent."""
        try:
            self.key = (int(details['id']), int(details.get('question', 1)))
        except (KeyError, TypeError, ValueError):
            self.key = None

    def answer(self, yes: bool, source: str) -> Optional[str]:
        """Return the ``gesture_answer`` text of ``yes`` from ``source`` (None: send a Bool)."""
        if self.key is None:
            return None
        return answer_json(*self.key, bool(yes), source.split(' ')[0].lower())
