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
Learning core: bandit and full-feedback online learners on numpy and scipy only.

Nothing here imports rclpy, OpenCV or MediaPipe, so every algorithm can be tested and
benchmarked without DDS.
"""

from .algorithms.banditron import Banditron
from .algorithms.base import (
    BanditLearner, FullFeedbackLearner, HyperparameterError, LearnerInputError,
    OnlineClassifier, Prediction)
from .algorithms.confidit import Confidit
from .algorithms.full_feedback import (
    MulticlassAROW, MulticlassCW, MulticlassPA, MulticlassPerceptron, MulticlassSCW)
from .algorithms.rcine import RCINE
from .algorithms.rcnbf import RCNBF
from .algorithms.registry import (
    ALGORITHMS, BANDIT_ALGORITHMS, FULL_FEEDBACK_ALGORITHMS, make_learner)
from .algorithms.ucwl import UCWL
from .protocol.teacher_model import TeacherModel
from .storage.persistence import load_model, ModelFileError, save_model

__all__ = [
    'ALGORITHMS', 'BANDIT_ALGORITHMS', 'FULL_FEEDBACK_ALGORITHMS', 'BanditLearner',
    'Banditron', 'Confidit', 'FullFeedbackLearner', 'HyperparameterError', 'LearnerInputError',
    'ModelFileError', 'MulticlassAROW', 'MulticlassCW', 'MulticlassPA', 'MulticlassPerceptron',
    'MulticlassSCW', 'OnlineClassifier', 'Prediction', 'RCINE', 'RCNBF', 'TeacherModel', 'UCWL',
    'load_model', 'make_learner', 'save_model',
]
