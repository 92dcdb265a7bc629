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

"""Names shared by the reader, the writer and the exporter: storages, types, custom data."""

import os
from typing import Union

PathLike = Union[str, os.PathLike]

DATA_SUFFIXES = {'.mcap': 'mcap', '.db3': 'sqlite3'}
STORAGES = ('mcap', 'sqlite3')

FEATURES_TYPE = 'std_msgs/msg/Float32MultiArray'
LABEL_TYPE = 'std_msgs/msg/String'
FEEDBACK_TYPE = 'std_msgs/msg/Bool'

# Keys this package stores in metadata.yaml custom_data (ignored by ros2 bag).
CUSTOM_LABELS = 'banditlearn_ros.labels'
CUSTOM_FEATURE_SET = 'banditlearn_ros.feature_set'
CUSTOM_LOST = 'banditlearn_ros.lost'
"""Messages per topic (JSON) that a publisher gave up on before the recorder had them."""

# Metadata version 8 is what rosbag2 on Jazzy writes; Jazzy and Kilted both read it.
METADATA_VERSION = 8
