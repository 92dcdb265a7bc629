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
What the teaching page shows and which of its taps become answers, without ROS.

The page node feeds this the learner's messages (questions with their interaction id and
question number, every yes/no heard on ``gesture_feedback``, ended interactions, unknown
gestures, the learner's configuration) and asks it about every tap. A std_msgs/Bool carries
no id, so the learner applies a yes/no to its latest open question (docs/topics.md); the
page's taps carry the ``(id, question)`` they were shown, and a tap on a question that is no
longer open, or already answered (a nod, another phone), is refused here and never
published: one answer per question, never one landing on the next question.

"That's X" is what a person at the keys does, step by step: "y" when the robot asks X, "n"
to anything else, and ``+X`` once the interaction ended without a "yes" (``gesture_name``);
with no gesture to name it adds X to the labels, as ``+X`` does.
"""

import json
import math
import threading
from typing import Any, Dict, List, Optional, Tuple

from banditlearn_ros.learning.protocol.labels import check_labels
from banditlearn_ros.learning.protocol.session import SessionLog

CURVE_POINTS = 200
"""Most points of the learning curve sent to the page (evenly thinned)."""

NEXT_BEST = 3
"""Labels after the asked one shown as quick "that's ..." buttons."""

MAX_NAME = 64
"""Longest gesture name a page may send, in characters."""


class PageError(ValueError):
    """A page action that cannot be taken; its text is shown on the page."""


Action = Tuple[str, Any]
"""What the node must publish: ``('answer', (yes, id, question))``, ``('name', str)`` or
``('add', str)``."""

KEPT_KEYS = 64
"""Questions whose answers (heard, counted) the page remembers."""


class PageState:
    """
    The question, labels, counts and learning curve the page shows; the taps' checks.

    Thread-safe: the node's callbacks and the web server's thread both call it.

    Parameters
    ----------
    window : int
        Interactions in the windowed first-guess accuracy (the curve's "last 50").

    Examples
    --------
    >>> s = PageState()
    >>> s.on_details({'id': 0, 'question': 1, 'label': 'fist', 'final': False})
    >>> s.answer(0, 1, True)
    ('answer', (True, 0, 1))
    >>> s.answer(0, 1, False)
    Traceback (most recent call last):
    ...
    banditlearn_ros.page.state.PageError: that question was answered already

    """

    def __init__(self, window: int = 50):
        self.log = SessionLog(window=window)
        self.labels: List[str] = []
        self.counts: Dict[str, int] = {}
        self.question: Optional[Dict[str, Any]] = None
        self.answered = False
        self.unknown: Optional[int] = None
        self.thumbnail: Optional[str] = None
        self.naming: Optional[Tuple[int, str]] = None
        self.named_changes = 0
        self.version = 0
        # The yes/no topic and the questions come on separate topics, so a yes/no the learner
        # took before it asked the current question can arrive after it: the learner's
        # counts in the details (``inputs``) say how many such answers are still owed.
        self._asked_at_inputs: Optional[int] = None
        self._heard_since_question = 0
        self._owed = 0
        self._heard_keys: Dict[Tuple[int, int], bool] = {}
        self.counted: Dict[Tuple[int, int], Dict[str, Any]] = {}
        self.notice = ''
        self._lock = threading.RLock()

    # -- the learner's messages --------------------------------------------------------
    def on_config(self, document: Dict[str, Any]) -> None:
        """Take the learner's labels from its configuration document (``learner_config``)."""
        labels = list(document['start']['parameters'].get('labels') or [])
        named = []
        for change in document.get('changes', []):
            kind = change.get('kind')
            if kind == 'reset':
                continue
            changed = change.get('changed') or {}
            if 'labels' in changed:
                labels = list(changed['labels'])
            if kind == 'named':
                named.append(str(change['name']))
                if change['name'] not in labels:
                    labels.append(str(change['name']))
        with self._lock:
            self.labels = [str(name) for name in labels]
            for name in named[self.named_changes:]:  # a gesture named: one more example
                self.counts[name] = self.counts.get(name, 0) + 1
            self.named_changes = len(named)
            self.version += 1

    def on_details(self, details: Dict[str, Any]) -> Optional[Action]:
        """
        Take a question; return the answer "that's X" gives it, if X was said for it.

        ``details`` is the learner's ``gesture_prediction_details`` JSON.
        """
        ident, number = int(details['id']), int(details.get('question', 1))
        label = str(details['label'])
        with self._lock:
            self.question = {
                'id': ident, 'question': number, 'label': label,
                'final': bool(details.get('final', True)),
                'rejected': [str(r) for r in details.get('rejected') or []],
                'next': self._next_best(details, label)}
            self.answered = False
            taken = (details.get('inputs') or {}).get('feedback')
            if taken is not None and self._asked_at_inputs is not None:
                self._owed = max(0, int(taken) - self._asked_at_inputs
                                 - self._heard_since_question)
            else:
                self._owed = 0
            self._asked_at_inputs = None if taken is None else int(taken)
            self._heard_since_question = 0
            if self.unknown is not None and self.unknown != ident:
                self.unknown = None
            if self.notice and not self.notice.startswith(f'your tap on gesture {ident + 1},'):
                self.notice = ''
            self.log.on_question(label, ident, number)
            self.version += 1
            if self.naming is not None and self.naming[0] == ident:
                self.answered = True
                return ('answer', (label == self.naming[1], ident, number))
            if self.naming is not None:
                self.naming = None
            return None

    def _next_best(self, details: Dict[str, Any], label: str) -> List[str]:
        """Return the labels with the best bounds after the asked one, not yet rejected."""
        bounds = details.get('bounds') or []
        indices = details.get('indices') or list(range(len(bounds)))
        out = []
        skip = set(details.get('rejected') or []) | {label}
        order = sorted(range(len(bounds)), key=lambda i: -_number(bounds[i]))
        for i in order:
            j = int(indices[i])
            if 0 <= j < len(self.labels) and self.labels[j] not in skip:
                out.append(self.labels[j])
            if len(out) == NEXT_BEST:
                break
        return out

    def on_feedback(self, right: bool) -> None:
        """
        Take a yes/no heard on the feedback topic (any source): the question is answered.

        Unless the learner had taken it before it asked this question (it came late, behind
        the question): then it answered the one before.
        """
        with self._lock:
            self.log.on_answer(bool(right))
            if self._owed > 0:
                self._owed -= 1
            else:
                self._heard_since_question += 1
                if self.question is not None and not self.answered:
                    self.answered = True
            self.version += 1

    def on_keyed(self, right: bool, ident: int, number: int) -> None:
        """
        Take a yes/no that names its question (``gesture_answer``: a tap, a nod).

        Its question is answered; the curve counts one answer per question (a second one,
        which the learner refuses, is not counted again).
        """
        key = (int(ident), int(number))
        with self._lock:
            if key not in self._heard_keys:
                self._heard_keys[key] = bool(right)
                _trim(self._heard_keys)
                self.log.on_answer(bool(right))
            q = self.question
            if q is not None and (q['id'], q['question']) == key:
                self.answered = True
            self.version += 1

    def on_taken(self, result: Dict[str, Any]) -> None:
        """
        Take the learner's word on an answer (``gesture_answer_taken``): which one counted.

        A tap the learner refused (another answer reached it first) leaves a notice saying
        which answer counted.
        """
        key = (int(result['id']), int(result['question']))
        source, outcome = str(result['source'])[:32], str(result['outcome'])
        with self._lock:
            if outcome == 'matched':
                self.counted[key] = {'yes': bool(result['yes']), 'source': source}
                _trim(self.counted)
            elif source == 'page':
                first = self.counted.get(key)
                self.notice = (f'your tap on gesture {key[0] + 1}, question {key[1]} came '
                               'second: ' + (f'"{_word(first["yes"])}" from '
                                             f'{first["source"]} counted' if first else
                                             'that question was no longer open'))
            self.version += 1

    def on_interaction(self, event: Dict[str, Any]) -> None:
        """Take an ended interaction (``gesture_interaction``): a "yes" counts its label."""
        with self._lock:
            self.log.on_end(int(event['id']), int(event['questions']), int(event['answers']))
            if event.get('outcome') == 'yes' and event.get('label') is not None:
                name = str(event['label'])
                self.counts[name] = self.counts.get(name, 0) + 1
            if self.question is not None and self.question['id'] == int(event['id']):
                self.answered = True  # nothing more can be answered in it
            if self.naming is not None and self.naming[0] == int(event['id']) and \
                    event.get('outcome') == 'yes':
                self.naming = None
            self.version += 1

    def on_unknown(self, event: Dict[str, Any]) -> Optional[Action]:
        """Take a gesture that ended without a "yes"; return the name "that's X" gave it."""
        ident = int(event['id'])
        with self._lock:
            self.version += 1
            if self.naming is not None and self.naming[0] == ident:
                name, self.naming = self.naming[1], None
                return ('name', name)
            self.unknown = ident
            return None

    def on_thumbnail(self, data_url: Optional[str]) -> None:
        """Take the small picture of the frame the current question is about."""
        with self._lock:
            self.thumbnail = data_url
            self.version += 1

    # -- the page's taps ---------------------------------------------------------------
    def answer(self, ident: Any, number: Any, right: Any) -> Action:
        """
        Check a yes/no tapped for question ``number`` of interaction ``ident``.

        Returns ``('answer', right)`` to publish; raises PageError (the page shows its text)
        when that question is not the open one or was answered already.
        """
        if not isinstance(right, bool):
            raise PageError('an answer is yes or no')
        with self._lock:
            self._check_open(ident, number)
            self.answered = True
            self.version += 1
            return ('answer', (right, int(ident), int(number)))

    def name(self, ident: Any, number: Any, name: Any) -> Action:
        """
        Check "that's ``name``" tapped on question ``number`` of interaction ``ident``.

        An open question: the answer to publish now (yes when it asks ``name``), the later
        questions of the interaction answered the same way (``on_details``), the name
        published if it ends without a "yes" (``on_unknown``). An interaction that ended
        without a "yes": ``('name', name)``. Nothing asked at all (``ident`` None): ``('add',
        name)``, a new label.
        """
        name = _checked_name(name)
        with self._lock:
            if ident is None:
                if name in self.labels:
                    raise PageError(f'{name!r} is already a label')
                return ('add', name)
            if self.unknown is not None and _same(ident, self.unknown):
                self.unknown = None
                self.version += 1
                return ('name', name)
            self._check_open(ident, number)
            self.answered = True
            self.naming = (int(ident), name)
            self.version += 1
            return ('answer', (self.question['label'] == name, int(ident), int(number)))

    def _check_open(self, ident: Any, number: Any) -> None:
        q = self.question
        if q is None:
            raise PageError('no question is open')
        if not (_same(ident, q['id']) and _same(number, q['question'])):
            raise PageError('that question is no longer open: the robot asked '
                            f'"{q["label"]}?" since')
        if self.answered:
            raise PageError('that question was answered already')

    # -- what the page shows -----------------------------------------------------------
    def snapshot(self, thumbnails: bool = True) -> Dict[str, Any]:
        """Return everything the page shows, as JSON-able values."""
        with self._lock:
            t, windowed, _ = self.log.curve()
            qpi = _running_mean([r.asked for r in self.log.records], self.log.window)
            return {
                'type': 'state', 'version': self.version,
                'question': dict(self.question) if self.question else None,
                'open': self.question is not None and not self.answered,
                'counted': self.counted.get((self.question['id'], self.question['question']))
                if self.question else None,
                'notice': self.notice,
                'naming': self.naming[1] if self.naming else None,
                'unknown': self.unknown, 'labels': list(self.labels),
                'counts': {name: self.counts.get(name, 0) for name in self.labels},
                'interactions': self.log.interactions,
                'accuracy': _plain(self.log.windowed_accuracy()),
                'questions_per_interaction': _plain(self.log.questions_per_interaction()),
                'window': self.log.window,
                'curve': {'right': _thinned(list(windowed)),
                          'questions': _thinned(qpi)},
                'thumbnail': self.thumbnail if thumbnails else None}

    def text(self, thumbnails: bool = True) -> str:
        """Return ``snapshot()`` as the WebSocket message's text."""
        return json.dumps(self.snapshot(thumbnails))


def _trim(kept: Dict[Any, Any]) -> None:
    """Forget the oldest entries past ``KEPT_KEYS`` (dicts keep their insertion order)."""
    while len(kept) > KEPT_KEYS:
        del kept[next(iter(kept))]


def _word(yes: bool) -> str:
    return 'yes' if yes else 'no'


def _checked_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise PageError('a gesture needs a name')
    name = name.strip()
    if len(name) > MAX_NAME:
        raise PageError(f'a name has at most {MAX_NAME} characters')
    try:
        check_labels([name])
    except ValueError as exc:
        raise PageError(str(exc)) from None
    return name


def _same(a: Any, b: int) -> bool:
    return isinstance(a, int) and not isinstance(a, bool) and a == b


def _number(value: Any) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return -math.inf
    return out if math.isfinite(out) else -math.inf


def _plain(value: float) -> Optional[float]:
    return None if value != value else round(float(value), 4)


def _thinned(values: List[float]) -> List[List[float]]:
    """Return ``[[n, value], ...]`` (n from 1) thinned to at most ``CURVE_POINTS`` points."""
    step = max(1, math.ceil(len(values) / CURVE_POINTS))
    points = [[i + 1, round(float(v), 4)] for i, v in enumerate(values)][::step]
    if values and points[-1][0] != len(values):
        points.append([len(values), round(float(values[-1]), 4)])
    return points


def _running_mean(values: List[int], window: int) -> List[float]:
    """Return the mean of the last ``window`` values at every position."""
    out, total = [], 0
    for i, v in enumerate(values):
        total += v
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out
