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
Seeded head answers among other motion, and the ask-again exchange, for the nod/shake detector.

Built on the signals of :mod:`banditlearn_ros.vision.head_motion_synth`: a person who answers
now and then among look-arounds, talking and idle sway (:func:`mixed_sequence`), and a "no"
followed by the question asked again (:func:`ask_again_run`), played into a listener frame by
frame so the second question opens when the listener's first answer came.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from banditlearn_ros.vision.head_motion_synth import (
    DEFAULT_RATE, GestureEvent, LATENCY_LIMIT, NOD, oscillation, PoseSequence, sample_times,
    sensor_noise, SHAKE, smooth_noise, talking_head, taper)
import numpy as np


def random_gesture(rng: np.random.Generator, kind: Optional[str] = None) -> Dict[str, float]:
    """
    Draw one answer's motion: kind, speed, size, cycles, cross-axis coupling, pose noise.

    Sizes reach down to the small, slow gestures (4-8 degrees at 1.2 Hz) a person makes.
    """
    kind = kind or str(rng.choice([NOD, SHAKE]))
    size = rng.uniform(4.0, 15.0) if kind == NOD else rng.uniform(6.0, 25.0)
    return {'kind': kind, 'frequency': float(rng.uniform(1.2, 3.0)), 'amplitude': float(size),
            'cycles': float(rng.choice([1.0, 1.5, 2.0, 2.5, 3.0])),
            'coupling': float(rng.uniform(0.0, 0.4)), 'noise': float(rng.uniform(0.3, 1.0)),
            'sign': 1.0 if kind == NOD else float(rng.choice([-1.0, 1.0]))}


def add_gesture(rng: np.random.Generator, t: np.ndarray, yaw: np.ndarray, pitch: np.ndarray,
                g: Dict[str, float], start: float) -> GestureEvent:
    """Add a drawn gesture (and its cross-axis coupling) at ``start``; return its event."""
    main = oscillation(t, start, g['frequency'], g['cycles'], g['amplitude'], g['sign'])
    other = oscillation(t, start, g['frequency'], g['cycles'], g['coupling'] * g['amplitude'],
                        float(rng.choice([-1.0, 1.0])))
    if g['kind'] == NOD:
        pitch += main
        yaw += other
    else:
        yaw += main
        pitch += other
    return GestureEvent(g['kind'], start, start + g['cycles'] / g['frequency'])


def look(t: np.ndarray, when: float, span: float, delta: float) -> np.ndarray:
    """Return a smooth one-way move of ``delta`` degrees over ``span`` seconds from ``when``."""
    s = np.clip((t - when) / span, 0.0, 1.0)
    return delta * s * s * (3.0 - 2.0 * s)


def mixed_sequence(rng: np.random.Generator, duration: float = 60.0, gestures: int = 6,
                   rate: float = DEFAULT_RATE) -> Tuple[PoseSequence, List[float]]:
    """
    Return a person who answers now and then among idle motion, talking and look-arounds.

    The time is cut into ``gestures`` slots; in each, a distractor (a look-around that turns
    the head one way and stays, talking, or idle sway) ends 0-1 s before the answer starts,
    so the answer's context holds that motion. Returns the sequence and the time of each
    answer's question (0.5-1.5 s before the answer starts).
    """
    t = sample_times(duration, rate)
    n = len(t)
    yaw = smooth_noise(rng, n, rate, 0.2, 0.8)
    pitch = smooth_noise(rng, n, rate, 0.2, 0.8)
    events, questions = [], []
    slot = duration / gestures
    for i in range(gestures):
        g = random_gesture(rng)
        length = g['cycles'] / g['frequency']
        start = i * slot + rng.uniform(3.5, max(3.6, slot - length - 1.5))
        kind = rng.choice(['look', 'talk', 'idle'])
        if kind == 'look':
            span = rng.uniform(0.8, 2.0)
            when = start - rng.uniform(0.0, 1.0) - span
            yaw += look(t, when, span, float(rng.choice([-1, 1]) * rng.uniform(10, 40)))
            pitch += look(t, when, span, float(rng.uniform(-10, 10)))
        elif kind == 'talk':
            talk_end = start - rng.uniform(0.0, 1.0)
            talk_len = rng.uniform(2.0, 3.0)
            talk = talking_head(talk_len, rng=rng, rate=rate, noise_std=0.0)
            lo = int(round((talk_end - talk_len) * rate))
            m = min(len(talk.t), n - lo)
            fade = taper(m, 0.1)
            yaw[lo:lo + m] += (talk.yaw[:m] - talk.yaw[0]) * fade
            pitch[lo:lo + m] += (talk.pitch[:m] - talk.pitch[0]) * fade
        events.append(add_gesture(rng, t, yaw, pitch, g, start))
        questions.append(start - float(rng.uniform(0.5, 1.5)))
        noise = g['noise']
        lo, hi = int((start - 2.0) * rate), int((start + length + 1.0) * rate)
        lo, hi = max(lo, 0), min(hi, n)
        yaw[lo:hi] += sensor_noise(rng, hi - lo, noise, 0.005)
        pitch[lo:hi] += sensor_noise(rng, hi - lo, noise, 0.005)
    yaw += sensor_noise(rng, n, 0.3, 0.001)
    pitch += sensor_noise(rng, n, 0.3, 0.001)
    return PoseSequence('mixed', t, yaw, pitch, np.zeros(n), events), questions


