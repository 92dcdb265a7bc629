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

"""The nod/shake detector against seeded synthetic head motion, with its targets."""

from pathlib import Path

from banditlearn_ros.vision import head_answer_synth as ha
from banditlearn_ros.vision import head_motion_synth as hs
from banditlearn_ros.vision.head_actor import HeadActor
from banditlearn_ros.vision.head_gesture import HeadGestureDetector
import numpy as np
import pytest

SEED = 20260601  # not a seed the defaults were tuned on


def decide(seq):
    return HeadGestureDetector().run(seq.t, seq.yaw, seq.pitch)


@pytest.fixture(scope='module')
def gesture_scores():
    scores = {cond: hs.score(cond, seqs, decide)
              for cond, seqs in hs.gesture_conditions(SEED, repeats=2).items()}
    for s in scores.values():
        lat = np.array(s.latencies) if s.latencies else np.array([np.nan])
        print(f'{s.condition:14s} gestures {s.events:3d}  recall {s.recall:.3f}  '
              f'precision {s.precision:.3f}  wrong {s.wrong}  missed {s.missed}  '
              f'extra {s.false_answers}  latency median {np.median(lat):+.3f} s '
              f'max {np.max(lat):+.3f} s')
    return scores


@pytest.mark.parametrize('condition', ['nod_clean', 'shake_clean', 'nod_coupled',
                                       'shake_coupled', 'nod_noisy', 'shake_noisy',
                                       'nod_damped', 'shake_damped'])
@pytest.mark.slow
def test_gestures_detected_right_and_in_time(gesture_scores, condition):
    # A decision counts only with the right answer and within 300 ms of the gesture's end.
    s = gesture_scores[condition]
    assert s.events > 0
    assert s.recall >= 0.95, (condition, s)
    assert s.wrong == 0, (condition, s)
    assert all(lat <= hs.LATENCY_LIMIT for lat in s.latencies)


@pytest.mark.slow
def test_overall_precision(gesture_scores):
    correct = sum(s.correct for s in gesture_scores.values())
    decided = sum(s.correct + s.wrong + s.false_answers for s in gesture_scores.values())
    assert correct / decided >= 0.95


@pytest.mark.parametrize('condition', ['still', 'talking', 'slow_turns'])
@pytest.mark.slow
def test_no_answers_from_ordinary_head_motion(condition):
    # 30 minutes, so "at most one per 10 minutes" is measured on more than a single event.
    seq = hs.background_conditions(SEED, minutes=30.0)[condition]
    s = hs.score(condition, [seq], decide)
    print(f'{condition}: {s.false_answers} false answers in {s.seconds / 60:.1f} min '
          f'= {s.false_per_10min:.2f} per 10 min')
    assert s.false_per_10min <= 1.0


def _nod(t, start, freq=2.0, amp=8.0, cycles=2.0):
    return hs.oscillation(t, start, freq, cycles, amp)


def test_every_decision_has_both_confidences():
    t = np.arange(0, 4, 1 / 30)
    decisions = HeadGestureDetector().run(t, 0.3 * _nod(t, 1.0), _nod(t, 1.0))
    assert len(decisions) == 1
    d = decisions[0]
    assert d.kind == 'nod' and d.answer is True
    assert 0.0 <= d.shake_confidence < d.nod_confidence == d.confidence <= 1.0
    assert d.reversals >= 2 and d.amplitude > 6.0


def test_coupled_shake_is_a_shake_not_a_nod():
    # Strong pitch in a shake: testing pitch first would call it a nod.
    t = np.arange(0, 4, 1 / 30)
    yaw = hs.oscillation(t, 1.0, 2.0, 2.0, 15.0)
    pitch = hs.oscillation(t, 1.05, 2.0, 2.0, 6.0)
    (d,) = HeadGestureDetector().run(t, yaw, pitch)
    assert d.kind == 'shake' and not d.answer
    assert d.shake_confidence > d.nod_confidence


def test_diagonal_motion_is_no_answer():
    t = np.arange(0, 4, 1 / 30)
    wave = hs.oscillation(t, 1.0, 2.0, 2.0, 10.0)
    assert HeadGestureDetector().run(t, wave, wave) == []


