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
order and hands them to ``learning.replay``; the learner is configured like learner_node,
from the same parameter files.  Nothing here needs rclpy.
"""

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from banditlearn_ros.learning.replay import (Event, FEATURES, FEEDBACK, LABEL, LearnerConfig,
                                             PREDICTION)
from banditlearn_ros.tools import bagio
from banditlearn_ros.tools.bagio.export import _time_groups
import yaml

# metadata.yaml custom_data key: the learner_node parameters a recording was made with.
CUSTOM_LEARNER = 'banditlearn_ros.learner'

TOPICS = {LABEL: 'gesture_label', FEATURES: 'gesture_features',
          FEEDBACK: 'gesture_feedback', PREDICTION: 'gesture_prediction'}


def package_config_dir() -> Path:
    """Return the package's config folder (source tree or installed share)."""
    from banditlearn_ros.system_file import config_dirs
    dirs = config_dirs()
    if not dirs:
        raise bagio.BagError('the package config folder (params.yaml) cannot be found')
    return dirs[0]


def learner_section(path: Path, node: str = 'learner_node') -> Dict[str, Any]:
    """Return the ros__parameters a params file gives ``node`` (plain, /node or /**/node)."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding='utf-8')) or {}
    except (OSError, yaml.YAMLError) as err:
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


def learner_config(bag: Optional[bagio.Bag] = None, params_files: Sequence[str] = (),
                   overrides: Optional[Dict[str, Any]] = None) -> LearnerConfig:
    """
    Return the learner a replay uses.

    Layers, later ones winning: the package's params.yaml, the parameters stored in the
    bag (custom_data, written by ``sample``), the given params files, ``overrides``.
    """
    params = learner_section(package_config_dir() / 'params.yaml')
    stored = bag.custom_data.get(CUSTOM_LEARNER) if bag is not None else None
    if stored:
        try:
            recorded = json.loads(stored)
        except ValueError:
            recorded = None
        if isinstance(recorded, dict):
            # A bag from before centring existed was learned on raw vectors.
            params.update({'centring': 'none', **recorded})
    for path in params_files:
        params.update(learner_section(Path(path)))
    params.update(overrides or {})
    try:
        return LearnerConfig.from_parameters(params)
    except ValueError as err:
        raise bagio.BagError(str(err)) from None


def read_events(bag: bagio.Bag, topics: Optional[Dict[str, str]] = None
                ) -> Tuple[List[Event], Dict[str, int]]:
    """
    Return a bag's session events in recorded order, and how many of each were read.

    Topics missing from the bag are left out (a bag without answers can still be replayed
    with the simulated teacher); labels sort before features stamped at the same time.
    """
    names = dict(TOPICS)
    names.update(topics or {})
    found: Dict[str, str] = {}
    for kind, name in names.items():
        try:
            found[bag.resolve_topic(name)] = kind
        except bagio.BagError:
            continue
    if not any(kind == FEATURES for kind in found.values()):
        raise bagio.BagError(f'{bag.path}: no {names[FEATURES]} topic to replay '
                             f'(topics: {", ".join(sorted(bag.topics)) or "none"})')
    label_topic = next((t for t, k in found.items() if k == LABEL), '')
    events: List[Event] = []
    counts = dict.fromkeys((LABEL, FEATURES, FEEDBACK, PREDICTION), 0)
    bag.reset_counts()
    for item in _time_groups(bag.messages(list(found)), label_topic):
        kind = found[item.topic]
        if kind == FEATURES:
            msg = item.msg
            offset = int(msg.layout.data_offset or 0)
            value = list(msg.data[offset:])
        else:
            value = item.msg.data
        events.append(Event(item.stamp_ns / 1e9, kind, value))
        counts[kind] += 1
    return events, counts


def figures_text(figures: Dict[str, Any]) -> str:
    """Return the figures as aligned lines."""
    width = max(len(k) for k in figures)
    return '\n'.join(f'{k:<{width}}  {v}' for k, v in figures.items())
