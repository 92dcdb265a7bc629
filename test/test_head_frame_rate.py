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

"""Head answers at a robot's frame rate, on frame time, with a face that leaves the frame."""

import dataclasses
import time

from banditlearn_ros.vision import feedback_parameters
from banditlearn_ros.vision import head_answer_synth as ha
from banditlearn_ros.vision import head_answers
from banditlearn_ros.vision import head_follow
from banditlearn_ros.vision import head_motion_synth as hs
from banditlearn_ros.vision.face_select import FaceTracker
from banditlearn_ros.vision.head_actor import HeadActor
from banditlearn_ros.vision.head_answers import HeadAnswers
from banditlearn_ros.vision.head_context import held_still
from banditlearn_ros.vision.head_gesture import HeadGestureDetector
from banditlearn_ros.vision.head_glitch import glitch
from banditlearn_ros.vision.head_pose import FaceMeshHeadPose, LANDMARKS
import numpy as np
import pytest
from vision_helpers import project_model

SIZE = (640, 480)


class Path:
    """The feedback node's head rules as the node runs them, without ROS."""

    def __init__(self, on_prediction=True, listen_window=8.0, estimator=None, detector=None):
        self.head = HeadAnswers(detector or HeadGestureDetector(), {}, 3, estimator=estimator)
        self.window = feedback_parameters.ListeningWindow(on_prediction, self.head.question)
        self.listen_window, self.processed = listen_window, []

    def ask(self, t=None):
        if self.window.on_prediction:
            self.window.question(None, self.listen_window)
        else:
            self.head.question()

    def frame(self, t, yaw, pitch):
        self.window.at_frame(t)
        if not self.head.due(self.window.listening, t):
            return None
        self.processed.append(t)
        d = self.head.update(t, yaw, pitch)
        if d is None or not self.window.listening:
            return None
        if self.window.on_prediction:
            self.window.switch(False)
        return d


def _cut(seq, fps):
    keep = np.unique(np.floor(seq.t * fps + 1e-6), return_index=True)[1]
    return seq.t[keep], seq.yaw[keep], seq.pitch[keep]


def _exchange(offset, fps=10.0, seed=11, runs=6):
    """Play ask-again runs into the path with frame stamps shifted by ``offset`` seconds."""
    out = []
    rng = np.random.default_rng(seed)
    for _ in range(runs):
        path = Path()

        class Shifted:
            slot = None

            def ask(self, t):
                path.ask()

            def frame(self, t, yaw, pitch):
                slot = int(np.floor(t * fps + 1e-6))
                if slot == self.slot:
                    return None
                self.slot = slot
                d = path.frame(t + offset, yaw, pitch)
                if d is not None:
                    out.append((d.kind, round(d.stamp - offset, 6)))
                    return type(d)(**{**d.__dict__, 'stamp': d.stamp - offset,
                                      'start': d.start - offset, 'end': d.end - offset})
                return None
        ha.ask_again_run(rng, Shifted())
    return out


def test_no_head_rule_reads_the_wall_clock(monkeypatch):
    # The window, idle skipping, following and the detector run on the frames' stamps: with
    # every wall clock raising and a camera clock 11.6 days ahead of the frames' own, the
    # decisions are those of the same frames stamped from 0.
    expected = _exchange(0.0)
    assert len(expected) >= 10

    def wall_clock(*args):
        raise AssertionError('a head rule read the wall clock')
    for name in ('time', 'monotonic', 'time_ns', 'monotonic_ns', 'perf_counter',
                 'perf_counter_ns'):
        monkeypatch.setattr(time, name, wall_clock)
    assert _exchange(1e6) == expected


def test_a_window_opens_at_the_next_frame_and_closes_on_frame_time():
    path = Path(listen_window=0.5)
    path.frame(100.0, 0.0, 0.0)
    path.ask()
    assert path.window.listening
    assert not path.window.at_frame(5000.0)  # a paused camera: the window starts here
    assert not path.window.at_frame(5000.5)
    assert path.window.at_frame(5000.6) and not path.window.listening


@pytest.mark.parametrize('fps, taken', [(30.0, 10), (15.0, 8), (10.0, 10), (5.0, 5)])
def test_idle_frames_are_skipped_by_frame_time(fps, taken):
    # idle_every 3: one frame per 0.1 s of frame time, so a 10 fps camera keeps every frame.
    head = HeadAnswers(HeadGestureDetector(), {}, 3, estimator=object())
    t = 50.0 + np.arange(int(fps)) / fps
    assert sum(head.due(False, ti) for ti in t) == taken
    assert all(head.due(True, ti) for ti in t + 1.0)


