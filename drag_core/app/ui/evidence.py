"""The evidence in Streamlit: HTML whose page links can be clicked (``page_links``), the page viewer (a dialog:
the page rendered with the passages matching the question highlighted, the label buttons, the neighbouring
pages), the answer panel (an extracted answer offline, a generated one with an LLM, citations that open their
pages) and the labels panel (counts, this question's labels, export, the way to the Evaluate page).

``page_links`` is an ``st.components.v2`` component without a frame: the HTML is put into the page and a click
on an element with ``data-open`` sends its page back to Python, so the cards stay one HTML block (cheap to
redraw) and still open pages.
"""

from __future__ import annotations

import html

import streamlit as st

from drag_core.app.compare import Comparison, StrategyRun, answer, citations
from drag_core.app.display import counted, escape_markdown
from drag_core.app.evidence import (
    PageError,
    PageImages,
    PageTarget,
    extract_answer,
    label_counts,
    labels_of,
    mark_page,
    page_marks,
    target_of,
    view_page,
)
from drag_core.app.figures.cards import tokens_warning
from drag_core.app.figures.evidence import answer_html, cited_html, marked_html, open_link
from drag_core.app.ui.session import documents, engine, llm_config, settings
from drag_core.errors import DragError
from drag_core.labels import Labels
from drag_core.llm.config import LLMConfig

__all__ = ["VIEWER", "answer_panel", "labels_panel", "page_images", "page_links", "show_page"]

VIEWER = "viewer_page"
LABEL_CHOICES = {"relevant": True, "not relevant": False}
_LINKS_JS = """
export default function(component) {
  const { data, parentElement, setTriggerValue } = component;
  if (parentElement.dataset.shown !== data.html) {
    parentElement.innerHTML = data.html;
    parentElement.dataset.shown = data.html;
  }
  parentElement.onclick = (event) => {
    const link = event.target.closest("[data-open]");
    if (!link || !parentElement.contains(link)) return;
    event.preventDefault();
    setTriggerValue("open", JSON.parse(link.dataset.open));
  };
}
"""
_links = st.components.v2.component("drag_page_links", js=_LINKS_JS, isolate_styles=False)


def page_links(html: str, key: str) -> PageTarget | None:
    """Draw ``html``; the page of the link clicked in it during this run (None when none was)."""
    result = _links(data={"html": html}, key=key, on_open_change=lambda: None)
    return target_of(result.open)


@st.cache_resource(show_spinner=False)
def page_images() -> PageImages:
    """The process's rendered pages, shared by every session (``evidence.render``)."""
    return PageImages()


def show_page(target: PageTarget, query: str = "") -> None:
    """Open the page viewer on ``target`` (with the passages matching ``query`` highlighted)."""
    st.session_state[VIEWER] = target
    _viewer(query)


def _move(step: int) -> None:
    target: PageTarget = st.session_state[VIEWER]
    st.session_state[VIEWER] = PageTarget(target.file_name, target.page + step)  # its own snippet there


@st.dialog("Page", width="large", on_dismiss="rerun")
def _viewer(query: str) -> None:
    """The page viewer: which page, the label buttons, the page (image, or text with highlights). Closing it
    reruns what opened it, so the labels panel and the cards' badges show a label marked here at once."""
    target: PageTarget = st.session_state[VIEWER]
    try:
        shown = view_page(engine(), page_images(), target.file_name, target.page, query, target.spans)
    except PageError as error:
        st.error(escape_markdown(str(error)))
        return
    st.markdown(f"**{escape_markdown(shown.file_name)}** — page {shown.page} of {shown.pages}")
    if shown.title:
        st.caption(escape_markdown(shown.title))
    back, ahead, _ = st.columns([1, 1, 4])
    back.button("◀ Previous", key="viewer_back", on_click=_move, args=(-1,), disabled=shown.page <= 1)
    ahead.button("Next ▶", key="viewer_next", on_click=_move, args=(1,), disabled=shown.page >= shown.pages)
    if query.strip():
        if shown.snippet.units:
            what = (
                "the sentence the answer quotes"
                if target.spans
                else "the sentences of this page that best match the question (BM25)"
            )
            st.caption(
                f"Highlighted: {what}, the question's words darker. Question: {escape_markdown(query[:200])}"
            )
        else:
            st.caption("No sentence of this page shares a word with the question, so nothing is highlighted.")
        _label_buttons(query, shown.file_name, shown.page)
    if shown.note:
        st.info(escape_markdown(shown.note[:1].upper() + shown.note[1:]) + ".")
    if shown.image is not None:
        st.image(shown.image.png, width="stretch")
    else:
        with st.container(height=560):
            st.html(
                marked_html(
                    shown.text or "(no text on this page)", shown.snippet.highlights, shown.snippet.marks
                )
            )


