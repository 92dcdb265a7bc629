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
What a learner was started with and what changed while it ran, as one JSON document.

learner_node publishes it on a latched topic (``learner_config``) so a recording carries
it and a replay needs nothing else: the parameters that shape a decision (every name of
``learner_parameters.all_specs()`` but the few that only say where and when to save or
report, so a parameter added to the table is carried with no change here), the model the
learner started from (its bytes when small, else its path and sha256) and every change
since (a parameter set, a reset, a gesture named) with the input count it happened at.
Because the latched topic keeps only its last message, every message is the whole
history: a recorder that joins late still gets the start.
"""

import base64
import hashlib
import json
import os
from typing import Any, Callable, Dict, List, Optional

from . import learner_parameters as lp

FORMAT = 1
TOPIC = 'learner_config'
"""The latched topic learner_node publishes the document on (relative: namespaces move it)."""

NOT_DECISIONS = frozenset((
    'model_path', 'autosave_every', 'save_on_shutdown', 'start_fresh_on_bad_model',
    'details_top', 'diagnostics_period', 'save_error_seconds', 'record_model_max_bytes'))
"""Parameters that change where and when things are saved or reported, never a question."""

RESET, PARAMETERS, NAMED = 'reset', 'parameters', 'named'
KINDS = (RESET, PARAMETERS, NAMED)


def decision_parameters(value: Callable[[str], Any]) -> Dict[str, Any]:
    """Return ``{name: value}`` of every learner parameter that shapes a decision."""
    return {spec.name: _plain(value(spec.name)) for spec in lp.all_specs()
            if spec.name not in NOT_DECISIONS}


def _plain(value: Any) -> Any:
    """Return a JSON value (rclpy gives arrays as lists or array.array)."""
    if isinstance(value, (list, tuple)) or type(value).__name__ == 'array':
        return [_plain(v) for v in value]
    return value


def model_entry(path: str, max_bytes: int) -> Optional[Dict[str, Any]]:
    """
    Return what identifies the model file a learner started from ('' = none: None).

    Its bytes are embedded (base64) up to ``max_bytes``; the path, size and sha256 always.
    """
    if not path:
        return None
    with open(path, 'rb') as handle:
        data = handle.read()
    entry = {'path': os.path.abspath(path), 'bytes': len(data),
             'sha256': hashlib.sha256(data).hexdigest()}
    if len(data) <= max_bytes:
        entry['data'] = base64.b64encode(data).decode('ascii')
    return entry


def start_log(value: Callable[[str], Any], labels: List[str], model_path: str,
              stamp: float) -> 'ConfigLog':
    """
    Return a learner's log at its start: decision parameters, ``labels``, its start model.

    ``model_path`` is the file it was read from ('' = none); a file gone since is logged
    with the error, and the learner keeps running.
    """
    params = decision_parameters(value)
    params['labels'] = list(labels)
    try:
        model = model_entry(model_path, value('record_model_max_bytes'))
    except OSError as exc:  # the file went away since it was read: say so, keep running
        model = {'path': model_path, 'error': str(exc)}
    return ConfigLog(params, model, stamp)


class ConfigLog:
    """
    The document a learner publishes: its start, then each change with its input count.

    Parameters
    ----------
    parameters : dict
        ``decision_parameters`` at start (labels as the learner has them).
    model : dict or None
        ``model_entry`` of the file the learner was read from.
    stamp : float
        Seconds (the node's clock) at start.

    """

    def __init__(self, parameters: Dict[str, Any], model: Optional[Dict[str, Any]],
                 stamp: float):
        self.start = {'stamp': stamp, 'parameters': dict(parameters), 'model': model}
        self.changes: List[Dict[str, Any]] = []

    def add(self, kind: str, stamp: float, features: int, feedback: int, **what) -> None:
        """
        Record a change made after ``features`` feature and ``feedback`` yes/no messages.

        ``what``: ``changed`` ({parameter: value}) for PARAMETERS, ``name`` for NAMED.
        """
        if kind not in KINDS:
            raise ValueError(f'unknown change {kind!r}: one of {KINDS}')
        change = {'kind': kind, 'stamp': stamp, 'features': int(features),
                  'feedback': int(feedback)}
        change.update({k: {n: _plain(v) for n, v in v.items()} if isinstance(v, dict)
                       else _plain(v) for k, v in what.items()})
        self.changes.append(change)

    def document(self) -> Dict[str, Any]:
        """Return the whole history as a JSON-able dict."""
        return {'format': FORMAT, 'start': self.start, 'changes': list(self.changes)}

    def text(self) -> str:
        """Return ``document()`` as the message's JSON text."""
        return json.dumps(self.document(), sort_keys=True)


def parse(text: str) -> Dict[str, Any]:
    """
    Return a checked document from a message's text; raise ValueError saying what is wrong.

    A newer format is refused rather than half read.
    """
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise ValueError(f'learner configuration is not JSON ({err})') from None
    if not isinstance(doc, dict) or not isinstance(doc.get('start'), dict):
        raise ValueError('learner configuration has no start section')
    if doc.get('format', 0) > FORMAT:
        raise ValueError(f'learner configuration format {doc.get("format")} is newer than '
                         f'this package reads ({FORMAT}): update banditlearn_ros')
    if not isinstance(doc['start'].get('parameters'), dict):
        raise ValueError('learner configuration has no start parameters')
    changes = doc.get('changes') or []
    for change in changes:
        if not isinstance(change, dict) or change.get('kind') not in KINDS:
            raise ValueError(f'learner configuration has an unknown change: {change!r}')
    doc['changes'] = changes
    return doc
