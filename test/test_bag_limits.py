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
What a bag or a file declares is bounded, checked and refused with one line.

Crafted files, made here and small on disk: an MCAP chunk that inflates to 2 GiB, one that
inflates past what it declares, a FIFO named like a bag, ``/dev/zero`` as a parameter
file, a start model of 3 GB (sparse), a learner configuration of wrong types, one that
names a file the user did not, one whose every gesture is refused.  The commands run in a
child process with an address-space limit (a bug shows as a failure, not as a machine
out of memory) and a timeout (a hang shows as a failure).
"""

import base64
import hashlib
import json
import os
from pathlib import Path
import resource
import struct
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip('rosbags')

LIMIT_AS = 3 * 2 ** 30
"""Address space of the child: far above what a refusal needs, below a 2 GiB chunk's copies."""

MAGIC = b'\x89MCAP0\r\n'


def _u16(v):
    return struct.pack('<H', v)


def _u32(v):
    return struct.pack('<I', v)


def _u64(v):
    return struct.pack('<Q', v)


def _str(text):
    data = text.encode()
    return _u32(len(data)) + data


def _record(op, body):
    return bytes([op]) + _u64(len(body)) + body


def _string_cdr(text):
    data = text.encode() + b'\0'
    return b'\x00\x01\x00\x00' + _u32(len(data)) + data


HEAD = MAGIC + _record(0x01, _str('ros2') + _str('test')) + _record(
    0x03, _u16(1) + _str('std_msgs/msg/String') + _str('ros2msg') + _str('string data'))
"""Magic, header and schema: the channel record starts right after."""


def _mcap(chunk_kind, chunk_data, declared):
    """Return an MCAP file (no summary: rosbags scans it) with one chunk as given."""
    out = HEAD
    out += _record(0x04, _u16(1) + _u16(1) + _str('/gesture_label') + _str('cdr') + _u32(0))
    out += _record(0x06, _u64(1) + _u64(2) + _u64(declared) + _u32(0) + _str(chunk_kind)
                   + _u64(len(chunk_data)) + chunk_data)
    out += _record(0x0F, _u32(0))
    out += _record(0x02, _u64(0) + _u64(0) + _u32(0)) + MAGIC
    return out


def _zstd():
    try:
        from compression import zstd
    except ImportError:
        from backports import zstd
    return zstd


def _zero_frames(total, piece=8 * 2 ** 20):
    """Return concatenated zstd frames inflating to ``total`` zero bytes (small on disk)."""
    frame = _zstd().compress(bytes(piece))
    return frame * (total // piece)


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))


def _bag_cli(*args, timeout=120):
    env = dict(os.environ, OPENBLAS_NUM_THREADS='1', OMP_NUM_THREADS='1')
    env.pop('BANDITLEARN_DEBUG', None)
    try:
        return subprocess.run([sys.executable, '-m', 'banditlearn_ros.tools.bag', *args],
                              capture_output=True, text=True, timeout=timeout,
                              preexec_fn=_limited, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f'banditlearn_bag {" ".join(args)} did not end in {timeout} s')


def _bag_main(capsys, *args):
    """Run ``banditlearn_bag`` in this process (for files that cannot hang or blow up)."""
    from banditlearn_ros.tools import bag as cli
    capsys.readouterr()
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out, err)


def _one_line_refusal(done, *words):
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert 'unexpected' not in lines[0] and 'Traceback' not in done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


# ---------------------------------------------------------------------- MCAP sizes
@pytest.mark.slow
def test_a_small_file_with_a_2_gib_zstd_chunk_is_refused_by_info_and_replay(tmp_path):
    frames = _zero_frames(2 ** 31)
    path = tmp_path / 'bomb.mcap'
    path.write_bytes(_mcap('zstd', frames, 2 ** 31))
    assert path.stat().st_size < 200_000
    for command in (['info', str(path)], ['replay', str(path)]):
        _one_line_refusal(_bag_cli(*command), 'chunk 1', str(2 ** 31), '128 MiB')


def test_a_chunk_inflating_past_what_it_declares_is_refused(tmp_path):
    path = tmp_path / 'liar.mcap'
    path.write_bytes(_mcap('zstd', _zero_frames(64 * 2 ** 20), 1000))
    _one_line_refusal(_bag_cli('info', str(path)), 'chunk 1', 'inflates past the 1000 bytes')


