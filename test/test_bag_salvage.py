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

"""Recordings cut off or damaged: what the reader recovers, what it says was lost, reindex."""

import json
import os
from pathlib import Path

from banditlearn_ros import bags as bagio
from banditlearn_ros.bags.growing_bag import Recording
from banditlearn_ros.bags.mcap import McapFileWriter, scan_mcap
from banditlearn_ros.bags.recorded_qos import qos_dict, recorded_qos
from banditlearn_ros.bags.reindex import reindex
from banditlearn_ros.tools import bag as cli
import pytest

pytest.importorskip('rosbags')

STRING = 'std_msgs/msg/String'
QOS = [qos_dict(recorded_qos())]


def _cdr(text: str) -> bytes:
    store = bagio.builtin_typestore()
    return store.serialize_cdr(store.types[STRING](data=text), STRING)


def _recording(path: Path, n: int = 40, chunk_bytes: int = 200, **kwargs) -> Recording:
    rec = Recording(path, chunk_bytes=chunk_bytes, **kwargs)
    rec.add_topic('/chat', STRING, QOS)
    rec.add_topic('/other', STRING, [qos_dict(recorded_qos(reliable=False))])
    for i in range(n):
        rec.write('/chat' if i % 3 else '/other', 10 ** 9 + i * 10 ** 7, _cdr(f'message {i}'))
    return rec


def _texts(path) -> list:
    with bagio.open_bag(path) as bag:
        return [m.msg.data for m in bag.messages()]


def _chunk_ends(path: Path) -> list:
    """Return the file offsets where each chunk record (with its message indexes) ends."""
    data = path.read_bytes()
    pos, ends = 8, []
    while pos < len(data):
        op = data[pos]
        length = int.from_bytes(data[pos + 1:pos + 9], 'little')
        pos += 9 + length
        if op == 0x07 and ends and ends[-1][0] == 'chunk':
            ends[-1] = ('chunk', pos)
        elif op == 0x06:
            ends.append(('chunk', pos))
        elif op == 0x0F:
            break
    return [end for _, end in ends]


def test_whole_recording_reads_back_with_metadata_and_qos(tmp_path):
    rec = _recording(tmp_path / 'whole')
    rec.close()
    assert _texts(tmp_path / 'whole') == [f'message {i}' for i in range(40)]
    from rosbags.rosbag2 import Reader
    with Reader(tmp_path / 'whole') as reader:  # another reader accepts file and metadata
        assert reader.message_count == 40
        qos = {c.topic: c.ext.offered_qos_profiles[0].reliability.name
               for c in reader.connections}
    assert qos == {'/chat': 'RELIABLE', '/other': 'BEST_EFFORT'}
    with bagio.open_bag(tmp_path / 'whole') as bag:
        assert not bag.notes
        assert {t.name: t.count for t in bag.topics.values()} == {'/chat': 26, '/other': 14}


def test_split_by_size_and_by_duration(tmp_path):
    rec = _recording(tmp_path / 'by_size', max_bytes=1200)
    rec.close()
    assert len(rec.files) > 2
    assert _texts(tmp_path / 'by_size') == [f'message {i}' for i in range(40)]
    rec = _recording(tmp_path / 'by_time', max_duration_s=0.1)
    rec.close()
    assert rec.files == [f'by_time_{i}.mcap' for i in range(4)]
    meta = (tmp_path / 'by_time' / 'metadata.yaml').read_text()
    assert all(name in meta for name in rec.files)
    assert _texts(tmp_path / 'by_time') == [f'message {i}' for i in range(40)]


def test_sqlite3_recording(tmp_path):
    rec = _recording(tmp_path / 'db', storage='sqlite3', max_bytes=1500)
    rec.close()
    assert all(name.endswith('.db3') for name in rec.files) and len(rec.files) > 1
    assert _texts(tmp_path / 'db') == [f'message {i}' for i in range(40)]


