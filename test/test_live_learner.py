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

"""The learner node's rules without DDS: parameters, the model file, changes while it runs."""

from banditlearn_ros.learning import (
    HyperparameterError, make_learner, ModelFileError, save_model)
from banditlearn_ros.learning.live import learner_parameters as lp
from banditlearn_ros.learning.live import model_store
from banditlearn_ros.learning.live.live_learner import LiveLearner
import pytest

LABELS = ['fist', 'palm']


class Log:
    """A logger that keeps its lines as (level, text)."""

    def __init__(self):
        self.lines = []

    def info(self, text, **kwargs):
        self.lines.append(('info', text))

    def warning(self, text, **kwargs):
        self.lines.append(('warning', text))

    def error(self, text, **kwargs):
        self.lines.append(('error', text))


def parameters(**given):
    """Return the declared defaults of every learner_node parameter, with ``given`` set."""
    specs = lp.HEAD_SPECS + tuple(lp.hyperparameter_specs()) + lp.TAIL_SPECS
    values = {spec.name: spec.default for spec in specs}
    values.update(labels=list(LABELS))
    values.update(given)
    return values


def live(model_path='', log=None, **given):
    values = parameters(**given)
    return LiveLearner(values.__getitem__, model_path, log or Log()), values


def test_specs_name_every_hyperparameter_once_and_ranges_hold_their_defaults():
    specs = lp.HEAD_SPECS + tuple(lp.hyperparameter_specs()) + lp.TAIL_SPECS
    names = [spec.name for spec in specs]
    assert len(names) == len(set(names))
    assert {'eta', 'C', 'k', 'confidit.alpha', 'rcine.n_s', 'reveal_step'} <= set(names)
    for spec in specs:
        if spec.low is not None:
            assert spec.low <= spec.default <= spec.high, spec.name
    read_only = {spec.name for spec in specs if spec.read_only}
    assert 'covariance' in read_only and 'eta' not in read_only


def test_labels_may_only_be_appended():
    assert lp.appended_labels(['a', 'b'], ['a', 'b', 'c']) == ['c']
    assert lp.appended_labels(None, ['x']) == []
    with pytest.raises(ValueError, match='only be appended'):
        lp.appended_labels(['a', 'b'], ['b', 'a', 'c'])
    with pytest.raises(ValueError, match='unique'):
        lp.appended_labels(['a'], ['a', 'a'])
    with pytest.raises(ValueError, match='empty'):
        lp.check_labels(['a', ' '])
    with pytest.raises(ValueError, match='at least one'):
        lp.check_labels([])


def test_a_hyperparameter_change_is_checked_by_the_learner_it_is_for():
    values = parameters()
    lp.check_hyperparameter_change(values.__getitem__, {'eta': 0.9, 'rcine.n_s': 20})
    with pytest.raises(HyperparameterError):
        lp.check_hyperparameter_change(values.__getitem__, {'eta': 1.0})
    with pytest.raises(HyperparameterError):
        lp.check_hyperparameter_change(values.__getitem__, {'banditron.gamma': 1.0})
    assert lp.hyperparameters('confidit', values.__getitem__, {'confidit.eta': 3.0})['eta'] \
        == 3.0
    with pytest.raises(HyperparameterError, match='not one of'):
        lp.check_algorithm('mscw')


def test_restart_appends_new_labels_and_keeps_construction_only_values(tmp_path):
    path = str(tmp_path / 'model.npz')
    learner = make_learner('ucwl', LABELS, 2, covariance='diag', k=1.0)
    learner.learn([1.0, 2.0], 'fist', True)
    save_model(learner, path)
    log = Log()
    state, _ = live(path, log, labels=LABELS + ['point'], covariance='full', k=2.0)
    loaded = state.interaction.learner
    assert list(loaded.labels) == LABELS + ['point'] and loaded.n_updates == 1
    assert loaded.get_params()['covariance'] == 'diag' and loaded.get_params()['k'] == 2.0
    assert state.loaded_from == path and not state.labels_from_file
    assert any(level == 'warning' and 'covariance' in text for level, text in log.lines)
    with pytest.raises(ModelFileError, match='removes or renames some'):
        live(path, labels=['palm', 'fist'])


def test_a_bad_file_is_kept_aside_when_asked(tmp_path):
    path = tmp_path / 'model.npz'
    path.write_bytes(b'not a model')
    with pytest.raises(ModelFileError):
        live(str(path))
    log = Log()
    state, _ = live(str(path), log, start_fresh_on_bad_model=True)
    assert state.interaction.learner is None
    assert state.saves.path == str(path) + '.fresh.npz'
    assert state.problem.startswith('bad model file kept aside')
    assert path.read_bytes() == b'not a model'
    assert [level for level, _ in log.lines] == ['error']


