"""Evaluate: run strategies over a data set with relevance labels — a table with 95 % intervals, recall
against pages returned, per-query results, and parameter sweeps. Everything is computed by
``drag_core.evaluation``; this page only asks and draws. The data set gets an index of its own (under
``DRAG_EVAL_DIR``), built once and reused while the data set and the vector policy stay the same."""

import json
from pathlib import Path

import streamlit as st

from drag_core import DEFAULT_STRATEGIES, STRATEGIES
from drag_core.app import figures, ui
from drag_core.app.display import clock, counted, escape_markdown
from drag_core.app.evaluation import (
    HEADLINE_COLUMNS,
    LABELS_NAME,
    PARENT_DENSE_CHOICES,
    PARENT_SPARSE_CHOICES,
    SWEEPABLE,
    EvalJob,
    IndexEvalJob,
    JobStage,
    Plan,
    VectorPolicy,
    find_datasets,
    headline,
    headline_rows,
    index_version,
    indexing_lines,
    labels_dataset,
    load_dataset,
    plan,
    plan_warning,
    query_rows,
    run_specs,
    start_labels_evaluation,
    summary_rows,
    sweep_values,
    sweep_verdicts,
    verdicts,
)
from drag_core.app.evidence import label_counts, labels_of
from drag_core.app.glossary import METRICS, TERMS

ui.page("pages/evaluate.py")
settings = ui.settings()

RESULT = "evaluation_result"
QUESTIONS = "evaluation_questions"  # the run's questions by query id, to name the per-query rows
JOB = "evaluation_job"
FAILURE = "evaluation_failure"


@st.cache_data(show_spinner="Counting the pages to index…", max_entries=16)
def estimate(
    root: str, fingerprint: str, policy: VectorPolicy, built: tuple[float, int], settings_key: str
) -> Plan:
    """What a run on this data set costs (cached per data set version, vector policy, settings and how far
    its index is built)."""
    return plan(load_dataset(root), policy, settings)


st.title("Evaluate strategies")
st.caption(
    "Page recall, nDCG and MRR against labelled pages (or passages), pages and tokens returned, the share of "
    "non-relevant candidates the knee cuts dropped, and latency — with bootstrap 95 % intervals. Every run is "
    "also judged at its own page budget: the plot draws flat hybrid top-k (k = 1…20) under the runs. "
    f"`gain_vs_flat` — {METRICS['gain_vs_flat']} `doc_hit` — {METRICS['doc_hit']} Knee runs also say which "
    "rule set their final cuts (`knee_decides`), how many answer sizes the Sensitivity slider's values give "
    "(`slider_sizes`), Spearman's ρ between pages returned and relevant pages, and the share of an oracle's gap "
    "over flat they capture (`oracle_share`); a sentence under the table says whether each beats flat. Each "
    "column's header says what it counts."
)

DATA = settings.eval_data
folders = find_datasets(DATA)
labels = labels_of(settings)
own = labels is not None and bool(labels.all())
choice = st.selectbox(
    "Data set",
    [*([LABELS_NAME] if own else []), *map(str, folders), "another folder…"],
    format_func=lambda p: p if p == LABELS_NAME else Path(p).name or p,
    key="eval_data",
    help="'my labels': the pages you marked relevant on Compare, judged on this app's own index.",
)
on_labels = choice == LABELS_NAME
if on_labels:
    engine = ui.engine()
    dataset, _ = labels_dataset(engine, labels)
    counts = label_counts(labels, ui.documents(engine))
    st.caption(
        f"Your labels ({escape_markdown(str(labels.folder))}): {counted(counts.ready, 'question')} with a page "
        f"marked relevant, on this app's own index — nothing is indexed, only the questions are asked. "
        f"{counted(counts.stale, 'stale label')} (documents removed or changed since) left out."
    )
    if not dataset.queries:
        st.info("No question has a page marked relevant that is still indexed: mark some on Compare.")
        st.stop()
else:
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
runs = left.multiselect(
    "Strategies", list(STRATEGIES), default=list(DEFAULT_STRATEGIES), key="eval_runs", wrap=True
)  # wrapped: in a column the chips would scroll sideways in one row, the last ones cut off
extra = right.text_input(
    "More runs (space separated)", key="eval_extra", placeholder="flat:top_k=10 adaptive:sensitivity=2"
)
limit = left.number_input("Queries (first N)", 1, len(dataset.queries), min(len(dataset.queries), 50))
if not on_labels:  # the labels are judged on the index as it is built
    parent_dense = right.selectbox(
        "Parent dense vector",
        PARENT_DENSE_CHOICES,
        index=PARENT_DENSE_CHOICES.index(VectorPolicy.parent_dense),
        key="eval_pd",
        help=TERMS["parent_dense"],
    )
    parent_sparse = right.selectbox(
        "Parent sparse vector",
        PARENT_SPARSE_CHOICES,
        index=PARENT_SPARSE_CHOICES.index(VectorPolicy.parent_sparse),
        key="eval_ps",
        help=TERMS["parent_sparse"],
    )
    with st.expander("Sweep one parameter instead"):
        sweep_param = st.selectbox("Parameter", ["(no sweep)", *SWEEPABLE], key="eval_sweep_param")
        values_text = st.text_input(
            "Values (space separated)",
            sweep_values(sweep_param, settings),
            key=f"eval_sweep_values_{sweep_param}",
            help="A sweep draws each strategy's line through its values over flat's top-k curve.",
        )

