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

"""Deterministic replay, the bundled sample session, and the small CLI promises of the replay."""

import json
import math
from pathlib import Path
import subprocess
import sys

from banditlearn_ros import bags as bagio
from banditlearn_ros.learning.offline.replay import Event, FEATURES, FEEDBACK, LABEL, LearnerConfig
from banditlearn_ros.learning.offline.replay import replay
from banditlearn_ros.tools import bag as cli
import numpy as np
import pytest

pytest.importorskip('rosbags')

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / 'bags' / 'sample_session'
FIGURES = ROOT / 'bags' / 'sample_session.figures.json'
TOLERANCE = 1e-9  # rates are stored rounded to 12 decimals


def _same(got, want, where=''):
    """Compare figures: whole numbers and names exactly, rates within TOLERANCE."""
    if isinstance(want, dict):
        assert set(got) == set(want), where
        for key in want:
            _same(got[key], want[key], f'{where}.{key}')
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for i, (a, b) in enumerate(zip(got, want)):
            _same(a, b, f'{where}[{i}]')
    elif isinstance(want, float):
        assert math.isclose(got, want, abs_tol=TOLERANCE), f'{where}: {got} != {want}'
    else:
        assert got == want, f'{where}: {got!r} != {want!r}'


def test_sample_session_is_small_and_whole():
    size = sum(p.stat().st_size for p in SAMPLE.iterdir())
    assert size < 5 * 2 ** 20
    with bagio.open_bag(SAMPLE) as bag:
        bag.check()
        assert not bag.notes
        counts = {t.name: (t.count, t.decoded) for t in bag.topics.values()}
    assert counts == {**{name: (100, 100) for name in (
        '/image_raw', '/gesture_label', '/gesture_features', '/gesture_prediction',
        '/gesture_prediction_details', '/gesture_feedback')}, '/learner_config': (1, 1)}


def test_sample_session_replays_to_the_figures_stored_beside_it():
    from banditlearn_ros.bags.sample import replay_figures
    stored = json.loads(FIGURES.read_text())
    _same(replay_figures(str(SAMPLE)), stored['recorded'], 'recorded')
    teacher = dict(stored['teacher'])
    noise, seed = teacher.pop('noise'), teacher.pop('seed')
    _same(replay_figures(str(SAMPLE), noise, seed), teacher, 'teacher')
    # The replay asks what the recorded learner asked, question for question.
    assert stored['recorded']['figures']['questions_as_recorded'] == 100


def test_sample_images_are_small_and_features_match_their_layout():
    with bagio.open_bag(SAMPLE) as bag:
        images = [m.msg for m in bag.messages(['/image_raw'])]
        features = [m.msg for m in bag.messages(['/gesture_features'])]
    assert {(m.width, m.height, m.encoding) for m in images} == {(80, 60, 'bgr8')}
    assert all(m.layout.dim[0].size == len(m.data) == 124 for m in features)


def test_replay_applies_the_learner_nodes_matching_rule():
    config = LearnerConfig.from_parameters({'labels': ['a', 'b'], 'feedback_timeout': 1.0,
                                            'max_questions': 1})
    events = [Event(0.05, FEEDBACK, True),  # nothing asked yet: no_prediction
              Event(0.09, LABEL, 'a'), Event(0.1, FEATURES, [1.0, 0.0]),
              Event(0.5, FEEDBACK, True),  # in time: matched
              Event(1.1, FEATURES, [1.0, 1.0]),
              Event(2.5, FEEDBACK, False),  # 1.4 s after its question: late
              Event(3.1, FEATURES, [0.0, 1.0]),
              Event(3.3, FEEDBACK, False),  # matched
              Event(3.4, FEEDBACK, True)]  # the latest question was answered: duplicate
    result = replay(events, config)
    figures = result.figures
    assert figures['interactions'] == 3 and len(result.questions) == 3
    assert figures['feedback_received'] == 5
    assert figures['feedback_matched'] == 2
    assert (figures['feedback_dropped_no_prediction'], figures['feedback_dropped_late'],
            figures['feedback_dropped_duplicate']) == (1, 1, 1)
    assert figures['unanswered_expired'] == 1
    assert figures['true_mistakes'] == int(result.questions[0] != 'a')


