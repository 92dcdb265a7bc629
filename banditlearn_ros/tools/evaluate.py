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
banditlearn_evaluate: the papers' offline protocol on real data, beside Vowpal Wabbit.

For every data set x feedback-noise setting x algorithm: tune on a separate permutation
(or take fixed parameters), run one pass over each of N shared random permutations, and
write ``summary.json``, ``results.md`` and figures to the output folder.  See
``learning/offline/evaluation.py`` for the protocol, ``evaluation/run.py`` for how the
work is shared out and ``docs/benchmarks.md`` for results.
"""

import argparse
import os
import sys
from typing import Optional, Sequence

from banditlearn_ros.evaluation.options import UsageError
from banditlearn_ros.evaluation.report import terminal_table
from banditlearn_ros.evaluation.run import run
from banditlearn_ros.learning import ALGORITHMS
from banditlearn_ros.learning.algorithms.base import HyperparameterError
from banditlearn_ros.learning.algorithms.centring import CENTRING_MODES, DEFAULT_CENTRING
from banditlearn_ros.learning.offline.datasets import DatasetError
from banditlearn_ros.learning.offline.evaluation_tuning import VARIANTS
from banditlearn_ros.learning.protocol.ask_again import DEFAULT_REVEAL_STEP, REVEAL_STEPS
from banditlearn_ros.support.command_line import OneLineParser
from banditlearn_ros.support.shutdown import exit_status, sigterm_as_interrupt

EXAMPLES = """
examples:
  banditlearn_evaluate --datasets digits --label-noise 0 0.1 0.2 --out results/
  banditlearn_evaluate --datasets wine iris --algorithms ucwl vw --permutations 5 --out r/
  banditlearn_evaluate --datasets my_features.csv --algorithms ucwl --no-tune \\
      --params ucwl:eta=0.95,C=1,k=2.8 --out r/
  banditlearn_evaluate --datasets synsep:20000 --flip 0.15,0.15 0.2,0.4 --out r/

algorithm groups: core (every learning-core algorithm), bandit, full, vw (every Vowpal
Wabbit option), all (core + vw).  Vowpal Wabbit runs need the optional vowpalwabbit
package; without it those algorithms are skipped with a message.

data files (--datasets FILE):
  .csv  one example per row: the features, then the label in the last column (a name
        or a number); a first row that does not parse as numbers is a header
  .npz  arrays X (n x d features) and y (n labels), optionally labels (the names);
        banditlearn_render and banditlearn_bag export write this format
  Features are used as they are (not rescaled).

output (--out DIR):
  summary.json  meta (command, seed, machine, versions, partial) and one record per
                data set x noise x algorithm: mistake rates (observed, true), updates,
                seconds (mean, std over permutations), params, tuned, edge_of_grid,
                curve_observed
  results.md    the same as tables; the terminal shows a table when the run ends
  DATA_curves.png, DATA_updates.png, DATA_runtime.png  figures (150 dpi)
