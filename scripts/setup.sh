#!/usr/bin/env bash
# Set up .venv with everything banditlearn_ros needs without a ROS installation:
# the ROS 2 Kilted wheels from PyPI, the pinned vision stack, the evaluation and test tools.
# Safe to run again; it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

py="${PYTHON:-}"
if [ -z "$py" ]; then
  for candidate in python3.12 python3.11 python3.10 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c \
        'import sys; sys.exit(not (3, 10) <= sys.version_info[:2] <= (3, 12))'; then
      py="$candidate"; break
    fi
  done
fi
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
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "setup: installing system packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

[ -x .venv/bin/python ] || "$py" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[all]'
# Vowpal Wabbit is only for the side-by-side comparison; a platform without its wheel still works.
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[vowpal]' \
  || echo "setup: vowpalwabbit could not be installed; the evaluation tool will skip it"
echo "setup: ready ($(.venv/bin/python --version))"
