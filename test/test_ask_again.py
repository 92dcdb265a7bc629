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

"""Ask again after a "no": the question sequence, its learning steps and its ids, no ROS."""

from banditlearn_ros.learning import HyperparameterError, make_learner, TeacherModel
from banditlearn_ros.learning.offline.datasets import load_dataset
from banditlearn_ros.learning.protocol.ask_again import (
    check_probation, check_protocol, Questions, REVEAL_STEPS, run_interaction)
from banditlearn_ros.learning.protocol.interaction import Interaction
from banditlearn_ros.learning.protocol.simulated_teacher import SimulatedTeacher
from banditlearn_ros.learning.storage.persistence import load_model, save_model
from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np
import pytest

LABELS = ['fist', 'palm', 'point', 'thumbs_up', 'victory']


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def trained(seed=0, n=40, d=6):
    """Return a UCWL model with some history, so bounds differ between labels."""
    learner = make_learner('ucwl', list(LABELS), d, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(n):
        x = rng.random(d)
        p = learner.select(x)
        learner.learn(x, p.index, bool(rng.integers(2)), prediction=p)
    return learner, rng


def rows_changed(before, after):
    return set(np.flatnonzero(np.any(before['mu'] != after['mu'], axis=1)).tolist())


def arrays(learner):
    return {k: v.copy() for k, v in learner.state_dict()['arrays'].items()}


def test_one_question_is_the_papers_protocol_exactly():
    X, y, names = load_dataset('digits')
    teacher = TeacherModel(rho0=0.1, rho1=0.1)
    for reveal_step in REVEAL_STEPS:
        paper = make_learner('ucwl', names, X.shape[1], seed=4)
        asking = make_learner('ucwl', names, X.shape[1], seed=4)
        rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
        said_paper, said_asking = [], []
        for i in range(400):
            x = X[i]
            p = paper.select(x)
            answer = teacher.answer(p.index, int(y[i]), rng_a)
            paper.learn(x, p.index, answer, prediction=p)
            said_paper.append(p.index)
            q = run_interaction(
                asking, x, lambda index, number: teacher.answer(index, int(y[i]), rng_b),
                max_questions=1, reveal_step=reveal_step)
            said_asking.append(q.first.index)
            assert q.number == 1 and q.outcome in ('yes', 'out_of_questions')
        assert said_asking == said_paper
        assert paper.n_updates == asking.n_updates
        for key, value in arrays(paper).items():
            assert np.array_equal(value, arrays(asking)[key])


def test_next_question_is_the_best_bound_among_labels_not_rejected():
    learner, rng = trained()
    for _ in range(20):
        x = rng.random(6)
        q = Questions.start(learner, x, max_questions=0, reveal_step='none',
                            rng=np.random.default_rng(0))
        while q.outcome is None:
            asked = [p.index for p in q.asked]
            # A fresh look at the model after the "no" steps: the labels not yet rejected
            # keep their bounds, and the next question is the best of them.
            fresh = learner.select(x)
            remaining = [j for j in range(len(LABELS)) if j not in asked]
            if q.number > 1:
                assert np.allclose(fresh.bounds[remaining], q.first.bounds[remaining])
            nxt = q.answer(False)
            if nxt is None:
                break
            best = max(remaining, key=lambda j: q.first.bounds[j])
            assert nxt.index == best and nxt.label == LABELS[best]
        assert q.outcome == 'all_rejected'
        assert sorted(p.index for p in q.asked) == list(range(len(LABELS)))
        assert q.number == len(LABELS) and q.answers == len(LABELS)


def where_new_label_wins(learner, rng):
    """Return an x on which the last label has the best bound."""
    for _ in range(2000):
        x = rng.random(6)
        if learner.select(x).index == learner.n_labels - 1:
            return x
    raise AssertionError('the new label never had the best bound')


def with_new_label(seed=0):
    """Return a trained model with a label appended, and an x on which it has the best bound."""
    learner, rng = trained(seed)
    learner.add_label('wave')
    return learner, where_new_label_wins(learner, rng)


@pytest.mark.parametrize('probation', [1, 3])
def test_a_label_on_probation_is_asked_second_until_confirmed(probation):
    learner, x = with_new_label()
    new, rng = len(LABELS), np.random.default_rng(5)
    assert learner.confirmations == {'wave': 0} and learner.on_probation(probation) == [new]
    for confirmed in range(probation):
        bounds = learner.select(x).bounds
        q = Questions.start(learner, x, max_questions=3, rng=np.random.default_rng(0),
                            probation=probation)
        # Question 1 is the best bound among the labels not on probation ...
        assert q.first.index == int(np.argmax(bounds[:new])) and q.first.label != 'wave'
        np.testing.assert_array_equal(q.first.bounds, bounds)
        # ... and the new label is question 2, whose "yes" counts towards its release.
        assert q.answer(False).index == new
        assert q.answer(True) is None and q.revealed == new
        assert learner.confirmations == {'wave': confirmed + 1}
        x = where_new_label_wins(learner, rng)
    assert learner.on_probation(probation) == []
    q = Questions.start(learner, x, max_questions=3, probation=probation)
    assert q.first.index == new


def test_probation_needs_a_second_question_and_can_be_off():
    learner, x = with_new_label(seed=2)
    new = len(LABELS)
    # One question (Ngo et al. 2013's protocol): nothing to wait for, the bound decides.
    assert Questions.start(learner, x, max_questions=1, probation=3).first.index == new
    assert Questions.start(learner, x, max_questions=3, probation=0).first.index == new
    assert Questions.start(learner, x, max_questions=3, probation=3).first.index != new
    for bad in (-1, True, 1.5, '2'):
        with pytest.raises(HyperparameterError, match='new_label_probation'):
            check_probation(bad)
    inter = Interaction(lambda d: learner, learner=learner, max_questions=3)
    with pytest.raises(HyperparameterError, match='new_label_probation'):
        inter.set_protocol(new_label_probation=-1)
    assert inter.new_label_probation == 3
    inter.set_protocol(new_label_probation=0)
    assert inter.predict(x)[0].prediction.index == new


def test_a_named_label_starts_confirmed_once_and_confirmations_are_saved(tmp_path):
    learner, rng = trained(seed=3)
    learner.learn_new_label(rng.random(6), 'wave')
    assert learner.confirmations == {'wave': 1}
    path = str(tmp_path / 'model.npz')
    save_model(learner, path)
    assert load_model(path).confirmations == {'wave': 1}
    state = learner.state_dict()
    state['extra']['confirmations'] = {'nope': 1}
    with pytest.raises(ValueError, match='confirmations'):
        type(learner).from_state_dict(state)


def test_a_no_steps_the_asked_label_only_and_a_yes_reveals():
    learner, rng = trained(seed=1)
    x = rng.random(6)
    before = arrays(learner)
    q = Questions.start(learner, x, max_questions=3, reveal_step='none')
    first = q.current.index
    second = q.answer(False)
    assert rows_changed(before, arrays(learner)) <= {first}
    assert second is not None and second.index != first and q.number == 2
    mid = arrays(learner)
    assert q.answer(True) is None
    assert q.outcome == 'yes' and q.revealed == second.index
    assert rows_changed(mid, arrays(learner)) <= {second.index}
    with pytest.raises(ValueError, match='over'):
        q.answer(True)


@pytest.mark.parametrize('reveal_step', ['top1', 'all'])
def test_reveal_step_demotes_labels_not_asked(reveal_step):
    learner, rng = trained(seed=2)
    twin, _ = trained(seed=2)
    x = rng.random(6)
    q = Questions.start(learner, x, max_questions=3, reveal_step=reveal_step,
                        rng=np.random.default_rng(5))
    twin_q = Questions.start(twin, x, max_questions=3, reveal_step='none',
                             rng=np.random.default_rng(5))
    q.answer(False)
    twin_q.answer(False)
    scores = learner.scores(x)
    asked = {p.index for p in q.asked}
    before = arrays(learner)
    q.answer(True)
    twin_q.answer(True)
    changed = rows_changed(before, arrays(learner)) - asked
    unasked = [j for j in range(len(LABELS)) if j not in asked]
    if reveal_step == 'top1':
        assert changed == {max(unasked, key=lambda j: scores[j])}
    else:
        assert changed == set(unasked)
    for j in changed:  # a demotion: the label scores lower for x than without the step
        assert learner.scores(x)[j] < twin.scores(x)[j]
    assert q.updates > twin_q.updates


def test_out_of_questions_and_timeout():
    learner, rng = trained(seed=3)
    q = run_interaction(learner, rng.random(6), lambda index, number: False, max_questions=2)
    assert q.outcome == 'out_of_questions' and q.number == 2 and len(q.rejected) == 2
    silent = run_interaction(learner, rng.random(6), lambda index, number: None,
                             max_questions=3)
    assert silent.outcome == 'timed_out' and silent.answers == 0


def test_protocol_settings_are_checked():
    assert check_protocol('ucwl', 3, 'top1') == (3, 'top1')
    assert check_protocol('banditron', 1, 'none') == (1, 'none')
    with pytest.raises(HyperparameterError, match='cannot ask again'):
        check_protocol('banditron', 3, 'top1')
    with pytest.raises(HyperparameterError, match='max_questions'):
        check_protocol('ucwl', -1, 'top1')
    with pytest.raises(HyperparameterError, match='reveal_step'):
        check_protocol('ucwl', 2, 'most')
    # Live, max_questions is a most: a learner that cannot ask again asks one question.
    inter = Interaction(lambda d: make_learner('banditron', list(LABELS), d), clock=Clock())
    inter.predict([1.0, 2.0])
    inter.set_protocol(max_questions=2)
    assert inter.max_questions == 1 and inter.protocol.max_questions == 2
    item, _ = inter.predict([1.0, 2.0])
    assert item.final and inter.feedback(False).ended.questions == 1
    with pytest.raises(HyperparameterError, match='max_questions'):
        inter.set_protocol(max_questions=-1)
    assert inter.protocol.max_questions == 2


def make(clock, **kwargs):
    kwargs.setdefault('feedback_timeout', 5.0)
    kwargs.setdefault('max_questions', 3)
    kwargs.setdefault('reveal_step', 'none')
    return Interaction(lambda d: make_learner('ucwl', list(LABELS), d, seed=3),
                       clock=clock, **kwargs)


def test_ids_on_the_wire_and_answers_go_to_the_latest_open_question():
    clock = Clock()
    inter = make(clock)
    first, _ = inter.predict([1.0, 0.5, 0.0])
    assert (first.id, first.question, first.final) == (0, 1, False)
    result = inter.feedback(False)
    second = result.next_round
    assert result.outcome == 'matched' and result.question == 1 and result.ended is None
    assert (second.id, second.question) == (0, 2)
    assert second.prediction.index != first.prediction.index
    clock.now += 6.0  # too late for question 2
    late = inter.feedback(True)
    assert late.outcome == 'late' and late.round_id == 0 and late.question is None
    ended = inter.take_ended()
    assert [(e.id, e.outcome, e.questions, e.answers) for e in ended] == [(0, 'timed_out', 2, 1)]
    # A new gesture: answers now belong to its questions only.
    third, _ = inter.predict([0.0, 1.0, 0.5])
    assert (third.id, third.question) == (1, 1)
    r = inter.feedback(False)
    assert r.next_round.id == 1 and r.next_round.question == 2
    before = arrays(inter.learner)
    # The next gesture arrives before question 2 is answered: interaction 1 ends unanswered,
    # and the answer goes to interaction 2's first question, not to interaction 1.
    fourth, _ = inter.predict([0.5, 0.5, 0.5])
    assert fourth.id == 2
    r = inter.feedback(True)
    assert r.round_id == 2 and r.question == 1 and r.ended.outcome == 'yes'
    # The yes steps the asked label only (reveal step 'none').
    assert rows_changed(before, arrays(inter.learner)) <= {fourth.prediction.index}
    dup = inter.feedback(True)
    assert dup.outcome == 'duplicate' and dup.round_id == 2
    outcomes = [e.outcome for e in inter.take_ended()]
    assert outcomes == ['timed_out', 'yes']
    stats = inter.stats()
    assert stats['interactions'] == 3 and stats['questions_asked'] == 5
    assert stats['interactions_timed_out'] == 2 and stats['interactions_yes'] == 1
    assert stats['questions_per_interaction'] == pytest.approx(5 / 3)
    # First-guess mistakes as the person reported them: 'no', 'no', 'yes'.
    assert stats['mistake_rate'] == pytest.approx(2 / 3)
    assert stats['first_guess_accuracy'] == pytest.approx(1 / 3)


def test_all_rejected_is_announced_once():
    clock = Clock()
    inter = make(clock, max_questions=0)
    inter.predict([1.0, 2.0, 3.0])
    results = [inter.feedback(False) for _ in range(len(LABELS))]
    assert all(r.outcome == 'matched' for r in results)
    assert [r.question for r in results] == list(range(1, len(LABELS) + 1))
    ended = results[-1].ended
    assert ended.outcome == 'all_rejected' and sorted(ended.rejected) == list(range(5))
    info = ended.as_dict()
    assert info['label'] is None and sorted(info['rejected']) == sorted(LABELS)
    assert inter.feedback(False).outcome == 'duplicate'
    assert [e.outcome for e in inter.take_ended()] == ['all_rejected']
    assert inter.take_ended() == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(['predict', 'yes', 'no', 'wait']),
                          st.floats(0.0, 3.0)), max_size=60))
