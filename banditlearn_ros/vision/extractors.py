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
Per-frame gesture extraction: image -> (features or None), for each feature set.

``contour`` segments the hand (guided by MediaPipe landmarks when available) and describes
its silhouette; ``landmarks`` describes MediaPipe's 21 landmarks; ``combined`` is both,
concatenated, and needs both.  ``auto`` (``resolve_extractor``) is ``landmarks`` when
MediaPipe is installed and ``contour`` when it is not: on real photos of many people the
landmarks learn much faster (docs/benchmarks.md, "Real photos").
"""

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

import numpy as np

from .contour_features import ContourFeatures, ContourShape
from .hand_segmentation import HandSegmenter, Segmentation
from .landmark_features import LandmarkFeatures
from .mediapipe_hands import mediapipe_available, MediaPipeHands

EXTRACTORS = ('contour', 'landmarks', 'combined')
CHOICES = ('auto',) + EXTRACTORS
"""What a user may ask for: a feature set, or ``auto``."""


def resolve_extractor(kind: str, use_mediapipe: bool = True) -> Tuple[str, str]:
    """
    Return the feature set ``kind`` stands for and why, for the start line.

    Parameters
    ----------
    kind : str
        One of ``CHOICES``.
    use_mediapipe : bool
        False makes ``auto`` the contour features even when MediaPipe is installed.

    Returns
    -------
    tuple
        ``(feature set, note)``; the note is '' unless ``kind`` is ``auto``.

    """
    if kind not in CHOICES:
        raise ValueError(f'extractor must be one of {CHOICES}, got {kind!r}')
    if kind != 'auto':
        return kind, ''
    if not use_mediapipe:
        return 'contour', 'auto: use_mediapipe is false'
    if mediapipe_available():
        return 'landmarks', 'auto: MediaPipe is installed'
    return 'contour', ('auto: MediaPipe is not installed; pip install "mediapipe==0.10.21" '
                       'for the landmark features')


@dataclass
class FrameObservation:
    """What one frame gave."""

    features: Optional[np.ndarray]
    """The feature vector, or None when the frame shows no usable hand."""
    reason: str = ''
    segmentation: Optional[Segmentation] = None
    shape: Optional[ContourShape] = None
    landmarks: Optional[np.ndarray] = None

    @property
    def finger_count(self) -> Optional[int]:
        """Return the convexity-defect finger count, when a contour was found."""
        return None if self.shape is None else self.shape.finger_count


class GestureExtractor:
    """
    Turn a BGR frame into one fixed-size feature vector.

    Parameters
    ----------
    kind : {'contour', 'landmarks', 'combined'}
        The feature set.
    use_mediapipe : bool
        For ``contour``: locate the hand with MediaPipe first when it is installed (the
        other sets always need it).
    segmenter : HandSegmenter, optional
        Segmentation settings (defaults otherwise).
    hands : MediaPipeHands, optional
        A MediaPipe detector to share; one is made on first use otherwise.
    keep : sequence of str, optional
        Names of the features to publish, in this order (a subset of the feature set's
        names); None or empty = all.  Fewer, well-chosen features learn faster from one bit
        per interaction (docs/benchmarks.md).

    """

    def __init__(self, kind: str = 'contour', use_mediapipe: bool = True,
                 segmenter: Optional[HandSegmenter] = None,
                 hands: Optional[MediaPipeHands] = None,
                 contour: Optional[ContourFeatures] = None,
                 keep: Optional[Sequence[str]] = None):
        if kind not in EXTRACTORS:
            raise ValueError(f'unknown extractor {kind!r}; choose from {EXTRACTORS}')
        self.kind = kind
        self.segmenter = segmenter or HandSegmenter()
        self.contour = contour or ContourFeatures()
        self.landmark = LandmarkFeatures()
        needs = kind != 'contour'
        self.use_mediapipe = needs or (bool(use_mediapipe) and mediapipe_available())
        if needs and not mediapipe_available():
            raise RuntimeError(f'the {kind!r} extractor needs mediapipe==0.10.21')
        self.hands = hands if hands is not None else (
            MediaPipeHands() if self.use_mediapipe else None)
        self._keep: Optional[np.ndarray] = None
        if keep:
            every = self._all_names()
            unknown = [name for name in keep if name not in every]
            if unknown:
                raise ValueError(f'unknown {kind} feature names {unknown}')
            self._keep = np.array([every.index(name) for name in keep], dtype=np.intp)

    @property
    def names(self) -> Tuple[str, ...]:
        """Return the feature names, in vector order."""
        every = self._all_names()
        return every if self._keep is None else tuple(every[i] for i in self._keep)

    def _all_names(self) -> Tuple[str, ...]:
        if self.kind == 'contour':
            return self.contour.names
        if self.kind == 'landmarks':
            return self.landmark.names
        return tuple('contour.' + n for n in self.contour.names) + \
            tuple('landmarks.' + n for n in self.landmark.names)

    @property
    def dim(self) -> int:
        """Return the length of the feature vector."""
        return len(self.names)

    def process(self, bgr: np.ndarray,
                landmarks: Optional[np.ndarray] = None) -> FrameObservation:
        """Extract the features of one frame; ``landmarks`` skip MediaPipe when given."""
        if landmarks is None and self.hands is not None:
            hand = self.hands.best(bgr)
            landmarks = None if hand is None else hand.landmarks
        if self.kind == 'landmarks':
            if landmarks is None:
                return FrameObservation(None, 'no hand landmarks')
            return FrameObservation(self._select(self.landmark.features(landmarks)),
                                    landmarks=landmarks)
        if self.kind == 'combined' and landmarks is None:
            return FrameObservation(None, 'no hand landmarks')
        seg = self.segmenter.segment(bgr, landmarks)
        if not seg.found:
            return FrameObservation(None, seg.reason or 'no hand', seg, landmarks=landmarks)
        try:
            vec, shape = self.contour.analyse(seg.contour)
        except ValueError as exc:
            return FrameObservation(None, str(exc), seg, landmarks=landmarks)
        if self.kind == 'combined':
            vec = np.concatenate([vec, self.landmark.features(landmarks)])
        return FrameObservation(self._select(vec), seg.method, seg, shape, landmarks)

    def look_afresh(self, bgr: np.ndarray) -> Optional[np.ndarray]:
        """
        Return a frame's features from a hand found without any earlier frame, or None.

        What a still hand gives then does not depend on how many frames the tracker saw
        before (a loaded machine processes fewer); None when MediaPipe is not used or finds
        no hand.
        """
        if self.hands is None:
            return None
        found = self.hands.look_afresh(bgr)
        return self.process(bgr, landmarks=found[0].landmarks).features if found else None

    def episode_features(self, frame: np.ndarray, window_mean: np.ndarray,
                         how: str = 'fresh_look') -> np.ndarray:
        """
        Return the vector to publish for an episode that ``frame`` completed.

        ``'fresh_look'``: the frame's features from a fresh detection (``look_afresh``),
        the window mean when there is none; ``'window_mean'``: the mean over the steady
        window (before; it changes with the frames a loaded machine processed).
        """
        fresh = self.look_afresh(frame) if how == 'fresh_look' else None
        return window_mean if fresh is None else fresh

    def _select(self, vec: np.ndarray) -> np.ndarray:
        return vec if self._keep is None else vec[self._keep]

    def close(self) -> None:
        """Release MediaPipe."""
        if self.hands is not None:
            self.hands.close()


class FeatureScaling:
    """
    ``(x - offsets) / scales``: fixed constants measured on separate data.

    A linear learner with one variance per weight learns faster from centred features of
    one scale (docs/benchmarks.md, "The rendered teaching session").  Empty sequences mean
    no scaling.

    Examples
    --------
    >>> FeatureScaling([1.0, 2.0], [1.0, 4.0]).apply(np.array([1.0, 6.0])).tolist()
    [0.0, 1.0]

    """

    def __init__(self, offsets: Sequence[float] = (), scales: Sequence[float] = (),
                 dim: int = 0):
        self.offsets = np.asarray(offsets, np.float64).reshape(-1)
        self.scales = np.asarray(scales, np.float64).reshape(-1)
        if self.offsets.size == 0 and self.scales.size == 0:
            return
        if self.offsets.size == 0:
            self.offsets = np.zeros(self.scales.size)
        if self.scales.size == 0:
            self.scales = np.ones(self.offsets.size)
        if self.offsets.size != self.scales.size or (dim and self.offsets.size != dim):
            raise ValueError(f'offsets and scales need one value per published feature '
                             f'({dim or "as many"}), got {self.offsets.size} and '
                             f'{self.scales.size}')
        if not np.all(np.isfinite(self.offsets)) or not np.all(self.scales > 0):
            raise ValueError('offsets must be finite and scales > 0')

    @property
    def active(self) -> bool:
        """Return True when there is something to apply."""
        return self.offsets.size > 0

    def apply(self, x: np.ndarray) -> np.ndarray:
        """Return the scaled vector (``x`` itself when inactive)."""
        return (x - self.offsets) / self.scales if self.active else x
