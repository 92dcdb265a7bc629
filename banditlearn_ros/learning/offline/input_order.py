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
Put a recording's inputs back into the order the learner took them in.

A recorder stamps each message with its own receive time, topic by topic, so on a busy
machine an answer can be stored before the gesture it answers although the learner took
them the other way round.  Within one topic the order holds (one reliable writer).  The
learner's details message of each question says how many feature and yes/no messages it
had taken when it asked (``inputs``), and which of them made it ask: the gesture for a
first question, the "no" for a question asked again.  Those marks fix the merge of the two
topics at every question; between two questions (an answer that asked nothing, a refused
gesture) the recorded order stands.
"""

from typing import Any, Dict, List, Optional, Sequence, Tuple

from .replay import Event, FEATURES, FEEDBACK, LABEL, PREDICTION

Mark = Tuple[int, int, int]
"""One question: (its number in the interaction, features taken, answers taken)."""


def mark_of(details: Dict[str, Any]) -> Optional[Mark]:
    """Return the mark of one details message, or None (recorded before it carried inputs)."""
    inputs = details.get('inputs')
    if not isinstance(inputs, dict):
        return None
    try:
        return (int(details['question']), int(inputs['features']), int(inputs['feedback']))
    except (KeyError, TypeError, ValueError):
        return None


def usable_marks(marks: Sequence[Optional[Mark]], features: int, answers: int) -> List[Mark]:
    """
    Return the leading marks that fit a recording of ``features`` and ``answers`` messages.

    Each mark must take a new input of the kind that asks (a gesture for question 1, an
    answer after it) and no input the recording lacks; the first that does not (a learner
    started again, a recorder started late, an old message) ends the list.
    """
    out: List[Mark] = []
    done_f = done_b = 0
    for mark in marks:
        if mark is None:
            break
        question, f, b = mark
        if f < done_f or b < done_b or f > features or b > answers:
            break
        if (f == done_f) if question <= 1 else (b == done_b):
            break  # nothing new of the kind that asks this question
        out.append(mark)
        done_f, done_b = f, b
    return out


def learner_order(events: Sequence[Event], marks: Sequence[Mark]) -> List[Event]:
    """
    Return ``events`` in the learner's order of taking them, as ``marks`` say.

    Parameters
    ----------
    events : sequence of Event
        A recording's events in recorded order.
    marks : sequence of Mark
        ``usable_marks`` of the recording's details messages, in their order.

    Returns
    -------
    list of Event
        The same events: up to the last mark, feature and answer messages merged so that at
        each question exactly the counted ones come before it and the one that made it ask
        comes last; a label stays before the gesture it was recorded before, the k-th
        recorded question after the k-th mark's input; stamps made non-decreasing.  Without
        marks, ``events`` unchanged.

    """
    if not marks:
        return list(events)
    feats: List[int] = []
    answers: List[int] = []
    predictions: List[int] = []
    label_of: Dict[int, List[int]] = {}
    labels: List[int] = []
    for i, event in enumerate(events):
        if event.kind == LABEL:
            labels.append(i)
        elif event.kind == FEATURES:
            label_of[i], labels = labels, []
            feats.append(i)
        elif event.kind == FEEDBACK:
            answers.append(i)
        elif event.kind == PREDICTION:
            predictions.append(i)
    order: List[int] = []

    def take(index: int) -> None:
        order.extend(label_of.get(index, ()))
        order.append(index)

    done_f = done_b = 0
    for k, (question, f, b) in enumerate(marks):
        last = feats[f - 1] if question <= 1 else answers[b - 1]
        for index in sorted(feats[done_f:f] + answers[done_b:b]):
            if index != last:
                take(index)
        take(last)
        if k < len(predictions):
            order.append(predictions[k])
        done_f, done_b = f, b
    placed = set(order)
    order.extend(i for i in range(len(events)) if i not in placed)
    out: List[Event] = []
    clock = float('-inf')
    for index in order:
        event = events[index]
        clock = max(clock, event.stamp)
        out.append(event if event.stamp == clock else Event(clock, event.kind, event.value))
    return out
