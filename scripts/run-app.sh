#!/usr/bin/env bash
# Set up, index the bundled sample document (a no-op when already indexed), and open the app on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export HF_HUB_OFFLINE=1
.venv/bin/python -m drag_core ingest drag_core/app/sample/R-data.pdf
exec .venv/bin/streamlit run app.py "$@"