def test_refractory_period_allows_one_answer():
    t = np.arange(0, 6, 1 / 30)
    pitch = _nod(t, 1.0, cycles=1.0) + _nod(t, 1.6, cycles=1.0)
    assert len(HeadGestureDetector(refractory=1.5).run(t, np.zeros_like(t), pitch)) == 1
    # Two nods well apart are two answers.
    pitch = _nod(t, 0.5, cycles=1.0) + _nod(t, 3.5, cycles=1.0)
    assert len(HeadGestureDetector(refractory=1.0).run(t, np.zeros_like(t), pitch)) == 2


def test_single_dip_and_slow_oscillation_are_no_answers():
    t = np.arange(0, 6, 1 / 30)
    dip = np.where((t > 1) & (t < 1.4), 10 * np.sin(np.pi * (t - 1) / 0.4) ** 2, 0.0)
    assert HeadGestureDetector().run(t, np.zeros_like(t), dip) == []
    slow = hs.oscillation(t, 0.5, 0.4, 2.0, 20.0)  # 0.4 Hz: looking around
    assert HeadGestureDetector().run(t, slow, np.zeros_like(t)) == []


def test_small_oscillation_below_min_swing_is_ignored():
    t = np.arange(0, 4, 1 / 30)
    assert HeadGestureDetector().run(t, np.zeros_like(t), _nod(t, 1.0, amp=2.0)) == []


def test_a_face_lost_longer_than_max_gap_restarts_tracking():
    det = HeadGestureDetector(max_gap=0.4)  # 1.2 s by default (test_head_frame_rate.py)
    t = np.arange(0, 4, 1 / 30)
    pitch = _nod(t, 1.0)
    out = []
    for ti, p in zip(t, pitch):
        if 1.3 < ti < 1.9:  # face lost in the middle of the nod
            det.update(ti, float('nan'), float('nan'))
            continue
        d = det.update(ti, 0.0, p)
        if d is not None:
            out.append(d)
    assert out == []


def test_out_of_order_samples_are_ignored():
    det = HeadGestureDetector()
    assert det.update(1.0, 0.0, 0.0) is None
    assert det.update(0.5, 0.0, 30.0) is None
    assert det.update(1.03, 0.0, 0.0) is None


def test_invalid_arguments():
    with pytest.raises(ValueError):
        HeadGestureDetector(min_reversals=0)


def test_synthetic_sets_are_seeded():
    a = hs.gesture_conditions(3)['nod_noisy'][0]
    b = hs.gesture_conditions(3)['nod_noisy'][0]
    c = hs.gesture_conditions(4)['nod_noisy'][0]
    assert np.array_equal(a.pitch, b.pitch)
    assert not np.array_equal(a.pitch, c.pitch)


@pytest.mark.parametrize('seed', [0, 1, 2])
def test_pose_jitter_does_not_keep_the_detector_deaf(seed):
    # Jitter alone makes half-size swings; they once extended the block after an answer for
    # as long as they went on, and a clear 24 degree nod 5 s later was missed.
    rng = np.random.default_rng(seed)
    t = np.arange(0, 12, 1 / 30)
    pitch = _nod(t, 0.5) + _nod(t, 6.5, amp=12.0) + rng.normal(0, 2.0, t.size)
    yaw = rng.normal(0, 2.0, t.size)
    det = HeadGestureDetector()
    decisions = det.run(t, yaw, pitch)
    assert [d.kind for d in decisions] == ['nod', 'nod']
    assert decisions[1].start > 6.0


def _answer_then_nod(det, gap=0.0, reset=False):
    """Nod (decided), then another nod 0.3 s later; return the decisions of the second."""
    t = np.arange(0, 2.0, 1 / 30)
    first = det.run(t, np.zeros_like(t), _nod(t, 0.3))
    assert len(first) == 1
    if reset:
        det.reset()
    t2 = np.arange(2.0 + gap, 5.0, 1 / 30)
    return det.run(t2, np.zeros_like(t2), _nod(t2, 2.3 + gap))


