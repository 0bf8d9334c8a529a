"""The Compare view as an address: the question, the chosen strategies and every knob in the URL's query, so a
view can be shared and opened again as it was; and the questions asked in a session, most recent first.

Every knob is written, defaults included, so a link opens the same view after the defaults change. Reading an
address keeps what it understands and names what it ignores (an unknown strategy, a value out of a knob's
range), never failing the page. No Streamlit here: the page hands over its query parameters (a mapping of
names to text) and the widgets' keys get the values (``widget_values``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from drag_core.knobs import ADDRESS, BOUNDS, CHOICES, offered, sensitivity_bounds
from drag_core.params import SearchParams

__all__ = [
    "HISTORY_KEPT",
    "KNOBS",
    "QUERY",
    "STRATEGIES",
    "OpenedView",
    "asked",
    "read_view",
    "view_query",
    "widget_values",
]

QUERY, STRATEGIES = "q", "strategies"
#: The address's keys of the knobs the Compare page sets, in the order it lists them (``drag_core.knobs``).
KNOBS = tuple(ADDRESS)
HISTORY_KEPT = 20


def _text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def view_query(query: str, strategies: Sequence[str], params: SearchParams) -> dict[str, str]:
    """The address's query for a view: the question, the strategies in their order, every knob."""
    return {
        QUERY: query,
        STRATEGIES: ",".join(strategies),
        **{key: _text(getattr(params, name)) for key, name in ADDRESS.items()},
    }


@dataclass(frozen=True)
class OpenedView:
    """What an address asks for (None or absent: it does not say).

    Attributes:
        query: the question.
        strategies: the strategies, in order (unknown names left out).
        knobs: ``SearchParams`` field → value, for the knobs it sets within their ranges.
        ignored: what was not understood, as ``name=value``, for a note on the page.
    """

    query: str | None = None
    strategies: list[str] | None = None
    knobs: dict[str, Any] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)


def read_view(
    params: Mapping[str, str],
    strategies: Collection[str],
    bounds: Mapping[str, tuple[float, float]] = BOUNDS,
    choices: Mapping[str, Collection[str]] = CHOICES,
    combined: Callable[[str, str], bool] = offered,
) -> OpenedView:
    """The view an address asks for. ``strategies`` are the known ones; a numeric knob must lie in its
    ``bounds`` (least, most), a named one among its ``choices`` (by field; the registry's by default); a knob
    in neither is not read. ``min_keep`` above ``max_keep`` drops both; a sensitivity above the largest value
    of the address's detector's slider is not read, nor a curve the app does not offer that detector on
    (``combined(detector, curve)`` false)."""
    ignored = []
    names = None
    if STRATEGIES in params:
        asked_for = [n.strip() for n in params[STRATEGIES].split(",") if n.strip()]
        names = [n for n in dict.fromkeys(asked_for) if n in strategies]
        ignored += [f"{STRATEGIES}={n}" for n in asked_for if n not in strategies]
    knobs: dict[str, Any] = {}
    for key, name in ADDRESS.items():
        if key not in params:
            continue
        value = _parsed(params[key], bounds.get(name), choices.get(name))
        if value is None:
            ignored.append(f"{key}={params[key]}")
        else:
            knobs[name] = value

    def drop(*fields: str) -> None:  # read, but not to be used together: said ignored
        ignored.extend(f"{k}={params[k]}" for k, n in ADDRESS.items() if n in fields)
        for name in fields:
            knobs.pop(name)

    if knobs.get("min_keep", 0) > knobs.get("max_keep", float("inf")):
        drop("min_keep", "max_keep")
    method = knobs.get("knee_method")
    if method is not None:
        if "sensitivity" in knobs and knobs["sensitivity"] > sensitivity_bounds(method)[1]:
            drop("sensitivity")
        if "score_source" in knobs and not combined(method, knobs["score_source"]):
            drop("score_source")
    query = params.get(QUERY)
    return OpenedView(query if query is None else query.strip(), names, knobs, ignored)


def _parsed(text: str, bounds: tuple[float, float] | None, choices: Collection[str] | None) -> Any:
    """``text`` as a knob's value: one of ``choices``, or a number within ``bounds`` (an int when whole);
    None when it is neither."""
    if choices is not None:
        return text if text in choices else None
    if bounds is None:
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    if not bounds[0] <= number <= bounds[1]:
        return None
    return int(number) if number.is_integer() and isinstance(bounds[0], int) else number


def widget_values(
    view: OpenedView, current: SearchParams, keep_range: str, sensitivity: str = "sensitivity"
) -> dict[str, Any]:
    """Widget key → value for what ``view`` sets: the question under ``query``, the strategies under
    ``strategies``, the sensitivity under ``sensitivity`` (the slider of the view's detector), min/max kept as
    one range under ``keep_range`` (the half the view does not set taken from ``current``), every other knob
    under its field name."""
    values: dict[str, Any] = {k: v for k, v in view.knobs.items() if k not in ("min_keep", "max_keep")}
    if "sensitivity" in values:
        values[sensitivity] = values.pop("sensitivity")
    if "min_keep" in view.knobs or "max_keep" in view.knobs:
        least = view.knobs.get("min_keep", current.min_keep)
        most = view.knobs.get("max_keep", current.max_keep)
        values[keep_range] = (least, most) if most is None or least <= most else (least, least)
    if view.query:
        values["query"] = view.query
    if view.strategies is not None:
        values["strategies"] = view.strategies
    return values


def asked(history: Sequence[str], query: str, kept: int = HISTORY_KEPT) -> list[str]:
    """The session's questions with ``query`` asked now: most recent first, each once, at most ``kept``."""
    query = query.strip()
    if not query:
        return list(history)
    return [query, *(q for q in history if q != query)][:kept]