def _label_buttons(query: str, file_name: str, page: int) -> None:
    """Relevant / not relevant for the question, saved at once (nothing chosen: not labelled)."""
    labels = labels_of(settings())
    if labels is None:
        st.caption("Labels need a store folder; this index is a throw-away one in memory.")
        return
    current = page_marks(labels, query).get((file_name, page))
    key = f"label:{query}:{file_name}:{page}"
    st.session_state[key] = next((k for k, v in LABEL_CHOICES.items() if v == current), None)

    def save() -> None:
        choice = st.session_state[key]
        mark_page(engine(), labels, query, file_name, page, LABEL_CHOICES.get(choice) if choice else None)

    st.segmented_control(
        "Is this page relevant to the question?",
        list(LABEL_CHOICES),
        key=key,
        on_change=save,
        help="Saved at once in the store folder as a page data set: the Evaluate page runs the strategies on "
        "your labels ('my labels'). Click the chosen one again to clear it.",
    )


def answer_panel(query: str, comparison: Comparison) -> None:
    """An answer from one strategy's pages: generated by the configured LLM, else extracted (the sentences
    that best match the question); its citations open their pages."""
    if not st.toggle("Answer from one strategy's context", key="answer_on"):
        return
    source = st.selectbox("Context from", list(comparison.runs), key="answer_strategy")
    run = comparison.runs[source]
    llm = llm_config()
    where = f"sent to {llm.model} at {llm.host}" if llm else "read here, offline"
    st.caption(f"{counted(run.pages, 'page')}, ≈ {run.tokens:,} tokens, {where}.")
    warning = tokens_warning(run.tokens)
    if warning:
        st.warning(f"This context is {warning}.", icon=":material/warning:")
    if llm is None:
        extracts = extract_answer(query, run.context)
        st.info(
            "No LLM endpoint is configured, so no answer is generated. Below: an answer **extracted**, not "
            "generated — the sentences of these pages that best match the question, each with its page. Set "
            "`DRAG_LLM_BASE_URL` (and `DRAG_LLM_MODEL`, `DRAG_LLM_API_KEY` if needed) in the environment or in "
            "`.streamlit/secrets.toml` for a generated one."
        )
        if not extracts:
            st.caption("No sentence of these pages shares a word with the question.")
            return
        opened = page_links(answer_html(extracts), key="answer_links")
    else:
        opened = _generated(llm, query, run)
    if opened is not None:
        show_page(opened, query)


def _generated(llm: LLMConfig, query: str, run: StrategyRun) -> PageTarget | None:
    """The LLM's answer (asked once per question, pages and model), citations linked; None on failure."""
    answers = st.session_state.setdefault("answers", {})
    key = (query, tuple(page.id for page in run.context), llm.model, llm.base_url)
    if key not in answers:
        with st.spinner("Asking the LLM…"):
            try:
                answers[key] = (True, answer(llm, query, run.context))
            except DragError as error:
                answers[key] = (False, str(error))
    ok, text = answers[key]
    if not ok:
        st.error("The LLM did not answer: " + escape_markdown(text))
        st.button("Try again", key="answer_retry", on_click=answers.pop, args=(key, None))
        return None
    st.markdown("**Generated answer**")
    opened = page_links(
        cited_html(text, [(p.file_name, p.page_start) for p in run.context]), key="answer_links"
    )
    st.caption("Sources: " + escape_markdown(" ".join(citations(run.context))))
    return opened


def labels_panel(query: str) -> None:
    """The user's labels: how many, this question's (each opens its page), export, and where they are used."""
    labels: Labels | None = labels_of(settings())
    st.subheader("Your labels")
    if labels is None:
        st.caption("Labels need a store folder; this index is a throw-away one in memory.")
        return
    counts = label_counts(labels, documents(engine()))
    st.caption(
        "Open a page (its link in a card or a citation) and mark it relevant or not for the question. Labels are "
        f"kept in {escape_markdown(str(labels.folder))} as a page data set (queries.jsonl, qrels.tsv, docs/); the "
        "Evaluate page runs the strategies on them as 'my labels', on this index. A label of a document removed "
        "or changed since is kept and marked stale."
    )
    st.markdown(
        f"{counted(counts.questions, 'question')} · {counted(counts.relevant, 'page')} marked relevant · "
        f"{counts.not_relevant} not relevant · {counts.stale} stale · {counted(counts.ready, 'question')} ready "
        "to evaluate"
    )
    marked = labels.of_query(query) if query.strip() else {}
    if marked:
        indexed = {d.file_name: d.doc_id for d in documents(engine())}
        links = " · ".join(
            open_link(file_name, page, html.escape(f"{'✓' if label.relevant else '✗'} {file_name} p.{page}"))
            + (" (stale)" if label.stale(indexed) else "")
            for (file_name, page), label in sorted(marked.items())
        )
        opened = page_links(f"<div>This question: {links}</div>", key="label_links")
        if opened is not None:
            show_page(opened, query)
    left, right = st.columns(2)
    left.download_button(
        "my-labels.zip",
        labels.export,
        file_name="my-labels.zip",
        mime="application/zip",
        on_click="ignore",
        icon=":material/download:",
        key="export_labels",
        disabled=not counts.questions,
    )
    right.page_link("pages/evaluate.py", label="Evaluate on my labels", icon=":material/fact_check:")
