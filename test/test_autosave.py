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

"""Autosave in a writer thread; a node start without scipy.stats, numba, many BLAS threads."""

import os
from pathlib import Path
import subprocess
import sys
import threading

from banditlearn_ros.learning import load_model
from banditlearn_ros.learning.live import model_store
from banditlearn_ros.learning.live.autosave import BackgroundSaves
from banditlearn_ros.learning.storage.persistence import TEMP_SUFFIX
import numpy as np
import pytest
from test_live_learner import live, Log

WAIT = 60.0
"""Upper bound of a wait that ends as soon as its event happens (never a timing assert)."""


def answer(state, rng, n_features=4):
    """One gesture and its yes/no through the live learner; return (result, due)."""
    item, reason = state.interaction.predict(rng.random(n_features))
    assert item is not None, reason
    return state.feedback(bool(rng.integers(2)))


def test_every_autosave_is_written_by_the_writer_thread_and_none_is_lost(
        tmp_path, monkeypatch):
    writers, real = [], model_store.save_state
    monkeypatch.setattr(model_store, 'save_state', lambda state, path: (
        writers.append(threading.current_thread()), real(state, path)))
    path = tmp_path / 'model.npz'
    state, _ = live(str(path), autosave_every=3, max_questions=1, centring='none')
    rng = np.random.default_rng(0)
    dues = 0
    for _ in range(60):
        result, due = answer(state, rng)
        dues += due
        if due:
            assert state.autosaves.wait_idle(WAIT)
            # Written atomically: the file holds every update up to this answer.
            assert load_model(str(path)).n_updates == state.interaction.learner.n_updates
    assert dues >= 5 and state.autosaves.saved == dues and state.autosaves.failed == 0
    assert writers and all(t is not threading.main_thread() for t in writers)
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(TEMP_SUFFIX)]


def test_an_answer_never_waits_for_a_write_under_way(tmp_path, monkeypatch):
    release, writing, real = threading.Event(), threading.Event(), model_store.save_state

    def slow_write(state, path):
        writing.set()
        assert release.wait(WAIT), 'the test never released the writer'
        real(state, path)
    monkeypatch.setattr(model_store, 'save_state', slow_write)
    path = tmp_path / 'model.npz'
    state, _ = live(str(path), autosave_every=1, max_questions=1, centring='none')
    rng = np.random.default_rng(1)
    while not answer(state, rng)[1]:
        pass
    assert writing.wait(WAIT)
    # The writer is stuck in its write; answers go on (with the lock free) meanwhile.
    before = state.interaction.learner.n_updates
    for _ in range(20):
        answer(state, rng)
    assert state.autosaves.saved == 0
    release.set()
    assert state.autosaves.wait_idle(WAIT)
    # The request made during the write was merged into one more save: nothing lost.
    assert load_model(str(path)).n_updates == state.interaction.learner.n_updates > before


def test_a_failed_autosave_is_counted_logged_once_and_the_next_one_succeeds(tmp_path):
    blocker = tmp_path / 'not_a_folder'
    blocker.write_text('a file where the model folder should be')
    log = Log()
    state, _ = live(str(blocker / 'model.npz'), log=log, autosave_every=1, max_questions=1,
                    centring='none')
    rng = np.random.default_rng(2)
    failures = 0
    for _ in range(30):
        failures += answer(state, rng)[1]
        assert state.autosaves.wait_idle(WAIT)
    assert failures >= 2 and state.autosaves.failed == failures and state.autosaves.saved == 0
    assert [level for level, text in log.lines if 'autosave failed' in text] == ['error']
    assert state.saves.error_now(0.0)  # /diagnostics says ERROR
    assert state.saves.updates_since_save >= failures  # not on disk: still due
    blocker.unlink()
    blocker.mkdir()
    while not answer(state, rng)[1]:
        pass
    assert state.autosaves.wait_idle(WAIT)
    assert state.autosaves.saved == 1 and not state.saves.error_now(0.0)
    assert load_model(str(blocker / 'model.npz')).n_updates == \
        state.interaction.learner.n_updates


