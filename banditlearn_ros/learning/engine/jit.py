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
numba's compiler, and how a compiled function is given the compiled functions it calls.

A function numba compiles may call only compiled code, and it finds its callees among its
module's globals.  Rather than rewrite those globals (the module's Python functions would
then call compiled code too, and a neighbour's module would be patched), ``bind`` makes a
copy of the function whose globals name the compiled callees, and numba compiles the copy.
The source stays the one readable definition, run as Python by the bit-for-bit tests.
"""

import types
from typing import Callable


def jit(function: Callable) -> Callable:
    """Compile ``function`` with numba, cached on disk where numba may write its cache."""
    import numba
    try:
        return numba.njit(cache=True, nogil=True)(function)
    except Exception:  # noqa: B902 (a cache location numba refuses: no disk cache)
        return numba.njit(nogil=True)(function)


def bind(function: Callable, **callees: Callable) -> Callable:
    """
    Return a copy of ``function`` that calls ``callees`` (compiled) by those global names.

    Parameters
    ----------
    function : callable
        A plain Python function written for numba.
    **callees : callable
        Global names it calls and the compiled functions to call instead.

    Returns
    -------
    callable
        The copy, for ``jit``; ``function`` and its module are left as they are.

    """
    unknown = sorted(set(callees) - set(function.__code__.co_names))
    if unknown:
        raise ValueError(f'{function.__name__} calls no {unknown}')
    scope = dict(function.__globals__)
    scope.update(callees)
    copy = types.FunctionType(function.__code__, scope, function.__name__,
                              function.__defaults__, function.__closure__)
    copy.__qualname__ = function.__qualname__
    copy.__doc__ = function.__doc__
    return copy