"""


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser (its --help is the tool's documentation)."""
    p = OneLineParser(
        prog='banditlearn_evaluate',
        description='Offline evaluation of bandit learners (the protocol of Ngo et al. '
                    '2013, section 5): one pass, online mistake rate against the '
                    'observed and the true label, updates and runtime over shared random '
                    'permutations, with tuning on a separate permutation; Vowpal Wabbit '
                    '--cbify baselines.',
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--datasets', nargs='+', default=['digits'], metavar='DATA',
                   help='digits, iris, wine (scikit-learn, scaled to [0, 1]), synsep '
                        '(Kakade et al. 2008; synsep:N[:SEED] for N examples, default '
                        '10000) or a .csv/.npz file (default: digits)')
    p.add_argument('--label-noise', nargs='+', type=float, default=None, metavar='P',
                   help='label-noise probabilities: the observed label is uniform random '
                        'with probability P (Ngo et al. 2013; Crammer and Gentile 2011); '
                        'default 0')
    p.add_argument('--flip', nargs='+', default=[], metavar='RHO0,RHO1',
                   help='flip-noise settings of Agarwal and Manwani (2021): rho0 = P(says '
                        'right | wrong), rho1 = P(says wrong | right), e.g. 0.15,0.15 0.2,0.4')
    p.add_argument('--no-answer', type=float, default=0.0, metavar='P',
                   help='probability that the person gives no answer in a round (no '
                        'update); applied to every noise setting (default 0)')
    p.add_argument('--algorithms', nargs='+', default=['all'], metavar='ALG',
                   help='algorithms or groups: ' + ', '.join(sorted(ALGORITHMS))
                        + ', ' + ', '.join(sorted(VARIANTS))
                        + ', vw-<option> (epsilon first bag cover squarecb regcb regcbopt '
                          'softmax synthcover), vw-oaa; groups core bandit full vw all '
                          '(default all)')
    p.add_argument('--params', action='append', default=[], metavar='ALG:K=V[,K=V]',
                   help='fixed parameters, e.g. ucwl:eta=0.95,C=1,k=2.8 (repeatable); '
                        'fixed values are not tuned')
    p.add_argument('--centring', default=DEFAULT_CENTRING, choices=CENTRING_MODES,
                   help='mean taken out of every vector before the core algorithms see it, '
                        'as the learner node does (learning/algorithms/centring.py); '
                        "none = the papers' "
                        'protocol; ucwl-paper is always none (with no_weight equal) and runs '
                        'beside ucwl '
                        f'(default {DEFAULT_CENTRING})')
    p.add_argument('--no-tune', action='store_true',
                   help="do not tune: use --params and the algorithms' defaults")
    p.add_argument('--wide-grids', action='store_true',
                   help="tune UCWL and Vowpal Wabbit over grids wider than the paper's")
    p.add_argument('--permutations', type=int, default=20, metavar='N',
                   help='number of reported random permutations (default 20)')
    p.add_argument('--tuning-permutations', type=int, default=1, metavar='N',
                   help='tune on N separate permutations (never reported) and pick the '
                        'setting with the lowest mean observed-label mistake rate; '
                        "default 1 = the paper's protocol")
    p.add_argument('--max-questions', nargs='+', type=int, default=[], metavar='N',
                   help='also run each algorithm that can ask again (ucwl, confidit and '
                        'their variants) with up to N questions per interaction, with the '
                        'parameters tuned for one question; reported as <alg>-qN (0 = every '
                        'label: -qK) with first-guess mistakes, questions and answers per '
                        'interaction, and a first-guess learning-curve figure')
    p.add_argument('--reveal-step', default=DEFAULT_REVEAL_STEP, choices=REVEAL_STEPS,
                   help='what a revealed label teaches the labels not asked, for '
                        f'--max-questions (default {DEFAULT_REVEAL_STEP})')
    p.add_argument('--seed', type=int, default=0,
                   help='seed of permutations, noise and learners: the same seed gives '
                        'the same numbers (default 0)')
    p.add_argument('--out', default='evaluation_results', metavar='DIR',
                   help='output folder for summary.json, results.md and figures '
                        '(default evaluation_results)')
    p.add_argument('--figures', default=None, metavar='DIR',
                   help='folder for the PNG figures (default: the --out folder)')
    p.add_argument('--jobs', type=int, default=1, metavar='N',
                   help='worker processes (default 1), also for a tuning grid; results do not '
                        'depend on it')
    p.add_argument('--full-grid', action='store_true',
                   help='run every UCWL tuning setting to the end (by default a setting stops '
                        'once it can no longer be chosen: the same tuned settings, faster)')
    p.add_argument('--no-figures', action='store_true', help='skip the matplotlib figures')
    p.add_argument('--params-out', default=None, metavar='DIR',
                   help='also write DIR/<data set>.params.yaml: the ucwl settings tuned for '
                        'each data set (its first noise setting), a parameter file for '
                        'learner_node (config/datasets holds those teach_sim loads)')
    p.add_argument('--replot', default=None, metavar='SUMMARY',
                   help='run nothing: redraw the figures (into --figures, else beside the '
                        'file) and rewrite results.md from an existing summary.json')
    p.add_argument('--no-progress', action='store_true', help='no progress bar')
    p.add_argument('--open-set', type=int, default=0, metavar='N',
                   help='open-set mode: per split (--permutations of them) N labels are '
                        'never taught; reports AUROC and rejection at 5 %% false rejection '
                        'per score, and sessions (UCWL, three questions) with rejection of '
                        'never-taught gestures on and off (default 0 = off)')
    p.add_argument('--interactions', type=int, default=500, metavar='N',
                   help='gestures per open-set session (default 500)')
    p.add_argument('--unknown-share', type=float, default=0.2, metavar='P',
                   help='share of never-taught gestures in an open-set session (default 0.2)')
    p.add_argument('--unknown', action='append', default=[], metavar='K=V',
                   help='open-set setting (learning/algorithms/open_set.py: target, rate, '
                        'window, warmup, '
                        'min_yes, score, variance_floor, recheck, first_share, shrinkage, '
                        'keep_confident, start, min_scores, recheck_score, trust, '
                        'doubt_no, early_recheck, denials), '
                        'e.g. --unknown target=0.03')
    p.add_argument('--fleet', type=int, default=0, metavar='R',
                   help='fleet mode: deal each permutation over R simulated robots (round t to '
                        'robot t mod R) and report the single learner on the whole stream, '
                        'each robot alone, and the robots merging their evidence '
                        '(learning/protocol/fleet_evidence.py; UCWL, one question; default 0 = '
                        'off)')
    p.add_argument('--fleet-every', type=int, default=5, metavar='N',
                   help='with --fleet, a robot shares its evidence after every N of its '
                        'interactions and the others merge it (default 5)')
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Console entry point; bad input exits 2 with one readable line."""
    sigterm_as_interrupt()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        summary = run(args)
    except (UsageError, DatasetError, HyperparameterError) as exc:
        print(f'banditlearn_evaluate: error: {exc}', file=sys.stderr)
        return 2
    except OSError as exc:
        print(f'banditlearn_evaluate: error: {exc}', file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        print('banditlearn_evaluate: interrupted', file=sys.stderr)
        return exit_status(exc)
    out = os.path.normpath(args.out)  # 'results/' is said 'results/summary.json'
    if 'text' in summary:  # --open-set, --fleet
        print(summary['text'])
        print(f'wrote {os.path.join(out, "summary.json")} and {os.path.join(out, "results.md")}')
        return 0
    print(terminal_table(summary['records']))
    if not args.replot:
        n = len(summary['records'])
        figures = os.path.normpath(args.figures or out)
        print(f"wrote {n} record{'' if n == 1 else 's'} to {os.path.join(out, 'summary.json')} "
              f"and {os.path.join(out, 'results.md')}"
              + ('' if args.no_figures else f', figures to {figures}{os.sep}'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
