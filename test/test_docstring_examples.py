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
The docstring examples (``>>>``) of the package run, so what they show stays true.

Only modules whose source holds an example are imported (one test each, so pytest-xdist
spreads them): a node module that needs rclpy is never imported for nothing.  Every
``>>>`` line of a module must be an example doctest finds, so none hides where it is
never run (a comment, a nested function).
"""

import doctest
import importlib
from pathlib import Path
import re

import pytest

PACKAGE = 'banditlearn_ros'
SOURCE = Path(__file__).resolve().parents[1] / PACKAGE
PROMPT = re.compile(r'^\s*>>> ', re.MULTILINE)


def _modules_with_examples():
    out = {}
    for path in sorted(SOURCE.rglob('*.py')):
        count = len(PROMPT.findall(path.read_text(encoding='utf-8')))
        if count:
            parts = list(path.relative_to(SOURCE.parent).with_suffix('').parts)
            if parts[-1] == '__init__':
                parts.pop()
            out['.'.join(parts)] = count
    return out


EXAMPLES = _modules_with_examples()


def test_the_package_has_examples():
    # A moved package folder would otherwise leave the test below with nothing to run.
    assert sum(EXAMPLES.values()) >= 20, EXAMPLES


@pytest.mark.parametrize('name', sorted(EXAMPLES))
def test_docstring_examples(name):
    module = importlib.import_module(name)
    tests = doctest.DocTestFinder().find(module, name)
    assert sum(len(t.examples) for t in tests) == EXAMPLES[name], \
        f'{name}: some ">>>" lines are not in a docstring doctest runs'
    report = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test, out=report.append)
    assert runner.failures == 0, ''.join(report)