def test_a_record_declaring_more_than_the_file_holds_is_refused(tmp_path):
    data = bytearray(_mcap('', b'', 0))
    # The channel record claims 2 GiB while the file still ends with the MCAP magic.
    assert data[len(HEAD)] == 0x04
    data[len(HEAD) + 1:len(HEAD) + 9] = _u64(2 ** 31)
    path = tmp_path / 'long.mcap'
    path.write_bytes(bytes(data))
    _one_line_refusal(_bag_cli('info', str(path)), 'past the end of the file')


def test_inflate_gives_exactly_the_declared_bytes():
    from banditlearn_ros.bags.limits import inflate
    data = os.urandom(3000)
    packed = _zstd().compress(data[:1000]) + _zstd().compress(data[1000:])
    assert inflate('zstd', packed, 3000) == data
    assert inflate('zstd', packed, 3000, keep=False) == b''
    for size, words in ((2999, 'inflates past'), (3001, 'inflates to 3000 bytes')):
        with pytest.raises(ValueError, match=words):
            inflate('zstd', packed, size)
    with pytest.raises(ValueError, match='declares 134217729 bytes'):
        inflate('', b'', 128 * 2 ** 20 + 1)


def test_a_summary_index_pointing_away_from_its_chunk_is_refused(tmp_path):
    from banditlearn_ros.bags import BagError
    from banditlearn_ros.bags.limits import check_mcap
    from banditlearn_ros.bags.mcap import McapFileWriter
    path = tmp_path / 'x.mcap'
    writer = McapFileWriter(path)
    writer.add_channel(1, '/gesture_label', 'std_msgs/msg/String', 'string data', 'ros2msg',
                       '')
    writer.write(1, 10, _string_cdr('fist'))
    writer.close()
    check_mcap(path)  # as written: passes
    data = bytearray(path.read_bytes())
    index = data.rindex(b'\x08', 0, len(data) - 100)
    while True:  # the chunk index record: opcode 0x08 whose chunk offset is the chunk's
        length = struct.unpack_from('<Q', data, index + 1)[0]
        if 40 < length < 200 and struct.unpack_from('<Q', data, index + 9 + 16)[0] > 0:
            break
        index = data.rindex(b'\x08', 0, index)
    struct.pack_into('<Q', data, index + 9 + 16, 8)  # the header's offset, not the chunk's
    path.write_bytes(bytes(data))
    with pytest.raises(BagError, match='does not hold as described'):
        check_mcap(path)


# ---------------------------------------------------------------------- not regular files
def test_info_on_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / 'session.mcap'
    os.mkfifo(fifo)
    _one_line_refusal(_bag_cli('info', str(fifo), timeout=60), 'FIFO')
    folder = tmp_path / 'bag'
    folder.mkdir()
    os.mkfifo(folder / 'metadata.yaml')
    _one_line_refusal(_bag_cli('info', str(folder), timeout=60), 'metadata.yaml', 'FIFO')


def _sample_bag():
    from banditlearn_ros.bags.recorded_session import sample_session_path
    path = Path(sample_session_path())
    if not path.is_dir():
        pytest.skip('the bundled sample session is not here')
    return path


@pytest.mark.slow
def test_replay_params_from_dev_zero_or_a_fifo_or_a_huge_file_is_refused(tmp_path):
    sample = _sample_bag()
    _one_line_refusal(_bag_cli('replay', str(sample), '--params', '/dev/zero', timeout=60),
                      '/dev/zero', 'device')
    fifo = tmp_path / 'params.yaml'
    os.mkfifo(fifo)
    _one_line_refusal(_bag_cli('replay', str(sample), '--params', str(fifo), timeout=60),
                      'FIFO')
    big = tmp_path / 'big.yaml'
    big.write_bytes(b'#' * (5 * 2 ** 20))
    _one_line_refusal(_bag_cli('replay', str(sample), '--params', str(big)),
                      'more than the 4 MiB')


