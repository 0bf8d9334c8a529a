"""Compare: one query, several strategies side by side — what each returns (file and pages), pages, tokens,
latency, overlap, and every ranking step's curves with the knee and the reason for each cut.

The knee's knobs and the results are one ``st.fragment`` (the Compare panel): moving a knee knob reruns only
that panel, reruns only the strategies that read the knob (the others come from the comparer's memory) and
redraws only the figures whose inputs changed; a rerun whose searches are remembered makes no model, index or
Qdrant call. The question, the strategies and the walks' knobs (rarely moved) rerun the page, so a slider step
redraws as little as it can. The address holds the view (``drag_core.app.url_state``: the question, the
strategies, every knob), so a link opens it again as it was; the session's questions are one click away."""

import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from drag_core import DEFAULT_STRATEGIES, STRATEGIES, DragError, SearchParams
from drag_core.app import figures, ui
from drag_core.app.compare import (
    Comparison,
    export_tables,
    index_key,
    knee_pinned,
    to_csv,
    to_json,
)
from drag_core.app.display import escape_markdown
from drag_core.app.evidence import labels_of, page_marks
from drag_core.app.glossary import KNOBS, OFFERED_METHODS, TERMS, knob_help, knob_label, offered_curves
from drag_core.app.sample import SAMPLE_PDF, SAMPLE_QUERY
from drag_core.app.url_state import asked, read_view, view_query, widget_values

ui.page("pages/compare.py")

SOURCE_NAMES = {"rrf": "RRF (fused)", "dense": "dense cosine"}
CARDS_PER_ROW = 5
RESULTS_PX = 420
SUMMARY_CHARS = 110
HISTORY = "question_history"
#: The walks' knobs (sliders and choices; the knee's knobs are pinned): ranges, choices and words from
#: ``drag_core.knobs``.
WALK_KNOBS = [k for k in KNOBS.values() if k.widget in ("slider", "radio") and not k.pinned]
#: Sliders side by side: three keep a label of several words on two lines at 1000 px.
KNOBS_PER_ROW = 3
KEEP = KNOBS["keep_range"]

st.title("Compare strategies")
engine = ui.engine()
documents = ui.indexed_documents(engine)
index = index_key(documents)
defaults = engine.settings.search
has_sample = any(d.file_name == SAMPLE_PDF.name for d in documents)
first_query = SAMPLE_QUERY if has_sample else ""
opened = ui.opened_address()  # an address new to this session (a shared link, a reload) sets the view
if opened:
    view = read_view(opened, STRATEGIES)  # the knobs' bounds and choices from the registry
    detector = view.knobs.get("knee_method", st.session_state.get("knee_method", defaults.knee_method))
    ui.set_widgets(widget_values(view, defaults, "keep_range", f"sensitivity_{detector}"))
    if view.ignored:
        st.warning(
            escape_markdown("The address asked for what this page does not offer: " + ", ".join(view.ignored))
        )


def knob(
    widget: Callable[..., Any], name: str, default: Any, key: str = "", about: str = "", **kwargs: Any
) -> Any:
    """One knob: its label and help from the glossary (``about``: the detector a sensitivity's help is about),
    its value kept across page switches under ``key`` (the knob's name by default)."""
    return ui.kept(widget, knob_label(name), key or name, default, help=knob_help(name, about), **kwargs)


def walk_knobs() -> dict[str, Any]:
    """The knobs of the walks (a change reruns the page), each with what it does and the strategies that read
    it in its help (sliders aligned at the bottom, under labels of any length); defaults from
    ``SearchParams``."""
    columns = [
        column
        for row in range(0, len(WALK_KNOBS), KNOBS_PER_ROW)
        for column in st.columns(KNOBS_PER_ROW, vertical_alignment="bottom")
    ]
    values = {}
    for column, k in zip(columns, WALK_KNOBS):
        default = getattr(defaults, k.field)
        if k.choices:
            values[k.field] = knob(column.radio, k.key, default, options=k.choices, horizontal=True)
            continue
        low, high = k.bounds  # a slider's entry has them (tests/test_knobs.py)
        values[k.field] = knob(column.slider, k.key, default, min_value=low, max_value=high, step=k.step)
    return values