def test_reset_lifts_the_refractory_block_for_a_new_question():
    assert _answer_then_nod(HeadGestureDetector(refractory=5.0)) == []
    second = _answer_then_nod(HeadGestureDetector(refractory=5.0), reset=True)
    assert [d.kind for d in second] == ['nod']
    # A lost face (a gap in the samples) restarts the trackers but keeps the block.
    assert _answer_then_nod(HeadGestureDetector(refractory=5.0), gap=0.5) == []


def _shake(t, start, freq=1.5, amp=15.0, cycles=4.0):
    return hs.oscillation(t, start, freq, cycles, amp)


def test_the_rest_of_a_shake_never_answers_the_next_question():
    # A long "no": decided half-way; the next question comes while the shake goes on.
    t = np.arange(0, 6, 1 / 30)
    yaw = _shake(t, 1.0)  # 1.0 .. 3.67 s
    det = HeadGestureDetector()
    out, asked = [], None
    for ti, y in zip(t, yaw):
        d = det.update(ti, y, 0.0)
        if d is not None:
            out.append(d)
        if out and asked is None and ti >= out[0].stamp + 0.5:
            det.question()
            asked = ti
    assert [d.kind for d in out] == ['shake'] and asked < 3.67 - 0.5
    # The old rule (a question starts the detector afresh) answers it from the tail.
    det = HeadGestureDetector()
    out = []
    for ti, y in zip(t, yaw):
        d = det.update(ti, y, 0.0)
        if d is not None:
            out.append(d)
            if len(out) == 1:
                first = d.stamp
        if out and abs(ti - (first + 0.5)) < 1e-9:
            det.reset()
    assert [d.kind for d in out] == ['shake', 'shake']


def test_a_gesture_begun_after_the_question_answers_it():
    t = np.arange(0, 8, 1 / 30)
    yaw = _shake(t, 1.0)
    pitch = _nod(t, 4.2)  # starts as the shake (to 3.67 s) has ended: a new answer
    det = HeadGestureDetector()
    out, asked = [], False
    for ti, y, p in zip(t, yaw, pitch):
        d = det.update(ti, y, p)
        if d is not None:
            out.append(d)
        if out and not asked and ti >= out[0].stamp + 0.5:
            det.question()
            asked = True
    assert [d.kind for d in out] == ['shake', 'nod']
    assert out[1].start > 4.0


def test_a_look_around_before_a_shake_does_not_drown_it():
    # Turn the head 30 degrees, hold 0.3 s, then shake: the turn is no ongoing motion.
    t = np.arange(0, 6, 1 / 30)
    s = np.clip((t - 1.0) / 1.0, 0.0, 1.0)
    yaw = 30.0 * s * s * (3 - 2 * s) + _shake(t, 2.3, freq=2.0, amp=10.0, cycles=2.0)
    kinds = [d.kind for d in HeadGestureDetector().run(t, yaw, np.zeros_like(t))]
    assert kinds == ['shake']
    # Without taking the trend out of the context the turn drowns the shake.
    assert HeadGestureDetector(detrend_yaw=0.0).run(t, yaw, np.zeros_like(t)) == []


class _Listener:
    """Always listening, a question per prediction: as feedback_node does."""

    def __init__(self):
        self.detector = HeadGestureDetector()

    def ask(self, t):
        self.detector.question()

    def frame(self, t, yaw, pitch):
        return self.detector.update(t, yaw, pitch)


def test_ask_again_second_answers_come_from_the_second_gesture():
    rng = np.random.default_rng(20260602)  # not a seed the defaults were tuned on
    taken, right = 0, 0
    for _ in range(12):
        r = ha.ask_again_run(rng, _Listener())
        for d in r.second_decisions[:1]:
            taken += int(d.start < r.second.start - 0.15)
            right += int(d.answer == r.second.answer)
    assert taken == 0
    assert right >= 10


def test_a_nod_that_starts_out_of_a_slow_drift_is_heard():
    # The head came up 10 degrees over 0.6 s and was still rising slowly when a one-cycle
    # nod began: timed by its whole core, the nod's first swing was too slow to count.
    t = np.arange(0, 4, 1 / 30)
    drift = np.where(t < 1.3, -10.0 + 10.0 * np.clip((t - 0.7) / 0.6, 0.0, 1.0), 0.0)
    pitch = drift + hs.oscillation(t, 1.5, 1.6, 1.0, 14.0)
    decisions = HeadGestureDetector().run(t, np.zeros_like(t), pitch)
    assert [d.kind for d in decisions] == ['nod']
    assert 1.5 <= decisions[0].stamp <= 1.5 + 1.0 / 1.6 + 0.3