def test_the_writer_survives_an_unexpected_error():
    calls = []

    def save():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError('a bug in a save')
        return 'path'
    saves = BackgroundSaves(save, Log())
    saves.request()
    assert saves.wait_idle(WAIT) and saves.failed == 1
    saves.request()
    assert saves.wait_idle(WAIT) and saves.saved == 1
    saves.close(WAIT)


def test_close_writes_what_was_asked_for_before_it_returns():
    release, started, written = threading.Event(), threading.Event(), []

    def save():
        started.set()
        assert release.wait(WAIT)
        written.append(len(written))
        return 'path'
    saves = BackgroundSaves(save, Log())
    saves.request()
    assert started.wait(WAIT)
    saves.request()  # asked during the write: written before close returns
    closer = threading.Thread(target=saves.close)
    closer.start()
    closer.join(0.2)
    assert closer.is_alive() and written == []  # close waits for the write under way
    release.set()
    closer.join(WAIT)
    assert not closer.is_alive() and written == [0, 1]
    saves.request()  # after close: the shutdown save follows, the writer is gone
    assert saves.wait_idle(WAIT) and written == [0, 1]


START = """
import sys, threading
import banditlearn_ros.nodes.learner_node
from banditlearn_ros.learning.engine import compilation
from banditlearn_ros.learning.live.live_learner import LiveLearner
sys.path.insert(0, {test!r})
from test_live_learner import parameters, Log
import numpy as np
print('imported', 'scipy.stats' in sys.modules, 'numba' in sys.modules)
import os
print('blas', os.environ.get('OPENBLAS_NUM_THREADS'))
state = LiveLearner(parameters(centring='none').__getitem__, '', Log())
state.interaction.predict(np.ones(4))
print('built', 'scipy.stats' in sys.modules, 'numba' in sys.modules,
      state.interaction.learner.compiled)
state.started()
compilation.wait_for_background()
print('started', compilation.compiled() is not None,
      state.interaction.learner.compiled)
"""


def test_a_learner_starts_without_scipy_stats_and_numba_then_moves_to_the_kernels():
    env = {k: v for k, v in os.environ.items()
           if k not in ('OPENBLAS_NUM_THREADS', 'BANDITLEARN_COMPILED')}
    out = subprocess.run([sys.executable, '-c', START.format(test=str(Path(__file__).parent))],
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    lines = dict((line.split(' ', 1)) for line in out.stdout.splitlines())
    assert lines['imported'] == 'False False'
    assert lines['blas'] == '1'  # set before numpy loaded
    # The first learner runs the numpy code until the node says it is up.
    assert lines['built'] == 'False False False'
    try:
        import numba  # noqa: F401
    except ImportError:
        pytest.skip('numba is not installed: the numpy code stays (checked above)')
    assert lines['started'] == 'True True'


WAITING = """
import sys
from banditlearn_ros.learning.engine import compilation, FastUCWL
from banditlearn_ros.learning.live.live_learner import LiveLearner
sys.path.insert(0, {test!r})
from test_live_learner import parameters, Log
import numpy as np
state = LiveLearner(parameters(centring='none').__getitem__, '', Log())
state.interaction.predict(np.ones(4))
waiting = not state.interaction.learner.compiled
# Code outside a live node (the evaluation, a test) compiles at once, and the waiting
# learner moves to the kernels too.
print(waiting, compilation.compiled() is not None, FastUCWL(['a'], 2).compiled,
      state.interaction.learner.compiled)
"""


def test_a_learner_outside_a_node_compiles_at_once_while_a_node_waits():
    pytest.importorskip('numba', reason='numba (the [fast] extra) is not installed')
    env = {k: v for k, v in os.environ.items() if k != 'BANDITLEARN_COMPILED'}
    out = subprocess.run([sys.executable, '-c', WAITING.format(test=str(Path(__file__).parent))],
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    # The node's thread waits for started() (up to 10 s); the direct call did not wait for it.
    assert out.stdout.split() == ['True', 'True', 'True', 'True']