def test_an_answer_only_ever_updates_the_question_it_was_about(events):
    clock = Clock()
    inter = make(clock, max_unanswered=4, feedback_timeout=2.0)
    seen = set()
    for kind, dt in events:
        if kind == 'wait':
            clock.now += dt
        elif kind == 'predict':
            inter.predict([1.0, dt, 0.5])
        else:
            latest = inter._latest
            result = inter.feedback(kind == 'yes')
            if result.outcome == 'matched':
                key = (latest.id, latest.question)
                assert (result.round_id, result.question) == key
                assert clock.now - latest.stamp <= 2.0 and key not in seen
                seen.add(key)
                nxt = result.next_round
                if nxt is not None:
                    assert nxt.id == latest.id and nxt.question == latest.question + 1
                    assert kind == 'no'
        assert inter.unanswered <= 4
    c = inter.stats()
    assert c['feedback_matched'] + c['feedback_dropped'] == c['feedback_received']
    assert c['feedback_matched'] == len(seen) <= c['questions_asked']
    ended = inter.take_ended()
    assert len({e.id for e in ended}) == len(ended)


def test_simulated_teacher_answers_every_question_of_an_interaction():
    teacher = SimulatedTeacher(TeacherModel(), seed=0)
    teacher.observe('palm')
    assert teacher.answer('fist', 1, interaction=7).answer is False
    assert teacher.answer('point', 2, interaction=7).answer is False
    assert teacher.answer('palm', 3, interaction=7).answer is True
    # A later question of an interaction whose start it did not see: no answer.
    assert teacher.answer('palm', 2, interaction=8).answer is None
    # A first question without a fresh label: no answer, and no later ones either.
    assert teacher.answer('palm', 1, interaction=9).answer is None
    assert teacher.answer('palm', 2, interaction=9).answer is None
    stats = teacher.stats()
    assert stats['rounds'] == 1 and stats['true_mistake_rate'] == 1.0
    assert stats['no_label'] == 3 and stats['later_questions'] == 4


