"""The Compare page in Streamlit's AppTest: strategies side by side, knobs that rerun only what changed,
curves with knees, the answer toggle (offline and with a real local LLM) and the export buttons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import no_exceptions
from llm_server import local_llm  # noqa: F401 - session fixture of the real-LLM test

from drag_core.search import STRATEGIES

COMPARE = "pages/compare.py"
QUERY = "What was net sales growth in the fourth quarter?"
DEFAULT = ["flat", "branch", "beam", "knee-beam", "adaptive"]


@pytest.fixture
def compared(open_app, small_index_copy: Path):
    at = open_app(small_index_copy, COMPARE)
    no_exceptions(at)
    at.text_input(key="query").set_value(QUERY).run()
    no_exceptions(at)
    return at


def _metric(at, label: str) -> list[str]:
    return [m.value for m in at.metric if m.label == label]


def _figures(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def test_an_empty_question_asks_for_one(open_app, small_index_copy: Path) -> None:
    at = open_app(small_index_copy, COMPARE)
    no_exceptions(at)
    assert at.title[0].value == "Compare strategies"
    assert at.text_input(key="query").value == ""
    assert at.multiselect(key="strategies").value == DEFAULT
    assert any("Type a question" in i.value for i in at.info)
    assert not at.metric


def test_strategies_side_by_side_with_curves_overlap_and_exports(compared) -> None:
    at = compared
    assert [h.value for h in at.subheader][: len(DEFAULT)] == DEFAULT
    assert len(_metric(at, "Nodes returned")) == len(DEFAULT)
    assert all(int(v) >= 1 for v in _metric(at, "Nodes returned"))
    assert all(v.endswith(" ms") for v in _metric(at, "Latency"))
    assert len(at.dataframe) == len(DEFAULT)
    assert set(at.dataframe[0].value.columns) == {"#", "pages", "summary", "level", "score", "file"}
    figures = _figures(at)
    assert len(figures) == 1 + len(DEFAULT)  # the overlap heatmap, then one figure of curves per strategy
    assert figures[0]["data"][0]["type"] == "heatmap"
    adaptive = figures[-1]
    panels = [a["text"] for a in adaptive["layout"]["annotations"]]
    assert panels and all(" · kept " in p for p in panels)
    assert len(at.table) == len(DEFAULT)
    assert [t.label for t in at.tabs] == DEFAULT
    assert [b.label for b in at.download_button] == [
        "comparison.json",
        "metrics.csv",
        "nodes.csv",
        "trace.csv",
    ]
    assert at.session_state["comparison"].query == QUERY


def test_moving_a_knee_slider_reruns_only_the_knee_strategies(compared) -> None:
    at = compared
    comparer = at.session_state["comparer"]
    assert (comparer.misses, comparer.hits) == (len(DEFAULT), 0)
    before = at.session_state["comparison"]
    at.slider(key="sensitivity").set_value(4.0).run()
    no_exceptions(at)
    readers = [s for s in DEFAULT if "sensitivity" in STRATEGIES[s].params]
    assert readers == ["knee-beam", "adaptive"]
    assert comparer.misses == len(DEFAULT) + len(readers)
    assert comparer.hits == len(DEFAULT) - len(readers)
    after = at.session_state["comparison"]
    assert after.params.sensitivity == 4.0
    for name in DEFAULT:
        assert (after.runs[name] is before.runs[name]) == (name not in readers)

    at.slider(key="keep_range").set_value((2, 6)).run()
    at.slider(key="beam_width").set_value(3).run()
    at.radio(key="score_source").set_value("dense").run()
    at.selectbox(key="knee_method").set_value("gap").run()
    no_exceptions(at)
    params = at.session_state["comparison"].params
    assert (params.min_keep, params.max_keep, params.beam_width, params.score_source, params.knee_method) == (
        2,
        6,
        3,
        "dense",
        "gap",
    )
    assert "cosine (sorted)" in json.dumps(_figures(at)[-1]["layout"])


def test_knobs_survive_a_page_switch(compared) -> None:
    at = compared
    at.slider(key="sensitivity").set_value(2.5).run()
    at.multiselect(key="strategies").set_value(["flat", "adaptive"]).run()
    at.switch_page("pages/tree.py").run()
    no_exceptions(at)
    at.switch_page(COMPARE).run()
    no_exceptions(at)
    assert at.slider(key="sensitivity").value == 2.5
    assert at.text_input(key="query").value == QUERY
    assert at.multiselect(key="strategies").value == ["flat", "adaptive"]
    assert len(_metric(at, "Nodes returned")) == 2


def test_answer_without_an_llm_says_so(compared) -> None:
    at = compared
    at.toggle(key="answer_on").set_value(True).run()
    no_exceptions(at)
    assert any("No LLM endpoint is configured" in i.value for i in at.info)


def test_answer_with_a_real_local_llm_cites_its_pages(
    open_app,
    small_index_copy: Path,
    local_llm: str,  # noqa: F811 - the imported fixture
) -> None:
    at = open_app(
        small_index_copy, COMPARE, DRAG_LLM_BASE_URL=local_llm, DRAG_LLM_MODEL="smollm2-135m-instruct"
    )
    at.text_input(key="query").set_value(QUERY).run()
    at.slider(key="top_k").set_value(1).run()
    at.toggle(key="answer_on").set_value(True).run()
    at.selectbox(key="answer_strategy").set_value("flat").run()
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    run = at.session_state["comparison"].runs["flat"]
    answers = [text for ok, text in at.session_state["answers"].values() if ok]
    assert answers and answers[-1].strip()
    assert any(t.value == answers[-1] for t in at.text)
    page = run.context[0]
    assert any(f"[{page.file_name} p.{page.page_start}]" in c.value.replace("\\", "") for c in at.caption)


def test_an_unreachable_llm_is_reported_with_a_retry(open_app, small_index_copy: Path) -> None:
    at = open_app(
        small_index_copy, COMPARE, DRAG_LLM_BASE_URL="http://127.0.0.1:9/v1", DRAG_LLM_MAX_RETRIES="0"
    )
    at.text_input(key="query").set_value(QUERY).run()
    at.toggle(key="answer_on").set_value(True).run()
    no_exceptions(at)
    assert at.error and at.error[0].value.startswith("The LLM did not answer: ")
    assert "connection error" in at.error[0].value.replace("\\", "")
    at.button(key="answer_retry").click().run()
    no_exceptions(at)
    assert len(at.session_state["answers"]) == 1  # asked again, failed again, one entry
