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
Synthetic head-pose sequences for testing the nod/shake detector.

Angles are degrees relative to the neutral pose, with the sign convention of
:mod:`banditlearn_ros.vision.head_pose`: pitch > 0 is the head turned down, yaw > 0 the nose
turned toward the image's left. Every sequence is seeded; the scoring rule lives here too, so
tests and the benchmark count hits, misses and false answers the same way.
Answers among other motion and the ask-again exchange are in
:mod:`banditlearn_ros.vision.head_answer_synth`; faces turned by a pose in
:mod:`banditlearn_ros.vision.face_warp`.
"""

from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence

import numpy as np

NOD, SHAKE = 'nod', 'shake'

DEFAULT_RATE = 30.0
"""Frames per second of a synthetic sequence (a typical webcam)."""

LATENCY_LIMIT = 0.3
"""A decision later than this after the gesture's end counts as a miss (the target)."""


@dataclass
class GestureEvent:
    """One intended answer inside a sequence: its kind and when the motion starts and ends."""

    kind: str
    start: float
    end: float

    @property
    def answer(self) -> bool:
        """Return the feedback the gesture means (nod = right = True)."""
        return self.kind == NOD


@dataclass
class PoseSequence:
    """Time stamps and relative yaw/pitch/roll in degrees, with the gestures it holds."""

    condition: str
    t: np.ndarray
    yaw: np.ndarray
    pitch: np.ndarray
    roll: np.ndarray
    events: List[GestureEvent] = field(default_factory=list)

    @property
    def duration(self) -> float:
        """Return the length in seconds (frames x frame period)."""
        if len(self.t) < 2:
            return 0.0
        return float(self.t[-1] - self.t[0]) * len(self.t) / (len(self.t) - 1)


def taper(n: int, ramp: float = 0.2) -> np.ndarray:
    """Return a Tukey-like window so a gesture starts and ends at rest with zero speed."""
    w = np.ones(n)
    k = max(1, int(round(ramp * n)))
    ramp_up = 0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, k))
    w[:k] = ramp_up
    w[-k:] = ramp_up[::-1]
    return w


def oscillation(t: np.ndarray, start: float, frequency: float, cycles: float,
                amplitude: float, sign: float = 1.0, decay: float = 0.0) -> np.ndarray:
    """
    Return a tapered sine burst: the angle of one nod or shake, zero outside it.

    Parameters
    ----------
    t : np.ndarray
        Sample times (s).
    start : float
        Start of the motion (s).
    frequency : float
        Oscillation frequency (Hz); two direction changes a cycle.
    cycles : float
        Number of cycles.
    amplitude : float
        Peak angle (deg), half the peak-to-peak swing.
    sign : float
        +1 starts toward positive angles (down for pitch), -1 the other way.
    decay : float
        Exponential amplitude decay per cycle (0 = steady), as in a nod that fades out.

    """
    out = np.zeros_like(t, dtype=float)
    duration = cycles / frequency
    inside = (t >= start) & (t <= start + duration)
    if not inside.any():
        return out
    tau = t[inside] - start
    envelope = taper(int(inside.sum())) * np.exp(-decay * tau * frequency)
    out[inside] = sign * amplitude * envelope * np.sin(2.0 * np.pi * frequency * tau)
    return out


def smooth_noise(rng: np.random.Generator, n: int, rate: float, cutoff: float,
                 rms: float) -> np.ndarray:
    """Return band-limited Gaussian noise (moving-average filtered) with a given rms."""
    if rms <= 0:
        return np.zeros(n)
    width = max(1, int(round(rate / max(cutoff, 1e-3))))
    raw = rng.standard_normal(n + width)
    kernel = np.hanning(width + 2)[1:-1]
    smooth = np.convolve(raw, kernel / kernel.sum(), mode='same')[:n]
    std = smooth.std()
    return smooth * (rms / std) if std > 0 else smooth


