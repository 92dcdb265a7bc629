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
A recorded learner configuration checked field by field, and ``--set`` read as the node reads it.

A bag's ``learner_config`` is a file's word, not the learner's: before a replay builds a
learner from it, every field is held to what learner_node would have declared (the type
of the parameter's default, as rclpy holds a declared parameter to it, its range, the
label rules) and a wrong one is refused with one line naming it
(``learner_config start.parameters.k: ...``).  ``--set`` values of a replay are taken in
the parameter's declared type the way ``banditlearn_bringup`` gives them to the node, so
``--set labels=[yes,no]`` is two names, not two bools.
"""

import base64
import binascii
import math
import re
from typing import Any, Dict, Optional

from banditlearn_ros.learning.live import learner_parameters as lp
from banditlearn_ros.learning.live import session_config
from banditlearn_ros.learning.protocol.labels import check_labels
from banditlearn_ros.parameter_spec import Spec
from banditlearn_ros.systems.options import in_declared_type

from .errors import BagError

# rcl_interfaces/msg/ParameterType values, as bringup.options names them.
BOOL, INTEGER, DOUBLE, STRING = 1, 2, 3, 4
BOOL_ARRAY, INTEGER_ARRAY, DOUBLE_ARRAY, STRING_ARRAY = 6, 7, 8, 9
_KIND_WORDS = {BOOL: 'true or false', INTEGER: 'a whole number', DOUBLE: 'a number',
               STRING: 'a string', BOOL_ARRAY: 'a list of true/false',
               INTEGER_ARRAY: 'a list of whole numbers', DOUBLE_ARRAY: 'a list of numbers',
               STRING_ARRAY: 'a list of strings'}
_SHA256 = re.compile(r'[0-9a-f]{64}')


def declared_type(spec: Spec) -> int:
    """Return the ParameterType learner_node declares ``spec`` with (from its default)."""
    default = spec.default
    if isinstance(default, bool):
        return BOOL
    if isinstance(default, int):
        return INTEGER
    if isinstance(default, float):
        return DOUBLE
    if isinstance(default, str):
        return STRING
    sample = default[0] if default else None
    if isinstance(sample, bool):
        return BOOL_ARRAY
    if isinstance(sample, int):
        return INTEGER_ARRAY
    if isinstance(sample, float) or (sample is None and spec.empty_array == 'double'):
        return DOUBLE_ARRAY
    return STRING_ARRAY


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fits(kind: int, value: Any) -> bool:
    if kind == BOOL:
        return isinstance(value, bool)
    if kind == INTEGER:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == DOUBLE:
        return _is_number(value)
    if kind == STRING:
        return isinstance(value, str)
    if not isinstance(value, list):
        return False
    return all(_fits({BOOL_ARRAY: BOOL, INTEGER_ARRAY: INTEGER, DOUBLE_ARRAY: DOUBLE,
                      STRING_ARRAY: STRING}[kind], v) for v in value)


def _shown(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + '...'


def value_problem(spec: Spec, value: Any) -> str:
    """
    Return why learner_node would not hold ``value`` for ``spec`` ('' when it would).

    The declared type first (an int where a number is declared is taken, a bool never),
    then a number's range and finiteness, then the label rules.
    """
    kind = declared_type(spec)
    if not _fits(kind, value):
        return f'{_shown(value)} is not {_KIND_WORDS[kind]}'
    if kind == DOUBLE and not math.isfinite(value):
        return f'{value!r} is not a finite number'
    if kind in (INTEGER, DOUBLE):
        if spec.low is not None and value < spec.low or \
                spec.high is not None and value > spec.high:
            low = '-inf' if spec.low is None else f'{spec.low:g}'
            high = 'inf' if spec.high is None else f'{spec.high:g}'
            return f'{value!r} is outside [{low}, {high}]'
    if spec.name == 'labels':
        try:
            check_labels(value)
        except ValueError as err:
            return str(err)
    if spec.name == 'algorithm' and value not in lp.BANDIT_ALGORITHMS:
        return f'{value!r} is not one of {sorted(lp.BANDIT_ALGORITHMS)}'
    return ''


def _specs() -> Dict[str, Spec]:
    return {spec.name: spec for spec in lp.all_specs()}


def _check_parameters(params: Dict[str, Any], where: str, specs: Dict[str, Spec],
                      known_only: bool) -> None:
    for name, value in params.items():
        spec = specs.get(name)
        if spec is None:
            if known_only:
                raise BagError(f'{where}.{name}: learner_node has no such parameter')
            continue  # a newer learner's parameter: not used by this replay
        problem = value_problem(spec, value)
        if problem:
            raise BagError(f'{where}.{name}: {problem}')


def _check_count(change: Dict[str, Any], key: str, where: str) -> None:
    value = change.get(key)
    if not (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        raise BagError(f'{where}.{key}: {_shown(value)} is not a count (a whole number >= 0)')


def check_model_entry(model: Any, where: str) -> None:
    """Refuse a start-model entry whose fields are not what ``session_config`` writes."""
    if not isinstance(model, dict):
        raise BagError(f'{where}: {_shown(model)} is not a mapping')
    sha = model.get('sha256')
    if not (isinstance(sha, str) and _SHA256.fullmatch(sha)):
        raise BagError(f'{where}.sha256: {_shown(sha)} is not a sha256 (64 hex digits)')
    size = model.get('bytes')
    if not (isinstance(size, int) and not isinstance(size, bool) and size >= 0):
        raise BagError(f'{where}.bytes: {_shown(size)} is not a size in bytes')
    if not isinstance(model.get('path', ''), str):
        raise BagError(f'{where}.path: {_shown(model.get("path"))} is not a string')
    data = model.get('data')
    if data is not None:
        if not isinstance(data, str):
            raise BagError(f'{where}.data: not base64 text')
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise BagError(f'{where}.data: not base64 text') from None
        if len(raw) != size:
            raise BagError(f'{where}.data: holds {len(raw)} bytes, the entry says {size}')


def check_document(doc: Dict[str, Any], where: str = session_config.TOPIC) -> None:
    """
    Refuse, with one line naming the field, a recorded configuration a learner cannot take.

    Parameters
    ----------
    doc : dict
        ``session_config.parse``'s document (its sections are known to be there).
    where : str
        How the line names the document.

    Raises
    ------
    BagError
        ``learner_config start.parameters.k: 'abc' is not a number`` and the like.

    """
    specs = _specs()
    start = doc['start']
    _check_parameters(start['parameters'], f'{where} start.parameters', specs, False)
    stamp = start.get('stamp', 0.0)
    if not (_is_number(stamp) and math.isfinite(stamp)):
        raise BagError(f'{where} start.stamp: {_shown(stamp)} is not a time in seconds')
    if start.get('model') is not None:
        check_model_entry(start['model'], f'{where} start.model')
    if not isinstance(doc['changes'], list):
        raise BagError(f'{where} changes: {_shown(doc["changes"])} is not a list')
    for number, change in enumerate(doc['changes'], 1):
        place = f'{where} changes[{number}]'
        _check_count(change, 'features', place)
        _check_count(change, 'feedback', place)
        if change['kind'] == session_config.PARAMETERS:
            changed = change.get('changed')
            if not isinstance(changed, dict) or not changed:
                raise BagError(f'{place}.changed: {_shown(changed)} is not a mapping of '
                               'parameters to values')
            _check_parameters(changed, f'{place}.changed', specs, True)
        elif change['kind'] == session_config.NAMED:
            if not isinstance(change.get('name'), str):
                raise BagError(f'{place}.name: {_shown(change.get("name"))} is not a string')


def set_value(name: str, text: str) -> Any:
    """
    Return a ``--set NAME=TEXT`` value in NAME's declared type, as the bring-up gives it.

    YAML reads the text; an int where a number is declared becomes a float, and a list
    where names are declared keeps every item as typed (``[yes, no]`` is two names).  A
    value of another type is refused with one line saying what the parameter takes.
    """
    import yaml
    spec = _specs().get(name)
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        value = text
    if spec is None:
        return value  # refused by name later, with a hint
    kind = declared_type(spec)
    typed: Optional[Any] = in_declared_type(value, text, kind)
    if typed is None:
        typed = value
    problem = value_problem(spec, typed)
    if problem:
        raise BagError(f'--set {name}={text}: {problem}')
    return typed
