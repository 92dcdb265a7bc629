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
The real sign-digit photos as a camera would show them, shared by the benchmark and a test.

``../shared/data/real/sign_digits`` holds 100 x 100 crops of one hand of 218 people
(Mavi, A. (2020), "A New Dataset and Proposed Convolutional Neural Network Architecture
for Classification of American Sign Language Digits", arXiv:2011.08927).  The hand fills
the crop, which MediaPipe's palm detector misses: ``camera_frame`` enlarges a crop to
240 x 240 and pads it to 640 x 480 with its own border, a hand at arm's length in front
of a plain wall.  Features go through the camera node's own extractor
(``camera_parameters.make_extractor`` of the node's parameter values).
"""

import hashlib
import json
import os
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from banditlearn_ros.vision import camera_parameters
import cv2
import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = ROOT.parent / 'shared' / 'data' / 'real' / 'sign_digits'
LABELS = ('zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine')
CACHE = Path(os.environ.get('XDG_CACHE_HOME', Path.home() / '.cache')) / 'banditlearn_ros'
FRAME = (480, 640)
"""Height and width of a camera frame."""


def missing_reason() -> str:
    """Return why the photos cannot be used here, or '' when they can."""
    if not PHOTOS.is_dir():
        return f'{PHOTOS} is absent (the shared real-data folder is not beside the project)'
    return ''


def photo_list(per_class: int = 100) -> List[Tuple[Path, int]]:
    """Return (path, class) of the first ``per_class`` photos of every class, by name."""
    out = []
    for c in range(len(LABELS)):
        files = sorted(p for p in (PHOTOS / str(c)).iterdir()
                       if p.suffix.lower() in ('.jpg', '.jpeg', '.png'))
        out += [(p, c) for p in files[:per_class]]
    return out


def camera_frame(crop: np.ndarray, size: int = 240) -> np.ndarray:
    """Return a 640 x 480 frame of a 100 x 100 crop: enlarged, padded with its border."""
    big = cv2.resize(crop, (size, size), interpolation=cv2.INTER_CUBIC)
    top = (FRAME[0] - size) // 2
    side = (FRAME[1] - size) // 2
    return cv2.copyMakeBorder(big, top, FRAME[0] - size - top, side, FRAME[1] - size - side,
                              cv2.BORDER_REPLICATE)


def camera_values(**changes) -> Dict[str, object]:
    """Return the camera node's parameter values: declared defaults, then config/params.yaml."""
    values = {spec.name: spec.default for spec in camera_parameters.SPECS}
    params = yaml.safe_load((ROOT / 'config' / 'params.yaml').read_text())
    values.update(params['/**/camera_node']['ros__parameters'])
    values.update(changes)
    return values


def learner_values(system: str = 'camera', **changes) -> Dict[str, object]:
    """
    Return the learner node's parameter values in a system of the bring-up.

    Declared defaults, then config/params.yaml, or the parameter files of
    config/<system>.system.yaml in order ('' = params.yaml alone), then that system's
    learner overrides, then ``changes``.
    """
    from banditlearn_ros.learning.live import learner_parameters as lp
    specs = lp.HEAD_SPECS + tuple(lp.hyperparameter_specs()) + lp.TAIL_SPECS
    values = {spec.name: spec.default for spec in specs}
    config = ROOT / 'config'
    system_text = yaml.safe_load((config / f'{system}.system.yaml').read_text()) if system \
        else {}
    for name in system_text.get('params_files') or ['params.yaml']:
        sections = yaml.safe_load((config / name).read_text()) or {}
        values.update(sections.get('/**/learner_node', {}).get('ros__parameters', {}))
    for entry in system_text.get('nodes') or []:
        if entry['node'] == 'learner_node':
            values.update(entry.get('parameters') or {})
    values.update(labels=list(LABELS), model_path='')
    values.update(changes)
    return values


def _code_digest() -> str:
    """Return a digest of the vision code that makes features (a change empties the cache)."""
    digest = hashlib.sha256()
    vision = ROOT / 'banditlearn_ros' / 'vision'
    for name in ('extractors.py', 'landmark_features.py', 'mediapipe_hands.py',
                 'contour_features.py', 'hand_segmentation.py'):
        digest.update((vision / name).read_bytes())
    return digest.hexdigest()[:12]


def extract(values: Dict[str, object], photos: List[Tuple[Path, int]],
            use_cache: bool = True, log=None) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """
    Return (features, classes, names) of the photos through the camera node's extractor.

    Rows of photos in which no hand was found are NaN.  Each photo is shown after a black
    frame, as in the end-to-end video, so a tracking detector starts afresh on it, and its
    features are those of the frame after the one a hand was found in (tracked).  The
    result is cached under ``~/.cache/banditlearn_ros`` by the values, the photos and the
    vision code (only the values that change what a frame gives).
    """
    used = [k for k in values if k in camera_parameters.SEGMENT_KEYS or k.startswith('hand_')
            or k in ('extractor', 'use_mediapipe', 'feature_names', 'episode_features')]
    key = json.dumps({k: values[k] for k in sorted(used)}, sort_keys=True, default=str)
    key += _code_digest() + str([(p.name, c) for p, c in photos])
    path = CACHE / f'real_photos_{hashlib.sha256(key.encode()).hexdigest()[:16]}.npz'
    if use_cache and path.is_file():
        with np.load(path) as data:
            return data['X'], data['y'], [str(n) for n in data['names']]
    extractor, _ = camera_parameters.make_extractor(values)
    black = np.zeros(FRAME + (3,), np.uint8)
    rows: List[Optional[np.ndarray]] = []
    try:
        for i, (file, _c) in enumerate(photos):
            extractor.process(black)
            frame = camera_frame(cv2.imread(str(file)))
            obs = extractor.process(frame)
            if obs.features is not None:  # the next frame of a held hand: tracked
                obs = extractor.process(frame)
            rows.append(obs.features if obs.features is None else extractor.episode_features(
                frame, obs.features, values.get('episode_features', 'window_mean')))
            if log is not None and (i + 1) % 100 == 0:
                log(f'  extracted {i + 1}/{len(photos)}')
        names = list(extractor.names)
    finally:
        extractor.close()
    X = np.full((len(rows), len(names)), np.nan)
    for i, row in enumerate(rows):
        if row is not None:
            X[i] = row
    y = np.array([c for _p, c in photos])
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix('.tmp.npz')
    np.savez(tmp, X=X, y=y, names=np.array(names))
    os.replace(tmp, path)
    return X, y, names
