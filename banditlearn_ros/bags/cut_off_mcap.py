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
A cut-off MCAP file read record by record, with the interface ``Bag`` uses of a rosbags reader.

A recorder killed with SIGKILL leaves an MCAP file without its summary section, which
rosbags refuses; ``scan_mcap`` reads what was written.  Rewriting such a file whole is
``salvage.reindex``'s job, a layer above ``Bag``.
"""

from pathlib import Path
from typing import Any, Dict, Iterator, List, Sequence

from .errors import BagError, short_error
from .mcap import scan_mcap


def _qos_list(text: str):
    if not text:
        return []
    try:
        from rosbags.rosbag2.metadata import parse_qos
        return parse_qos(text)
    except Exception:  # a foreign or damaged QoS text: the messages are still readable
        return []


class SalvagedMcap:
    """
    A cut-off MCAP file, read record by record, with the reader interface ``Bag`` uses.

    ``notes`` say how many messages were recovered and what was lost.
    """

    def __init__(self, path: Path):
        from rosbags.interfaces import (
            Connection, ConnectionExtRosbag2, MessageDefinition, MessageDefinitionFormat)
        self.path = Path(path)
        try:
            self.scan = scan_mcap(self.path)
        except (OSError, ValueError) as err:
            raise BagError(f'{self.path}: cannot open as mcap ({short_error(err)})') from None
        counts: Dict[int, int] = {}
        for cid, _, _ in self.scan.messages:
            counts[cid] = counts.get(cid, 0) + 1
        self.connections = []
        self._by_id = {}
        for cid, (topic, sid, encoding, meta) in sorted(self.scan.channels.items()):
            name, schema_encoding, text = self.scan.schemas.get(sid, ('', '', ''))
            fmt = {'ros2msg': MessageDefinitionFormat.MSG,
                   'ros2idl': MessageDefinitionFormat.IDL}.get(schema_encoding,
                                                               MessageDefinitionFormat.NONE)
            conn = Connection(cid, topic, name, MessageDefinition(fmt, text), '',
                              counts.get(cid, 0),
                              ConnectionExtRosbag2(encoding,
                                                   _qos_list(meta.get('offered_qos_profiles',
                                                                      ''))),
                              self)
            self.connections.append(conn)
            self._by_id[cid] = conn
        orphans = sum(n for cid, n in counts.items() if cid not in self._by_id)
        stamps = [stamp for _, stamp, _ in self.scan.messages]
        self.message_count = len(stamps) - orphans
        self.start_time = min(stamps) if stamps else 0
        self.end_time = max(stamps) + 1 if stamps else 0
        self.notes: List[str] = []
        if not self.scan.complete:
            lost = []
            if self.scan.chunks_lost:
                lost.append(f'{self.scan.chunks_lost} unfinished or damaged chunk(s), '
                            f'{self.scan.bytes_lost} bytes')
            elif self.scan.bytes_lost:
                lost.append(f'{self.scan.bytes_lost} bytes of an unfinished record')
            self.notes.append(
                f'{self.path.name} was cut off (no summary section): recovered '
                f'{self.message_count} messages from {self.scan.chunks} complete chunk(s); '
                f'lost: {", ".join(lost) or "nothing written"}; '
                + '; '.join(self.scan.problems))
        if orphans:
            self.notes.append(f'{orphans} message(s) name a channel the file does not define; '
                              'skipped')

    def messages(self, connections: Sequence[Any] = ()) -> Iterator:
        """Yield (connection, time, CDR) in time order."""
        wanted = {c.id for c in connections} if connections else set(self._by_id)
        items = [(stamp, index, cid, raw) for index, (cid, stamp, raw)
                 in enumerate(self.scan.messages) if cid in wanted and cid in self._by_id]
        items.sort()
        for stamp, _, cid, raw in items:
            yield self._by_id[cid], stamp, raw

    def close(self) -> None:
        """Nothing to close: the file was read at once."""


def open_mcap_or_salvage(path: Path, open_with_rosbags):
    """Return a rosbags reader for a whole file, else a ``SalvagedMcap`` for a cut-off one."""
    try:
        return open_with_rosbags(path)
    except BagError:
        if path.suffix != '.mcap':
            raise
    return SalvagedMcap(path)