def sensor_noise(rng: np.random.Generator, n: int, std: float = 0.6,
                 outlier_rate: float = 0.0, outlier_size: float = 8.0) -> np.ndarray:
    """Return white pose-estimate jitter plus rare one-frame outliers (landmark glitches)."""
    noise = rng.normal(0.0, std, n)
    if outlier_rate > 0:
        hits = rng.random(n) < outlier_rate
        noise[hits] += rng.choice([-1.0, 1.0], hits.sum()) * outlier_size * (
            0.5 + rng.random(hits.sum()))
    return noise


def sample_times(duration: float, rate: float) -> np.ndarray:
    """Return the frame times of ``duration`` seconds at ``rate`` frames per second."""
    return np.arange(int(round(duration * rate))) / rate


def gesture_sequence(kind: str, frequency: float, amplitude: float, cycles: float, *,
                     rng: np.random.Generator, rate: float = DEFAULT_RATE,
                     coupling: float = 0.0, noise_std: float = 0.3, outlier_rate: float = 0.0,
                     decay: float = 0.0, condition: Optional[str] = None) -> PoseSequence:
    """
    Build rest, one nod or shake, rest; with optional cross-axis coupling and sensor noise.

    ``coupling`` is the other axis' amplitude as a fraction of the main one, with a random
    phase: real nods carry some yaw and real shakes some pitch and roll.
    """
    lead, tail = rng.uniform(0.8, 1.6), rng.uniform(1.2, 2.0)
    duration = cycles / frequency
    t = sample_times(lead + duration + tail, rate)
    sign = 1.0 if kind == NOD else float(rng.choice([-1.0, 1.0]))
    main = oscillation(t, lead, frequency, cycles, amplitude, sign, decay)
    other = np.zeros_like(t)
    roll = np.zeros_like(t)
    if coupling > 0:
        phase_shift = rng.uniform(-0.25, 0.25) / frequency
        other = oscillation(t, lead + max(phase_shift, 0.0), frequency,
                            cycles - abs(phase_shift) * frequency, coupling * amplitude,
                            float(rng.choice([-1.0, 1.0])), decay)
        roll = oscillation(t, lead, frequency, cycles, 0.5 * coupling * amplitude,
                           float(rng.choice([-1.0, 1.0])), decay)
    n = len(t)
    drift = smooth_noise(rng, n, rate, 0.3, 0.4)
    yaw = (other if kind == NOD else main) + drift
    pitch = (main if kind == NOD else other) + smooth_noise(rng, n, rate, 0.3, 0.4)
    yaw = yaw + sensor_noise(rng, n, noise_std, outlier_rate)
    pitch = pitch + sensor_noise(rng, n, noise_std, outlier_rate)
    roll = roll + sensor_noise(rng, n, noise_std * 0.5)
    name = condition or f'{kind}_clean'
    return PoseSequence(name, t, yaw, pitch, roll,
                        [GestureEvent(kind, lead, lead + duration)])


def still_head(duration: float, *, rng: np.random.Generator, rate: float = DEFAULT_RATE,
               noise_std: float = 0.5, outlier_rate: float = 0.002) -> PoseSequence:
    """Return a person sitting still: slow postural sway, sensor jitter, rare glitches."""
    t = sample_times(duration, rate)
    n = len(t)
    yaw = smooth_noise(rng, n, rate, 0.2, 1.0) + sensor_noise(rng, n, noise_std, outlier_rate)
    pitch = smooth_noise(rng, n, rate, 0.2, 1.0) + sensor_noise(rng, n, noise_std, outlier_rate)
    roll = smooth_noise(rng, n, rate, 0.2, 0.5) + sensor_noise(rng, n, noise_std * 0.5)
    return PoseSequence('still', t, yaw, pitch, roll)


