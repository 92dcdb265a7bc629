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
answers every question on ``keyboard_answer`` (the topic typed y/n lines go to) from the
truth, wrong with probability ``noise``: the draw is seeded by the interaction and question
numbers, so the same questions get the same answers.  The truth of interaction n is the
photo of the n-th ``gesture_features`` vector (``Answerer.photo_of``): watching
``image_raw`` instead put the wrong photo on 10-40 % of the interactions on a loaded
machine, where 640 x 480 images reach another process late.
"""

import json
import math
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
    from busy import busy_loops
except ImportError:
    from benchmarks.busy import busy_loops
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
    """The person at the keys, as a ROS node: the truth of each gesture, answers from it."""

    def __init__(self, context, features: np.ndarray, classes: Sequence[int], noise: float,
                 seed: int = 0):
        from banditlearn_ros.nodes import qos
        from diagnostic_msgs.msg import DiagnosticArray
        from rclpy.node import Node
        from std_msgs.msg import Bool, Float32MultiArray, String
        self._Bool = Bool
        self.node = Node('real_photo_answerer', context=context)
        self.features = np.nan_to_num(np.asarray(features, np.float64), nan=1e6)
        self.classes = list(classes)
        self.noise = noise
        self.seed = seed
        self.vectors: List[List[float]] = []
        """Every gesture_features message, in order: interaction n is the n-th."""
        self.matched: List[Tuple[float, float]] = []
        """Distance of each vector to its photo and to the next-nearest photo."""
        self.records: Dict[int, Dict[str, object]] = {}
        self._waiting: List[Tuple[int, int, str]] = []
        self._answer_pub = self.node.create_publisher(Bool, 'keyboard_answer', qos.EVENTS_OUT)
        self.foreign = 0
        """Feature vectors of another size heard (not this session's), kept out."""
        self.camera: Dict[str, str] = {}
        """The camera node's last /diagnostics values."""
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics,
                                      qos.DIAGNOSTICS)
        qos.subscribe_events(self.node, Float32MultiArray, 'gesture_features',
                             self._on_features)
        qos.subscribe_events(self.node, String, 'gesture_prediction_details', self._on_details)

    def _on_features(self, msg) -> None:
        # A vector of another size is not this session's (a stray process in the same ROS
        # domain): kept out, or every later interaction would take the wrong photo.
        if len(msg.data) == self.features.shape[1]:
            self.vectors.append(list(msg.data))
        else:
            self.foreign += 1

    def _on_diagnostics(self, msg) -> None:
        for status in msg.status:
            if status.name.endswith('camera_node'):
                self.camera = {kv.key: kv.value for kv in status.values}

    def photo_of(self, vector: Sequence[float]) -> int:
        """
        Return the photo a vector was taken from: the nearest by the offline features.

        The person knows which photo they held up; the answerer recognises it from what the
        camera node made of it (measured: a median 0.04 from its photo's offline features,
        0.24 from the next-nearest photo's; ``matched`` keeps both for every vector).
        """
        d = np.linalg.norm(self.features - np.asarray(vector), axis=1)
        first, second = np.partition(d, 1)[:2]
        self.matched.append((float(first), float(second)))
        return int(np.argmin(d))

    def _on_details(self, msg) -> None:
        details = json.loads(msg.data)
        self._waiting.append((int(details['id']), int(details['question']), details['label']))
        self.answer_ready()

    def answer_ready(self) -> None:
        """Answer the questions whose vector has come (the two topics are not ordered)."""
        while self._waiting and self._waiting[0][0] < len(self.vectors):
            ident, question, label = self._waiting.pop(0)
            rec = self.records.get(ident)
            if rec is None:
                rec = self.records[ident] = {'photo': self.photo_of(self.vectors[ident]),
                                             'asked': []}
            truth = LABELS[self.classes[rec['photo']]]
            rec['asked'].append(label)
            draw = np.random.default_rng([self.seed, ident, question]).random()
            answer = (label == truth) != (draw < self.noise)
            self._answer_pub.publish(self._Bool(data=bool(answer)))

    def table(self) -> List[Tuple[int, bool, int]]:
        """Return (photo, first guess right, questions) per interaction, by id."""
        rows = []
        for ident in sorted(self.records):
            rec = self.records[ident]
            truth = LABELS[self.classes[rec['photo']]]
            rows.append((rec['photo'], rec['asked'][0] == truth, len(rec['asked'])))
        return rows


def source_apart(video: Path, workdir: Path) -> Tuple[List[str], List[str]]:
    """
    Return the bring-up's system arguments and the command of an image source of its own.

    The camera system without its ``image_source_node`` (written to ``workdir``), and that
    node started as a process of its own reading ``video``: frames reach camera_node and
    feedback_node between processes, as from a robot's camera driver.  The source is a node
    script, so it takes the package's Fast DDS profile (docs/robot.md).
    """
    import yaml
    config = Path(__file__).resolve().parents[1] / 'config'
    system = yaml.safe_load((config / 'camera.system.yaml').read_text())
    system['nodes'] = [n for n in system['nodes'] if n['node'] != 'image_source_node']
    system['params_files'] = [str(config / f) for f in system['params_files']]
    system['description'] = 'the camera system fed by an image source in another process'
    path = workdir / 'camera_source_apart.system.yaml'
    path.write_text(yaml.safe_dump(system))
    source = [sys.executable, '-m', 'banditlearn_ros.nodes.image_source_node', '--ros-args',
              '-p', f'source:={video}']
    return ['--system', str(path)], source


