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
The camera node's parameters as plain data, their rules, and what they build.

``camera_node`` declares ``SPECS``; the segmenter and the episode detector are made from
the values here, and a change is checked here, so all of it is tested without DDS.
"""

from typing import Any, Dict, Tuple

from banditlearn_ros.parameter_spec import Spec

from .episodes import EpisodeDetector
from .extractors import CHOICES, GestureExtractor, resolve_extractor
from .hand_segmentation import HandSegmenter
from .mediapipe_hands import mediapipe_available, MediaPipeHands

EPISODE_KEYS = ('mode', 'stable_frames', 'stability_tolerance', 'absent_frames',
                'change_tolerance', 'stable_seconds', 'absent_seconds', 'episode_features')
SEGMENT_KEYS = ('min_area', 'max_area', 'skin_threshold', 'adapt_skin',
                'background_subtraction', 'fallback', 'work_size')

HAND_DEFAULTS = {'static': False, 'detection': 0.5, 'tracking': 0.5, 'retry_margin': 0.5}
"""MediaPipe's settings on the camera path (docs/benchmarks.md, "Real photos")."""

SPECS = (
    Spec('extractor', 'auto', "feature set: 'auto' (landmarks when MediaPipe is installed, "
         "else contour), 'contour', 'landmarks' or 'combined'", read_only=True,
         constraints=' | '.join(CHOICES)),
    Spec('feature_names', [], 'publish only these features of the set, in this order '
         '([] = all)', read_only=True),
    Spec('feature_offsets', [], 'publish (x - offset) / scale, one value per published '
         'feature ([] = 0)', read_only=True, empty_array='double'),
    Spec('feature_scales', [], 'see feature_offsets ([] = 1)', read_only=True,
         empty_array='double'),
    Spec('use_mediapipe', True, 'locate the hand with MediaPipe landmarks when installed '
         '(contour extractor; the others always need it)', read_only=True),
    Spec('hand_static_mode', HAND_DEFAULTS['static'], 'MediaPipe detects the hand in every '
         'frame (true) or tracks it from frame to frame (false)', read_only=True),
    Spec('hand_detection_confidence', HAND_DEFAULTS['detection'], "MediaPipe's "
         'min_detection_confidence', read_only=True, low=0.0, high=1.0),
    Spec('hand_tracking_confidence', HAND_DEFAULTS['tracking'], "MediaPipe's "
         'min_tracking_confidence (tracking mode)', read_only=True, low=0.0, high=1.0),
    Spec('hand_retry_margin', HAND_DEFAULTS['retry_margin'], 'when a frame shows no hand, '
         'look again in a copy with this fraction of its size added on every side (0 = no '
         'second look)', read_only=True, low=0.0, high=4.0),
    Spec('source', '', "'' = subscribe to image_raw (remap it); else a V4L2 device "
         "('v4l2:/dev/video0', '0') or a video file read by the node", read_only=True),
    Spec('loop_video', False, 'start a video file again at its end', read_only=True),
    Spec('publish_debug_image', True, 'publish the annotated image'),
    Spec('mode', 'episode', "'episode': one vector per presented gesture; 'frame': one per "
         'frame with a hand', constraints='episode | frame'),
    Spec('stable_frames', 8, 'frames a hand must be present and steady before its gesture '
         'is published', low=1, high=300),
    Spec('stable_seconds', 0.0, 'when > 0: how long (frame stamps) a hand must be present '
         'and steady, however many frames were processed meanwhile; 0 = stable_frames',
         low=0.0, high=60.0),
    Spec('absent_seconds', 0.0, 'when > 0: how long (frame stamps) without a hand ends a '
         'presentation; 0 = absent_frames', low=0.0, high=60.0),
    Spec('episode_features', 'fresh_look', "what an episode publishes: 'fresh_look', its last "
         'frame looked at afresh by MediaPipe (the same for a still hand however many frames '
         "were processed); 'window_mean', the mean over the steady window (tracked frames)",
         constraints='fresh_look | window_mean'),
    Spec('stability_tolerance', 0.15, 'steady = every frame of the window within this '
         'relative distance of the window mean', low=1e-4, high=10.0),
    Spec('absent_frames', 5, 'frames without a hand that end a presentation', low=1,
         high=300),
    Spec('change_tolerance', 0.35, 'a held hand whose features move this far (relative) '
         'from the last published gesture starts a new one', low=1e-4, high=10.0),
    Spec('min_area', 0.005, 'smallest plausible hand, fraction of the image', low=0.0,
         high=1.0),
    Spec('max_area', 0.6, 'largest plausible hand, fraction of the image', low=0.0,
         high=1.0),
    Spec('skin_threshold', 2.8, 'Mahalanobis distance of the adapted skin-colour model',
         low=0.5, high=10.0),
    Spec('adapt_skin', True, 'adapt the skin-colour model to each accepted hand'),
    Spec('background_subtraction', False, 'keep only skin that differs from a learned '
         'background (static camera)'),
    Spec('fallback', 'grabcut', "when skin colour covers the scene: 'grabcut' (slow, "
         "~0.1-0.3 s) or 'none'", constraints='grabcut | none'),
    Spec('work_size', 320, 'longer side (pixels) of the copy segmentation works on',
         low=64, high=4096),
    Spec('max_frame_bytes', 64 * 2 ** 20, 'largest image taken from image_raw, in bytes of '
         'pixels (height x width x bytes per pixel); larger ones are counted '
         '(frame_too_large) and skipped before anything is allocated', low=1024,
         high=2 ** 31),
    Spec('image_transport', 'raw', "'raw': sensor_msgs/Image on image_raw; 'compressed': "
         'sensor_msgs/CompressedImage (JPEG or PNG) on image_raw/compressed, as '
         "image_transport's compressed plugin publishes it", read_only=True,
         constraints='raw | compressed'),
    Spec('diagnostics_period', 1.0, 'seconds between /diagnostics messages', read_only=True,
         low=0.05, high=3600.0),
)
"""The camera node's parameters, in the order they are declared."""


