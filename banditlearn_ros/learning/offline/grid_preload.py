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
Load the compiled grid steps when imported: the worker fork server imports this module.

Loading numba and the compiled steps from its disk cache took about 1.4 s of CPU in each
worker process (two per grid, a pool per grid).  Loaded once in the fork server
(``workers.PRELOAD``), every worker forked from it starts with them.  Nothing is loaded
with ``BANDITLEARN_COMPILED=0`` or without numba; a worker then finds the numpy code.
"""

from .ucwl_grid import grid_kernels
from .ucwl_grid_stream import round_kernels

grid_kernels()
round_kernels()
