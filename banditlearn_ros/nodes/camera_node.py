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

Images come from ``image_raw`` (sensor-data QoS; ``image_transport: compressed`` takes
``image_raw/compressed``, JPEG or PNG) or, when ``source`` is set, straight from a V4L2
device or a video file.  Only the newest frame is processed: a worker thread takes it
from a one-frame slot, so a slow extractor drops stale frames instead of falling behind.
Segmentation, features and episodes live in ``banditlearn_ros.vision``.
"""

from operator import methodcaller
import threading
import time
from typing import Any, Dict, Optional

from banditlearn_ros.nodes import common, qos
from banditlearn_ros.nodes.bridge import array_to_image, frame_of, FrameWatch
from banditlearn_ros.nodes.managed import ManagedNode
from banditlearn_ros.vision import camera_parameters as settings
from banditlearn_ros.vision.drawing import draw_observation
from banditlearn_ros.vision.extractors import (
    FeatureScaling, FrameObservation, GestureExtractor)
from banditlearn_ros.vision.frame_source import (
    BackgroundLoad, FrameWorker, IMPORT_DELAY, LatestFrame, LOAD_WAIT, VideoSource)
from banditlearn_ros.vision.mediapipe_hands import import_mediapipe
import numpy as np
from sensor_msgs.msg import Image
from std_msgs.msg import Float32MultiArray, MultiArrayDimension

MAX_ENCODINGS_SHOWN = 8
"""Distinct unsupported encodings named in /diagnostics; the rest are only counted."""


class CameraNode(ManagedNode):
    """
    Publish hand-gesture feature vectors, one per presented gesture, and a debug image.

    A managed node: configure makes the extractor of the parameters and imports MediaPipe
    (in a thread); activate takes the image subscription (or opens ``source``), the worker
    and MediaPipe's graphs; deactivate releases them, so an inactive node costs no image
    traffic, holds no graph, and wakes without an import.
    """

    def __init__(self, node_name: str = 'camera_node', **kwargs):
        super().__init__(node_name, **kwargs)
        self._slot: Optional[LatestFrame] = None
        self._video: Optional[VideoSource] = None
        self._worker: Optional[FrameWorker] = None
        self._load: Optional[BackgroundLoad] = None
        self._image_sub = None
        self._watch = FrameWatch(self.get_logger())
        self.extractor: Optional[GestureExtractor] = None
        self.counters = common.Counters(
            ('frames_received', 'frames_processed', 'frames_dropped', 'frames_no_hand',
             'episodes', 'unsupported_encoding', 'bad_image', 'frame_too_large',
             'processing_errors',
             'parameter_rejections'))
        values = common.declare_specs(self, settings.SPECS)
        settings.check_extractor(values['extractor'])
        problem = settings.problem(values)
        if problem:
            raise ValueError(problem)
        self._lock = threading.Lock()
        self._bad_encodings = set()
        self._received = common.RateMeter()
        self._processed = common.RateMeter()
        self._proc_ms = self._proc_ms_last = 0.0
        self._last_method = self._source_problem = ''
        self._pending = set()
        common.watch_changes(self, self._check_change, self._apply_change)

        # Fixed relative names: namespaces and remapping move them.
        self._features_pub = self.create_publisher(Float32MultiArray, 'gesture_features',
                                                   qos.EVENTS_OUT)
        self._debug_pub = self.create_publisher(Image, 'gesture_debug_image', qos.IMAGES)
        self.diagnostics = common.Diagnostics(
            self, 'banditlearn_ros: camera_node', self._collect,
            period=values['diagnostics_period'])
        self.start()

    # -- lifecycle -------------------------------------------------------------------------
    def configure(self) -> None:
        """Make the extractor and its scaling of the parameters (activate: the episodes)."""
        values = self._values([spec.name for spec in settings.SPECS])
        problem = settings.problem(values)
        if problem:
            raise ValueError(problem)
        with self._lock:
            self._pending = set()
        self.extractor, chosen = settings.make_extractor(values)
        self.scaling = FeatureScaling(values['feature_offsets'], values['feature_scales'],
                                      self.extractor.dim)
        # MediaPipe's import (about a second of CPU) runs now, in a thread: the node answers
        # meanwhile, and activating it only builds the graphs (0.01 s).
        self._load = (BackgroundLoad(import_mediapipe, 'mediapipe_import', IMPORT_DELAY)
                      if self.extractor.hands is not None else None)
        self.get_logger().info(
            f'extractor {self.extractor.kind} ({self.extractor.dim} features'
            f'{"; " + chosen if chosen else ""}), '
            f'mediapipe {"on" if self.extractor.use_mediapipe else "off"}')

    def activate(self) -> None:
        """Start the worker (it opens MediaPipe first), then take frames (topic or source)."""
        # A new stream: the hand seen before the pause says nothing about this one.
        self.episodes = settings.make_episodes(self._values(settings.EPISODE_KEYS))
        # The import still running at activation holds the frames back; /diagnostics says
        # 'loading MediaPipe' until the graphs are built.
        self._worker = FrameWorker(self._handle, 'camera_worker', prepare=(
            self._open_mediapipe if self._load is not None else None))
        self._slot = self._worker.slot
        source = self.get_parameter('source').value
        if source:
            self._source_problem = ''
            self._video = VideoSource(source, self._on_frame,
                                      loop=self.get_parameter('loop_video').value,
                                      on_end=self._on_source_end)
        else:
            self._image_sub = self._watch.subscribe(
                self, self.get_parameter('image_transport').value, self._on_image,
                qos.NEWEST_IMAGE)
        self.get_logger().info(f'active: source {source or "the image topic"}; '
                               f'{common.topics_line(self)}')

    def deactivate(self) -> None:
        """Drop the subscription or source, stop the worker, release MediaPipe's graphs."""
        self.release('_image_sub', self.destroy_subscription)
        self.release('_video', methodcaller('close'))
        self.release('_worker', methodcaller('stop'))
        self._slot = None
        self.release('extractor', methodcaller('close'), forget=False)

    def cleanup(self) -> None:
        """Forget the extractor (configure makes it again of the parameters)."""
        self.deactivate()
        self.release('_load', methodcaller('join', LOAD_WAIT))
        self.extractor = None

    def _open_mediapipe(self) -> None:
        """Wait for configure's import, then build the graphs (the worker's first step)."""
        self._load.wait()
        self.extractor.hands.load()

    # -- parameters ------------------------------------------------------------------------
    def _values(self, keys) -> Dict[str, Any]:
        return common.values_of(self, keys)

    def _check_change(self, changes: Dict[str, Any]) -> None:
        """Refuse segmentation and episode values that cannot work together (on-set)."""
        values = self._values(settings.EPISODE_KEYS + settings.SEGMENT_KEYS)
        values.update(changes)
        problem = settings.problem(values)
        if problem:
            self.counters.add('parameter_rejections')
            raise ValueError(problem)

    def _apply_change(self, changes: Dict[str, Any]) -> None:
        """Queue a stored change (post-set): the worker rebuilds from the new values."""
        with self._lock:
            self._pending |= set(changes)

    def _apply_pending(self) -> None:
        with self._lock:
            names, self._pending = self._pending, set()
        if names & set(settings.EPISODE_KEYS):
            self.episodes = settings.make_episodes(self._values(settings.EPISODE_KEYS))
        if names & set(settings.SEGMENT_KEYS):
            settings.replace_segmenter(self.extractor, self._values(settings.SEGMENT_KEYS))

    # -- input -----------------------------------------------------------------------------
    def _on_image(self, msg) -> None:
        self.counters.add('frames_received')
        self._received.tick()
        self._watch.frame(msg)
        frame = frame_of(msg, self.get_parameter('max_frame_bytes').value, self.counters,
                         self._skipped)
        if frame is None:
            return
        stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
        self._on_frame(frame, stamp or time.time(), received=False)  # unstamped: arrival

    def _skipped(self, kind: str, exc: Exception) -> None:
        if kind == 'unsupported_encoding' and len(self._bad_encodings) < MAX_ENCODINGS_SHOWN:
            self._bad_encodings.add(exc.encoding)
        self.get_logger().warning(f'image skipped: {exc}', throttle_duration_sec=5.0)

    def _on_frame(self, frame, stamp: float, received: bool = True) -> None:
        if received:
            self.counters.add('frames_received')
            self._received.tick()
        slot = self._slot
        if slot is not None and slot.put(frame, stamp):
            self.counters.add('frames_dropped')

    def _on_source_end(self, reason: str) -> None:
        self._source_problem = f'video source ended: {reason}'
        self.get_logger().warning(self._source_problem)

    # -- work ------------------------------------------------------------------------------
    def _handle(self, frame, stamp: float) -> None:
        """Process one frame on the worker thread."""
        self._apply_pending()
        start = time.perf_counter()
        try:
            obs = self.extractor.process(frame)
        except Exception as exc:  # a frame must never end the node
            self.counters.add('processing_errors')
            self.get_logger().error(f'frame processing failed: {exc!r}',
                                    throttle_duration_sec=5.0)
            return
        episode = self.episodes.update(obs.features, stamp)
        elapsed = (time.perf_counter() - start) * 1000.0
        self._proc_ms_last = elapsed
        self._proc_ms = elapsed if self._proc_ms == 0 else 0.9 * self._proc_ms + 0.1 * elapsed
        self._processed.tick()
        self.counters.add('frames_processed')
        if obs.features is None:
            self.counters.add('frames_no_hand')
        if obs.segmentation is not None:
            self._last_method = obs.segmentation.method
        if episode is not None:
            try:
                features = self.extractor.episode_features(
                    frame, episode.features, self.get_parameter('episode_features').value)
            except Exception as exc:  # noqa: B902 - the window's mean is still the gesture
                self.counters.add('processing_errors')
                self.get_logger().error(f'fresh look failed: {exc!r}', throttle_duration_sec=5.0)
                features = episode.features
            self._publish_features(features)
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
        values = self.lifecycle_values()
        worker = self._worker
        if self.extractor is None or worker is None:  # asleep: nothing to expect
            values.update(counts)
            if self._load is not None:  # imported at configure: ready to wake
                values['mediapipe_imported'] = self._load.done and self._load.error is None
            return level, values['lifecycle_state'], values
        if not worker.prepared.is_set():
            message = 'loading MediaPipe'
        elif worker.prepare_error is not None:
            level, message = common.ERROR, f'MediaPipe did not load: {worker.prepare_error}'
        elif self._source_problem:
            level, message = common.WARN, self._source_problem
        elif counts['unsupported_encoding']:
            # Bounded: at most MAX_ENCODINGS_SHOWN names of at most 32 characters.
            level, message = common.WARN, 'unsupported encodings: ' + ', '.join(
                sorted(self._bad_encodings)) + (
                ', ...' if len(self._bad_encodings) >= MAX_ENCODINGS_SHOWN else '')
        elif counts['frames_received'] == 0:
            level, message = common.WARN, 'no frames yet'
        rates, lost = self._watch.status() if self._image_sub is not None else ({}, '')
        values.update(rates)
        if lost and level == common.OK:
            level, message = common.WARN, lost
        values.update({
            'extractor': self.extractor.kind, 'features': self.extractor.dim,
            'frame_rate': self._received.rate(), 'processed_rate': self._processed.rate(),
            'processing_ms_mean': self._proc_ms, 'processing_ms_last': self._proc_ms_last,
            'segmentation': self._last_method, 'mediapipe': self.extractor.use_mediapipe,
            'mediapipe_loaded': self.extractor.hands is not None and worker.prepared.is_set()
            and worker.prepare_error is None,
            'armed': self.episodes.armed})
        hands = self.extractor.hands
        if hands is not None:  # frames MediaPipe looked at twice, and found a hand the 2nd time
            values.update(hand_retries=hands.retries, hand_retry_found=hands.retry_found)
        values.update(counts)
        return level, message, values


NODE_CLASS = CameraNode


def main(args=None):
    """Run camera_node; a bad parameter or video source ends it with one readable line."""
    common.run_node(CameraNode, args=args, name='camera_node')


if __name__ == '__main__':
    main()