def test_an_answered_shake_is_followed_on_every_frame():
    # The window closes on the answer; while the shake goes on every frame is processed (so
    # its swings are followed whole), then idle frames are skipped again.
    t = np.arange(0, 6, 1 / 30)
    yaw = hs.oscillation(t, 1.0, 1.5, 4.0, 15.0)
    path = Path()
    path.ask()
    answered = [d for d in (path.frame(*x) for x in zip(t, yaw, np.zeros_like(t))) if d]
    assert [d.kind for d in answered] == ['shake'] and answered[0].stamp < 2.5
    shake_end = 1.0 + 4.0 / 1.5
    after = [x for x in path.processed if answered[0].stamp < x <= shake_end]
    assert len(after) == len([x for x in t if answered[0].stamp < x <= shake_end])
    rest = [x for x in path.processed if x > shake_end + 1.0]
    assert 0 < len(rest) <= len(t[t > shake_end + 1.0]) / 3 + 1


def _with_gap(kind, fps, freq, cycles, gap, amp=10.0, start=1.0):
    t = np.arange(0, 7, 1 / fps)
    osc = hs.oscillation(t, start, freq, cycles, amp)
    yaw, pitch = (np.zeros_like(t), osc) if kind == 'nod' else (osc, np.zeros_like(t))
    lost = start + cycles / freq / 2 - gap / 2
    return t, yaw, pitch, (t >= lost) & (t < lost + gap)


@pytest.mark.parametrize('fps', [10.0, 15.0, 30.0])
@pytest.mark.parametrize('kind', ['nod', 'shake'])
@pytest.mark.parametrize('freq, cycles', [(1.2, 3.0), (1.5, 4.0), (2.0, 4.0)])
def test_a_face_gone_for_a_second_mid_answer_still_answers_once(fps, kind, freq, cycles):
    t, yaw, pitch, lost = _with_gap(kind, fps, freq, cycles, 1.0)
    det = HeadGestureDetector()
    out = []
    for ti, y, p, gone in zip(t, yaw, pitch, lost):
        d = det.lost(ti) if gone else det.update(ti, y, p)
        if d is not None:
            out.append(d)
    assert [d.kind for d in out] == [kind]
    assert out[0].stamp <= 1.0 + cycles / freq + hs.LATENCY_LIMIT


def test_a_face_gone_longer_than_max_gap_starts_afresh():
    t, yaw, pitch, lost = _with_gap('nod', 30.0, 1.2, 3.0, 1.5)
    det = HeadGestureDetector()
    out = [det.lost(ti) if gone else det.update(ti, y, p)
           for ti, y, p, gone in zip(t, yaw, pitch, lost)]
    assert [d for d in out if d is not None] == []


@pytest.mark.parametrize('seed', [0, 1])
def test_a_face_that_comes_and_goes_is_no_answer(seed):
    # Still, talking and looking around, the face lost for 0.3-1 s every few seconds.
    rng = np.random.default_rng(seed)
    for seq in hs.background_conditions(seed, minutes=2.0, rate=10.0).values():
        lost = np.zeros(len(seq.t), bool)
        when = rng.uniform(1.0, 4.0)
        while when < seq.t[-1]:
            lost |= (seq.t >= when) & (seq.t < when + rng.uniform(0.3, 1.0))
            when += rng.uniform(2.0, 6.0)
        det = HeadGestureDetector()
        out = [det.lost(ti) if gone else det.update(ti, y, p)
               for ti, y, p, gone in zip(seq.t, seq.yaw, seq.pitch, lost)]
        assert [d for d in out if d is not None] == [], seq.condition


def _landmarks(yaw, pitch):
    pts = project_model(yaw, pitch, 0.0, SIZE)
    face = np.tile(pts.mean(axis=0), (max(LANDMARKS) + 1, 1))
    face[list(LANDMARKS)] = pts
    return face


