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

"""Model files: atomic, versioned, and every kind of bad file is one clear error."""

import io
import json
import os
import signal
import stat
import subprocess
import sys
import time
import zipfile

from banditlearn_ros.learning import load_model, make_learner, ModelFileError, save_model
from banditlearn_ros.learning.storage.persistence import FORMAT_VERSION
import numpy as np
import pytest


@pytest.fixture
def saved(tmp_path):
    learner = make_learner('ucwl', ['fist', 'palm'], 4, eta=0.9, C=1.0, k=1.0)
    for i in range(30):
        x = np.arange(4.0) + i
        p = learner.select(x)
        learner.learn(x, p.index, bool(i % 2))
    path = tmp_path / 'model.npz'
    save_model(learner, path)
    return learner, path


def _rewrite(path, mutate):
    """Rewrite a saved model with its header or arrays changed by ``mutate``."""
    with np.load(path, allow_pickle=False) as archive:
        contents = {k: archive[k] for k in archive.files}
    header = json.loads(contents['__header__'].tobytes())
    mutate(header, contents)
    contents['__header__'] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **contents)
    path.write_bytes(buffer.getvalue())


def _add_raw_member(path):
    """Add a member that is not an .npy array (np.load returns such members as bytes)."""
    with zipfile.ZipFile(path, 'a') as archive:
        archive.writestr('notes.txt', b'hello')


def test_file_holds_metadata_without_pickle(saved):
    learner, path = saved
    assert zipfile.is_zipfile(path)
    with np.load(path, allow_pickle=False) as archive:
        header = json.loads(archive['__header__'].tobytes())
        assert all(archive[k].dtype != object for k in archive.files)
    assert header['algorithm'] == 'ucwl'
    assert header['labels'] == ['fist', 'palm']
    assert header['n_features'] == 4
    assert header['hyperparameters'] == {'eta': 0.9, 'C': 1.0, 'k': 1.0, 'covariance': 'diag',
                                         'diagonal': 'precision', 'variant': 'scw1',
                                         'added_label_prior': 'mixture', 'no_weight': 'ramp'}
    assert header['format_version'] == FORMAT_VERSION
    assert header['package_version']
    assert load_model(path).n_updates == learner.n_updates


def test_saved_file_has_the_mode_of_any_new_file(saved, tmp_path):
    _, path = saved
    plain = tmp_path / 'plain'
    plain.write_bytes(b'')
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


def test_no_temporary_files_are_left(saved):
    _, path = saved
    assert os.listdir(path.parent) == ['model.npz']


def test_a_failed_write_keeps_the_previous_file(saved, monkeypatch):
    learner, path = saved
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError('disk full')
    monkeypatch.setattr(os, 'replace', boom)
    with pytest.raises(OSError, match='disk full'):
        save_model(learner, path)
    assert path.read_bytes() == before
    assert os.listdir(path.parent) == ['model.npz']


