#!/usr/bin/env bash
# Set up a virtual environment with everything banditlearn_ros needs without a ROS installation:
# the ROS 2 Kilted wheels from PyPI, the pinned vision stack, the evaluation and test tools.
# Safe to run again; it only installs what is missing, and with nothing to do it says so in
# one line (remove $VENV/.setup-stamp to install again anyway).
#   PYTHON=3.12 (a version) or PYTHON=/path/to/python picks the interpreter (default: the
#   first working one of 3.12, 3.11, 3.10); VENV=.venv-3.12 picks the folder (default .venv).
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${VENV:-.venv}"

# A pyenv shim (python3.12) can exist on PATH and still fail to run, so every candidate is
# tried, not only looked up.
works() {
  "$1" -c 'import sys; sys.exit(not (3, 10) <= sys.version_info[:2] <= (3, 12))' \
    >/dev/null 2>&1
}

find_python() {  # find_python 3.12 -> path of a working interpreter of that version
  local version="$1" candidate
  for candidate in "python$version" "/usr/bin/python$version" "/usr/local/bin/python$version" \
      "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version"*/bin/"python$version"; do
    if works "$candidate" && [ "$("$candidate" -c \
        'import sys; print("%d.%d" % sys.version_info[:2])')" = "$version" ]; then
      command -v "$candidate"; return 0
    fi
  done
  return 1
}

py="${PYTHON:-}"
case "$py" in
  3.1[0-2]) py="$(find_python "$py")" || {
    echo "setup: no working Python $PYTHON found" >&2; exit 1; } ;;
  '') for version in 3.12 3.11 3.10; do
        py="$(find_python "$version")" && break
      done
      if [ -z "$py" ] && works python3; then py="$(command -v python3)"; fi ;;
  *) works "$py" || { echo "setup: $py is not a working Python 3.10-3.12" >&2; exit 1; } ;;
esac
if [ -z "$py" ]; then
  echo "setup: need Python 3.10, 3.11 or 3.12 (mediapipe 0.10.21 has no wheel for newer)" >&2
  exit 1
fi

# System libraries: OpenCV's wheel needs libGL and GLib; venv needs ensurepip.
missing=()
ldconfig -p 2>/dev/null | grep -q 'libGL.so.1' || missing+=(libgl1)
ldconfig -p 2>/dev/null | grep -q 'libglib-2.0.so.0' || missing+=(libglib2.0-0)
"$py" -c 'import ensurepip' 2>/dev/null || missing+=("$(basename "$py")-venv")
# iproute2 (`ip`): the two-host test makes network namespaces with it.
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
# chromium: the teaching page's test drives the page in it (playwright with the system
# browser: `playwright install` needs a download these machines cannot make).
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# hri_msgs (ROS4HRI, REP-155): a ROS distribution's (on PYTHONPATH), or generated into the
# venv once (scripts/hri_msgs.sh; its stamp holds the hash of the message sources). To
# generate it: cmake, compilers and Python's headers.
hri_stamp="$venv/.hri-msgs-stamp"
hri_want="$(cat scripts/hri_msgs/CMakeLists.txt scripts/hri_msgs/msg/*.msg | sha256sum \
  | cut -d' ' -f1)"
have_hri=false
if [ "$(cat "$hri_stamp" 2>/dev/null)" = "$hri_want" ] \
    || "$py" -c 'import hri_msgs' >/dev/null 2>&1; then
  have_hri=true
fi
if ! $have_hri; then
  for tool in cmake make gcc g++; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  "$py" -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    || missing+=("$(basename "$py")-dev")
fi
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "setup: installing system packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

# Nothing to do when the venv was made by this interpreter from this setup.py: the stamp holds
# both, so an edited setup.py or another Python installs again.
stamp="$venv/.setup-stamp"
want="$( { sha256sum setup.py | cut -d' ' -f1; "$py" -c 'import sys; print(sys.version)'; } \
  | tr '\n' ' ')"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  # A venv made before hri_msgs was generated gets it now (once).
  $have_hri || bash scripts/hri_msgs.sh "$venv" "$hri_want" || true
  echo "setup: $venv up to date ($("$venv/bin/python" --version)); nothing to do"
  exit 0
fi

[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
# The build backend's notes on editable installs (setuptools' UserWarnings) are for package
# authors; a user sees only pip's own messages.
pip=(env PYTHONWARNINGS=ignore::UserWarning "$venv/bin/python" -m pip install -q
     --disable-pip-version-check)
"${pip[@]}" --upgrade pip
# One editable build for everything. Vowpal Wabbit (in `all`) is only for the side-by-side
# comparison: a platform without its wheel installs the rest and still works.
if ! "${pip[@]}" -e '.[all]'; then
  echo "setup: installing again without vowpalwabbit; the evaluation tool will skip it"
  "${pip[@]}" -e '.[ros,vision,bags,eval,fast,page,test]'
fi
# numba compiles the UCWL steps into its cache now (a few seconds), so that the first node or
# test that uses them loads them instead of compiling them, each process again.
"$venv/bin/python" -c 'from banditlearn_ros.learning.offline import ucwl_grid, ucwl_grid_stream
ucwl_grid.grid_kernels(); ucwl_grid_stream.round_kernels()' \
  || echo "setup: the compiled UCWL steps did not build; the numpy code will be used"
# REP-155's hri_msgs for the ROS4HRI bridge, unless a ROS distribution provides it; without
# it the package works as before (the bridge is off).
$have_hri || bash scripts/hri_msgs.sh "$venv" "$hri_want" || true
echo "$want" > "$stamp"
echo "setup: $venv ready ($("$venv/bin/python" --version))"
