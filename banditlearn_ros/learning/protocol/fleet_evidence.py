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
A fleet of robots that share what each learned: evidence out, evidence in, one merged model.

Why it can be done.  UCWL keeps, per label, a Gaussian N(mu, Sigma) over the weights, with
Sigma diagonal (Ngo et al. 2013, Algorithm 1 and section 5).  Gaussian posteriors reached from
one prior by independent evidence combine by adding natural parameters: the merged precision
is the prior's plus each robot's gain ``Sigma_r^-1 - Sigma_0^-1``, and the merged
precision-weighted mean likewise ``Sigma_r^-1 mu_r - Sigma_0^-1 mu_0``.  Dredze, Crammer and
Pereira (2008), "Confidence-weighted linear classification", ICML, section 7, note that
confidence-weighted classifiers lend themselves to combination after parallel training; the
same product-of-Gaussians rule underlies posterior-averaging federated learning.  The
soft-confidence-weighted step is not Bayes' rule (its mean moves by a capped step, its
precision only grows), so the merged model is an approximation of one learned on all the
data; how close it comes is measured (``banditlearn_evaluate --fleet``), not assumed.

What is kept.  Per label name: the prior the robot started from (``prior``), the robot's own
evidence (``own``), and each other robot's latest evidence (``taken``, by robot id).  The model
the learner runs on is always ``prior + own + sum of taken``, the taken ones summed in sorted
robot-id order, so merging is order-free and idempotent bit for bit: the same inputs give the
same floats whatever order they came in, and a version already taken changes nothing.  The
robot's own evidence is what its model gained since the last merge, found by subtracting
the taken evidence from the running model, only for the labels whose rows changed since
(so a merge with no local learning between leaves ``own`` untouched, bit for bit).

Centring (the running feature mean, ``algorithms/centring``) is pooled: counts add, the
merged mean is the count-weighted mean of the robots' means, the spread the
distance-count-weighted mean of their spreads; so every robot centres with the fleet's mean.
With ``frame='fixed'`` (default) it stops once the pooled count reaches the warm-up
(``Centring.fixed_after``): rows scored ``mu . (x - c)`` without a bias would each shift by
``mu . (c_then - c_now)`` under a mean that kept moving (``'moving'``, as before).
The robust bound (``OUTLIER_LIMIT``) stays each robot's: its outlier count is not merged,
and vectors a robot bounded enter the pool as that robot bounded them.

