"""Tree: a document's summary tree as an icicle over its pages, nodes named by their section where the document
has an outline; click a node (or pick it) to inspect its section, summary, keywords and page text. The running
headers and footers left out of summaries, keywords and vectors are listed. After a query on Compare, the
nodes a strategy ranked, kept and returned are coloured."""

import streamlit as st

from drag_core import Node
from drag_core.app import figures, ui
from drag_core.app.display import counted, escape_markdown, page_span, running_lines_note
from drag_core.app.evidence import PageTarget
from drag_core.app.glossary import TERMS

ui.page("pages/tree.py")

PAGE_TEXTS_SHOWN = 25

st.title("Tree")
engine = ui.engine()
documents = ui.indexed_documents(engine)

names = [d.file_name for d in documents]
left, right = st.columns([2, 1])
with left:
    file_name = ui.kept(st.selectbox, "Document", "tree_doc", names[0], options=names)
info = next(d for d in documents if d.file_name == file_name)
if info.running_lines or info.page_numbers:
    st.caption(escape_markdown(running_lines_note(info)))


@st.cache_data(show_spinner=False, max_entries=16)
def tree_nodes(doc_id: str, file_name: str) -> list[Node]:
    """Nodes of one document version (keyed by its content hash)."""
    return engine.tree(file_name)


nodes = tree_nodes(info.doc_id, file_name)
by_id = {n.id: n for n in nodes}

marks = None
query = ""
comparison = ui.last_comparison()
with right:
    if comparison is not None:
        strategy = st.selectbox(
            "Highlight the search of",
            ["none", *comparison.runs],
            index=min(1, len(comparison.runs)),
            key="tree_highlight",
            help="From the last query on the Compare page.",
        )
        if strategy != "none":
            marks = figures.node_marks(comparison.runs[strategy].result)
            query = comparison.query
            st.caption("Query: " + escape_markdown(comparison.query[:200]))
    else:
        st.caption("Run a query on Compare to see which nodes each strategy visited, kept and returned.")

chart_key = f"tree_chart_{info.doc_id}"
chart_state = st.session_state.get(chart_key)
clicked = figures.selected_node_id(chart_state.selection.points) if chart_state else None
if clicked in by_id and clicked != st.session_state.get("tree_clicked"):
    st.session_state["tree_clicked"] = clicked
    st.session_state["tree_node"] = clicked
if st.session_state.get("tree_node") not in by_id:
    st.session_state["tree_node"] = nodes[-1].id

order = sorted(nodes, key=lambda n: (-n.level, n.page_start))
selected = st.selectbox(
    "Node",
    [n.id for n in order],
    format_func=lambda i: figures.titled_label(by_id[i]),
    key="tree_node",
    help=f"Or click a bar in the chart. {TERMS['levels']}",
)
st.plotly_chart(
    figures.tree_figure(nodes, marks, selected),
    key=chart_key,
    on_select="rerun",
    selection_mode="points",
    config={"displayModeBar": False},
)

node = by_id[selected]
st.subheader(f"{figures.node_label(node)} — {counted(len(node.pages), 'page')}")
if node.title:
    st.markdown(f"**Section:** {escape_markdown(node.title)}")
facts = st.container(horizontal=True, gap="large")  # each fact as wide as its value: none is cut short
facts.metric("Level", f"L{node.level}", help=TERMS["levels"], width="content")
facts.metric("Pages", page_span(node.page_start, node.page_end), width="content")
facts.metric("Children", len(node.child_ids), width="content")
facts.metric("Summary by", node.summary_source or "—", help=TERMS["summary_by"], width="content")
if node.fallback_reason:
    st.warning(
        "The LLM failed here; the offline summariser wrote this. " + escape_markdown(node.fallback_reason)
    )
st.markdown("**Summary**")
ui.show_text(node.summary)
st.markdown("**Keywords**")
ui.show_text(", ".join(node.keywords), empty="(none)")
st.markdown("**Page text**")
pages = engine.pages_of(node.id)


def show_button(page: Node, label: str) -> None:
    """A button that opens the page in the page viewer (highlighted for the Compare query shown above)."""
    if st.button(label, key=f"tree_show_{page.id}", icon=":material/article:"):
        ui.show_page(PageTarget(page.file_name, page.page_start), query)


if len(pages) == 1:
    show_button(pages[0], "Show the page")
    with st.container(height=420):
        ui.show_text(pages[0].text, empty="(no extractable text on this page)")
else:
    for page in pages[:PAGE_TEXTS_SHOWN]:
        with st.expander(f"Page {page.page_start}"):
            show_button(page, f"Show page {page.page_start}")
            ui.show_text(page.text, empty="(no extractable text on this page)")
    if len(pages) > PAGE_TEXTS_SHOWN:
        st.caption(f"{counted(len(pages) - PAGE_TEXTS_SHOWN, 'more page')}: pick a lower node to read them.")
