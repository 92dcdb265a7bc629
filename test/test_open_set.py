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

"""Rejection of never-taught gestures: scores, the online threshold and the protocol, no ROS."""

import dataclasses
import json
import math

from banditlearn_ros.learning import HyperparameterError, LearnerInputError, UCWL
from banditlearn_ros.learning.algorithms.centring import Centring
from banditlearn_ros.learning.algorithms.open_set import (
    Calibration, confident, DEFAULTS, LabelGaussians, NearestExamples, OpenSet, SCORES,
    Settings, Verdict)
from banditlearn_ros.learning.protocol.interaction import Interaction
from banditlearn_ros.learning.storage.persistence import load_model, ModelFileError, save_model
import numpy as np
import pytest

LABELS = ['fist', 'palm', 'point']


def test_label_gaussians_match_numpy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4)) * [1.0, 2.0, 0.5, 3.0] + [1.0, -1.0, 0.0, 2.0]
    y = rng.integers(0, 3, 40)
    g = LabelGaussians(4)
    for x, c in zip(X, y):
        g.add(int(c), x)
    # the mean over dimensions of the within-label variance, pooled over the labels
    pooled = sum(((X[y == c] - X[y == c].mean(0)) ** 2).sum() for c in range(3)) / 40 / 4
    for c in range(3):
        rows = X[y == c]
        assert g.yes_count(c) == rows.shape[0]
        np.testing.assert_allclose(g.mean[c], rows.mean(0), rtol=1e-12, atol=1e-12)
        var = rows.var(0) + 0.1 * pooled + 1e-12
        x = X[0]
        expected = -0.5 * (((x - rows.mean(0)) ** 2) / var + np.log(var)).sum()
        assert g.log_likelihood(c, x, 0.1) == pytest.approx(expected, rel=1e-9)
    assert g.log_likelihood(5, X[0], 0.1) == -math.inf


def test_full_covariance_likelihood_matches_numpy():
    rng = np.random.default_rng(2)
    mix = np.array([[1.0, 0.8, 0.0], [0.0, 1.0, 0.5], [0.0, 0.0, 0.3]])
    X = rng.normal(size=(60, 3)) @ mix + [2.0, -1.0, 0.5]
    y = rng.integers(0, 2, 60)
    g = LabelGaussians(3)
    for x, c in zip(X, y):
        g.add(int(c), x)
    pooled = sum(np.trace(np.cov(X[y == c].T, bias=True)) * (y == c).sum()
                 for c in range(2)) / 60 / 3
    x = np.array([0.5, 0.5, 0.5])
    for c in range(2):
        rows = X[y == c]
        cov = np.cov(rows.T, bias=True) + (0.1 * pooled + 1e-12) * np.eye(3)
        diff = x - rows.mean(0)
        expected = -0.5 * diff @ np.linalg.solve(cov, diff) - 0.5 * np.linalg.slogdet(cov)[1]
        assert g.log_likelihood(c, x, 0.1, full=True) == pytest.approx(expected, rel=1e-9)
    # correlated features: a point off the correlation is less likely under the full model
    # than under the diagonal one, relative to a point along it
    along, across = X[y == 0].mean(0) + mix[0], X[y == 0].mean(0) + [1.0, -0.8, 0.0]
    full = g.log_likelihood(0, along, 0.1, True) - g.log_likelihood(0, across, 0.1, True)
    diag = g.log_likelihood(0, along, 0.1) - g.log_likelihood(0, across, 0.1)
    assert full > diag


def test_adaptive_threshold_holds_the_target_rate():
    """Gibbs and Candes' update keeps false rejection at the target, also when scores drift."""
    rng = np.random.default_rng(1)
    open_set = OpenSet(True, target=0.05, rate=0.02, window=200, warmup=0, min_yes=0,
                       score='lcb', keep_confident=False)  # these predictions are all sure
    rejected, n = 0, 6000
    for t in range(n):
        drift = 3.0 * t / n  # the taught scores rise as a model learns
        score = rng.normal(drift, 1.0)
        verdict = open_set.decide(np.zeros(1), _prediction(score))
        open_set.taught(verdict, 0, np.zeros(1))
        rejected += verdict.reject
    rate = open_set.counts['false_rejections'] / open_set.counts['taught_armed']
    assert abs(rate - 0.05) < 0.01
    assert open_set.counts['false_rejections'] == rejected


def _prediction(lcb: float):
    """Return a prediction whose best lower bound is ``lcb`` (widths 1)."""
    from banditlearn_ros.learning.algorithms.base import Prediction
    scores = np.array([lcb + 1.0, lcb - 5.0])
    return Prediction(0, 'a', scores, scores + 1.0, False, 0)


def test_not_armed_in_warmup_nor_for_a_label_with_few_yes():
    open_set = OpenSet(True, target=0.1, warmup=3, min_yes=2, score='likelihood')
    x = np.array([0.0, 0.0])
    learner = UCWL(LABELS, 2)
    for _ in range(30):
        open_set.taught(Verdict(1.0, 0.0, False, False, 0), 0, x + 0.01)
    far = np.array([50.0, 50.0])
    first = learner.select(far)
    verdicts = [open_set.decide(far, _with_index(first, 0)) for _ in range(4)]
    assert [v.armed for v in verdicts] == [False, False, False, True]
    assert verdicts[-1].reject and verdicts[-1].score < verdicts[-1].threshold
    # label 1 has had no "yes": never rejected for it
    assert not open_set.decide(far, _with_index(first, 1)).armed


