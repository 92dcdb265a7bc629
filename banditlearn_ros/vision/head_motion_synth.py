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
Synthetic head-pose sequences (and warped face images) for testing the nod/shake detector.

Angles are degrees relative to the neutral pose, with the sign convention of
:mod:`banditlearn_ros.vision.head_pose`: pitch > 0 is the head turned down, yaw > 0 the nose
turned toward the image's left. Every sequence is seeded; the scoring rule lives here too, so
tests and the benchmark count hits, misses and false answers the same way.
"""

from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

NOD, SHAKE = 'nod', 'shake'

DEFAULT_RATE = 30.0
"""Frames per second of a synthetic sequence (a typical webcam)."""

LATENCY_LIMIT = 0.3
"""A decision later than this after the gesture's end counts as a miss (the issue's target)."""


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


def _taper(n: int, ramp: float = 0.2) -> np.ndarray:
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
    envelope = _taper(int(inside.sum())) * np.exp(-decay * tau * frequency)
    out[inside] = sign * amplitude * envelope * np.sin(2.0 * np.pi * frequency * tau)
    return out


def _smooth_noise(rng: np.random.Generator, n: int, rate: float, cutoff: float,
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


def _times(duration: float, rate: float) -> np.ndarray:
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
    t = _times(lead + duration + tail, rate)
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
    drift = _smooth_noise(rng, n, rate, 0.3, 0.4)
    yaw = (other if kind == NOD else main) + drift
    pitch = (main if kind == NOD else other) + _smooth_noise(rng, n, rate, 0.3, 0.4)
    yaw = yaw + sensor_noise(rng, n, noise_std, outlier_rate)
    pitch = pitch + sensor_noise(rng, n, noise_std, outlier_rate)
    roll = roll + sensor_noise(rng, n, noise_std * 0.5)
    name = condition or f'{kind}_clean'
    return PoseSequence(name, t, yaw, pitch, roll,
                        [GestureEvent(kind, lead, lead + duration)])


def still_head(duration: float, *, rng: np.random.Generator, rate: float = DEFAULT_RATE,
               noise_std: float = 0.5, outlier_rate: float = 0.002) -> PoseSequence:
    """Return a person sitting still: slow postural sway, sensor jitter, rare glitches."""
    t = _times(duration, rate)
    n = len(t)
    yaw = _smooth_noise(rng, n, rate, 0.2, 1.0) + sensor_noise(rng, n, noise_std, outlier_rate)
    pitch = _smooth_noise(rng, n, rate, 0.2, 1.0) + sensor_noise(rng, n, noise_std, outlier_rate)
    roll = _smooth_noise(rng, n, rate, 0.2, 0.5) + sensor_noise(rng, n, noise_std * 0.5)
    return PoseSequence('still', t, yaw, pitch, roll)


def talking_head(duration: float, *, rng: np.random.Generator,
                 rate: float = DEFAULT_RATE, noise_std: float = 0.5) -> PoseSequence:
    """
    Return a person talking: speech-linked head motion without any answer in it.

    Slow drifts of a few degrees, fast small jitter from articulation, single emphasis dips
    ("beats", one down-up of 2-7 degrees every 1-4 s), occasional small tilts and glances.
    """
    t = _times(duration, rate)
    n = len(t)
    pitch = _smooth_noise(rng, n, rate, 0.5, 2.0) + _smooth_noise(rng, n, rate, 4.0, 0.6)
    yaw = _smooth_noise(rng, n, rate, 0.4, 2.5) + _smooth_noise(rng, n, rate, 4.0, 0.5)
    roll = _smooth_noise(rng, n, rate, 0.4, 1.5)
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
    t = _times(duration, rate)
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
    roll = _smooth_noise(rng, n, rate, 0.3, 1.0)
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


def fit_frame(image: np.ndarray, width: int = 640, height: int = 480) -> np.ndarray:
    """Return a photo scaled to ``height`` and padded (edge pixels) to a width x height frame."""
    import cv2
    scale = height / image.shape[0]
    image = cv2.resize(image, (int(image.shape[1] * scale), height),
                       interpolation=cv2.INTER_AREA)
    pad = (width - image.shape[1]) // 2
    return cv2.copyMakeBorder(image, 0, 0, pad, width - image.shape[1] - pad,
                              cv2.BORDER_REPLICATE)


def rotate_face(image: np.ndarray, landmarks: np.ndarray, yaw: float = 0.0,
                pitch: float = 0.0, roll: float = 0.0, axis_depth: float = 0.6,
                step: int = 3) -> np.ndarray:
    """
    Return a photo with its face turned by yaw/pitch/roll (deg): a piecewise-affine 3-D warp.

    ``landmarks`` are the face's Face Mesh points as N x 3 pixels (x, y, depth; depth grows
    away from the camera). They are rotated about an axis ``axis_depth`` face-widths behind the
    face centre and projected orthographically; the image is warped triangle by triangle from
    the old to the new positions (a subset of every ``step``-th landmark plus fixed anchors
    around the face and on the border, so the background stays put). Unlike a flat
    perspective warp, the nose moves against the face outline, which is what Face Mesh reads
    as a head turn. Signs follow :mod:`head_pose`.
    """
    import cv2
    from .head_pose import euler_to_rotation
    h, w = image.shape[:2]
    pts = np.asarray(landmarks, np.float64)[::step, :3]
    lo, hi = pts[:, :2].min(axis=0), pts[:, :2].max(axis=0)
    width = float(hi[0] - lo[0])
    centre = np.array([(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0,
                       float(np.mean(pts[:, 2])) + axis_depth * width])
    moved = (pts - centre) @ euler_to_rotation(yaw, pitch, roll).T + centre
    # Fixed anchors: a ring well outside the face and the image border.
    mid = (lo + hi) / 2.0
    radius = 0.9 * np.max(hi - lo)
    ring = np.array([mid + radius * np.array([np.cos(a), np.sin(a)])
                     for a in np.linspace(0, 2 * np.pi, 16, endpoint=False)])
    border = np.array([[x, y] for x in (0, w / 2, w - 1) for y in (0, h / 2, h - 1)
                       if not (x == w / 2 and y == h / 2)])
    anchors = np.vstack([ring, border])
    anchors = anchors[(anchors[:, 0] >= 0) & (anchors[:, 0] <= w - 1)
                      & (anchors[:, 1] >= 0) & (anchors[:, 1] <= h - 1)]
    src = np.vstack([pts[:, :2], anchors]).astype(np.float32)
    dst = np.vstack([moved[:, :2], anchors]).astype(np.float32)
    subdiv = cv2.Subdiv2D((0, 0, w, h))
    index = {}
    for i, (x, y) in enumerate(dst):
        xy = (float(min(max(x, 0), w - 1)), float(min(max(y, 0), h - 1)))
        index[(round(xy[0], 1), round(xy[1], 1))] = i
        subdiv.insert(xy)
    out = image.copy()
    for tri in subdiv.getTriangleList().reshape(-1, 3, 2):
        ids = [index.get((round(float(x), 1), round(float(y), 1))) for x, y in tri]
        if any(i is None for i in ids):
            continue
        d = dst[ids]
        x0, y0 = np.floor(d.min(axis=0)).astype(int)
        x1, y1 = np.ceil(d.max(axis=0)).astype(int) + 1
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 <= x0 or y1 <= y0:
            continue
        affine = cv2.getAffineTransform((d - [x0, y0]).astype(np.float32), src[ids])
        patch = cv2.warpAffine(image, affine, (x1 - x0, y1 - y0),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REFLECT)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, np.round(d - [x0, y0]).astype(np.int32), 1)
        region = out[y0:y1, x0:x1]
        region[mask > 0] = patch[mask > 0]
    return out


def random_gesture(rng: np.random.Generator, kind: Optional[str] = None) -> Dict[str, float]:
    """
    Draw one answer's motion: kind, speed, size, cycles, cross-axis coupling, pose noise.

    Sizes reach down to the small, slow gestures (4-8 degrees at 1.2 Hz) the issue names.
    """
    kind = kind or str(rng.choice([NOD, SHAKE]))
    size = rng.uniform(4.0, 15.0) if kind == NOD else rng.uniform(6.0, 25.0)
    return {'kind': kind, 'frequency': float(rng.uniform(1.2, 3.0)), 'amplitude': float(size),
            'cycles': float(rng.choice([1.0, 1.5, 2.0, 2.5, 3.0])),
            'coupling': float(rng.uniform(0.0, 0.4)), 'noise': float(rng.uniform(0.3, 1.0)),
            'sign': 1.0 if kind == NOD else float(rng.choice([-1.0, 1.0]))}


def _add_gesture(rng: np.random.Generator, t: np.ndarray, yaw: np.ndarray, pitch: np.ndarray,
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


def _look(t: np.ndarray, when: float, span: float, delta: float) -> np.ndarray:
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
    t = _times(duration, rate)
    n = len(t)
    yaw = _smooth_noise(rng, n, rate, 0.2, 0.8)
    pitch = _smooth_noise(rng, n, rate, 0.2, 0.8)
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
            yaw += _look(t, when, span, float(rng.choice([-1, 1]) * rng.uniform(10, 40)))
            pitch += _look(t, when, span, float(rng.uniform(-10, 10)))
        elif kind == 'talk':
            talk_end = start - rng.uniform(0.0, 1.0)
            talk_len = rng.uniform(2.0, 3.0)
            talk = talking_head(talk_len, rng=rng, rate=rate, noise_std=0.0)
            lo = int(round((talk_end - talk_len) * rate))
            m = min(len(talk.t), n - lo)
            fade = _taper(m, 0.1)
            yaw[lo:lo + m] += (talk.yaw[:m] - talk.yaw[0]) * fade
            pitch[lo:lo + m] += (talk.pitch[:m] - talk.pitch[0]) * fade
        events.append(_add_gesture(rng, t, yaw, pitch, g, start))
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
                  second_kind: Optional[str] = None) -> AskAgainResult:
    """
    Play one "no, then ask again" exchange into ``listener`` (the detector under test).

    A shake of 2-4 cycles answers question 1; question 2 opens 0.5-1 s after the listener's
    "no" (or after the shake if it gave none), and the second gesture (nod or shake) starts
    0.5-2 s after that, sometimes while the shake is still going (it then fades out over
    0.25 s as the new one starts). ``listener`` has ``ask(t)`` and ``frame(t, yaw, pitch)``,
    which returns a published decision or None.
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
    t = _times(duration, rate)
    n = len(t)
    yaw = _smooth_noise(rng, n, rate, 0.2, 0.8) + sensor_noise(rng, n, first['noise'], 0.005)
    pitch = _smooth_noise(rng, n, rate, 0.2, 0.8) + sensor_noise(rng, n, first['noise'], 0.005)
    g1_yaw, g1_pitch = np.zeros(n), np.zeros(n)
    ev1 = _add_gesture(rng, t, g1_yaw, g1_pitch, first, s1)
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
            ev2 = _add_gesture(rng, t, g2_yaw, g2_pitch, second, s2)
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
