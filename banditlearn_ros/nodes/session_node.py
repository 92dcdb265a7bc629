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
session_node: the teaching session as the person sees it, and the person's keyboard.

Listens to the true gesture (``gesture_label``, when a simulation shows them), the questions
(``gesture_prediction_details``: interaction id and question number) and the answers
(``gesture_feedback``), and keeps a ``learning.protocol.session.SessionLog`` for the live view, the
learning curve and the summary.  In a terminal it also reads the person's keys: ``y``/``n``
answer the question shown (on ``gesture_answer``; before any question on ``keyboard_answer``,
which the feedback node passes on), ``+name`` adds
a gesture to the learner's labels; right after an interaction ended without a "yes"
(``gesture_unknown``: every label rejected, or out of questions), ``+name`` says what that
gesture was (``gesture_name``): a known label learns it as a "yes", a new one is added and
learns that very observation.  When a question waits ``answer_warning`` seconds it says
why no answer can come (no face in view, no keyboard, no joystick) instead of waiting
silently.
"""

import math
import queue
import sys
import threading
import time
from typing import Dict, List, Optional

from banditlearn_ros.console import session_parameters
from banditlearn_ros.console.view import why_no_answer
from banditlearn_ros.learning.protocol import answer_key
from banditlearn_ros.learning.protocol.session import SessionLog
from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.events import read_event
from diagnostic_msgs.msg import DiagnosticArray
from rclpy.parameter import Parameter
from rclpy.parameter_client import AsyncParameterClient
from std_msgs.msg import Bool, String


class SessionNode(common.GuardedNode):
    """Record a teaching session from its topics; read y/n and new labels from the keys."""

    def __init__(self, node_name: str = 'session_node', **kwargs):
        super().__init__(node_name, **kwargs)
        v = common.declare_specs(self, session_parameters.SPECS)
        self.target = v['interactions']
        window = v['window']
        keyboard = v['keyboard']
        self.answer_warning = v['answer_warning']
        self.settle = v['settle']
        learner = v['learner_node']
        self.prompts = v['prompts']
        self.log = SessionLog(window=window)
        self.notes: 'queue.Queue[str]' = queue.Queue()
        self.lines_typed = 0  # the view takes each typed line's echo off the screen
        self._last_event = time.monotonic()
        self._asked_at: Optional[float] = None
        self._warned_at: Optional[float] = None
        self._reports: Dict[str, Dict[str, str]] = {}
        self._lock = threading.Lock()
        # Topic names are fixed and relative: namespaces and remapping move them.
        qos.subscribe_events(self, String, 'gesture_label', self._on_label)
        qos.subscribe_events(self, String, 'gesture_prediction_details', self._on_details)
        self._feedback_sub = qos.subscribe_answers(self, self._on_feedback)
        self.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics,
                                 qos.DIAGNOSTICS)
        self._keyboard_pub = self.create_publisher(Bool, 'keyboard_answer', qos.EVENTS_OUT)
        self._answer_pub = self.create_publisher(String, answer_key.TOPIC, qos.EVENTS_OUT)
        self._shown = None
        # An unknown gesture waits for its name until the next interaction's question.
        self._unknown: Optional[int] = None
        qos.subscribe_events(self, String, 'gesture_unknown', self._on_unknown)
        # The learner's word that an interaction is over, with the questions it asked.
        qos.subscribe_events(self, String, 'gesture_interaction', self._on_interaction)
        self._name_pub = self.create_publisher(String, 'gesture_name', qos.EVENTS_OUT)
        self._params = AsyncParameterClient(self, learner)
        self.keyboard = bool(keyboard and sys.stdin is not None and sys.stdin.isatty())
        if self.keyboard:
            threading.Thread(target=self._read_keys, name='session_keys', daemon=True).start()
        self.create_timer(0.5, self._check_waiting)
        self.get_logger().info(f'session log ready (keyboard {"on" if self.keyboard else "off"}); '
                               f'{common.topics_line(self)}')

    # -- topics ------------------------------------------------------------------------
    def _on_label(self, msg: String) -> None:
        self.log.on_label(msg.data)

    def _on_details(self, msg: String) -> None:
        try:
            details = read_event(msg.data)
            label = str(details['label'])
        except (ValueError, KeyError, TypeError):
            self.get_logger().warning('unreadable prediction details skipped',
                                      throttle_duration_sec=5.0)
            return
        ident = details.get('interaction', details.get('id'))
        question = details.get('question')
        if ident != self._unknown:
            self._unknown = None
        self.log.on_question(label, None if ident is None else int(ident),
                             None if question is None else int(question))
        self._shown = None if ident is None else (int(ident), int(question or 1))
        self._last_event = time.monotonic()
        if self._asked_at is None:  # the first question of a silent stretch
            self._asked_at, self._warned_at = self._last_event, None

    def _on_interaction(self, msg: String) -> None:
        try:
            event = read_event(msg.data)
            ident, asked, heard = int(event['id']), int(event['questions']), \
                int(event['answers'])
        except (ValueError, KeyError, TypeError):
            self.get_logger().warning('unreadable interaction end skipped',
                                      throttle_duration_sec=5.0)
            return
        self.log.on_end(ident, asked, heard, str(event.get('outcome', '')))

    def _on_unknown(self, msg: String) -> None:
        try:
            event = read_event(msg.data)
            self._unknown = int(event['id'])
        except (ValueError, KeyError, TypeError):
            return
        if not self.prompts:  # a simulated person answers: nobody to ask
            return
        if event.get('outcome') == 'unknown':
            self.notes.put("I don't know that one (never taught?): type +name and Enter to "
                           'say what it is')
        elif event.get('outcome', 'all_rejected') == 'all_rejected':
            self.notes.put('every label was rejected: type +name and Enter to name this gesture')
        elif self.keyboard:  # out of questions: a hint for a person at the keys only
            self.notes.put('out of questions: type +name and Enter to say what it was')

    def _on_feedback(self, msg: Bool) -> None:
        self.log.on_answer(bool(msg.data))
        self._last_event = time.monotonic()
        self._asked_at = None

    def _on_diagnostics(self, msg: DiagnosticArray) -> None:
        for status in msg.status:
            for key in ('feedback_node', 'camera_node'):
                if status.name.endswith(key):
                    self._reports[key] = {kv.key: kv.value for kv in status.values}

    # -- the person's keys -------------------------------------------------------------
    def _read_keys(self) -> None:
        for line in sys.stdin:
            self.lines_typed += 1
            self.handle_key_line(line)

    def handle_key_line(self, line: str) -> None:
        """Act on one typed line: y/yes, n/no, or +name (a new gesture)."""
        word = line.strip()
        if word.lower() in ('y', 'yes', 'n', 'no'):
            yes = word.lower().startswith('y')
            if self._shown is None:  # no question shown yet: the feedback node passes it on
                self._keyboard_pub.publish(Bool(data=yes))
            else:  # the question shown: a nod or a tap at the same moment is not a second
                self._answer_pub.publish(String(data=answer_key.answer_json(
                    *self._shown, yes, 'keyboard')))
        elif word.startswith('+') and word[1:].strip():
            if self._unknown is not None:
                self.name_unknown(word[1:].strip())
            else:
                self.add_label(word[1:].strip())
        elif word:
            self.notes.put('type y (right), n (wrong) or +name (a new gesture) and Enter')

    def name_unknown(self, name: str) -> None:
        """Say what the last gesture without a "yes" was; the learner learns from it."""
        self._unknown = None
        self._name_pub.publish(String(data=name))
        self.notes.put(f'the last gesture is {name!r} (learned from what you showed)')

    def add_label(self, name: str) -> None:
        """Append a label to the learner's ``labels`` (the learner keeps what it learned)."""
        if not self._params.services_are_ready():
            self.notes.put(f'cannot add {name!r}: the learner parameter service is not up')
            return
        future = self._params.get_parameters(['labels'])

        def got(done) -> None:
            values = done.result().values if done.result() is not None else []
            labels: List[str] = list(values[0].string_array_value) if values else []
            if name in labels:
                self.notes.put(f'{name!r} is already a label')
                return
            new = Parameter('labels', Parameter.Type.STRING_ARRAY, labels + [name])
            self._params.set_parameters([new]).add_done_callback(
                lambda d: self._report_set(name, d))
        future.add_done_callback(got)

    def _report_set(self, name: str, done) -> None:
        results = done.result().results if done.result() is not None else []
        if results and results[0].successful:
            self.notes.put(f'new gesture {name!r} added; show it and answer the questions')
        else:
            reason = results[0].reason if results else 'no reply'
            self.notes.put(f'could not add {name!r}: {reason}')

    # -- the session -------------------------------------------------------------------
    def _check_waiting(self) -> None:
        """Say why no answer comes once questions waited ``answer_warning`` s (then every 6x)."""
        if self._asked_at is None:
            return
        now = time.monotonic()
        waited = now - self._asked_at
        since = math.inf if self._warned_at is None else now - self._warned_at
        if waited < self.answer_warning or since < 6 * self.answer_warning:
            return
        self._warned_at = now
        face = self._reports.get('feedback_node')
        cam = self._reports.get('camera_node')
        feedback_publishers = self.count_publishers(self._feedback_sub.topic_name)
        own = 1 if face is not None else 0
        self.notes.put(why_no_answer(
            waited, keyboard=self.keyboard,
            face_frames=None if face is None else _int(face.get('frames')),
            faces_seen=None if face is None else _int(face.get('frames'))
            - _int(face.get('frames_no_face')) - _int(face.get('pose_errors')),
            joysticks=self.count_publishers(self.resolve_topic_name('joy')),
            teachers=max(feedback_publishers - own, 0),
            camera_frames=None if cam is None else _int(cam.get('frames_received')),
            face_loading=face is not None and face.get('face_mesh') == 'loading',
            simulated=not self.prompts))

    def quiet(self) -> float:
        """Return the seconds since the last question or answer."""
        return time.monotonic() - self._last_event

    @property
    def finished(self) -> bool:
        """Return True once ``interactions`` were made and the last one is over."""
        if not self.target or self.log.interactions < self.target:
            return False
        if self.log.interactions > self.target:  # the next one began: the last one is over
            return True
        # Over when the learner says so and its every question is in (a question asked again
        # after the last "no" may come late); without that word, when nobody answers.
        quiet = time.monotonic() - self._last_event
        return (self.log.complete(self.target) and quiet >= self.settle) or \
            quiet >= self.answer_warning


def _int(text) -> int:
    try:
        return int(float(text))
    except (TypeError, ValueError):
        return 0


NODE_CLASS = SessionNode
