"""The knee made readable, as data: why each ranking was cut where it was, what happened to every candidate,
and how the cut moves with the sensitivity. No drawing here (the app draws it: ``drag_core.app.figures``).

A knee cut keeps ``knee + 1`` items (or every item when no knee is found), raised to ``min_keep`` and lowered
to a cap: ``max_keep`` or the strategy's own (``adaptive`` keeps at most ``roots`` seed pages). :func:`explain`
says which of these set the cut, so a view never calls a cap's cut the knee's.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from drag_core.knee import find_knee
from drag_core.params import ScoreSource, SearchParams
from drag_core.search.base import SearchResult, Step, StepKind
from drag_core.text import counted, page_span

__all__ = [
    "NAMED_DOCUMENTS",
    "SENSITIVITIES",
    "WHOLE_INDEX",
    "CutReason",
    "CutRule",
    "Fate",
    "explain",
    "fates",
    "kept_by_sensitivity",
    "reads_cosine",
    "step_rows",
    "step_title",
]

#: The sensitivities the slider offers: dense where Kneedle's knees move on typical curves (docs/knee.md,
#: "The Sensitivity slider").
SENSITIVITIES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0)


class CutRule(StrEnum):
    """Which rule set a ranking's cut."""

    KNEE = "knee"  # cut at the knee
    NO_KNEE = "no-knee"  # none found: every item kept
    MAX_KEEP = "max-keep"  # max_keep cut before the knee
    CAP = "cap"  # the strategy's own cap (roots, beam width) cut before the knee
    MIN_KEEP = "min-keep"  # raised above the knee to min_keep
    NONE = "none"  # no knee cut: a fixed k or the parent/child rule decided


class Fate(StrEnum):
    """What happened to one candidate of a ranking."""

    KEPT = "kept"
    DROPPED = "dropped"  # within the cut, but suppressed (parent/child) or not followed
    KNEE = "knee"  # cut by the knee
    CAP = "cap"  # cut by a cap though the knee would have kept it
    COVERED = "covered"  # breadth: not added, its document is in the answer already


@dataclass(frozen=True)
class CutReason:
    """Why a ranking kept what it kept.

    Attributes:
        rule: which rule set the cut (``CutRule``).
        knee_rank: 1-based rank of the knee, None when none was found or used.
        kept: how many leading items the cut kept (None: no cut).
        natural: how many the knee alone would keep (every item without a knee).
        text: the reason in words, e.g. ``knee at 38, capped at 3 by roots → kept 3``.
    """

    rule: CutRule
    knee_rank: int | None
    kept: int | None
    natural: int | None
    text: str

    @property
    def capped(self) -> bool:
        return self.rule in (CutRule.MAX_KEEP, CutRule.CAP)


def _cap_name(most: int, params: SearchParams) -> str:
    if most == params.max_keep:
        return "max-keep"
    for name in ("roots", "beam_width"):
        if most == getattr(params, name):
            return name.replace("_", " ")
    return "the strategy's cap"


def explain(step: Step, params: SearchParams) -> CutReason:
    """Which rule set the step's cut: the knee, a cap, min-keep, or no knee at all."""
    n = len(step.curve)
    if step.cut is None:
        if step.kind is StepKind.BREADTH:
            added = len(step.kept)
            return CutReason(
                CutRule.NONE, None, None, None, f"no knee cut → added {counted(added, 'document')}"
            )
        return CutReason(CutRule.NONE, None, None, None, "no knee cut")
    knee = None if step.knee_index is None else step.knee_index + 1
    natural = n if knee is None else knee
    found = "no knee found" if knee is None else f"knee at {knee}"
    if step.cut < natural:
        name = _cap_name(step.cut, params)
        rule = CutRule.MAX_KEEP if name == "max-keep" else CutRule.CAP
        text = f"{found}, capped at {step.cut} by {name} → kept {step.cut}"
        return CutReason(rule, knee, step.cut, natural, text)
    if step.cut > natural:
        text = f"{found}, raised to min-keep {step.cut}"
        return CutReason(CutRule.MIN_KEEP, knee, step.cut, natural, text)
    if knee is None:
        return CutReason(CutRule.NO_KNEE, None, step.cut, natural, f"no knee found → kept all {step.cut}")
    return CutReason(CutRule.KNEE, knee, step.cut, natural, f"knee at {knee} → kept {step.cut}")


