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
``banditlearn_bag replay``: a recorded session through the learning layer, deterministically.

Reads a bag's labels, features, answers (and the predictions, to compare) in recorded
order and hands them to ``learning.offline.replay``; the learner is configured like learner_node,
from the same parameter files.  Nothing here needs rclpy.
"""

import base64
import hashlib
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from banditlearn_ros import bags as bagio
from banditlearn_ros.bags.config_check import check_document
from banditlearn_ros.bags.export import time_groups
from banditlearn_ros.bags.limits import MAX_PARAMS_BYTES, read_bounded
from banditlearn_ros.learning.live import learner_parameters as lp
from banditlearn_ros.learning.live import session_config
from banditlearn_ros.learning.offline.input_order import learner_order, Mark, mark_of, usable_marks
from banditlearn_ros.learning.offline.replay import (
    Event, FEATURES, FEEDBACK, LABEL, LearnerConfig, PREDICTION)
from banditlearn_ros.learning.protocol import answer_key
from banditlearn_ros.learning.storage.persistence import MAX_MODEL_BYTES
import yaml

# metadata.yaml custom_data key: the learner_node parameters a recording was made with.
CUSTOM_LEARNER = 'banditlearn_ros.learner'

TOPICS = {LABEL: 'gesture_label', FEATURES: 'gesture_features',
          FEEDBACK: 'gesture_feedback', PREDICTION: 'gesture_prediction'}


def package_config_dir() -> Path:
    """Return the package's config folder (source tree or installed share)."""
    from banditlearn_ros.systems.system_file import config_dirs
    dirs = config_dirs()
    if not dirs:
        raise bagio.BagError('the package config folder (params.yaml) cannot be found')
    return dirs[0]


def sample_session_path() -> str:
    """Return the bundled sample session's folder (source tree or installed share)."""
    return str(package_config_dir().parent / 'bags' / 'sample_session')


def learner_section(path: Path, node: str = 'learner_node') -> Dict[str, Any]:
    """Return the ros__parameters a params file gives ``node`` (plain, /node or /**/node)."""
    text = read_bounded(path, MAX_PARAMS_BYTES, 'parameter file')
    try:
        data = yaml.safe_load(text.decode('utf-8')) or {}
    except (UnicodeDecodeError, yaml.YAMLError) as err:
        raise bagio.BagError(f'{path}: cannot read parameters ({bagio.short_error(err)})') \
            from None
    out: Dict[str, Any] = {}
    if not isinstance(data, dict):
        raise bagio.BagError(f'{path}: not a ROS 2 parameter file')
    for key, section in data.items():
        name = str(key).rstrip('/').split('/')[-1]
        if name in (node, '**') and isinstance(section, dict):
            out.update(section.get('ros__parameters') or {})
    return out


def recorded_config(bag: bagio.Bag, notes: Optional[List[str]] = None
                    ) -> Optional[Dict[str, Any]]:
    """
    Return the learner's configuration the bag holds, or None (recorded without it).

    Every message holds the history so far, so the last one of the learner's start is
    taken; a bag holding a second start (the learner restarted) is replayed from the first
    and ``notes`` says so.  An unreadable message raises BagError saying why.
    """
    try:
        topic = bag.resolve_topic(session_config.TOPIC)
    except bagio.BagError:
        return None
    docs = []
    try:
        for item in bag.messages([topic]):
            docs.append(session_config.parse(item.msg.data))
    except ValueError as err:
        raise bagio.BagError(f'{bag.path}: {err}') from None
    finally:
        bag.reset_counts()
    if not docs:
        return None
    for doc in docs:
        check_document(doc)
    first = [d for d in docs if d['start'] == docs[0]['start']]
    if len(first) < len(docs) and notes is not None:
        notes.append('the learner started again during the recording: replaying from its '
                     'first start, so the questions after the restart will differ')
    doc = first[-1]
    # Recorded before no_weight existed: a "no" was capped at C (Algorithm 1).
    doc['start']['parameters'].setdefault('no_weight', 'equal')
    return doc


def labels_from_details(bag: bagio.Bag) -> Optional[List[str]]:
    """
    Return the label order the recorded questions show (details' label and index), or None.

    Only a complete order counts: every index from 0 to the largest asked, each one name.
    """
    try:
        topic = bag.resolve_topic('gesture_prediction_details')
    except bagio.BagError:
        return None
    names: Dict[int, str] = {}
    for item in bag.messages([topic]):
        try:
            details = json.loads(item.msg.data)
            index, label = int(details['index']), str(details['label'])
        except (ValueError, KeyError, TypeError):
            continue
        if names.setdefault(index, label) != label:
            bag.reset_counts()
            return None
    bag.reset_counts()
    if not names or sorted(names) != list(range(len(names))):
        return None
    return [names[i] for i in range(len(names))]


