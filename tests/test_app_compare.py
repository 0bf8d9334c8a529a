"""The Compare page in Streamlit's AppTest: strategies side by side, knobs that rerun only what changed,
curves with knees, the answer toggle (offline and with a real local LLM) and the export buttons."""

from __future__ import annotations

import gc
import html
import json
import re
from pathlib import Path

import pytest
from conftest import no_exceptions
from llm_server import local_llm  # noqa: F401 - session fixture of the real-LLM test

from drag_core.app.glossary import KNOBS, PINNED
from drag_core.app.url_state import KNOBS as ADDRESS_KNOBS
from drag_core.knee import DEFAULT_SENSITIVITIES, SENSITIVITIES, WITHDRAWN
from drag_core.knobs import OFFERED_METHODS, Widget, offered_curves
from drag_core.search import DEFAULT_STRATEGIES, STRATEGIES, SearchParams, readers

COMPARE = "pages/compare.py"
QUERY = "What was net sales growth in the fourth quarter?"
DEFAULT = list(DEFAULT_STRATEGIES)


@pytest.fixture
def compared(open_app, small_index_copy: Path):
    at = open_app(small_index_copy, COMPARE)
    no_exceptions(at)
    at.text_input(key="query").set_value(QUERY).run()
    no_exceptions(at)
    return at


