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
image_source_node: a V4L2 camera or a video file published as ``image_raw``.

One reader for the whole system, so the camera node (hands) and the feedback node (the
person's nods and shakes) see the same frames; on a robot a camera driver takes its place.
"""

import time

from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.bridge import array_to_image
from banditlearn_ros.vision import image_source_parameters
from banditlearn_ros.vision.frame_source import VideoSource
from sensor_msgs.msg import Image


class ImageSourceNode(common.GuardedNode):
    """Publish the frames of a camera or a video file as sensor_msgs/Image (bgr8)."""

    def __init__(self, node_name: str = 'image_source_node', **kwargs):
        super().__init__(node_name, **kwargs)
        v = common.declare_specs(self, image_source_parameters.SPECS)
        source = v['source']
        loop = v['loop']
        self.wait_for = v['wait_for_subscribers']
        self.start_delay = v['start_delay']
        self.frame_id = v['frame_id']
        period = v['diagnostics_period']
        self.counters = common.Counters(('frames',))
        self._rate = common.RateMeter()
        self._ended = ''
        self._pub = self.create_publisher(Image, 'image_raw', qos.IMAGES)
        self._video = VideoSource(source, self._on_frame, loop=loop, on_end=self._on_end,
                                  paused=True)
        self._ready_since = None
        # A file would otherwise play its first seconds to nobody while the system starts.
        self._start_timer = self.create_timer(0.05, self._start_when_watched)
        self.diagnostics = common.Diagnostics(self, 'banditlearn_ros: image_source_node',
                                              self._collect, period=period)
        self.get_logger().info(f'publishing {source} on {self._pub.topic_name} '
                               f'({self._video.fps:.0f} fps)')

    def _start_when_watched(self) -> None:
        now = time.monotonic()
        if self._video.is_file and self._pub.get_subscription_count() < self.wait_for:
            self._ready_since = None
            return
        if self._video.is_file and self._ready_since is None:
            self._ready_since = now
        if self._video.is_file and now - self._ready_since < self.start_delay:
            return
        self._start_timer.cancel()
        self._video.start()

    @property
    def finished(self) -> bool:
        """Return True once a video file ended (a camera never does)."""
        return bool(self._ended)

    def _on_frame(self, frame, stamp: float) -> None:
        msg = array_to_image(frame, 'bgr8')
        msg.header.stamp.sec = int(stamp)
        msg.header.stamp.nanosec = int((stamp - int(stamp)) * 1e9)
        msg.header.frame_id = self.frame_id
        self._pub.publish(msg)
        self.counters.add('frames')
        self._rate.tick()

    def _on_end(self, reason: str) -> None:
        self._ended = reason
        # A video file ends (info; the session says so itself); a camera that fails warns.
        log = self.get_logger().info if reason in ('end of file', 'stopped') else \
            self.get_logger().warning
        log(f'image source ended: {reason}')

    def _collect(self):
        values = self.counters.snapshot()
        values['frame_rate'] = self._rate.rate()
        if self._ended:
            return common.WARN, f'ended: {self._ended}', values
        return common.OK, 'publishing', values

    def close(self) -> None:
        """Stop reading (safe to call twice)."""
        self._video.close()


NODE_CLASS = ImageSourceNode


def main(args=None) -> None:
    """Run image_source_node until Ctrl-C; a source that cannot open is one line."""
    common.run_node(ImageSourceNode, args=args, name='image_source_node')


if __name__ == '__main__':
    main()