def check_extractor(kind: str) -> None:
    """Raise ValueError unless ``kind`` names a feature set or ``auto``."""
    resolve_extractor(kind)


def make_hands(values: Dict[str, Any]) -> MediaPipeHands:
    """Return the MediaPipe detector of the ``hand_*`` values."""
    return MediaPipeHands(static_image_mode=values['hand_static_mode'],
                          min_detection_confidence=values['hand_detection_confidence'],
                          min_tracking_confidence=values['hand_tracking_confidence'],
                          retry_margin=values['hand_retry_margin'])


def make_extractor(values: Dict[str, Any]) -> Tuple[GestureExtractor, str]:
    """
    Return the camera node's extractor of its parameter values, and the start line's note.

    Parameters
    ----------
    values : dict
        ``extractor``, ``use_mediapipe``, ``feature_names``, the ``hand_*`` and the
        ``SEGMENT_KEYS`` values.

    Returns
    -------
    tuple
        ``(GestureExtractor, note)``: the note says what ``auto`` chose and why.

    """
    kind, note = resolve_extractor(values['extractor'], values['use_mediapipe'])
    wanted = kind != 'contour' or values['use_mediapipe']
    hands = make_hands(values) if wanted and mediapipe_available() else None
    return GestureExtractor(kind, use_mediapipe=values['use_mediapipe'],
                            segmenter=make_segmenter(values), hands=hands,
                            keep=values['feature_names']), note


def problem(values: Dict[str, Any]) -> str:
    """Return why the segmentation and episode values cannot work together, or ''."""
    if values.get('mode') not in ('episode', 'frame'):
        return f"mode must be 'episode' or 'frame', got {values.get('mode')!r}"
    if values.get('episode_features', 'fresh_look') not in ('fresh_look', 'window_mean'):
        return ("episode_features must be 'fresh_look' or 'window_mean', got "
                f"{values.get('episode_features')!r}")
    if values.get('image_transport', 'raw') not in ('raw', 'compressed'):
        return ("image_transport must be 'raw' or 'compressed', got "
                f"{values.get('image_transport')!r}")
    if values.get('fallback') not in ('grabcut', 'none'):
        return f"fallback must be 'grabcut' or 'none', got {values.get('fallback')!r}"
    if not values['min_area'] < values['max_area']:
        return f'min_area {values["min_area"]} must be below max_area {values["max_area"]}'
    return ''


def make_segmenter(values: Dict[str, Any]) -> HandSegmenter:
    """Return the hand segmenter of the ``SEGMENT_KEYS`` values."""
    return HandSegmenter(work_size=values['work_size'], min_area=values['min_area'],
                         max_area=values['max_area'], adapt=values['adapt_skin'],
                         skin_threshold=values['skin_threshold'],
                         background_subtraction=values['background_subtraction'],
                         fallback=values['fallback'])


def make_episodes(values: Dict[str, Any]) -> EpisodeDetector:
    """Return the episode detector of the ``EPISODE_KEYS`` values."""
    return EpisodeDetector(stable_frames=values['stable_frames'],
                           tolerance=values['stability_tolerance'],
                           absent_frames=values['absent_frames'],
                           change_tolerance=values['change_tolerance'], mode=values['mode'],
                           stable_seconds=values['stable_seconds'],
                           absent_seconds=values['absent_seconds'])


def replace_segmenter(extractor: GestureExtractor, values: Dict[str, Any]) -> None:
    """Give ``extractor`` a segmenter of new values that keeps what its skin model learned."""
    old = extractor.segmenter
    extractor.segmenter = make_segmenter(values)
    extractor.segmenter.skin = old.skin
    extractor.segmenter.skin.set_threshold(values['skin_threshold'])
