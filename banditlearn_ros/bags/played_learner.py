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
The learner a played bag recorded, for the replay system (``bag_player`` beside a learner).

``recorded_session`` reads a bag for an offline replay; this gives a live learner_node the
same start (parameters and start model) so that played answers meet the questions they
answered.  Nothing here needs rclpy.
"""

import os
from typing import Any, Dict, List, Optional, Tuple

from banditlearn_ros import bags as bagio
from banditlearn_ros.bags.recorded_session import (
    max_model_bytes, recorded_config, sample_session_path, start_model)
from banditlearn_ros.learning.live import learner_parameters as lp

PLAYER_MODULE = 'banditlearn_ros.nodes.bag_player'


def recorded_learner(path: str, model_file: str = ''
                     ) -> Tuple[Optional[Dict[str, Any]], List[str]]:
    """
    Return learner_node parameters that make the learner a bag recorded, and notes.

    The bag's ``learner_config`` start parameters, and its start model (when there is one)
    in a temporary file the learner reads and never writes (removed at exit); None for a
    bag recorded without ``learner_config``.  A start model too large to be recorded is
    taken only from ``model_file`` (the learner's ``model_path`` the user gave), checked
    against its sha256, and the learner reads that file itself (``model_path`` is then
    left out of the parameters returned).
    """
    import atexit
    import shutil
    import tempfile

    with bagio.open_bag(path) as bag:
        recorded = recorded_config(bag)
    if recorded is None:
        return None, [f'{path} holds no learner configuration (recorded before '
                      'learner_config): the learner takes the parameter files']
    start = recorded['start']
    known = lp.defaults()
    params = {k: v for k, v in start['parameters'].items() if k in known}
    params.update(model_path='', autosave_every=0, save_on_shutdown=False)
    limit = max_model_bytes(params, {})
    if start.get('model') and not start['model'].get('data'):
        start_model(start['model'], model_file, limit)  # the named file is that model
        params.pop('model_path')
    elif start.get('model'):
        folder = tempfile.mkdtemp(prefix='banditlearn_replay_model_')
        atexit.register(shutil.rmtree, folder, True)
        params['model_path'] = os.path.join(folder, 'start_model.npz')
        with open(params['model_path'], 'wb') as handle:
            handle.write(start_model(start['model'], '', limit))
    notes = []
    if recorded['changes']:
        notes.append(f'{len(recorded["changes"])} change(s) recorded during the session: '
                     'bag_player makes them again in lock-step, ros2 bag play cannot')
    return params, notes


def configure_learner(system: Dict[str, Any]) -> List[str]:
    """
    Give a bring-up system's learner_node what the played bag recorded; return notes.

    ``recorded_learner`` fills every learner parameter the system entry (its file,
    ``--set``, ``--labels``, ``--seed``) does not set, over the parameter files.  A system
    without bag_player, or a bag without ``learner_config``, is left as is.
    """
    from banditlearn_ros.systems.system_file import file_value
    entries = {e['name']: e for e in system['nodes']}
    player = next((e for e in system['nodes']
                   if e['node'].split(':')[0] == PLAYER_MODULE), None)
    learner = entries.get('learner_node')
    if player is None or learner is None:
        return []
    path = player['parameters'].get('bag') or file_value(
        system['params_files'], player['name'], 'bag', '') or sample_session_path()
    params, notes = recorded_learner(path, str(learner['parameters'].get('model_path') or ''))
    if params is None:
        return notes
    given = learner['parameters']
    notes = [f'{name}={value!r} as asked (the recording had {params[name]!r})'
             for name, value in given.items()
             if name in params and params[name] != value and name != 'model_path'] + notes
    if 'model_path' in given:
        for name in ('model_path', 'autosave_every', 'save_on_shutdown'):
            params.pop(name, None)
    given.update({k: v for k, v in params.items() if k not in given})
    return notes