def test_offline_protocol_with_one_question_is_run_learner_exactly():
    from banditlearn_ros.learning.offline.evaluation import run_learner, run_questions
    from banditlearn_ros.learning.offline.evaluation_streams import make_streams
    X, y, names = load_dataset('wine')
    teacher = TeacherModel(rho0=0.2, rho1=0.1, no_answer=0.1)
    for stream in make_streams(y, len(names), teacher, 3):
        paper = run_learner('ucwl', {'k': 1.0}, X, stream, teacher, len(names), curves=True)
        one = run_questions('ucwl', {'k': 1.0}, X, stream, teacher, len(names), curves=True,
                            max_questions=1, reveal_step='all')
        assert (one.mistakes_true, one.mistakes_observed, one.updates) == (
            paper.mistakes_true, paper.mistakes_observed, paper.updates)
        assert np.array_equal(one.curve_true, paper.curve_true)
        assert one.questions == len(stream) and one.answers <= len(stream)
        # Asking again: never fewer questions, question 1 of interaction 1 unchanged.
        three = run_questions('ucwl', {'k': 1.0}, X, stream, teacher, len(names),
                              max_questions=3)
        assert three.questions > one.questions
        assert three.first_wrong_true[0] == one.first_wrong_true[0]
        assert three.window(1, len(stream))[1] == pytest.approx(three.questions / len(stream))