def test_replay_with_the_simulated_teacher_learns_the_true_labels():
    from banditlearn_ros.learning import TeacherModel
    from banditlearn_ros.learning.protocol.simulated_teacher import SimulatedTeacher
    rng = np.random.default_rng(3)
    events = []
    for i in range(200):
        label = int(rng.integers(2))
        events.append(Event(float(i), LABEL, 'ab'[label]))
        events.append(Event(i + 0.1, FEATURES, [1.0, 2.0 * label - 1 + rng.normal(0, 0.1)]))
    config = LearnerConfig.from_parameters({'labels': ['a', 'b'], 'max_questions': 1})
    first = replay(events, config, SimulatedTeacher(TeacherModel(), seed=1), every=50)
    again = replay(events, config, SimulatedTeacher(TeacherModel(), seed=1), every=50)
    assert first.questions == again.questions and first.figures == again.figures
    assert [p['interactions'] for p in first.curve] == [50, 100, 150, 200]
    assert first.figures['feedback_matched'] == 200
    # A separable stream: the last 100 first guesses are nearly all right.
    truth = [e.value for e in events if e.kind == LABEL]
    wrong_late = sum(q != t for q, t in zip(first.questions[100:], truth[100:]))
    assert wrong_late <= 5


def _run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_replay_cli_writes_the_figures(tmp_path, capsys):
    out_file = tmp_path / 'figures.json'
    code, out, err = _run(capsys, 'replay', SAMPLE, '--every', '50', '-o', out_file)
    assert code == 0, err
    document = json.loads(out_file.read_text())
    stored = json.loads(FIGURES.read_text())['recorded']
    _same(document['figures'], stored['figures'])
    assert 'after    50:' in out and 'true_mistake_rate' in out
    code, out, err = _run(capsys, 'replay', SAMPLE, '--set', 'algorithm=nonsense')
    assert code == 1 and len(err.strip().splitlines()) == 1 and 'nonsense' in err


def test_info_quick_says_what_it_did_not_decode(capsys):
    code, out, _ = _run(capsys, 'info', SAMPLE, '--quick')
    assert code == 0
    assert '(601 read; not decoded' in out and '0 decoded' not in out
    code, out, _ = _run(capsys, 'info', SAMPLE, '--quick', '--json')
    summary = json.loads(out)
    assert summary['decoded'] is False
    assert {t['decoded'] for t in summary['topics']} == {None}


def test_play_refuses_a_negative_delay_with_one_line(capsys):
    code, _, err = _run(capsys, 'play', SAMPLE, '-d', '-5')
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1
    assert lines[0] == ('banditlearn_bag play: error: --delay -5: must be 0 or a positive '
                        'number of seconds')


def test_help_shows_defaults(capsys):
    for command, default in (('record', '(default: mcap)'), ('play', '(default: 1.0)'),
                             ('replay', '(default: recorded)'), ('write', '(default: 2.0)')):
        with pytest.raises(SystemExit):
            cli.main([command, '--help'])
        assert default in capsys.readouterr().out, command


def test_info_into_a_closed_pipe_ends_quietly(tmp_path):
    from banditlearn_ros.bags.growing_bag import Recording
    from banditlearn_ros.bags.recorded_qos import qos_dict, recorded_qos
    # Enough topics that the report overflows the pipe's buffer after the reader has gone.
    rec = Recording(tmp_path / 'many')
    store = bagio.builtin_typestore()
    data = store.serialize_cdr(store.types['std_msgs/msg/Bool'](data=True), 'std_msgs/msg/Bool')
    for i in range(400):
        rec.add_topic(f'/topic_{i}', 'std_msgs/msg/Bool', [qos_dict(recorded_qos())])
        rec.write(f'/topic_{i}', 10 ** 9 + i, data)
    rec.close()
    command = [sys.executable, '-m', 'banditlearn_ros.tools.bag', 'info',
               str(tmp_path / 'many'), '--json']
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        proc.stdout.readline()
        proc.stdout.close()  # what `| head -1` does
        err = proc.stderr.read().decode()
        proc.wait(timeout=60)
    assert err == ''
    assert proc.returncode == 141


