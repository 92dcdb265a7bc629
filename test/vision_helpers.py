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


"""Helpers the vision tests share: rendered hands and projected faces with known truth."""

from typing import List, Optional, Tuple

from banditlearn_ros.vision.hand_renderer import HandRenderer, RenderedHand
from banditlearn_ros.vision.head_pose import camera_matrix, euler_to_rotation, MODEL_POINTS
import numpy as np


def render_many(renderer: HandRenderer, n: int, seed: int = 0) -> List[RenderedHand]:
    """Render n random gestures from their own seeded generator."""
    rng = np.random.default_rng(seed)
    return [renderer.render(rng=rng) for _ in range(n)]


def project_model(yaw: float, pitch: float, roll: float, image_size: Tuple[int, int],
                  distance: float = 600.0, focal: Optional[float] = None) -> np.ndarray:
    """Return the pixels of the generic face turned by the given angles."""
    rot = euler_to_rotation(yaw, pitch, roll)
    pts = MODEL_POINTS @ rot.T + np.array([0.0, 0.0, distance])
    cam = camera_matrix(image_size[0], image_size[1], focal)
    uv = pts @ cam.T
    return uv[:, :2] / uv[:, 2:3]
