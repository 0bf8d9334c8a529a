#!/usr/bin/env bash
# The package as a user gets it: install it into a fresh temporary virtualenv (pip install ".[langchain]"; pip's
# cache makes it quick), then, outside the repository, run `drag --help`, ingest the bundled sample and retrieve
# through DragRetriever. Called by scripts/run-tests.sh; needs the offline models that scripts/setup.sh builds.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"${PYTHON:-python3}" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q --disable-pip-version-check "$REPO[langchain]" >"$WORK/pip.log" 2>&1 ||
  { cat "$WORK/pip.log"; exit 1; }
rm -rf "$REPO/build"
cd "$WORK"  # the installed package, not the repository's folder
export HF_HUB_OFFLINE=1 DRAG_MODEL_DIR="$REPO/models" DRAG_STORE="$WORK/index"
unset QDRANT_URL DRAG_LLM_BASE_URL OPENAI_BASE_URL
"$WORK/venv/bin/drag" --help | grep -q "search"
"$WORK/venv/bin/drag" ingest --quiet "$REPO/samples/R-data.pdf"
"$WORK/venv/bin/python" - <<'PY'
import drag_core
from drag_core.integrations.langchain import DragRetriever

assert "site-packages" in drag_core.__file__, drag_core.__file__
retriever = DragRetriever(store="index", strategy="adaptive")
docs = retriever.invoke("How do I read a CSV file?")
assert docs and all(d.metadata["file_name"] == "R-data.pdf" and d.page_content for d in docs), docs
print(f"package check: drag --help, ingest and DragRetriever ({len(docs)} documents) work from a fresh install")
PY
