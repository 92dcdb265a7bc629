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

"""UCWL learns rendered gestures from yes/no alone (contour features, 10 % flipped answers)."""

from banditlearn_ros.learning import TeacherModel
from banditlearn_ros.learning.offline.evaluation import run_learner
from banditlearn_ros.learning.offline.evaluation_streams import make_streams
from banditlearn_ros.vision.synthetic_dataset import render_features, SIX_GESTURES
import numpy as np
import pytest

CHANCE = 5.0 / 6.0


@pytest.mark.slow
def test_ucwl_learns_rendered_gestures_online():
    data = render_features(600, 'contour', 'none', seed=21, width=320, height=240)
    assert len(data.X) >= 590 and sorted(set(data.y)) == list(range(6))
    teacher = TeacherModel(rho0=0.1, rho1=0.1)
    rates, late = [], []
    for stream in make_streams(data.y, len(SIX_GESTURES), teacher, 3, seed=4):
        result = run_learner('ucwl', {}, data.X, stream, teacher, 6, curves=True)
        rates.append(result.rate_true)
        curve = result.curve_true
        late.append((curve[-1] - curve[399]) / (len(curve) - 400))
    print(f'UCWL online mistake rate on 600 rendered gestures: {np.mean(rates):.3f} '
          f'(last 200 rounds {np.mean(late):.3f}; chance {CHANCE:.3f})')
    assert np.mean(rates) < 0.6
    # After 400 answers, it is right more than twice as often as guessing allows.
    assert np.mean(late) < 0.5 * CHANCE
    assert np.mean(late) < np.mean(rates) - 0.05  # and still learning


def test_a_shuffled_labelling_is_not_learned():
    """The same run with labels unrelated to the images stays near chance (the test can fail)."""
    data = render_features(200, 'contour', 'none', seed=22, width=320, height=240)
    y = np.random.default_rng(0).permutation(data.y)
    teacher = TeacherModel(rho0=0.1, rho1=0.1)
    rates = [run_learner('ucwl', {}, data.X, s, teacher, 6).rate_true
             for s in make_streams(y, 6, teacher, 2, seed=4)]
    assert np.mean(rates) > 0.7
