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
How sure a run of swings on one axis is a nod (pitch) or a shake (yaw): its confidence.

The nod/shake detector (:mod:`banditlearn_ros.vision.head_gesture`) finds the latest run of
swings on each axis and scores both here; the larger confidence decides. The score multiplies
how many reversals, how large and how fast the swings are, how little the other axis moved
and how the run stands out from the head's motion before it (``head_context``).
"""

from typing import Iterable, List, Sequence, Tuple

from banditlearn_ros.vision.head_context import background_spread, came_down_into, extent
from banditlearn_ros.vision.head_swings import Swing
import numpy as np


def score_run(run: List[Swing], seen: List[Swing], own: int, settings,
              ts: Sequence[float], vals: Sequence[Tuple[float, float]],
              spans: Iterable[Sequence[float]]) -> Tuple[float, int, float]:
    """
    Return (confidence, reversals, median swing) of one axis' run.

    Parameters
    ----------
    run : list of Swing
        The run's swings, oldest first, with their core times.
    seen : list of Swing
        Those of them the face was seen throughout (a swing across a lost face is unseen
        motion: it counts as a reversal, not as a size or a speed).
    own : int
        0 for yaw (a shake), 1 for pitch (a nod).
    settings : HeadGestureDetector
        The detector, for its parameters (``min_reversals``, ``min_swing``, ... read as they
        are now, so a parameter changed at run time counts at once).
    ts, vals : sequence
        The filtered (yaw, pitch) history, as ``head_context`` takes it.
    spans : iterable of [start, end]
        Earlier answers, left out of the background motion.

    """
    p = settings
    reversals = len(run) - 1
    if reversals < p.min_reversals:
        return 0.0, max(reversals, 0), 0.0
    duration = run[-1].tb - run[0].t0
    if not p.min_duration <= duration <= p.max_duration:
        return 0.0, reversals, 0.0
    amplitudes = np.array([s.amplitude for s in seen])
    speeds = np.array([s.amplitude / s.duration for s in seen])
    ranges = extent(ts, vals, run[0].t0, run[-1].tb, p.cross_trim)
    cross = ranges[1 - own] / max(ranges[own], 1e-9)
    s_osc = min(1.0, (reversals + 1.0) / (p.min_reversals + 2.0))
    sizes = amplitudes
    if p.edge_amplitude and len(sizes) >= 3:
        # The first and last swings start or end at rest: half swings by nature.
        sizes = amplitudes.copy()
        sizes[[0, -1]] = np.minimum(2.0 * sizes[[0, -1]], sizes.max())
    s_amp = min(1.0, float(np.median(sizes)) / (2.0 * p.min_swing))
    s_speed = min(1.0, float(np.median(speeds)) / (2.0 * p.min_speed))
    s_cross = min(1.0, max(0.0, (p.max_cross_ratio - cross) / (0.5 * p.max_cross_ratio)))
    background = background_spread(  # earlier answers left out
        ts, vals, own, run[0].t0, p.context, p.detrend_yaw if own == 0 else p.detrend_pitch,
        spans)
    contrast = float(amplitudes.max()) / max(background, 1e-9)
    need = (p.min_contrast - 1.0) * p.contrast_per_reversal ** (reversals - p.min_reversals)
    s_ctx = min(1.0, max(0.0, (contrast - 1.0) / max(need, 1e-9)))
    confidence = (s_osc * s_amp * s_speed) ** (1.0 / 3.0) * s_cross * s_ctx
    if own == 1 and p.nod_down_first and not went_down_first(run[0], settings, ts, vals):
        confidence *= 0.5  # a "yes" nod starts downward; up first is likely other motion
    return float(confidence), reversals, float(np.median(amplitudes))


def went_down_first(first: Swing, settings, ts: Sequence[float],
                    vals: Sequence[Tuple[float, float]]) -> bool:
    """Return whether a pitch oscillation began with the head going down (``score_run``)."""
    return first.v1 > first.v0 or came_down_into(
        ts, vals, first.turn, first.v0, settings.max_swing_duration, 0.25 * settings.min_swing)
