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
Rendered hands as the package's camera node publishes them, shared by the benchmarks.

- ``session_hands``: the shipped rendered session's pictures (gesture_show_node's settings in
  config/gestures.system.yaml) through camera_node's extractor (skin segmentation, no
  MediaPipe): all 124 contour features, unscaled.
- ``session_features``: the 22 of them the session's camera_node publishes, centred and
  scaled by its ``feature_offsets`` / ``feature_scales`` (measured on renders of seed 11).
- ``scaled_landmarks``: landmark features from the renderer's skeleton (3 % jitter), centred
  and scaled by each feature's mean and standard deviation on renders of another seed, which
  is what ``feature_offsets`` / ``feature_scales`` would hold for them.
"""

from pathlib import Path
from typing import List, Sequence, Tuple

from banditlearn_ros.vision.contour_features import ContourFeatures
from banditlearn_ros.vision.extractors import FeatureScaling, GestureExtractor
from banditlearn_ros.vision.gesture_show import GestureShow
from banditlearn_ros.vision.hand_renderer import GESTURES
from banditlearn_ros.vision.hand_segmentation import HandSegmenter
from banditlearn_ros.vision.synthetic_dataset import render_features
import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
SYSTEM = yaml.safe_load((ROOT / 'config' / 'gestures.system.yaml').read_text())
SHOW = {k: v for k, v in next(e for e in SYSTEM['nodes'] if e['node'] == 'gesture_show_node')[
    'parameters'].items() if k in ('width', 'height', 'supersample')}
CAMERA = next(e for e in SYSTEM['nodes'] if e['node'] == 'camera_node')['parameters']
SCALING_SEED = 11
"""Renders the landmark scaling is measured on (never a benchmark's own seed)."""


def session_feature_names() -> List[str]:
    """Return the feature list of the shipped rendered session."""
    return list(CAMERA['feature_names'])


def session_hands(n: int, seed: int) -> Tuple[np.ndarray, np.ndarray]:
    """Return (all 124 contour features, labels) of ``n`` hands shown as the session does."""
    show = GestureShow(GESTURES, **SHOW, seed=seed)
    extractor = GestureExtractor('contour', use_mediapipe=False, segmenter=HandSegmenter())
    rows, labels = [], []
    for _ in range(n):
        p = show.present()
        obs = extractor.process(show.frame(p.hand))
        if obs.features is not None:
            rows.append(obs.features)
            labels.append(GESTURES.index(p.gesture))
    return np.array(rows), np.array(labels)


def session_features(X: np.ndarray) -> np.ndarray:
    """Return what the session's camera_node publishes of all-124 contour rows ``X``."""
    names = list(ContourFeatures().names)
    cols = [names.index(c) for c in session_feature_names()]
    return FeatureScaling(CAMERA['feature_offsets'], CAMERA['feature_scales']).apply(X[:, cols])


def centre_and_scale(X: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Return ``X`` centred and scaled by ``reference``'s column means and deviations."""
    mean, std = reference.mean(axis=0), reference.std(axis=0)
    constant = std < 1e-9  # the bias stays 1
    mean[constant], std[constant] = 0.0, 1.0
    return (X - mean) / std


def scaled_landmarks(n: int, seed: int, gestures: Sequence[str] = GESTURES):
    """Return (X, y, labels): landmark features of ``n`` renders, scaled as described above."""
    data = render_features(n, kind='landmarks', landmark_source='truth', gestures=gestures,
                           seed=seed)
    reference = render_features(n, kind='landmarks', landmark_source='truth',
                                gestures=gestures, seed=SCALING_SEED)
    return centre_and_scale(data.X, reference.X), data.y, list(data.labels)
