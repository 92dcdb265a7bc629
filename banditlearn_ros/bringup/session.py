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
The bring-up's teaching-session mode.

A system with a ``session_node`` runs with the live view and ends with a learning-curve
PNG, the saved model and a one-line JSON summary.

Kept out of ``bringup/main.py`` so that the generic bring-up stays generic: ``prepare`` folds the
session options into the system before it starts, ``run_session`` replaces the progress
lines of a plain system.
"""

import os
import sys
import time
from typing import Any, Dict, Optional

from banditlearn_ros.console.log_filter import StderrFilter
from banditlearn_ros.console.report import (
    plot_learning_curve, session_summary, summary_line, summary_sentence)
from banditlearn_ros.console.view import label_mismatch, SessionView
from banditlearn_ros.support.shutdown import hold_signals, requested
from banditlearn_ros.systems.system_file import BringupError

SESSION_NODE = 'session_node'
DEFAULT_OUT = '~/.ros/banditlearn_ros/sessions'
THIRD_PARTY_LOG = 'third_party.log'
# Started before the nodes (MediaPipe logs while they start), stopped when the session ends.
_stderr: Optional[StderrFilter] = None


def is_session(system: Dict[str, Any]) -> bool:
    """Return True for a system with a session node."""
    return any(e['name'] == SESSION_NODE for e in system['nodes'])


def prepare(system: Dict[str, Any], options) -> str:
    """
    Fold ``--rounds``, ``--camera``, ``--labels`` and ``--out`` into a session system.

    Returns the session's output folder (made here).  A rendered session (one with a
    ``gesture_show_node``) learns from scratch: its model file goes into that folder unless
    ``--set learner_node.model_path=...`` says otherwise.
    """
    by_name = {e['name']: e for e in system['nodes']}
    stamp = time.strftime('%Y%m%d-%H%M%S')
    out = os.path.abspath(os.path.expanduser(
        getattr(options, 'out', None) or os.path.join(DEFAULT_OUT, stamp)))
    os.makedirs(out, exist_ok=True)
    session = by_name[SESSION_NODE]['parameters']
    if getattr(options, 'rounds', 0):
        session['interactions'] = options.rounds
    show = by_name.get('gesture_show_node')
    if show is not None and session.get('interactions'):
        # Exactly the planned interactions: no gesture shown after the last one.
        show['parameters'].setdefault('presentations', session['interactions'])
    camera = getattr(options, 'camera', None)
    if camera and 'image_source_node' in by_name:
        by_name['image_source_node']['parameters']['source'] = camera
    labels = getattr(options, 'labels', None)
    if labels and 'learner_node' in by_name:
        by_name['learner_node']['parameters']['labels'] = labels
    learner = by_name.get('learner_node')
    never = getattr(options, 'never_taught', 0)
    if never:
        known = list(learner['parameters'].get('labels') or []) if learner else []
        if show is None or not 1 <= never < len(known):
            raise BringupError(f'--never-taught {never} needs a rendered session '
                               f'(gesture_show_node) whose learner has more than {never} labels')
        learner['parameters']['labels'] = known[:-never]  # shown, never taught
        learner['parameters'].setdefault('unknown_rejection', True)
    if 'gesture_show_node' in by_name and learner is not None and \
            'model_path' not in learner['parameters']:
        learner['parameters']['model_path'] = os.path.join(out, 'gesture_model.npz')
    if 'teacher_node' in by_name or 'face_show_node' in by_name:
        session.setdefault('prompts', False)  # a simulated person answers: no "type y/n"
    return out


def keep_third_party_logs(out_dir: str) -> None:
    """Send MediaPipe's and OpenCV's own log lines to a file from now on (before the nodes)."""
    global _stderr
    _stderr = StderrFilter(os.path.join(out_dir, THIRD_PARTY_LOG)).start()


def _finished_video(source, session, since: Optional[float]) -> bool:
    """Return True once a video file ended and its last interaction is over."""
    if since is None or time.monotonic() - since < 1.0:
        return False  # frames still on their way through the camera node
    rec = session.log.current
    waiting = rec is not None and len(rec.answers) < len(rec.questions)
    return session.quiet() >= (session.answer_warning if waiting else session.settle)


HEARD_COUNTERS = ('predictions', 'frames', 'frames_skipped', 'frames_no_face', 'pose_errors',
                  'nods', 'shakes', 'gestures_ignored', 'windows_timed_out')
"""The feedback node's counters that say why a head answer was or was not heard."""


