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
A node's script signalled while Python still imports ends quietly: no traceback of ours.

``test_node_stop`` signals a node from the moment the package is imported; this covers the
moments before: the script's header importing the package. The package's first code puts
the quiet handler in place without reading any module from disk. A signal even earlier, while
the interpreter itself starts (``site`` and the environment's ``.pth`` files) or the script's
header still looks the package up, is Python's own: it is counted, never blamed on the package.
"""

import os
from pathlib import Path
import random
import signal
import subprocess
import sys
import time

import pytest

SCRIPT = 'learner_node'
PACKAGE = str(Path(__file__).resolve().parents[1] / 'banditlearn_ros') + os.sep
"""The package's own folder: a frame there is the package's (a clone in a folder named
banditlearn_ros has its venv's site frames under that name too)."""
TRIES = 12
"""Interrupted starts of the real console script."""
SWALLOWED = 'Failed checking if argv[0] is an import path entry'
"""What CPython prints when a KeyboardInterrupt lands while it checks whether the script is a
zip archive (Modules/main.c): it prints the traceback and runs the script on, the signal spent
before any code of the package ran (seen on 3.10 at 0.04 s)."""


def test_the_package_puts_its_handler_in_place_before_reading_any_module():
    """Import the package as a node's script does; nothing but the package itself loads."""
    code = ('import sys, _signal; sys.argv[0] = "/x/learner_node"; before = set(sys.modules); '
            'import banditlearn_ros; new = sorted(set(sys.modules) - before); '
            'handler = _signal.getsignal(_signal.SIGINT); '
            'print(new, getattr(handler, "__module__", None), '
            '_signal.getsignal(_signal.SIGTERM) is handler)')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=60, check=True).stdout.strip()
    assert out == "['banditlearn_ros'] banditlearn_ros True"


def test_an_import_in_a_plain_process_leaves_the_signals_alone():
    code = ('import sys, signal; sys.argv[0] = "/x/pytest"; '
            'before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM); '
            'import banditlearn_ros; '
            'print((signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before)')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=60, check=True).stdout.strip()
    assert out == 'True'


def _start(env, model):
    script = Path(sys.executable).with_name(SCRIPT)
    if not script.is_file():
        pytest.skip(f'no console script {script} (the package is not installed in this venv)')
    return subprocess.Popen([str(script), '--ros-args', '-p', f'model_path:={model}'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env)


def _end(process) -> None:
    """End what is left of a started script (its own process group) and read its pipes."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


@pytest.mark.slow
@pytest.mark.ros
def test_ctrl_c_at_random_early_moments_of_a_real_console_script_prints_no_traceback_of_ours(
        tmp_path):
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME='1', PYTHONFAULTHANDLER='1')
    model = tmp_path / 'model.npz'
    # How long the script takes to import the package here, now (the machine may be loaded).
    process = _start(env, model)
    began = time.monotonic()
    try:
        while process.poll() is None:
            line = process.stderr.readline()
            if line.startswith('import time:') and line.rstrip().endswith(' banditlearn_ros'):
                break
        imported = time.monotonic() - began
    finally:
        _end(process)
    rng = random.Random(7)
    python_own, problems = 0, []
    for _ in range(TRIES):
        moment = rng.uniform(0.0, 1.5 * imported)  # before, around and after the import
        process = _start(env, model)
        try:
            time.sleep(moment)
            process.send_signal(signal.SIGINT)
            swallowed = False
            try:
                _out, err = process.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                # Python may have swallowed it (SWALLOWED): a second Ctrl-C, as a person does.
                process.send_signal(signal.SIGINT)
                try:
                    _out, err = process.communicate(timeout=30)
                    swallowed = True
                except subprocess.TimeoutExpired:  # stuck: its threads' stacks say where
                    process.send_signal(signal.SIGABRT)
                    _out, err = process.communicate(timeout=30)
                    said = [x for x in err.splitlines() if not x.startswith('import time:')]
                    problems.append((round(moment, 3), 'no end within 90 s',
                                     '\n'.join(said)[:3000]))
                    continue
        finally:
            _end(process)
        lines = [x for x in err.splitlines() if not x.startswith('import time:')]
        text = '\n'.join(lines)
        if swallowed:
            if SWALLOWED in text and PACKAGE not in text and process.returncode == 0 \
                    and '[ERROR]' not in text:
                python_own += 1  # Python's own start ate the first; the second ended it quietly
            else:
                problems.append((round(moment, 3), 'no end within 60 s of the first SIGINT',
                                 text[-3000:]))
            continue
        if 'Traceback' not in text and 'KeyboardInterrupt' not in text:
            # 0: the package's quiet end; killed by the signal (-2) with nothing said: it came
            # before Python had a handler at all.
            quiet = '[ERROR]' not in text if process.returncode == 0 else not text.strip()
            if process.returncode not in (0, -signal.SIGINT) or not quiet:
                problems.append((round(moment, 3), process.returncode, text[-300:]))
        elif PACKAGE not in text:
            # No frame of the package: the interpreter's own start (site, the editable
            # install's finder) or the console script's first line still looking the package
            # up (importlib's frames); no code of the package had run.
            python_own += 1
        else:
            problems.append((round(moment, 3), process.returncode, text[-3000:]))
    # Each problem whole, one per line: pytest's repr of a tuple would cut the stacks short.
    assert not problems, '\n'.join(
        [f"package imported in {imported:.2f} s; {python_own} signals in Python's own start"]
        + [f'at {moment} s: {what}\n{said}' for moment, what, said in problems])
