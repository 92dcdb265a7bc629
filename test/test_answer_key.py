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

"""One answer per question whatever the sources: keyed answers, without ROS."""

import itertools

from banditlearn_ros.learning import make_learner
from banditlearn_ros.learning.protocol.answer_key import (
    answer_json, PLAIN, read_answer, result_json)
from banditlearn_ros.learning.protocol.interaction import Interaction
from banditlearn_ros.page.state import PageState
import numpy as np
import pytest

LABELS = ['fist', 'palm', 'point', 'five']


def make():
    """Return an interaction that asks again after a "no" (up to three questions)."""
    return Interaction(lambda d: make_learner('ucwl', list(LABELS), d, seed=3),
                       clock=lambda: 100.0, feedback_timeout=5.0, max_questions=3)


def arrays(inter):
    return {k: v.copy() for k, v in inter.learner.state_dict()['arrays'].items()}


@pytest.mark.parametrize('first, second', list(itertools.product([True, False], repeat=2)))
def test_two_answers_naming_one_question_are_one_answer_in_either_order(first, second):
    """A tap and a nod for question 1: the first counts, the second is refused."""
    inter = make()
    item, _ = inter.predict([1.0, 0.5, 0.25])
    key = (item.id, item.question)
    taken = inter.feedback(first, key=key)
    after_first = arrays(inter)
    refused = inter.feedback(second, key=key)
    assert taken.outcome == 'matched'
    # After a "no" question 2 is open, yet the second answer named question 1: refused.
    assert refused.outcome == 'duplicate' and refused.round_id == item.id
    assert all(np.array_equal(a, b) for a, b in zip(after_first.values(),
                                                    arrays(inter).values()))
    assert inter.counts['feedback_matched'] == 1
    assert inter.counts['feedback_dropped_duplicate'] == 1
    if not first:  # question 2 is still open and takes its own answer
        assert inter.feedback(True, key=(item.id, 2)).outcome == 'matched'


def test_a_plain_yes_no_first_makes_a_keyed_one_for_that_question_a_second_answer():
    inter = make()
    item, _ = inter.predict([1.0, 0.5, 0.25])
    assert inter.feedback(False).outcome == 'matched'  # a Bool: the latest open question
    assert inter.feedback(True, key=(item.id, 1)).outcome == 'duplicate'
    assert inter.counts['feedback_matched'] == 1


def test_a_keyed_answer_for_an_older_interaction_is_not_open_and_changes_nothing():
    inter = make()
    old, _ = inter.predict([1.0, 0.5, 0.25])
    new, _ = inter.predict([0.2, 0.5, 0.9])
    before = arrays(inter)
    result = inter.feedback(True, key=(old.id, 1))
    assert result.outcome == 'not_open'
    assert inter.counts['feedback_dropped_not_open'] == 1
    assert all(np.array_equal(a, b) for a, b in zip(before.values(), arrays(inter).values()))
    assert inter.feedback(True, key=(new.id, 1)).outcome == 'matched'


def test_the_wire_form_round_trips_and_refuses_bad_values_with_a_reason():
    said = read_answer(answer_json(3, 2, False, 'nod'))
    assert tuple(said) == (3, 2, False, 'nod') and said.key == (3, 2)
    assert '"outcome":"duplicate"' in result_json(said, 'duplicate')
    for text, word in (('[]', 'object'), ('{', 'object'), ('x' * 600, 'characters'),
                       ('{"id": -1, "question": 1, "yes": true}', '"id"'),
                       ('{"id": 1, "question": 0, "yes": true}', '"question"'),
                       ('{"id": true, "question": 1, "yes": true}', '"id"'),
                       ('{"id": 1, "question": 1, "yes": 1}', '"yes"'),
                       ('{"id": 1, "question": 1, "yes": true, "source": ""}', '"source"')):
        with pytest.raises(ValueError, match=word):
            read_answer(text)
    with pytest.raises(ValueError):
        answer_json(1, 1, 'yes', 'page')


