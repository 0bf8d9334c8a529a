"""The Tree page in Streamlit's AppTest: the icicle of a real document, the node inspector with the real page
text, and the highlight of the last query's search."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FINANCE, SMALL_DOCS, no_exceptions

from drag_core.ingest.loading import load_path
from drag_core.search import DEFAULT_STRATEGIES

TREE = "pages/tree.py"


def _figure(at) -> dict:
    (chart,) = at.get("plotly_chart")
    return json.loads(chart.proto.spec)


def _bar_ids(figure: dict) -> list[int]:
    return [int(i) for trace in figure["data"] if trace["name"] != "selected" for i in trace["customdata"]]


def test_tree_shows_a_document_and_inspects_its_nodes(open_app, small_index_copy: Path) -> None:
    at = open_app(small_index_copy, TREE)
    no_exceptions(at)
    assert at.title[0].value == "Tree"
    assert sorted(at.selectbox(key="tree_doc").options) == sorted(SMALL_DOCS)
    ulta = next(name for name in SMALL_DOCS if name.startswith("ULTA"))
    at.selectbox(key="tree_doc").set_value(ulta).run()
    no_exceptions(at)
    figure = _figure(at)
    node_picker = at.selectbox(key="tree_node")
    assert len(_bar_ids(figure)) == len(node_picker.options) > 9  # 9 pages and their parents
    assert node_picker.value in _bar_ids(figure) and " · root" in node_picker.options[0]
    assert node_picker.value == at.session_state["tree_node"]
    assert "root" in at.subheader[0].value
    assert len(at.expander) == 9  # the root's 9 pages, one expander each
    notes = [c.value.replace("\\", "") for c in at.caption]
    assert any(
        "Running headers and footers left out" in n and "“Ulta Beauty, Inc.” on 3 pages" in n for n in notes
    )

    title = "Ulta Beauty Announces Fourth Quarter Fiscal 2022 Results"  # the PDF's one bookmark
    page_three = next(i for i, label in enumerate(node_picker.options) if label == f"L0 · p.3 — {title}")
    node_picker.select_index(page_three).run()
    no_exceptions(at)
    assert at.subheader[0].value.startswith("L0 · p.3")
    assert [m.value.replace("\\", "") for m in at.markdown if "Section:" in m.value] == [
        f"**Section:** {title}"
    ]
    assert [m.value for m in at.metric if m.label == "Pages"] == ["p.3"]
    words = load_path(FINANCE / ulta).pages[2].text.split()
    assert words and words in [t.value.split() for t in at.text]  # st.text blanks whitespace-only lines
    assert not at.expander


def test_tree_highlights_the_last_query(open_app, small_index_copy: Path) -> None:
    at = open_app(small_index_copy, TREE)
    assert any("Run a query on Compare" in c.value for c in at.caption)
    at.switch_page("pages/compare.py").run()
    at.text_input(key="query").set_value("What was net sales growth in the fourth quarter?").run()
    returned = at.session_state["comparison"].runs["beam"].result.nodes
    at.switch_page(TREE).run()
    no_exceptions(at)
    highlight = at.selectbox(key="tree_highlight")
    assert highlight.options == ["none", *DEFAULT_STRATEGIES]
    highlight.set_value("beam").run()
    no_exceptions(at)
    at.selectbox(key="tree_doc").set_value(returned[0].file_name).run()
    assert at.selectbox(key="tree_highlight").value == "beam"
    traces = {t["name"]: {int(i) for i in t["customdata"]} for t in _figure(at)["data"]}
    in_document = {n.id for n in returned if n.file_name == returned[0].file_name}
    assert traces["returned"] == in_document
    at.selectbox(key="tree_highlight").set_value("none").run()
    assert [t.get("name") for t in _figure(at)["data"]] == ["not ranked", "selected"]