def _figures(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def _linked_html(at) -> list[str]:
    """The HTML of every block drawn with page links (``ui.page_links``: an ``st.components.v2`` element)."""
    return [json.loads(c.proto.json)["html"] for c in at.get("bidi_component")]


def _card_block(at) -> str:
    """The strategy cards (one HTML block)."""
    (block,) = [h for h in _linked_html(at) if "drag-card" in h]
    return block


def _below(at) -> str:
    """The kept-vs-sensitivity panels of the open tab (one HTML block)."""
    (block,) = [h.proto.body for h in at.get("html") if "drag-kvs" in h.proto.body]
    return block


def _cards(at) -> list[str]:
    return re.findall(r'data-strategy="([^"]+)"', _card_block(at))


def test_the_first_screen_takes_its_defaults_from_the_library(open_app, small_index_copy: Path) -> None:
    at = open_app(small_index_copy, COMPARE)
    no_exceptions(at)
    defaults = SearchParams()
    assert at.title[0].value == "Compare strategies"
    assert at.selectbox(key="knee_method").value == defaults.knee_method
    sensitivity = slider = at.select_slider(key=f"sensitivity_{defaults.knee_method}")
    assert slider.value == defaults.sensitivity == 0.5
    assert [float(o) for o in slider.options] == list(SENSITIVITIES["relative"])
    assert at.slider(key="keep_range").value == (defaults.min_keep, defaults.max_keep) == (1, 20)
    assert at.radio(key="score_source").value == defaults.score_source
    for knob in ("top_k", "roots", "beam_width", "rrf_k", "doc_breadth"):
        assert at.slider(key=knob).value == getattr(defaults, knob)
    for key, knob in KNOBS.items():  # every knob of the registry, as its widget, with its label and range
        kind = {Widget.SLIDER: "slider", Widget.RANGE: "slider", Widget.SELECT: "selectbox"}.get(knob.widget)
        widgets = at.get(kind or knob.widget)
        (shown,) = [w for w in widgets if w.key == (sensitivity.key if key == "sensitivity" else key)]
        assert shown.label == knob.label, key
        if kind == "slider":
            assert (shown.proto.min, shown.proto.max, shown.proto.step) == (*knob.bounds, knob.step), key
        if knob.choices:  # every choice the detector is offered with (a radio shows them in words)
            offered = {"knee_method": OFFERED_METHODS, "score_source": offered_curves(defaults.knee_method)}
            assert len(shown.options) == len(offered.get(key, knob.choices)), key
    for knob in ("top_k", "roots", "beam_width", "doc_breadth"):  # what it does, then who reads it
        slider = at.slider(key=knob)
        assert slider.label == KNOBS[knob].label
        assert slider.help == f"{KNOBS[knob].does} Read by {', '.join(readers(knob))}."
    assert at.slider(key="roots").label == "Seed pages (adaptive) / roots (branch, beam)"
    assert at.slider(key="rrf_k").help.endswith("Read by every strategy.")
    knee_knobs = {"knee_method": at.selectbox(key="knee_method"), "keep_range": at.slider(key="keep_range")}
    knee_knobs |= {"sensitivity": sensitivity, "score_source": at.radio(key="score_source")}
    for key, widget in knee_knobs.items():  # what it does, who reads it, that knee-beam does not follow it
        assert widget.help.startswith(KNOBS[key].does) and " Read by " in widget.help, key
        assert widget.help.endswith(PINNED), key
    assert "The relative detector's S: keeps every item within S × (top − mean)" in sensitivity.help
    assert at.multiselect(key="strategies").value == DEFAULT
    assert {"flat", "flat-knee", "branch", "beam", "adaptive"} <= set(DEFAULT)
    assert at.text_input(key="query").value == ""
    assert any("Type a question" in i.value for i in at.info)
    assert defaults.sensitivity in SENSITIVITIES[defaults.knee_method]


def test_a_question_in_the_address_is_asked_on_opening(open_app, small_index_copy: Path) -> None:
    at = open_app(small_index_copy)
    at.query_params["q"] = QUERY
    at.switch_page(COMPARE).run()
    no_exceptions(at)
    assert at.text_input(key="query").value == QUERY
    assert _cards(at) == DEFAULT


def test_the_panels_first_draw_settles_the_heap(
    open_app, small_index_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A knob step reruns only the Compare panel, never ``ui.page`` (which settles from a page's second run):
    unsettled, every step paid a full ``gc.collect()`` of the models and the index."""
    from drag_core.app.ui import frame

    monkeypatch.setattr(frame, "_ran", set())
    frame.settle_heap.clear()
    gc.unfreeze()
    at = open_app(small_index_copy)
    at.query_params["q"] = QUERY
    at.switch_page(COMPARE).run()  # the page's first run in this process
    no_exceptions(at)
    assert gc.get_freeze_count() > 0


def test_the_address_sets_the_whole_view_and_keeps_following_it(open_app, small_index_copy: Path) -> None:
    at = open_app(small_index_copy)
    chosen = SENSITIVITIES["relative"][1]  # not the default
    asked_for = {"q": QUERY, "strategies": "adaptive,nope,flat", "top_k": "7", "knee_method": "relative"}
    asked_for |= {
        "sensitivity": f"{chosen:g}",
        "min_keep": "2",
        "max_keep": "4",
        "rrf_k": "999",
        "score_source": "rrf",
    }
    for name, value in asked_for.items():
        at.query_params[name] = value
    at.switch_page(COMPARE).run()
    no_exceptions(at)
    assert at.text_input(key="query").value == QUERY
    assert at.multiselect(key="strategies").value == ["adaptive", "flat"] and _cards(at) == [
        "adaptive",
        "flat",
    ]
    assert at.slider(key="top_k").value == 7 and at.slider(key="keep_range").value == (2, 4)
    assert at.selectbox(key="knee_method").value == "relative"
    assert (
        at.select_slider(key="sensitivity_relative").value == chosen
    )  # the slider of the address's detector
    assert at.radio(key="score_source").value == "rrf"
    assert at.slider(key="rrf_k").value == SearchParams().rrf_k  # out of its range: not taken …
    (note,) = [w.value for w in at.warning if "address asked for" in w.value]
    assert "strategies=nope" in note and "rrf\\_k=999" in note  # … and said
    address = {
        k: at.query_params[k][-1] if isinstance(at.query_params[k], list) else at.query_params[k]
        for k in at.query_params
    }
    assert set(address) == {"q", "strategies", *ADDRESS_KNOBS}  # every knob, in the address now
    assert address["strategies"] == "adaptive,flat" and address["top_k"] == "7" and address["rrf_k"] == "60"
    assert address["knee_method"] == "relative" and address["sensitivity"] == f"{chosen:g}"

    at.text_input(key="query").set_value("How many stores?").run()  # the address follows the question
    assert at.query_params["q"] in ("How many stores?", ["How many stores?"])
    assert [b.label for b in at.button if b.key.startswith("history_")] == [QUERY]
    at.button(key="history_0").click().run()  # the earlier question, asked again in one click
    no_exceptions(at)
    assert at.text_input(key="query").value == QUERY
    assert at.session_state["comparison"].query == QUERY


def test_strategies_side_by_side_with_files_curves_overlap_and_exports(compared) -> None:
    at = compared
    comparison = at.session_state["comparison"]
    assert _cards(at) == DEFAULT
    block = _card_block(at)
    for name, run in comparison.runs.items():
        card = block.split(f'data-strategy="{name}"', 1)[1].split('class="drag-card"', 1)[0]
        nodes, pages = len(run.result.nodes), run.pages
        assert f"<b>{nodes}</b> node{'s' * (nodes != 1)} · <b>{pages}</b> page{'s' * (pages != 1)}" in card
        for node in run.result.nodes:
            assert html.escape(node.file_name) in card
    figures = _figures(at)
    assert len(figures) == 2  # the overlap heatmap, then the steps of the open tab only
    assert figures[0]["data"][0]["type"] == "heatmap"
    assert {"RRF (fused)", "knee"} <= {trace.get("name") for trace in figures[1]["data"]}
    assert "kept vs sensitivity" in _below(at) and 'class="kvs"' in _below(at)
    assert [t.label for t in at.tabs] == DEFAULT
    assert sum("drag-steps" in h.proto.body for h in at.get("html")) == 1  # the open tab's step table
    assert [b.label for b in at.download_button] == [
        "my-labels.zip",
        "comparison.json",
        "metrics.csv",
        "nodes.csv",
        "trace.csv",
    ]
    assert comparison.query == QUERY


def test_moving_a_knee_slider_reruns_only_the_knee_strategies(compared) -> None:
    at = compared
    comparer = at.session_state["comparer"]
    assert (comparer.misses, comparer.hits) == (len(DEFAULT), 0)
    before = at.session_state["comparison"]
    top = SENSITIVITIES["relative"][-1]
    at.select_slider(key="sensitivity_relative").set_value(top).run()
    no_exceptions(at)
    readers = [s for s in DEFAULT if "sensitivity" in STRATEGIES[s].params]
    assert "adaptive" in readers and "flat-knee" in readers and "flat" not in readers
    assert comparer.misses == len(DEFAULT) + len(readers)
    assert comparer.hits == len(DEFAULT) - len(readers)
    after = at.session_state["comparison"]
    assert after.params.sensitivity == top
    for name in DEFAULT:
        assert (after.runs[name] is before.runs[name]) == (name not in readers)
    assert after.runs["adaptive"].pages > before.runs["adaptive"].pages  # the slider's top keeps more
    current = re.findall(r'data-sensitivity="([^"]+)"', _below(at))
    assert current and all(float(s) == top for s in current)

    at.slider(key="keep_range").set_value((2, 6)).run()
    at.slider(key="beam_width").set_value(3).run()
    at.radio(key="score_source").set_value("rrf").run()
    no_exceptions(at)
    params = at.session_state["comparison"].params
    assert (params.min_keep, params.max_keep, params.beam_width, params.score_source) == (2, 6, 3, "rrf")
    assert "cosine (sorted)" not in json.dumps(_figures(at)[1])
    at.selectbox(key="knee_method").set_value("chord").run()  # offered on the dense curve only
    no_exceptions(at)
    params = at.session_state["comparison"].params
    assert (params.knee_method, params.score_source) == ("chord", "dense")
    chord = at.select_slider(key="sensitivity_chord")  # the detector's own values, from its own default
    assert [float(o) for o in chord.options] == list(SENSITIVITIES["chord"])
    assert chord.value == params.sensitivity == DEFAULT_SENSITIVITIES["chord"]
    at.selectbox(key="knee_method").set_value("relative").run()
    no_exceptions(at)
    assert at.select_slider(key="sensitivity_relative").value == top  # remembered per detector
    assert at.session_state["comparison"].params.sensitivity == top


def test_the_roots_choice_reruns_the_walks_from_the_other_ranking(compared, small_engine) -> None:
    at = compared
    before = at.session_state["comparison"]
    assert before.params.root_rank == "best-page"
    at.radio(key="root_rank").set_value("root-vectors").run()
    no_exceptions(at)
    after = at.session_state["comparison"]
    assert after.params.root_rank == "root-vectors"
    walks = {"branch", "beam", "knee-beam"}
    for name in DEFAULT:  # only the walks read it
        assert (after.runs[name] is before.runs[name]) == (name not in walks), name
    for name in walks & set(DEFAULT):  # each walk's first ranking is the one the choice names (same index)
        for run, rank in ((before.runs[name], "best-page"), (after.runs[name], "root-vectors")):
            expected = small_engine.search(QUERY, name, run.result.params.with_(root_rank=rank)).trace[0]
            assert [c.id for c in run.result.trace[0].candidates] == [c.id for c in expected.candidates]
    cosines = [
        [c.dense_score for c in runs.runs["branch"].result.trace[0].candidates] for runs in (before, after)
    ]
    assert cosines[0] != cosines[1]  # the best pages' cosines, then the roots' own
    assert at.query_params["root_rank"] in ("root-vectors", ["root-vectors"])


def test_knobs_survive_a_page_switch(compared) -> None:
    at = compared
    chosen = SENSITIVITIES["relative"][2]
    at.select_slider(key="sensitivity_relative").set_value(chosen).run()
    at.multiselect(key="strategies").set_value(["flat", "adaptive"]).run()
    at.switch_page("pages/tree.py").run()
    no_exceptions(at)
    at.switch_page(COMPARE).run()
    no_exceptions(at)
    assert at.select_slider(key="sensitivity_relative").value == chosen
    assert at.text_input(key="query").value == QUERY
    assert at.multiselect(key="strategies").value == ["flat", "adaptive"]
    assert _cards(at) == ["flat", "adaptive"]


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
    (block,) = [h for h in _linked_html(at) if 'class="drag-answer"' in h]
    shown = html.unescape(re.sub(r"<style>.*?</style>|<[^>]+>", " ", block, flags=re.S))
    assert shown.split() == answers[-1].replace("[", " [").replace("]", "] ").split(), "the answer as it came"
    page = run.context[0]
    cited = f"[{page.file_name} p.{page.page_start}]"
    if cited in answers[-1]:  # a citation of a page it was given opens that page
        assert html.escape(json.dumps({"file": page.file_name, "page": page.page_start}), quote=True) in block
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


def test_the_knee_menus_offer_no_detector_on_a_curve_where_its_slider_is_dead(
    open_app, small_index_copy: Path
) -> None:
    at = open_app(small_index_copy, COMPARE)
    no_exceptions(at)
    assert any(WITHDRAWN.values()), "issue 28 withdrew some detector × curve combinations"
    assert list(at.selectbox(key="knee_method").options) == list(OFFERED_METHODS)
    for method in OFFERED_METHODS:
        at.selectbox(key="knee_method").set_value(method).run()
        no_exceptions(at)
        curve = at.radio(key="score_source")
        assert len(curve.options) == len(offered_curves(method)), method  # shown in words
        assert curve.value in offered_curves(method), method
        for source, why in WITHDRAWN[method].items():
            assert why in curve.help, (method, source)
    withdrawn = [(m, c) for m in OFFERED_METHODS for c in WITHDRAWN[m]]
    for method, source in withdrawn[:1]:  # an address asking for a withdrawn curve gets the detector alone
        at = open_app(small_index_copy)
        at.query_params["knee_method"], at.query_params["score_source"] = method, source
        at.switch_page(COMPARE).run()
        no_exceptions(at)
        assert at.selectbox(key="knee_method").value == method
        assert at.radio(key="score_source").value in offered_curves(method)
        assert any(f"score\\_source={source}" in w.value for w in at.warning)  # said


def test_the_neighbours_slider_reruns_only_adaptive_and_moves_its_pages(compared) -> None:
    at = compared
    pages = {}
    for value in (0, 20):
        at.slider(key="neighbours").set_value(value).run()
        no_exceptions(at)
        comparison = at.session_state["comparison"]
        assert comparison.params.neighbours == value
        pages[value] = comparison.runs["adaptive"].pages
    readers = [s for s in DEFAULT if "neighbours" in STRATEGIES[s].params]
    assert readers == ["adaptive"]
    assert pages[20] > pages[0]  # a filing's neighbouring pages among the ranking's first 20