def test_write_limit_takes_a_shuffled_class_balanced_sample(tmp_path, capsys):
    code, _, err = _run(capsys, 'write', 'digits', '-o', tmp_path / 'b', '--limit', '35',
                        '--seed', '4')
    assert code == 0, err
    with bagio.open_bag(tmp_path / 'b') as bag:
        labels = [m.msg.data for m in bag.messages(['gesture_label'])]
    counts = {name: labels.count(name) for name in set(labels)}
    assert len(labels) == 35 and len(counts) == 10
    assert set(counts.values()) <= {3, 4}
    assert labels != sorted(labels)


def test_replay_follows_the_ask_again_protocol_of_a_session(tmp_path):
    """A session asking up to three questions per gesture replays question for question."""
    from banditlearn_ros.bags.sample import make_sample, replay_figures
    make_sample(str(tmp_path / 'ask'), gestures=25, seed=2, noise=0.0, max_questions=3,
                say=lambda line: None)
    with bagio.open_bag(tmp_path / 'ask') as bag:
        asked = [json.loads(m.msg.data) for m in bag.messages(['gesture_prediction_details'])]
    assert max(d['question'] for d in asked) > 1  # it did ask again
    recorded = replay_figures(str(tmp_path / 'ask'))
    figures = recorded['figures']
    assert figures['recorded_questions'] == len(asked) == figures['questions_asked']
    assert figures['questions_as_recorded'] == len(asked)
    assert figures['questions_per_interaction'] == pytest.approx(len(asked) / 25, abs=1e-9)
    assert recorded['questions'] == [d['label'] for d in asked]
    # The simulated teacher the session had (no noise) answers every question alike.
    teacher = replay_figures(str(tmp_path / 'ask'), 0.0, 2)
    assert teacher['questions'] == recorded['questions']
    assert teacher['figures']['updates'] == figures['updates']


def _copy_with_stamps(source, target, move):
    """Copy a bag, each message stamped ``move(topic, index_in_topic, stamp_ns)``."""
    from banditlearn_ros.bags.growing_bag import Recording
    recording = Recording(target, storage='mcap')
    seen = {}
    with bagio.open_bag(source) as bag:
        for name, info in bag.topics.items():
            recording.add_topic(name, info.msgtype, info.qos)
        recording.custom_data.update(bag.custom_data)
        items = [(move(m.topic, seen.setdefault(m.topic, [0]), m.stamp_ns), m.topic, m.raw)
                 for m in bag.messages(decode=False)]
    for stamp, topic, raw in sorted(items, key=lambda item: item[0]):
        recording.write(topic, stamp, raw)
    recording.close()


