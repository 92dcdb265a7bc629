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

"""The rosbag2 reader against real ros2 bag recordings, and the writer round trip."""

import json
from pathlib import Path
import shutil
import sqlite3
import sys

from banditlearn_ros import bags as bagio
from banditlearn_ros.learning.offline.datasets import load_bundled, load_file
import numpy as np
import pytest
import yaml

pytest.importorskip('rosbags')

SERVICE_TOPICS = ('/test_service1/_service_event', '/test_service2/_service_event')


def _bags(shared_data: Path) -> Path:
    folder = shared_data / 'rosbag2'
    if not folder.is_dir():
        pytest.skip(f'{folder} is absent')
    return folder


def _checked(path):
    bag = bagio.open_bag(path)
    bag.check()
    return bag


def _assert_accounted(bag):
    """Every message the index lists was read, and decoded or reported with a reason."""
    for topic in bag.topics.values():
        assert topic.read == topic.count, topic
        assert topic.decoded + topic.failed == topic.read, topic
        if topic.failed:
            assert topic.problems, topic


def test_sqlite3_wbag_split_files(shared_data):
    with _checked(_bags(shared_data) / 'sqlite3_wbag') as bag:
        assert bag.storage == 'sqlite3'
        assert [p.name for p in bag.files] == [f'wbag_{i}.db3' for i in range(5)]
        assert len(bag.topics) == 8
        assert {t.msgtype for t in bag.topics.values()} == {'std_msgs/msg/String'}
        assert bag.message_count == 6074
        assert sum(t.decoded for t in bag.topics.values()) == 6074
        assert not any(t.problems for t in bag.topics.values())
        assert not bag.notes
        _assert_accounted(bag)
        stamps = [m.stamp_ns for m in bag.messages(['AAA'])]
        assert len(stamps) == bag.topics['AAA'].count
        assert stamps == sorted(stamps)


@pytest.mark.parametrize('name', ['sqlite3_cdr_test', 'mcap_cdr_test'])
def test_cdr_test_bags_read_fine(shared_data, name):
    with _checked(_bags(shared_data) / name) as bag:
        assert {n: (t.msgtype, t.count) for n, t in bag.topics.items()} == {
            '/array_topic': ('test_msgs/msg/Arrays', 4),
            '/test_topic': ('test_msgs/msg/BasicTypes', 3)}
        assert all(t.decoded == t.count and not t.problems for t in bag.topics.values())
        _assert_accounted(bag)
        # Both storages hold the same values (rosbag2's own cdr test fixtures).
        assert [m.msg.int32_value for m in bag.messages(['/test_topic'])] == [123] * 3
        arrays = [m.msg.bool_values.tolist() for m in bag.messages(['/array_topic'])]
        assert arrays == [[True, False, True]] * 4


def test_mcap_convert_b_reads_fine(shared_data):
    with _checked(_bags(shared_data) / 'mcap_convert_b') as bag:
        assert {n: (t.msgtype, t.decoded) for n, t in bag.topics.items()} == {
            'c_strings': ('test_msgs/msg/Strings', 50), 'a_empty': ('test_msgs/msg/Empty', 25)}
        _assert_accounted(bag)
        # Relative topic names resolve as a node would use them.
        assert bag.resolve_topic('/c_strings') == 'c_strings'


@pytest.mark.parametrize('folder,data_file', [('sqlite3_talker', 'talker.db3'),
                                              ('mcap_talker', 'talker.mcap')])
def test_talker_folder_falls_back_to_the_data_file(shared_data, folder, data_file):
    path = _bags(shared_data) / folder
    with _checked(path) as bag:
        _assert_accounted(bag)
        # The folder's metadata.yaml disagrees with the data file: the fallback is reported.
        assert len(bag.notes) == 1
        note = bag.notes[0]
        assert 'metadata.yaml' in note and data_file in note and 'directly' in note
        assert '/topic' in note and 'QoS' in note
        words = [m.msg.data for m in bag.messages(['topic'])]
        assert words == [f'Hello, world! {i}' for i in range(10)]
        assert bag.topics['/rosout'].decoded == 10
        assert bag.topics['/parameter_events'].count == 0
    with _checked(path / data_file) as direct:
        assert not direct.notes
        assert sum(t.decoded for t in direct.topics.values()) == 20