@pytest.mark.parametrize('fps', [10.0, 30.0])
def test_the_same_person_answers_across_a_second_out_of_view(fps):
    # Face Mesh finds no face for 1 s in the middle of a nod: the track, its neutral pose and
    # the motion followed go on, and the nod answers once.
    t, yaw, pitch, lost = _with_gap('nod', fps, 1.5, 4.0, 1.0, amp=12.0, start=1.5)
    est = FaceMeshHeadPose(baseline_warmup=5)
    det = HeadGestureDetector()
    out, tracks = [], set()
    for ti, y, p, gone in zip(t, yaw, pitch, lost):
        pose = est.from_landmarks([] if gone else [_landmarks(y, p)], SIZE, ti)
        if pose.found:
            tracks.add(pose.track_id)
        d = det.update(ti, pose.yaw, pose.pitch) if pose.relative is not None else det.lost(ti)
        if d is not None:
            out.append(d.kind)
    assert out == ['nod'] and len(tracks) == 1


def test_the_face_track_ends_on_frame_time():
    tracker = FaceTracker(max_missing=1.5)
    box = (250, 150, 400, 340)
    first = tracker.update([box], SIZE, 10.0)
    assert all(tracker.update([], SIZE, 10.0 + k / 10) is None for k in range(1, 16))
    assert tracker.update([box], SIZE, 11.5).track_id == first.track_id  # 1.5 s: the same
    assert tracker.update([], SIZE, 13.1) is None and not tracker.tracking
    assert tracker.update([box], SIZE, 13.2).new_person


class _Pose:
    def __init__(self, found):
        self.found, self.faces, self.new_person = found, int(found), False


class _Estimator:
    def __init__(self):
        self.found = True

    def process(self, frame, stamp):
        return _Pose(self.found)

    def close(self):
        pass


def test_diagnostics_warn_when_no_face_is_seen_while_listening():
    estimator = _Estimator()
    head = HeadAnswers(HeadGestureDetector(), {}, 3, estimator=estimator)
    assert head.face_warning(True) == '' and head.without_face == 0.0
    head.pose(None, 100.0)
    estimator.found = False
    for k in range(1, 40):
        head.pose(None, 100.0 + k / 10)
    assert head.without_face == pytest.approx(3.9, abs=1e-9)
    assert 'no face seen for 4 s' in head.face_warning(True)
    assert head.face_warning(False) == ''  # not listening: nobody is asked
    assert head_answers.NO_FACE_WARNING <= 3.9
    estimator.found = True
    head.pose(None, 104.0)
    assert head.without_face == 0.0 and head.face_warning(True) == ''


