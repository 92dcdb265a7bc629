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
The argument parser every command of the package uses: its errors are one line.

A mistyped option gets the closest option named (``--rouds``: did you mean ``--rounds``?),
which argparse itself says only from Python 3.14 on.
"""

import argparse
import difflib
import re


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, with the option a typo meant."""

    def error(self, message):
        """Print one line (no usage block) and exit 2."""
        self.exit(2, f'{self.prog}: error: {message}{self.suggestion(message)} (see --help)\n')

    def suggestion(self, message: str) -> str:
        """
        Return '; did you mean --x?' for an unrecognised option close to a known one, else ''.

        >>> parser = OneLineParser(prog='demo')
        >>> _ = parser.add_argument('--rounds')
        >>> parser.suggestion('unrecognized arguments: --rouds 3')
        '; did you mean --rounds?'
        >>> parser.suggestion('unrecognized arguments: --colour')
        ''
        """
        match = re.search(r'unrecognized arguments: (.*)', message)
        if not match:
            return ''
        known = [option for action in self._actions for option in action.option_strings
                 if option.startswith('--')]
        meant = []
        for word in match.group(1).split():
            name = word.split('=', 1)[0]
            if name.startswith('--'):
                meant += difflib.get_close_matches(name, known, n=1, cutoff=0.75)
        return f'; did you mean {" ".join(meant)}?' if meant else ''
