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
A live learner in a fleet: when to share its evidence, what to do with the others'.

``nodes/fleet_link`` carries the messages; the rules are here, tested without DDS.  Every
call takes the live learner's lock, so a merge never runs in the middle of a question.  The
fleet's evidence rides on the learner (``learner.fleet``) and is saved with its model file;
a restart takes it up again, and a model reset (a fresh learner) forgets it.
"""

from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Tuple

from .fleet_evidence import FleetEvidence
from .fleet_message import check_id, FLEET_FRAMES, FLEET_MODES, MAX_PRECISION, robot_id_from
from .labels import clipped
from ..algorithms.base import HyperparameterError
from ...parameter_spec import Spec

FLEET_SPECS = (
    Spec('fleet', 'off', "share what this robot learns with a fleet, take the others', both, "
         'or neither (off)', read_only=True, dynamic=True,
         constraints='one of ' + ', '.join(FLEET_MODES) + ' (false, as YAML reads off, is '
         'off)'),
    Spec('fleet_name', 'banditlearn', 'the fleet this robot belongs to: two fleets in one '
         'ROS domain keep apart', read_only=True),
    Spec('robot_id', '', "this robot's id in the fleet; empty = from the hostname",
         read_only=True),
    Spec('fleet_share_every', 5, 'share after every N updates of this learner (and once a '
         'model exists)', read_only=True, low=1, high=1_000_000),
    Spec('fleet_max_precision', MAX_PRECISION, "another robot's evidence with a larger "
         'precision gain is refused as hostile', read_only=True, low=1.0, high=1e300),
    Spec('fleet_frame', 'fixed', 'the centring mean, pooled over the fleet, stops after its '
         'warm-up (fixed: rows learned stay in one frame) or keeps moving (moving, as '
         'before)', read_only=True, constraints='one of ' + ', '.join(FLEET_FRAMES)),
)
"""learner_node's fleet parameters (read-only: a fleet is joined at start)."""


def fleet_mode(value: Any) -> str:
    """
    Return the ``fleet`` mode a parameter value means; raise HyperparameterError if none.

    YAML (a parameter file, ``-p fleet:=off``, ``ros2 param set``) reads ``off`` as false,
    so false is ``off``; so is ``none``, its name before.
    """
    if value is False or value == 'none':
        return 'off'
    if isinstance(value, str) and value in FLEET_MODES:
        return value
    hint = ' (YAML reads on, yes and true as true: write both)' if value is True else ''
    raise HyperparameterError(f'fleet={clipped(value, 60)} is not one of '
                              f'{", ".join(FLEET_MODES)}{hint}')


class LiveFleet:
    """
    A ``LiveLearner``'s side of the fleet: shares after every N updates, merges on arrival.

    Parameters
    ----------
    live : LiveLearner
        The learner it shares and merges into (its lock is taken for every call).
    value : callable
        The current value of a parameter (``FLEET_SPECS`` and the learner's).
    hostname : str
        Where the robot id comes from when ``robot_id`` is empty.
    log : logger
        Any logger with ``info`` and ``warning``.

    """

    def __init__(self, live, value: Callable[[str], Any], hostname: str, log):
        mode = fleet_mode(value('fleet'))
        if live.algorithm != 'ucwl' or value('covariance') != 'diag':
            raise HyperparameterError('fleet needs algorithm ucwl with covariance diag (a full '
                                      'covariance would be sent whole)')
        robot = value('robot_id') or robot_id_from(hostname)
        check_id('robot_id', robot)
        self.sharing, self.taking = mode in ('share', 'both'), mode in ('take', 'both')
        self.mode = mode
        if value('fleet_frame') not in FLEET_FRAMES:
            raise HyperparameterError(f"fleet_frame={clipped(value('fleet_frame'), 60)} is not "
                                      f'one of {", ".join(FLEET_FRAMES)}')
        self.evidence = FleetEvidence(robot, check_id('fleet_name', value('fleet_name')),
                                      value('fleet_max_precision'), frame=value('fleet_frame'))
        self.every = int(value('fleet_share_every'))
        self.live, self.log = live, log
        self.counts: Counter = Counter()
        self._learner = None
        self._shared_at: Optional[int] = None
        self.peers = 0
        """Other nodes on the fleet topic, as ``nodes/fleet_link`` last counted them."""
        live.fleet = self  # its status() shows ours

    def _attach(self):
        """Return the learner now (None before the first vector), carrying our evidence."""
        learner = self.live.interaction.learner
        if learner is None or learner is self._learner:
            return learner
        held = getattr(learner, 'fleet', None)
        if held is not None and held is not self.evidence:  # read with the model file
            if held.fleet == self.evidence.fleet:
                held.robot, held.max_precision = self.evidence.robot, self.evidence.max_precision
                held.frame = self.evidence.frame
                held.refused, held.ignored = self.evidence.refused, self.evidence.ignored
                self.evidence = held
            else:
                self.log.warning(f'model file holds evidence of fleet {held.fleet!r}, not '
                                 f'{self.evidence.fleet!r}: not used')
        elif held is None and self._learner is not None:  # a reset: a fresh model
            self.evidence.forget()
            self._shared_at = None
        learner.fleet = self.evidence
        self._learner = learner
        return learner

    def share_text(self, force: bool = False) -> str:
        """
        Return the message to publish when a share is due ('' when not).

        Due once a model exists, then after every ``fleet_share_every`` updates.
        """
        if not self.sharing:
            return ''
        with self.live.lock:
            learner = self._attach()
            if learner is None:
                return ''
            self._merge(learner)
            updates = learner.n_updates
            if not force and self._shared_at is not None \
                    and updates - self._shared_at < self.every:
                return ''
            text = self.evidence.share(learner).to_text()
            self._shared_at = updates
            self.counts['shared'] += 1
        return text

    def take_text(self, text: Any) -> Tuple[List[str], str]:
        """Take a message; return (robots merged now, why it was refused or '')."""
        if not self.taking:
            return [], ''
        with self.live.lock:
            learner = self._attach()  # first: a model file's evidence is taken up
            new, why = self.evidence.take_text(text)
            merged = self._merge(learner) if learner is not None and new else []
        return merged, why

    def _merge(self, learner) -> List[str]:
        merged = self.evidence.merge(learner)
        if merged:
            self.counts['merges'] += 1
            self.live.saves.updates_since_save += 1  # saved with the next save
        return merged

    def status(self) -> Dict[str, Any]:
        """Return what /diagnostics shows of the fleet."""
        with self.live.lock:
            return {'fleet': self.mode, 'fleet_peers': self.peers,
                    'fleet_shared': self.counts['shared'],
                    'fleet_merges': self.counts['merges'], **self.evidence.status()}
