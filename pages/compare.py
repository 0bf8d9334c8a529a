"""Compare: one query, several strategies side by side — what each returns (file and pages), pages, tokens,
latency, overlap, and every ranking step's curves with the knee and the reason for each cut.

The knee's knobs and the results are one ``st.fragment`` (the Compare panel): moving a knee knob reruns only
that panel, reruns only the strategies that read the knob (the others come from the comparer's memory) and
redraws only the figures whose inputs changed; a rerun whose searches are remembered makes no model, index or
Qdrant call. The question, the strategies and the walks' knobs (rarely moved) rerun the page, so a slider step
redraws as little as it can. ``?q=…`` in the address asks a question on opening."""

import time

import streamlit as st

from drag_core import DEFAULT_STRATEGIES, KNEE_METHODS, SCORE_SOURCES, STRATEGIES, DragError, SearchParams
from drag_core.app import figures, ui
from drag_core.app.compare import (
    Comparison,
    export_tables,
    index_key,
    knob_readers,
    to_csv,
    to_json,
)
from drag_core.app.display import escape_markdown
from drag_core.app.evidence import labels_of, page_marks
from drag_core.app.sample import SAMPLE_PDF, SAMPLE_QUERY

ui.page("pages/compare.py")

SOURCE_NAMES = {"rrf": "RRF (fused)", "dense": "dense cosine"}
CARDS_PER_ROW = 5
RESULTS_PX = 420
SUMMARY_CHARS = 110
#: The walks' knobs: ``SearchParams`` field → (title, least, most).
WALK_KNOBS = {
    "top_k": ("Top k", 1, 50),
    "roots": ("Roots", 1, 20),
    "beam_width": ("Beam width", 1, 20),
    "rrf_k": ("RRF k", 1, 200),
    "doc_breadth": ("Document breadth", 0, 20),
}
WALK_HELP = {
    "doc_breadth": "Adaptive adds the best page of every document among the first N pages of the flat ranking "
    "that its knee-cut answer lacks, so it never shows fewer documents than flat top-N (0: off).",
}

st.title("Compare strategies")
engine = ui.engine()
documents = ui.indexed_documents(engine)
index = index_key(documents)
defaults = engine.settings.search
has_sample = any(d.file_name == SAMPLE_PDF.name for d in documents)
first_query = st.query_params.get("q", SAMPLE_QUERY if has_sample else "")


def walk_knobs() -> dict[str, int]:
    """The knobs of the walks (a change reruns the page), each with the strategies that read it in its help
    (one-line labels keep the sliders aligned); defaults from ``SearchParams``."""
    columns = st.columns(len(WALK_KNOBS))
    return {
        key: ui.kept(
            column.slider,
            title,
            key,
            getattr(defaults, key),
            min_value=low,
            max_value=high,
            help=" ".join(filter(None, (WALK_HELP.get(key), knob_readers(key)))),
        )
        for column, (key, (title, low, high)) in zip(columns, WALK_KNOBS.items())
    }


#: What the sensitivity means for each detector (docs/knee.md).
SENSITIVITY_HELP = {
    "relative": "keeps every item within S × (top − mean) of the top score: higher keeps more, step by step.",
    "kneedle": "higher waits for a clearer knee (usually keeps more); the values are dense where knees move.",
    "chord": "the knee is the last point at least S × the largest distance below the chord: lower keeps more.",
    "gap": "the largest gap counts when it beats a typical gap by S typical gaps: higher finds fewer knees "
    "(no knee keeps everything up to max-keep).",
}
PINNED = "knee-beam keeps the article's knee (Kneedle S = 1, at most 5, on the RRF curve): these knobs do not move it."


def knee_knobs(walk: dict[str, int]) -> SearchParams:
    """The knee's knobs (a change reruns only the Compare panel); returns every parameter the knobs set. The
    Sensitivity slider offers the chosen detector's own values and remembers a value per detector."""
    with st.container(border=True):
        a, b, c, d = st.columns([1, 1.6, 1.6, 1.3])
        knee_method = ui.kept(
            a.selectbox, "Knee detector", "knee_method", defaults.knee_method, options=KNEE_METHODS
        )
        own = knee_method == defaults.knee_method
        sensitivity = ui.kept(
            b.select_slider,
            "Sensitivity",
            f"sensitivity_{knee_method}",
            defaults.sensitivity if own else figures.DEFAULT_SENSITIVITIES[knee_method],
            options=figures.SENSITIVITIES[knee_method],
            help=f"The {knee_method} detector's S: {SENSITIVITY_HELP.get(knee_method, '')} The small line under "
            f"each knee panel shows how many items every S would keep. {knob_readers('sensitivity')} {PINNED}",
        )
        min_keep, max_keep = ui.kept(
            c.slider,
            "Kept per ranking (min – max)",
            "keep_range",
            (defaults.min_keep, defaults.max_keep or 50),
            min_value=1,
            max_value=50,
            help="Bounds on how many items a knee cut keeps: safety rails, the knee sets the usual cut. "
            f"{knob_readers('max_keep')} {PINNED}",
        )
        score_source = ui.kept(
            d.radio,
            "Curve the knee reads",
            "score_source",
            defaults.score_source,
            options=SCORE_SOURCES,
            format_func=SOURCE_NAMES.get,
            horizontal=True,
        )
    return defaults.with_(
        **walk,
        knee_method=knee_method,
        sensitivity=sensitivity,
        min_keep=min_keep,
        max_keep=max_keep,
        score_source=score_source,
    )