def _with_index(prediction, index):
    from dataclasses import replace
    return replace(prediction, index=index, label=LABELS[index])


def test_settings_are_checked_and_a_bad_one_changes_nothing():
    open_set = OpenSet(True)
    before = open_set.settings()
    for bad in ({'target': 0.0}, {'target': 0.6}, {'rate': 0.0}, {'window': 0},
                {'warmup': -1}, {'min_yes': 1.5}, {'score': 'ucb'}, {'variance_floor': 0.0}):
        with pytest.raises(HyperparameterError):
            open_set.configure(**{**before, **bad})
        assert open_set.settings() == before


def _taught_interaction(open_set, seed=0, centring='none', shown=None):
    """Return an interaction taught three well-separated gestures by a faultless person."""
    rng = np.random.default_rng(seed)

    def make(d):
        learner = UCWL(LABELS, d)
        learner.centring = Centring(centring)
        return learner
    inter = Interaction(make, max_questions=3, open_set=open_set, clock=lambda: 0.0)
    centres = {'fist': np.array([1.0, 0.0, 0.0, 1.0]), 'palm': np.array([0.0, 1.0, 0.0, 1.0]),
               'point': np.array([0.0, 0.0, 1.0, 1.0])}
    for t in range(120):
        truth = ('fist', 'palm', 'point')[t % 3]
        x = centres[truth] + rng.normal(0, 0.05, 4)
        if shown is not None:
            shown.append((truth, x))
        item, _ = inter.predict(x, now=0.0)
        while not item.questions.declined:
            result = inter.feedback(item.prediction.label == truth, now=0.0)
            if result.next_round is None:
                break
            item = result.next_round
        if item.questions.revealed is None:
            inter.name_unknown(truth)
    return inter


def test_a_rejected_gesture_asks_for_its_name_at_once():
    # The learner would be sure of 'palm' for this far gesture (kept, below): not held back.
    open_set = OpenSet(True, warmup=10, min_yes=3, keep_confident=False)
    inter = _taught_interaction(open_set)
    inter.take_ended()
    asked = inter.counts['questions_asked']
    item, reason = inter.predict([-3.0, 4.0, -2.0, 1.0], now=0.0)
    assert reason == '' and item.questions.declined and item.questions.outcome == 'unknown'
    assert inter.counts['questions_asked'] == asked  # no label was asked
    ended = inter.take_ended()
    assert [e.outcome for e in ended] == ['unknown'] and ended[0].questions == 0
    info = ended[0].as_dict()
    assert info['unknown_score'] < info['unknown_threshold'] and info['unknown_armed']
    json.dumps(info)
    assert inter.feedback(True, now=0.0).outcome == 'duplicate'  # nothing was asked
    n_labels = inter.learner.n_labels
    errors, alpha = open_set.counts['false_rejections'], open_set.alpha
    assert inter.name_unknown('wave') == n_labels  # a new gesture: its first example
    # rightly rejected: no false rejection, the threshold does not move
    assert (open_set.counts['false_rejections'], open_set.alpha) == (errors, alpha)


def test_a_false_rejection_named_as_known_teaches_the_threshold():
    open_set = OpenSet(True, warmup=10, min_yes=3, keep_confident=False)
    inter = _taught_interaction(open_set)
    inter.take_ended()
    item, _ = inter.predict([-3.0, 4.0, -2.0, 1.0], now=0.0)
    assert item.questions.declined
    alpha, mu = open_set.alpha, inter.learner._mu.copy()
    errors = open_set.counts['false_rejections']
    assert inter.name_unknown('palm') == 1  # a known gesture after all
    assert open_set.counts['false_rejections'] == errors + 1
    assert open_set.alpha == pytest.approx(alpha - open_set.rate * (1 - open_set.target))
    assert not np.array_equal(inter.learner._mu, mu)  # learned as a "yes" to palm
    with pytest.raises(LearnerInputError):
        inter.name_unknown('palm')  # once


def test_rejection_that_never_arms_changes_no_decision():
    """On but never armed, the open set only watches: every question and model as off."""
    off = _taught_interaction(None)
    on = _taught_interaction(OpenSet(True, warmup=10 ** 6))
    assert [e.as_dict()['first_guess'] for e in off.take_ended()] == \
        [e.as_dict()['first_guess'] for e in on.take_ended()]
    np.testing.assert_array_equal(off.learner._mu, on.learner._mu)
    np.testing.assert_array_equal(off.learner._sigma, on.learner._sigma)
    assert off.counts['questions_asked'] == on.counts['questions_asked']


def test_off_by_default_and_reset_forgets_the_calibration():
    inter = Interaction(lambda d: UCWL(LABELS, d))
    assert not inter.open_set.enabled
    item, _ = inter.predict([1.0, 0.0], now=0.0)
    inter.feedback(True, now=0.0)
    assert item.verdict is None
    assert 'unknown_score' not in inter.take_ended()[0].as_dict()
    open_set = OpenSet(True, warmup=10, min_yes=3)
    inter = _taught_interaction(open_set)
    assert open_set.seen == 120 and len(open_set.calibration.scores) > 0
    assert inter.learner.calibration is open_set.calibration  # saved with the model
    inter.reset()
    cal = open_set.calibration
    assert open_set.seen == 0 and len(cal.scores) == 0 and cal.gaussians is None
    assert inter.learner.calibration is cal


