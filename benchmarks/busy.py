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

"""Busy loops beside a benchmark: the load the rest of a robot's work puts on its cores."""

import os
import subprocess
import sys
from typing import List, Optional, Sequence


def busy_loops(count: Optional[int] = None, prefix: Sequence[str] = ()) -> List[subprocess.Popen]:
    """
    Start ``count`` busy loops (default one per core); the caller ends them.

    ``prefix`` runs each under a command (``taskset -c 0`` pins them to a core).
    """
    return [subprocess.Popen(list(prefix) + [sys.executable, '-c', 'while True:\n    pass'],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(os.cpu_count() or 1 if count is None else count)]
