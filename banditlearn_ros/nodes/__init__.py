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

"""ROS 2 nodes: thin wrappers that convert messages for the learning and vision layers."""

import os

# One BLAS thread, set before numpy loads (a node's script imports this package first): the
# learner's products are small (K x d, d ~ 100-800), and at K >= 300 OpenBLAS split each over
# both cores, so a round ranged 49-472 us under load instead of staying steady.  A value the
# user set is kept.  A process that imported numpy before (a test) keeps its BLAS threads.
for _name in ('OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ.setdefault(_name, '1')
