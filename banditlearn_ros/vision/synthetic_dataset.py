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
Feature data sets from rendered gestures: one row per rendered image.

Landmarks come either from MediaPipe run on the rendered image (what the robot would see;
MediaPipe misses some cartoon hands, those rows are skipped and counted) or from the
renderer's own skeleton with Gaussian jitter (what a good landmark detector would give).
"""

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from .extractors import EXTRACTORS, GestureExtractor
from .hand_renderer import GESTURES, HandRenderer
from .hand_segmentation import HandSegmenter
from .mediapipe_hands import MediaPipeHands

SIX_GESTURES = GESTURES[:6]
"""fist, one, two, three, four, five: the six classes of the benchmarks."""


@dataclass
class RenderedDataset:
    """Rows of features with their labels and what was skipped."""

    X: np.ndarray
    y: np.ndarray
    labels: List[str]
    feature_names: List[str]
    finger_count: np.ndarray
    """The convexity-defect finger count of each row (-1 without a contour)."""
    rendered: int = 0
    skipped: Dict[str, int] = field(default_factory=dict)
    """Gesture -> images that gave no features."""


def render_features(n: int, kind: str = 'contour', landmark_source: str = 'truth',
                    gestures: Sequence[str] = SIX_GESTURES, seed: int = 0,
                    jitter: float = 0.03, width: int = 640, height: int = 480,
                    progress: Optional[Callable[[int], None]] = None) -> RenderedDataset:
    """
    Render ``n`` gestures and extract a feature set from each.

    Parameters
    ----------
    n : int
        Images to render (rows can be fewer: images without features are skipped).
    kind : {'contour', 'landmarks', 'combined'}
        The feature set.
    landmark_source : {'truth', 'mediapipe', 'none'}
        Where landmarks come from ('none' only for ``contour``: plain skin segmentation).
    gestures : sequence of str
        The classes, in label order.
    seed : int
        Seed of the renderer and of the jitter.
    jitter : float
        Standard deviation of the landmark noise for ``truth``, in palm widths.
    width, height : int
        Image size.
    progress : callable, optional
        Called with the number of images done.

    """
    if kind not in EXTRACTORS:
        raise ValueError(f'unknown feature set {kind!r}; choose from {EXTRACTORS}')
    if landmark_source not in ('truth', 'mediapipe', 'none'):
        raise ValueError("landmark_source must be 'truth', 'mediapipe' or 'none'")
    if kind != 'contour' and landmark_source == 'none':
        raise ValueError(f'the {kind!r} features need landmarks')
    if n < 1:
        raise ValueError('n must be >= 1')
    renderer = HandRenderer(width, height, gestures=tuple(gestures), seed=seed)
    rng = np.random.default_rng(seed + 7919)
    hands = MediaPipeHands(static_image_mode=True) if landmark_source == 'mediapipe' else None
    extractor = GestureExtractor(kind, use_mediapipe=False,
                                 segmenter=HandSegmenter(adapt=False), hands=hands)
    if landmark_source != 'mediapipe':
        extractor.hands = None
    rows, ys, counts = [], [], []
    skipped = dict.fromkeys(gestures, 0)
    try:
        for i in range(n):
            hand = renderer.render(rng=rng)
            landmarks = None
            if landmark_source == 'truth':
                landmarks = hand.landmarks.copy()
                landmarks[:, :2] += rng.normal(0, jitter * hand.scale, (21, 2))
                landmarks[:, 2] += rng.normal(0, jitter * hand.scale, 21)
            if kind == 'contour' and landmark_source == 'truth':
                obs = extractor.process(hand.image)  # contour: skin colour, no guide
            else:
                obs = extractor.process(hand.image, landmarks)
            if obs.features is None:
                skipped[hand.gesture] += 1
            else:
                rows.append(obs.features)
                ys.append(hand.label)
                counts.append(-1 if obs.finger_count is None else obs.finger_count)
            if progress is not None:
                progress(i + 1)
    finally:
        extractor.close()
    d = extractor.dim
    return RenderedDataset(
        X=np.array(rows, dtype=np.float64).reshape(-1, d), y=np.array(ys, dtype=np.int64),
        labels=list(gestures), feature_names=list(extractor.names),
        finger_count=np.array(counts, dtype=np.int64), rendered=n, skipped=skipped)