def cards(comparison: Comparison) -> None:
    """One card per strategy, at most ``CARDS_PER_ROW`` to a row, drawn as one HTML element (cheap to redraw);
    a click on a result's page opens it in the page viewer."""
    count = len(comparison.runs)
    per_row = count if count <= CARDS_PER_ROW else -(-count // 2)
    marks = page_marks(labels_of(engine.settings), comparison.query)
    html = figures.cards_html(comparison, per_row, RESULTS_PX, SUMMARY_CHARS, marks)
    opened = ui.page_links(html, key="cards")
    if opened is not None:
        ui.show_page(opened, comparison.query)


def steps(comparison: Comparison) -> None:
    """The ranking steps of one strategy at a time (a lazy tab: only the open one is drawn)."""
    st.subheader("Ranking steps")
    st.caption(
        "Each panel is one ranking a strategy compared, best first: its RRF (fused) curve, and the cosine curve "
        "when the knee reads it. Points: kept, dropped by parent/child suppression or not followed, cut by the "
        "knee, or cut by a cap (max-keep, roots) though the knee would have kept them. The star is the knee on "
        "the curve it was found on, the dashed line the cut; the panel title says why the cut is there. Under each "
        "knee panel: how many items each sensitivity would keep, the current one marked."
    )
    names = list(comparison.runs)
    knees = [n for n in names if any(s.curve for s in comparison.runs[n].result.trace)]
    default = "adaptive" if "adaptive" in knees else (knees or names)[0]
    for tab, name in zip(st.tabs(names, default=default, key="steps_tab", on_change="rerun"), names):
        if not tab.open:
            continue
        run = comparison.runs[name]
        with tab:
            figure = ui.cached_figure(
                ("steps", id(run)), lambda run=run: figures.steps_figure(run.result), run
            )
            st.plotly_chart(figure, key=f"curve_{name}", config={"displayModeBar": False})
            below = figures.sensitivity_html(run.result)
            if below is not None:
                st.html(below)
            st.table(figures.step_rows(run.result))


def exports(comparison: Comparison) -> None:
    """Download buttons; each file is written only when its button is clicked."""
    st.subheader("Export")
    facts = {k: getattr(engine.settings, k) for k in ("collection", "dense_model", "sparse_model")}
    buttons = st.columns(4)
    buttons[0].download_button(
        "comparison.json",
        lambda: to_json(comparison, facts),
        file_name="comparison.json",
        mime="application/json",
        on_click="ignore",
        icon=":material/download:",
        key="export_json",
    )
    for column, table in zip(buttons[1:], ("metrics", "nodes", "trace")):
        column.download_button(
            f"{table}.csv",
            lambda table=table: to_csv(export_tables(comparison)[table]),
            file_name=f"{table}.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/download:",
            key=f"export_{table}",
        )


@st.fragment
def instrument(query: str, strategies: list[str], walk: dict[str, int]) -> None:
    """The knee's knobs and everything drawn from the search; the last line says how long the view took."""
    started = time.perf_counter()
    params = knee_knobs(walk)
    if not query.strip() or not strategies:
        st.info("Type a question and pick at least one strategy.")
        return
    try:
        comparison = ui.comparer().compare(engine, query, strategies, params, index=index)
    except (ValueError, DragError) as error:
        st.error(escape_markdown(str(error)))
        return
    st.session_state[ui.COMPARISON] = comparison
    cards(comparison)
    st.caption(
        f"Query embedded once ({comparison.embed_ms:.0f} ms; 0 when remembered). Latency is each strategy's own "
        f"search. Tokens ≈ characters / 4 of the pages returned. Runs remembered: {ui.comparer().hits} reused, "
        f"{ui.comparer().misses} computed."
    )
    if len(comparison.runs) > 1:
        st.subheader("Overlap of returned pages")
        key = ("overlap", *((name, id(run)) for name, run in comparison.runs.items()))
        overlap = ui.cached_figure(key, lambda: figures.overlap_figure(comparison), comparison)
        st.plotly_chart(overlap, key="overlap", config={"displayModeBar": False})
    steps(comparison)
    st.divider()
    ui.answer_panel(query, comparison)
    ui.labels_panel(query)
    exports(comparison)
    views_drawn = st.session_state["views_drawn"] = st.session_state.get("views_drawn", 0) + 1
    st.caption(f"Drawn in {(time.perf_counter() - started) * 1000:.0f} ms (view {views_drawn}).")


left, right = st.columns([5, 4])
with left:
    asked = ui.kept(
        st.text_input,
        "Question",
        "query",
        first_query,
        placeholder="Ask something the indexed documents answer",
    )
with right:
    chosen = ui.kept(
        st.multiselect,
        "Strategies",
        "strategies",
        list(DEFAULT_STRATEGIES),
        options=list(STRATEGIES),
        wrap=True,  # in a column the chips would scroll sideways in one row, the last ones cut off
    )
instrument(asked, chosen, walk_knobs())
