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
camera_node: camera images in, one feature vector per presented hand gesture out.

Images come from ``image_raw`` (sensor-data QoS) or, when ``source`` is set, straight from a
V4L2 device or a video file.  Only the newest frame is processed: a worker thread takes it
from a one-frame slot, so a slow extractor drops stale frames instead of falling behind.
Segmentation, features and episodes live in ``banditlearn_ros.vision``.
"""

import threading
import time
from typing import Any, Dict, Optional

from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.bridge import (
    array_to_image, image_to_array, ImageFormatError, UnsupportedEncodingError)
from banditlearn_ros.vision.drawing import draw_observation
from banditlearn_ros.vision.episodes import EpisodeDetector
from banditlearn_ros.vision.extractors import (
    EXTRACTORS, FeatureScaling, FrameObservation, GestureExtractor)
from banditlearn_ros.vision.frame_source import LatestFrame, VideoSource
from banditlearn_ros.vision.hand_segmentation import HandSegmenter
import numpy as np
from rclpy.parameter import Parameter
from sensor_msgs.msg import Image
from std_msgs.msg import Float32MultiArray, MultiArrayDimension

_EPISODE_KEYS = ('mode', 'stable_frames', 'stability_tolerance', 'absent_frames',
                 'change_tolerance')
_SEGMENT_KEYS = ('min_area', 'max_area', 'skin_threshold', 'adapt_skin',
                 'background_subtraction', 'fallback', 'work_size')


class CameraNode(common.GuardedNode):
    """Publish hand-gesture feature vectors, one per presented gesture, and a debug image."""

    def __init__(self, node_name: str = 'camera_node', **kwargs):
        super().__init__(node_name, **kwargs)
        self._stop = threading.Event()
        self._slot = LatestFrame()
        self._video: Optional[VideoSource] = None
        self._worker: Optional[threading.Thread] = None
        self.extractor: Optional[GestureExtractor] = None
        self.counters = common.Counters(
            ('frames_received', 'frames_processed', 'frames_dropped', 'frames_no_hand',
             'episodes', 'unsupported_encoding', 'bad_image', 'processing_errors',
             'parameter_rejections'))
        self._declare_parameters()
        p = self.get_parameter
        self._lock = threading.Lock()
        self._bad_encodings = set()
        self._received = common.RateMeter()
        self._processed = common.RateMeter()
        self._proc_ms = 0.0
        self._proc_ms_last = 0.0
        self._last_method = ''
        self._last_frame_time = 0.0
        self._source_problem = ''
        self.extractor = GestureExtractor(p('extractor').value,
                                          use_mediapipe=p('use_mediapipe').value,
                                          segmenter=self._make_segmenter(),
                                          keep=self._feature_names)
        self.scaling = FeatureScaling(self._offsets, self._scales, self.extractor.dim)
        self.episodes = self._make_episodes()
        self._pending = set()
        self.add_on_set_parameters_callback(self._on_set_parameters)

        # Fixed relative names: namespaces and remapping move them.
        self._features_pub = self.create_publisher(Float32MultiArray, 'gesture_features',
                                                   qos.EVENTS_OUT)
        self._debug_pub = self.create_publisher(Image, 'gesture_debug_image', qos.IMAGES)
        source = p('source').value
        if source:
            self._video = VideoSource(source, self._on_frame, loop=p('loop_video').value,
                                      on_end=self._on_source_end)
        else:
            self.create_subscription(Image, 'image_raw', self._on_image, qos.IMAGES)
        self.diagnostics = common.Diagnostics(
            self, 'banditlearn_ros: camera_node', self._collect,
            period=p('diagnostics_period').value)
        self._worker = threading.Thread(target=self._work, name='camera_worker', daemon=True)
        self._worker.start()
        self.get_logger().info(
            f'extractor {self.extractor.kind} ({self.extractor.dim} features), '
            f'mediapipe {"on" if self.extractor.use_mediapipe else "off"}, '
            f'source {source or "the image topic"}; {common.topics_line(self)}')

    # -- parameters ------------------------------------------------------------------------
    def _declare_parameters(self) -> None:
        d = common.declare
        d(self, 'extractor', 'contour', f'feature set: {", ".join(EXTRACTORS)}',
          read_only=True, constraints=' | '.join(EXTRACTORS))
        self._feature_names = d(self, 'feature_names', [], 'publish only these features of '
                                'the set, in this order ([] = all)', read_only=True)
        double = Parameter.Type.DOUBLE_ARRAY
        self._offsets = d(self, 'feature_offsets', [], 'publish (x - offset) / scale, one '
                          'value per published feature ([] = 0)', read_only=True,
                          empty_type=double)
        self._scales = d(self, 'feature_scales', [], 'see feature_offsets ([] = 1)',
                         read_only=True, empty_type=double)
        d(self, 'use_mediapipe', True, 'locate the hand with MediaPipe landmarks when '
          'installed (contour extractor; the others always need it)', read_only=True)
        d(self, 'source', '', "'' = subscribe to image_raw (remap it); else a V4L2 device "
          "('v4l2:/dev/video0', '0') or a video file read by the node", read_only=True)
        d(self, 'loop_video', False, 'start a video file again at its end', read_only=True)
        d(self, 'publish_debug_image', True, 'publish the annotated image')
        d(self, 'mode', 'episode', "'episode': one vector per presented gesture; "
          "'frame': one per frame with a hand", constraints='episode | frame')
        d(self, 'stable_frames', 8, 'frames a hand must be present and steady before its '
          'gesture is published', low=1, high=300)
        d(self, 'stability_tolerance', 0.15, 'steady = every frame of the window within this '
          'relative distance of the window mean', low=1e-4, high=10.0)
        d(self, 'absent_frames', 5, 'frames without a hand that end a presentation',
          low=1, high=300)
        d(self, 'change_tolerance', 0.35, 'a held hand whose features move this far '
          '(relative) from the last published gesture starts a new one', low=1e-4, high=10.0)
        d(self, 'min_area', 0.005, 'smallest plausible hand, fraction of the image',
          low=0.0, high=1.0)
        d(self, 'max_area', 0.6, 'largest plausible hand, fraction of the image',
          low=0.0, high=1.0)
        d(self, 'skin_threshold', 2.8, 'Mahalanobis distance of the adapted skin-colour '
          'model', low=0.5, high=10.0)
        d(self, 'adapt_skin', True, 'adapt the skin-colour model to each accepted hand')
        d(self, 'background_subtraction', False, 'keep only skin that differs from a learned '
          'background (static camera)')
        d(self, 'fallback', 'grabcut', "when skin colour covers the scene: 'grabcut' (slow, "
          "~0.1-0.3 s) or 'none'", constraints='grabcut | none')
        d(self, 'work_size', 320, 'longer side (pixels) of the copy segmentation works on',
          low=64, high=4096)
        d(self, 'diagnostics_period', 1.0, 'seconds between /diagnostics messages',
          read_only=True, low=0.05, high=3600.0)
        if self.get_parameter('extractor').value not in EXTRACTORS:
            raise ValueError(f'extractor must be one of {EXTRACTORS}, got '
                             f'{self.get_parameter("extractor").value!r}')
        self._check(dict(self._values(_EPISODE_KEYS + _SEGMENT_KEYS)), raise_error=True)

    def _values(self, keys) -> Dict[str, Any]:
        return {k: self.get_parameter(k).value for k in keys}

    def _check(self, values: Dict[str, Any], raise_error: bool = False) -> str:
        problem = ''
        if values.get('mode') not in ('episode', 'frame'):
            problem = f"mode must be 'episode' or 'frame', got {values.get('mode')!r}"
        elif values.get('fallback') not in ('grabcut', 'none'):
            problem = f"fallback must be 'grabcut' or 'none', got {values.get('fallback')!r}"
        elif not values['min_area'] < values['max_area']:
            problem = f'min_area {values["min_area"]} must be below max_area {values["max_area"]}'
        if problem and raise_error:
            raise ValueError(problem)
        return problem

    def _make_segmenter(self) -> HandSegmenter:
        v = self._values(_SEGMENT_KEYS)
        return HandSegmenter(work_size=v['work_size'], min_area=v['min_area'],
                             max_area=v['max_area'], adapt=v['adapt_skin'],
                             skin_threshold=v['skin_threshold'],
                             background_subtraction=v['background_subtraction'],
                             fallback=v['fallback'])

    def _make_episodes(self) -> EpisodeDetector:
        v = self._values(_EPISODE_KEYS)
        return EpisodeDetector(stable_frames=v['stable_frames'],
                               tolerance=v['stability_tolerance'],
                               absent_frames=v['absent_frames'],
                               change_tolerance=v['change_tolerance'], mode=v['mode'])

    def _on_set_parameters(self, params):
        values = self._values(_EPISODE_KEYS + _SEGMENT_KEYS)
        values.update({prm.name: prm.value for prm in params})
        problem = self._check(values)
        if problem:
            self.counters.add('parameter_rejections')
            return common.ParameterChanges.of(self).refuse(problem)
        names = {prm.name for prm in params}
        # Applied after the change is stored: rebuild from the new values on the worker.
        with self._lock:
            self._pending |= names
        return common.accept()

    def _apply_pending(self) -> None:
        with self._lock:
            names, self._pending = self._pending, set()
        if names & set(_EPISODE_KEYS):
            self.episodes = self._make_episodes()
        if names & set(_SEGMENT_KEYS):
            old = self.extractor.segmenter
            self.extractor.segmenter = self._make_segmenter()
            self.extractor.segmenter.skin = old.skin  # keep what the skin model learned
            self.extractor.segmenter.skin.threshold = self.get_parameter('skin_threshold').value
            self.extractor.segmenter.skin._build()

    # -- input -----------------------------------------------------------------------------
    def _on_image(self, msg: Image) -> None:
        self.counters.add('frames_received')
        self._received.tick()
        try:
            frame = image_to_array(msg)
        except UnsupportedEncodingError as exc:
            self.counters.add('unsupported_encoding')
            if exc.encoding not in self._bad_encodings:
                self._bad_encodings.add(exc.encoding)
                self.get_logger().error(f'image encoding {exc.encoding!r} is not supported; '
                                        'such frames are counted and skipped')
            return
        except ImageFormatError as exc:
            self.counters.add('bad_image')
            self.get_logger().warning(f'bad image skipped: {exc}', throttle_duration_sec=5.0)
            return
        if frame.dtype != np.uint8:  # mono16: keep the high byte
            frame = (frame >> 8).astype(np.uint8)
        stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
        if self._slot.put(frame, stamp):
            self.counters.add('frames_dropped')

    def _on_frame(self, frame, stamp: float) -> None:
        self.counters.add('frames_received')
        self._received.tick()
        if self._slot.put(frame, stamp):
            self.counters.add('frames_dropped')

    def _on_source_end(self, reason: str) -> None:
        self._source_problem = f'video source ended: {reason}'
        self.get_logger().warning(self._source_problem)

    # -- work ------------------------------------------------------------------------------
    def _work(self) -> None:
        while not self._stop.is_set():
            item = self._slot.take(timeout=0.1)
            if item is None:
                continue
            frame, stamp = item
            self._apply_pending()
            start = time.perf_counter()
            try:
                obs = self.extractor.process(frame)
            except Exception as exc:  # a frame must never end the node
                self.counters.add('processing_errors')
                self.get_logger().error(f'frame processing failed: {exc!r}',
                                        throttle_duration_sec=5.0)
                continue
            episode = self.episodes.update(obs.features, stamp)
            elapsed = (time.perf_counter() - start) * 1000.0
            self._proc_ms_last = elapsed
            self._proc_ms = elapsed if self._proc_ms == 0 else 0.9 * self._proc_ms + 0.1 * elapsed
            self._processed.tick()
            self._last_frame_time = time.monotonic()
            self.counters.add('frames_processed')
            if obs.features is None:
                self.counters.add('frames_no_hand')
            if obs.segmentation is not None:
                self._last_method = obs.segmentation.method
            if episode is not None:
                self._publish_features(episode.features)
            if self.get_parameter('publish_debug_image').value and \
                    self._debug_pub.get_subscription_count() > 0:
                self._publish_debug(frame, obs, episode is not None)

    def _publish_features(self, features: np.ndarray) -> None:
        msg = Float32MultiArray()
        features = self.scaling.apply(features)
        d = int(features.size)
        msg.layout.dim = [MultiArrayDimension(label=self.extractor.kind, size=d, stride=d)]
        msg.data = features.astype(np.float32).tolist()
        self._features_pub.publish(msg)
        self.counters.add('episodes')

    def _publish_debug(self, frame, obs: FrameObservation, published: bool) -> None:
        text = f'{self.extractor.kind}: '
        text += 'PUBLISHED' if published else (
            f'fingers {obs.finger_count}' if obs.finger_count is not None else obs.reason)
        img = draw_observation(frame, obs, text[:70], self.episodes.progress)
        msg = array_to_image(img, 'bgr8')
        msg.header.stamp = self.get_clock().now().to_msg()
        self._debug_pub.publish(msg)

    # -- diagnostics -----------------------------------------------------------------------
    def _collect(self):
        counts = self.counters.snapshot()
        level, message = common.OK, 'ok'
        if self._source_problem:
            level, message = common.WARN, self._source_problem
        elif counts['unsupported_encoding']:
            level, message = common.WARN, 'unsupported encodings: ' + ', '.join(
                sorted(self._bad_encodings))
        elif counts['frames_received'] == 0:
            level, message = common.WARN, 'no frames yet'
        values = {'extractor': self.extractor.kind, 'features': self.extractor.dim,
                  'frame_rate': self._received.rate(),
                  'processed_rate': self._processed.rate(),
                  'processing_ms_mean': self._proc_ms, 'processing_ms_last': self._proc_ms_last,
                  'segmentation': self._last_method, 'mediapipe': self.extractor.use_mediapipe,
                  'armed': self.episodes.armed}
        values.update(counts)
        return level, message, values

    def close(self) -> None:
        """Stop the worker and the video source, release MediaPipe (safe to call twice)."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._slot.close()
        if self._video is not None:
            self._video.close()
        if self._worker is not None and self._worker.is_alive():
            self._worker.join(timeout=5.0)
        if self.extractor is not None:
            self.extractor.close()

    def destroy_node(self):
        """Stop the worker thread before the node goes away."""
        self.close()
        return super().destroy_node()


NODE_CLASS = CameraNode


def main(args=None):
    """Run camera_node; a bad parameter or video source ends it with one readable line."""
    common.run_node(CameraNode, args=args, name='camera_node')


if __name__ == '__main__':
    main()