try:
    specs = run_specs([*runs, *extra.split()], settings)
except ValueError as error:
    st.error(escape_markdown(str(error)))
    st.stop()

if not on_labels:
    policy = VectorPolicy(parent_dense=parent_dense, parent_sparse=parent_sparse)
    built = index_version(dataset, policy, settings)
    cost = estimate(str(dataset.root), dataset.fingerprint(), policy, built, repr(settings))
    if cost.ready:
        st.caption("The index of this data set is built for these settings: the run only asks the queries.")
    elif cost.pages:
        st.warning(escape_markdown(plan_warning(cost, dataset.kind)), icon=":material/schedule:")

job: EvalJob | IndexEvalJob | None = st.session_state.get(JOB)
if st.button("Run", type="primary", disabled=not specs or (job is not None and job.running), key="eval_run"):
    runs_asked = [*runs, *extra.split()]
    if on_labels:
        job = start_labels_evaluation(engine, labels, runs_asked, int(limit), settings)
    else:
        sweep = None if sweep_param == "(no sweep)" else (sweep_param, values_text.split())
        job = EvalJob.start(dataset.root, int(limit), runs_asked, policy, sweep, ui.env())
    st.session_state[JOB] = job
    st.session_state[QUESTIONS] = {q.id: q.text for q in dataset.queries}
    st.session_state.pop(RESULT, None)
    st.session_state.pop(FAILURE, None)


@st.fragment(run_every=1.0 if job is not None and job.running else None)
def progress_panel() -> None:
    """The running evaluation, redrawn every second: the whole indexing's bar with the time left, the current
    file's, then the queries'; Cancel."""
    running: EvalJob | IndexEvalJob | None = st.session_state.get(JOB)
    if running is None:
        if st.session_state.get("eval_cancelled"):
            st.rerun()  # the whole page: the note below, and no more polling
        return
    status = running.status()
    if status.stage in (JobStage.DONE, JobStage.FAILED):
        if status.stage == JobStage.DONE:
            st.session_state[RESULT] = running.result()
        else:
            st.session_state[FAILURE] = status.error
        running.close()  # its temporary folder goes
        del st.session_state[JOB]
        st.rerun()
    left = (
        "estimating the time left…"
        if status.seconds_left is None
        else f"about {clock(status.seconds_left)} left"
    )
    with st.container(border=True):
        if status.stage == JobStage.INDEXING:
            overall, current = indexing_lines(status, left)
            st.progress(status.fraction, text=escape_markdown(overall))
            st.progress(status.file_fraction, text=escape_markdown(current))
        elif status.stage == JobStage.QUERYING:
            st.progress(
                status.queries_done / max(1, status.queries),
                text=f"Asking the queries: {status.queries_done} of {status.queries} · {left}",
            )
        else:
            st.progress(0.0, text="Starting (loading the models)…")
        st.caption(f"{clock(running.elapsed())} elapsed · running in the background at a lower priority")
        st.button("Cancel", key="eval_cancel", on_click=cancel, args=(running,), icon=":material/cancel:")


def cancel(running: EvalJob | IndexEvalJob) -> None:
    running.cancel()  # ends the child (or the thread on the labels) and removes its temporary folder
    st.session_state.pop(JOB, None)
    st.session_state["eval_cancelled"] = True


cancelled = st.session_state.pop("eval_cancelled", False)
progress_panel()
if cancelled:
    st.info(
        "Cancelled. Each document of the evaluation index is whole or absent; the next run indexes the rest."
    )
if st.session_state.get(FAILURE):
    st.error("The evaluation failed: " + escape_markdown(st.session_state[FAILURE]))
    st.button("Dismiss", key="eval_dismiss", on_click=st.session_state.pop, args=(FAILURE, None))

if RESULT not in st.session_state:
    st.stop()
report, sweep = st.session_state[RESULT]
st.subheader(escape_markdown(headline(report)))
for line in report.index.get("failed", []):
    st.warning(escape_markdown(line))
explained = {name: st.column_config.Column(help=words) for name, words in METRICS.items()}
st.dataframe(  # the headline columns: they fit a 1000 px window without a sideways scroll
    headline_rows(report),
    hide_index=True,
    column_config={
        **{
            n: st.column_config.NumberColumn(
                help=METRICS.get(n), format="%.1f" if n == "pages_returned" else "%.3f"
            )
            for n in HEADLINE_COLUMNS[1:]
        },
        "strategy": st.column_config.TextColumn(pinned=True),
    },
    key="eval_headline",
)
with st.expander("Every metric, with 95 % intervals"):
    st.dataframe(summary_rows(report), hide_index=True, column_config=explained, key="eval_summary")
for line in sweep_verdicts(sweep) if sweep else verdicts(report):  # each knee run against flat, one sentence
    st.markdown("- " + escape_markdown(line))
st.plotly_chart(
    figures.sweep_figure(sweep) if sweep else figures.recall_vs_pages(report), key="eval_recall_pages"
)
st.subheader("Per query")
st.plotly_chart(
    figures.per_query_figure(report, questions=st.session_state.get(QUESTIONS, {})), key="eval_per_query"
)
st.dataframe(query_rows(report), hide_index=True)
st.download_button(
    "report.json",
    json.dumps(report.to_json(), indent=2),
    file_name=f"{report.dataset}-evaluation.json",
    mime="application/json",
    on_click="ignore",
    icon=":material/download:",
)
