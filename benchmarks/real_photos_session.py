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
The user's own path end to end: a video of sign-digit photos through ``banditlearn_bringup``.

``make_video`` writes the photos (``real_photos.camera_frame``) into a video, each held
``hold`` seconds with a black gap between.  ``Answerer`` plays the person at the keys: it
watches ``image_raw`` to know which photo is on screen (the nearest thumbnail of the ones
in the video), says the true gesture on ``gesture_label`` when a new photo appears (the
session's right50 column scores against it) and answers every question on
``keyboard_answer`` (the topic typed y/n lines go to) from the truth, wrong with
probability ``noise``: the draw is seeded by the interaction and question numbers, so
the same questions get the same answers.  The truth of an interaction is the photo its
vector was taken from (``Answerer.truth_photo``).
"""

import json
import os
from pathlib import Path
import signal
import subprocess
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

import cv2
import numpy as np

try:
    from real_photos import camera_frame, FRAME, LABELS
except ImportError:
    from benchmarks.real_photos import camera_frame, FRAME, LABELS

THUMB = (16, 12)


def thumbnail(bgr: np.ndarray) -> np.ndarray:
    """Return a small grey copy of a frame, to tell the photos apart."""
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY) if bgr.ndim == 3 else bgr
    return cv2.resize(grey, THUMB, interpolation=cv2.INTER_AREA).astype(np.float32).ravel()


def make_video(photos: Sequence[Tuple[Path, int]], path: Path, fps: float = 15.0,
               hold: float = 0.7, gap: float = 0.5, lead: float = 3.0) -> np.ndarray:
    """Write the video; return the thumbnails of its photos, in order."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*'MJPG'), fps,
                             (FRAME[1], FRAME[0]))
    if not writer.isOpened():
        raise RuntimeError(f'cannot write {path}')
    black = np.zeros(FRAME + (3,), np.uint8)
    thumbs = []
    try:
        for _ in range(int(round(lead * fps))):
            writer.write(black)
        for file, _c in photos:
            frame = camera_frame(cv2.imread(str(file)))
            thumbs.append(thumbnail(frame))
            for _ in range(int(round(hold * fps))):
                writer.write(frame)
            for _ in range(int(round(gap * fps))):
                writer.write(black)
    finally:
        writer.release()
    return np.array(thumbs)


class Answerer:
    """The person at the keys, as a ROS node: truth from the screen, answers from the truth."""

    def __init__(self, context, thumbs: np.ndarray, classes: Sequence[int], noise: float,
                 seed: int = 0, features: Optional[np.ndarray] = None):
        from banditlearn_ros.nodes import qos
        from diagnostic_msgs.msg import DiagnosticArray
        from rclpy.node import Node
        from sensor_msgs.msg import Image
        from std_msgs.msg import Bool, Float32MultiArray, String
        self._Bool, self._String = Bool, String
        self.node = Node('real_photo_answerer', context=context)
        self.thumbs = thumbs
        self.classes = list(classes)
        self.noise = noise
        self.seed = seed
        self.shown: Optional[int] = None
        self.features = features
        self.matched: List[float] = []
        """Distance of each vector to the photo it was taken for (its own extractor's)."""
        self.shown_order: List[int] = []
        self.records: Dict[int, Dict[str, object]] = {}
        self._label_pub = self.node.create_publisher(String, 'gesture_label', qos.EVENTS_OUT)
        self._answer_pub = self.node.create_publisher(Bool, 'keyboard_answer', qos.EVENTS_OUT)
        self.camera: Dict[str, str] = {}
        """The camera node's last /diagnostics values."""
        self.node.create_subscription(Image, 'image_raw', self._on_image, qos.IMAGES)
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics,
                                      qos.DIAGNOSTICS)
        qos.subscribe_events(self.node, String, 'gesture_prediction_details', self._on_details)
        self.vectors: List[Tuple[Optional[int], List[float]]] = []
        """(photo on screen, vector) of every gesture_features message."""
        qos.subscribe_events(self.node, Float32MultiArray, 'gesture_features',
                             lambda msg: self.vectors.append((self.shown, list(msg.data))))
        self._used = -1

    def _on_diagnostics(self, msg) -> None:
        for status in msg.status:
            if status.name.endswith('camera_node'):
                self.camera = {kv.key: kv.value for kv in status.values}

    def _on_image(self, msg) -> None:
        from banditlearn_ros.nodes.bridge import image_to_array
        frame = image_to_array(msg)
        thumb = thumbnail(frame)
        if thumb.mean() < 8.0:  # the black gap: the photo before stays the truth
            return
        index = int(np.argmin(((self.thumbs - thumb) ** 2).sum(axis=1)))
        if index != self.shown:
            self.shown = index
            self.shown_order.append(index)
            self._label_pub.publish(self._String(data=LABELS[self.classes[index]]))

    def truth_photo(self) -> Optional[int]:
        """
        Return the photo the latest gesture_features vector was taken from.

        Images reach this process late on a busy machine (measured: the photo on screen
        when a vector came was another one for 14 % of the vectors), so the photo is
        recognised from the vector itself: the nearest, by the offline extractor's
        features, of the photos within 3 of the one last seen on ``image_raw``.
        """
        if self.features is None or len(self.vectors) - 1 == self._used or \
                self.shown is None:
            return self.shown
        self._used = len(self.vectors) - 1
        x = np.asarray(self.vectors[-1][1])
        near = [i for i in range(max(0, self.shown - 3),
                                 min(len(self.features), self.shown + 4))
                if np.all(np.isfinite(self.features[i]))]
        if not near:
            return self.shown
        distances = [float(np.linalg.norm(self.features[i] - x)) for i in near]
        best = int(np.argmin(distances))
        self.matched.append(distances[best])
        return near[best]

    def _on_details(self, msg) -> None:
        details = json.loads(msg.data)
        ident, question, label = int(details['id']), int(details['question']), details['label']
        rec = self.records.get(ident)
        if rec is None:
            rec = self.records[ident] = {'photo': self.truth_photo(), 'asked': []}
        truth = None if rec['photo'] is None else LABELS[self.classes[rec['photo']]]
        rec['asked'].append(label)
        draw = np.random.default_rng([self.seed, ident, question]).random()
        answer = (label == truth) != (draw < self.noise)
        self._answer_pub.publish(self._Bool(data=bool(answer)))

    def table(self) -> List[Tuple[int, bool, int]]:
        """Return (photo, first guess right, questions) per interaction, by id."""
        rows = []
        for ident in sorted(self.records):
            rec = self.records[ident]
            if rec['photo'] is None:
                continue
            truth = LABELS[self.classes[rec['photo']]]
            rows.append((rec['photo'], rec['asked'][0] == truth, len(rec['asked'])))
        return rows


