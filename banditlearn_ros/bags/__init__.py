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
Read and write rosbag2 recordings (MCAP and sqlite3) without a ROS installation.

Built on the ``rosbags`` library, so ``ros2 bag record/play`` on a robot and this package
exchange the same files.  One module per concern, as in rosbags' own rosbag2 package:
``errors``, ``constants``, ``recorded_qos``, ``decoder`` (the bag's definitions, then the
built-in ones), ``reader`` (``Bag``; ``cut_off_mcap`` reads a cut-off file for it), ``writer``
(``BagWriter``), ``export`` (features + labels to NPZ), ``reindex``.
Everything public is importable from here.  Nothing here imports rclpy.
"""

from .constants import (
    CUSTOM_FEATURE_SET, CUSTOM_LABELS, DATA_SUFFIXES, FEATURES_TYPE, FEEDBACK_TYPE, LABEL_TYPE,
    METADATA_VERSION, PathLike, STORAGES)
from .decoder import builtin_typestore
from .errors import BagError, short_error
from .export import export_dataset, ExportResult, save_npz
from .reader import Bag, BagMessage, open_bag, TopicInfo
from .recorded_qos import qos_dict, recorded_qos
from .writer import BagWriter, features_message, write_dataset_bag

__all__ = [
    'Bag', 'BagError', 'BagMessage', 'BagWriter', 'CUSTOM_FEATURE_SET', 'CUSTOM_LABELS',
    'DATA_SUFFIXES', 'ExportResult', 'FEATURES_TYPE', 'FEEDBACK_TYPE', 'LABEL_TYPE',
    'METADATA_VERSION', 'PathLike', 'STORAGES', 'TopicInfo', 'builtin_typestore',
    'export_dataset', 'features_message', 'open_bag', 'qos_dict', 'recorded_qos', 'save_npz',
    'short_error', 'write_dataset_bag',
]
