"""Compare: one query, several strategies side by side — final nodes, pages, tokens, latency, overlap, and
every step's score curve with its knee. The knobs in the sidebar rerun only the strategies they concern.
Optional answer from one strategy's context; export as JSON / CSV."""

import streamlit as st

from drag_core import DragError, ui, views
from drag_core.app_state import SAMPLE_PDF, SAMPLE_QUERY, answer, citations, escape_markdown
from drag_core.compare import export_tables, to_csv, to_json
from drag_core.knee import KNEE_METHODS
from drag_core.search import DEFAULT_STRATEGIES, SCORE_SOURCES, STRATEGIES, SearchParams

SOURCE_NAMES = {"rrf": "RRF (fused)", "dense": "dense cosine"}

st.title("Compare strategies")
engine = ui.engine()
documents = ui.indexed_documents(engine)
# The knobs start at the library's defaults (the CLI's too); RRF k at the settings' DRAG_RRF_K.
defaults = SearchParams(rrf_k=engine.settings.rrf_k)

with st.sidebar:
    st.header("Knobs")
    knee_method = ui.kept(
        st.selectbox, "Knee detector", "knee_method", defaults.knee_method, options=KNEE_METHODS
    )
    sensitivity = ui.kept(
        st.slider,
        "Sensitivity",
        "sensitivity",
        defaults.sensitivity,
        min_value=0.0,
        max_value=5.0,
        step=0.1,
        help="The detector's S: for kneedle, higher waits for a clearer knee (usually keeps more).",
    )
    min_keep, max_keep = ui.kept(
        st.slider,
        "Kept per ranking (min – max)",
        "keep_range",
        (defaults.min_keep, defaults.max_keep or 50),
        min_value=1,
        max_value=50,
        help="Bounds on how many items a knee cut keeps.",
    )
    beam_width = ui.kept(
        st.slider, "Beam width (beam)", "beam_width", defaults.beam_width, min_value=1, max_value=20
    )
    roots = ui.kept(st.slider, "Roots (branch, beam)", "roots", defaults.roots, min_value=1, max_value=20)
    top_k = ui.kept(st.slider, "Top k (flat)", "top_k", defaults.top_k, min_value=1, max_value=50)
    rrf_k = ui.kept(st.slider, "RRF k", "rrf_k", defaults.rrf_k, min_value=1, max_value=200)
    score_source = ui.kept(
        st.radio,
        "Score curve the knee reads",
        "score_source",
        defaults.score_source,
        options=SCORE_SOURCES,
        format_func=SOURCE_NAMES.get,
        horizontal=True,
    )

params = defaults.with_(
    top_k=top_k,
    roots=roots,
    beam_width=beam_width,
    rrf_k=rrf_k,
    knee_method=knee_method,
    sensitivity=sensitivity,
    min_keep=min_keep,
    max_keep=max_keep,
    score_source=score_source,
)

has_sample = any(d.file_name == SAMPLE_PDF.name for d in documents)
query = ui.kept(
    st.text_input,
    "Question",
    "query",
    SAMPLE_QUERY if has_sample else "",
    placeholder="Ask something the indexed documents answer",
)
strategies = ui.kept(
    st.multiselect, "Strategies", "strategies", list(DEFAULT_STRATEGIES), options=list(STRATEGIES)
)
if not query.strip() or not strategies:
    st.info("Type a question and pick at least one strategy.")
    st.stop()

try:
    comparison = ui.comparer().compare(engine, query, strategies, params)
except (ValueError, DragError) as error:
    st.error(escape_markdown(str(error)))
    st.stop()
st.session_state[ui.COMPARISON] = comparison

for column, (name, run) in zip(st.columns(len(comparison.runs)), comparison.runs.items(), strict=True):
    with column, st.container(border=True):
        st.subheader(name)
        a, b = st.columns(2)
        a.metric("Nodes returned", len(run.result.nodes))
        b.metric("Pages", run.pages)
        c, d = st.columns(2)
        c.metric("≈ Tokens", f"{run.tokens:,}")
        d.metric("Latency", f"{run.result.latency_ms:.0f} ms")
        st.dataframe(
            views.node_rows(run.result),
            hide_index=True,
            column_config={"summary": st.column_config.TextColumn(width="large")},
        )
st.caption(
    f"Query embedded once ({comparison.embed_ms:.0f} ms; 0 when remembered). Latency is each strategy's own "
    f"search. Tokens ≈ characters / 4 of the pages returned. Runs remembered: {ui.comparer().hits} reused, "
    f"{ui.comparer().misses} computed."
)

if len(comparison.runs) > 1:
    st.subheader("Overlap of returned pages")
    st.plotly_chart(views.overlap_figure(comparison), key="overlap", config={"displayModeBar": False})

st.subheader("Ranking steps")
st.caption(
    "Each panel is one ranking a strategy compared, best first: kept points, points dropped by parent/child "
    "suppression or not followed, points cut by the knee; the star marks the knee, the dashed line the cut."
)
for tab, (name, run) in zip(st.tabs(list(comparison.runs)), comparison.runs.items(), strict=True):
    with tab:
        st.plotly_chart(views.curve_figure(run.result), key=f"curve_{name}", config={"displayModeBar": False})
        st.table(views.step_rows(run.result))

st.divider()
if st.toggle("Answer from one strategy's context", key="answer_on"):
    llm = ui.llm_config()
    if llm is None:
        st.info(
            "No LLM endpoint is configured, so no answer is generated. Set `DRAG_LLM_BASE_URL` (and "
            "`DRAG_LLM_MODEL`, `DRAG_LLM_API_KEY` if needed) in the environment or in `.streamlit/secrets.toml`; "
            "everything above works without it."
        )
    else:
        source = st.selectbox("Context from", list(comparison.runs), key="answer_strategy")
        run = comparison.runs[source]
        st.caption(f"{run.pages} pages, ≈ {run.tokens:,} tokens, sent to {llm.model} at {llm.host}.")
        answers = st.session_state.setdefault("answers", {})
        key = (query, tuple(page.id for page in run.context), llm.model, llm.base_url)
        if key not in answers:
            with st.spinner("Asking the LLM…"):
                try:
                    answers[key] = (True, answer(llm, query, run.context))
                except DragError as error:
                    answers[key] = (False, str(error))
        ok, text = answers[key]
        if ok:
            ui.show_text(text)
            st.caption("Sources: " + escape_markdown(" ".join(citations(run.context))))
        else:
            st.error("The LLM did not answer: " + escape_markdown(text))
            if st.button("Try again", key="answer_retry"):
                del answers[key]
                st.rerun()

st.subheader("Export")
index = {k: getattr(engine.settings, k) for k in ("collection", "dense_model", "sparse_model")}
buttons = st.columns(4)
buttons[0].download_button(
    "comparison.json",
    to_json(comparison, index),
    file_name="comparison.json",
    mime="application/json",
    on_click="ignore",
    icon=":material/download:",
    key="export_json",
)
for column, (table, rows) in zip(buttons[1:], export_tables(comparison).items(), strict=True):
    column.download_button(
        f"{table}.csv",
        to_csv(rows),
        file_name=f"{table}.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key=f"export_{table}",
    )
