"""The search knobs, one entry each: how the CLI, the address and the app offer a ``SearchParams`` field.

``SearchParams`` (``drag_core/params.py``) holds a knob's default and its technical words (the CLI's help);
an entry here holds the rest — its flag, its app label and one-sentence help, its widget and range or choices,
its address key. The CLI's options, the glossary, the address and the Compare page's widgets are all built
from ``KNOBS``. Which strategies read a knob is not here: their declared ``params`` say it. No Streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from drag_core.knee import KNEE_METHODS, SENSITIVITIES, WITHDRAWN
from drag_core.params import ROOT_RANKS, SCORE_SOURCES

__all__ = [
    "ADDRESS",
    "BOUNDS",
    "CHOICES",
    "FLAGS",
    "KNOBS",
    "OFFERED_METHODS",
    "SENSITIVITY_BOUNDS",
    "Knob",
    "Widget",
    "offered",
    "offered_curves",
    "sensitivity_bounds",
    "withdrawn_words",
]


def sensitivity_bounds(method: str | None = None) -> tuple[float, float]:
    """What an address may set as the sensitivity of ``method``: from 0 to the largest value its slider offers
    (of any detector's slider when None)."""
    grids = SENSITIVITIES.values() if method is None else (SENSITIVITIES[method],)
    return (0.0, max(max(grid) for grid in grids))


SENSITIVITY_BOUNDS = sensitivity_bounds()


def offered(method: str, curve: str) -> bool:
    """Whether the app offers knee detector ``method`` on ``curve`` (a ``score_source``): not when its slider
    cannot move the answer there (``drag_core.knee.WITHDRAWN``)."""
    return method in KNEE_METHODS and curve in SCORE_SOURCES and curve not in WITHDRAWN[method]


def offered_curves(method: str) -> tuple[str, ...]:
    """The curves the app offers ``method`` on, in ``SCORE_SOURCES``' order."""
    return tuple(curve for curve in SCORE_SOURCES if offered(method, curve))


#: The detectors the app offers: those offered on at least one curve, in registry order.
OFFERED_METHODS: tuple[str, ...] = tuple(m for m in KNEE_METHODS if offered_curves(m))


def withdrawn_words(method: str | None = None) -> str:
    """Why detectors are not offered on some curves (of ``method`` alone when given), as sentences; empty when
    every curve is offered."""
    methods = KNEE_METHODS if method is None else (method,)
    said = []
    for m in methods:
        reasons: dict[str, list[str]] = {}
        for curve, why in WITHDRAWN[m].items():
            reasons.setdefault(why, []).append(curve)
        said += [f"{m} is not offered on the {' or '.join(c)} curve: {why}" for why, c in reasons.items()]
    return " ".join(said)


def _option(field: str) -> str:
    return "--" + field.replace("_", "-")


class Widget(StrEnum):
    """How the app shows a knob."""

    SLIDER = "slider"  # a number between its bounds (the walks' knobs: a change reruns the page)
    RANGE = "range"  # two numbers, its field and its ``upper``, on one slider
    SELECT = "select"  # one of its choices, in a drop-down list
    SELECT_SLIDER = "select_slider"  # the sensitivity: the detector's own values (``drag_core.knee``)
    RADIO = "radio"  # one of its choices, side by side


@dataclass(frozen=True)
class Knob:
    """One search knob.

    Attributes:
        field: the ``SearchParams`` field it sets (a range's lower end).
        label: the app's label, with the strategies it is for when that is not every one.
        does: what moving it does, in one sentence a newcomer understands.
        widget: how the app shows it (None: the CLI only).
        bounds: (least, most) of a number, in the app and in an address.
        step: the slider's step (1 for whole numbers).
        choices: the values a named knob takes.
        pinned: a knee knob, which ``knee-beam`` (the article's fixed knee) does not follow.
        upper: a range's upper end (another field, with the same bounds).
        key: the app's widget key and the glossary's (the field's name when empty).
        url: the address's keys of its fields (their names when the app shows it, else none).
        flag: the CLI option of ``field`` (``--field-name`` when empty).
    """

    field: str
    label: str = ""
    does: str = ""
    widget: Widget | None = None
    bounds: tuple[int, int] | tuple[float, float] | None = None
    step: float | None = None
    choices: tuple[str, ...] = ()
    pinned: bool = False
    upper: str = ""
    key: str = ""
    url: tuple[str, ...] | None = None
    flag: str = ""

    def __post_init__(self) -> None:
        whole = self.bounds is not None and isinstance(self.bounds[0], int)
        defaults = {
            "step": self.step if self.step is not None or not whole else 1,
            "key": self.key or self.field,
            "url": self.url if self.url is not None else self.fields if self.widget else (),
            "flag": self.flag or _option(self.field),
        }
        for name, value in defaults.items():
            object.__setattr__(self, name, value)

    @property
    def fields(self) -> tuple[str, ...]:
        """The ``SearchParams`` fields it sets: ``field``, and a range's ``upper``."""
        return (self.field, self.upper) if self.upper else (self.field,)


#: Every knob: first the Compare page's, in its order (the walks', then the knee's), then the CLI's only.
KNOBS: tuple[Knob, ...] = (
    Knob(
        "top_k",
        "Top k (flat)",
        "How many of the best-ranked pages the flat strategies return.",
        Widget.SLIDER,
        (1, 50),
    ),
    Knob(
        "roots",
        "Seed pages (adaptive) / roots (branch, beam)",
        "How many starting points a search keeps: branch and beam start from this many best documents (their "
        "root summaries), adaptive picks its documents from at most this many best pages.",
        Widget.SLIDER,
        (1, 20),
    ),
    Knob(
        "root_rank",
        "Roots ranked by (branch, beam, knee-beam)",
        "Which documents the tree walks start from: those whose best page ranks highest in the flat hybrid "
        "ranking (best-page), or those whose root's own vectors — the average meaning and all the words of its "
        "pages — rank highest, as the article does (root-vectors); with one document indexed there is one root, "
        "and both start from it.",
        Widget.RADIO,
        choices=ROOT_RANKS,
    ),
    Knob(
        "beam_width",
        "Beam width (beam)",
        "How many nodes beam carries from one level of the tree to the next; the others are dropped.",
        Widget.SLIDER,
        (1, 20),
    ),
    Knob(
        "rrf_k",
        "RRF k (fusion)",
        "How the meaning (dense) and keyword (BM25) rankings are merged: each result scores 1/(k + its rank) "
        "in each, so a small k rewards the very top of each ranking and a large k weighs ranks more evenly.",
        Widget.SLIDER,
        (1, 200),
    ),
    Knob(
        "dense_weight",
        "Meaning vs keywords (fusion)",
        "How much the meaning (dense) ranking counts against the keyword (BM25) ranking when they are merged: "
        "0.5 counts both alike, higher trusts meaning more, lower trusts keywords more (1 or 0: one ranking "
        "alone).",
        Widget.SLIDER,
        (0.0, 1.0),
        step=0.05,
    ),
    Knob(
        "doc_breadth",
        "Document breadth (adaptive)",
        "Adaptive adds the best page of every document among the first N pages of the flat ranking that its "
        "knee-cut answer lacks, so it never shows fewer documents than flat top-N (0: off).",
        Widget.SLIDER,
        (0, 20),
    ),
    Knob(
        "neighbours",
        "Neighbouring pages (adaptive)",
        "Adaptive also keeps a page next to one it kept (the page before or after, same document) when that "
        "page is among the first N of the ranking its knee cut — the rest of a section that runs over a page "
        "break; documents of one page have no neighbours (0: off).",
        Widget.SLIDER,
        (0, 20),
    ),
    Knob(
        "knee_method",
        "Knee detector",
        "How the knee — the point where a ranking's scores stop falling fast — is found: relative (every "
        "item close enough to the top score), kneedle (Satopää et al.'s method), chord (the point farthest "
        "below the line from the first score to the last) or gap (just before the largest drop); the ranking "
        "is cut there; the app offers each only on the curves where its Sensitivity slider moves the answer.",
        Widget.SELECT,
        choices=KNEE_METHODS,
        pinned=True,
        flag="--knee",  # the name the tools that call the CLI already use
    ),
    Knob(
        "sensitivity",
        "Sensitivity S",
        "How readily the detector cuts, in its own terms (below): for every detector a higher S keeps as many "
        "items or more; the small line under each knee panel shows how many items every S keeps.",
        Widget.SELECT_SLIDER,
        SENSITIVITY_BOUNDS,  # what an address may set; the slider offers the detector's own values
        pinned=True,
    ),
    Knob(
        "min_keep",
        "Kept per ranking (min – max)",
        "The fewest and the most items a knee cut keeps, whatever the knee says: safety rails, the knee sets "
        "the usual cut.",
        Widget.RANGE,
        (1, 50),
        pinned=True,
        upper="max_keep",
        key="keep_range",
    ),
    Knob(
        "score_source",
        "Curve the knee reads",
        "Which scores the knee is looked for on: the dense cosines (how close each result's meaning is to the "
        "question) or the fused RRF scores (which depend only on the ranks).",
        Widget.RADIO,
        choices=SCORE_SOURCES,
        pinned=True,
    ),
    Knob("max_iterations"),
    Knob("knee_pool"),
    Knob("span_merge"),
    Knob("passages"),
)

#: ``SearchParams`` field → its CLI option.
FLAGS: dict[str, str] = {f: k.flag if f == k.field else _option(f) for k in KNOBS for f in k.fields}
#: The address's keys → the fields they set, in the order the address lists them.
ADDRESS: dict[str, str] = {key: field for k in KNOBS for key, field in zip(k.url or (), k.fields)}
#: Field → (least, most) of every numeric knob; field → the values of every named one.
BOUNDS: dict[str, tuple[int, int] | tuple[float, float]] = {
    field: k.bounds for k in KNOBS if k.bounds for field in k.fields
}
CHOICES: dict[str, tuple[str, ...]] = {k.field: k.choices for k in KNOBS if k.choices}