def talking_head(duration: float, *, rng: np.random.Generator,
                 rate: float = DEFAULT_RATE, noise_std: float = 0.5) -> PoseSequence:
    """
    Return a person talking: speech-linked head motion without any answer in it.

    Slow drifts of a few degrees, fast small jitter from articulation, single emphasis dips
    ("beats", one down-up of 2-7 degrees every 1-4 s), occasional small tilts and glances.
    """
    t = sample_times(duration, rate)
    n = len(t)
    pitch = smooth_noise(rng, n, rate, 0.5, 2.0) + smooth_noise(rng, n, rate, 4.0, 0.6)
    yaw = smooth_noise(rng, n, rate, 0.4, 2.5) + smooth_noise(rng, n, rate, 4.0, 0.5)
    roll = smooth_noise(rng, n, rate, 0.4, 1.5)
    when = rng.uniform(0.5, 2.0)
    while when < duration - 1.0:
        size = rng.uniform(2.0, 7.0)
        span = rng.uniform(0.25, 0.6)
        # One emphasis dip: half a cycle down and back, so a single direction change.
        inside = (t >= when) & (t <= when + span)
        pitch[inside] += size * np.sin(np.pi * (t[inside] - when) / span) ** 2
        if rng.random() < 0.3:
            yaw[inside] += rng.choice([-1.0, 1.0]) * 0.5 * size * np.sin(
                np.pi * (t[inside] - when) / span) ** 2
        when += span + rng.uniform(1.0, 4.0)
    pitch += sensor_noise(rng, n, noise_std, 0.001)
    yaw += sensor_noise(rng, n, noise_std, 0.001)
    return PoseSequence('talking', t, yaw, pitch, roll)


def slow_turns(duration: float, *, rng: np.random.Generator,
               rate: float = DEFAULT_RATE, noise_std: float = 0.5) -> PoseSequence:
    """Return a person looking around: smooth yaw/pitch moves of 10-45 degrees with holds."""
    t = sample_times(duration, rate)
    n = len(t)
    yaw, pitch = np.zeros(n), np.zeros(n)
    when, cur_yaw, cur_pitch = rng.uniform(0.3, 1.0), 0.0, 0.0
    while when < duration:
        span = rng.uniform(0.8, 2.0)
        new_yaw = float(np.clip(cur_yaw + rng.choice([-1.0, 1.0]) * rng.uniform(10, 45),
                                -50, 50))
        new_pitch = float(np.clip(cur_pitch + rng.uniform(-12, 12), -20, 20))
        s = np.clip((t - when) / span, 0.0, 1.0)
        blend = s * s * (3.0 - 2.0 * s)
        moving = t >= when
        yaw[moving] = cur_yaw + (new_yaw - cur_yaw) * blend[moving]
        pitch[moving] = cur_pitch + (new_pitch - cur_pitch) * blend[moving]
        cur_yaw, cur_pitch = new_yaw, new_pitch
        when += span + rng.uniform(0.5, 3.0)
    yaw += sensor_noise(rng, n, noise_std, 0.001)
    pitch += sensor_noise(rng, n, noise_std, 0.001)
    roll = smooth_noise(rng, n, rate, 0.3, 1.0)
    return PoseSequence('slow_turns', t, yaw, pitch, roll)


FREQUENCIES = (1.2, 2.0, 3.0)
NOD_AMPLITUDES = (4.0, 8.0, 15.0)
SHAKE_AMPLITUDES = (6.0, 12.0, 25.0)
CYCLES = (1.0, 2.0, 3.0)


