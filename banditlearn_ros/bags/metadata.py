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

"""metadata.yaml as rosbag2 (version 8, Jazzy) writes it, for split recordings and reindex."""

from dataclasses import dataclass, field
import os
from pathlib import Path
from typing import Any, Dict, List

import yaml

from .constants import METADATA_VERSION


@dataclass
class FileEntry:
    """One data file of a bag: name, first and last message time (ns), message count."""

    path: str
    start_ns: int
    end_ns: int
    count: int


@dataclass
class TopicEntry:
    """One topic of a bag with its offered QoS (YAML text, as version 8 stores it)."""

    name: str
    msgtype: str
    qos_yaml: str
    count: int = 0
    type_hash: str = ''
    serialization_format: str = 'cdr'


@dataclass
class BagMetadata:
    """What metadata.yaml says about a bag."""

    storage: str
    files: List[FileEntry] = field(default_factory=list)
    topics: List[TopicEntry] = field(default_factory=list)
    custom_data: Dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> Dict[str, Any]:
        """Return the document ``ros2 bag info`` and rosbags read."""
        counted = [f for f in self.files if f.count]
        start = min((f.start_ns for f in counted), default=0)
        end = max((f.end_ns for f in counted), default=0)
        total = sum(f.count for f in self.files)
        return {'rosbag2_bagfile_information': {
            'version': METADATA_VERSION,
            'storage_identifier': self.storage,
            'duration': {'nanoseconds': max(0, end - start)},
            'starting_time': {'nanoseconds_since_epoch': start},
            'message_count': total,
            'topics_with_message_count': [
                {'topic_metadata': {'name': t.name, 'type': t.msgtype,
                                    'serialization_format': t.serialization_format,
                                    'offered_qos_profiles': t.qos_yaml,
                                    'type_description_hash': t.type_hash},
                 'message_count': t.count}
                for t in self.topics],
            'compression_format': '',
            'compression_mode': '',
            'relative_file_paths': [f.path for f in self.files],
            'files': [{'path': f.path,
                       'starting_time': {'nanoseconds_since_epoch': f.start_ns if f.count else 0},
                       'duration': {'nanoseconds': max(0, f.end_ns - f.start_ns)},
                       'message_count': f.count} for f in self.files],
            'custom_data': dict(self.custom_data) or None,
            'ros_distro': 'banditlearn_ros',
        }}

    def text(self) -> str:
        """Return the YAML text."""
        return yaml.safe_dump(self.as_dict(), default_flow_style=False, sort_keys=False)

    def write(self, folder: Path) -> Path:
        """Write ``folder/metadata.yaml`` atomically (a temporary file, then a rename)."""
        from banditlearn_ros.learning.storage.persistence import atomic_write_bytes
        path = Path(folder) / 'metadata.yaml'
        atomic_write_bytes(path, self.text().encode('utf-8'))
        os.chmod(path, 0o644)  # readable like the data files beside it
        return path
