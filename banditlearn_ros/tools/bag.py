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
The ``banditlearn_bag`` command: inspect, export, write and play rosbag2 recordings.

``info``, ``export`` and ``write`` need only ``rosbags``; ``play`` publishes with rclpy
(``bag_play``, the stand-in for ``ros2 bag play`` where rosbag2 is not installed) and
imports it only when called.  Bad input ends with one line on stderr and a non-zero exit status.
This module parses the command line; ``bag_commands`` does the work of each command.
"""

import argparse
import os
import sys
from typing import List, Optional

from banditlearn_ros import bags as bagio
from banditlearn_ros.support.shutdown import exit_status, sigterm_as_interrupt
from banditlearn_ros.tools.bag_commands import (
    cmd_export, cmd_info, cmd_play, cmd_record, cmd_reindex, cmd_replay, cmd_sample, cmd_write,
    PROG, SAMPLE_DEFAULTS, UsageError)


class _Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Show a default where it says something (not None, '', False, [] or said already)."""

    def _get_help_string(self, action):
        text = action.help or ''
        if action.default in (None, '', False, [], argparse.SUPPRESS) or 'default' in text:
            return text
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with its subcommands (defaults shown in --help)."""
    fmt = _Formatter
    parser = argparse.ArgumentParser(
        prog=PROG, formatter_class=fmt,
        description='Inspect, record, replay, repair, export, write and play rosbag2 '
        'recordings (MCAP and sqlite3) of banditlearn_ros topics.')
    sub = parser.add_subparsers(dest='command', required=True)
    bag_help = 'rosbag2 folder, or a .mcap / .db3 file'

    info = sub.add_parser('info', formatter_class=fmt,
                          help='topics, types, counts, storage, duration, problems')
    info.add_argument('path', help=bag_help)
    info.add_argument('--quick', action='store_true',
                      help='count messages without decoding them (says so in the report)')
    info.add_argument('--json', action='store_true', help='print JSON')
    info.set_defaults(func=cmd_info)

    rec = sub.add_parser('record', formatter_class=fmt,
                         help='subscribe and write a bag until Ctrl-C/SIGTERM (ros2 bag record)')
    rec.add_argument('topics', nargs='*', default=[],
                     help="topics to record (default: the package's topics, images included)")
    rec.add_argument('-o', '--output', default='',
                     help='bag folder to create (default: rosbag2_<date>-<time>)')
    rec.add_argument('-s', '--storage', choices=bagio.STORAGES, default='mcap',
                     help='storage of the data files')
    rec.add_argument('-b', '--max-bag-size', type=float, default=0, metavar='BYTES',
                     help='start a new file past this size (0 = never split)')
    rec.add_argument('-d', '--max-bag-duration', type=float, default=0, metavar='SECONDS',
                     help='start a new file after this long (0 = never split)')
    rec.add_argument('--duration', type=float, default=0, metavar='SECONDS',
                     help='stop after this long (0 = until Ctrl-C or SIGTERM)')
    rec.add_argument('--image-rate', type=float, default=2.0, metavar='HZ',
                     help='images kept per second per image topic (0 = all)')
    rec.add_argument('--image-width', type=float, default=160, metavar='PIXELS',
                     help='images shrunk to this width (0 = as sent)')
    rec.add_argument('--flush-every', type=float, default=1.0, metavar='SECONDS',
                     help='write out the open chunk this often (what a SIGKILL can lose)')
    rec.add_argument('--ready-file', default='', metavar='FILE',
                     help='write FILE once recording (scripts wait for it before starting the '
                     'session); removed when the recording ends')
    rec.set_defaults(func=cmd_record)

    rep = sub.add_parser('replay', formatter_class=fmt,
                         help='a recorded session through a fresh learner, deterministically')
    rep.add_argument('path', help=bag_help)
    rep.add_argument('--answers', choices=('recorded', 'teacher'), default='recorded',
                     help="the recorded yes/no, or a simulated teacher's from the true labels")
    rep.add_argument('--params', nargs='+', default=None, metavar='FILE',
                     help='parameter files for learner_node over what the bag stores (the '
                     "learner's recorded configuration; for older bags the package's "
                     'params.yaml)')
    rep.add_argument('--set', action='append', default=[], metavar='PARAM=VALUE',
                     help='override a learner_node parameter (repeatable)')
    rep.add_argument('--model', default='', metavar='FILE',
                     help='the model file the session started from, when the bag names it '
                     'but could not hold it (too large)')
    rep.add_argument('--noise', type=float, default=0.0, help='teacher: rho0 = rho1')
    rep.add_argument('--rho0', type=float, default=None, help='teacher: P(right | wrong)')
    rep.add_argument('--rho1', type=float, default=None, help='teacher: P(wrong | right)')
    rep.add_argument('--no-answer', type=float, default=0.0, help='teacher: P(silence)')
    rep.add_argument('--label-noise', type=float, default=0.0,
                     help='teacher: P(a random label in mind)')
    rep.add_argument('--teacher-seed', type=int, default=0, help="teacher's seed")
    rep.add_argument('--every', type=int, default=0, help='print the figures every N gestures')
    rep.add_argument('--rounds', type=int, default=0,
                     help="the session summary's figures over the first N interactions, as "
                     'banditlearn_bringup --rounds N reports them (0 = all)')
    rep.add_argument('-o', '--output', default='',
                     help='also write the figures and a curve (~100 points, or --every) as JSON')
    rep.set_defaults(func=cmd_replay)

    sam = sub.add_parser('sample', formatter_class=fmt,
                         help='record a rendered teaching session (the bundled sample)')
    sam.add_argument('-o', '--output', required=True, help='the bag folder to create')
    sam.add_argument('--gestures', type=int, default=SAMPLE_DEFAULTS['gestures'],
                     help='gestures shown')
    sam.add_argument('--seed', type=int, default=SAMPLE_DEFAULTS['seed'],
                     help='seed of the renderer, the learner and the simulated person')
    sam.add_argument('--noise', type=float, default=SAMPLE_DEFAULTS['noise'],
                     help="the simulated person's flip noise (rho0 = rho1)")
    sam.add_argument('--image-width', type=int, default=SAMPLE_DEFAULTS['image_width'],
                     help='width of the recorded images (rendered at 640 x 480)')
    sam.add_argument('--max-questions', type=int,
                     default=SAMPLE_DEFAULTS['max_questions'],
                     help='questions per gesture: ask again after a no (0 = every label)')
    sam.add_argument('--figures', default=SAMPLE_DEFAULTS['figures'],
                     help='where the replay figures go (default: <output>.figures.json)')
    sam.set_defaults(func=cmd_sample)

    rei = sub.add_parser('reindex', formatter_class=fmt,
                         help='write metadata.yaml from the data files (ros2 bag reindex)')
    rei.add_argument('path', help='the bag folder')
    rei.add_argument('-s', '--storage', choices=bagio.STORAGES, default=None,
                     help='only index files of this storage (default: what is there)')
    rei.set_defaults(func=cmd_reindex)

    export = sub.add_parser('export', formatter_class=fmt,
                            help='features + labels -> NPZ data set (X, y, labels)')
    export.add_argument('path', help=bag_help)
    export.add_argument('-o', '--output', required=True, help='the .npz file to write')
    export.add_argument('--features-topic', default='gesture_features',
                        help='Float32MultiArray topic')
    export.add_argument('--label-topic', default='gesture_label', help='String topic')
    export.add_argument('--feedback-topic', default=None,
                        help='also export the yes/no after each example (-1 = none)')
    export.set_defaults(func=cmd_export)

    write = sub.add_parser('write', formatter_class=fmt,
                           help='a features + labels bag from a data set')
    write.add_argument('dataset', help='digits, iris, wine, or a .csv / .npz file')
    write.add_argument('-o', '--output', required=True, help='the bag folder to create')
    write.add_argument('--storage', choices=bagio.STORAGES, default='mcap',
                       help='storage of the data file')
    write.add_argument('--rate', type=float, default=2.0, help='examples per second')
    write.add_argument('--limit', type=int, default=0,
                       help='N examples, a shuffled class-balanced sample (0 = all, in order)')
    write.add_argument('--seed', type=int, default=0, help='seed of the --limit sample')
    write.add_argument('--feature-set', default='',
                       help="layout label of the features (default: the data set's name)")
    write.add_argument('--features-topic', default='gesture_features',
                       help='Float32MultiArray topic')
    write.add_argument('--label-topic', default='gesture_label', help='String topic')
    write.set_defaults(func=cmd_write)

    player = sub.add_parser('play', formatter_class=fmt,
                            help='publish the messages over rclpy (ros2 bag play)')
    player.add_argument('path', help=bag_help)
    player.add_argument('-r', '--rate', type=float, default=1.0, help='speed factor')
    player.add_argument('--topics', nargs='+', default=None, help='only these topics')
    player.add_argument('-l', '--loop', action='store_true', help='repeat until Ctrl-C')
    player.add_argument('-d', '--delay', type=float, default=0.0,
                        help='seconds to wait before the first message')
    player.add_argument('--wait-for-subscribers', type=float, default=0.0, metavar='SECONDS',
                        help='wait up to SECONDS until every topic has a subscriber')
    player.add_argument('--remap', nargs='+', default=None, metavar='FROM:=TO',
                        help='publish a bag topic under another name')
    player.set_defaults(func=cmd_play)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command; return the exit status (one line on stderr when it fails)."""
    sigterm_as_interrupt()
    args = build_parser().parse_args(argv)
    try:
        code = args.func(args)
        sys.stdout.flush()
        return code
    except KeyboardInterrupt as exc:
        return exit_status(exc)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except (bagio.BagError, UsageError) as err:
        message = str(err)
    except ValueError as err:  # DatasetError and friends: bad user files
        message = str(err)
    except OSError as err:
        message = f'{getattr(err, "filename", "") or ""}: {err.strerror or err}'.lstrip(': ')
    except Exception as err:  # keep the promise of one readable line; debug on request
        if os.environ.get('BANDITLEARN_DEBUG'):
            raise
        message = (f'unexpected {type(err).__name__}: {err} '
                   '(set BANDITLEARN_DEBUG=1 for a traceback)')
    print(f'{PROG} {args.command}: error: {message}', file=sys.stderr)
    return 1


def _quiet_broken_pipe() -> int:
    """End quietly when the reader of stdout went away (``| head``), as CLI tools do."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141


if __name__ == '__main__':
    sys.exit(main())
