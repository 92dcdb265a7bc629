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

"""The small picture of the camera frame a question is about, as a data URL for the page."""

import base64

import cv2
import numpy as np


def thumbnail_url(frame: np.ndarray, width: int = 160, quality: int = 70) -> str:
    """
    Return a frame shrunk to ``width`` pixels as a JPEG ``data:`` URL (a few kB).

    Parameters
    ----------
    frame : numpy.ndarray
        BGR or grey uint8 pixels (what ``image_bridge.image_to_array`` returns).
    width : int
        Width of the thumbnail; the height keeps the frame's proportions.
    quality : int
        JPEG quality, 1-100.

    Returns
    -------
    str
        ``data:image/jpeg;base64,...``

    """
    height = max(1, round(frame.shape[0] * width / max(frame.shape[1], 1)))
    small = cv2.resize(frame, (int(width), int(height)), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode('.jpg', small, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError('the thumbnail could not be encoded as JPEG')
    return 'data:image/jpeg;base64,' + base64.b64encode(data.tobytes()).decode('ascii')