def fates(step: Step, reason: CutReason) -> list[Fate]:
    """What happened to each candidate, in ranking order: kept; dropped by the strategy (suppressed, not
    followed); cut by the knee; or cut by a cap though the knee would have kept it. A breadth step adds the
    pages of the documents the answer lacks; every other page of it was covered (its document is there)."""
    kept = set(step.kept)
    if step.kind is StepKind.BREADTH:
        return [Fate.KEPT if c.id in kept else Fate.COVERED for c in step.candidates]
    cut = len(step.candidates) if reason.kept is None else reason.kept
    natural = cut if reason.natural is None else reason.natural
    out = []
    for i, c in enumerate(step.candidates):
        if c.id in kept:
            out.append(Fate.KEPT)
        elif i < cut:
            out.append(Fate.DROPPED)
        else:
            out.append(Fate.CAP if reason.capped and i < natural else Fate.KNEE)
    return out


def kept_by_sensitivity(step: Step, params: SearchParams) -> tuple[list[float], list[int], list[int | None]]:
    """For each slider sensitivity: how many items the step's cut would keep, and the knee's rank (None: no
    knee), on the step's own curve with its own bounds. Microseconds per value: the curve is in memory."""
    grid = list(SENSITIVITIES)
    kept, knees = [], []
    for s in grid:
        found = find_knee(step.curve, params.knee_method, s, step.least, step.most)
        kept.append(found.keep)
        knees.append(None if found.knee_index is None else found.knee_index + 1)
    return grid, kept, knees


#: Steps that rank the whole index: every document takes part, whichever the best results come from.
WHOLE_INDEX = frozenset({StepKind.ROOTS, StepKind.LEAVES, StepKind.SEEDS, StepKind.BREADTH})
#: At most this many documents are named in a step's title (more are counted).
NAMED_DOCUMENTS = 2


def step_title(step: Step) -> str:
    """Plain-text name of a step with the documents it ranked: a ``PARENT`` step by the parent's pages and
    level and its file (``parent p.1–30 (L3) · R-data.pdf``), a step over the whole index ``(all
    documents)``, any other by the files of its candidates (counted beyond ``NAMED_DOCUMENTS``)."""
    name = step.name
    if step.kind is StepKind.PARENT:
        parent = next((c for c in step.candidates if c.id == step.node_id), None)
        if parent is not None:
            name = f"parent {page_span(parent.page_start, parent.page_end)} (L{parent.level})"
    files = list(dict.fromkeys(c.file_name for c in step.candidates))
    if step.kind in WHOLE_INDEX:
        return name if "all documents" in name else f"{name} (all documents)"
    if not files or any(f in name for f in files):
        return name
    named = ", ".join(files) if len(files) <= NAMED_DOCUMENTS else counted(len(files), "document")
    return f"{name} · {named}"


def step_rows(result: SearchResult) -> list[dict[str, str | int]]:
    """One row per step: what was ranked, the knee, the cut and why, how many were kept (text cells where a
    value may be missing, so a column never mixes numbers and dashes)."""
    rows = []
    for step in result.trace:
        why = explain(step, result.params)
        rows.append(
            {
                "step": step_title(step),
                "ranked": len(step.candidates),
                "knee at": "—" if why.knee_rank is None else str(why.knee_rank),
                "cut": why.text,
                "kept": len(step.kept),
                "ms": f"{step.ms:.1f}",
            }
        )
    return rows


def reads_cosine(step: Step, params: SearchParams) -> bool:
    """Whether the step's knee was found on the sorted cosines rather than on the fused ranking."""
    return bool(step.curve) and params.score_source is ScoreSource.DENSE
