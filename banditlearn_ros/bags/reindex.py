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
Recordings that were cut off: read what can be read, say what was lost, write a new index.

A recorder killed with SIGKILL leaves an MCAP file without its summary section (rosbags
refuses it) and no metadata.yaml; a copied folder may carry a corrupt metadata.yaml.
``Bag`` reads such a file as far as it goes (``salvaged_mcap``); ``reindex`` writes a
metadata.yaml from what the data files hold, as ``ros2 bag reindex`` does, and completes a
cut-off MCAP so that every rosbag2 reader opens it.
"""

import os
from pathlib import Path
from typing import Any, Dict, List

from .constants import DATA_SUFFIXES
from .errors import BagError
from .limits import MAX_METADATA_BYTES, read_bounded
from .mcap import McapFileWriter
from .metadata import BagMetadata, FileEntry, TopicEntry
from .reader import Bag
from .recorded_qos import qos_yaml_from_dicts

TRUNCATED_SUFFIX = '.truncated'


def reindex(folder, storage: str = '') -> Dict[str, Any]:
    """
    Write ``folder/metadata.yaml`` from the data files in the folder.

    A cut-off MCAP file is first rewritten whole from what could be read (the original
    is kept beside it as ``<name>.mcap.truncated``), so that every rosbag2 reader opens
    the result; a corrupt metadata.yaml is kept as ``metadata.yaml.bad``.

    Parameters
    ----------
    folder : str or os.PathLike
        A rosbag2 folder (its metadata.yaml may be missing or corrupt).
    storage : str
        Only read data files of this storage ('' = whatever is there).

    Returns
    -------
    dict
        ``path`` of the new metadata.yaml, ``messages``, ``files``, ``repaired`` (files
        rewritten), ``notes``.

    """
    folder = Path(folder)
    if not folder.is_dir():
        raise BagError(f'{folder}: not a folder (reindex works on a bag folder)')
    files = sorted(p for p in folder.iterdir() if p.suffix in DATA_SUFFIXES
                   and (not storage or DATA_SUFFIXES[p.suffix] == storage))
    if not files:
        raise BagError(f'{folder}: no .mcap or .db3 data file to index')
    storages = {DATA_SUFFIXES[p.suffix] for p in files}
    if len(storages) > 1:
        raise BagError(f'{folder}: holds both mcap and sqlite3 files; choose with --storage')
    repaired = []
    notes: List[str] = []
    for path in files:
        if path.suffix != '.mcap':
            continue
        with Bag(path) as bag:
            if not bag.salvaged:
                continue
            notes.extend(bag.notes)
            backup = path.with_name(path.name + TRUNCATED_SUFFIX)
            rewrite_mcap(bag, path.with_name('.' + path.name + '.tmp'))
        os.replace(path, backup)
        os.replace(path.with_name('.' + path.name + '.tmp'), path)
        repaired.append(path.name)
    meta = BagMetadata(storage=storages.pop())
    topics: Dict[str, TopicEntry] = {}
    for path in files:
        with Bag(path) as bag:
            stamps = []
            for item in bag.messages(decode=False):
                stamps.append(item.stamp_ns)
            meta.files.append(FileEntry(path.name, min(stamps, default=0),
                                        max(stamps, default=0), len(stamps)))
            for info in bag.topics.values():
                entry = topics.get(info.name)
                if entry is None:
                    entry = topics[info.name] = TopicEntry(
                        info.name, info.msgtype, qos_yaml_from_dicts(info.qos))
                entry.count += info.read
    meta.topics = list(topics.values())
    old = folder / 'metadata.yaml'
    if os.path.lexists(old):
        try:
            read_bounded(old, MAX_METADATA_BYTES, 'metadata file')  # a FIFO would block
            from rosbags.rosbag2 import Reader
            reader = Reader(folder)
            reader.open()
            reader.close()
        except Exception:  # any reason rosbag2 readers refuse it
            os.replace(old, folder / 'metadata.yaml.bad')
            notes.append('the old metadata.yaml could not be used; kept as metadata.yaml.bad')
    path = meta.write(folder)
    return {'path': str(path), 'messages': sum(f.count for f in meta.files),
            'files': [f.path for f in meta.files], 'repaired': repaired, 'notes': notes}


def rewrite_mcap(bag, target: Path) -> int:
    """Write every readable message of an open bag into a whole MCAP file; return the count."""
    writer = McapFileWriter(target)
    ids: Dict[str, int] = {}
    definitions = {}
    for conn in bag.connections():
        definitions.setdefault(conn.topic, conn)
    count = 0
    try:
        for item in bag.messages(decode=False):
            if item.topic not in ids:
                conn = definitions[item.topic]
                ids[item.topic] = len(ids) + 1
                encoding = 'ros2idl' if conn.msgdef.format.name == 'IDL' else 'ros2msg'
                writer.add_channel(ids[item.topic], item.topic, item.msgtype, conn.msgdef.data,
                                   encoding, qos_yaml_from_dicts(bag.topics[item.topic].qos))
            writer.write(ids[item.topic], item.stamp_ns, item.raw)
            count += 1
        writer.close()
    except BaseException:
        writer.abandon()
        if target.exists():
            target.unlink()
        raise
    return count
