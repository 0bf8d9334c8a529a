#!/usr/bin/env bash
# The package as a user gets it: install it into a fresh temporary virtualenv without the app extra
# (pip install ".[langchain]"; pip's cache makes it quick), check that neither Streamlit nor plotly came with
# it (nor mcp nor llama-index: their own extras bring them), then, outside the repository, run `drag --help`,
# ingest the bundled sample from the installed package, `drag search --json`, `drag mcp` (which names the extra
# it needs) and retrieve through DragRetriever. Called by scripts/run-tests.sh; needs the offline
# models that scripts/setup.sh builds.
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
PY="$WORK/venv/bin/python"
"$PY" -c 'import importlib.util as u, sys; sys.exit(any(u.find_spec(m) for m in ("streamlit", "plotly", "mcp", "llama_index")))' ||
  { echo "package check: streamlit, plotly, mcp or llama-index was installed without its extra"; exit 1; }
SAMPLE=$("$PY" -c 'from importlib import resources; print(resources.files("drag_core.app") / "sample" / "R-data.pdf")')
"$WORK/venv/bin/drag" --help | grep -q "search"
"$WORK/venv/bin/drag" ingest --quiet "$SAMPLE"
"$WORK/venv/bin/drag" search --json "How do I read a CSV file?" >"$WORK/search.json"
! "$WORK/venv/bin/drag" mcp </dev/null 2>"$WORK/mcp.err" && grep -q "needs the mcp extra" "$WORK/mcp.err" ||
  { echo "package check: drag mcp without the mcp extra did not say what to install"; cat "$WORK/mcp.err"; exit 1; }
"$PY" - "$WORK/search.json" <<'PY'
import json
import sys

import drag_core
from drag_core.integrations.langchain import DragRetriever

assert "site-packages" in drag_core.__file__, drag_core.__file__
found = json.load(open(sys.argv[1]))
assert found["strategy"] == "adaptive" and found["nodes"] and found["pages"] >= 1, found
retriever = DragRetriever(store="index", strategy="adaptive")
docs = retriever.invoke("How do I read a CSV file?")
assert docs and all(d.metadata["file_name"] == "R-data.pdf" and d.page_content for d in docs), docs
assert not any(m in sys.modules for m in ("streamlit", "plotly")), "the core imported the app's packages"
print(
    f"package check (no app extra): drag --help, ingest, search ({found['pages']} pages) and DragRetriever "
    f"({len(docs)} documents) work from a fresh install"
)
PY