def _asked_parameters(params_files: Sequence[str],
                      overrides: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """Return what the files and ``overrides`` set; a name the node lacks is refused."""
    params: Dict[str, Any] = {}
    for path in params_files:
        params.update(learner_section(Path(path)))
    params.update(overrides or {})
    known = lp.defaults()
    unknown = sorted(set(params) - set(known))
    if unknown:
        import difflib
        near = difflib.get_close_matches(unknown[0], list(known), n=1)
        hint = f'; did you mean {near[0]!r}?' if near else ''
        raise bagio.BagError(f'learner_node has no parameter {", ".join(map(repr, unknown))}'
                             + hint)
    return params


def learner_config(bag: Optional[bagio.Bag] = None, params_files: Sequence[str] = (),
                   overrides: Optional[Dict[str, Any]] = None, model_file: str = '',
                   notes: Optional[List[str]] = None) -> LearnerConfig:
    """
    Return the learner a replay uses; ``notes`` gets where it differs from the recording.

    With the learner's configuration recorded (``learner_config``), that is the base: its
    start parameters, start model and changes.  Else (older bags) the package's
    params.yaml, the parameters in metadata.yaml's custom_data (written by ``sample``) and
    labels from the bag (custom_data, or the recorded questions).  The given params files
    and ``overrides`` win over either; a name learner_node does not have is refused.
    """
    notes = notes if notes is not None else []
    asked = _asked_parameters(params_files, overrides)
    recorded = recorded_config(bag, notes) if bag is not None else None
    model = None
    changes: List[Dict[str, Any]] = []
    if recorded is not None:
        start = recorded['start']
        params = dict(start['parameters'])
        if start.get('model'):
            model = start_model(start['model'], model_file, max_model_bytes(params, asked))
        elif model_file:
            notes.append(f'the recorded session started from no model: {model_file} '
                         'is not read')
        changes = recorded['changes']
        for name, value in asked.items():
            if name in params and params[name] != value and name != 'model_path':
                notes.append(f'the recorded learner had {name}={params[name]!r}; replaying '
                             f'with {name}={value!r} as asked')
        if changes and asked:
            notes.append(f'{len(changes)} change(s) recorded during the session are made '
                         'again on top of what was asked')
    else:
        params = _params_of_old_bag(bag, notes)
        if model_file:
            model = read_bounded(model_file, max_model_bytes(params, asked), 'model file')
    params.update(asked)
    try:
        return LearnerConfig.from_parameters(params, model, changes,
                                             recorded=recorded is not None)
    except ValueError as err:
        raise bagio.BagError(str(err)) from None


def max_model_bytes(params: Dict[str, Any], asked: Dict[str, Any]) -> int:
    """Return the largest start model the replayed learner would read (its own limit)."""
    value = asked.get('max_model_bytes', params.get('max_model_bytes'))
    return value if isinstance(value, int) and value > 0 else MAX_MODEL_BYTES


def start_model(model: Dict[str, Any], given: str = '',
                max_bytes: int = MAX_MODEL_BYTES) -> bytes:
    """
    Return the bytes of the model a recorded session started from.

    Embedded in the bag, or else the file the user named (``given``: ``--model FILE``, or
    learner_node's ``model_path`` for the replay system), held to ``max_bytes`` and to the
    recorded sha256.  The path the recording names is never opened: a bag is someone
    else's file, and reading what it points at would let it read any file on the machine.

    Raises
    ------
    BagError
        One line saying which file is needed, or why the given one is not it.

    """
    if model.get('data'):
        return base64.b64decode(model['data'])
    need = (f"the session started from the model {model.get('path')} ({model.get('bytes')} "
            f"bytes, sha256 {str(model.get('sha256'))[:16]}...), too large to be recorded")
    if not given:
        raise bagio.BagError(f'{need}; a replay reads only files you name: pass that file '
                             'with --model FILE (the replay system: learner_node.model_path)')
    if model.get('bytes', 0) > max_bytes:
        raise bagio.BagError(f'{need}; it is larger than the {max_bytes} bytes '
                             'max_model_bytes lets a learner read')
    data = read_bounded(given, max_bytes, 'model file')
    if hashlib.sha256(data).hexdigest() != model.get('sha256'):
        raise bagio.BagError(f'{need}; {given} is not that file (its sha256 differs): pass '
                             'the file as it was')
    return data


def _params_of_old_bag(bag: Optional[bagio.Bag], notes: List[str]) -> Dict[str, Any]:
    """Return the parameters of a bag without ``learner_config``: files, then the bag."""
    params = learner_section(package_config_dir() / 'params.yaml')
    if bag is None:
        return params
    # A bag from before learner_config was learned on raw vectors with Algorithm 1's cap of
    # a "no": centring and no_weight came later.
    params['centring'] = 'none'
    params['no_weight'] = 'equal'
    stored = bag.custom_data.get(CUSTOM_LEARNER)
    if stored:
        try:
            recorded = json.loads(stored)
        except ValueError:
            recorded = None
        if isinstance(recorded, dict):
            params.update(recorded)
            return params
        notes.append(f'metadata.yaml custom_data {CUSTOM_LEARNER} is not a JSON mapping: '
                     'ignored')
    try:
        labels = json.loads(bag.custom_data.get(bagio.CUSTOM_LABELS, 'null'))
    except ValueError:
        labels = None
    labels = labels if isinstance(labels, list) and labels else labels_from_details(bag)
    if labels:
        params['labels'] = [str(v) for v in labels]
        notes.append('the bag holds no learner configuration (recorded before learner_config '
                     f'existed): labels {params["labels"]} from the bag, the other parameters '
                     "from the package's params.yaml")
    else:
        notes.append('the bag holds no learner configuration and no label names: labels and '
                     "parameters from the package's params.yaml (--set labels=[...] to change)")
    return params


def late_start(bag: bagio.Bag) -> int:
    """Return the interaction id of the first recorded question (> 0: the recorder was late)."""
    try:
        topic = bag.resolve_topic('gesture_prediction_details')
    except bagio.BagError:
        return 0
    try:
        for item in bag.messages([topic]):
            try:
                return int(json.loads(item.msg.data)['id'])
            except (ValueError, KeyError, TypeError):
                return 0
    finally:
        bag.reset_counts()
    return 0


def read_events(bag: bagio.Bag, topics: Optional[Dict[str, str]] = None
                ) -> Tuple[List[Event], Dict[str, int]]:
    """
    Return a bag's session events in the learner's order, and how many of each were read.

    Topics missing from the bag are left out (a bag without answers can still be replayed
    with the simulated teacher); labels sort before features stamped at the same time.
    Where the recorded questions carry the learner's input counts, features and answers
    are taken in the order the learner took them (``input_order``), whatever order the
    recorder received them in; else, and after the last counted question, recorded order.
    """
    names = dict(TOPICS)
    names.update(topics or {})
    found: Dict[str, str] = {}
    for kind, name in names.items():
        try:
            found[bag.resolve_topic(name)] = kind
        except bagio.BagError:
            continue
    try:  # yes/no answers that name their question (answer_key), beside the Bools
        keyed = bag.resolve_topic(answer_key.TOPIC)
        found[keyed] = FEEDBACK
    except bagio.BagError:
        keyed = ''
    if not any(kind == FEATURES for kind in found.values()):
        raise bagio.BagError(f'{bag.path}: no {names[FEATURES]} topic to replay '
                             f'(topics: {", ".join(sorted(bag.topics)) or "none"})')
    label_topic = next((t for t, k in found.items() if k == LABEL), '')
    events: List[Event] = []
    counts = dict.fromkeys((LABEL, FEATURES, FEEDBACK, PREDICTION), 0)
    bag.reset_counts()
    for item in time_groups(bag.messages(list(found)), label_topic):
        kind = found[item.topic]
        if kind == FEATURES:
            msg = item.msg
            offset = int(msg.layout.data_offset or 0)
            value = list(msg.data[offset:])
        elif item.topic == keyed:
            try:
                value = answer_key.read_answer(item.msg.data)
            except ValueError:  # the learner took no answer from it, nor counted one
                continue
        else:
            value = item.msg.data
        events.append(Event(item.stamp_ns / 1e9, kind, value))
        counts[kind] += 1
    marks = usable_marks(recorded_marks(bag), counts[FEATURES], counts[FEEDBACK])
    return learner_order(events, marks), counts


def recorded_marks(bag: bagio.Bag) -> List[Optional[Mark]]:
    """
    Return the input counts of every recorded question (``input_order.mark_of``).

    Empty for a bag without details; None for a message without counts (recorded before
    the learner published them, or unreadable): such a bag replays in recorded order.
    """
    try:
        topic = bag.resolve_topic('gesture_prediction_details')
    except bagio.BagError:
        return []
    marks: List[Optional[Mark]] = []
    try:
        for item in bag.messages([topic]):
            try:
                details = json.loads(item.msg.data)
            except ValueError:
                details = None
            marks.append(mark_of(details) if isinstance(details, dict) else None)
    finally:
        bag.reset_counts()
    return marks


def figures_text(figures: Dict[str, Any]) -> str:
    """Return the figures as aligned lines."""
    width = max(len(k) for k in figures)
    return '\n'.join(f'{k:<{width}}  {v}' for k, v in figures.items())