# ---------------------------------------------------------------------- learner_config
def _config_bag(path, params=None, model=None, changes=(), vectors=3, size=2, edit=None):
    """Write a bag with a learner_config, labelled gestures and no answers."""
    from banditlearn_ros import bags as bagio
    from banditlearn_ros.bags.recorded_qos import qos_dict, recorded_qos
    from banditlearn_ros.bags.growing_bag import Recording
    from banditlearn_ros.learning.live import learner_parameters as lp
    from banditlearn_ros.learning.live import session_config
    store = bagio.builtin_typestore()

    def text(value):
        return store.serialize_cdr(store.types['std_msgs/msg/String'](data=value),
                                   'std_msgs/msg/String')
    rec = Recording(path)
    for topic, msgtype in (('/learner_config', 'std_msgs/msg/String'),
                           ('/gesture_label', 'std_msgs/msg/String'),
                           ('/gesture_features', 'std_msgs/msg/Float32MultiArray')):
        rec.add_topic(topic, msgtype, [qos_dict(recorded_qos())])
    start = dict(lp.defaults(), labels=['a', 'b'])
    start = {k: v for k, v in start.items() if k not in session_config.NOT_DECISIONS}
    start.update(params or {})
    log = session_config.ConfigLog(start, model, 1.0)
    doc = log.document()
    doc['changes'] = list(changes)
    if edit:
        edit(doc)
    rec.write('/learner_config', 10 ** 9, text(json.dumps(doc)))
    rng = np.random.default_rng(0)
    for i in range(vectors):
        dim = store.types['std_msgs/msg/MultiArrayDimension'](label='x', size=size,
                                                              stride=size)
        features = store.types['std_msgs/msg/Float32MultiArray'](
            layout=store.types['std_msgs/msg/MultiArrayLayout'](dim=[dim], data_offset=0),
            data=rng.normal(size=size).astype(np.float32))
        stamp = (2 + i) * 10 ** 9
        rec.write('/gesture_label', stamp, text('ab'[i % 2]))
        rec.write('/gesture_features', stamp + 1,
                  store.serialize_cdr(features, 'std_msgs/msg/Float32MultiArray'))
    rec.close()
    return path


@pytest.mark.parametrize('field, value, words', [
    ('k', 'abc', "start.parameters.k: 'abc' is not a number"),
    ('labels', 5, 'start.parameters.labels: 5 is not a list of strings'),
    ('max_questions', 2.5, 'start.parameters.max_questions: 2.5 is not a whole number'),
    ('unknown_rejection', 'yes', "start.parameters.unknown_rejection: 'yes' is not true or"),
    ('feature_size', 10 ** 9, 'start.parameters.feature_size: 1000000000 is outside'),
    ('eta', float('inf'), 'start.parameters.eta: inf is not a finite number'),
    ('labels', ['a', 'a'], 'start.parameters.labels:'),
])
def test_a_wrong_field_of_learner_config_is_named_in_one_line(tmp_path, capsys, field, value,
                                                              words):
    bag = _config_bag(tmp_path / 'bag', {field: value})
    _one_line_refusal(_bag_main(capsys, 'replay', str(bag)), 'learner_config', words)


@pytest.mark.parametrize('edit, words', [
    (lambda d: d['changes'].append({'kind': 'reset', 'stamp': 1.0, 'features': 'x',
                                    'feedback': 0}), 'changes[1].features'),
    (lambda d: d['changes'].append({'kind': 'parameters', 'stamp': 1.0, 'features': 1,
                                    'feedback': 0, 'changed': {'k': [1]}}),
     'changes[1].changed.k'),
    (lambda d: d['start'].update(model={'path': '/x', 'bytes': 'many', 'sha256': '0' * 64}),
     'start.model.bytes'),
])
def test_a_wrong_change_or_model_entry_is_named_in_one_line(tmp_path, capsys, edit, words):
    bag = _config_bag(tmp_path / 'bag', edit=edit)
    _one_line_refusal(_bag_main(capsys, 'replay', str(bag)), words)


def _model_file(path):
    """Write a real start model (a fresh learner's) and return its bytes."""
    from banditlearn_ros.learning.offline.replay import LearnerConfig
    from banditlearn_ros.learning.storage.persistence import save_model
    config = LearnerConfig.from_parameters({'labels': ['a', 'b']})
    live = config.live()
    live.interaction.predict([0.5, 1.0])
    save_model(live.interaction.learner, str(path))
    return path.read_bytes()


