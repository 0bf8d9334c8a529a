#!/usr/bin/env bash
# Set up (with test tools), lint, check the package in a fresh virtualenv, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --dev
export HF_HUB_OFFLINE=1
.venv/bin/ruff check .
.venv/bin/ruff format --check app.py pages drag_core tests bench
scripts/check-package.sh
.venv/bin/python -m pytest "$@"
