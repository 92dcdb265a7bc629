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
banditlearn_render: write a features data set of rendered hand gestures (NPZ).

The file holds ``X`` (n x d), ``y`` (label indices), ``labels`` (names) and
``feature_names``; ``banditlearn_evaluate`` and the dataset node read it with
``learning.offline.datasets.load_file``.
"""

import argparse
import io
import sys

import numpy as np

from ..learning.storage.persistence import atomic_write_bytes
from ..support.command_line import OneLineParser
from ..vision.hand_renderer import GESTURES


def build_parser() -> argparse.ArgumentParser:
    """Return the command-line parser."""
    parser = OneLineParser(
        prog='banditlearn_render',
        description='Render hand gestures and write their features as an NPZ data set.')
    parser.add_argument('--out', required=True, help='output file (.npz)')
    parser.add_argument('--n', type=int, default=1000, help='images to render (default 1000)')
    parser.add_argument('--features', default='contour',
                        choices=('contour', 'landmarks', 'combined'), help='feature set')
    parser.add_argument('--landmarks', default='truth',
                        choices=('truth', 'mediapipe', 'none'),
                        help="landmark source: the renderer's skeleton with jitter (truth), "
                        'MediaPipe on the image, or none (contour only)')
    parser.add_argument('--gestures', default=','.join(GESTURES),
                        help='comma-separated classes (default: all, as the rendered session '
                        f'shows them): {",".join(GESTURES)}')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--jitter', type=float, default=0.03,
                        help='landmark noise for --landmarks truth, in palm widths')
    parser.add_argument('--width', type=int, default=640)
    parser.add_argument('--height', type=int, default=480)
    parser.add_argument('--no-progress', action='store_true', help='no progress bar')
    return parser


def progress_bar(total: int, disabled: bool):
    """Return ``(update(done), close())`` of a progress bar on stderr (tqdm), or no-ops."""
    try:
        from tqdm import tqdm
    except ImportError:
        disabled = True
    if disabled:
        return (lambda done: None), (lambda: None)
    # delay: a run of a second or two stays quiet; longer ones show images done and an ETA.
    bar = tqdm(total=total, unit='image', desc='render', delay=2.0, file=sys.stderr)
    return (lambda done: bar.update(done - bar.n)), bar.close


def main(argv=None) -> int:
    """Run the tool; bad input ends it with one readable line and exit status 2."""
    args = build_parser().parse_args(argv)
    gestures = [g.strip() for g in args.gestures.split(',') if g.strip()]
    problem = ''
    if not args.out.endswith('.npz'):
        problem = f'--out {args.out}: use a .npz file name'
    elif args.n < 1:
        problem = '--n must be >= 1'
    elif len(gestures) < 2 or any(g not in GESTURES for g in gestures):
        problem = f'--gestures: give two or more of {", ".join(GESTURES)}'
    elif args.jitter < 0:
        problem = '--jitter must be >= 0'
    if problem:
        print(f'banditlearn_render: {problem}', file=sys.stderr)
        return 2
    from ..vision.synthetic_dataset import render_features
    update, close = progress_bar(args.n, args.no_progress or not sys.stderr.isatty())
    try:
        data = render_features(args.n, args.features, args.landmarks, gestures, args.seed,
                               args.jitter, args.width, args.height, progress=update)
    except (ValueError, RuntimeError) as exc:
        close()
        print(f'banditlearn_render: {exc}', file=sys.stderr)
        return 2
    close()
    if len(data.X) == 0:
        print('banditlearn_render: no image gave features (nothing written)', file=sys.stderr)
        return 1
    buffer = io.BytesIO()
    np.savez(buffer, X=data.X, y=data.y, labels=np.array(data.labels),
             feature_names=np.array(data.feature_names), finger_count=data.finger_count)
    try:
        atomic_write_bytes(args.out, buffer.getvalue())
    except OSError as exc:
        print(f'banditlearn_render: cannot write {args.out}: {exc}', file=sys.stderr)
        return 1
    skipped = sum(data.skipped.values())
    print(f'wrote {args.out}: {len(data.X)} rows x {data.X.shape[1]} {args.features} features, '
          f'{len(data.labels)} labels; {skipped} of {data.rendered} images gave no features'
          + (f' ({", ".join(f"{g} {c}" for g, c in data.skipped.items() if c)})'
             if skipped else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
