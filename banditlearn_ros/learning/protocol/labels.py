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
What a label name may be: one rule for the labels parameter, a spoken name and a model file.

A label is said by the robot, written into the model file, the logs and /diagnostics, so it
is a string as given (never a YAML ``no`` read as false), of bounded length, printable and on
one line; a list of them is bounded too (each label is one classifier of the model).
"""

from typing import Any, List

MAX_LABEL_LENGTH = 64
"""Longest label name, in characters."""

MAX_LABELS = 1024
"""Most labels a learner holds (each is a classifier with its own covariance)."""


def clipped(text: Any, limit: int = 40) -> str:
    """Return the repr of ``text`` cut to about ``limit`` characters, for a log line."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[:limit] + f'... ({len(str(text))} chars)'


def name_problem(name: Any) -> str:
    """Return why ``name`` cannot be a label, or ''."""
    if not isinstance(name, str):
        return f'label {clipped(name)} is a {type(name).__name__}, not a string'
    if not name.strip():
        return 'label names must not be empty'
    if len(name) > MAX_LABEL_LENGTH:
        return f'label {clipped(name)} is longer than {MAX_LABEL_LENGTH} characters'
    if not name.isprintable():
        return f'label {clipped(name)} holds a line break or another unprintable character'
    return ''


def check_labels(labels: List[Any]) -> None:
    """Raise ValueError for an empty or too long list, a bad name or a name given twice."""
    if not labels:
        raise ValueError('labels must name at least one label')
    if len(labels) > MAX_LABELS:
        raise ValueError(f'{len(labels)} labels are more than the limit of {MAX_LABELS}')
    for name in labels:
        problem = name_problem(name)
        if problem:
            raise ValueError(problem)
    if len(set(labels)) != len(labels):
        raise ValueError(f'label names must be unique (one is named twice): '
                         f'{clipped(labels, 200)}')
