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
face_show_node: a rendered face that answers yes/no with its head, as camera images.

Each std_msgs/Bool on ``teacher_answer`` (the simulated person's yes/no, true = right)
becomes a nod or a shake (``vision.head_actor``); the face (``vision.face_renderer``) is
published as sensor_msgs/Image on ``face_image`` for the feedback node, whose answers on
``gesture_feedback`` are tallied against the gestures made (``stats``), so a session can
say how many head answers were heard right. The face's time advances one frame period per
frame published (``FrameClock``), so a busy machine slows the face down instead of
showing its gestures in a few frames.
"""

import math

from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.bridge import array_to_image
from banditlearn_ros.vision import face_show_parameters
from banditlearn_ros.vision.face_renderer import FaceRenderer
from banditlearn_ros.vision.head_actor import FrameClock, HeadActor
from sensor_msgs.msg import Image
from std_msgs.msg import Bool


class FaceShowNode(common.GuardedNode):
    """Publish a rendered face that nods or shakes for each yes/no it is given."""

    def __init__(self, node_name: str = 'face_show_node', **kwargs):
        super().__init__(node_name, **kwargs)
        v = common.declare_specs(self, face_show_parameters.SPECS)
        width = v['width']
        height = v['height']
        rate = v['rate']
        seed = v['seed']
        period = v['diagnostics_period']
        self.face = FaceRenderer(width, height, face_height=0.55 * height, step=0.5,
                                 cache=400)
        self.actor = HeadActor(seed=seed)
        self.clock = FrameClock(rate)  # a gesture is shown whole at any load
        self.counters = common.Counters(('frames', 'answers_given', 'answers_heard'))
        self._image_pub = self.create_publisher(Image, 'face_image', qos.IMAGES)
        qos.subscribe_events(self, Bool, 'teacher_answer', self._on_answer)
        qos.subscribe_answers(self, self._on_heard)
        self.create_timer(1.0 / rate, self._tick)
        self.diagnostics = common.Diagnostics(self, 'banditlearn_ros: face_show_node',
                                              self._collect, period=period)
        self.get_logger().info(f'face answering with its head at {rate:g} fps; '
                               f'{common.topics_line(self)}')

    def _wall(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _on_answer(self, msg: Bool) -> None:
        self.counters.add('answers_given')
        self.actor.answer(bool(msg.data), self.clock.time(self._wall()))

    def _on_heard(self, msg: Bool) -> None:
        self.counters.add('answers_heard')
        self.actor.heard(bool(msg.data), self.clock.time(self._wall()))

    def _tick(self) -> None:
        # The face's time advances one frame per frame published (FrameClock), and the
        # frame is stamped with it: the gesture the listener sees has its own speed.
        now = self.clock.tick(self._wall(), self.actor.resting(self.clock.time(-math.inf)))
        yaw, pitch = self.actor.pose(now)
        msg = array_to_image(self.face.render(yaw, pitch), 'bgr8')
        msg.header.stamp.sec = int(now // 1)
        msg.header.stamp.nanosec = min(int(round((now % 1) * 1e9)), 999_999_999)
        self._image_pub.publish(msg)
        self.counters.add('frames')

    def stats(self):
        """Return the head answers made, heard, heard right and false (``HeadActor.stats``)."""
        return self.actor.stats(self.clock.time(self._wall()))

    def _collect(self):
        values = dict(self.counters.snapshot())
        values.update(self.stats())
        return common.OK, 'answering with the head', values


NODE_CLASS = FaceShowNode


def main(args=None) -> None:
    """Run face_show_node until Ctrl-C."""
    common.run_node(FaceShowNode, args=args, name='face_show_node')


if __name__ == '__main__':
    main()