def test_the_open_set_learns_the_vectors_before_centring():
    """The running mean moves; the Gaussians hold the vectors as they came."""
    shown = []
    # Every "yes" taken at once: a taught gesture held for support would be missing below.
    open_set = OpenSet(True, warmup=10, min_yes=3, trust='yes')
    inter = _taught_interaction(open_set, centring='running', shown=shown)
    assert inter.learner.centring.count == 120
    gaussians = open_set.calibration.gaussians
    for index, name in enumerate(LABELS):
        rows = np.array([x for truth, x in shown if truth == name])
        assert gaussians.yes_count(index) == rows.shape[0]
        np.testing.assert_allclose(gaussians.mean[index], rows.mean(0), rtol=0, atol=1e-12)


def test_the_model_file_keeps_the_calibration(tmp_path):
    """Saved with the model like the centring: loaded, it decides exactly as before."""
    open_set = OpenSet(True, warmup=10, min_yes=3)
    inter = _taught_interaction(open_set)
    path = tmp_path / 'model.npz'
    save_model(inter.learner, path)
    loaded = load_model(path)
    again = OpenSet(True, warmup=10, min_yes=3)
    other = Interaction(lambda d: UCWL(LABELS, d), learner=loaded, max_questions=3,
                        open_set=again, clock=lambda: 0.0)
    assert again.calibration is loaded.calibration
    assert (again.seen, again.alpha, again.counts) == \
        (open_set.seen, open_set.alpha, open_set.counts)
    assert list(again.calibration.scores) == list(open_set.calibration.scores)
    assert again.threshold() == open_set.threshold()
    for x in ([-3.0, 4.0, -2.0, 1.0], [1.0, 0.05, 0.0, 1.0]):
        a, _ = inter.predict(x, now=0.0)
        b, _ = other.predict(x, now=0.0)
        assert (a.verdict.score, a.verdict.reject) == (b.verdict.score, b.verdict.reject)
    other.reset()  # a reset clears it, and the next file holds the fresh one
    assert again.seen == 0 and other.learner.calibration is again.calibration


def test_a_model_file_without_calibration_loads_and_starts_afresh(tmp_path):
    off = _taught_interaction(None)
    assert off.learner.calibration is None
    path = tmp_path / 'old.npz'
    save_model(off.learner, path)  # as files were saved before rejection existed
    open_set = OpenSet(True, warmup=10, min_yes=3)
    inter = Interaction(lambda d: UCWL(LABELS, d), learner=load_model(path),
                        open_set=open_set)
    assert open_set.seen == 0 and inter.learner.calibration is open_set.calibration
    save_model(inter.learner, path)
    state = np.load(path)
    assert 'open_set_scores' in state.files and 'open_set_count' not in state.files


def test_a_bad_calibration_in_a_file_is_refused_with_the_reason(tmp_path):
    inter = _taught_interaction(OpenSet(True, warmup=10, min_yes=3))
    inter.learner.calibration.gaussians.mean[0, 0] = math.nan
    path = tmp_path / 'bad.npz'
    save_model(inter.learner, path)
    with pytest.raises(ModelFileError, match='open set mean'):
        load_model(path)


def test_live_learner_turns_rejection_on_and_refuses_bad_settings():
    from banditlearn_ros.learning.live import learner_parameters as lp
    from banditlearn_ros.learning.live.live_learner import LiveLearner
    specs = lp.HEAD_SPECS + tuple(lp.hyperparameter_specs()) + lp.TAIL_SPECS
    values = {spec.name: spec.default for spec in specs}
    values['labels'] = list(LABELS)
    live = LiveLearner(values.__getitem__, '', None)
    open_set = live.interaction.open_set
    assert not open_set.enabled and 'unknown_threshold' in live.status()
    for bad in ({'unknown_target': 0.7}, {'unknown_score': 'ucb'}, {'unknown_min_yes': -1}):
        with pytest.raises(HyperparameterError):
            live.check_change(bad)
    change = {'unknown_rejection': True, 'unknown_warmup': 7}
    live.check_change(change)
    values.update(change)
    live.apply_change(change)
    assert open_set.enabled and open_set.warmup == 7
    assert live.interaction.open_set is open_set


def test_replay_takes_the_unknown_parameters_and_counts_rejections():
    from banditlearn_ros.learning.protocol.teacher_model import TeacherModel
    from banditlearn_ros.learning.protocol.simulated_teacher import SimulatedTeacher
    from banditlearn_ros.learning.offline.replay import Event, LearnerConfig, replay
    rng = np.random.default_rng(3)
    centres = {'fist': [1.0, 0.0, 0.0], 'palm': [0.0, 1.0, 0.0], 'point': [0.0, 0.0, 1.0]}
    events, stamp = [], 0.0
    for t in range(150):
        truth = 'wave' if t >= 120 and t % 2 else list(centres)[t % 3]
        x = np.array(centres.get(truth, [-2.0, 3.0, -1.0])) + rng.normal(0, 0.05, 3)
        events += [Event(stamp, 'label', truth), Event(stamp + 0.1, 'features', x.tolist())]
        stamp += 1.0
    params = {'labels': list(centres), 'max_questions': 3, 'unknown_rejection': True,
              'unknown_warmup': 10, 'unknown_min_yes': 3}
    config = LearnerConfig.from_parameters(params)
    assert config.unknown == {'enabled': True, 'warmup': 10, 'min_yes': 3}
    on = replay(events, config, teacher=SimulatedTeacher(TeacherModel(), seed=0)).figures
    off = replay(events, LearnerConfig.from_parameters({**params, 'unknown_rejection': False}),
                 teacher=SimulatedTeacher(TeacherModel(), seed=0)).figures
    assert 'interactions_unknown' not in off
    assert on['interactions_unknown'] >= 12  # most of the 15 waves, asked nothing
    assert on['questions_asked'] < off['questions_asked']


