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
What a live learner reports: progress, finished interactions, whether it learns, warnings.

``live_learner.LiveLearner`` makes these; the learner node publishes them and a bring-up
prints them, neither reaching into the learner's ``Interaction``.
"""

from dataclasses import dataclass
from typing import Any, Dict, Optional

from ..protocol.ask_again import NAMEABLE, OUTCOMES, Protocol
from ..protocol.interaction_records import BAD_INPUT_REASONS, DROP_REASONS

# What /diagnostics shows of ``Interaction.stats()``.
STATS_SHOWN = (
    ['predictions', 'feedback_received', 'feedback_matched', 'feedback_dropped']
    + ['feedback_dropped_' + r for r in DROP_REASONS]
    + ['features_refused'] + ['features_' + r for r in BAD_INPUT_REASONS]
    + ['centring_outliers']
    + ['unanswered', 'unanswered_superseded', 'unanswered_expired', 'unanswered_overflow',
       'mistake_rate_window', 'mistake_rate', 'exploration_rate_window', 'exploration_rate',
       'updates', 'max_questions', 'interactions', 'questions_asked',
       'questions_per_interaction', 'questions_per_interaction_window', 'first_guess_accuracy',
       'first_guess_accuracy_window', 'first_guess_window_rounds', 'first_guess_right_window']
    + ['interactions_' + o for o in OUTCOMES]
    + ['unknown_rejected', 'unknown_taught_armed', 'unknown_false_rejections',
       'unknown_false_rejection_rate', 'unknown_threshold', 'unknown_alpha',
       'unknown_kept_confident', 'unknown_held', 'unknown_held_confirmed',
       'unknown_audited_out', 'unknown_early_false_rejections', 'unknown_denied_out'])

LEAST_FIRST_GUESSES = 20
"""First guesses a window needs before ``learning_check`` judges it (none during the first
interactions, when every learner is at chance)."""

SIGNIFICANCE = 0.05
"""``learning_check`` warns unless chance would reach the first guesses' score this rarely."""


@dataclass(frozen=True)
class Progress:
    """What a bring-up or a session view shows of a live learner, read at one moment."""

    predictions: int
    """Interactions started (first questions asked or gestures rejected as never taught)."""
    feedback_received: int
    feedback_matched: int
    feedback_dropped: int
    dropped_by: Dict[str, int]
    """The drops with their reason (``DROP_REASONS``), those that happened only."""
    updates: int
    """Model updates this run made (the learner's ``n_updates`` less a loaded model's)."""
    mistake_rate: float
    """First guesses the person said were wrong, over all (NaN before the first)."""
    mistake_rate_window: float
    exploration_rate_window: float
    learning_problem: str
    """``learning_check`` of the windowed first guesses ('' while learning)."""


@dataclass(frozen=True)
class Announcement:
    """One finished interaction, as the node says it (``gesture_interaction``)."""

    interaction: Dict[str, Any]
    """The ``gesture_interaction`` message's JSON object."""
    unknown: Optional[Dict[str, Any]]
    """The ``gesture_unknown`` message's JSON object, when a person may name the gesture."""
    note: str
    """A log line for a gesture that may be unknown ('' = none)."""


def announcement(ended, stamp: float) -> Announcement:
    """Return how the node announces ``ended`` (a ``rounds.Ended``) at time ``stamp``."""
    info = {**ended.as_dict(), 'stamp': stamp}
    unknown = None
    if ended.outcome in NAMEABLE:
        unknown = {'id': ended.id, 'labels': info['rejected'], 'outcome': ended.outcome,
                   'stamp': stamp, **{k: v for k, v in info.items() if k.startswith('unknown_')}}
    note = ''
    if ended.outcome == 'unknown':
        note = (f'interaction {ended.id}: looks never taught (score {info["unknown_score"]}, '
                f'threshold {info["unknown_threshold"]}): what is it?')
    elif ended.outcome == 'all_rejected':
        note = f'interaction {ended.id}: every label was rejected (an unknown gesture?)'
    return Announcement(info, unknown, note)


def learning_check(right: int, rounds: int, n_labels: int, least: int = LEAST_FIRST_GUESSES,
                   significance: float = SIGNIFICANCE) -> str:
    """
    Return why a window of first guesses shows no learning, or '' when it does.

    A learner that learns nothing guesses right with probability 1/K for K labels, so its
    right first guesses over ``rounds`` are Binomial(rounds, 1/K).  The window shows
    learning when so many right guesses are rare under chance: the one-sided binomial
    p-value ``P(X >= right)`` is at most ``significance``.  Judged only past ``least``
    rounds.  The answers are the person's (a wrong answer counts as said).

    Parameters
    ----------
    right : int
        First guesses answered "yes" in the window.
    rounds : int
        First guesses answered in the window.
    n_labels : int
        Labels the learner chooses from.
    least, significance : int, float
        See ``LEAST_FIRST_GUESSES`` and ``SIGNIFICANCE``.

    Returns
    -------
    str
        A one-line warning with the figures, or ''.

    """
    if rounds < least or n_labels < 2:
        return ''
    chance = 1.0 / n_labels
    # bdtrc(k, n, p) = P(X > k), the tail binom.sf gives; imported here, off the node's start.
    from scipy.special import bdtrc
    p_value = float(bdtrc(right - 1, rounds, chance))
    if p_value <= significance:
        return ''
    return (f'not learning: first guess right {right} of the last {rounds} '
            f'({100.0 * right / rounds:.0f} %), chance for {n_labels} labels is '
            f'{100.0 * chance:.0f} % (binomial p = {p_value:.2f} > {significance:g})')


def progress_of(stats: Dict[str, Any], n_labels: int, loaded_updates: int = 0) -> Progress:
    """
    Return the ``Progress`` of an interaction's ``stats()`` with ``n_labels`` labels.

    ``loaded_updates``: the updates a loaded model had made, which this run did not.
    """
    return Progress(
        predictions=int(stats['predictions']),
        feedback_received=int(stats['feedback_received']),
        feedback_matched=int(stats['feedback_matched']),
        feedback_dropped=int(stats['feedback_dropped']),
        dropped_by={r: int(stats['feedback_dropped_' + r]) for r in DROP_REASONS
                    if stats['feedback_dropped_' + r]},
        updates=max(int(stats['updates']) - loaded_updates, 0),
        mistake_rate=stats['mistake_rate'],
        mistake_rate_window=stats['mistake_rate_window'],
        exploration_rate_window=stats['exploration_rate_window'],
        learning_problem=learning_check(int(stats['first_guess_right_window']),
                                        int(stats['first_guess_window_rounds']), n_labels))


def capped_warning(protocol: Protocol, algorithm: str) -> str:
    """Return why ``algorithm`` asks fewer questions than ``max_questions``, or ''."""
    asked = protocol.questions_for(algorithm)
    if asked == protocol.max_questions:
        return ''
    return (f'{algorithm} cannot ask again: one question per gesture '
            f'(max_questions {protocol.max_questions} acts as {asked})')


def outlier_warning(outliers: int) -> str:
    """
    Return the warning for the ``outliers``-th vector whose step of the mean was bounded.

    Said for the 1st, 2nd, 4th, 8th ... only ('' otherwise): a burst cannot flood the log.
    """
    if outliers & (outliers - 1):
        return ''
    return (f'feature vector far outside the spread of those before ({outliers} so far, '
            'centring_outliers): its step of the running mean was bounded')
