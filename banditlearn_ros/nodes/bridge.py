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
The nodes' name for ``banditlearn_ros.support.image_bridge`` (sensor_msgs/Image <-> numpy).

The conversion lives below the nodes because the bag recorder needs it too; the nodes
still import it from here, with ``frame_of``, the image intake the camera and the feedback
node share, and ``subscribe_images``, their image subscription (raw or compressed).
"""

from banditlearn_ros.support.image_bridge import (  # noqa: F401 (re-exported for the nodes)
    array_to_compressed, array_to_image, clipped, compressed_to_array, FrameTooLargeError,
    image_to_array, ImageFormatError, MAX_FRAME_BYTES, SUPPORTED_ENCODINGS,
    UnsupportedEncodingError, UnsupportedFormatError)
from banditlearn_ros.vision.frame_rates import CAUSE, FrameRates
import numpy as np

IMAGE_TRANSPORTS = ('raw', 'compressed')
"""What the ``image_transport`` parameter takes (image_transport's plugin names)."""


def check_transport(transport: str) -> None:
    """Raise ValueError unless ``transport`` is one of ``IMAGE_TRANSPORTS``."""
    if transport not in IMAGE_TRANSPORTS:
        raise ValueError(f"image_transport must be 'raw' or 'compressed', got {transport!r}")


def subscribe_images(node, transport: str, callback, qos_profile):
    """
    Subscribe to ``image_raw`` as sensor_msgs/Image, or to its ``/compressed`` topic.

    As image_transport names it: the base topic after namespace and remapping, then
    ``/compressed`` (so ``-r image_raw:=/camera/image_raw`` gives
    ``/camera/image_raw/compressed``), of sensor_msgs/CompressedImage.
    """
    check_transport(transport)
    if transport == 'compressed':
        from sensor_msgs.msg import CompressedImage
        topic = node.resolve_topic_name('image_raw') + '/compressed'
        return node.create_subscription(CompressedImage, topic, callback, qos_profile)
    from sensor_msgs.msg import Image
    return node.create_subscription(Image, 'image_raw', callback, qos_profile)


def frame_of(msg, max_bytes: int, counters, warn) -> 'np.ndarray | None':
    """
    Return an image message's pixels as uint8, or None after counting why it was skipped.

    ``msg`` is a sensor_msgs/Image or a sensor_msgs/CompressedImage (it has a ``format``).
    A frame that cannot be read is counted (``unsupported_encoding``, ``frame_too_large``
    or ``bad_image`` in ``counters``) and ``warn(kind, exc)`` is told (the node logs it,
    throttled); mono16 keeps its high byte.
    """
    kinds = ((UnsupportedEncodingError, 'unsupported_encoding'),
             (FrameTooLargeError, 'frame_too_large'), (ImageFormatError, 'bad_image'))
    try:
        frame = compressed_to_array(msg, max_bytes) if hasattr(msg, 'format') \
            else image_to_array(msg, max_bytes)
    except (UnsupportedEncodingError, ImageFormatError) as exc:  # the first kind that fits
        kind = next(name for cls, name in kinds if isinstance(exc, cls))
        counters.add(kind)
        warn(kind, exc)
        return None
    return frame if frame.dtype == np.uint8 else (frame >> 8).astype(np.uint8)


class FrameWatch:
    """
    The rate frames arrive at and the rate their stamps say they were sent, for /diagnostics.

    ``subscribe`` takes the node's image topic (a new stream: the rates start again);
    ``frame(msg)`` for every image message that arrives (readable or not); ``status()``
    gives the diagnostic values and, when most frames are lost, the problem, logged once
    as a warning with the likely cause and the fix.  The age of a frame on arrival (wall
    clock minus its stamp: the sender's clock must agree, as on one machine or with NTP) is
    told as ``frame_age_ms_p50`` / ``_p99`` unless it is beyond ``MAX_AGE``.
    """

    LOST_MOST = 0.5
    """Fraction of frames lost from which the node warns."""

    MAX_AGE = 60.0
    """Seconds beyond which a stamp-to-arrival age is not told (sim time, clocks apart)."""

    def __init__(self, logger, clock=None, wall_clock=None):
        import time
        self._logger, self._clock = logger, clock or time.monotonic
        self._wall = wall_clock or time.time
        self.rates = FrameRates()
        self.transport = 'raw'
        self._warned = False

    def subscribe(self, node, transport: str, callback, qos_profile):
        """Return ``subscribe_images(...)``'s subscription; the rates start again."""
        subscription = subscribe_images(node, transport, callback, qos_profile)
        self.transport = transport
        self.rates.reset()
        return subscription

    def frame(self, msg) -> None:
        """Record one image message's arrival and header stamp (an unstamped one: arrival)."""
        stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
        if stamp > 0:
            self.rates.add(self._clock(), stamp, self._wall() - stamp)

    def status(self) -> 'tuple[dict, str]':
        """Return the diagnostic values and the problem ('' while most frames arrive)."""
        rates = self.rates.rates(self._clock())
        values = {'image_transport': self.transport, 'frames_arrived_hz': round(rates.arrived, 2),
                  'frames_sent_hz': round(rates.sent, 2),
                  'frames_lost_fraction': round(rates.lost, 3)}
        if abs(rates.age_p50) < self.MAX_AGE:  # false for nan: not told
            values.update(frame_age_ms_p50=round(rates.age_p50 * 1e3, 1),
                          frame_age_ms_p99=round(rates.age_p99 * 1e3, 1))
        if rates.sent <= 0 or rates.lost < self.LOST_MOST:
            return values, ''
        problem = (f'most camera frames are lost: {rates.arrived:.1f} of {rates.sent:.1f} '
                   f'per second arrive')
        if not self._warned:
            self._warned = True
            self._logger.warning(f'{problem}: {CAUSE}')
        return values, problem