def run_session(photos: Sequence[Tuple[Path, int]], workdir: Path, noise: float,
                fps: float, hold: float, gap: float, extra: Sequence[str] = (),
                seed: int = 0, features: Optional[np.ndarray] = None) -> Dict[str, object]:
    """Make the video, run the bring-up on it with the answerer; return the figures."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    video = workdir / 'sign_digits.avi'
    thumbs = make_video(photos, video, fps=fps, hold=hold, gap=gap)
    classes = [c for _p, c in photos]
    length = 3.0 + len(photos) * (hold + gap)
    context = rclpy.Context()
    rclpy.init(context=context)
    answerer = Answerer(context, thumbs, classes, noise, seed, features)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(answerer.node)
    bringup = Path(sys.executable).with_name('banditlearn_bringup')
    command = [str(bringup), '--camera', str(video), '--labels', ','.join(LABELS),
               '--rounds', str(len(photos)), '--duration', f'{length + 90:.0f}',
               '--out', str(workdir / 'session'),
               '--set', f'learner_node.model_path={workdir / "model.npz"}'] + list(extra)
    print('$ ' + ' '.join(command), file=sys.stderr, flush=True)
    log = open(workdir / 'bringup.log', 'w')
    start = time.monotonic()
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT, env=os.environ.copy())
    last_seen, stopped = None, False
    try:
        while proc.poll() is None:
            executor.spin_once(timeout_sec=0.05)
            if last_seen is None and answerer.shown == len(photos) - 1:
                last_seen = time.monotonic()
            if last_seen is not None and time.monotonic() - last_seen > 10.0 and \
                    not stopped:
                # The last photo went by 10 s ago: end the session as Ctrl-C would.
                proc.send_signal(signal.SIGINT)
                stopped = True
            if time.monotonic() - start > length + 180:
                proc.terminate()
                proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
        executor.shutdown()
        answerer.node.destroy_node()
        rclpy.shutdown(context=context)
    rows = answerer.table()
    with open(workdir / 'records.json', 'w', encoding='utf-8') as handle:
        json.dump({'photos': [[str(p), c] for p, c in photos], 'vectors': answerer.vectors,
                   'interactions': {str(k): v for k, v in answerer.records.items()}}, handle)
    summary = (workdir / 'bringup.log').read_text().strip().splitlines()
    return {'rows': rows, 'shown': len(set(answerer.shown_order)), 'photos': len(photos),
            'seconds': time.monotonic() - start, 'command': command,
            'summary': summary[-1] if summary else '', 'returncode': proc.returncode,
            'camera': answerer.camera, 'matched': answerer.matched}
