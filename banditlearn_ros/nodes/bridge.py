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
The nodes' name for ``banditlearn_ros.image_bridge`` (sensor_msgs/Image <-> numpy).

The conversion lives below the nodes because the bag recorder needs it too; the nodes
still import it from here, with ``frame_of``, the image intake the camera and the feedback
node share.
"""

from banditlearn_ros.image_bridge import (  # noqa: F401 (re-exported for the nodes)
    array_to_image, clipped, FrameTooLargeError, image_to_array, ImageFormatError,
    MAX_FRAME_BYTES, SUPPORTED_ENCODINGS, UnsupportedEncodingError)
import numpy as np


def frame_of(msg, max_bytes: int, counters, warn) -> 'np.ndarray | None':
    """
    Return an image message's pixels as uint8, or None after counting why it was skipped.

    A frame that cannot be read is counted (``unsupported_encoding``, ``frame_too_large``
    or ``bad_image`` in ``counters``) and ``warn(kind, exc)`` is told (the node logs it,
    throttled); mono16 keeps its high byte.
    """
    kinds = ((UnsupportedEncodingError, 'unsupported_encoding'),
             (FrameTooLargeError, 'frame_too_large'), (ImageFormatError, 'bad_image'))
    try:
        frame = image_to_array(msg, max_bytes)
    except (UnsupportedEncodingError, ImageFormatError) as exc:  # the first kind that fits
        kind = next(name for cls, name in kinds if isinstance(exc, cls))
        counters.add(kind)
        warn(kind, exc)
        return None
    return frame if frame.dtype == np.uint8 else (frame >> 8).astype(np.uint8)
