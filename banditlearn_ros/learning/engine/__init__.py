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
The speed of UCWL, apart from its algorithm: the same decisions, bit for bit, faster.

``algorithms/ucwl.py`` reads as Algorithm 1 of Ngo et al. 2013 in plain numpy.  Here:
``fast_ucwl`` (``FastUCWL`` and ``plug``, which the live learner and the offline runners
use), the numpy round's kept arrays (``round_buffers``), the compiled steps
(``ucwl_kernels``, numba) and how they are compiled once per process (``compilation``,
``jit``), and the memory numba's compiler gives back (``compiler_memory``).
"""

from .fast_ucwl import FastUCWL, plug, use_compiled

__all__ = ['FastUCWL', 'plug', 'use_compiled']