Limits.  ``covariance: full`` is refused (its d x d precision would be sent whole); only
UCWL is merged.  A label whose model learned before this module saw it is taken as started
from N(0, I) (Algorithm 1's prior), with its precision capped at the current one so the
evidence is never negative: exact for a label configured at start, an approximation for a
label added at runtime from the mixture prior.  Labels are appended in sorted name order
when several arrive in one merge; labels that arrive in separate merges are appended as
they come, so two robots can hold the same labels in different rows (compared by name).
"""

from collections import Counter
from dataclasses import dataclass
import hashlib
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from .fleet_message import (CentringStats, check_id, Evidence, EvidenceError, FLEET_FRAMES,
                            MAX_PRECISION, REFUSALS)
from ..algorithms.confidence_weighted import initial_gaussian


def _digest(*parts: Any) -> str:
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part.tobytes() if isinstance(part, np.ndarray) else repr(part).encode())
    return h.hexdigest()


@dataclass
class Merged:
    """What /diagnostics says of one robot's evidence in the model."""

    version: int
    when: float
    updates: int
    labels: int


class FleetEvidence:
    """
    One robot's side of the fleet: its prior and own evidence, the others' latest evidence.

    Reads a learner's ``state_dict()`` and gives the merged state back (``take_learned``).
    Not thread-safe: the live learner's lock covers it.

    Parameters
    ----------
    robot, fleet : str
        This robot's id and its fleet's name (``check_id``).
    max_precision : float
        Largest precision gain taken from another robot.
    clock : callable
        Wall-clock seconds, for versions and /diagnostics.
    frame : str
        One of ``FLEET_FRAMES`` (the module says why ``fixed``).

    Examples
    --------
    >>> from banditlearn_ros.learning.algorithms.ucwl import UCWL
    >>> a, b = UCWL(['fist', 'palm'], 2), UCWL(['fist', 'palm'], 2)
    >>> fa, fb = FleetEvidence('a', 'lab'), FleetEvidence('b', 'lab')
    >>> a.learn([1.0, 0.0], 'fist', True)
    True
    >>> fb.take(Evidence.from_text(fa.share(a).to_text()))
    True
    >>> fb.merge(b)
    ['a']
    >>> bool(b.scores([1.0, 0.0])[0] > 0)
    True

    """

    def __init__(self, robot: str, fleet: str, max_precision: float = MAX_PRECISION,
                 clock: Callable[[], float] = time.time, frame: str = 'fixed'):
        if frame not in FLEET_FRAMES:
            raise ValueError(f'fleet frame {frame!r} is not one of {list(FLEET_FRAMES)}')
        self.frame = frame
        self.robot = check_id('robot id', robot)
        self.fleet = check_id('fleet name', fleet)
        self.max_precision = float(max_precision)
        self.clock = clock
        self.version = 0
        self.prior: Dict[str, Tuple[np.ndarray, np.ndarray]] = {}
        self.own: Dict[str, Tuple[np.ndarray, np.ndarray]] = {}
        self.own_answers: Dict[str, int] = {}
        self.own_confirmed: Dict[str, Optional[int]] = {}
        self.own_centring: Optional[CentringStats] = None
        self.taken: Dict[str, Evidence] = {}
        self.pending: Dict[str, Evidence] = {}
        self.merged: Dict[str, Merged] = {}
        self.refused: Counter = Counter()
        self.ignored: Counter = Counter()
        """Messages not used, by why: ``own`` (this robot's, echoed), ``other_fleet``,
        ``stale`` (a version taken already)."""
        self.digests: Dict[str, str] = {}
        """Per label, a hash of its rows as last seen: only changed rows are own learning."""
        self.centring_digest = ''

    # -- the learner's state <-> natural parameters ------------------------------------
    @staticmethod
    def _check_learner(state: Dict[str, Any]) -> None:
        if state.get('algorithm') != 'ucwl' or \
                state['hyperparameters'].get('covariance') != 'diag':
            raise ValueError('the fleet merges UCWL with covariance: diag only (a full '
                             'covariance would be sent whole)')

    def _unit_prior(self, d: int) -> Tuple[np.ndarray, np.ndarray]:
        mu0 = initial_gaussian('mu', 1, d, 'diag')[0]
        precision0 = 1.0 / initial_gaussian('sigma', 1, d, 'diag')[0]
        return precision0, precision0 * mu0

    def _taken_sum(self, name: str, index: int) -> Optional[np.ndarray]:
        """Sum of the taken evidence of label ``name`` (index 0 precision, 1 weighted)."""
        total = None
        for robot in sorted(self.taken):
            ev = self.taken[robot]
            if name in ev.labels:
                row = (ev.precision, ev.weighted)[index][ev.labels.index(name)]
                total = row.copy() if total is None else total + row
        return total

    def observe(self, state: Dict[str, Any]) -> None:
        """Bring the robot's own evidence up to date with its learner's ``state_dict()``."""
        self._check_learner(state)
        mu, sigma = state['arrays']['mu'], state['arrays']['sigma']
        extra = state.get('extra') or {}
        answers = extra.get('answers', [0] * len(state['labels']))
        confirmations = extra.get('confirmations', {})
        for i, name in enumerate(state['labels']):
            digest = _digest(mu[i], sigma[i], answers[i], confirmations.get(name))
            if self.digests.get(name) == digest:
                continue
            precision = 1.0 / sigma[i]
            weighted = precision * mu[i]
            if name not in self.prior:
                if answers[i] == 0:  # nothing learned yet: its start is its prior
                    self.prior[name] = (precision.copy(), weighted.copy())
                else:  # learned before the fleet saw it: N(0, I), capped (see the module)
                    p0, w0 = self._unit_prior(mu.shape[1])
                    self.prior[name] = (np.minimum(p0, precision), w0)
            p0, w0 = self.prior[name]
            own_p, own_w = precision - p0, weighted - w0
            taken_p, taken_w = self._taken_sum(name, 0), self._taken_sum(name, 1)
            if taken_p is not None:
                own_p, own_w = own_p - taken_p, own_w - taken_w
            self.own[name] = (own_p, own_w)
            taken_answers = sum(ev.answers[ev.labels.index(name)]
                                for ev in self.taken.values() if name in ev.labels)
            self.own_answers[name] = max(int(answers[i]) - taken_answers, 0)
            if name in confirmations:
                taken_yes = sum(ev.confirmed[ev.labels.index(name)] or 0
                                for ev in self.taken.values() if name in ev.labels)
                self.own_confirmed[name] = max(int(confirmations[name]) - taken_yes, 0)
            else:
                self.own_confirmed.setdefault(name, None)
            self.digests[name] = digest
        self._observe_centring(extra.get('centring'), mu.shape[1])

    def _observe_centring(self, held: Optional[Dict[str, Any]], d: int) -> None:
        if held is None:
            self.own_centring = None
            return
        mean = np.zeros(d) if held.get('mean') is None else np.asarray(held['mean'], float)
        digest = _digest(held['mode'], held['count'], mean, held['spread'],
                         held['spread_count'])
        if digest == self.centring_digest:
            return
        others = [ev.centring for _, ev in sorted(self.taken.items())
                  if ev.centring is not None]
        count = held['count'] - sum(c.count for c in others)
        total = mean * held['count']
        for c in others:
            total = total - c.mean * c.count
        spread_count = held['spread_count'] - sum(c.spread_count for c in others)
        spread = held['spread'] * held['spread_count'] - sum(
            c.spread * c.spread_count for c in others)
        self.own_centring = CentringStats(
            held['mode'], max(count, 0), total / count if count > 0 else np.zeros(d),
            max(spread_count, 0), max(spread / spread_count, 0.0) if spread_count > 0 else 0.0)
        self.centring_digest = digest

    # -- out ---------------------------------------------------------------------------
    def share(self, learner) -> Evidence:
        """Return this robot's own evidence now, under a newer version than any before."""
        c = learner.centring  # sharing joins the fleet's frame too
        c.fixed_after = self.frame_stop(c.mode, c.warmup)
        state = learner.state_dict()
        self.observe(state)
        self.version = max(self.version + 1, int(self.clock() * 1000))
        labels = tuple(name for name in state['labels'] if name in self.own)
        d = int(state['n_features'])
        precision = np.array([self.own[n][0] for n in labels]).reshape(len(labels), d)
        weighted = np.array([self.own[n][1] for n in labels]).reshape(len(labels), d)
        return Evidence(self.robot, self.fleet, self.version, labels, precision, weighted,
                        tuple(self.own_answers[n] for n in labels),
                        tuple(self.own_confirmed[n] for n in labels),
                        int(state['extra'].get('n_updates', 0)), self.own_centring)

    # -- in ----------------------------------------------------------------------------
    def take(self, evidence: Evidence) -> bool:
        """
        Hold another robot's evidence for the next ``merge``; return whether it is new.

        This robot's own (echoed by the topic), another fleet's and a version not newer
        than the one held are counted in ``ignored`` and change nothing.
        """
        if evidence.robot == self.robot:
            self.ignored['own'] += 1
            return False
        if evidence.fleet != self.fleet:
            self.ignored['other_fleet'] += 1
            return False
        held = self.pending.get(evidence.robot) or self.taken.get(evidence.robot)
        if held is not None and evidence.version <= held.version:
            self.ignored['stale'] += 1
            return False
        self.pending[evidence.robot] = evidence
        return True

    def take_text(self, text: Any) -> Tuple[bool, str]:
        """``take`` a message's text; return (new, why refused or '') and count a refusal."""
        try:
            evidence = Evidence.from_text(text, self.max_precision)
        except EvidenceError as exc:
            self.refused[exc.reason] += 1
            return False, f'{exc.reason}: {exc}'
        return self.take(evidence), ''

    def merge(self, learner) -> List[str]:
        """
        Put the pending evidence into ``learner``; return the robots merged (sorted).

        Evidence that does not fit this learner (feature size, centring mode) or that would
        make a precision not positive is refused and counted, and the rest merged.
        """
        if not self.pending:
            return []
        state = learner.state_dict()
        self.observe(state)
        d = int(state['n_features'])
        own_mode = (state['extra'].get('centring') or {}).get('mode', 'none')
        accepted = []
        for robot in sorted(self.pending):
            ev = self.pending[robot]
            if ev.n_features != d:
                self.refused['wrong_size'] += 1
            elif (ev.centring.mode if ev.centring is not None else 'none') != own_mode:
                self.refused['centring_mismatch'] += 1
            else:
                accepted.append(ev)
        self.pending = {}
        if not accepted:
            return []
        before = dict(self.taken)
        for ev in accepted:
            self.taken[ev.robot] = ev
        try:
            composed = self.compose(state)
            take_learned(learner, composed)
        except (ValueError, FloatingPointError):
            self.taken = before
            self.refused['bad_result'] += len(accepted)
            return []
        now = self.clock()
        for ev in accepted:
            self.merged[ev.robot] = Merged(ev.version, now, ev.updates, len(ev.labels))
        self._remember(learner.state_dict())
        return [ev.robot for ev in accepted]

    def frame_stop(self, mode: str, warmup: int) -> Optional[int]:
        """Return the pooled count after which a centring mean stops, or None (it moves)."""
        return warmup if self.frame == 'fixed' and mode in ('running', 'mean') else None

    def _remember(self, state: Dict[str, Any]) -> None:
        """Take the rows a merge set as seen: they are not this robot's learning."""
        mu, sigma = state['arrays']['mu'], state['arrays']['sigma']
        extra = state.get('extra') or {}
        confirmations = extra.get('confirmations', {})
        for i, name in enumerate(state['labels']):
            self.digests[name] = _digest(mu[i], sigma[i], extra['answers'][i],
                                         confirmations.get(name))
        held = extra.get('centring')
        if held is not None:
            mean = np.zeros(mu.shape[1]) if held.get('mean') is None else np.asarray(
                held['mean'], float)
            self.centring_digest = _digest(held['mode'], held['count'], mean,
                                           held['spread'], held['spread_count'])

    def compose(self, state: Dict[str, Any]) -> Dict[str, Any]:
        """Return ``state`` with the model ``prior + own + taken`` (sorted robots)."""
        d = int(state['n_features'])
        labels = list(state['labels'])
        arriving = sorted({n for ev in self.taken.values() for n in ev.labels} - set(labels))
        unit = self._unit_prior(d)
        rows_p, rows_w, answers = [], [], []
        extra = dict(state.get('extra') or {})
        confirmations = dict(extra.get('confirmations', {}))
        for name in labels + arriving:
            if name not in self.prior:  # arriving from the fleet: its own prior is N(0, I)
                self.prior[name] = unit
                self.own[name] = (np.zeros(d), np.zeros(d))
                self.own_answers[name] = 0
                self.own_confirmed[name] = None
            p0, w0 = self.prior[name]
            own_p, own_w = self.own[name]
            precision, weighted = p0 + own_p, w0 + own_w
            n_answers = self.own_answers[name]
            yes = self.own_confirmed.get(name) or 0
            exempt = name not in confirmations and name not in arriving
            for robot in sorted(self.taken):
                ev = self.taken[robot]
                if name in ev.labels:
                    j = ev.labels.index(name)
                    precision = precision + ev.precision[j]
                    weighted = weighted + ev.weighted[j]
                    n_answers += ev.answers[j]
                    exempt = exempt or ev.confirmed[j] is None
                    yes += ev.confirmed[j] or 0
            if not (precision > 0.0).all() or not np.isfinite(precision).all():
                raise ValueError(f'merged precision of label {name!r} is not positive')
            rows_p.append(precision)
            rows_w.append(weighted)
            answers.append(n_answers)
            if name in arriving and not exempt:
                confirmations[name] = yes
            elif name in confirmations:
                if exempt:
                    del confirmations[name]
                else:
                    confirmations[name] = yes
        precision, weighted = np.array(rows_p), np.array(rows_w)
        sigma = 1.0 / precision
        mu = weighted / precision
        extra['answers'] = answers
        if confirmations:
            extra['confirmations'] = confirmations
        else:
            extra.pop('confirmations', None)
        if extra.get('centring') is not None and self.own_centring is not None:
            extra['centring'] = self._pooled_centring(extra['centring'])
        arrays = dict(state['arrays'], mu=mu, sigma=sigma)
        return dict(state, labels=labels + arriving, arrays=arrays, extra=extra)

    def _pooled_centring(self, held: Dict[str, Any]) -> Dict[str, Any]:
        """Return ``held`` with the pooled count, mean and spread of own + taken."""
        held = dict(held, fixed_after=self.frame_stop(held['mode'], held['warmup']))
        parts = [self.own_centring] + [ev.centring for _, ev in sorted(self.taken.items())
                                       if ev.centring is not None]
        count = sum(c.count for c in parts)
        if count == 0:
            return held
        total = parts[0].mean * parts[0].count
        for c in parts[1:]:
            total = total + c.mean * c.count
        spread_count = sum(c.spread_count for c in parts)
        spread = sum(c.spread * c.spread_count for c in parts)
        spread = spread / spread_count if spread_count else 0.0
        return dict(held, count=count, mean=(total / count).tolist(),
                    spread_count=spread_count, spread=spread)

    def forget(self) -> None:
        """Forget everything but the id, the version and the counts (the model was reset)."""
        self.prior, self.own, self.own_answers, self.own_confirmed = {}, {}, {}, {}
        self.own_centring, self.taken, self.pending, self.merged = None, {}, {}, {}
        self.digests, self.centring_digest = {}, ''

    # -- /diagnostics --------------------------------------------------------------------
    def status(self) -> Dict[str, Any]:
        """Return what /diagnostics shows: robots merged, when, updates each; refusals."""
        values: Dict[str, Any] = {
            'fleet_robot_id': self.robot, 'fleet_name': self.fleet,
            'fleet_version': self.version, 'fleet_robots_merged': ','.join(sorted(self.merged))}
        for robot, m in sorted(self.merged.items()):
            values[f'fleet_merged.{robot}'] = (
                f'version {m.version}, {m.updates} updates, {m.labels} labels, at '
                + time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(m.when)))
        for reason in REFUSALS:
            values[f'fleet_refused_{reason}'] = self.refused[reason]
        for why in ('own', 'other_fleet', 'stale'):
            values[f'fleet_ignored_{why}'] = self.ignored[why]
        return values


def take_learned(learner, state: Dict[str, Any]) -> None:
    """
    Put the learned arrays and counts of ``state`` (``state_dict``'s form) into ``learner``.

    In place, so that what holds the learner (an ``Interaction`` with a question open) keeps
    it.  ``state`` has the learner's features and its labels start with the learner's (new
    ones are appended with ``add_label``).  ``from_state_dict`` checks everything first: on a
    refused state (ValueError) nothing changes.  Hyperparameters and the random generator
    stay.
    """
    labels = list(state['labels'])
    if state['n_features'] != learner.n_features or labels[:learner.n_labels] != learner.labels:
        raise ValueError("a merged state must have the learner's features and start with its "
                         'labels')
    checked = type(learner).from_state_dict(dict(state, hyperparameters=learner.get_params(),
                                                 seed=learner.seed, rng_state=None))
    for name in labels[learner.n_labels:]:
        learner.add_label(name)
    learner.take_learned(checked, state.get('extra') or {})