def test_a_nod_of_several_swings_right_after_talking_needs_less_contrast():
    # 3.5 s of beat-like pitch motion, then a 6-degree nod of three cycles 0.5 s later.
    t = np.arange(0, 8, 1 / 30)
    talk = np.where(t < 3.5, 2.5 * np.sin(2 * np.pi * 0.8 * t) ** 3, 0.0)
    pitch = talk + hs.oscillation(t, 4.0, 2.5, 3.0, 6.0)
    flat = np.zeros_like(t)
    (d,) = HeadGestureDetector().run(t, flat, pitch)
    assert d.kind == 'nod' and d.reversals >= 3
    # Every oscillation held to the same contrast (the rule before): lost in the talk.
    assert HeadGestureDetector(contrast_per_reversal=1.0).run(t, flat, pitch) == []
    # Without the talk both hear it.
    quiet = hs.oscillation(t, 4.0, 2.5, 3.0, 6.0)
    for factor in (0.6, 1.0):
        kinds = [x.kind for x in HeadGestureDetector(contrast_per_reversal=factor).run(
            t, flat, quiet)]
        assert kinds == ['nod']
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match='contrast_per_reversal'):
            HeadGestureDetector(contrast_per_reversal=bad)


def _answered_then_asked(det, t, yaw, pitch, delay):
    """Return the decisions; the next question is asked ``delay`` s after the first one."""
    out, asked = [], None
    for ti, y, p in zip(t, yaw, pitch):
        d = det.update(ti, y, p)
        out += [d] if d is not None else []
        asked = out[0].stamp + delay if out and asked is None else asked
        if asked is not None and ti >= asked > 0:
            det.question()
            asked = -1.0
    return out


@pytest.mark.parametrize('creep', [1.8, 2.4])
def test_a_hold_inside_a_followed_swing_ends_the_following(creep):
    # A shake with pitch coupled to it answers; the question comes while it goes on, so its
    # motion is followed. The pitch stops at an extreme and creeps on (by less than the
    # hysteresis, no turning point) for 0.4 s, a hold longer than max_pause, then a nod
    # starts the same way: its first swing grows out of the swing followed last.
    t = np.arange(0, 9, 1 / 30)
    end = 1.0 + 3.75 / 2.1
    yaw = hs.oscillation(t, 1.0, 2.1, 4.0, 12.0)
    pitch = (3.0 * np.sin(2 * np.pi * 2.1 * np.clip(t - 1.0, 0, 3.75 / 2.1))
             + creep * np.clip((t - end) / 0.4, 0, 1) + _nod(t, end + 0.4, 2.5, 8.0, 1.0))
    found = {}
    for rule in (True, False):
        # follow_slowdown and follow_cross off: the hold also slows the swing, and the nod's
        # pitch moves on its own after the shake: other rules for the same case
        out = _answered_then_asked(HeadGestureDetector(hold_ends_follow=rule, follow_slowdown=0,
                                                       follow_cross=0), t, yaw, pitch, 0.5)
        found[rule] = [d.kind for d in out]
        if rule:
            assert out[1].start >= end + 0.4 - 0.15  # from the nod, not the shake
    assert found == {True: ['shake', 'nod'], False: ['shake']}


FADING_THEN_NEW = {
    # A small 4-cycle shake answers; the question comes while it goes on. It fades out over
    # 0.25 s as a big one-cycle shake starts at 3.2 s, with no hold between them.
    'follow_growth': (3.2, lambda t: (
        hs.oscillation(t, 1.0, 1.4, 4.0, 7.0, -1.0) * np.clip((3.2 - t) / 0.25, 0, 1)
        + hs.oscillation(t, 3.2, 2.2, 1.0, 24.0, -1.0))),
    # The same with a shake of about the same size at 3.0 s: no swing twice the largest,
    # the swings only shrink and grow again.
    'follow_regrowth': (3.0, lambda t: (
        hs.oscillation(t, 1.0, 1.5, 4.0, 16.0, -1.0) * np.clip((3.0 - t) / 0.25, 0, 1)
        + hs.oscillation(t, 3.0, 2.0, 2.0, 18.0))),
}


