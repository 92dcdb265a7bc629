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
Benchmark the head session's listener without ROS: how often one gesture is heard twice.

``banditlearn_bringup --answers head`` in one process and on frame time: the session face
(``HeadActor`` on a ``FrameClock``) answers each question with a nod or a shake, the
feedback node's path (listening window opened by the question, closed by the answer, idle
frames skipped) hears it, and after a "no" the next question comes a few frames later, as
the learner asks again at once. Frames are lost at random (best-effort images under load)
and the pose has noise. Printed: gestures made, heard, heard right, false answers (heard
outside any gesture or twice) and gestures dropped because an answer came before they
began, for the detector's defaults and for ``min_reaction=0`` (the rule before).

Run: .venv/bin/python benchmarks/bench_head_session.py [--sessions 60] [--interactions 40]
     [--fps 20] [--drop 0.05]
"""

import argparse

from banditlearn_ros.vision import feedback_parameters as answers
from banditlearn_ros.vision.head_actor import FrameClock, HeadActor
from banditlearn_ros.vision.head_answers import HeadAnswers
from banditlearn_ros.vision.head_gesture import HeadGestureDetector
import numpy as np


def session(seed, interactions, fps, drop, noise=0.3, step=0.5, **detector):
    """Return the face's tally (``HeadActor.stats``) of one simulated session."""
    rng = np.random.default_rng(seed)
    actor, clock = HeadActor(seed=seed), FrameClock(fps)
    head = HeadAnswers(HeadGestureDetector(**detector), {}, 3, estimator=object())
    window = answers.ListeningWindow(True, head.question)
    wall, asked, wait, done = 10.0, 0, 1, 0
    while done < interactions:
        wall += rng.uniform(0.8, 1.6) / fps  # a timer on a busy machine
        now = clock.tick(wall, actor.resting(clock.time(-np.inf)))
        if wait is not None:
            wait -= 1
            if wait <= 0:  # the question: the window opens, the person decides
                window.question(None, 8.0)
                actor.answer(bool(rng.random() < 0.5), clock.time(wall))
                asked, wait = asked + 1, None
        if rng.random() < drop:
            continue  # this frame never arrived
        yaw, pitch = (step * round(a / step) + rng.normal(0.0, noise) for a in actor.pose(now))
        if window.at_frame(now):  # timed out unanswered: the next interaction
            wait, asked, done = int(rng.integers(0, 4)) + int(2 * fps), 0, done + 1
        if not head.due(window.listening, now):
            continue
        decision = head.update(now, yaw, pitch)
        if decision is None or not window.listening:
            continue
        window.switch(False)
        actor.heard(decision.answer, clock.time(wall))
        lag = int(rng.integers(0, 4))  # frames until the feedback node has the question
        if not decision.answer and asked < 3:
            wait = lag + 1  # asked again at once
        else:
            wait, asked, done = lag + int(fps * rng.uniform(1.0, 3.0)), 0, done + 1
    return actor.stats()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--sessions', type=int, default=60, help='seeds 0..n-1')
    parser.add_argument('--interactions', type=int, default=40, help='per session')
    parser.add_argument('--fps', type=float, default=20.0, help="the face's frame rate")
    parser.add_argument('--drop', type=float, default=0.05, help='share of frames lost')
    options = parser.parse_args(argv)
    if options.sessions < 1 or options.interactions < 1 or not 0 < options.fps <= 60 \
            or not 0 <= options.drop < 1:
        parser.exit(2, 'error: need sessions, interactions >= 1, fps in (0, 60], '
                    'drop in [0, 1)\n')
    print(f'## Head session listener ({options.sessions} sessions x {options.interactions} '
          f'interactions, face at {options.fps:g} fps, {100 * options.drop:g} % frames lost)')
    print('\n| detector | gestures | heard | heard right | false answers | dropped |')
    print('| --- | --- | --- | --- | --- | --- |')
    variants = (('defaults', {}), ('min_reaction=0 (the rule before)', {'min_reaction': 0.0}))
    for label, detector in variants:
        total = {}
        for seed in range(options.sessions):
            stats = session(seed, options.interactions, options.fps, options.drop, **detector)
            for key, value in stats.items():
                total[key] = total.get(key, 0) + value
        print(f'| {label} | {total["gestures"]} | {total["heard"]} | {total["heard_right"]} '
              f'| {total["false_answers"]} | {total["dropped"]} |')


if __name__ == '__main__':
    main()