def test_replay_takes_the_learners_order_when_answers_were_recorded_before_their_question(
        tmp_path):
    """
    A loaded recorder stores an answer before the gesture it answers: replay still agrees.

    Every answer to a first question is stamped 1 ms before its gesture's features, as a
    recorder that received the two topics out of their published order stores it; the
    details' input counts put them back (a bag without them replays in recorded order).
    """
    from banditlearn_ros.bags.sample import make_sample, replay_figures
    make_sample(str(tmp_path / 'ask'), gestures=30, seed=4, noise=0.1, max_questions=3,
                say=lambda line: None)
    with bagio.open_bag(tmp_path / 'ask') as bag:
        feature_ns = [m.stamp_ns for m in bag.messages(['gesture_features'])]
        asked = [json.loads(m.msg.data) for m in bag.messages(['gesture_prediction_details'])]
    assert all('inputs' in d for d in asked) and max(d['question'] for d in asked) > 1
    # The answer to gesture g's first question: the first after its first question.
    first_answers = {d['inputs']['feedback'] for d in asked if d['question'] == 1}

    def early(topic, index, stamp):
        index[0] += 1
        if topic == '/gesture_feedback' and index[0] - 1 in first_answers:
            gesture = next(d['inputs']['features'] for d in asked
                           if d['question'] == 1 and d['inputs']['feedback'] == index[0] - 1)
            return feature_ns[gesture - 1] - 10 ** 6
        return stamp
    _copy_with_stamps(tmp_path / 'ask', tmp_path / 'shuffled', early)
    with bagio.open_bag(tmp_path / 'shuffled') as bag:
        recorded = [(m.topic, m.stamp_ns) for m in bag.messages(
            ['gesture_features', 'gesture_feedback'])]
    assert recorded[0][0] == '/gesture_feedback'  # the first answer came before anything
    want = replay_figures(str(tmp_path / 'ask'))
    got = replay_figures(str(tmp_path / 'shuffled'))
    assert got['questions'] == want['questions'] == [d['label'] for d in asked]
    assert got['figures']['questions_as_recorded'] == len(asked)
    assert got['figures']['feedback_matched'] == want['figures']['feedback_matched']
    assert got['figures']['updates'] == want['figures']['updates']


def test_a_bag_without_input_counts_replays_in_recorded_order():
    """Details recorded before they carried ``inputs`` leave the order as recorded."""
    from banditlearn_ros.bags.recorded_session import read_events, recorded_marks
    from banditlearn_ros.learning.offline.input_order import learner_order, usable_marks
    with bagio.open_bag(SAMPLE) as bag:
        marks = recorded_marks(bag)
        events, counts = read_events(bag)
        stamps = [m.stamp_ns for m in bag.messages(['gesture_features', 'gesture_feedback'])]
    assert marks and set(marks) == {None}
    assert usable_marks(marks, counts['features'], counts['feedback']) == []
    assert learner_order(events, []) == events
    kept = [round(e.stamp * 1e9) for e in events if e.kind in (FEATURES, FEEDBACK)]
    assert kept == stamps


def test_learner_order_moves_only_what_the_marks_place():
    """Each question's inputs come before it, the one that made it ask last; labels stay."""
    from banditlearn_ros.learning.offline.input_order import learner_order, usable_marks
    from banditlearn_ros.learning.offline.replay import PREDICTION
    events = [Event(1.0, LABEL, 'a'), Event(1.1, FEEDBACK, True),  # answers question 1
              Event(1.2, FEATURES, [1.0]), Event(1.3, PREDICTION, 'a'),
              Event(2.0, FEEDBACK, False),  # answers question 2, asks question 3
              Event(2.1, LABEL, 'b'), Event(2.2, FEATURES, [2.0]),
              Event(2.3, PREDICTION, 'b'), Event(2.4, PREDICTION, 'a'),
              Event(3.0, FEATURES, [3.0])]  # after the last counted question: as recorded
    marks = [(1, 1, 0), (1, 2, 1), (2, 2, 2)]
    assert usable_marks(marks, 3, 2) == marks
    got = learner_order(events, marks)
    assert [(e.kind, e.value) for e in got] == [
        (LABEL, 'a'), (FEATURES, [1.0]), (PREDICTION, 'a'), (FEEDBACK, True),
        (LABEL, 'b'), (FEATURES, [2.0]), (PREDICTION, 'b'), (FEEDBACK, False),
        (PREDICTION, 'a'), (FEATURES, [3.0])]
    stamps = [e.stamp for e in got]
    assert stamps == sorted(stamps) and stamps[3] == 1.3  # the early answer: at its question
    # Counts past the recording (a late recorder), a restart, a mark that takes nothing new.
    assert usable_marks([(1, 4, 0)], 3, 2) == []
    assert usable_marks([(1, 2, 0), (1, 1, 0)], 3, 2) == [(1, 2, 0)]
    assert usable_marks([(1, 1, 0), (2, 2, 0)], 3, 2) == [(1, 1, 0)]
    assert usable_marks([None, (1, 1, 0)], 3, 2) == []
