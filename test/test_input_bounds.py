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

"""What a peer or a file declares is bounded: memory, learned models, parameters, --set."""

import io
import json
import os
import tracemalloc
import zipfile

from banditlearn_ros.learning import load_model, make_learner, ModelFileError, save_model
from banditlearn_ros.learning.algorithms import label_gaussians
from banditlearn_ros.learning.algorithms.label_gaussians import LabelGaussians
from banditlearn_ros.learning.live import model_store
from banditlearn_ros.learning.storage import persistence
import numpy as np
import pytest
from test_live_learner import live


def _peak_bytes(call) -> int:
    """Return the peak of memory traced while ``call()`` runs (numpy arrays are traced)."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _answer_yes(state, rng, n, size):
    """Show ``n`` vectors of ``size`` values to a live learner and say yes to each."""
    for _ in range(n):
        item, reason, _ = state.predict(rng.normal(size=size).tolist())
        assert item is not None, reason
        state.feedback(True)


# -- the never-taught check's state -------------------------------------------------------
def test_the_never_taught_sums_keep_the_diagonal_past_the_feature_bound():
    d = label_gaussians.FULL_MAX_FEATURES + 1
    g = LabelGaussians(d)
    rng = np.random.default_rng(0)
    for i in range(3):
        g.add(2, rng.normal(size=d))
    assert g.m2.shape == (3, d)  # K x d, not K x d x d (134 MB per label at d = 4096)
    full = LabelGaussians(label_gaussians.FULL_MAX_FEATURES)
    full.add(0, rng.normal(size=full.n_features))
    assert full.m2.shape == (1, full.n_features, full.n_features)


def test_the_diagonal_sums_score_as_the_diagonal_of_the_full_ones(monkeypatch):
    rng = np.random.default_rng(1)
    xs = rng.normal(size=(12, 6))
    full = LabelGaussians(6)
    monkeypatch.setattr(label_gaussians, 'FULL_MAX_FEATURES', 5)
    diagonal = LabelGaussians(6)
    assert diagonal.m2.ndim == 2 and full.m2.ndim == 3
    for i, x in enumerate(xs):
        full.add(i % 2, x)
        diagonal.add(i % 2, x)
    np.testing.assert_allclose(diagonal.m2, np.diagonal(full.m2, axis1=1, axis2=2),
                               rtol=1e-12, atol=1e-12)
    probe = rng.normal(size=6)
    for shrinkage in (0.0, 3.0):
        want = full.log_likelihood(1, probe, 0.3, False, shrinkage)
        # likelihood_full asked of diagonal sums: the diagonal score, not an error.
        assert diagonal.log_likelihood(1, probe, 0.3, True, shrinkage) == pytest.approx(
            want, rel=1e-12)
    again = LabelGaussians.from_arrays(diagonal.arrays(), 6)
    assert again.m2.shape == (2, 6)
    with pytest.raises(ValueError, match='open set m2'):
        LabelGaussians.from_arrays(full.arrays(), 6)  # a full one where d is past the bound


def test_a_peer_turning_rejection_on_with_long_vectors_costs_no_d_squared(monkeypatch, tmp_path):
    # The attack at a small scale: rejection on, every label confirmed once with vectors
    # past the bound; the never-taught state and the saved file stay linear in d.
    monkeypatch.setattr(label_gaussians, 'FULL_MAX_FEATURES', 16)
    labels = [f'g{i}' for i in range(6)]
    path = str(tmp_path / 'model.npz')
    state, _ = live(path, labels=labels, unknown_rejection=True, unknown_min_yes=1)
    _answer_yes(state, np.random.default_rng(2), 12, 64)
    gaussians = state.interaction.open_set.calibration.gaussians
    assert gaussians.m2.ndim == 2 and gaussians.m2.shape[1] == 64
    state.save()
    with zipfile.ZipFile(path) as archive:
        shapes = {i.filename: i.file_size for i in archive.infolist()}
    assert shapes['open_set_m2.npy'] < 8 * 6 * 64 + 200
    loaded = load_model(path)
    assert loaded.calibration.gaussians.m2.shape == gaussians.m2.shape


def test_the_size_check_counts_the_never_taught_state_and_the_model_limit(monkeypatch):
    monkeypatch.setattr(model_store, 'available_memory', lambda: 2 ** 40)
    rule = {'fixed': 0, 'max_size': 4096, 'n_labels': 12, 'full': False}
    # 12 labels x 4096: 0.8 MB of learner, 0.8 MB of sums, 33 MB of kept examples.
    assert model_store.state_bytes(4096, 12, False) > 33 * 10 ** 6
    assert model_store.size_problem(4096, **rule, max_bytes=2 ** 25) == 'model_too_large'
    assert model_store.size_problem(4096, **rule, max_bytes=2 ** 26) == ''
    # At 256 features the full sums are counted: 12 x 256 x 256 doubles.
    assert model_store.state_bytes(256, 12, False) - model_store.state_bytes(
        256, 12, False, open_set=False) >= 8 * 12 * 256 * 256


# -- model files ---------------------------------------------------------------------------
def _with_header(path, **changes):
    """Rewrite a saved model file's JSON header with ``changes``."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = json.loads(np.load(io.BytesIO(members['__header__.npy'])).tobytes())
    header.update(changes)
    buffer = io.BytesIO()
    np.save(buffer, np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    members['__header__.npy'] = buffer.getvalue()
    with zipfile.ZipFile(path, 'w') as archive:
        for name, data in members.items():
            archive.writestr(name, data)


@pytest.mark.parametrize('covariance, n_features, problem', [
    ('diag', 10 ** 9, 'n_features 1000000000 is not a whole number in'),
    ('diag', 10 ** 8, "array 'mu' has shape (2, 3), not that of 2 labels x 100000000"),
    ('full', 15000, "array 'mu' has shape (2, 3), not that of 2 labels x 15000 features"),
    ('full', 10 ** 6, "array 'mu' has shape (2, 3), not that of 2 labels x 1000000"),
])
def test_a_header_declaring_a_huge_feature_size_is_refused_before_allocating(
        tmp_path, covariance, n_features, problem):
    path = tmp_path / 'small.npz'
    save_model(make_learner('ucwl', ['a', 'b'], 3, covariance=covariance), path)
    _with_header(path, n_features=n_features)
    assert path.stat().st_size < 4000
    box = []

    def load():
        with pytest.raises(ModelFileError) as info:
            load_model(path)
        box.append(str(info.value))
    # Before: 1.6 GB (diagonal, 10^8) and 3.6 GB (full, 15000) before the refusal; a
    # MemoryError traceback for full at 10^6.
    assert _peak_bytes(load) < 2 ** 23
    assert problem in box[0] and str(path) in box[0] and '\n' not in box[0]


def _deflated_zeros(path, n_doubles):
    header = {'descr': '<f8', 'fortran_order': False, 'shape': (n_doubles,)}
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as archive:
        with archive.open('mu.npy', 'w', force_zip64=True) as member:
            np.lib.format.write_array_header_1_0(member, header)
            member.write(bytes(8 * n_doubles))


def test_a_deflated_member_inflating_far_past_its_size_is_refused_unread(monkeypatch, tmp_path):
    # Scaled down: past MAX_SMALL_MEMBER (64 MiB in use) zeros inflate about 1000 x.
    monkeypatch.setattr(persistence, 'MAX_SMALL_MEMBER', 2 ** 20)
    path = tmp_path / 'bomb.npz'
    _deflated_zeros(path, 2 ** 21)  # 16 MiB inflated, under the 1 GiB model limit
    assert path.stat().st_size < 2 ** 16
    box = []

    def read():
        with pytest.raises(ModelFileError, match=r'more than 100 x') as info:
            persistence.read_model_state(path)
        box.append(str(info.value))
    assert _peak_bytes(read) < 2 ** 21  # nothing of the 16 MiB was inflated
    assert str(path) in box[0] and 'uncompressed' in box[0]


def test_a_compressed_model_under_the_ratio_is_read(tmp_path):
    learner = make_learner('ucwl', ['a', 'b'], 40, seed=3)
    rng = np.random.default_rng(3)
    for _ in range(30):
        x = rng.normal(size=40)
        learner.learn(x, learner.select(x).label, bool(rng.integers(2)))
    plain = tmp_path / 'plain.npz'
    save_model(learner, plain)
    with np.load(plain) as archive:
        contents = {name: archive[name] for name in archive.files}
    packed = tmp_path / 'packed.npz'
    np.savez_compressed(packed, **contents)
    again = load_model(packed)
    x = rng.normal(size=40)
    a, b = again.select(x), learner.select(x)
    assert a.label == b.label
    np.testing.assert_array_equal(a.scores, b.scores)


def test_a_stored_member_is_read_without_a_second_copy(tmp_path):
    path = tmp_path / 'wide.npz'
    save_model(make_learner('ucwl', ['a', 'b'], 2 ** 19), path)  # mu, sigma: 8 MiB each
    peak = _peak_bytes(lambda: persistence.read_model_state(path))
    # The arrays themselves (16 MiB) and a 1 MiB chunk; a copy of each member's bytes
    # took 24 MiB.
    assert peak < 2 ** 24 + 3 * 2 ** 20


# -- a reset keeps the model before it -----------------------------------------------------
def test_a_reset_keeps_the_model_before_it_beside_the_model_file(tmp_path):
    path = tmp_path / 'model.npz'
    state, _ = live(str(path), autosave_every=1)
    _answer_yes(state, np.random.default_rng(4), 5, 3)
    learned = state.interaction.learner.state_dict()
    assert state.save() == str(path)
    ok, said = state.reset_answer()
    backups = model_store.reset_backups(str(path))
    assert ok and len(backups) == 1 and backups[0] in said
    assert os.path.dirname(backups[0]) == str(tmp_path)
    kept = persistence.read_model_state(backups[0])
    assert kept['extra']['n_updates'] == learned['extra']['n_updates'] >= 5
    np.testing.assert_array_equal(kept['arrays']['mu'], learned['arrays']['mu'])
    # The autosave after the reset replaces the model file, never the backup.
    _answer_yes(state, np.random.default_rng(5), 2, 3)
    state.save()
    now = state.interaction.learner.n_updates
    assert now != learned['extra']['n_updates']
    assert persistence.read_model_state(path)['extra']['n_updates'] == now
    assert persistence.read_model_state(backups[0])['extra']['n_updates'] == \
        learned['extra']['n_updates']
    # A model that learned nothing since is not kept again.
    state.reset()
    state.reset()
    assert len(model_store.reset_backups(str(path))) == 2


def test_resets_past_the_kept_backups_are_refused_and_reset_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(model_store, 'MAX_RESET_BACKUPS', 2)
    path = tmp_path / 'model.npz'
    state, _ = live(str(path))
    rng = np.random.default_rng(6)
    for _ in range(2):
        _answer_yes(state, rng, 2, 3)
        assert state.reset_answer()[0]
    _answer_yes(state, rng, 3, 3)
    learned = state.interaction.learner.n_updates
    ok, said = state.reset_answer()
    assert not ok and 'delete' in said and '\n' not in said
    assert state.interaction.learner.n_updates == learned > 0  # nothing was reset
    assert len(model_store.reset_backups(str(path))) == 2


def test_a_memory_only_model_has_nothing_to_keep():
    state, _ = live('')
    _answer_yes(state, np.random.default_rng(7), 2, 3)
    assert state.reset() == ''


# -- a symlinked model path ----------------------------------------------------------------
def test_a_symlinked_model_path_writes_its_target(tmp_path):
    (tmp_path / 'models').mkdir()
    target = tmp_path / 'models' / 'real.npz'
    link = tmp_path / 'link.npz'
    link.symlink_to(target)  # dangling until the first save
    learner = make_learner('ucwl', ['a', 'b'], 3)
    save_model(learner, link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.is_file() and load_model(link).labels == ['a', 'b']
    learner.add_label('c')
    save_model(learner, link)
    assert link.is_symlink() and load_model(target).labels == ['a', 'b', 'c']
    assert sorted(os.listdir(tmp_path / 'models')) == ['real.npz']  # no temporary left


# -- parameters ----------------------------------------------------------------------------
class _Lines:
    """Records what a node logs (stands in for its rcutils logger in one test)."""

    def __init__(self):
        self.lines = []

    def warning(self, text, **kwargs):
        self.lines.append(text)

    def info(self, text, **kwargs):
        pass


def _node_with_learner_parameters(ros, clock=None):
    from banditlearn_ros.learning.live import learner_parameters as lp
    from banditlearn_ros.nodes import parameters
    from rclpy.node import Node
    node = ros.add(Node('bounds_parameters', context=ros.context))
    if clock is not None:
        node.__dict__['_banditlearn_parameter_changes'] = parameters.ParameterChanges(
            node, clock=clock)
    parameters.declare_specs(node, lp.all_specs())
    return node


@pytest.mark.ros
def test_refusals_are_throttled_and_cut_to_one_short_line(ros):
    from rclpy.parameter import Parameter
    now = [0.0]
    node = _node_with_learner_parameters(ros, clock=lambda: now[0])
    log = _Lines()
    node.get_logger = lambda: log
    changes = node.__dict__['_banditlearn_parameter_changes']
    huge = 'x' * 10 ** 7 + '\nsecond line'
    for _ in range(100):
        result = node.set_parameters([Parameter('k', Parameter.Type.STRING, huge)])[0]
        assert not result.successful
    assert changes.refused == 100
    assert len(log.lines) == 1  # the rest within REFUSAL_LOG_PERIOD are counted only
    assert len(log.lines[0]) < 400 and '\n' not in log.lines[0]
    assert 'k must be double, got string' in log.lines[0]
    now[0] += 5.0
    node.set_parameters([Parameter('C', Parameter.Type.STRING_ARRAY, ['a', huge])])
    assert len(log.lines) == 2 and '99 more refused' in log.lines[1]
    assert len(log.lines[1]) < 400 and '\n' not in log.lines[1]


@pytest.mark.ros
@pytest.mark.parametrize('name, value', [
    ('k', 1e308), ('k', float('inf')), ('k', float('nan')), ('C', 1e300),
    ('confidit.eta', 1e300), ('unknown_variance_floor', float('nan')),
])
def test_absurd_or_non_finite_values_are_refused(ros, name, value):
    from rclpy.parameter import Parameter
    node = _node_with_learner_parameters(ros)
    before = node.get_parameter(name).value
    result = node.set_parameters([Parameter(name, Parameter.Type.DOUBLE, value)])[0]
    assert not result.successful
    assert node.get_parameter(name).value == before


@pytest.mark.ros
def test_every_learner_parameter_says_its_type_and_numbers_have_a_finite_range(ros):
    import math
    node = _node_with_learner_parameters(ros)
    from banditlearn_ros.learning.live import learner_parameters as lp
    for spec in lp.all_specs():
        descriptor = node.describe_parameter(spec.name)
        assert descriptor.additional_constraints.startswith('type '), spec.name
        ranges = list(descriptor.floating_point_range) + list(descriptor.integer_range)
        if isinstance(spec.default, (int, float)) and not isinstance(spec.default, bool):
            assert ranges and math.isfinite(ranges[0].to_value), spec.name
    assert node.describe_parameter('unknown_rejection').additional_constraints == \
        'type bool (true or false)'
    assert 'type double' in node.describe_parameter('k').additional_constraints


# -- banditlearn_bringup --set ---------------------------------------------------------------
@pytest.mark.ros
def test_bringup_checks_the_learner_sets_before_anything_starts(monkeypatch):
    from banditlearn_ros.bringup import system as system_module
    from banditlearn_ros.systems.options import apply_options, build_parser
    from banditlearn_ros.systems.system_file import BringupError, find_system, load_system

    def never(*args, **kwargs):
        raise AssertionError('a node was started before the --set values were checked')
    monkeypatch.setattr(system_module, 'System', never)
    system = load_system(find_system('teach_sim'))
    apply_options(system, build_parser().parse_args(
        ['--set', 'learner_node.k=1.0e+308', '--set', 'learner_node.C=abc',
         '--set', 'learner_node.eta=.nan', '--set', 'learner_node.kk=2']))
    with pytest.raises(BringupError) as info:
        system_module.start(system)
    assert str(info.value).splitlines() == [
        '--set learner_node.k=1.0e+308: k out of range [0.0, 100.0]',
        "--set learner_node.C=abc: C takes a number, not 'abc'",
        '--set learner_node.eta=.nan: eta must be a finite number',
        "--set learner_node.kk=2: learner_node has no parameter 'kk'; did you mean 'k'?"]


@pytest.mark.ros
def test_a_set_rcl_refuses_at_start_leaves_the_model_file_untouched(tmp_path):
    import subprocess
    import sys
    from banditlearn_ros.learning.live.learner_parameters import DEFAULT_LABELS
    model = tmp_path / '.ros' / 'banditlearn_ros' / 'gesture_model.npz'  # params.yaml's
    model.parent.mkdir(parents=True)
    save_model(make_learner('ucwl', DEFAULT_LABELS, 22), model)
    before = (model.stat().st_mtime_ns, model.read_bytes())
    env = dict(os.environ, HOME=str(tmp_path))
    result = subprocess.run(
        [sys.executable, '-m', 'banditlearn_ros.bringup.main', '--system', 'full',
         '--duration', '1', '--set', 'camera_node.stable_frames=abc'],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip().splitlines() == [
        'banditlearn_bringup: error: --set camera_node.stable_frames=abc: stable_frames '
        "takes a whole number, not 'abc'"], result.stderr
    assert (model.stat().st_mtime_ns, model.read_bytes()) == before
    assert os.listdir(model.parent) == ['gesture_model.npz']


@pytest.mark.parametrize('kind', ['fifo', 'device', 'huge'])
def test_a_parameter_file_that_is_no_file_or_huge_is_refused_unread(tmp_path, kind):
    import threading
    from banditlearn_ros.systems import system_file
    from banditlearn_ros.systems.system_file import base_values, BringupError
    path = tmp_path / 'params.yaml'
    if kind == 'fifo':
        os.mkfifo(path)
    elif kind == 'device':
        path = '/dev/zero'
    else:
        with open(path, 'wb') as handle:
            handle.truncate(system_file.MAX_YAML_BYTES + 1)  # sparse: nothing is written
    box = []

    def read():
        try:
            base_values([path])
        except BringupError as exc:
            box.append(str(exc))
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=60.0)
    if reader.is_alive() and kind == 'fifo':  # blocked in open(): let it end, then fail
        with open(path, 'wb'):
            pass
    assert not reader.is_alive() and box, 'the file was read (or reading it blocked)'
    assert str(path) in box[0] and '\n' not in box[0]
    assert ('not a regular file' if kind != 'huge' else 'more than the') in box[0]


def test_labels_appended_past_the_model_limit_are_refused_with_nothing_changed():
    state, values = live(max_model_bytes=2 ** 20)  # 1 MiB: 2 labels of 64 features fit
    _answer_yes(state, np.random.default_rng(8), 1, 64)
    many = ['fist', 'palm'] + [f'g{i}' for i in range(400)]
    with pytest.raises(ValueError, match='more than max_model_bytes'):
        state.check_change({'labels': many})
    state.check_change({'labels': ['fist', 'palm', 'point']})  # a few more fit
    assert state.current_labels() == ['fist', 'palm']


@pytest.mark.ros
def test_a_peer_reset_over_the_service_keeps_the_model_before_it(ros, tmp_path):
    from std_srvs.srv import Trigger
    from test_learner_node import Driver, learner
    path = tmp_path / 'model.npz'
    node = learner(ros, model_path=str(path), autosave_every=1)
    drive = Driver(ros)
    drive.ask([1.0, 0.0])
    drive.answer(False, node)
    learned = node.live.interaction.learner.state_dict()
    assert learned['extra']['n_updates'] == 1
    client = ros.probe.create_client(Trigger, '/learner_node/reset_model')
    answer = ros.call(client, Trigger.Request())
    backups = model_store.reset_backups(str(path))
    assert answer.success and len(backups) == 1 and backups[0] in answer.message
    kept = persistence.read_model_state(backups[0])
    np.testing.assert_array_equal(kept['arrays']['mu'], learned['arrays']['mu'])
