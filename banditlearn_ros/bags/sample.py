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
``banditlearn_bag sample``: record a teaching session of rendered gestures, without ROS.

Each gesture is drawn by ``vision.hand_renderer``, its features computed from the full
image by ``vision.extractors.GestureExtractor`` as camera_node does (contour features,
skin-colour segmentation, no MediaPipe), a learner configured like learner_node asks, and
a simulated person (``SimulatedTeacher``) answers every question.  What goes into the bag
is what the topics of such a session carry, on a recorded-time line: the image (shrunk and
one per gesture), the true label, the features, each question (prediction and details)
and each answer.  The session is seeded, so the same command writes the same messages.
"""

import json
from typing import Any, Dict, Optional, Tuple

from banditlearn_ros import bags as bagio
from banditlearn_ros.bags.growing_bag import Recording
from banditlearn_ros.bags.rclpy_record import PACKAGE_TOPICS
from banditlearn_ros.bags.recorded_qos import qos_dict, recorded_qos
from banditlearn_ros.bags.recorded_session import CUSTOM_LEARNER, learner_config
from banditlearn_ros.learning import TeacherModel
from banditlearn_ros.learning.live import session_config
from banditlearn_ros.learning.protocol.simulated_teacher import SimulatedTeacher
import numpy as np

# 2026-01-01 00:00:00 UTC: a fixed start, so the bag does not depend on when it was made.
START_NS = 1_767_225_600 * 10 ** 9
PERIOD_NS = 2 * 10 ** 9
"""One gesture every two seconds, as a person shows them."""
# Offsets within a gesture's period: frame, label, features (after the camera's episode
# detection), question, answer (a person's reaction time), next question.
LABEL_AT, FEATURES_AT, QUESTION_DELAY, ANSWER_DELAY = 300, 400, 20, 700  # ms


def _typestore():
    return bagio.builtin_typestore()


def _serialize(msgtype: str, msg) -> bytes:
    return _typestore().serialize_cdr(msg, msgtype)


def _image(array: np.ndarray, stamp_ns: int):
    ts = _typestore()
    sec, nanosec = divmod(int(stamp_ns), 10 ** 9)
    stamp = ts.types['builtin_interfaces/msg/Time'](sec=sec, nanosec=nanosec)
    header = ts.types['std_msgs/msg/Header'](stamp=stamp, frame_id='camera')
    return ts.types['sensor_msgs/msg/Image'](
        header=header, height=array.shape[0], width=array.shape[1], encoding='bgr8',
        is_bigendian=0, step=array.shape[1] * 3, data=np.ascontiguousarray(array).reshape(-1))


def _features(row: np.ndarray):
    ts = _typestore()
    size = len(row)
    dim = ts.types['std_msgs/msg/MultiArrayDimension'](label='contour', size=size, stride=size)
    layout = ts.types['std_msgs/msg/MultiArrayLayout'](dim=[dim], data_offset=0)
    return ts.types['std_msgs/msg/Float32MultiArray'](layout=layout,
                                                      data=np.asarray(row, dtype=np.float32))


def _text(value: str):
    return _typestore().types['std_msgs/msg/String'](data=value)


def _bool(value: bool):
    return _typestore().types['std_msgs/msg/Bool'](data=bool(value))


def make_sample(output: str, gestures: int = 100, seed: int = 0, noise: float = 0.05,
                image_width: int = 80, kinds=('fist', 'one', 'two', 'three', 'four', 'five'),
                max_questions: int = 1, say=print) -> Dict[str, Any]:
    """
    Write a rendered teaching session as a bag; return its counts.

    Parameters
    ----------
    output : str
        The bag folder to create.
    gestures : int
        Gestures shown (those whose image gives no features are shown again).
    seed : int
        Seed of the renderer, the learner and the simulated person.
    noise : float
        The person's flip noise (rho0 = rho1).
    image_width : int
        Width of the recorded images (rendered at 640 x 480).
    kinds : sequence of str
        The gestures, in label order (the learner's labels).
    max_questions : int
        Questions per gesture (ask again after a "no"; 1 = the paper's protocol).
    say : callable
        Where the summary line goes.

    """
    import cv2

    from banditlearn_ros.vision.extractors import GestureExtractor
    from banditlearn_ros.vision.hand_renderer import HandRenderer
    from banditlearn_ros.vision.hand_segmentation import HandSegmenter

    if gestures < 1:
        raise bagio.BagError('a sample needs at least one gesture')
    learner = {'labels': list(kinds), 'seed': int(seed), 'model_path': '',
               'max_questions': int(max_questions)}
    config = learner_config(None, (), learner)
    # What learner_node publishes on learner_config when it starts (from scratch).
    log = session_config.ConfigLog(session_config.decision_parameters(config.parameters.get),
                                   None, START_NS / 1e9)
    interaction = config.interaction()
    teacher = SimulatedTeacher(TeacherModel(rho0=noise, rho1=noise), seed=seed,
                               labels=list(kinds))
    renderer = HandRenderer(640, 480, gestures=tuple(kinds), seed=seed)
    rng = np.random.default_rng(seed)
    extractor = GestureExtractor('contour', use_mediapipe=False,
                                 segmenter=HandSegmenter(adapt=False))
    recording = Recording(output, storage='mcap')
    qos = [qos_dict(recorded_qos())]
    sensor_qos = [qos_dict(recorded_qos(reliable=False))]
    for topic in ('/image_raw', '/gesture_label', '/gesture_features', '/gesture_prediction',
                  '/gesture_prediction_details', '/gesture_feedback'):
        recording.add_topic(topic, PACKAGE_TOPICS[topic],
                            sensor_qos if topic == '/image_raw' else qos)
    recording.custom_data[bagio.CUSTOM_LABELS] = json.dumps(list(kinds))
    recording.custom_data[bagio.CUSTOM_FEATURE_SET] = 'contour'
    recording.custom_data[CUSTOM_LEARNER] = json.dumps(log.start['parameters'], sort_keys=True)
    recording.add_topic('/learner_config', PACKAGE_TOPICS['/learner_config'],
                        [qos_dict(recorded_qos(transient_local=True))])
    recording.write('/learner_config', START_NS, _serialize('std_msgs/msg/String',
                                                            _text(log.text())))
    recording.custom_data['banditlearn_ros.sample'] = json.dumps(
        {'gestures': gestures, 'seed': seed, 'noise': noise, 'image_width': image_width,
         'max_questions': max_questions})
    shown = unseen = 0
    free = START_NS  # when the last question of the previous gesture was answered
    try:
        while shown < gestures:
            hand = renderer.render(rng=rng)
            # One gesture every PERIOD_NS, later when its questions took longer.
            t = max(START_NS + (shown + unseen) * PERIOD_NS, free + PERIOD_NS // 4)
            height = max(1, round(hand.image.shape[0] * image_width / hand.image.shape[1]))
            small = cv2.resize(hand.image, (image_width, height), interpolation=cv2.INTER_AREA)
            recording.write('/image_raw', t, _serialize(PACKAGE_TOPICS['/image_raw'],
                                                        _image(small, t)))
            obs = extractor.process(hand.image)
            if obs.features is None:
                unseen += 1  # the camera saw no hand: no episode, nothing to ask
                continue
            shown += 1
            ms = 10 ** 6
            recording.write('/gesture_label', t + LABEL_AT * ms,
                            _serialize('std_msgs/msg/String', _text(hand.gesture)))
            teacher.observe(hand.gesture)
            x = np.asarray(obs.features, dtype=np.float32)
            now = t + FEATURES_AT * ms
            recording.write('/gesture_features', now,
                            _serialize(PACKAGE_TOPICS['/gesture_features'], _features(x)))
            item, _ = interaction.predict(x.astype(np.float64), now=now / 1e9)
            while item is not None:
                now += QUESTION_DELAY * ms
                _write_question(recording, item, now,
                                (shown, interaction.counts['feedback_received']))
                said = teacher.answer(item.prediction.label, question=item.question,
                                      interaction=item.id)
                if said.answer is None:
                    break
                now += ANSWER_DELAY * ms
                free = now
                recording.write('/gesture_feedback', now,
                                _serialize('std_msgs/msg/Bool', _bool(said.answer)))
                item = interaction.feedback(said.answer, now=now / 1e9).next_round
    except BaseException:
        recording.close()
        raise
    finally:
        extractor.close()
    recording.close()
    counts = {t: e.count for t, e in recording.topics.items()}
    say(f'{output}: {shown} gestures ({unseen} frames without a hand), '
        f'{recording.message_count} messages: '
        + ', '.join(f'{t} {n}' for t, n in counts.items()))
    return {'path': output, 'gestures': shown, 'frames_without_hand': unseen,
            'counts': counts}


def _write_question(recording: Recording, item, stamp_ns: int,
                    inputs: Tuple[int, int]) -> None:
    p = item.prediction
    recording.write('/gesture_prediction', stamp_ns,
                    _serialize('std_msgs/msg/String', _text(p.label)))
    details = {'id': item.id, 'question': item.question, 'label': p.label,
               'index': int(p.index), 'scores': [round(float(v), 6) for v in p.scores],
               'bounds': [round(float(v), 6) for v in p.bounds], 'explored': bool(p.explored),
               'greedy': int(p.greedy), 'probability': round(float(p.probability), 6),
               'stamp': stamp_ns / 1e9,
               'inputs': {'features': inputs[0], 'feedback': inputs[1]}}
    recording.write('/gesture_prediction_details', stamp_ns,
                    _serialize('std_msgs/msg/String', _text(json.dumps(details))))


def replay_figures(path: str, teacher_noise: Optional[float] = None,
                   teacher_seed: int = 0) -> Dict[str, Any]:
    """
    Return a bag's deterministic replay: figures, curve and every question asked.

    With ``teacher_noise`` the simulated teacher answers (that flip noise, that seed);
    else the recorded answers do.  The learner is the one the bag stores.
    """
    from banditlearn_ros.bags.recorded_session import read_events
    from banditlearn_ros.learning.offline.replay import replay
    with bagio.open_bag(path) as bag:
        config = learner_config(bag)
        events, counts = read_events(bag)
    teacher = None
    if teacher_noise is not None:
        teacher = SimulatedTeacher(TeacherModel(rho0=teacher_noise, rho1=teacher_noise),
                                   seed=teacher_seed, labels=config.labels)
    result = replay(events, config, teacher=teacher, every=25)
    return {'counts': counts, 'figures': result.figures, 'curve': result.curve,
            'questions': result.questions}


def sample_figures(path: str, noise: float, seed: int,
                   command: str = '') -> Dict[str, Any]:
    """Return the figures stored beside a sample (recorded answers, and its teacher's)."""
    return {'command': command or f'banditlearn_bag sample -o {path}',
            'recorded': replay_figures(path),
            'teacher': dict(replay_figures(path, noise, seed), noise=noise, seed=seed)}
