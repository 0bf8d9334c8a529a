"""Evaluate: run strategies over a data set with relevance labels — a table with 95 % intervals, recall
against pages returned, per-query results, and parameter sweeps. Everything is computed by
``drag_core.evaluation``; this page only asks and draws. The data set gets an index of its own (under
``DRAG_EVAL_DIR``), built once and reused while the data set and the vector policy stay the same."""

import json
from pathlib import Path

import streamlit as st

from drag_core import DragError, ui
from drag_core.app_state import escape_markdown
from drag_core.config import Settings
from drag_core.evaluation.datasets import find_datasets, load_dataset
from drag_core.evaluation.index import open_index
from drag_core.evaluation.plots import per_query_figure, recall_vs_pages, sweep_figure
from drag_core.evaluation.report import headline, query_rows, summary_rows
from drag_core.evaluation.runner import evaluate, parse_spec
from drag_core.evaluation.sweep import run_sweep
from drag_core.ingest import ProgressEvent
from drag_core.search import DEFAULT_STRATEGIES, STRATEGIES, SearchParams
from drag_core.vector_text import PARENT_DENSE_CHOICES, PARENT_SPARSE_CHOICES, VectorPolicy

SWEEPABLE = (
    "sensitivity",
    "beam_width",
    "rrf_k",
    "score_source",
    "max_keep",
    "top_k",
    "roots",
    "knee_method",
)
RESULT = "evaluation_result"

st.title("Evaluate strategies")
st.caption(
    "Page recall, nDCG and MRR against labelled pages (or passages), pages and tokens returned, the share of "
    "non-relevant candidates the knee cuts dropped, and latency — with bootstrap 95 % intervals. Every run is "
    "also judged at its own page budget: the plot draws flat hybrid top-k (k = 1…20) under the runs, and "
    "`gain_vs_flat` is a run's recall minus flat's at the run's mean pages (paired per query); `doc_hit` is the "
    "share of questions whose own document was returned."
)

DATA = Settings.from_env(ui.env()).eval_data
folders = find_datasets(DATA)
choice = st.selectbox(
    "Data set",
    [*map(str, folders), "another folder…"],
    format_func=lambda p: Path(p).name or p,
    key="eval_data",
)
folder = st.text_input("Data set folder", key="eval_folder") if choice == "another folder…" else choice
if not folder:
    st.info(f"No data set found in {escape_markdown(str(DATA))}; type a folder.")
    st.stop()
try:
    dataset = load_dataset(folder)
except (OSError, ValueError) as error:
    st.error(escape_markdown(str(error)))
    st.stop()

left, right = st.columns(2)
runs = left.multiselect("Strategies", list(STRATEGIES), default=list(DEFAULT_STRATEGIES), key="eval_runs")
extra = right.text_input(
    "More runs (space separated)", key="eval_extra", placeholder="flat:top_k=10 adaptive:sensitivity=2"
)
limit = left.number_input("Queries (first N)", 1, len(dataset.queries), min(len(dataset.queries), 50))
parent_dense = right.selectbox("Parent dense vector", PARENT_DENSE_CHOICES, index=1, key="eval_pd")
parent_sparse = right.selectbox("Parent sparse vector", PARENT_SPARSE_CHOICES, index=1, key="eval_ps")
with st.expander("Sweep one parameter instead"):
    sweep_param = st.selectbox("Parameter", ["(no sweep)", *SWEEPABLE], key="eval_sweep_param")
    sweep_values = st.text_input("Values (space separated)", "0.5 1 2 4", key="eval_sweep_values")

try:
    specs = [parse_spec(text, SearchParams()) for text in [*runs, *extra.split()]]
except ValueError as error:
    st.error(escape_markdown(str(error)))
    st.stop()

if st.button("Run", type="primary", disabled=not specs):
    subset = dataset.subset(int(limit))
    policy = VectorPolicy(parent_dense=parent_dense, parent_sparse=parent_sparse)
    with st.status(f"Evaluating on {dataset.name}…", expanded=True) as status:
        stage = st.empty()

        def ingest_progress(event: ProgressEvent) -> None:
            stage.write(
                escape_markdown(f"Indexing {event.file_name}: {event.stage} {event.done}/{event.total}")
            )

        bar = st.progress(0.0, text="Preparing the index")

        def query_progress(done: int, total: int, query_id: str) -> None:
            bar.progress(done / total, text=escape_markdown(f"Query {done}/{total} ({query_id})"))

        try:
            engine, index = open_index(subset, None, policy, ui.engine().embedder, progress=ingest_progress)
        except DragError as error:
            status.update(label="The evaluation index cannot be opened", state="error")
            st.error(escape_markdown(str(error)))
            st.stop()
        try:
            if sweep_param == "(no sweep)":
                st.session_state[RESULT] = (evaluate(engine, subset, specs, query_progress, index), None)
            else:
                found = run_sweep(
                    engine, subset, specs, sweep_param, sweep_values.split(), query_progress, index
                )
                st.session_state[RESULT] = (found.report, found)
        except ValueError as error:
            st.error(escape_markdown(str(error)))
        finally:
            engine.close()
        status.update(label=f"Evaluated {len(subset.queries)} queries", state="complete", expanded=False)

if RESULT not in st.session_state:
    st.stop()
report, sweep = st.session_state[RESULT]
st.subheader(escape_markdown(headline(report)))
for line in report.index.get("failed", []):
    st.warning(escape_markdown(line))
st.dataframe(summary_rows(report), hide_index=True)
st.plotly_chart(sweep_figure(sweep) if sweep else recall_vs_pages(report), key="eval_recall_pages")
st.subheader("Per query")
st.plotly_chart(per_query_figure(report), key="eval_per_query")
st.dataframe(query_rows(report), hide_index=True)
st.download_button(
    "report.json",
    json.dumps(report.to_json(), indent=2),
    file_name=f"{report.dataset}-evaluation.json",
    mime="application/json",
    on_click="ignore",
    icon=":material/download:",
)