def test_evaluate_open_set_mode_writes_figures_and_refuses_bad_settings(tmp_path, capsys):
    pytest.importorskip('sklearn')
    from banditlearn_ros.tools.evaluate import main
    out = tmp_path / 'ev'
    assert main(['--open-set', '2', '--permutations', '1', '--interactions', '60',
                 '--out', str(out), '--unknown', 'warmup=0']) == 0
    summary = json.loads((out / 'summary.json').read_text())
    record = summary['records'][0]
    assert record['dataset'] == 'digits' and record['never_taught'] == 2
    assert set(record['separation']) == set(SCORES)
    assert 0.5 < record['separation']['likelihood']['auroc'] <= 1.0
    assert record['off']['questions_unknown'] == 3.0  # every never-taught one asked 3 times
    assert summary['meta']['open_set']['warmup'] == 0
    assert 'AUROC' in (out / 'results.md').read_text()
    for bad in (['--open-set', '2', '--unknown', 'score=ucb'],
                ['--open-set', '2', '--unknown', 'warmup=x'], ['--open-set', '10'],
                ['--open-set', '2', '--unknown', 'recheck=no']):
        assert main(bad + ['--out', str(out)]) == 2
        assert 'banditlearn_evaluate: error:' in capsys.readouterr().err


def test_bringup_never_taught_leaves_labels_out_and_turns_rejection_on(tmp_path):
    from types import SimpleNamespace
    from banditlearn_ros.bringup.session import prepare
    from banditlearn_ros.systems.system_file import BringupError

    def system(show=True):
        nodes = [{'name': 'session_node', 'parameters': {'interactions': 10}},
                 {'name': 'learner_node', 'parameters': {'labels': ['a', 'b', 'c', 'd']}}]
        if show:
            nodes.append({'name': 'gesture_show_node', 'parameters': {}})
        return {'nodes': nodes}
    rendered = system()
    prepare(rendered, SimpleNamespace(never_taught=2, out=str(tmp_path)))
    learner = rendered['nodes'][1]['parameters']
    assert learner['labels'] == ['a', 'b'] and learner['unknown_rejection'] is True
    for bad, n in ((system(show=False), 1), (system(), 4)):
        with pytest.raises(BringupError, match='--never-taught'):
            prepare(bad, SimpleNamespace(never_taught=n, out=str(tmp_path)))


