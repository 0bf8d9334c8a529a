"""Why each cut is where it is (``drag_core.search.explain``), kept-vs-sensitivity lines and the step figures
(``drag_core.app.figures``), on hand-built steps (every rule) and on real searches of a real index."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest

from drag_core.app.compare import Comparer, Comparison
from drag_core.app.figures.sensitivity import sensitivity_html
from drag_core.app.figures.steps import LINE_CHARS, _ticks, steps_figure
from drag_core.engine import Engine
from drag_core.knee import SENSITIVITIES, find_knee
from drag_core.search import SearchParams, SearchResult
from drag_core.search.base import Step, StepKind
from drag_core.search.explain import explain, fates, kept_by_sensitivity, step_rows, step_title
from drag_core.store import Candidate

QUERY = "What was net sales growth in the fourth quarter?"
CURVE = [0.9, 0.85, 0.5, 0.45, 0.42, 0.4, 0.38, 0.37, 0.36, 0.35]


def _candidates(n: int) -> list[Candidate]:
    return [
        Candidate(i, -1, (), 0, "f.pdf", i, i, 1.0 / (60 + i), i, i, 0.9 - i / 100) for i in range(1, n + 1)
    ]


def _step(
    knee_index: int | None,
    cut: int,
    least: int = 1,
    most: int | None = 10,
    kept: int | None = None,
    bound: str = "none",
    kept_by: str = "",
    method: str = "kneedle",
) -> Step:
    """A step as ``SearchContext.knee_cut`` records it (the bound is what the cutting code wrote)."""
    candidates = _candidates(len(CURVE))
    return Step(
        "leaves",
        candidates,
        curve=list(CURVE),
        curve_source="dense",
        method=method,
        sensitivity=1.0,
        knee_index=knee_index,
        natural=len(CURVE) if knee_index is None else knee_index + 1,
        cut=cut,
        least=least,
        most=most,
        bound=bound,
        bound_value=None if bound == "none" else cut,
        kept=[c.id for c in candidates[: cut if kept is None else kept]],
        kept_by=kept_by,
    )


@pytest.fixture(scope="module")
def comparison(small_engine: Engine) -> Comparison:
    strategies = ["flat", "flat-knee", "branch", "beam", "knee-beam", "adaptive"]
    return Comparer().compare(small_engine, QUERY, strategies, SearchParams())


def test_each_rule_of_a_cut_is_named() -> None:
    assert explain(_step(3, 4)).rule == "knee"
    assert explain(_step(3, 4)).text == "knee at 4 → kept 4"
    capped = explain(_step(7, 3, most=3, bound="roots"))
    assert (capped.rule, capped.knee_rank, capped.natural) == ("cap", 8, 8)
    assert capped.text == "knee at 8 → capped at 3 by roots → kept 3"
    assert explain(_step(None, 10, most=10)).rule == "no-knee"
    assert explain(_step(None, 10, most=10)).text == "no knee found → kept all 10"
    by_max = explain(_step(None, 5, most=5, bound="max_keep"))
    assert (by_max.rule, by_max.text) == ("max-keep", "no knee found → capped at 5 by max-keep → kept 5")
    raised = explain(_step(0, 2, least=2, bound="min_keep"))
    assert (raised.rule, raised.text) == ("min-keep", "knee at 1 → raised to 2 by min-keep → kept 2")
    assert explain(Step("roots", _candidates(3))).rule == "none"
    breadth = Step("breadth: flat top-5", _candidates(5), kind=StepKind.BREADTH)
    breadth.keep(breadth.candidates[1:2])
    assert explain(breadth).text == "no knee cut → added 1 document"
    breadth.keep(breadth.candidates[1:3])
    assert explain(breadth).text == "no knee cut → added 2 documents"


def test_the_recorded_bound_names_the_cap_even_when_two_caps_are_equal() -> None:
    """roots = max_keep = 5: only the code that cut knows which one bound (a guess from the parameters
    called both max-keep)."""
    assert explain(_step(7, 5, most=5, bound="roots")).text == "knee at 8 → capped at 5 by roots → kept 5"
    assert explain(_step(7, 5, most=5, bound="beam_width")).text.endswith("by beam width → kept 5")


def test_the_cut_and_what_the_strategy_kept_after_it_are_both_said() -> None:
    step = _step(6, 5, most=5, kept=3, bound="max_keep", kept_by="suppression")
    why = explain(step)
    assert why.text == "knee at 7 → capped at 5 by max-keep → 3 kept after suppression"
    assert (why.kept, why.survivors) == (5, 3)
    row = step_rows(SearchResult("knee-beam", "q", [], {}, [step], 1.0, 1, SearchParams()))[0]
    assert (row["kept"], row["cut"], row["knee rule"]) == (3, why.text, "kneedle S=1 on cosine")


def test_a_long_step_name_is_wrapped_in_its_panel_title_never_cut() -> None:
    name = "pages of " + ", ".join(f"FILING_{i}_2023_10K.pdf" for i in range(4))
    step = Step(name, _candidates(5), kind=StepKind.PAGES)
    result = SearchResult("adaptive", "q", [], {}, [step], 1.0, 1, SearchParams())
    (title,) = [a.text for a in steps_figure(result).layout.annotations if a.text]
    lines = re.findall(r"<b>(.*?)</b>", title)
    assert len(lines) > 1 and all(len(line) <= LINE_CHARS for line in lines)
    assert "".join(lines).replace(" ", "") == step_title(step).replace(" ", ""), "every character is shown"
    assert "…" not in title and step_rows(result)[0]["step"] == step_title(step)


def test_fates_tell_a_cap_from_the_knee_and_suppression_from_both() -> None:
    step = _step(5, 3, most=3, kept=2, bound="roots")  # the knee would keep 6; roots 3; the strategy kept 2
    found = fates(step, explain(step))
    assert found == ["kept", "kept", "dropped", "cap", "cap", "cap", "knee", "knee", "knee", "knee"]
    plain = _step(2, 3)
    assert fates(plain, explain(plain)) == ["kept"] * 3 + ["knee"] * 7


def test_a_breadth_step_tells_added_pages_from_covered_ones() -> None:
    breadth = Step("breadth: flat top-5", _candidates(5), kind=StepKind.BREADTH)
    breadth.keep(breadth.candidates[3:4])
    assert fates(breadth, explain(breadth)) == ["covered"] * 3 + ["kept", "covered"]
    breadth.keep([])
    reason = explain(breadth)
    assert reason.text.endswith("added 0 documents") and set(fates(breadth, reason)) == {"covered"}


@pytest.mark.parametrize("method", ["kneedle", "relative", "chord"])
def test_kept_by_sensitivity_is_find_knee_on_the_steps_own_curve_detector_and_bounds(method: str) -> None:
    step = _step(1, 2, least=1, most=4, method=method)
    grid, kept, knees = kept_by_sensitivity(step)
    assert grid == list(SENSITIVITIES[method])  # the recorded detector's own slider values
    for s, k, r in zip(grid, kept, knees, strict=True):
        found = find_knee(CURVE, method, s, 1, 4)
        assert k == found.keep and 1 <= k <= 4
        assert r == (None if found.knee_index is None else found.knee_index + 1)
    assert len(set(kept)) > 1  # the line moves across the slider's range on this curve
    assert kept_by_sensitivity(Step("roots", _candidates(3))) == ([], [], [])


def test_the_slider_values_move_the_knee_on_real_curves(comparison: Comparison) -> None:
    moved = 0
    for run in comparison.runs.values():
        for step in run.result.trace:
            if step.curve:
                _, kept, knees = kept_by_sensitivity(step)
                moved += len(set(knees)) > 1
    assert moved >= 1


def test_the_figure_draws_rrf_and_the_cosine_the_knee_read_with_the_knee_on_it(
    comparison: Comparison,
) -> None:
    result = comparison.runs["adaptive"].result
    assert result.params.score_source == "dense"
    figure = steps_figure(result)
    names = {t.name for t in figure.data}
    assert {
        "RRF (fused)",
        "cosine (sorted), read by the knee",
        "knee",
        "kept",
    } <= names
    knees = [t for t in figure.data if t.name == "knee"]
    with_knee = [s for s in result.trace if s.knee_index is not None]
    assert len(knees) == len(with_knee)
    for trace, step in zip(knees, with_knee, strict=True):
        assert list(trace.x) == [step.knee_index + 1]
        assert list(trace.y) == [step.curve[step.knee_index]]  # on the cosine curve, where it was found
    rrf = [t for t in figure.data if t.name == "RRF (fused)"]
    assert len(rrf) == len(result.trace)
    for trace, step in zip(rrf, result.trace, strict=True):
        assert list(trace.y) == [c.fused for c in step.candidates]
    titles = [a.text for a in figure.layout.annotations if a.text]
    for step in result.trace:
        why = explain(step)
        assert any(why.text.replace(" → ", "<br>→ ") in t for t in titles)  # the outcome on its own line
    below = sensitivity_html(result)
    knee_steps = [s for s in result.trace if s.curve]
    lines = [unquote(src) for src in re.findall(r'src="data:image/svg\+xml,([^"]+)"', below)]
    current = re.findall(r'data-sensitivity="([^"]+)" data-kept="(\d+)"', below)
    assert len(lines) == len(current) == len(knee_steps)
    for line, (now_s, now_kept), step in zip(lines, current, knee_steps, strict=True):
        assert line.count("<circle") == len(SENSITIVITIES[step.method])
        assert float(now_s) == result.params.sensitivity == step.sensitivity and int(now_kept) == step.cut
    assert "sensitivity" not in str(figure.to_dict())  # the curves do not change with S unless a cut does


def test_a_knee_beam_panel_draws_the_rrf_curve_its_knee_read_on_the_rrf_axis(comparison: Comparison) -> None:
    """knee-beam reads the fused curve whatever ``score_source`` says (here ``dense``): its knee is starred on
    the RRF axis, no cosine curve is claimed, and each title says the cut and how many survived it."""
    result = comparison.runs["knee-beam"].result
    assert result.params.score_source == "dense"
    figure = steps_figure(result)
    assert "cosine (sorted), read by the knee" not in {t.name for t in figure.data}
    layout = figure.to_dict()["layout"]
    assert not [k for k, v in layout.items() if k.startswith("yaxis") and "overlaying" in v]  # no cosine axis
    knees = [t for t in figure.data if t.name == "knee"]
    with_knee = [s for s in result.trace if s.knee_index is not None]
    assert knees and len(knees) == len(with_knee)
    for trace, step in zip(knees, with_knee, strict=True):
        assert step.curve_source == "rrf"
        panel = result.trace.index(step)
        assert trace.yaxis == ("y" if panel == 0 else f"y{2 * panel + 1}")  # the panel's RRF axis
        assert list(trace.y) == [step.candidates[step.knee_index].fused]
        assert "RRF curve" in trace.hovertext[0]
    for row, step in zip(step_rows(result), result.trace, strict=True):
        assert row["knee rule"] == "kneedle S=1 on RRF"
        outcome = row["cut"].split(" → ")[-1]  # "kept N", "kept all N" or "N kept after …"
        assert int(re.search(r"\d+", outcome).group()) == len(step.kept) == row["kept"]
    assert any(len(s.kept) < s.cut for s in result.trace), "a generation whose suppression kept fewer"


def test_a_flat_panel_draws_its_rrf_curve_without_a_knee(comparison: Comparison) -> None:
    result = comparison.runs["flat"].result
    figure = steps_figure(result)
    assert [t.name for t in figure.data if t.mode == "lines"] == ["RRF (fused)"]
    assert not [t for t in figure.data if t.name == "knee"]
    assert sensitivity_html(result) is None
    assert any("no knee cut" in a.text for a in figure.layout.annotations)


def test_y_ticks_are_distinct_at_the_scale_of_rrf_scores() -> None:
    fused = [1 / (61 + i) for i in range(10)]  # 0.0164 … 0.0141
    fmt = _ticks(fused)["tickformat"]
    spread = fused[0] - fused[-1]
    labels = {format(fused[-1] + spread * i / 4, fmt) for i in range(5)}
    assert len(labels) == 5


def test_step_rows_never_mix_numbers_and_dashes(comparison: Comparison) -> None:
    for run in comparison.runs.values():
        rows = step_rows(run.result)
        assert [r["ranked"] for r in rows] == [len(s.candidates) for s in run.result.trace]
        assert all(isinstance(r["knee at"], str) for r in rows)
    branch = step_rows(comparison.runs["branch"].result)
    parents = [r["step"] for r in branch if r["step"].startswith("parent")]
    assert parents and all("p." in p and "(L" in p for p in parents)


def test_document_text_is_escaped_in_the_figure() -> None:
    candidate = Candidate(1, -1, (), 0, "<script>x</script>.pdf", 1, 1, 0.5, 1, 1, 0.9)
    result = SearchResult(
        "flat", "q", [], {1: 0.5}, [Step("leaves", [candidate], kept=[1])], 1.0, 1, SearchParams()
    )
    hovers = [h for t in steps_figure(result).data if t.hovertext for h in t.hovertext]
    assert hovers and all("<script>" not in h for h in hovers)
    assert any("&lt;script&gt;" in h for h in hovers)


def test_only_the_outer_panels_of_a_row_name_their_axes(comparison: Comparison) -> None:
    result = comparison.runs["adaptive"].result
    assert len(result.trace) == 3  # seeds, pages, breadth: one row
    layout = steps_figure(result).to_dict()["layout"]
    named = {k: v["title"]["text"] for k, v in layout.items() if k.startswith("yaxis") and v.get("title")}
    assert {"yaxis2", "yaxis4"} <= set(layout) and "yaxis6" not in layout  # cosine axes: not for breadth
    # two panels a row: seeds and pages share the first, breadth starts the second
    assert named == {"yaxis": "RRF", "yaxis4": "cosine", "yaxis5": "RRF"}