def test_sqlite3_talker_placeholder_definition_is_reported(shared_data):
    with _checked(_bags(shared_data) / 'sqlite3_talker' / 'talker.db3') as bag:
        rosout = bag.topics['/rosout']
        assert rosout.decoded == 10 and not rosout.problems
        assert any('placeholder' in n and 'rcl_interfaces/msg/Log' in n for n in rosout.notes)
        logs = [m.msg for m in bag.messages(['/rosout'])]
        assert logs[0].msg == "Publishing: 'Hello, world! 0'"
        assert logs[0].name == 'minimal_publisher'


@pytest.mark.parametrize('storage', ['sqlite3', 'mcap'])
@pytest.mark.parametrize('open_file', [False, True])
def test_service_event_bags_read_topics_and_report_events(shared_data, storage, open_file):
    path = _bags(shared_data) / f'{storage}_bag_with_topics_and_service_events'
    if open_file:
        path = path / ('bag_with_topics_and_service_events.'
                       + ('mcap' if storage == 'mcap' else 'db3'))
    with _checked(path) as bag:
        for name in ('/test_topic1', '/test_topic2'):
            assert bag.topics[name].decoded == 1 and not bag.topics[name].problems
        for name in SERVICE_TOPICS:
            topic = bag.topics[name]
            assert topic.count == 4 and topic.decoded == 0 and topic.failed == 4
            assert len(topic.problems) == 1
            problem = topic.problems[0]
            assert 'service-event type test_msgs/srv/BasicTypes_Event' in problem
            assert 'not in the type store' in problem
            if storage == 'mcap':
                assert 'cannot be parsed' in problem
            else:
                assert 'no definition' in problem
        _assert_accounted(bag)
        texts = [m.msg.string_value for m in bag.messages(['/test_topic1', '/test_topic2'])]
        assert len(texts) == 2


def test_every_shared_bag_opens_and_accounts_for_every_message(shared_data):
    folders = sorted(p for p in _bags(shared_data).iterdir() if p.is_dir())
    assert len(folders) == 8
    for folder in folders:
        for path in [folder] + sorted(p for p in folder.iterdir() if p.suffix in ('.mcap',
                                                                                  '.db3')):
            with _checked(path) as bag:
                assert bag.message_count > 0, path
                _assert_accounted(bag)
                # Zero decoded messages is never silent.
                for topic in bag.topics.values():
                    if topic.count and not topic.decoded:
                        assert topic.problems, (path, topic.name)


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize('content,expect', [(b'', 'empty'), (b'not an mcap file at all',
                                                             'magic')])
def test_broken_mcap_is_one_clear_error(tmp_path, content, expect):
    path = tmp_path / 'broken.mcap'
    path.write_bytes(content)
    with pytest.raises(bagio.BagError) as info:
        bagio.open_bag(path)
    text = str(info.value)
    assert str(path) in text and expect in text.lower() and '\n' not in text