def test_evaluate_cli_reports_the_protocol_beside_one_question(tmp_path):
    import json
    from banditlearn_ros.tools.evaluate import main
    out = tmp_path / 'r'
    code = main(['--datasets', 'iris', '--algorithms', 'ucwl', 'mscw', 'banditron',
                 '--flip', '0.1,0.1', '--max-questions', '3', '0', '--permutations', '2',
                 '--no-tune', '--out', str(out), '--no-progress'])
    assert code == 0
    records = {r['algorithm']: r for r in json.loads((out / 'summary.json').read_text())[
        'records']}
    # Banditron cannot ask again: no protocol run for it.
    assert set(records) == {'ucwl', 'mscw', 'banditron', 'ucwl-q3', 'ucwl-qK', 'ucwl-paper',
                            'ucwl-paper-q3', 'ucwl-paper-qK'}
    assert 'questions_per_interaction' not in records['ucwl']
    q3, qk = records['ucwl-q3'], records['ucwl-qK']
    assert 1.0 < q3['questions_per_interaction']['mean'] <= 3.0
    assert q3['questions_per_interaction']['mean'] <= qk['questions_per_interaction']['mean']
    assert q3['params'] == records['ucwl']['params']
    assert sum(qk['outcomes'].values()) == pytest.approx(1.0)
    assert 'Asking again' in (out / 'results.md').read_text()
    assert (out / 'iris_rho_0_1_0_1_first_guess.png').stat().st_size > 1000
    assert main(['--datasets', 'iris', '--max-questions', '-1', '--out', str(out)]) == 2