@dataclass
class AskAgainResult:
    """What one ask-again run gave: the first and the second answers and what they were."""

    first: GestureEvent
    second: GestureEvent
    question2: float
    first_decision: Optional[object]
    second_decisions: List[object]
    overlapped: bool
    between: int = 0  # answers published after the first and before question 2


def ask_again_run(rng: np.random.Generator, listener, rate: float = DEFAULT_RATE,
                  second_kind: Optional[str] = None, second_gain: float = 1.0) -> AskAgainResult:
    """
    Play one "no, then ask again" exchange into ``listener`` (the detector under test).

    A shake of 2-4 cycles answers question 1; question 2 opens 0.5-1 s after the listener's
    "no" (or after the shake if it gave none), and the second gesture (nod or shake) starts
    0.5-2 s after that, sometimes while the shake is still going (it then fades out over
    0.25 s as the new one starts). ``listener`` has ``ask(t)`` and ``frame(t, yaw, pitch)``,
    which returns a published decision or None. ``second_gain`` 0 plays the same run (the
    same draws) without the second gesture: an answer that run also gives did not need it.
    """
    first = random_gesture(rng, SHAKE)
    # An insistent "no": 2-4 cycles, so its tail often runs past the node's answer.
    first['cycles'] = float(rng.choice([2.0, 3.0, 4.0]))
    first['frequency'] = float(rng.uniform(1.2, 2.5))
    second = random_gesture(rng, second_kind)
    q1 = float(rng.uniform(1.5, 2.5))
    s1 = q1 + float(rng.uniform(0.5, 1.2))
    delay_q2, delay_s2 = float(rng.uniform(0.5, 1.0)), float(rng.uniform(0.5, 2.0))
    duration = s1 + 4.0 / 1.2 + 1.0 + 2.0 + 3.0 / 1.2 + 2.0
    t = sample_times(duration, rate)
    n = len(t)
    yaw = smooth_noise(rng, n, rate, 0.2, 0.8) + sensor_noise(rng, n, first['noise'], 0.005)
    pitch = smooth_noise(rng, n, rate, 0.2, 0.8) + sensor_noise(rng, n, first['noise'], 0.005)
    g1_yaw, g1_pitch = np.zeros(n), np.zeros(n)
    ev1 = add_gesture(rng, t, g1_yaw, g1_pitch, first, s1)
    g2_yaw, g2_pitch = np.zeros(n), np.zeros(n)
    asked = [q1]
    first_decision, second_decisions = None, []
    q2 = s2 = None
    ev2 = None
    overlapped = False
    between = 0
    i = 0
    while i < n:
        ti = t[i]
        if asked and ti >= asked[0]:
            listener.ask(asked.pop(0))
        if q2 is None and (first_decision is not None or ti > ev1.end + LATENCY_LIMIT):
            no_at = first_decision.stamp if first_decision is not None else ti
            q2 = no_at + delay_q2
            s2 = q2 + delay_s2
            asked.append(q2)
            if s2 < ev1.end:  # the second gesture starts while the shake is still going
                overlapped = True
                fade = np.clip((s2 - t) / 0.25, 0.0, 1.0)
                g1_yaw *= fade
                g1_pitch *= fade
                ev1 = GestureEvent(ev1.kind, ev1.start, s2)
            ev2 = add_gesture(rng, t, g2_yaw, g2_pitch, second, s2)
            g2_yaw *= second_gain
            g2_pitch *= second_gain
        d = listener.frame(ti, yaw[i] + g1_yaw[i] + g2_yaw[i],
                           pitch[i] + g1_pitch[i] + g2_pitch[i])
        if d is not None:
            if q2 is None and first_decision is None:
                first_decision = d
            elif q2 is None or ti < q2:
                between += 1
            else:
                second_decisions.append(d)
        i += 1
    return AskAgainResult(ev1, ev2, q2, first_decision, second_decisions, overlapped,
                          between)