@pytest.mark.slow
def test_gestures_up_to_2_hz_answer_right_at_10_fps():
    # The grid of test_head_gesture.py recorded at 10 fps: every clean or coupled nod and
    # shake of 2 Hz or slower and of at least the grid's middle size is heard once, right and
    # in time (3 Hz is 3 frames a cycle). At 15 fps one coupled nod answers twice: not held.
    grid = hs.gesture_conditions(20260601, rate=10.0)
    for cond in ('nod_clean', 'shake_clean', 'nod_coupled', 'shake_coupled'):
        sizes = hs.NOD_AMPLITUDES if cond.startswith('nod') else hs.SHAKE_AMPLITUDES
        for i, seq in enumerate(grid[cond]):
            freq, size = hs.FREQUENCIES[i // 9], sizes[(i // 3) % 3]
            if freq > 2.0 or size < sizes[1]:
                continue
            s = hs.score(cond, [seq], lambda q: HeadGestureDetector().run(q.t, q.yaw, q.pitch))
            assert (s.correct, s.false_answers) == (1, 0), (cond, freq, size, i % 3 + 1)


@pytest.mark.parametrize('fps', [10.0, 15.0, 30.0])
def test_a_drift_before_a_nod_does_not_date_its_start(fps):
    # The head sinks 3 deg in the half second before a nod that starts downward: the first
    # swing runs from the drift into the nod, and its core start alone would date the nod
    # up to 0.2 s early (as if motion from before a question answered it).
    t = np.arange(0.0, 4.0, 1.0 / fps)
    pitch = hs.oscillation(t, 2.0, 2.5, 2.0, 8.0) + 3.0 * np.clip((t - 1.5) / 0.5, 0.0, 1.0)
    yaw = np.zeros_like(t)
    [nod] = HeadGestureDetector().run(t, yaw, pitch)
    assert nod.kind == 'nod' and 2.0 - 0.1 <= nod.start <= 2.1
    [old] = HeadGestureDetector(edge_start=False).run(t, yaw, pitch)
    assert old.kind == 'nod' and old.end == nod.end and old.start < 1.9  # the rule before


@pytest.mark.parametrize('fps', [10.0, 15.0, 30.0])
def test_a_turn_held_apart_before_a_shake_is_not_part_of_it(fps):
    # The head turns 3 deg, holds 0.3 s, then shakes starting the other way: the turn is a
    # swing of the run, but the hold after it sets it apart, so the answer dates from 2 s.
    t = np.arange(0.0, 4.0, 1.0 / fps)
    yaw = ha.look(t, 1.55, 0.15, 3.0) + hs.oscillation(t, 2.0, 2.6, 2.0, 12.0, -1.0)
    pitch = np.zeros_like(t)
    [shake] = HeadGestureDetector().run(t, yaw, pitch)
    assert shake.kind == 'shake' and 2.0 - 0.1 <= shake.start <= 2.1
    [old] = HeadGestureDetector(lead_pause=0.0).run(t, yaw, pitch)
    assert old.kind == 'shake' and old.start < 1.7 and old.reversals == shake.reversals + 1


@pytest.mark.parametrize('fps', [15.0, 30.0])
def test_a_shake_begun_just_after_the_last_one_ended_answers(fps):
    # Asked again while a slow shake goes on; it ends at 4.14 s and a quick one begins at
    # 4.3 s. The end of the one and the start of the other join into one slow swing (the
    # pause inside it), which ends the motion followed from the question: the new shake
    # answers, dated from its own start. Before, it was followed as the same motion.
    t = np.arange(0.0, 7.0, 1.0 / fps)
    yaw = hs.oscillation(t, 2.0, 1.4, 3.0, 17.0) + hs.oscillation(t, 4.3, 2.6, 1.0, 14.0)
    for slowdown, expected in ((1.6, ['shake']), (0.0, [])):
        det = HeadGestureDetector(follow_slowdown=slowdown)
        answers, asked = [], False
        for ti, yi in zip(t, yaw):
            if ti >= 3.6 and not asked:
                det.question()
                asked = True
            d = det.update(ti, yi, 0.0)
            if d is not None and asked:
                answers.append(d)
        assert [d.kind for d in answers] == expected, slowdown
        assert all(4.3 - 0.1 <= d.start and d.stamp <= 4.7 + 0.3 for d in answers)


@pytest.mark.parametrize('fps', [10.0, 15.0, 30.0])
def test_a_one_cycle_nod_is_not_sized_by_its_half_swings(fps):
    # A one-cycle nod is a half swing down, a full one up, a half one back: the median
    # swing was a half one, and small quick nods among other motion fell short of the
    # confidence. Counted twice (at most as the largest), the half swings score as the full
    # one; a three-cycle nod, answered as its fourth swing goes on, scores no lower.
    t = np.arange(0.0, 4.0, 1.0 / fps)
    yaw = np.zeros_like(t)
    one, three = hs.oscillation(t, 2.0, 2.3, 1.0, 5.0), hs.oscillation(t, 2.0, 2.3, 3.0, 5.0)
    [new] = HeadGestureDetector().run(t, yaw, one)
    [old] = HeadGestureDetector(edge_amplitude=False).run(t, yaw, one)
    assert new.kind == old.kind == 'nod' and new.confidence > old.confidence + 0.1
    [new] = HeadGestureDetector().run(t, yaw, three)
    [old] = HeadGestureDetector(edge_amplitude=False).run(t, yaw, three)
    assert new.kind == 'nod' and new.confidence >= old.confidence and new.stamp == old.stamp


def test_a_one_frame_pose_peak_on_the_other_axis_does_not_cancel_a_shake():
    # At 15 fps no median removes a one-frame landmark glitch: a 12 deg pitch peak inside a
    # shake with pitch coupled to it made the cross-axis range (max - min) that of a diagonal
    # motion. The ranges between the 10th and 90th percentiles leave it out.
    t = np.arange(0, 4, 1 / 15)
    yaw = hs.oscillation(t, 1.0, 2.0, 2.0, 12.0)
    pitch = 0.3 * yaw
    clean = HeadGestureDetector().run(t, yaw, pitch)
    pitch[int(np.argmin(abs(t - 1.6)))] += 12.0
    # The rule before (the glitch rule, which takes the peak out, off too):
    assert HeadGestureDetector(cross_trim=0.0, glitch_size=0.0).run(t, yaw, pitch) == []
    peaked = HeadGestureDetector(glitch_size=0.0).run(t, yaw, pitch)
    assert [d.kind for d in clean] == [d.kind for d in peaked] == ['shake']
    assert abs(peaked[0].confidence - clean[0].confidence) <= 0.02  # as if it was not there
    with pytest.raises(ValueError, match='cross_trim'):
        HeadGestureDetector(cross_trim=50.0)


def test_a_shake_asked_again_is_heard_once_when_frames_are_lost():
    # A slow, wide shake at 20 fps with 9 of 47 frames lost (a busy machine), heard early and
    # asked again 0.2 s later: the follow must not take the frame-to-frame jitter of its
    # swings' timing for a pause, nor its last swings for a second shake (seen in a whole
    # head-answered session under load: one shake heard twice).
    # The session's own frame stamps: at other times the swings' measured timing differs in
    # the last bits, and the follow took this shake's next swing for a pause only at these.
    actor = HeadActor(seed=0)
    actor.answer(False, now=116.5)
    actor.gestures[0] = dataclasses.replace(actor.gestures[0], start=116.648, frequency=1.5185,
                                            cycles=2.5, amplitude=18.98, sign=-1.0)
    lost = {4, 9, 12, 19, 22, 31, 36, 43, 44}
    path, heard = Path(), []
    path.ask()
    for t in (round(116.5 + k * 0.05, 6) for k in range(47) if k not in lost):
        if len(heard) == 1 and t >= heard[0] + 0.2 - 1e-9 and not path.window.listening:
            path.ask()
        d = path.frame(t, *actor.pose(t))
        if d is not None:
            heard.append(t)
    assert len(heard) == 1 and heard[0] < actor.gestures[0].end, heard


class _Cut:
    """Pass the frames a camera at ``fps`` gives of a 30 fps sequence, as the benchmark."""

    def __init__(self, path, fps):
        self.path, self.fps, self.slot = path, fps, None

    def ask(self, t):
        self.path.ask()

    def frame(self, t, yaw, pitch):
        slot = int(np.floor(t * self.fps + 1e-6))
        if slot == self.slot:
            return None
        self.slot = slot
        return self.path.frame(t, yaw, pitch)


def _second_answer_right(seed, run, fps, **rule):
    """Play the benchmark's ask-again runs of a seed; return whether run ``run``'s is right."""
    rng = np.random.default_rng(seed)
    for _ in range(run + 1):
        r = ha.ask_again_run(rng, _Cut(Path(detector=HeadGestureDetector(**rule)), fps))
    d = r.second_decisions[0] if r.second_decisions else None
    return (d is not None and d.answer == r.second.answer and d.start >= r.second.start - 0.15
            and d.stamp <= r.second.end + hs.LATENCY_LIMIT)


@pytest.mark.parametrize('seed, run, fps', [(11, 18, 10.0), (11, 18, 15.0), (11, 40, 15.0),
                                            (12, 16, 15.0), (13, 49, 15.0)])
def test_a_one_frame_glitch_at_15_and_10_fps_is_no_swing(seed, run, fps):
    # Tuning-seed ask-again runs of the benchmark, where no median removes a landmark
    # glitch: one just before the second gesture dated its answer from before that gesture
    # (as if taken from the first shake), one in a shake's last swing broke its run (missed).
    # Two frames later the glitch is plain, and the detector takes its frame again without it.
    # (rest_frames off too: at 10 fps that rule also saves run 18 of seed 11.)
    assert _second_answer_right(seed, run, fps)
    assert not _second_answer_right(seed, run, fps, glitch_size=0.0, rest_frames=0)  # before


@pytest.mark.parametrize('fps', [10.0, 15.0])
def test_a_glitch_before_a_shake_asked_again_does_not_date_it(fps):
    # Asked again at 2 s after a shake; the head is still, a frame at 2.85 s jumps 9 deg
    # (yaw) and 7 deg (pitch) and comes back, and a new shake starts at 2.95 s.
    t = np.arange(0.0, 6.0, 1.0 / fps)
    rng = np.random.default_rng(0)
    yaw = hs.oscillation(t, 0.5, 2.0, 2.0, 14.0) + hs.oscillation(t, 2.95, 2.4, 2.0, 12.0)
    yaw, pitch = yaw + rng.normal(0.0, 0.4, len(t)), rng.normal(0.0, 0.4, len(t))
    k = int(np.argmin(abs(t - 2.85)))
    yaw[k] += 9.0
    pitch[k] += 7.0
    for size, dated in ((5.0, True), (0.0, False)):
        det, heard = HeadGestureDetector(glitch_size=size), []
        for ti, y, p in zip(t, yaw, pitch):
            if ti >= 2.0 and len(heard) == 1:
                det.question()
                heard.append(None)
            d = det.update(ti, y, p)
            if d is not None:
                heard.append(d)
        assert [d.kind for d in heard if d] == ['shake', 'shake'], size
        assert (heard[-1].start >= 2.95 - 0.1) == dated, (size, heard[-1].start)


def test_no_frame_of_a_clean_nod_is_taken_for_a_glitch():
    # A nod's or shake's extremes at 15 fps (1.2-3 Hz) and at 10 fps up to 2.3 Hz (4 frames
    # a cycle and more), at every phase of the frames: none looks like a glitch.
    for fps, top in ((15.0, 3.0), (10.0, 2.3)):
        t = np.arange(0.0, 4.0, 1.0 / fps)
        for freq in np.arange(1.2, top + 1e-9, 0.1):
            for cycles in (1.0, 1.5, 2.0, 3.0):
                for offset in np.arange(0.0, 1.0 / fps, 0.01):
                    v = hs.oscillation(t, 1.0 + offset, freq, cycles, 20.0)
                    assert not any(glitch(*v[i - 2:i + 3], 5.0) for i in range(2, len(t) - 2)), \
                        (fps, freq, cycles, offset)
    assert glitch(0.3, -0.2, 9.0, 0.5, 0.1, 5.0)  # a still head's glitch is one


@pytest.mark.parametrize('fps', [10.0, 15.0])
def test_a_shake_begun_after_a_hold_is_not_dated_from_the_last_ones_tail(fps, monkeypatch):
    # A tuning-seed ask-again run: the first shake's last small swing is followed, the head
    # holds 0.25 s, then a new shake grows out of it. The new gesture was counted from that
    # small swing (as when a shake starts while the last one fades, with no hold), so its
    # answer was dated from the first shake. A hold longer than that swing took ends it.
    assert _second_answer_right(12, 66, fps)
    monkeypatch.setattr(head_follow, 'HOLD', float('inf'))  # the rule before
    assert not _second_answer_right(12, 66, fps)


def _asked_again_as_a_shake_fades(fps, coupling, **rule):
    """
    Return what a detector hears of a shake, asked again 0.5 s after its answer, and a nod.

    The shake carries ``coupling`` of its size in pitch and fades out as a small nod (5 deg,
    2 Hz, 2 cycles) starts at 3 s.
    """
    t = np.arange(0.0, 6.0, 1.0 / fps)
    shake = hs.oscillation(t, 1.0, 1.5, 5.0, 20.0) * np.clip((3.0 - t) / 0.25, 0.0, 1.0)
    pitch = coupling * shake + hs.oscillation(t, 3.0, 2.0, 2.0, 5.0)
    det, heard, asked = HeadGestureDetector(**rule), [], False
    for ti, y, p in zip(t, shake, pitch):
        if heard and not asked and ti >= heard[0].stamp + 0.5:
            det.question()
            asked = True
        d = det.update(ti, y, p)
        if d is not None:
            heard.append(d)
    return heard


@pytest.mark.parametrize('fps, coupling', [(10.0, 0.3), (15.0, 0.3), (30.0, 0.4)])
def test_a_nod_begun_as_a_shake_fades_answers(fps, coupling):
    # The pitch the shake carries is followed from the question on, and the nod, no bigger
    # than that pitch, was taken for more of it (missed). Pitch moving more than yaw over a
    # swing no longer goes along with the shake.
    shake, nod = _asked_again_as_a_shake_fades(fps, coupling)
    assert (shake.kind, nod.kind) == ('shake', 'nod')
    assert 3.0 - 0.15 <= nod.start and nod.stamp <= 3.0 + 1.0 + hs.LATENCY_LIMIT
    old = _asked_again_as_a_shake_fades(fps, coupling, follow_cross=0.0)  # the rule before
    assert [d.kind for d in old] == ['shake']


@pytest.mark.parametrize('seed, run, fps', [(11, 6, 15.0), (31, 0, 15.0), (24, 3, 10.0),
                                            (11, 6, 30.0)])
def test_a_nod_begun_as_the_first_shake_fades_is_the_second_answer(seed, run, fps):
    # Tuning-seed ask-again runs of the benchmark (seeds 11-13, 21-40) where the second
    # answer, a nod, began as the first shake faded and was missed: its pitch swings were
    # followed as the shake's.
    assert _second_answer_right(seed, run, fps)
    assert not _second_answer_right(seed, run, fps, follow_cross=0.0)  # the rule before


@pytest.mark.parametrize('seed, run, fps', [(39, 12, 15.0), (30, 19, 10.0)])
def test_a_quick_nod_settling_slowly_answers_at_15_and_10_fps(seed, run, fps):
    # Tuning-seed ask-again runs: a quick nod whose last half swing settles slowly. 0.1 s
    # (settle) holds one or two frames at 15 and 10 fps, so the head was never seen at rest,
    # and before the quiet time had passed the slow last swing had broken the run (missed or
    # late). Rest is now judged over the last three frames.
    assert _second_answer_right(seed, run, fps)
    assert not _second_answer_right(seed, run, fps, rest_frames=0)  # the rule before


def test_rest_is_judged_over_three_frames_when_settle_holds_fewer():
    ts = [k / 15.0 for k in range(10)]
    still = [(0.3, -0.2)] * 10
    assert held_still(ts, still, ts[-1], 0.1, 2.0, frames=3)
    assert not held_still(ts, still, ts[-1], 0.1, 2.0)  # the rule before: never at 15 fps
    # The limit grows with the window: 2 deg per 0.1 s is 2.67 deg over 3 frames at 15 fps.
    moving = still[:7] + [(0.0, 0.0), (0.0, 2.5), (0.0, 0.0)]
    assert held_still(ts, moving, ts[-1], 0.1, 2.0, frames=3)
    moving[-2] = (0.0, 2.8)
    assert not held_still(ts, moving, ts[-1], 0.1, 2.0, frames=3)
    t30 = [k / 30.0 for k in range(10)]  # at 30 fps settle holds enough frames: as before
    assert held_still(t30, still, t30[-1], 0.1, 2.0, frames=3)
    assert held_still(t30, still, t30[-1], 0.1, 2.0)


class _Recorded:
    """Pass every frame on to ``listener`` and keep it."""

    def __init__(self, listener):
        self.listener, self.frames = listener, []

    def ask(self, t):
        self.listener.ask(t)

    def frame(self, t, yaw, pitch):
        self.frames.append((t, yaw, pitch))
        return self.listener.frame(t, yaw, pitch)


def _played(seed, run, fps, second_gain=1.0):
    rng = np.random.default_rng(seed)
    for _ in range(run):
        ha.ask_again_run(rng, _Cut(Path(), fps))
    listener = _Recorded(_Cut(Path(), fps))
    return ha.ask_again_run(rng, listener, second_gain=second_gain), np.array(listener.frames)


def test_a_run_played_without_its_second_gesture_is_the_same_run_until_it():
    full, frames = _played(21, 3, 30.0)
    muted, muted_frames = _played(21, 3, 30.0, second_gain=0.0)
    assert muted.first == full.first and muted.second == full.second
    assert muted.question2 == full.question2
    assert muted.first_decision == full.first_decision
    before = frames[:, 0] < full.second.start
    np.testing.assert_array_equal(muted_frames[before], frames[before])
    moved = np.abs(frames[~before, 1:] - muted_frames[~before, 1:]).max()
    assert moved > 3.0  # the second gesture, at least 4 degrees, only in the full run
    assert full.second_decisions and not muted.second_decisions


@pytest.mark.parametrize('seed, run, fps', [(302, 2, 10.0), (303, 4, 15.0)])
def test_an_answer_dated_before_the_second_gesture_still_needs_it(seed, run, fps):
    # The benchmark's held-out ask-again runs whose second answer starts with a noise swing
    # 0.3-0.35 s before the nod: the answer is right, and the same run without the nod gives no
    # answer at all, so it was not taken from the first shake.
    full, _ = _played(seed, run, fps)
    d = full.second_decisions[0]
    assert d.start < full.second.start - 0.15
    assert d.answer == full.second.answer
    assert full.second.start <= d.stamp <= full.second.end + hs.LATENCY_LIMIT
    muted, _ = _played(seed, run, fps, second_gain=0.0)
    assert not muted.second_decisions