def test_a_protocol_is_checked_whole_when_made_and_never_changed_in_place():
    from dataclasses import FrozenInstanceError
    from banditlearn_ros.learning.protocol.ask_again import Protocol
    protocol = Protocol(3, 'top1', 2)
    assert protocol.changed(max_questions=0) == Protocol(0, 'top1', 2)
    assert protocol == Protocol(3, 'top1', 2)  # the old value is untouched
    for bad in ({'max_questions': -1}, {'max_questions': 1.5}, {'max_questions': True},
                {'reveal_step': 'most'}, {'new_label_probation': -1}):
        with pytest.raises(HyperparameterError):
            protocol.changed(**bad)
    with pytest.raises(FrozenInstanceError):
        protocol.max_questions = 5
    assert protocol.questions_for('ucwl') == 3 and protocol.questions_for('banditron') == 1


@pytest.mark.parametrize('reveal_step', ['all', 'all_known'])
def test_all_known_spares_a_label_on_probation_the_reveal_of_another(reveal_step):
    learner, x = with_new_label()
    new = len(LABELS)
    before = arrays(learner)
    # The new gesture's first showing: question 1 is a known label, and the person slips.
    q = Questions.start(learner, x, max_questions=3, reveal_step=reveal_step, probation=3)
    assert q.first.index != new
    assert q.answer(True) is None and q.revealed == q.first.index
    changed = rows_changed(before, arrays(learner))
    # 'all' steps every other label with z = -1, the new one too (as before); 'all_known'
    # leaves the new label as it was: no "no" before an example of its own.
    expected = set(range(new + 1)) if reveal_step == 'all' else set(range(new))
    assert changed == expected, (reveal_step, changed)
    # Out of probation, 'all_known' steps it like 'all'.
    learner.confirmations['wave'] = 3
    rng = np.random.default_rng(2)
    other = next(z for z in rng.random((500, 6)) if learner.select(z).index != new)
    before = arrays(learner)
    q = Questions.start(learner, other, max_questions=3, reveal_step=reveal_step, probation=3)
    assert q.first.index != new and q.answer(True) is None
    assert new in rows_changed(before, arrays(learner))


def test_all_known_is_all_bit_for_bit_without_labels_added_at_runtime():
    X, y, names = load_dataset('digits')
    said = {}
    for step in ('all', 'all_known'):
        learner = make_learner('ucwl', names, X.shape[1], seed=4)
        rng = np.random.default_rng(1)
        teacher = TeacherModel(rho0=0.1, rho1=0.1)
        said[step] = [run_interaction(
            learner, X[i], lambda index, number: teacher.answer(index, int(y[i]), rng),
            max_questions=3, reveal_step=step, probation=3).first.index for i in range(200)]
        said[step + ' arrays'] = arrays(learner)
    assert said['all'] == said['all_known']
    for name, value in said['all arrays'].items():
        np.testing.assert_array_equal(value, said['all_known arrays'][name])