@pytest.mark.parametrize('damage, message', [
    (lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]), 'not a readable'),
    (lambda p: p.write_bytes(b'not a model at all'), 'not a readable'),
    (lambda p: p.write_bytes(b''), 'not a readable'),
    (lambda p: np.savez(p.open('wb'), w=np.zeros(3)), 'no banditlearn_ros header'),
    (lambda p: _rewrite(p, lambda h, c: h.update(format_version=99)),
     'format version 99 is not supported'),
    (lambda p: _rewrite(p, lambda h, c: h.update(format='something.else')),
     'does not describe a banditlearn_ros model'),
    (lambda p: _rewrite(p, lambda h, c: h.pop('labels')), "lacks 'labels'"),
    (lambda p: _rewrite(p, lambda h, c: c.update(mu=np.zeros((3, 4)))),
     "array 'mu' has shape"),
    (lambda p: _rewrite(p, lambda h, c: c.pop('sigma')), "array 'sigma' is missing"),
    (lambda p: _rewrite(p, lambda h, c: h.update(algorithm='magic')), 'unknown algorithm'),
    (lambda p: _rewrite(p, lambda h, c: h.update(
        labels=['a', 'b', 'c'], array_shapes={'mu': [2, 4], 'sigma': [2, 4]})), 'shape'),
    (lambda p: _rewrite(p, lambda h, c: c['mu'].__setitem__((0, 0), np.nan)), 'NaN'),
    (lambda p: _rewrite(p, lambda h, c: h['hyperparameters'].update(eta=3.0)), 'eta=3.0'),
    (_add_raw_member, "member 'notes.txt' is not an .npy array"),
    (lambda p: _rewrite(p, lambda h, c: c['mu'].__setitem__((1, 2), np.inf)), 'NaN or inf'),
    (lambda p: _rewrite(p, lambda h, c: c['sigma'].__setitem__((1, 2), -0.5)),
     "'sigma' of label 'palm' has a variance <= 0"),
    (lambda p: _rewrite(p, lambda h, c: c['sigma'].__setitem__((0, 0), 0.0)),
     "'sigma' of label 'fist' has a variance <= 0"),
    (lambda p: _rewrite(p, lambda h, c: c.update(sigma=c['sigma'].astype(str))),
     "'sigma' holds <U"),
    (lambda p: _rewrite(p, lambda h, c: h.update(labels=['fist', 'fist'])), 'twice'),
    (lambda p: _rewrite(p, lambda h, c: h.update(labels='fist,palm')), 'not a list'),
    (lambda p: _rewrite(p, lambda h, c: h.update(labels=['fist', 3])), 'not a list'),
    (lambda p: _rewrite(p, lambda h, c: h.update(n_features='4')), 'n_features'),
    (lambda p: _rewrite(p, lambda h, c: h.update(hyperparameters=[1, 2])), 'hyperparameters'),
    (lambda p: _rewrite(p, lambda h, c: h.update(rng_state={'bit_generator': 'x'})), 'PCG64'),
    (lambda p: _rewrite(p, lambda h, c: h.update(extra=7)), 'extra is not a table'),
])
def test_bad_files_raise_one_clear_error(saved, damage, message):
    _, path = saved
    damage(path)
    with pytest.raises(ModelFileError, match=message) as info:
        load_model(path)
    assert str(path) in str(info.value)


def test_missing_file_and_wrong_feature_size(saved, tmp_path):
    _, path = saved
    with pytest.raises(ModelFileError, match='does not exist'):
        load_model(tmp_path / 'nothing.npz')
    with pytest.raises(ModelFileError, match='holds 4 features, expected 7'):
        load_model(path, expect_features=7)


def test_file_saved_before_the_diagonal_option_loads_with_its_old_update(saved):
    # Files written before 'diagonal' existed were trained with the Sigma-diagonal step; they
    # must continue with it, not silently switch to the new default.
    _, path = saved
    _rewrite(path, lambda header, contents: header['hyperparameters'].pop('diagonal'))
    assert load_model(path).diagonal == 'variance'


def test_full_covariance_that_is_not_positive_definite_is_refused(tmp_path):
    learner = make_learner('ucwl', ['a', 'b'], 3, covariance='full')
    path = tmp_path / 'full.npz'
    save_model(learner, path)
    _rewrite(path, lambda h, c: c['sigma'][1].__setitem__((0, 1), 5.0))
    _rewrite(path, lambda h, c: c['sigma'][1].__setitem__((1, 0), 5.0))
    with pytest.raises(ModelFileError, match="'sigma' of label 'b' is not positive definite"):
        load_model(path)


@pytest.mark.ros
@pytest.mark.parametrize('fresh', [False, True])
def test_a_non_array_member_ends_the_learner_node_with_one_line(saved, fresh):
    _, path = saved
    _add_raw_member(path)
    args = [sys.executable, '-m', 'banditlearn_ros.nodes.learner_node', '--ros-args',
            '-p', f'model_path:={path}']
    if not fresh:
        result = subprocess.run(args, capture_output=True, text=True, timeout=60)
        assert result.returncode == 1 and 'Traceback' not in result.stderr
        assert result.stderr.strip().splitlines()[-1] == (
            f"learner_node: model file {path}: member 'notes.txt' is not an .npy array")
        return
    # With start_fresh_on_bad_model the node runs on a fresh model and says why.
    process = subprocess.Popen(args + ['-p', 'start_fresh_on_bad_model:=true'],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        seen = ''
        while time.monotonic() < deadline and 'learner ready' not in seen:
            seen += process.stderr.readline()
            assert process.poll() is None, seen + process.stderr.read()
        assert "member 'notes.txt' is not an .npy array; starting with a fresh model" in seen
        assert f'{path}.fresh.npz' in seen
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0 and 'Traceback' not in err
