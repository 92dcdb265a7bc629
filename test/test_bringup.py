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

"""banditlearn_bringup: the default demo learns, options work, bad arguments fail readably."""

import json
import re
import signal
import subprocess
import sys

from banditlearn_ros.bringup import main as bringup
from banditlearn_ros.bringup.system import node_class, start, System
from banditlearn_ros.systems.options import apply_options, build_parser
from banditlearn_ros.systems.system_file import (
    BringupError, config_dirs, dataset_params_file, find_system, list_systems, load_system)
import pytest
from rclpy.node import Node

pytestmark = pytest.mark.ros
LINE = re.compile(r'^\s*(\d+)\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%\s+(\d+)\s*$')


def run(*args, timeout=120):
    return subprocess.run([sys.executable, '-m', 'banditlearn_ros.bringup.main', *args],
                          capture_output=True, text=True, timeout=timeout)


def rows(stdout):
    return [tuple(float(g) for g in m.groups())
            for m in map(LINE.match, stdout.splitlines()) if m]


@pytest.mark.slow
def test_default_demo_prints_a_falling_mistake_rate():
    result = run('--system', 'teach_sim', '--rounds', '400')
    assert result.returncode == 0, result.stderr
    table = rows(result.stdout)
    assert [r[0] for r in table] == [100, 200, 300, 400]
    windows = [r[2] for r in table]
    cumulative = [r[1] for r in table]
    assert windows[-1] < windows[0] - 20  # the last 100 rounds: far fewer mistakes
    assert cumulative == sorted(cumulative, reverse=True)
    assert all(b > a for a, b in zip([r[5] for r in table], [r[5] for r in table][1:]))
    summary = result.stdout.strip().splitlines()[-1]
    assert summary.startswith('finished: 400 rounds')
    # Every question of every interaction is answered (the learner asks again after a no).
    matched = re.search(r'feedback matched (\d+) / dropped 0', summary)
    assert matched and int(matched.group(1)) >= 400, summary
    assert 'params.yaml' in result.stdout and 'teach_sim.params.yaml' in result.stdout