def run_session(photos: Sequence[Tuple[Path, int]], workdir: Path, noise: float,
                fps: float, hold: float, gap: float, extra: Sequence[str] = (),
                seed: int = 0, features: Optional[np.ndarray] = None,
                source_process: bool = False, busy: bool = False,
                hold_until_taken: bool = False, max_hold: float = 20.0) -> Dict[str, object]:
    """
    Make the video, run the bring-up on it with the answerer; return the figures.

    ``source_process``: the video is read by an image source in a process of its own;
    ``busy``: one busy loop per core runs beside the session; ``hold_until_taken``: no
    video, a person holding each photo until camera_node took it (``photo_holder``, its own
    process; at most ``max_hold`` seconds a photo).
    """
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    video = workdir / 'sign_digits.avi'
    make_video(photos, video, fps=fps, hold=hold, gap=gap)
    classes = [c for _p, c in photos]
    length = 3.0 + len(photos) * (hold + gap)
    context = rclpy.Context()
    rclpy.init(context=context)
    answerer = Answerer(context, features, classes, noise, seed)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(answerer.node)
    bringup = Path(sys.executable).with_name('banditlearn_bringup')
    system, source = source_apart(video, workdir) if source_process or hold_until_taken \
        else (['--camera', str(video)], None)
    if hold_until_taken:
        listed = workdir / 'photos.json'
        listed.write_text(json.dumps([str(p) for p, _c in photos]))
        source = [sys.executable, str(Path(__file__).with_name('photo_holder.py')),
                  '--photos', str(listed), '--fps', f'{fps:g}', '--gap', f'{gap:g}',
                  '--max-hold', f'{max_hold:g}']
        # A photo held until taken: the session lasts as long as that takes (bounded).
        length = 3.0 + len(photos) * (max_hold / 4 + gap)
        extra = ['--set', 'camera_node.diagnostics_period=0.2'] + list(extra)
    command = [str(bringup), *system, '--labels', ','.join(LABELS),
               '--rounds', str(len(photos)), '--duration', f'{length + 60:.0f}',
               '--out', str(workdir / 'session'),
               '--set', f'learner_node.model_path={workdir / "model.npz"}'] + list(extra)
    print('$ ' + ' '.join(command), file=sys.stderr, flush=True)
    log = open(workdir / 'bringup.log', 'w')
    loops = busy_loops() if busy else []
    start = time.monotonic()
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT, env=os.environ.copy())
    reader = None
    if source is not None:
        print('$ ' + ' '.join(source), file=sys.stderr, flush=True)
        reader = subprocess.Popen(source, stdin=subprocess.DEVNULL,
                                  stdout=open(workdir / 'source.out', 'w'),
                                  stderr=log, env=os.environ.copy())
    try:
        held_all = None
        while proc.poll() is None:
            executor.spin_once(timeout_sec=0.05)
            answerer.answer_ready()
            if hold_until_taken and held_all is None and (workdir / 'source.out').exists() \
                    and (workdir / 'source.out').read_text().strip():
                held_all = time.monotonic()  # every photo shown: the last answers, then stop
            if held_all is not None and time.monotonic() - held_all > 15.0:
                proc.send_signal(signal.SIGINT)  # photos never taken left rounds undone
                held_all = math.inf
            if time.monotonic() - start > length + 180:
                proc.terminate()
                proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        for child in ([reader] if reader is not None else []) + loops:
            if child.poll() is None and child is reader:
                child.send_signal(signal.SIGINT)  # a node script: leaves cleanly
            elif child.poll() is None:
                child.kill()
            child.wait(timeout=30)
        log.close()
        executor.shutdown()
        answerer.node.destroy_node()
        rclpy.shutdown(context=context)
    rows = answerer.table()
    with open(workdir / 'records.json', 'w', encoding='utf-8') as handle:
        json.dump({'photos': [[str(p), c] for p, c in photos], 'vectors': answerer.vectors,
                   'matched': answerer.matched,
                   'interactions': {str(k): v for k, v in answerer.records.items()}}, handle)
    summary = (workdir / 'bringup.log').read_text().strip().splitlines()
    said = (workdir / 'source.out').read_text().strip().splitlines() \
        if (workdir / 'source.out').exists() else []
    return {'holder': json.loads(said[-1]) if said and said[-1].startswith('{') else None,
            'rows': rows, 'photos': len(photos),
            'seconds': time.monotonic() - start, 'command': command, 'source': source,
            'summary': summary[-1] if summary else '', 'returncode': proc.returncode,
            'camera': answerer.camera, 'matched': answerer.matched}