def test_truncated_mcap_says_what_was_recovered_and_lost(tmp_path):
    bag = tmp_path / 'bag'
    X, y, names = load_bundled('iris')
    bagio.write_dataset_bag(bag, X[:20], y[:20], names, start_ns=10 ** 9)
    data = next(bag.glob('*.mcap'))
    whole = data.read_bytes()
    cut = tmp_path / 'cut.mcap'
    cut.write_bytes(whole[:len(whole) // 2])
    with bagio.open_bag(cut) as opened:  # the half holds the whole chunk: nothing lost
        assert opened.message_count == 40
        assert 'recovered 40 messages from 1 complete chunk(s)' in ' '.join(opened.notes)
    # rosbags writes these 40 messages as one chunk: cut inside it, none can be read.
    start = 8
    while whole[start] != 0x06:  # walk the records (opcode, length) to the chunk
        start += 9 + int.from_bytes(whole[start + 1:start + 9], 'little')
    cut.write_bytes(whole[:start + 200])
    with bagio.open_bag(cut) as opened:
        opened.check()
        assert opened.message_count == 0
        note = ' '.join(opened.notes)
    assert 'cut.mcap was cut off (no summary section): recovered 0 messages' in note
    assert 'lost: 1 unfinished or damaged chunk(s)' in note


def test_path_errors(tmp_path):
    with pytest.raises(bagio.BagError, match='no such file'):
        bagio.open_bag(tmp_path / 'missing')
    with pytest.raises(bagio.BagError, match='not a rosbag2 folder'):
        bagio.open_bag(tmp_path)
    other = tmp_path / 'data.txt'
    other.write_text('x')
    with pytest.raises(bagio.BagError, match='not a rosbag2 recording'):
        bagio.open_bag(other)
    broken = tmp_path / 'meta'
    broken.mkdir()
    (broken / 'metadata.yaml').write_text('just: [text')
    with pytest.raises(bagio.BagError, match='metadata'):
        bagio.open_bag(broken)


def test_folder_without_metadata_reads_its_data_file(tmp_path):
    X, y, names = load_bundled('iris')
    bagio.write_dataset_bag(tmp_path / 'bag', X[:5], y[:5], names, storage='sqlite3',
                            start_ns=10 ** 9)
    loose = tmp_path / 'loose'
    loose.mkdir()
    shutil.copy(next((tmp_path / 'bag').glob('*.db3')), loose)
    with _checked(loose) as bag:
        assert any('no metadata.yaml' in n for n in bag.notes)
        assert bag.topics['/gesture_features'].decoded == 5


def test_unknown_topic_lists_the_topics(tmp_path):
    X, y, names = load_bundled('iris')
    bagio.write_dataset_bag(tmp_path / 'bag', X[:3], y[:3], names, start_ns=10 ** 9)
    with bagio.open_bag(tmp_path / 'bag') as bag:
        with pytest.raises(bagio.BagError, match='/gesture_features'):
            list(bag.messages(['camera/image_raw']))


# ---------------------------------------------------------------------- writing
@pytest.mark.parametrize('storage', ['mcap', 'sqlite3'])
def test_round_trip_write_read_export(tmp_path, storage):
    X, y, names = load_bundled('digits')
    X, y = X[:300], y[:300]
    path = tmp_path / 'digits_bag'
    info = bagio.write_dataset_bag(path, X, y, names, storage=storage, rate_hz=4.0,
                                   start_ns=1_700_000_000 * 10 ** 9, feature_set='digits')
    assert info['counts'] == {'/gesture_label': 300, '/gesture_features': 300}
    assert not list(tmp_path.glob('.digits_bag.*')), 'temporary folder left behind'

    meta = yaml.safe_load((path / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    assert meta['storage_identifier'] == storage
    assert meta['version'] == bagio.METADATA_VERSION
    topics = {t['topic_metadata']['name']: t for t in meta['topics_with_message_count']}
    assert topics['/gesture_features']['topic_metadata']['type'] == bagio.FEATURES_TYPE
    assert topics['/gesture_label']['message_count'] == 300
    qos = yaml.safe_load(topics['/gesture_features']['topic_metadata']['offered_qos_profiles'])
    assert qos[0]['reliability'] == 1 and qos[0]['durability'] == 2  # reliable, volatile
    assert topics['/gesture_label']['topic_metadata']['type_description_hash'].startswith(
        'RIHS01_')

    with _checked(path) as bag:
        assert not bag.notes
        assert bag.storage == storage
        assert bag.topics['/gesture_features'].decoded == 300
        assert bag.topics['/gesture_features'].qos[0]['reliability'] == 'RELIABLE'
        assert abs(bag.duration_s - (299 / 4.0 + 0.025)) < 1e-6
        assert abs(info['duration_s'] - bag.duration_s) < 1e-9
        first = next(bag.messages(['gesture_features'])).msg
        assert first.layout.dim[0].label == 'digits'
        assert first.layout.dim[0].size == 64 and first.layout.dim[0].stride == 64
        result = bagio.export_dataset(bag)
    assert result.skipped == {}
    assert result.labels == names
    np.testing.assert_array_equal(result.y, y)
    np.testing.assert_array_equal(result.X, X.astype(np.float32).astype(np.float64))

    npz = tmp_path / 'out.npz'
    bagio.save_npz(result, npz)
    X2, y2, names2 = load_file(str(npz))
    assert names2 == names
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(X2, X.astype(np.float32))


def test_written_type_hashes_are_the_installed_ros2_ones(tmp_path):
    """The RIHS01 hashes in metadata.yaml equal those the installed std_msgs declares."""
    X, y, names = load_bundled('iris')
    bagio.write_dataset_bag(tmp_path / 'bag', X[:2], y[:2], names, start_ns=10 ** 9,
                            feedback=[True, False])
    meta = yaml.safe_load((tmp_path / 'bag' / 'metadata.yaml').read_text())
    share = Path(sys.prefix) / 'share' / 'std_msgs' / 'msg'
    try:
        from ament_index_python.packages import get_package_share_directory
        share = Path(get_package_share_directory('std_msgs')) / 'msg'
    except (ImportError, LookupError, OSError):
        pass  # the pip wheels install the interface files under sys.prefix/share
    if not (share / 'String.json').is_file():
        pytest.skip('the installed std_msgs has no type description files')
    checked = 0
    for entry in meta['rosbag2_bagfile_information']['topics_with_message_count']:
        topic = entry['topic_metadata']
        name = topic['type'].rsplit('/', 1)[1]
        described = json.loads((share / f'{name}.json').read_text())
        hashes = {h['type_name']: h['hash_string'] for h in described['type_hashes']}
        assert topic['type_description_hash'] == hashes[topic['type']]
        checked += 1
    assert checked == 3


def test_written_mcap_reads_with_the_mcap_ros2_decoder(tmp_path):
    """An independent reader (mcap + mcap-ros2-support) sees the same ROS 2 messages."""
    reader_mod = pytest.importorskip('mcap_ros2.reader')
    X, y, names = load_bundled('iris')
    bagio.write_dataset_bag(tmp_path / 'bag', X[:10], y[:10], names, start_ns=10 ** 9)
    got = {'/gesture_label': [], '/gesture_features': []}
    for item in reader_mod.read_ros2_messages(str(next((tmp_path / 'bag').glob('*.mcap')))):
        assert item.schema.name in ('std_msgs/msg/String', 'std_msgs/msg/Float32MultiArray')
        got[item.channel.topic].append(item.ros_msg)
    assert [m.data for m in got['/gesture_label']] == [names[i] for i in y[:10]]
    np.testing.assert_allclose([list(m.data) for m in got['/gesture_features']],
                               X[:10].astype(np.float32))


def test_written_sqlite3_has_the_rosbag2_schema_and_rclpy_readable_data(tmp_path):
    """ros2 bag's sqlite3 plugin needs these tables; rclpy decodes the stored CDR."""
    serialization = pytest.importorskip('rclpy.serialization')
    from std_msgs.msg import Float32MultiArray, String
    X, y, names = load_bundled('iris')
    bagio.write_dataset_bag(tmp_path / 'bag', X[:6], y[:6], names, storage='sqlite3',
                            start_ns=10 ** 9)
    db = sqlite3.connect(next((tmp_path / 'bag').glob('*.db3')))
    try:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {'topics', 'messages', 'message_definitions'} <= tables
        topics = dict(db.execute('SELECT id, name FROM topics'))
        rows = db.execute('SELECT topic_id, timestamp, data FROM messages ORDER BY timestamp')
        labels, features = [], []
        for topic_id, _, data in rows:
            if topics[topic_id] == '/gesture_label':
                labels.append(serialization.deserialize_message(data, String).data)
            else:
                features.append(serialization.deserialize_message(data, Float32MultiArray))
    finally:
        db.close()
    assert labels == [names[i] for i in y[:6]]
    np.testing.assert_allclose([list(m.data) for m in features], X[:6].astype(np.float32))
    assert features[0].layout.dim[0].size == 4


def test_write_refuses_an_existing_folder_and_bad_data(tmp_path):
    X, y, names = load_bundled('iris')
    (tmp_path / 'there').mkdir()
    with pytest.raises(bagio.BagError, match='exists already'):
        bagio.write_dataset_bag(tmp_path / 'there', X, y, names)
    bad = X[:4].copy()
    bad[1, 2] = np.nan
    with pytest.raises(bagio.BagError, match='NaN'):
        bagio.write_dataset_bag(tmp_path / 'nan', bad, y[:4], names)
    with pytest.raises(bagio.BagError, match='storage'):
        bagio.write_dataset_bag(tmp_path / 'x', X, y, names, storage='rosbag1')
    with pytest.raises(bagio.BagError, match='rate'):
        bagio.write_dataset_bag(tmp_path / 'y', X, y, names, rate_hz=0.0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ['there']


def test_export_pairs_features_with_the_latest_label_before_them(tmp_path):
    path = tmp_path / 'recorded'
    with bagio.BagWriter(path, 'mcap') as writer:
        writer.add_topic('/gesture_features', bagio.FEATURES_TYPE)
        writer.add_topic('/gesture_label', bagio.LABEL_TYPE)
        writer.add_topic('/gesture_feedback', bagio.FEEDBACK_TYPE)

        def features(values):
            return bagio.features_message(writer, np.array(values), 'contour')

        def label(text):
            return writer.message(bagio.LABEL_TYPE, data=text)
        writer.write('/gesture_features', 100, features([9, 9]))   # no label yet: skipped
        writer.write('/gesture_label', 200, label('fist'))
        writer.write('/gesture_features', 300, features([1, 2]))   # fist
        writer.write('/gesture_feedback', 350, writer.message(bagio.FEEDBACK_TYPE, data=True))
        writer.write('/gesture_features', 400, features([3, 4]))   # fist again
        writer.write('/gesture_label', 500, label('open'))
        writer.write('/gesture_features', 500, features([5, 6]))   # same stamp: open
        writer.write('/gesture_features', 600, features([1, 2, 3]))  # wrong size: skipped
        writer.write('/gesture_features', 700, features([np.nan, 1]))  # NaN: skipped
    with bagio.open_bag(path) as bag:
        result = bagio.export_dataset(bag, feedback_topic='gesture_feedback')
    np.testing.assert_array_equal(result.X, [[1, 2], [3, 4], [5, 6]])
    assert [result.labels[i] for i in result.y] == ['fist', 'fist', 'open']
    assert result.labels == ['fist', 'open']
    assert result.feature_set == 'contour'
    np.testing.assert_array_equal(result.feedback, [1, -1, -1])
    assert result.skipped == {'no label before it': 1, '3 values where the first message had 2': 1,
                              'NaN or infinity in the features': 1}


def test_export_without_pairs_says_why(shared_data, tmp_path):
    with bagio.open_bag(_bags(shared_data) / 'sqlite3_talker') as bag:
        with pytest.raises(bagio.BagError, match='no topic'):
            bagio.export_dataset(bag)
        with pytest.raises(bagio.BagError, match='not std_msgs/msg/Float32MultiArray'):
            bagio.export_dataset(bag, features_topic='topic', label_topic='topic')


def test_export_uses_stored_label_order_only_when_it_covers_the_labels():
    from banditlearn_ros.bags.export import _label_order
    assert _label_order(['b', 'a'], json.dumps(['b', 'a', 'c'])) == ['b', 'a', 'c']
    assert _label_order(['b', 'z'], json.dumps(['b', 'a'])) == ['b', 'z']
    assert _label_order(['10', '9', 'x'], None) == ['9', '10', 'x']