def test_options_choose_dataset_noise_and_algorithm(tmp_path):
    result = run('--dataset', 'iris', '--noise', '0.2', '--algorithm', 'banditron',
                 '--every', '50', '--set', 'learner_node.banditron.gamma=0.1',
                 '--out', str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert [r[0] for r in rows(result.stdout)] == [50, 100, 150]
    assert 'finished: 150 rounds' in result.stdout
    # --out holds what a played data set leaves: its summary and the model.
    summary = json.loads((tmp_path / 'summary.json').read_text())
    assert summary['rounds'] == 150 and summary['interrupted'] is False
    assert summary['model'] == str(tmp_path / 'gesture_model.npz')
    assert (tmp_path / 'gesture_model.npz').is_file()
    assert f'summary and model in {tmp_path}' in result.stdout


@pytest.mark.parametrize('args, message', [
    (['--rounds', '-3'], "argument --rounds: '-3' is negative"),
    (['--noise', '1.5'], 'not a probability'),
    (['--system', 'nope'], "no system 'nope'"),
    (['--dataset', '/no/such.csv'], 'no such file'),
    (['--dataset', 'irs'], 'did you mean iris? built in: digits, iris, wine'),
    (['--set', 'learner_node.k=-1', '--rounds', '5'], 'k out of range'),
    (['--set', 'nobody.k=1'], "no node 'nobody'"),
    (['--params', '/no/params.yaml'], 'does not exist'),
])
def test_bad_arguments_exit_nonzero_with_one_line(args, message):
    result = run(*args, timeout=60)
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and 'Traceback' not in result.stderr, result.stderr
    assert lines[0].startswith('banditlearn_bringup: error:') and message in lines[0]


def test_system_files_are_well_formed():
    names = list_systems()
    assert {'teach_sim', 'full'} <= set(names)
    for name in names:
        system = load_system(find_system(name))
        assert system['params_files'] and all(p.is_file() for p in system['params_files'])
        for entry in system['nodes']:
            assert issubclass(node_class(entry['node']), Node)


def test_a_bad_system_file_is_reported(tmp_path):
    path = tmp_path / 'mine.system.yaml'
    path.write_text('nodes: [learner_node]\nextra: 1\n')
    with pytest.raises(BringupError, match='unknown keys'):
        load_system(path)
    path.write_text('description: no nodes\n')
    with pytest.raises(BringupError, match='nodes'):
        load_system(path)


@pytest.mark.parametrize('sig', [signal.SIGTERM, signal.SIGINT])
def test_a_signal_prints_the_summary_and_saves_the_model(tmp_path, sig):
    import time

    from banditlearn_ros.learning import load_model
    path = tmp_path / 'model.npz'
    process = subprocess.Popen(
        [sys.executable, '-m', 'banditlearn_ros.bringup.main', '--system', 'teach_sim',
         '--every', '10',
         '--set', f'learner_node.model_path={path}', '--set', 'learner_node.autosave_every=0',
         '--set', 'dataset_node.rate=40.0'],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300  # a bound for a busy machine, not a speed
        seen = 0
        while time.monotonic() < deadline and seen < 2:  # two progress lines: it is learning
            line = process.stdout.readline()
            seen += bool(LINE.match(line))
            assert line or process.poll() is None, process.stderr.read()
        assert seen == 2 and not path.exists()  # autosave off: only the shutdown can save
        process.send_signal(sig)
        out, err = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    name = 'SIGTERM' if sig == signal.SIGTERM else 'Ctrl-C'
    summary = [x for x in out.splitlines() if x.startswith(f'interrupted ({name}): ')]
    assert len(summary) == 1, out
    updates = int(re.search(r'(\d+) updates', summary[0]).group(1))
    assert updates >= 10 and load_model(str(path)).n_updates == updates


RAISING_NODE = """
from rclpy.node import Node


class Raising(Node):
    \"\"\"A node outside this package whose timer fails every time (not a GuardedNode).\"\"\"

    def __init__(self, **kwargs):
        super().__init__('raising', **kwargs)
        self.ticks = 0
        self.create_timer(0.01, self.tick)

    def tick(self):
        self.ticks += 1
        raise RuntimeError('always')
"""


def test_the_bringup_isolates_a_node_whose_callbacks_raise(tmp_path, monkeypatch):
    (tmp_path / 'extnodes').mkdir()
    (tmp_path / 'extnodes' / '__init__.py').write_text('')
    (tmp_path / 'extnodes' / 'raising.py').write_text(RAISING_NODE)
    monkeypatch.syspath_prepend(str(tmp_path))
    system_file = tmp_path / 'mixed.system.yaml'
    system_file.write_text(
        'params_files: [{}, {}]\n'.format(*(config_dirs()[0] / f for f in (
            'params.yaml', 'teach_sim.params.yaml')))
        + 'nodes:\n  - node: learner_node\n  - node: teacher_node\n  - node: dataset_node\n'
        + '  - node: "extnodes.raising:Raising"\n')
    system = load_system(system_file)
    running = System(system)
    try:
        raising = running.find(node_class('extnodes.raising:Raising'))
        reporter = bringup.Reporter(running, 0)
        dataset = running.find(node_class('dataset_node'))
        for _ in range(100_000):
            running.spin_once(0.05)
            if dataset.finished or reporter.rounds() >= 150:
                break
        assert reporter.rounds() >= 150  # the others went on learning
        assert raising.ticks > 10
        assert running.guard.counts() == {'executor.RuntimeError': raising.ticks}
    finally:
        running.close()


def test_set_names_and_types_are_checked_one_line_each():
    result = run('--rounds', '5', '--set', 'learner_node.k=abc', '--set',
                 'learner_node.autosave_every=2.5', '--set', 'learner_node.kk=1.5',
                 '--set', 'learner_node.k=1,5', '--set', 'learner_node.C=2')
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines == [
        "banditlearn_bringup: error: --set learner_node.k=abc: k takes a number, not 'abc'",
        'banditlearn_bringup: error: --set learner_node.autosave_every=2.5: autosave_every '
        "takes a whole number, not '2.5'",
        'banditlearn_bringup: error: --set learner_node.kk=1.5: learner_node has no parameter '
        "'kk'; did you mean 'k'?",
        "banditlearn_bringup: error: --set learner_node.k=1,5: k takes a number, not '1,5'",
    ], result.stderr


def test_set_takes_a_whole_number_for_a_float_parameter(tmp_path, monkeypatch):
    # k is in no parameter file here, so rcl alone would drop the int 2 for the float k.
    monkeypatch.chdir(tmp_path)  # model_path '7' is relative: not beside another suite's
    params = tmp_path / 'params.yaml'
    params.write_text('/**/learner_node:\n  ros__parameters:\n    labels: [a, b]\n')
    system_file = tmp_path / 'one.system.yaml'
    system_file.write_text(f'params_files: [{params}]\nnodes:\n  - node: learner_node\n')
    system = load_system(system_file)
    options = build_parser().parse_args(
        ['--set', 'learner_node.k=2', '--set', 'learner_node.model_path=7',
         '--set', 'learner_node.labels=[a, b, 3]'])
    apply_options(system, options)
    running = start(system)
    try:
        node = running.find(node_class('learner_node'))
        assert node.get_parameter('k').value == 2.0
        assert node.get_parameter('model_path').value == '7'
        assert node.get_parameter('labels').value == ['a', 'b', '3']
    finally:
        running.close()


@pytest.mark.parametrize('args, tuned', [
    (['--dataset', 'iris'], 'iris.params.yaml'),
    ([], 'digits.params.yaml'),  # teach_sim's dataset_node plays digits by default
    (['--dataset', 'iris', '--algorithm', 'confidit'], None),  # the settings are ucwl's
])
def test_teach_sim_loads_the_settings_tuned_for_its_data_set_last(args, tuned):
    system = load_system(find_system('teach_sim'))
    apply_options(system, build_parser().parse_args(args))
    names = [path.name for path in system['params_files']]
    assert names[:2] == ['params.yaml', 'teach_sim.params.yaml'], names
    assert names[2:] == ([tuned] if tuned else []), names


def test_a_data_set_file_has_no_tuned_settings(tmp_path):
    assert dataset_params_file('iris').name == 'iris.params.yaml'
    assert dataset_params_file(str(tmp_path / 'iris.csv')) is None
    assert dataset_params_file('synsep:1000') is None