def _listener(running) -> dict:
    """Return what the feedback node saw of the face, and whether Face Mesh loaded."""
    from banditlearn_ros.nodes.feedback_node import FeedbackNode
    node = running.find(FeedbackNode)
    if node is None:
        return {}
    counts = node.counters.snapshot()
    out = {key: counts.get(key, 0) for key in HEARD_COUNTERS}
    out['face_mesh'] = node.head.state if node.head is not None else 'not configured'
    return out


def wait_for_page(page, out, sleep=time.sleep, poll: float = 0.1) -> bool:
    """
    Hold a session answered only on the page (``--answers page``) until a page is open.

    Nothing is spun meanwhile, so no gesture is asked about before someone can answer: the
    first question would wait ``answer_timeout`` for nobody and be lost, and a simulated
    person joining late would meet the 10 % of wrong answers of its seed on other questions
    than the typed session's teacher of that seed. Returns False when a signal ended the wait.
    """
    server = getattr(page, 'server', None)
    if server is None or server.pages:
        return True
    print('  waiting for the teaching page to be opened (Ctrl-C ends)', file=out, flush=True)
    while not server.pages:
        if requested():
            return False
        sleep(poll)
    return True


LAST_MESSAGES_GRACE = 3.0
"""Seconds the session may wait, after the last presentation, for its last messages."""


