"""``drag_core.app.url_state``: the Compare view as an address and back, what an address may not set, and the
session's questions."""

from __future__ import annotations

from drag_core.app.url_state import (
    KNOBS,
    QUERY,
    STRATEGIES,
    OpenedView,
    asked,
    read_view,
    view_query,
    widget_values,
)
from drag_core.knee import KNEE_METHODS, SENSITIVITIES
from drag_core.knobs import BOUNDS, CHOICES, offered
from drag_core.params import SCORE_SOURCES, SearchParams
from drag_core.search import DEFAULT_STRATEGIES
from drag_core.search import STRATEGIES as KNOWN


def test_a_view_goes_to_an_address_and_comes_back_whole() -> None:
    params = SearchParams(
        top_k=7, roots=2, sensitivity=0.7, knee_method="relative", score_source="rrf", max_keep=9
    )
    strategies = ["adaptive", "flat", "beam"]
    address = view_query("What were net sales?", strategies, params)
    assert list(address) == [QUERY, STRATEGIES, *KNOBS]  # every knob, defaults included
    assert address["sensitivity"] == "0.7" and address["top_k"] == "7" and address["score_source"] == "rrf"
    view = read_view(address, KNOWN, BOUNDS, CHOICES)
    assert view.ignored == [] and view.query == "What were net sales?" and view.strategies == strategies
    assert SearchParams().with_(**view.knobs) == params
    assert isinstance(view.knobs["top_k"], int) and isinstance(view.knobs["sensitivity"], float)


def test_what_an_address_may_not_set_is_left_out_and_named() -> None:
    address = {
        STRATEGIES: "flat,nope,flat",
        "top_k": "0",
        "rrf_k": "x",
        "knee_method": "magic",
        "roots": "3.0",
    }
    too_high = f"{BOUNDS['sensitivity'][1] + 1:g}"  # above every detector's slider
    view = read_view(address | {"sensitivity": too_high, "doc_breadth": "0"}, KNOWN, BOUNDS, CHOICES)
    assert view.strategies == ["flat"] and view.query is None
    assert view.knobs == {"roots": 3, "doc_breadth": 0}
    assert view.ignored == [
        "strategies=nope",
        "top_k=0",
        "rrf_k=x",
        "knee_method=magic",
        f"sensitivity={too_high}",
    ]
    crossed = read_view({"min_keep": "6", "max_keep": "3"}, KNOWN, BOUNDS, CHOICES)
    assert crossed.knobs == {} and crossed.ignored == ["min_keep=6", "max_keep=3"]
    assert read_view({"unknown": "1"}, KNOWN, BOUNDS, CHOICES) == OpenedView()


def test_an_address_may_set_any_sensitivity_a_slider_offers_and_only_offered_curves() -> None:
    for method, grid in SENSITIVITIES.items():
        view = read_view({"knee_method": method, "sensitivity": f"{max(grid):g}"}, KNOWN, BOUNDS, CHOICES)
        assert view.knobs == {"knee_method": method, "sensitivity": max(grid)}, method
        above = read_view(
            {"knee_method": method, "sensitivity": f"{max(grid) * 1.01:g}"}, KNOWN, BOUNDS, CHOICES
        )
        assert above.knobs == {"knee_method": method}, method  # above this detector's slider
    largest = max(max(grid) for grid in SENSITIVITIES.values())
    assert BOUNDS["sensitivity"] == (0.0, largest)
    assert read_view({"sensitivity": f"{largest * 1.01:g}"}, KNOWN, BOUNDS, CHOICES).knobs == {}
    for method in KNEE_METHODS:
        for source in SCORE_SOURCES:
            view = read_view({"knee_method": method, "score_source": source}, KNOWN, BOUNDS, CHOICES)
            assert ("score_source" in view.knobs) == offered(method, source), (method, source)
            assert (f"score_source={source}" in view.ignored) != offered(method, source), (method, source)


def test_the_view_becomes_widget_values_with_the_kept_range_as_one() -> None:
    current = SearchParams(min_keep=2, max_keep=8)
    view = OpenedView(" q ", ["flat"], {"min_keep": 3, "top_k": 4})
    assert widget_values(view, current, "keep_range") == {
        "top_k": 4,
        "keep_range": (3, 8),  # the half the address does not set stays
        "query": " q ",
        "strategies": ["flat"],
    }
    assert widget_values(OpenedView(knobs={"max_keep": 1}), current, "range") == {"range": (2, 2)}
    assert widget_values(OpenedView(), current, "range") == {}
    assert widget_values(read_view({QUERY: " q "}, KNOWN, BOUNDS, CHOICES), current, "r") == {"query": "q"}


def test_the_questions_of_a_session_most_recent_first_each_once() -> None:
    history = asked([], "a")
    history = asked(history, "b ")
    history = asked(history, "a")
    assert history == ["a", "b"] and asked(history, "  ") == history
    assert asked([str(i) for i in range(30)], "new", kept=3) == ["new", "0", "1"]
    assert list(DEFAULT_STRATEGIES) == list(
        read_view({STRATEGIES: ",".join(DEFAULT_STRATEGIES)}, KNOWN, {}, {}).strategies or []
    )