def test_the_page_counts_one_answer_per_question_and_says_which_counted():
    page = PageState()
    page.on_details({'id': 4, 'question': 1, 'label': 'fist', 'final': False})
    assert page.answer(4, 1, False) == ('answer', (False, 4, 1))
    page.on_keyed(False, 4, 1)  # its own tap, heard back
    page.on_keyed(True, 4, 1)  # a nod for the same question: not a second answer
    assert page.log.current.answers == [False]  # one answer for the question, not two
    page.on_taken({'id': 4, 'question': 1, 'yes': True, 'source': 'nod',
                   'outcome': 'matched'})
    page.on_taken({'id': 4, 'question': 1, 'yes': False, 'source': 'page',
                   'outcome': 'duplicate'})
    shown = page.snapshot()
    assert shown['counted'] == {'yes': True, 'source': 'nod'} and not shown['open']
    assert shown['notice'] == ('your tap on gesture 5, question 1 came second: "yes" from '
                               'nod counted')
    page.on_details({'id': 5, 'question': 1, 'label': 'palm', 'final': False})
    assert page.snapshot()['notice'] == '' and page.snapshot()['counted'] is None


def test_the_live_learner_counts_answers_by_source(tmp_path):
    from banditlearn_ros.learning.live import learner_parameters as lp
    from banditlearn_ros.learning.live.live_learner import LiveLearner

    values = dict(lp.defaults(), labels=list(LABELS), max_questions=3)

    class Log:
        def info(self, *a, **k):
            pass

        warning = error = info

    live = LiveLearner(values.get, '', Log())
    try:
        item, _, _ = live.predict([1.0, 0.5, 0.25])
        said, result = live.answer(answer_json(item.id, 1, False, 'page'))
        assert result.outcome == 'matched' and said.source == 'page'
        said, result = live.answer(answer_json(item.id, 1, True, 'nod'))
        assert result.outcome == 'duplicate'
        said, result = live.answer(True)  # a Bool: question 2, keyed with it as it counted
        assert result.outcome == 'matched' and (said.key, said.source) == ((item.id, 2), PLAIN)
        assert live.answer('not json')[1].outcome == 'unreadable'
        status = live.status()
        assert (status['answers_taken.page'], status['answers_refused.nod'],
                status['answers_taken.feedback'], status['answers_refused.unreadable']) == \
            (1, 1, 1, 1)
    finally:
        live.close(False)


def test_answer_sources_past_the_limit_are_counted_as_other():
    """A publisher may name any source: the names counted stay bounded, no answer is lost."""
    from banditlearn_ros.learning.live.answer_counts import AnswerCounts
    counts = AnswerCounts(limit=2)
    for source, taken in [('page', True), ('nod', False), ('tap', True), ('page', False),
                          ('joy', False), ('nod', True)]:
        counts.count(source, taken)
    assert counts.counts == {'answers_taken.page': 1, 'answers_refused.page': 1,
                             'answers_refused.nod': 1, 'answers_taken.nod': 1,
                             'answers_taken.other': 1, 'answers_refused.other': 1}


def test_an_answer_names_the_question_heard_last_or_goes_out_plain():
    from banditlearn_ros.learning.protocol.answer_key import HeardQuestion
    heard = HeardQuestion()
    assert heard.answer(True, 'nod') is None  # nothing heard yet: a plain Bool
    heard.heard({'id': 4, 'question': 2, 'label': 'palm'})
    assert read_answer(heard.answer(False, 'Joy button 3')) == (4, 2, False, 'joy')
    heard.heard({'id': 5})  # details without a question number: the first question
    assert read_answer(heard.answer(True, 'nod')) == (5, 1, True, 'nod')
    for unreadable in (None, [], 'text', {'question': 1}, {'id': 'x'}):
        heard.heard({'id': 6})
        heard.heard(unreadable)
        assert heard.key is None and heard.answer(True, 'nod') is None


def test_a_replay_applies_keyed_answers_as_the_learner_did():
    """A recording's keyed answers: a tap and a nod for question 1 replay as one answer."""
    from banditlearn_ros.learning.offline.replay import (
        Event, FEATURES, FEEDBACK, LearnerConfig, replay)
    config = LearnerConfig.from_parameters({'labels': LABELS, 'feedback_timeout': 5.0,
                                            'max_questions': 3, 'centring': 'none'})
    events = [Event(0.1, FEATURES, [1.0, 0.5, 0.25]),
              Event(0.2, FEEDBACK, read_answer(answer_json(0, 1, False, 'page'))),
              Event(0.2, FEEDBACK, read_answer(answer_json(0, 1, False, 'nod'))),
              Event(0.4, FEEDBACK, read_answer(answer_json(0, 2, True, 'nod')))]
    figures = replay(events, config).figures
    assert (figures['feedback_received'], figures['feedback_matched'],
            figures['feedback_dropped_duplicate']) == (3, 2, 1)
    assert figures['questions_asked'] == 2  # the duplicate "no" did not answer question 2