def test_shrinkage_mixes_the_pooled_covariance_in():
    """Shrinkage tau: cov = (n cov_label + tau pooled cov) / (n + tau), then the ridge."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3)) @ np.array([[1.0, 0.6, 0.0], [0.0, 1.0, 0.3], [0, 0, 0.5]])
    y = np.array([0] * 6 + [1] * 24)
    g = LabelGaussians(3)
    for x, c in zip(X, y):
        g.add(int(c), x)
    pooled_cov = sum(np.cov(X[y == c].T, bias=True) * (y == c).sum() for c in range(2)) / 30
    ridge = 0.1 * np.trace(pooled_cov) / 3 + 1e-12
    x = np.array([0.3, -0.2, 0.4])
    for full in (True, False):
        rows = X[y == 0]
        cov = (6 * np.cov(rows.T, bias=True) + 20.0 * pooled_cov) / 26
        cov = (cov if full else np.diag(np.diag(cov))) + ridge * np.eye(3)
        diff = x - rows.mean(0)
        expected = -0.5 * diff @ np.linalg.solve(cov, diff) - 0.5 * np.linalg.slogdet(cov)[1]
        assert g.log_likelihood(0, x, 0.1, full, 20.0) == pytest.approx(expected, rel=1e-9)
    # 0 is the label's own covariance exactly
    assert g.log_likelihood(0, x, 0.1, True, 0.0) == g.log_likelihood(0, x, 0.1, True)


def test_new_settings_are_checked():
    open_set = OpenSet(True)
    before = open_set.settings()
    assert before == {'enabled': True, **DEFAULTS}
    for bad in ({'first_share': 0.0}, {'first_share': 1.5}, {'shrinkage': -1.0},
                {'shrinkage': math.inf}, {'recheck': 'yes'}, {'keep_confident': 1},
                {'start': 0.0}, {'start': 20.0}, {'start': -1.0}, {'min_scores': 0},
                {'min_scores': 2.5}):
        with pytest.raises(HyperparameterError):
            open_set.configure(**{**before, **bad})
        assert open_set.settings() == before


def _two_label_open_set(**settings):
    """Return an open set armed, whose labels 0 and 1 are Gaussians at 0 and at 10."""
    open_set = OpenSet(True, warmup=0, min_yes=3, score='likelihood', **settings)
    rng = np.random.default_rng(5)
    for t in range(60):
        label = t % 2
        x = 10.0 * label + rng.normal(0, 1.0, 2)
        verdict = open_set.decide(x, _label_prediction(label))
        open_set.taught(verdict, label, x)
    return open_set


def _label_prediction(index):
    from banditlearn_ros.learning.algorithms.base import Prediction
    scores = np.zeros(2)
    return Prediction(index, 'ab'[index], scores, scores + 1.0, False, index)


def test_recheck_rejects_for_the_next_label_only_when_on():
    # Every "yes" confirmed at once (trust: yes), every "no" believed (doubt_no 0): the
    # recheck alone, on known windows.
    open_set = _two_label_open_set(recheck=True, recheck_score='score', trust='yes',
                                   doubt_no=0.0)
    near_0 = np.array([0.1, -0.1])
    verdict = open_set.decide(near_0, _label_prediction(0))
    assert verdict.armed and not verdict.reject  # fits label 0
    rejected = open_set.counts['rejected']
    # after a "no" to label 0, label 1 is asked next: x does not fit it
    again = open_set.recheck(verdict, near_0, _label_prediction(1), 2)
    assert again.reject and again.question == 2 and again.score < again.threshold
    assert again.first_score == verdict.score and again.label == 0
    assert open_set.counts['rejected'] == rejected + 1
    # near label 1's Gaussian: nothing changes (the same verdict)
    near_10 = np.array([10.0, 10.0])
    v10 = open_set.decide(near_10, _label_prediction(0))
    assert open_set.recheck(v10, near_10, _label_prediction(1), 2) is v10
    # off: the verdict stands
    off = _two_label_open_set(recheck=False)
    v = off.decide(near_0, _label_prediction(0))
    assert off.recheck(v, near_0, _label_prediction(1), 2) is v
    # the recheck's level is alpha_t, before question 1 first_share x alpha_t
    shared = _two_label_open_set(recheck=True, first_share=0.5, trust='yes')
    assert shared.threshold(0.5) == pytest.approx(
        np.quantile(list(shared.calibration.scores), 0.5 * shared.alpha))
    assert shared.decide(near_0, _label_prediction(0)).threshold == shared.threshold(0.5)


def test_the_window_takes_a_taught_gesture_under_its_own_label():
    """A wrong first guess scored x under another label; the window wants x under its own."""
    open_set = _two_label_open_set()
    x = np.array([9.5, 10.5])
    verdict = open_set.decide(x, _label_prediction(0))  # asked label 0 first: a poor fit
    own = open_set.calibration.gaussians.log_likelihood(1, x, open_set.variance_floor, False,
                                                        open_set.shrinkage)
    assert own > verdict.score
    open_set.taught(verdict, 1, x)  # it was label 1
    assert open_set.calibration.scores[-1] == own
    right = open_set.decide(x, _label_prediction(1))
    open_set.taught(right, 1, x)
    assert open_set.calibration.scores[-1] == right.score


def test_a_recheck_after_a_no_ends_the_interaction_and_asks_the_name():
    # recheck: on by default; scored for the next label (a fist is near confirmed fists);
    # the "no" believed (doubt_no 0; doubted, test_open_set_slips)
    open_set = OpenSet(True, warmup=10, min_yes=3, recheck_score='score', doubt_no=0.0)
    inter = _taught_interaction(open_set)
    inter.take_ended()
    fist = np.array([1.0, 0.0, 0.0, 1.0])
    item, _ = inter.predict(fist, now=0.0)
    assert item.prediction.label == 'fist' and not item.verdict.reject
    asked = inter.counts['questions_asked']
    result = inter.feedback(False, now=0.0)  # "no": it looks like a fist but is not one
    assert result.next_round is None and result.ended.outcome == 'unknown'
    assert result.ended.questions == 1 and inter.counts['questions_asked'] == asked
    assert item.questions.rejected == [0] and item.verdict.reject
    assert item.verdict.question == 2
    assert inter.feedback(True, now=0.0).outcome == 'duplicate'
    errors, alpha = open_set.counts['false_rejections'], open_set.alpha
    assert inter.name_unknown('wave') == 3  # a new gesture: no false rejection
    assert (open_set.counts['false_rejections'], open_set.alpha) == (errors, alpha)
    # the same with the recheck off: the next label is asked
    off = _taught_interaction(OpenSet(True, warmup=10, min_yes=3, recheck=False))
    item, _ = off.predict(fist, now=0.0)
    assert off.feedback(False, now=0.0).next_round is not None


def test_replay_names_a_known_gesture_rejected_after_a_no():
    """The simulated person names a known gesture rejected at a recheck, as one at once."""
    from banditlearn_ros.learning.protocol.teacher_model import TeacherModel
    from banditlearn_ros.learning.protocol.simulated_teacher import SimulatedTeacher
    from banditlearn_ros.learning.offline.replay import Event, LearnerConfig, replay
    rng = np.random.default_rng(3)
    centres = {'fist': [1.0, 0.0, 0.0], 'palm': [0.0, 1.0, 0.0], 'point': [0.0, 0.0, 1.0]}
    events, stamp = [], 0.0
    for t in range(120):
        truth = list(centres)[t % 3]
        x = np.array(centres[truth]) + rng.normal(0, 0.05, 3)
        events += [Event(stamp, 'label', truth), Event(stamp + 0.1, 'features', x.tolist())]
        stamp += 1.0
    # a fist said to be a palm: "no" to fist, then rejected before palm or point is asked
    odd = [Event(stamp, 'label', 'palm'), Event(stamp + 0.1, 'features', centres['fist'])]
    config = LearnerConfig.from_parameters({
        'labels': list(centres), 'max_questions': 3, 'unknown_rejection': True,
        'unknown_warmup': 10, 'unknown_min_yes': 3, 'unknown_recheck_score': 'score',
        'unknown_doubt_no': 0.0})  # every "no" believed (test_open_set_slips: doubted)
    runs = [replay(e, config, teacher=SimulatedTeacher(TeacherModel(), seed=0)).figures
            for e in (events, events + odd)]
    assert runs[1]['interactions_unknown'] == runs[0]['interactions_unknown'] + 1
    assert runs[1]['unknown_false_rejections'] == runs[0]['unknown_false_rejections'] + 1
    assert runs[1]['questions_asked'] == runs[0]['questions_asked'] + 1


def test_the_window_takes_only_scores_of_labels_with_min_yes_answers():
    """Decisions are taken for labels with ``min_yes`` "yes" answers: only theirs calibrate."""
    open_set = OpenSet(True, warmup=0, min_yes=3, score='likelihood')
    x = np.array([1.0, 2.0])
    for _ in range(5):
        open_set.taught(None, 0, x)  # label 0: five examples, no score
    assert len(open_set.calibration.scores) == 0
    window = []
    for k in range(5):  # label 1: the first three scores (0, 1, 2 "yes" before) stay out
        open_set.taught(Verdict(float(k), -math.inf, False, False, 1), 1, x)
        window.append(len(open_set.calibration.scores))
    assert window == [0, 0, 0, 1, 2]
    assert list(open_set.calibration.scores) == [3.0, 4.0]
    open_set.taught(Verdict(7.0, -math.inf, False, False, 0), 0, x)  # label 0 is ready
    assert list(open_set.calibration.scores) == [3.0, 4.0, 7.0]


def test_where_the_never_taught_gestures_ended_adds_up_to_the_questions():
    from banditlearn_ros.learning.offline.open_set_eval import summarise, where_unknown, WHERE
    row = {'known': False, 'early': False, 'first_right': False}
    rows = [{**row, 'index': 10, 'declined': False, 'armed': False, 'questions': 3},
            {**row, 'index': 60, 'declined': True, 'armed': True, 'questions': 0},
            {**row, 'index': 70, 'declined': True, 'armed': True, 'questions': 1},
            {**row, 'index': 80, 'declined': True, 'armed': True, 'questions': 2},
            {**row, 'index': 90, 'declined': False, 'armed': True, 'questions': 3},
            {**row, 'index': 95, 'declined': False, 'armed': False, 'questions': 3},
            {**row, 'known': True, 'index': 96, 'declined': False, 'armed': True,
             'questions': 1}]
    where = where_unknown(rows, warmup=50)
    assert list(where) == list(WHERE)
    assert [share * 6 for share, _ in where.values()] == [1, 1, 1, 1, 1, 1]
    assert [q * 6 for _, q in where.values()] == pytest.approx([0, 1, 2, 3, 3, 3], abs=1e-12)
    figures = summarise(rows, warmup=50)
    assert sum(q for _, q in where.values()) == pytest.approx(figures['questions_unknown'])
    (lo, hi, early), (lo2, hi2, later) = figures['unknown_by_period'][:2]
    assert (lo, hi, lo2, hi2) == (0, 50, 50, 100)
    assert (early, later) == pytest.approx((3.0, 9 / 5), abs=1e-12)  # the known one is left out


def _sure(lower: float, other: float, width: float = 1.0):
    """Return a prediction of label 0: score ``lower + width``, that width, another score."""
    from banditlearn_ros.learning.algorithms.base import Prediction
    scores = np.array([lower + width, other])
    return Prediction(0, 'a', scores, scores + [width, 0.5], False, 0)


def test_confident_means_the_lower_bound_beats_every_other_score():
    assert confident(_sure(lower=2.0, other=1.9))
    assert not confident(_sure(lower=2.0, other=2.0))  # a tie is not sure
    assert not confident(_sure(lower=-1.0, other=0.5))
    assert not confident(_sure(lower=2.0, other=1.0, width=0.0))  # no width: no confidence
    one = _sure(2.0, 1.0)
    from dataclasses import replace
    assert not confident(replace(one, scores=one.scores[:1], bounds=one.bounds[:1]))


def test_a_sure_first_guess_is_not_rejected_and_raises_the_level():
    """Below the threshold but the learner is sure: kept, counted, and no false rejection."""
    decided = {}
    for keep in (True, False):
        open_set = OpenSet(True, target=0.1, rate=0.1, window=10, warmup=0, min_yes=0,
                           score='lcb', first_share=1.0, keep_confident=keep, start=1.0)
        for s in np.linspace(0.0, 9.0, 10):  # taught scores 0..9: the 0.1 quantile is 0.9
            open_set.taught(open_set.decide(np.zeros(1), _sure(s, -50.0)), 0, np.zeros(1))
        alpha = open_set.alpha
        low_sure, low_unsure = _sure(0.5, -50.0), _sure(0.5, 0.6)  # lower bound 0.5 < 0.9
        sure, unsure = open_set.decide(np.zeros(1), low_sure), \
            open_set.decide(np.zeros(1), low_unsure)
        decided[keep] = (sure.reject, sure.kept, unsure.reject, unsure.kept)
        assert open_set.counts['kept_confident'] == int(keep)
        open_set.taught(sure, 0, np.zeros(1))  # it was taught: kept rightly
        step = open_set.rate * (open_set.target - (0.0 if keep else 1.0))
        assert open_set.alpha == pytest.approx(alpha + step, rel=1e-12)
    assert decided == {True: (False, True, True, False), False: (True, False, True, False)}


def test_the_level_starts_at_start_times_the_target():
    assert OpenSet(True, target=0.05, start=1.0).alpha == pytest.approx(0.05)
    open_set = OpenSet(True, target=0.05)  # default start 2
    assert open_set.alpha == pytest.approx(0.05 * DEFAULTS['start'])
    open_set.taught(Verdict(1.0, 0.0, True, True, 0), 0, np.zeros(2))
    assert open_set.alpha < 0.05 * DEFAULTS['start']
    open_set.reset()
    assert open_set.alpha == pytest.approx(0.05 * DEFAULTS['start'])


def test_the_kept_count_round_trips_and_an_older_file_loads_without_it(tmp_path):
    inter = _taught_interaction(OpenSet(True, warmup=10, min_yes=3))
    inter.predict([-3.0, 4.0, -2.0, 1.0], now=0.0)  # a sure palm far away: kept
    counts = dict(inter.learner.calibration.counts)
    assert counts['kept_confident'] >= 1
    path = tmp_path / 'model.npz'
    save_model(inter.learner, path)
    assert load_model(path).calibration.counts == counts
    info, arrays = inter.learner.calibration.state()
    del info['counts']['kept_confident']  # as saved before it was counted
    older = Calibration.from_state(info, arrays, 4)
    assert older.counts == {**counts, 'kept_confident': 0}


def test_the_nearest_examples_and_their_window_round_trip(tmp_path):
    # trust: yes and denials 0, so that every gesture shown is a confirmed example (none
    # held, none taken back out).
    inter = _taught_interaction(OpenSet(True, warmup=10, min_yes=3, trust='yes', denials=0),
                                shown=(shown := []))
    cal = inter.learner.calibration
    np.testing.assert_array_equal(cal.examples.arrays()['examples'],
                                  np.array([x for _, x in shown]))
    path = tmp_path / 'model.npz'
    save_model(inter.learner, path)
    loaded = load_model(path).calibration
    assert list(loaded.nearest) == list(cal.nearest) and len(cal.nearest) > 0
    np.testing.assert_array_equal(loaded.examples.arrays()['examples'],
                                  cal.examples.arrays()['examples'])
    info, arrays = cal.state()
    for key in ('nearest', 'examples'):  # as saved before they were kept
        del arrays[key]
    older = Calibration.from_state(info, arrays, 4)
    assert older.examples is None and len(older.nearest) == 0
    arrays['examples'] = np.ones((3, 5))  # five features in a four-feature model
    with pytest.raises(ValueError, match='examples'):
        Calibration.from_state(info, arrays, 4)


def test_nearest_examples_keep_the_last_ones_and_score_by_the_nearest():
    ring = NearestExamples(2, limit=3)
    assert ring.score(np.zeros(2)) == -math.inf
    for k in range(5):
        ring.add(np.array([float(k), 0.0]))
    np.testing.assert_array_equal(ring.arrays()['examples'], [[2.0, 0], [3.0, 0], [4.0, 0]])
    assert ring.score(np.array([0.0, 0.0])) == -2.0  # 0 and 1 were dropped
    assert ring.score(np.array([3.0, 4.0])) == -4.0
    again = NearestExamples.from_arrays(ring.arrays(), 2, limit=2)  # the newest two
    np.testing.assert_array_equal(again.arrays()['examples'], [[3.0, 0], [4.0, 0]])


def test_a_nearest_recheck_rejects_what_is_far_from_every_confirmed_gesture():
    """Labels 0 and 1 at 0 and 10: after a "no", only a gesture far from both is rejected."""
    from dataclasses import replace
    open_set = _two_label_open_set(recheck=True, trust='yes')  # every "yes" confirmed
    assert open_set.recheck_score == 'nearest'
    cal = open_set.calibration
    assert len(cal.nearest) == len(cal.scores) == 54  # from each label's third "yes" on
    threshold = open_set.threshold(1.0, cal.nearest)
    assert threshold == pytest.approx(np.quantile(list(cal.nearest), open_set.alpha), rel=1e-12)
    examples = cal.examples.arrays()['examples']
    decided = []
    for x in (np.array([0.1, -0.1]), np.array([5.0, 5.0])):
        verdict = replace(open_set.decide(x, _label_prediction(0)), reject=False)
        nearest = -np.sqrt(((examples - x) ** 2).sum(1).min())
        assert verdict.nearest == pytest.approx(nearest, rel=1e-12)
        again = open_set.recheck(verdict, x, _label_prediction(1), 2)
        if again.reject:
            assert (again.score, again.threshold) == (verdict.nearest, threshold)
        else:
            assert again is verdict
        decided.append(again.reject)
    # near label 0 it is like something taught (scored for label 1 it would be rejected)
    assert decided == [False, True]


@pytest.mark.parametrize('min_scores', [3, 20])
def test_rejection_is_armed_once_the_window_holds_min_scores(min_scores):
    """20 is the rule before at a 5 % target (1 / target scores)."""
    open_set = OpenSet(True, target=0.05, warmup=0, min_yes=0, score='lcb',
                       keep_confident=False, min_scores=min_scores)
    armed = []
    for s in range(25):
        verdict = open_set.decide(np.zeros(1), _sure(float(s), -50.0))
        armed.append(verdict.armed)
        open_set.taught(verdict, 0, np.zeros(1))
    assert armed == [False] * min_scores + [True] * (25 - min_scores)


def _slip_then_show_again(trust, seed=0):
    """Teach, answer a never-taught gesture a wrong "yes", show it 5 more times truthfully."""
    open_set = OpenSet(True, warmup=10, min_yes=3, trust=trust)
    inter = _taught_interaction(open_set)
    stray = np.array([-3.0, 4.0, -2.0, 1.0])
    item, _ = inter.predict(stray, now=0.0)
    assert not item.questions.declined and item.verdict.kept  # sure of 'palm': asked
    inter.feedback(True, now=0.0)  # the person slips
    rng = np.random.default_rng(seed)
    outcomes = []
    for _ in range(5):
        item, _ = inter.predict(stray + rng.normal(0, 0.05, 4), now=0.0)
        while not item.questions.declined:
            result = inter.feedback(False, now=0.0)  # never taught: every label is wrong
            if result.next_round is None:
                break
            item = result.next_round
        outcomes.append(item.questions.outcome)
    return outcomes, open_set


def test_one_wrong_yes_does_not_teach_a_never_taught_gesture_for_good():
    outcomes, open_set = _slip_then_show_again('support')
    # Held, not confirmed: each later showing is rejected after its first "no" (the recheck).
    assert outcomes == ['unknown'] * 5, outcomes
    held = [x for _, x in open_set.calibration.held]
    assert any(np.array_equal(x, [-3.0, 4.0, -2.0, 1.0]) for x in held)
    assert open_set.calibration.examples.score(np.array([-3.0, 4.0, -2.0, 1.0])) < -3.0
    assert open_set.stats()['unknown_held'] == open_set.counts['held'] >= 1
    # Every "yes" at once (as before): the slip made it a confirmed example, and the later
    # showings near it are asked every label (measured: 2 of the 5).
    outcomes, open_set = _slip_then_show_again('yes')
    assert outcomes.count('unknown') < 5, outcomes
    assert open_set.counts['held'] == 0


def test_a_held_gesture_is_confirmed_once_its_label_scores_it_as_taught_and_saved():
    open_set = OpenSet(True, warmup=10, min_yes=3)
    _taught_interaction(open_set)
    palm = LABELS.index('palm')
    cal = open_set.calibration
    cal.held.clear()  # taught gestures still waiting
    # A palm a little off, answered "yes" after a "no": held, whatever its score.
    near = np.array([0.0, 1.08, 0.0, 1.0])
    verdict = Verdict(score=0.0, threshold=0.0, armed=True, reject=False, label=palm,
                      nearest=cal.examples.score(near))
    open_set.taught(verdict, palm, near, question=2)
    assert [label for label, _ in cal.held] == [palm]
    # Saved with the model and loaded again (older files have none).
    info, arrays = cal.state()
    again = Calibration.from_state(info, arrays, 4)
    assert [(label, x.tolist()) for label, x in again.held] == [(palm, near.tolist())]
    del arrays['held'], arrays['held_label']
    assert Calibration.from_state(info, arrays, 4).held == []
    # Another label's gesture does not look at it; the next trusted palm confirms it: the
    # palm Gaussian scores it above the taught scores' alpha_t quantile.
    assert cal.gaussians.log_likelihood(palm, near, open_set.variance_floor, True,
                                        open_set.shrinkage) >= open_set.threshold()
    count, confirmed = cal.gaussians.yes_count(palm), open_set.counts['held_confirmed']
    open_set.taught(None, LABELS.index('fist'), np.array([1.0, 0.0, 0.0, 1.0]), named=True)
    assert len(cal.held) == 1
    open_set.taught(None, palm, np.array([0.0, 1.0, 0.0, 1.0]), named=True)
    assert cal.held == [] and open_set.counts['held_confirmed'] == confirmed + 1
    assert cal.gaussians.yes_count(palm) == count + 2
    # Far out, it stays held however many palms are named where palms are.
    far = np.array([0.0, 2.5, 0.0, 1.0])
    open_set.taught(verdict, palm, far, question=2)
    for _ in range(10):
        open_set.taught(None, palm, np.array([0.0, 1.0, 0.0, 1.0]), named=True)
    assert [x.tolist() for _, x in cal.held] == [far.tolist()]


def test_the_settings_are_one_value_that_every_door_reads():
    # Settings holds each name, default and check once: the constructor, configure and
    # settings() all go through it.
    names = {field.name for field in dataclasses.fields(Settings)}
    open_set = OpenSet(True, warmup=3, score='likelihood', window=50)
    assert set(open_set.settings()) == names | {'enabled'}
    assert open_set.score_name == open_set.settings()['score'] == 'likelihood'
    assert OpenSet(**open_set.settings()).settings() == open_set.settings()
    assert {k: v for k, v in OpenSet().settings().items() if k != 'enabled'} == \
        dataclasses.asdict(Settings())
    with pytest.raises(HyperparameterError, match='unknown_warmup'):
        open_set.configure(True, warmup=-1, score='lcb')
    assert (open_set.warmup, open_set.score_name) == (3, 'likelihood')  # nothing changed
    with pytest.raises(TypeError):
        OpenSet(True, no_such_setting=1)