@pytest.mark.parametrize('rule', sorted(FADING_THEN_NEW))
def test_a_shake_that_starts_as_the_last_one_fades_answers_the_next_question(rule):
    # The question comes 0.6 s after the first answer; with the rule off (0) the new shake
    # is taken for the rest of the old one and answers nothing.
    start, yaw_of = FADING_THEN_NEW[rule]
    t = np.arange(0, 9, 1 / 30)
    yaw = yaw_of(t)
    found = {}
    for value in (2.0, 0.0):
        # follow_slowdown off: it also ends the following here, a second rule for the case
        out = _answered_then_asked(HeadGestureDetector(**{rule: value, 'follow_slowdown': 0}),
                                   t, yaw, np.zeros_like(t), 0.6)
        found[value] = [d.kind for d in out]
        if value:
            assert out[1].start >= start - 0.15  # from the new shake, not the fading one
    assert found == {2.0: ['shake', 'shake'], 0.0: ['shake']}


@pytest.mark.parametrize('seed', [0, 1, 2, 3, 4])
def test_the_tail_of_a_shake_never_answers_the_next_question(seed):
    # The same 4-cycle shake alone, in 0.7 deg pose noise: it tapers to rest after the
    # question, and its shrinking swings (or the noise after them) start no new gesture.
    rng = np.random.default_rng(seed)
    t = np.arange(0, 9, 1 / 30)
    yaw = hs.oscillation(t, 1.0, 1.5, 4.0, 16.0, -1.0) + rng.normal(0.0, 0.7, len(t))
    out = _answered_then_asked(HeadGestureDetector(), t, yaw, rng.normal(0.0, 0.7, len(t)), 0.6)
    assert [d.kind for d in out] == ['shake']


def test_the_head_modules_stay_within_450_lines():
    # The detector and the synthetic motion are split by responsibility.
    vision = Path(hs.__file__).resolve().parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in sorted(vision.glob('head_*.py'))}
    assert {'head_gesture.py', 'head_swings.py', 'head_runs.py', 'head_score.py',
            'head_follow.py', 'head_context.py', 'head_motion_synth.py',
            'head_answer_synth.py'} <= set(sizes)
    assert {name: n for name, n in sizes.items() if n > 450} == {}


def _asked_again_at_once(seed, fps, **rule):
    """Return what the detector hears of a session face's shake asked again on the next frame."""
    actor = HeadActor(seed=seed)
    actor.answer(False, now=0.0)
    det = HeadGestureDetector(**rule)
    det.question(0.0)
    out = []
    for t in np.arange(0.0, actor.gestures[0].end + 2.0, 1.0 / fps):
        d = det.update(t, *actor.pose(t))
        if d is not None:
            out.append(d.kind)
            det.question()  # the learner asks again at once after a "no"
    return out


@pytest.mark.parametrize('fps, seed', [(20.0, 140), (20.0, 280), (30.0, 13), (30.0, 62)])
def test_a_shake_asked_again_at_once_is_heard_once(fps, seed):
    # The head session's face: a shake answered in its first swings, the next question on
    # the next frame while it goes on. The question's floor follows the rest, but a swing
    # of it timed a frame longer (or grown, or grown back) than the one before looked like
    # a new gesture, and the rest answered the new question: one gesture heard twice.
    # A person answers no sooner than min_reaction after a question, so that swing is
    # still the shake. (These seeds heard it twice before both min_reaction and the
    # slowdown's frame-interval allowance; either one alone hears it once here.)
    assert _asked_again_at_once(seed, fps) == ['shake']


@pytest.mark.parametrize('fps', [10.0, 15.0, 20.0, 30.0])
def test_no_session_shake_asked_again_at_once_is_heard_twice(fps):
    assert [s for s in range(40) if _asked_again_at_once(s, fps) != ['shake']] == []