def run_session(running, options, out_dir: str, out) -> int:
    """Spin the system with the live view until the session ends; print the summary last."""
    from banditlearn_ros.nodes.face_show_node import FaceShowNode
    from banditlearn_ros.nodes.gesture_show_node import GestureShowNode
    from banditlearn_ros.nodes.image_source_node import ImageSourceNode
    from banditlearn_ros.nodes.learner_node import LearnerNode
    from banditlearn_ros.nodes.session_node import SessionNode
    from rclpy.executors import ExternalShutdownException
    session = running.find(SessionNode)
    learner = running.find(LearnerNode)
    show = running.find(GestureShowNode)
    face = running.find(FaceShowNode)
    source = running.find(ImageSourceNode)
    view = SessionView(session.log, target=session.target,
                       every=running.system['every'], out=out)
    deadline = time.monotonic() + options.duration if options.duration else float('inf')
    stderr = _stderr if _stderr is not None and _stderr.active else None

    typed = [0]

    def drain() -> None:
        if session.lines_typed != typed[0]:
            typed[0] = session.lines_typed
            view.forget_typed_line()
        while not session.notes.empty():
            view.note(session.notes.get())
        for line in stderr.take() if stderr is not None else ():
            view.clear_bar()
            stderr.write(line)
    if session.keyboard and session.prompts:
        view.note('answer with y / n and Enter; +name adds a gesture; Ctrl-C ends')
    if show is not None and learner is not None and not getattr(options, 'never_taught', 0):
        warning = label_mismatch(list(show.get_parameter('gestures').value),
                                 list(learner.get_parameter('labels').value))
        if warning:
            view.note(warning)
    if learner is not None and learner.live.loaded_from:
        view.note(f'continuing from {learner.live.loaded_from}: '
                  f'{len(learner.get_parameter("labels").value)} labels, '
                  f'{learner.live.loaded_updates} updates '
                  "(the updates column counts this session's)")
    drain()
    view.header()
    interrupted = False
    video_ended: Optional[float] = None

    def updates() -> int:
        return learner.progress().updates if learner is not None else 0
    try:
        while not (session.finished or requested()) and time.monotonic() < deadline:
            if show is not None and show.finished:
                # The show hears an interaction end on its own subscription (or a quiet
                # moment after an answer); let the session node's messages about the last
                # presentations land before the summary: every question the learner says it
                # asked, as a recording of the session holds them.
                grace = time.monotonic() + LAST_MESSAGES_GRACE
                while not session.log.complete(show.schedule.taken) \
                        and time.monotonic() < grace:
                    running.spin_once(0.05)
                drain()
                break
            if source is not None and source.finished and video_ended is None:
                video_ended = time.monotonic()
            if _finished_video(source, session, video_ended):
                view.note('the video ended: the session ends with it')
                break
            running.spin_once(0.05)
            drain()
            view.update(updates())
    except (KeyboardInterrupt, ExternalShutdownException):
        interrupted = True
    hold_signals()  # one way out: the save and the summary, whatever arrives now
    interrupted = interrupted or bool(requested())
    final_updates = updates()
    if session.target:
        session.log.keep_first(session.target)
    model, not_learning, labels = None, '', None
    if learner is not None:  # the learner's order, with the labels added while it ran
        model = os.path.expanduser(learner.get_parameter('model_path').value) or None
        not_learning = learner.progress().learning_problem
        labels = list(learner.get_parameter('labels').value)
    listener = _listener(running) if face is not None else {}
    name = os.path.basename(str(running.system['path'])).replace('.system.yaml', '')
    failed = []
    try:
        failed = running.close()  # the learner saves its model on shutdown
    finally:
        drain()
        view.close(final_updates)
        if stderr is not None:
            stderr.stop()
            if stderr.kept_out:
                view.note(f'{stderr.kept_out} log line(s) of MediaPipe / TensorFlow Lite / '
                          f'OpenCV kept out of the view: {stderr.path}')
    curve = os.path.join(out_dir, 'learning_curve.png')
    try:
        if not session.log.first_right().size:
            view.note('no learning curve: no interaction was judged (no answer came)')
            curve = None
        else:
            plot_learning_curve(session.log, curve, title=f'banditlearn_ros: {name} session',
                                n_labels=len(labels) if labels else None)
    except ImportError:
        view.note('no learning curve: matplotlib is not installed')
        curve = None
    except Exception as exc:  # noqa: B902 (a figure that fails loses no summary or model)
        view.note(f'no learning curve: {type(exc).__name__}: {exc}')
        curve = None
    if model is not None and not os.path.isfile(model):
        view.note(f'no model file at {model} (nothing was learned, or saving failed)')
        model = None
    extra = {}
    if not_learning:  # first guesses no better than chance: say so, never a silent OK
        view.note(f'WARNING {not_learning}')
        extra['warning'] = not_learning
    if show is not None:  # gestures the camera never took (segmentation missed the hand)
        extra['presentations_missed'] = show.schedule.missed
    never = session.log.never_taught(labels or session.log.labels())
    if never['shown'] or never['taught_rejected'] or session.log.rejected:
        extra['never_taught'] = {k: (round(v, 4) if isinstance(v, float) else v)
                                 for k, v in never.items()}
    if face is not None:  # answers given with the head, and how the feedback node heard them
        extra['head_answers'] = dict(face.stats(), listener=listener)
        if face.actor.false_detail:  # when and after which gesture: rare, and hard to see
            extra['head_answers']['false_detail'] = face.actor.false_detail
    summary = session_summary(session.log, model, curve, labels=labels, updates=final_updates,
                              system=name, interrupted=interrupted, **extra)
    with open(os.path.join(out_dir, 'summary.json'), 'w', encoding='utf-8') as handle:
        handle.write(summary_line(summary) + '\n')
    print(summary_sentence(summary), file=out)
    print(summary_line(summary), file=out, flush=True)
    if failed:
        print(f'banditlearn_bringup: error: {", ".join(failed)} could not save on shutdown '
              '(see the log above)', file=sys.stderr)
        return 1
    return 0