def knee_knobs(walk: dict[str, Any]) -> SearchParams:
    """The knee's knobs (a change reruns only the Compare panel); returns every parameter the knobs set. The
    Sensitivity slider offers the chosen detector's own values and remembers a value per detector."""
    with st.container(border=True):
        a, b, c, d = st.columns([1.3, 1.6, 1.6, 1.3], vertical_alignment="bottom")
        knee_method = knob(a.selectbox, "knee_method", defaults.knee_method, options=OFFERED_METHODS)
        own = knee_method == defaults.knee_method
        sensitivity = knob(
            b.select_slider,
            "sensitivity",
            defaults.sensitivity if own else figures.DEFAULT_SENSITIVITIES[knee_method],
            key=f"sensitivity_{knee_method}",
            about=knee_method,
            options=figures.SENSITIVITIES[knee_method],
        )
        least, most = KEEP.bounds
        min_keep, max_keep = knob(
            c.slider,
            KEEP.key,
            (defaults.min_keep, defaults.max_keep or most),
            min_value=least,
            max_value=most,
            step=KEEP.step,
        )
        curves = offered_curves(knee_method)  # only where the detector's slider moves the answer
        score_source = knob(
            d.radio,
            "score_source",
            defaults.score_source if defaults.score_source in curves else curves[0],
            about=knee_method,
            options=curves,
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
        "Each panel is one ranking a strategy compared, best first, titled by what was ranked and in which "
        "document: its RRF (fused) curve, and the cosine curve when the knee reads it. "
        f"{TERMS['fates']} The star is the knee on the curve it was found on, the dashed line the cut; the panel "
        "title says why the cut is there. Under each knee panel: how many items each sensitivity would keep, the "
        "current one marked (not under knee-beam's, whose knee the slider does not move). "
        f"{TERMS['levels']}"
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
            below = None if knee_pinned(name) else figures.sensitivity_html(run.result)
            if (
                below is not None
            ):  # a pinned knee: the slider cannot move it, so no line says what it would do
                st.html(below)
            st.html(figures.step_table_html(run.result))  # fixed columns: it fits a 1000 px window


def exports(comparison: Comparison) -> None:
    """Download buttons; each file is written only when its button is clicked."""
    st.subheader("Export")
    facts = {k: getattr(engine.settings, k) for k in ("collection", "dense_model", "sparse_model")}
    buttons = st.container(horizontal=True)  # each button as wide as its name, wrapping on a narrow window
    buttons.download_button(
        "comparison.json",
        lambda: to_json(comparison, facts),
        file_name="comparison.json",
        mime="application/json",
        on_click="ignore",
        icon=":material/download:",
        key="export_json",
    )
    for table in ("metrics", "nodes", "trace"):
        buttons.download_button(
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
    ui.keep_address(view_query(query, strategies, params))
    st.session_state[HISTORY] = asked(st.session_state.get(HISTORY, []), query)
    cards(comparison)
    st.caption(
        f"Query embedded once ({comparison.embed_ms:.0f} ms; 0 when remembered). Latency is each strategy's own "
        f"search. Tokens ≈ characters / 4 of the pages returned. Runs remembered: {ui.comparer().hits} reused, "
        f"{ui.comparer().misses} computed."
    )
    if len(comparison.runs) > 1:
        st.subheader("Overlap of returned pages")
        st.caption(
            "Each cell: the share of pages two strategies both return (Jaccard: pages both return over "
            "pages either returns, 1 = the same pages), and how many pages they share."
        )
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
    ui.settle_heap("pages/compare.py")  # a knob step reruns only this fragment, never ``ui.page``


def ask(question: str) -> None:
    st.session_state["query"] = question


def history_menu(current: str) -> None:
    """The other questions asked in this session, most recent first: one click opens the list, one asks it
    again."""
    history = [q for q in st.session_state.get(HISTORY, []) if q != current.strip()]
    with st.popover(f"Asked before ({len(history)})", icon=":material/history:", disabled=not history):
        for number, earlier in enumerate(history):
            st.button(earlier, key=f"history_{number}", on_click=ask, args=(earlier,), type="tertiary")


left, right = st.columns([5, 4])
with left:
    question = ui.kept(
        st.text_input,
        "Question",
        "query",
        first_query,
        placeholder="Ask something the indexed documents answer",
    )
    history_menu(question)
with right:
    chosen = ui.kept(
        st.multiselect,
        "Strategies",
        "strategies",
        list(DEFAULT_STRATEGIES),
        options=list(STRATEGIES),
        wrap=True,  # in a column the chips would scroll sideways in one row, the last ones cut off
    )
instrument(question, chosen, walk_knobs())