def test_saves_count_updates_and_remember_a_failure(tmp_path):
    now = [100.0]
    saves = model_store.ModelSaves('', clock=lambda: now[0])
    with pytest.raises(ValueError, match='memory only'):
        saves.save(make_learner('ucwl', LABELS, 2))
    assert saves.error_now(60.0)
    now[0] += 61.0
    assert not saves.error_now(60.0) and saves.error_now(0.0)
    saves.path = str(tmp_path / 'm.npz')
    saves.updates_since_save = 3
    assert saves.autosave_due(True, 3) and not saves.autosave_due(False, 3)
    assert not saves.autosave_due(True, 0) and not saves.autosave_due(True, 4)
    assert saves.save(make_learner('ucwl', LABELS, 2)) == saves.path
    assert saves.updates_since_save == 0 and not saves.error_now(0.0)


def test_size_policy(monkeypatch):
    monkeypatch.setattr(model_store, 'available_memory', lambda: 2 ** 20)
    rule = {'fixed': 0, 'max_size': 1000, 'n_labels': 3, 'full': True}
    assert model_store.size_problem(2000, **rule) == 'too_long'
    assert model_store.size_problem(400, **rule) == 'model_too_large'  # 3.8 MB > 0.5 MiB
    # Diagonal: 19 kB of learner, 20 kB of never-taught sums, 3.2 MB of its kept examples.
    assert model_store.size_problem(400, **dict(rule, full=False)) == 'model_too_large'
    assert model_store.size_problem(40, **dict(rule, full=False)) == ''
    # 40 full: 39 kB of learner and sums, 344 kB of kept examples with their labels and counts.
    assert model_store.size_problem(40, **rule) == ''
    assert model_store.size_problem(7, **dict(rule, fixed=5)) == ''  # the learner counts it


def test_a_change_while_running_appends_labels_and_sets_tunable_values():
    state, values = live(autosave_every=2)
    item, reason = state.interaction.predict([1.0, 2.0])
    assert item is not None, reason
    state.check_change({'labels': LABELS + ['point']})
    with pytest.raises(ValueError, match='only be appended'):
        state.check_change({'labels': ['palm']})
    values.update(labels=LABELS + ['point'], k=0.5)
    assert state.apply_change({'labels': LABELS + ['point'], 'k': 0.5}) == ['point']
    assert list(state.interaction.learner.labels) == LABELS + ['point']
    assert state.interaction.learner.get_params()['k'] == 0.5
    with pytest.raises(HyperparameterError):
        state.check_change({'max_questions': -1})


def test_feedback_asks_for_an_autosave_after_the_set_number_of_updates(tmp_path):
    # Without centring: a first vector centred is all zeros and teaches nothing.
    state, _ = live(autosave_every=1, max_questions=1, centring='none')
    state.interaction.predict([1.0, 2.0])
    result, due = state.feedback(False)
    assert result.outcome == 'matched' and result.updated
    assert not due  # no model file: nothing to save to
    state.saves.path = str(tmp_path / 'm.npz')
    state.interaction.predict([1.0, 2.0])
    result, due = state.feedback(True)
    assert due
    state.reset()
    assert state.interaction.learner is None and state.saves.updates_since_save == 0


def test_start_and_a_live_change_follow_one_protocol_rule():
    # max_questions is a most: a learner that cannot ask again asks one question, at start
    # and after a change alike, and says so; a value that is no integer >= 0 is refused both.
    log = Log()
    state, values = live(log=log, algorithm='banditron', max_questions=3, feature_size=2)
    assert state.interaction.max_questions == 1
    assert sum('cannot ask again' in text for _, text in log.lines) == 1
    change = {'max_questions': 2}
    state.check_change(change)
    values.update(change)
    state.apply_change(change)
    assert state.interaction.max_questions == 1 and state.interaction.protocol.max_questions == 2
    assert sum('cannot ask again' in text for _, text in log.lines) == 2
    item, reason, _ = state.predict([1.0, 2.0])
    assert reason == '' and item.final
    with pytest.raises(HyperparameterError, match='max_questions'):
        state.check_change({'max_questions': -1})
    with pytest.raises(HyperparameterError, match='max_questions'):
        live(max_questions=-1)
    with pytest.raises(HyperparameterError, match='reveal_step'):
        live(reveal_step='most')


def test_the_door_counts_announces_and_reports_progress():
    state, _ = live(max_questions=0, feature_size=2, centring='none')
    assert state.predict([1.0, 2.0, 3.0])[1] == 'bad_size'
    assert state.predict([1.0, 2.0])[1] == ''
    for answer in (False, False):
        assert state.feedback(answer)[0].outcome == 'matched'
    said = state.take_ended(5.0)
    assert [a.interaction['outcome'] for a in said] == ['all_rejected']
    assert said[0].unknown['labels'] == said[0].interaction['rejected'] and said[0].note
    assert said[0].interaction['stamp'] == 5.0 and state.take_ended(6.0) == []
    labels, added = state.name_unknown('wave')
    assert added and labels == LABELS + ['wave']
    progress = state.progress()
    assert (progress.predictions, progress.feedback_received, progress.feedback_matched) == \
        (1, 2, 2)
    assert progress.mistake_rate == 1.0 and progress.updates >= 2
    status = state.status()
    assert (status['unknown_gestures'], status['gestures_named'], status['labels_added'],
            status['features_bad_size']) == (1, 1, 1, 1)
    with pytest.raises(AttributeError):
        progress.updates = 0  # a record read at one moment
