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
The teaching page without ROS: which taps become answers, the token, the server's one page.

The page node's behaviour over DDS and in a real browser is ``test_page_node.py``.
"""

import argparse
import asyncio
import json
import re

from banditlearn_ros.page.server import access_token, is_local, page_document, PageServer
from banditlearn_ros.page.state import PageError, PageState
from banditlearn_ros.systems.options import add_page, build_parser, page_address
import numpy as np
import pytest

LABELS = ['fist', 'two', 'five']


def details(ident, question, label, rejected=(), bounds=(0.3, 0.2, 0.1)):
    return {'id': ident, 'question': question, 'label': label, 'final': question == 3,
            'rejected': list(rejected), 'bounds': list(bounds), 'scores': list(bounds)}


def config(labels, changes=()):
    return {'format': 1, 'start': {'parameters': {'labels': list(labels)}},
            'changes': list(changes)}


def state_with_labels():
    state = PageState()
    state.on_config(config(LABELS))
    return state


# ----------------------------------------------------------------------------- answers
def test_an_open_question_takes_one_answer_and_refuses_a_second():
    state = state_with_labels()
    state.on_details(details(0, 1, 'fist'))
    assert state.answer(0, 1, False) == ('answer', (False, 0, 1))
    with pytest.raises(PageError, match='answered already'):
        state.answer(0, 1, True)  # a second phone, a moment later


def test_a_nod_heard_first_makes_the_tap_a_refused_second_answer():
    state = state_with_labels()
    state.on_details(details(3, 1, 'two'))
    state.on_feedback(True)  # the feedback node's nod, on gesture_feedback
    with pytest.raises(PageError, match='answered already'):
        state.answer(3, 1, True)
    assert state.log.current.answers == [True]


def test_a_yes_no_that_comes_behind_the_next_question_answers_the_one_before():
    # The learner took a "no" and asked again; its question came before the "no" did (two
    # topics, no order between them): the question asked again is still open.
    state = state_with_labels()
    first = dict(details(4, 1, 'two'), inputs={'features': 5, 'feedback': 7})
    state.on_details(first)
    assert state.answer(4, 1, False) == ('answer', (False, 4, 1))
    state.on_details(dict(details(4, 2, 'five', rejected=['two']),
                          inputs={'features': 5, 'feedback': 8}))
    state.on_feedback(False)  # the "no" that question 1 had, late
    assert state.answer(4, 2, True) == ('answer', (True, 4, 2))  # question 2 takes its answer
    # The next gesture's question, the late echo of that tap, then a nod to the new question.
    state.on_details(dict(details(5, 1, 'fist'), inputs={'features': 6, 'feedback': 9}))
    state.on_feedback(True)  # question 2's tap, heard behind question 5
    assert state.answer(5, 1, True) == ('answer', (True, 5, 1))
    state.on_details(dict(details(6, 1, 'fist'), inputs={'features': 7, 'feedback': 10}))
    state.on_feedback(True)  # question 5's tap, in order this time
    state.on_feedback(True)  # a nod to question 6: it answers it
    with pytest.raises(PageError, match='answered already'):
        state.answer(6, 1, True)


def test_an_answer_to_a_question_no_longer_open_is_refused_and_says_what_is_asked():
    state = state_with_labels()
    state.on_details(details(0, 1, 'fist'))
    state.on_details(details(1, 1, 'five'))  # the next gesture: the first timed out
    with pytest.raises(PageError, match='no longer open.*"five\\?"'):
        state.answer(0, 1, True)
    state.answer(1, 1, True)
    state.on_details(details(2, 1, 'two'))
    with pytest.raises(PageError, match='no longer open'):
        state.answer(2, 2, True)  # a question number never asked
    for bad in ('yes', 1, None):
        with pytest.raises(PageError, match='yes or no'):
            state.answer(2, 1, bad)
    with pytest.raises(PageError, match='no longer open'):
        state.answer(True, 1, True)  # a bool is not an id


def test_nothing_asked_refuses_an_answer():
    with pytest.raises(PageError, match='no question is open'):
        PageState().answer(0, 1, True)


# ----------------------------------------------------------------------- "that's ..."
def test_thats_x_answers_each_question_as_a_person_at_the_keys_would():
    state = state_with_labels()
    assert state.on_details(details(0, 1, 'fist')) is None
    assert state.name(0, 1, 'five') == ('answer', (False, 0, 1))  # "n" to fist
    assert state.on_details(details(0, 2, 'two', ['fist'])) == ('answer', (False, 0, 2))  # "n"
    assert state.on_details(details(0, 3, 'five', ['fist', 'two'])) == ('answer', (True, 0, 3))
    state.on_interaction({'id': 0, 'outcome': 'yes', 'questions': 3, 'answers': 3,
                          'label': 'five'})
    assert state.counts['five'] == 1
    assert state.on_details(details(1, 1, 'fist')) is None  # the next gesture is not named


def test_thats_x_names_the_gesture_once_it_ended_without_a_yes():
    state = state_with_labels()
    state.on_details(details(0, 1, 'fist'))
    assert state.name(0, 1, 'wave') == ('answer', (False, 0, 1))  # a new name: every question "n"
    state.on_details(details(0, 2, 'two'))
    state.on_details(details(0, 3, 'five'))
    assert state.on_unknown({'id': 0, 'outcome': 'out_of_questions'}) == ('name', 'wave')


def test_thats_x_after_an_unknown_gesture_names_it_and_with_nothing_asked_adds_a_label():
    state = state_with_labels()
    state.on_details(details(4, 1, 'fist'))
    state.answer(4, 1, False)
    assert state.on_unknown({'id': 4, 'outcome': 'all_rejected'}) is None
    assert state.snapshot()['unknown'] == 4
    assert state.name(4, None, 'two') == ('name', 'two')
    with pytest.raises(PageError):
        state.name(4, None, 'two')  # named already: nothing open
    assert PageState().name(None, None, 'wave') == ('add', 'wave')
    with pytest.raises(PageError, match='already a label'):
        state.name(None, None, 'fist')


@pytest.mark.parametrize('name', ['', '   ', 'x' * 65, 7, None, 'a\nb'])
def test_a_bad_name_is_refused_with_a_reason(name):
    state = state_with_labels()
    state.on_details(details(0, 1, 'fist'))
    with pytest.raises(PageError):
        state.name(0, 1, name)
    assert state.snapshot()['open']  # nothing was taken


# ---------------------------------------------------------------------- what it shows
def test_labels_follow_the_learners_configuration_and_count_what_was_taught():
    state = PageState()
    state.on_config(config(LABELS, [
        {'kind': 'parameters', 'changed': {'labels': LABELS + ['ok']}},
        {'kind': 'named', 'name': 'wave'}]))
    assert state.labels == LABELS + ['ok', 'wave']
    state.on_config(config(LABELS, [
        {'kind': 'parameters', 'changed': {'labels': LABELS + ['ok']}},
        {'kind': 'named', 'name': 'wave'}]))  # the same document again: counted once
    assert state.snapshot()['counts'] == {'fist': 0, 'two': 0, 'five': 0, 'ok': 0, 'wave': 1}


def test_next_best_labels_skip_the_asked_and_rejected_ones_by_bound():
    state = PageState()
    state.on_config(config(['a', 'b', 'c', 'd', 'e']))
    state.on_details(details(0, 2, 'c', ['a'], bounds=(0.9, 0.1, 0.8, 0.5, 0.7)))
    assert state.question['next'] == ['e', 'd', 'b']


def test_the_curve_is_the_windowed_first_guess_accuracy_and_questions_per_gesture():
    state = PageState(window=2)
    state.on_config(config(LABELS))
    script = [(['fist'], [True]), (['two', 'five'], [False, True]), (['five'], [True])]
    for ident, (asked, answers) in enumerate(script):
        for number, (label, answer) in enumerate(zip(asked, answers), 1):
            state.on_details(details(ident, number, label))
            state.answer(ident, number, answer)
            state.on_feedback(answer)
    snap = state.snapshot()
    assert snap['curve']['right'] == [[1, 1.0], [2, 0.5], [3, 0.5]]
    assert snap['curve']['questions'] == [[1, 1.0], [2, 1.5], [3, 1.5]]
    assert snap['accuracy'] == 0.5 and snap['questions_per_interaction'] == pytest.approx(
        4 / 3, abs=1e-4)
    json.dumps(snap)


def test_a_long_session_sends_a_thinned_curve_ending_at_the_last_interaction():
    state = PageState()
    rng = np.random.default_rng(0)
    for ident in range(1001):
        state.on_details(details(ident, 1, 'fist'))
        state.on_feedback(bool(rng.random() < 0.7))
    right = state.snapshot()['curve']['right']
    assert len(right) <= 202 and right[-1][0] == 1001


def test_the_thumbnail_can_be_left_out():
    state = PageState()
    state.on_thumbnail('data:image/jpeg;base64,AAAA')
    assert state.snapshot()['thumbnail'].startswith('data:image/jpeg')
    assert state.snapshot(thumbnails=False)['thumbnail'] is None


# ----------------------------------------------------------------- address and token
def test_localhost_needs_no_token_and_a_network_address_gets_a_random_one():
    assert is_local('127.0.0.1') and is_local('localhost') and is_local('::1')
    assert not is_local('0.0.0.0') and not is_local('192.168.1.20')
    assert access_token('127.0.0.1') == ''
    first, second = access_token('0.0.0.0'), access_token('0.0.0.0')
    assert len(first) >= 20 and first != second
    assert access_token('127.0.0.1', 'chosen') == 'chosen'


def test_the_page_is_one_document_with_no_file_from_elsewhere():
    html = page_document('t&"<').decode('utf-8')
    assert '/*PAGE_JS*/' not in html and '/*PAGE_CSS*/' not in html
    assert 'const TOKEN = "t&\\"<";' in html
    assert not re.search(r'(src|href)\s*=\s*["\']?(https?:)?//', html), 'a file from elsewhere'
    assert 'new WebSocket' in html and 'getContext("2d")' in html


# --------------------------------------------------------------------------- the server
def run_server(token='', **kwargs):
    state = state_with_labels()
    state.on_details(details(0, 1, 'fist'))
    taps = []

    def on_action(message):
        taps.append(message)
        if message.get('action') == 'crash':
            raise RuntimeError('a bug in a handler')
        try:
            state.answer(message.get('id'), message.get('question'), message.get('yes'))
        except PageError as exc:
            return {'ok': False, 'message': str(exc)}
        return {'ok': True, 'message': 'ok'}
    server = PageServer('127.0.0.1', 0, token, on_action, lambda: state.text())
    server.start()
    return server, state, taps


def test_the_server_serves_the_page_and_pushes_the_state_to_every_page():
    aiohttp = pytest.importorskip('aiohttp')
    server, state, taps = run_server()
    base = f'http://127.0.0.1:{server.port}'

    async def session():
        async with aiohttp.ClientSession() as client:
            async with client.get(base + '/') as page:
                assert page.status == 200 and 'Teach the robot' in await page.text()
            async with client.get(base + '/anything') as other:
                assert other.status == 404  # only the page and its socket
            one = await client.ws_connect(base + '/ws')
            two = await client.ws_connect(base + '/ws')
            for ws in (one, two):  # a page that connects gets the current question
                first = json.loads((await ws.receive()).data)
                assert first['question']['label'] == 'fist' and first['open']
            await one.send_str(json.dumps({'action': 'answer', 'id': 0, 'question': 1,
                                           'yes': True, 'tag': 7}))
            assert json.loads((await one.receive()).data) == {
                'ok': True, 'message': 'ok', 'type': 'reply', 'tag': 7}
            server.publish(state.text())  # what the node does after every change
            for ws in (one, two):
                assert json.loads((await ws.receive()).data)['open'] is False
            await two.send_str(json.dumps({'action': 'answer', 'id': 0, 'question': 1,
                                           'yes': False}))
            reply = json.loads((await two.receive()).data)
            assert reply['ok'] is False and 'answered already' in reply['message']
            await two.send_str('not json')
            assert json.loads((await two.receive()).data)['ok'] is False
            await two.send_str(json.dumps({'action': 'crash'}))  # the page goes on
            assert 'a bug in a handler' in json.loads((await two.receive()).data)['message']
            await one.close()
            await two.close()
    try:
        asyncio.run(session())
    finally:
        server.stop()
    assert len(taps) == 3 and server.counts['bad_messages'] == 1
    assert server.counts['action_errors'] == 1
    server.stop()  # twice: nothing left to stop


def test_the_server_refuses_requests_without_the_token_and_sockets_of_other_sites():
    aiohttp = pytest.importorskip('aiohttp')
    server, _, taps = run_server(token='s3cret')
    base = f'http://127.0.0.1:{server.port}'
    assert server.url == f'http://127.0.0.1:{server.port}/?token=s3cret'

    async def session():
        async with aiohttp.ClientSession() as client:
            for path in ('/', '/?token=wrong', '/ws', '/ws?token=S3CRET'):
                async with client.get(base + path) as refused:
                    assert refused.status == 403, path
                    assert 'token' in await refused.text()
            async with client.get(base + '/?token=s3cret') as page:
                assert page.status == 200 and 'const TOKEN = "s3cret"' in await page.text()
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await client.ws_connect(base + '/ws?token=s3cret',
                                        headers={'Origin': 'http://evil.example'})
            ws = await client.ws_connect(base + '/ws?token=s3cret',
                                         headers={'Origin': base})
            assert json.loads((await ws.receive()).data)['type'] == 'state'
            await ws.close()
    try:
        asyncio.run(session())
    finally:
        server.stop()
    assert taps == [] and server.counts['pages_refused'] == 5


def test_a_taken_port_fails_with_a_clear_error():
    pytest.importorskip('aiohttp')
    server, _, _ = run_server()
    try:
        other = PageServer('127.0.0.1', server.port, '', lambda m: {}, lambda: '{}')
        with pytest.raises(OSError, match=f'cannot listen on 127.0.0.1:{server.port}'):
            other.start()
    finally:
        server.stop()


# ------------------------------------------------------------------------ the bring-up
@pytest.mark.parametrize('text, expected', [
    ('localhost', ('127.0.0.1', None)), (':0', ('127.0.0.1', 0)),
    ('0.0.0.0:8080', ('0.0.0.0', 8080)), ('[::]:9000', ('::', 9000)),
    ('192.168.1.5', ('192.168.1.5', None))])
def test_page_addresses(text, expected):
    assert page_address(text) == expected


@pytest.mark.parametrize('text', ['host:port', 'x:70000'])
def test_a_bad_page_address_is_refused(text):
    with pytest.raises(argparse.ArgumentTypeError):
        page_address(text)


def test_page_adds_the_node_and_answers_page_leaves_the_simulated_person_out():
    def system():
        return {'nodes': [{'node': n, 'name': n, 'parameters': {}, 'remappings': {}}
                          for n in ('learner_node', 'teacher_node', 'session_node')]}
    options = build_parser().parse_args(['--page'])
    plain = system()
    add_page(plain, options.page, options.answers)
    assert [e['name'] for e in plain['nodes']] == [
        'learner_node', 'teacher_node', 'session_node', 'page_node']
    assert plain['nodes'][-1]['parameters'] == {'host': '127.0.0.1'}
    options = build_parser().parse_args(['--answers', 'page', '--page', '0.0.0.0:0'])
    taught = system()
    add_page(taught, options.page, options.answers)
    assert [e['name'] for e in taught['nodes']] == ['learner_node', 'session_node', 'page_node']
    assert taught['nodes'][-1]['parameters'] == {'host': '0.0.0.0', 'port': 0}
    untouched = system()
    add_page(untouched, None, None)
    assert len(untouched['nodes']) == 3


def test_set_reaches_the_page_node_that_page_adds():
    # docs/session.md: `--set page_node.thumbnail=false` keeps camera images off the page.
    from banditlearn_ros.systems.options import apply_options
    from banditlearn_ros.systems.system_file import find_system, load_system
    system = load_system(find_system('gestures'))
    apply_options(system, build_parser().parse_args(
        ['--answers', 'page', '--set', 'page_node.thumbnail=false']))
    page = [e for e in system['nodes'] if e['name'] == 'page_node']
    assert page and page[0]['parameters']['thumbnail'] is False
    assert 'teacher_node' not in [e['name'] for e in system['nodes']]


class _Server:
    def __init__(self, pages):
        self.pages_seen = list(pages)

    @property
    def pages(self):
        return self.pages_seen[0]


def test_a_page_only_session_waits_for_a_page_before_anything_is_asked():
    import io
    from types import SimpleNamespace

    from banditlearn_ros.bringup.session import wait_for_page
    server = _Server([0, 0, 0, 1])
    polls = []

    def sleep(seconds):  # the page opens on the third look
        polls.append(seconds)
        server.pages_seen.pop(0)
    out = io.StringIO()
    assert wait_for_page(SimpleNamespace(server=server), out, sleep=sleep)
    assert len(polls) == 3 and 'waiting for the teaching page' in out.getvalue()
    out = io.StringIO()  # a page open already: no wait, no line
    assert wait_for_page(SimpleNamespace(server=_Server([1])), out, sleep=sleep)
    assert len(polls) == 3 and out.getvalue() == ''