@pytest.mark.slow
def test_replay_reads_no_file_the_bag_names(tmp_path, capsys):
    model = tmp_path / 'elsewhere' / 'start.npz'
    model.parent.mkdir()
    data = _model_file(model)
    entry = {'path': str(model), 'bytes': len(data),
             'sha256': hashlib.sha256(data).hexdigest()}
    bag = _config_bag(tmp_path / 'bag', model=entry)
    line = _one_line_refusal(_bag_main(capsys, 'replay', str(bag)), '--model FILE')
    assert 'reads only files you name' in line
    # Named by the user, the same file is read and replayed.
    done = _bag_main(capsys, 'replay', str(bag), '--model', str(model))
    assert done.returncode == 0, done.stderr
    assert 'replayed 3 gestures' in done.stdout
    # The bag's path is a FIFO: never opened, so the refusal comes at once.
    os.replace(model, tmp_path / 'kept.npz')
    os.mkfifo(model)
    _one_line_refusal(_bag_cli('replay', str(bag), timeout=60), '--model FILE')


@pytest.mark.slow
def test_a_3_gb_start_model_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / 'big.npz'
    with open(big, 'wb') as handle:
        handle.truncate(3 * 10 ** 9)  # sparse: nothing on disk
    entry = {'path': str(big), 'bytes': 3 * 10 ** 9, 'sha256': 'a' * 64}
    bag = _config_bag(tmp_path / 'bag', model=entry)
    _one_line_refusal(_bag_cli('replay', str(bag), '--model', str(big)), 'max_model_bytes')
    # A session that started from no model: the file given is not even opened.
    plain = _config_bag(tmp_path / 'plain', params={})
    done = _bag_cli('replay', str(plain), '--model', str(big))
    assert done.returncode == 0, done.stderr
    assert 'started from no model' in done.stdout


def test_a_replay_that_replays_nothing_fails_and_says_why(tmp_path, capsys):
    bag = _config_bag(tmp_path / 'bag', {'feature_size': 12}, size=10, vectors=30)
    line = _one_line_refusal(_bag_main(capsys, 'replay', str(bag)),
                             'replayed 0 of 30 gestures')
    assert '30 ' in line.split('refused every feature vector')[1]


def test_replay_set_parses_labels_as_the_node_does(tmp_path, capsys):
    bag = _config_bag(tmp_path / 'bag')
    figures = tmp_path / 'figures.json'
    done = _bag_main(capsys, 'replay', str(bag), '--set', 'labels=[yes,no]', '--set', 'k=2',
                     '-o', str(figures))
    assert done.returncode == 0, done.stderr
    parameters = json.loads(figures.read_text())['learner']['parameters']
    assert parameters['labels'] == ['yes', 'no']
    assert parameters['k'] == 2.0 and isinstance(parameters['k'], float)
    _one_line_refusal(_bag_main(capsys, 'replay', str(bag), '--set', 'k=abc'),
                      "--set k=abc: 'abc' is not a number")


def test_set_value_reads_each_declared_type():
    from banditlearn_ros.bags import BagError
    from banditlearn_ros.bags.config_check import set_value
    assert set_value('labels', '[yes, no, 1]') == ['yes', 'no', '1']
    assert set_value('unknown_rejection', 'true') is True
    assert set_value('max_questions', '2') == 2
    assert set_value('centring', 'none') == 'none'
    with pytest.raises(BagError, match='is outside'):
        set_value('max_questions', '5000')
    with pytest.raises(BagError, match='not a whole number'):
        set_value('seed', '1.5')


def test_an_embedded_model_is_decoded_once_checked(tmp_path):
    from banditlearn_ros.bags.recorded_session import start_model
    data = b'model bytes'
    entry = {'path': '/nowhere', 'bytes': len(data), 'sha256': hashlib.sha256(data).hexdigest(),
             'data': base64.b64encode(data).decode()}
    assert start_model(entry) == data


def test_reindex_sets_aside_a_fifo_metadata_file_unread(tmp_path):
    from banditlearn_ros.bags.mcap import McapFileWriter
    folder = tmp_path / 'bag'
    folder.mkdir()
    writer = McapFileWriter(folder / 'bag_0.mcap')
    writer.add_channel(1, '/gesture_label', 'std_msgs/msg/String', 'string data', 'ros2msg',
                       '')
    writer.write(1, 10, _string_cdr('fist'))
    writer.close()
    os.mkfifo(folder / 'metadata.yaml')
    done = _bag_cli('reindex', str(folder), timeout=60)
    assert done.returncode == 0, done.stderr
    assert (folder / 'metadata.yaml.bad').exists()
    assert 'bag_0.mcap' in (folder / 'metadata.yaml').read_text()
