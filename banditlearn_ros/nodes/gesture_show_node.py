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
gesture_show_node: a rendered person shows hand gestures to the camera topic.

Publishes rendered scenes and hands (``vision.gesture_show``) as sensor_msgs/Image on
``image_raw``, and the true gesture on ``gesture_label`` just before each hand appears, for
the simulated teacher.  It watches ``gesture_features``, the questions and the answers to
know when the camera took the gesture and when the interaction is over, so every gesture
is shown exactly as long as the system needs, on any machine (the interaction ids in the
question details and end messages keep one presentation's end from ending the next).
"""

import queue
import threading
import time

from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.bridge import array_to_image
from banditlearn_ros.nodes.events import read_event
from banditlearn_ros.vision import gesture_show_parameters
from banditlearn_ros.vision.gesture_show import GestureShow, ShowSchedule
from sensor_msgs.msg import Image
from std_msgs.msg import Float32MultiArray, String


class GestureShowNode(common.GuardedNode):
    """Show rendered gestures on the image topic, one presentation per interaction."""

    def __init__(self, node_name: str = 'gesture_show_node', **kwargs):
        super().__init__(node_name, **kwargs)
        v = common.declare_specs(self, gesture_show_parameters.SPECS)
        gestures = v['gestures']
        width = v['width']
        height = v['height']
        rate = v['rate']
        noise = v['noise']
        supersample = v['supersample']
        clutter = v['clutter']
        seed = v['seed']
        self.schedule = ShowSchedule(
            absent_frames=v['absent_frames'],
            show_timeout=v['show_timeout'],
            answer_timeout=v['answer_timeout'],
            settle=v['settle'],
            presentations=v['presentations'], rate=rate)
        period = v['diagnostics_period']
        self.show = GestureShow(gestures, width=width, height=height, noise=noise,
                                clutter=clutter, supersample=supersample, seed=seed)
        self.counters = common.Counters(('frames', 'presentations', 'bad_events'))
        # Rendering takes ~0.1 s; a thread renders the next presentation while this one plays.
        self._ahead: 'queue.Queue' = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self._renderer = threading.Thread(target=self._render_ahead, name='gesture_render',
                                          daemon=True)
        self._renderer.start()
        self._current = self._next = None
        # Topic names are fixed and relative: namespaces and remapping move them.
        self._image_pub = self.create_publisher(Image, 'image_raw', qos.IMAGES)
        self._label_pub = self.create_publisher(String, 'gesture_label', qos.EVENTS_OUT)
        now = time.monotonic
        qos.subscribe_events(self, Float32MultiArray, 'gesture_features',
                             lambda _: self.schedule.on_features(now()))
        qos.subscribe_events(self, String, 'gesture_prediction',
                             lambda _: self.schedule.on_question(now()))
        qos.subscribe_events(self, String, 'gesture_prediction_details', self._on_details)
        qos.subscribe_answers(self, lambda msg: self.schedule.on_answer(now(), bool(msg.data)))
        qos.subscribe_events(self, String, 'gesture_interaction', self._on_interaction)
        self.create_timer(1.0 / rate, self._tick)
        self.diagnostics = common.Diagnostics(self, 'banditlearn_ros: gesture_show_node',
                                              self._collect, period=period)
        self.get_logger().info(f'showing {len(gestures)} gestures at {rate:g} fps; '
                               f'{common.topics_line(self)}')

    @property
    def finished(self) -> bool:
        """Return True when every presentation is over (``presentations`` > 0)."""
        return self.schedule.finished

    def _event_id(self, msg: String):
        """Return a JSON event's dict with an integer ``id``, or None (counted, logged)."""
        try:
            event = read_event(msg.data)
            int(event['id'])
            return event
        except (ValueError, KeyError, TypeError, OverflowError) as exc:
            self.counters.add('bad_events')
            self.get_logger().warning(f'unreadable event ({exc!r})', throttle_duration_sec=5.0)
            return None

    def _on_details(self, msg: String) -> None:
        event = self._event_id(msg)
        if event is not None:
            self.schedule.on_details(int(event['id']), bool(event.get('final', False)))

    def _on_interaction(self, msg: String) -> None:
        # Matched by id: the end of the interaction a new gesture cut short is not this one's.
        event = self._event_id(msg)
        self.schedule.on_interaction_end(None if event is None else int(event['id']))

    def _tick(self) -> None:
        what = self.schedule.tick(time.monotonic())
        if what is None:
            return
        if what == 'scene':
            if self._next is None:  # the scene of the next presentation, still empty
                self._next = self._ahead.get()
            image = self._next.scene
        else:
            if what == 'new':
                self._current, self._next = self._next or self._ahead.get(), None
                self._label_pub.publish(String(data=self._current.gesture))
                self.counters.add('presentations')
            image = self._current.hand
        msg = array_to_image(self.show.frame(image), 'bgr8')
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.header.frame_id = 'gesture_show'
        self._image_pub.publish(msg)
        self.counters.add('frames')

    def _render_ahead(self) -> None:
        while not self._stop.is_set():
            try:
                presentation = self.show.present()
            except Exception as exc:  # noqa: B902 - a bad draw must not stop the show
                self.get_logger().error(f'rendering failed, drawing again: {exc!r}',
                                        throttle_duration_sec=5.0)
                continue
            while not self._stop.is_set():
                try:
                    self._ahead.put(presentation, timeout=0.1)
                    break
                except queue.Full:
                    continue

    def close(self) -> None:
        """Stop the rendering thread (safe to call twice)."""
        self._stop.set()
        if self._renderer.is_alive():
            self._renderer.join(timeout=2.0)

    def _collect(self):
        values = self.counters.snapshot()
        s = self.schedule
        values.update({'phase': s.phase, 'taken': s.taken, 'missed': s.missed,
                       'unanswered': s.unanswered})
        return common.OK, f'showing ({s.phase})', values


NODE_CLASS = GestureShowNode


def main(args=None) -> None:
    """Run gesture_show_node until Ctrl-C."""
    common.run_node(GestureShowNode, args=args, name='gesture_show_node')


if __name__ == '__main__':
    main()