def gesture_conditions(seed: int, repeats: int = 1,
                       rate: float = DEFAULT_RATE) -> Dict[str, List[PoseSequence]]:
    """
    Return the benchmark's gesture sequences by condition, all seeded.

    Conditions: clean nods and shakes over a grid of speeds, amplitudes and cycle counts;
    coupled yaw+pitch (+roll) versions; noisy versions with stronger jitter and glitches; and
    damped nods (a big first swing that fades).
    """
    rng = np.random.default_rng(seed)
    out: Dict[str, List[PoseSequence]] = {}
    for _ in range(repeats):
        for kind, amplitudes in ((NOD, NOD_AMPLITUDES), (SHAKE, SHAKE_AMPLITUDES)):
            for f in FREQUENCIES:
                for a in amplitudes:
                    for c in CYCLES:
                        out.setdefault(f'{kind}_clean', []).append(gesture_sequence(
                            kind, f, a, c, rng=rng, rate=rate))
                        out.setdefault(f'{kind}_coupled', []).append(gesture_sequence(
                            kind, f, a, c, rng=rng, rate=rate,
                            coupling=float(rng.uniform(0.2, 0.5)),
                            condition=f'{kind}_coupled'))
                        out.setdefault(f'{kind}_noisy', []).append(gesture_sequence(
                            kind, f, a, c, rng=rng, rate=rate, noise_std=1.0,
                            outlier_rate=0.01, coupling=float(rng.uniform(0.0, 0.3)),
                            condition=f'{kind}_noisy'))
            for f in FREQUENCIES:
                out.setdefault(f'{kind}_damped', []).append(gesture_sequence(
                    kind, f, amplitudes[-1], 3.0, rng=rng, rate=rate, decay=0.5,
                    coupling=0.2, condition=f'{kind}_damped'))
    return out


def background_conditions(seed: int, minutes: float = 10.0,
                          rate: float = DEFAULT_RATE) -> Dict[str, PoseSequence]:
    """Return still head, talking head and slow turns, each ``minutes`` long, seeded."""
    rng = np.random.default_rng(seed)
    seconds = 60.0 * minutes
    return {
        'still': still_head(seconds, rng=rng, rate=rate),
        'talking': talking_head(seconds, rng=rng, rate=rate),
        'slow_turns': slow_turns(seconds, rng=rng, rate=rate),
    }


@dataclass
class ConditionScore:
    """Counts for one condition, from :func:`score`."""

    condition: str
    events: int = 0
    correct: int = 0
    wrong: int = 0
    missed: int = 0
    false_answers: int = 0
    seconds: float = 0.0
    latencies: List[float] = field(default_factory=list)

    @property
    def recall(self) -> float:
        """Return the share of gestures answered right and in time."""
        return self.correct / self.events if self.events else float('nan')

    @property
    def precision(self) -> float:
        """Return the share of decisions that were right and in time."""
        decided = self.correct + self.wrong + self.false_answers
        return self.correct / decided if decided else float('nan')

    @property
    def false_per_10min(self) -> float:
        """Return decisions outside any gesture per 10 minutes of input."""
        return self.false_answers * 600.0 / self.seconds if self.seconds else float('nan')


def score(condition: str, sequences: Iterable[PoseSequence],
          decide: Callable[[PoseSequence], Sequence], *,
          latency_limit: float = LATENCY_LIMIT) -> ConditionScore:
    """
    Score a detector over sequences.

    ``decide(seq)`` returns decisions with ``stamp`` (s) and ``answer`` (bool). A decision
    between a gesture's start and ``latency_limit`` after its end is matched to it: right answer
    = correct, wrong answer = wrong. A gesture with no matched decision is missed; a decision
    matching no gesture (or a second decision for the same gesture) is a false answer.
    """
    result = ConditionScore(condition)
    for seq in sequences:
        result.seconds += seq.duration
        decisions = sorted(decide(seq), key=lambda d: d.stamp)
        used = set()
        for event in seq.events:
            result.events += 1
            match = None
            for i, d in enumerate(decisions):
                if i not in used and event.start <= d.stamp <= event.end + latency_limit:
                    match = i
                    break
            if match is None:
                result.missed += 1
                continue
            used.add(match)
            if decisions[match].answer == event.answer:
                result.correct += 1
                result.latencies.append(decisions[match].stamp - event.end)
            else:
                result.wrong += 1
        result.false_answers += len(decisions) - len(used)
    return result
