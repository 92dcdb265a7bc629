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
page_node: teach from a phone; a web page with the question, yes/no, "that's ..." and the curve.

Listens to the learner (``gesture_prediction_details``, ``gesture_feedback``,
``gesture_interaction``, ``gesture_unknown``, ``learner_config``) and, for the thumbnail,
``image_raw``; serves the page (``banditlearn_ros.page``) and publishes what a tap means on
the topics every answer takes: a yes/no for the question tapped on ``gesture_answer``
(``answer_key``: the learner takes one answer per question), a name on ``gesture_name``,
a new label through the learner's ``labels`` parameter (as ``+name`` typed in a session).
A managed node: configure makes the state and the server, activate takes the subscriptions
and starts listening on ``host:port``, deactivate closes the page's port.
"""

import math
import time
from typing import Any, Dict

from banditlearn_ros.learning.protocol import answer_key
from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.bridge import frame_of
from banditlearn_ros.nodes.events import read_event
from banditlearn_ros.nodes.managed import ManagedNode
from banditlearn_ros.page.parameters import SPECS
from banditlearn_ros.page.server import access_token, is_local, PageServer
from banditlearn_ros.page.state import PageError, PageState
from banditlearn_ros.page.thumbnail import thumbnail_url
from rclpy.parameter import Parameter
from rclpy.parameter_client import AsyncParameterClient
from sensor_msgs.msg import Image
from std_msgs.msg import Bool, String

CONFIG_TOPIC = 'learner_config'


class PageNode(ManagedNode):
    """Serve the teaching page; turn its taps into answers, names and labels."""

    def __init__(self, node_name: str = 'page_node', **kwargs):
        super().__init__(node_name, **kwargs)
        v = common.declare_specs(self, SPECS)
        self.counters = common.Counters((
            'answers', 'names', 'labels_added', 'taps_refused', 'unreadable_events',
            'thumbnails', 'unsupported_encoding', 'bad_image', 'frame_too_large'))
        self.state = self.server = self._image = None
        self.url = ''
        self._taken, self._thumb_at = [], -math.inf
        self._answer_pub = self.create_publisher(String, answer_key.TOPIC, qos.EVENTS_OUT)
        self._name_pub = self.create_publisher(String, 'gesture_name', qos.EVENTS_OUT)
        self._params = AsyncParameterClient(self, v['learner_node'])
        self.diagnostics = common.Diagnostics(self, 'banditlearn_ros: page_node',
                                              self._collect, period=v['diagnostics_period'])
        self.start()

    # -- lifecycle ---------------------------------------------------------------------
    def configure(self) -> None:
        """Make the page's state and its server (not listening yet)."""
        import aiohttp  # noqa: F401 - a missing server fails configure with its reason
        v = common.values_of(self, [spec.name for spec in SPECS])
        self.thumbnails = v['thumbnail']
        self.state = PageState(window=v['window'])
        token = access_token(v['host'], v['token'])
        self.server = PageServer(v['host'], v['port'], token, self.on_action,
                                 lambda: self.state.text(self.thumbnails))

    def activate(self) -> None:
        """Take the learner's topics (and the camera's, for thumbnails); open the port."""
        take, events = self._taken.append, qos.subscribe_events
        take(events(self, String, 'gesture_prediction_details', self._on_details))
        take(events(self, Bool, 'gesture_feedback', self._on_feedback))
        take(events(self, String, answer_key.TOPIC, self._on_keyed))
        take(events(self, String, answer_key.RESULT_TOPIC, self._on_taken))
        take(events(self, String, 'gesture_interaction', self._on_interaction))
        take(events(self, String, 'gesture_unknown', self._on_unknown))
        take(self.create_subscription(String, CONFIG_TOPIC, self._on_config, qos.LATCHED))
        if self.thumbnails:
            take(self.create_subscription(Image, 'image_raw', self._on_image, qos.IMAGES))
        self.url = self.server.start()
        where = 'this machine only' if is_local(self.server.host) else \
            'the network; the link carries its token'
        self.get_logger().info(f'teaching page on {where}: {self.url}')

    def deactivate(self) -> None:
        """Close the page's port and drop the subscriptions."""
        for sub in self._taken:
            self.destroy_subscription(sub)
        self._taken, self._image = [], None
        self.release('server', lambda server: server.stop(), forget=False)

    def cleanup(self) -> None:
        """Forget the state and the server (configure makes them again)."""
        self.deactivate()
        self.state = self.server = None

    # -- the page's taps (the server's thread) -----------------------------------------
    def on_action(self, message: Dict[str, Any]) -> Dict[str, Any]:
        """Check a tap against the open question; publish what it means; return the reply."""
        kind = message.get('action')
        try:
            if kind == 'answer':
                todo = self.state.answer(message.get('id'), message.get('question'),
                                         message.get('yes'))
            elif kind == 'name':
                todo = self.state.name(message.get('id'), message.get('question'),
                                       message.get('name'))
            else:
                raise PageError(f'unknown action {str(kind)[:40]!r}')
        except PageError as exc:
            self.counters.add('taps_refused')
            self._send_state()
            return {'ok': False, 'message': str(exc)}
        text = self._do(todo)
        self._send_state()
        return {'ok': True, 'message': text}

    def _do(self, todo) -> str:
        what, value = todo
        if what == 'answer':
            self.counters.add('answers')
            yes, ident, number = value
            self._answer_pub.publish(String(data=answer_key.answer_json(
                ident, number, bool(yes), 'page')))
            return 'yes, thank you' if yes else 'no, noted'
        if what == 'name':
            self.counters.add('names')
            self._name_pub.publish(String(data=value))
            return f'the last gesture is {value!r}'
        return self._add_label(value)

    def _add_label(self, name: str) -> str:
        """Append ``name`` to the learner's ``labels`` (the learner keeps what it learned)."""
        labels = list(self.state.labels)
        if not labels or not self._params.services_are_ready():
            return f'cannot add {name!r}: the learner is not up'
        self.counters.add('labels_added')
        self._params.set_parameters([Parameter(
            'labels', Parameter.Type.STRING_ARRAY, labels + [name])])
        return f'adding {name!r}: show it and answer the questions'

    # -- the learner's messages (the executor's thread) --------------------------------
    def _event(self, msg: String):
        try:
            event = read_event(msg.data)
            if not isinstance(event, dict):
                raise ValueError('not an object')
            return event
        except ValueError:
            self.counters.add('unreadable_events')
            self.get_logger().warning('unreadable learner event skipped',
                                      throttle_duration_sec=5.0)
            return None

    def _guarded(self, method, msg: String):
        """Run a state update on a learner event; a malformed one is counted, not raised."""
        event = self._event(msg)
        if event is None or self.state is None:
            return None
        try:
            todo = method(event)
        except (KeyError, TypeError, ValueError):
            self.counters.add('unreadable_events')
            return None
        if todo is not None:
            self._do(todo)
        self._send_state()
        return event

    def _on_details(self, msg: String) -> None:
        event = self._guarded(self.state.on_details, msg)
        if event is not None and self.thumbnails and int(event.get('question', 1)) == 1:
            self._thumbnail()

    def _on_feedback(self, msg: Bool) -> None:
        if self.state is not None:
            self.state.on_feedback(bool(msg.data))
            self._send_state()

    def _on_keyed(self, msg: String) -> None:
        try:
            said = answer_key.read_answer(msg.data)
        except ValueError:
            self.counters.add('unreadable_events')
            return
        if self.state is not None:
            self.state.on_keyed(said.yes, said.id, said.question)
            self._send_state()

    def _on_taken(self, msg: String) -> None:
        self._guarded(self.state.on_taken, msg)

    def _on_interaction(self, msg: String) -> None:
        self._guarded(self.state.on_interaction, msg)

    def _on_unknown(self, msg: String) -> None:
        self._guarded(self.state.on_unknown, msg)

    def _on_config(self, msg: String) -> None:
        self._guarded(self.state.on_config, msg)

    def _on_image(self, msg: Image) -> None:
        self._image = msg  # decoded only when a gesture is asked about

    def _thumbnail(self) -> None:
        now, rate = time.monotonic(), self.get_parameter('thumbnail_rate').value
        if self._image is None or now - self._thumb_at < 1.0 / rate:
            return
        frame = frame_of(self._image, self.get_parameter('max_frame_bytes').value,
                         self.counters, lambda kind, exc: self.get_logger().warning(
                             f'thumbnail skipped: {exc}', throttle_duration_sec=5.0))
        if frame is None:
            return
        self._thumb_at = now
        self.counters.add('thumbnails')
        self.state.on_thumbnail(thumbnail_url(
            frame, self.get_parameter('thumbnail_width').value))
        self._send_state()

    def _send_state(self) -> None:
        if self.server is not None and self.state is not None:
            self.server.publish(self.state.text(self.thumbnails))

    def _collect(self):
        values: Dict[str, Any] = dict(self.counters.snapshot(), **self.lifecycle_values())
        if self.server is None:
            return common.OK, values['lifecycle_state'], values
        values.update(self.server.counts, pages=self.server.pages, url=self.url.split('?')[0],
                      token=bool(self.server.token))
        message = f'{self.server.pages} page(s) on {values["url"]}' if self._taken else \
            values['lifecycle_state']
        return common.OK, message, values


NODE_CLASS = PageNode


def main(args=None) -> None:
    """Run the page node."""
    common.run_node(PageNode, args=args, name='page_node')


if __name__ == '__main__':
    main()