@pytest.mark.parametrize('cut', ['mid_chunk', 'after_chunk', 'in_header'])
def test_cut_off_mcap_gives_every_complete_chunk(tmp_path, cut):
    rec = _recording(tmp_path / 'whole')
    rec.close()
    whole = tmp_path / 'whole' / 'whole_0.mcap'
    ends = _chunk_ends(whole)
    assert len(ends) > 4
    # Messages inside the first three chunks, counted by reading only those bytes.
    keep = {'mid_chunk': ends[2] + 30, 'after_chunk': ends[2], 'in_header': ends[2] + 4}[cut]
    folder = tmp_path / 'killed'
    folder.mkdir()
    (folder / 'killed_0.mcap').write_bytes(whole.read_bytes()[:keep])
    in_three = len(scan_mcap(whole).messages) and sum(
        1 for _ in _first_chunks_messages(whole, ends[2]))
    with bagio.open_bag(folder) as bag:
        bag.check()
        assert bag.message_count == in_three
        notes = ' '.join(bag.notes)
    assert 'no metadata.yaml' in notes
    assert f'recovered {in_three} messages from 3 complete chunk(s)' in notes
    if cut == 'mid_chunk':
        assert 'lost: 1 unfinished or damaged chunk(s)' in notes
    assert _texts(folder) == [f'message {i}' for i in range(in_three)]

    result = reindex(folder)
    assert result['messages'] == in_three and result['repaired'] == ['killed_0.mcap']
    assert (folder / 'killed_0.mcap.truncated').is_file()
    from rosbags.rosbag2 import Reader
    with Reader(folder) as reader:
        assert reader.message_count == in_three
    with bagio.open_bag(folder) as bag:
        assert not bag.notes  # whole again: read through its new metadata.yaml
    assert _texts(folder) == [f'message {i}' for i in range(in_three)]


def _first_chunks_messages(path: Path, end: int):
    data = path.read_bytes()[:end]
    part = path.with_name('part.mcap')
    part.write_bytes(data)
    try:
        yield from scan_mcap(part).messages
    finally:
        part.unlink()


def test_writer_flush_puts_the_open_chunk_on_disk(tmp_path):
    writer = McapFileWriter(tmp_path / 'open.mcap', chunk_bytes=10 ** 9)
    writer.add_channel(1, '/chat', STRING, 'string data', 'ros2msg', '')
    for i in range(5):
        writer.write(1, i + 1, _cdr(f'message {i}'))
    assert len(scan_mcap(tmp_path / 'open.mcap').messages) == 0
    writer.flush()
    scan = scan_mcap(tmp_path / 'open.mcap')  # the file is still open: no summary yet
    assert len(scan.messages) == 5 and not scan.complete
    writer.abandon()


@pytest.mark.parametrize('damage', ['garbage', 'missing_key', 'lists_other_file'])
def test_corrupt_metadata_does_not_block_a_good_data_file(tmp_path, damage):
    rec = _recording(tmp_path / 'bag')
    rec.close()
    meta = tmp_path / 'bag' / 'metadata.yaml'
    if damage == 'garbage':
        meta.write_bytes(b'\x00\x01 not: [yaml')
    elif damage == 'missing_key':
        meta.write_text('rosbag2_bagfile_information: {version: 8}\n')
    else:
        meta.write_text(meta.read_text().replace('bag_0.mcap', 'gone_0.mcap'))
    assert _texts(tmp_path / 'bag') == [f'message {i}' for i in range(40)]
    with bagio.open_bag(tmp_path / 'bag') as bag:
        assert 'banditlearn_bag reindex' in bag.notes[0]
    result = reindex(tmp_path / 'bag')
    assert result['messages'] == 40
    assert (tmp_path / 'bag' / 'metadata.yaml.bad').is_file()
    with bagio.open_bag(tmp_path / 'bag') as bag:
        assert not bag.notes
        assert bag.message_count == 40


def test_reindex_cli_and_info_on_a_killed_recording(tmp_path, capsys):
    rec = _recording(tmp_path / 'killed', n=60)
    rec.flush()
    rec._writer.abandon()  # what SIGKILL leaves: flushed chunks, no summary, no metadata
    assert not (tmp_path / 'killed' / 'metadata.yaml').exists()
    code = cli.main(['info', str(tmp_path / 'killed'), '--json'])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary['messages'] == 60
    assert any('cut off (no summary section): recovered 60 messages' in n
               for n in summary['notes'])
    code = cli.main(['reindex', str(tmp_path / 'killed')])
    out = capsys.readouterr().out
    assert code == 0 and 'metadata.yaml: 60 messages in 1 file(s)' in out
    assert 'rewritten whole' in out


def test_reindex_refuses_what_it_cannot_index(tmp_path, capsys):
    (tmp_path / 'empty').mkdir()
    assert cli.main(['reindex', str(tmp_path / 'empty')]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith('banditlearn_bag reindex: error:') and 'no .mcap or .db3' in err
    (tmp_path / 'junk').mkdir()
    (tmp_path / 'junk' / 'junk_0.mcap').write_bytes(b'not an mcap file at all')
    assert cli.main(['info', str(tmp_path / 'junk')]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and 'not an MCAP file' in err[0]
    assert os.listdir(tmp_path / 'junk') == ['junk_0.mcap']
