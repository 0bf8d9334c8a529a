"""The knee made readable, as data: why each ranking was cut where it was, what happened to every candidate,
and how the cut moves with the sensitivity. No drawing here (the app draws it: ``drag_core.app.figures``).

A knee cut keeps ``knee + 1`` items (or every item when no knee is found), raised to ``min_keep`` and lowered
to a cap: ``max_keep`` or the strategy's own (``adaptive`` keeps at most ``roots`` seed pages); then the
strategy's own rules may keep fewer (``knee-beam``'s parent/child suppression). The code that cut wrote all of
it on the step (``SearchContext.knee_cut``: the curve and its source, the rule, the detector's own count, the
bound that set the cut), so :func:`explain` only reads it and never guesses.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from drag_core.knee import SENSITIVITIES, find_knee
from drag_core.params import ScoreSource
from drag_core.search.base import Bound, SearchResult, Step, StepKind
from drag_core.text import counted, page_span

__all__ = [
    "CURVE_NAMES",
    "NAMED_DOCUMENTS",
    "WHOLE_INDEX",
    "CutReason",
    "CutRule",
    "Fate",
    "explain",
    "fates",
    "kept_by_sensitivity",
    "knee_words",
    "step_rows",
    "step_title",
]

#: How each curve a knee reads is named for people.
CURVE_NAMES = {ScoreSource.DENSE.value: "cosine", ScoreSource.RRF.value: "RRF"}
#: How each bound is named for people (a strategy cap: its field name, ``_`` as a space).
BOUND_WORDS = {Bound.MAX_KEEP.value: "max-keep", Bound.MIN_KEEP.value: "min-keep"}


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
        survivors: how many the strategy kept in the end (fewer than ``kept`` after its own rules).
        text: the reason in words, e.g. ``knee at 7 → capped at 5 by max-keep → 3 kept after parent/child
            suppression``.
    """

    rule: CutRule
    knee_rank: int | None
    kept: int | None
    natural: int | None
    survivors: int
    text: str

    @property
    def capped(self) -> bool:
        return self.rule in (CutRule.MAX_KEEP, CutRule.CAP)


def _rule(step: Step) -> CutRule:
    if step.bound == Bound.MIN_KEEP:
        return CutRule.MIN_KEEP
    if step.bound == Bound.MAX_KEEP:
        return CutRule.MAX_KEEP
    if step.bound not in (None, Bound.NONE):
        return CutRule.CAP
    return CutRule.NO_KNEE if step.knee_index is None else CutRule.KNEE


def explain(step: Step) -> CutReason:
    """Which rule set the step's cut — the knee, a cap, min-keep, or no knee at all — and how many the
    strategy kept after it, as recorded on the step."""
    survivors = len(step.kept)
    if step.cut is None:
        if step.kind is StepKind.BREADTH:
            text = f"no knee cut → added {counted(survivors, 'document')}"
            return CutReason(CutRule.NONE, None, None, None, survivors, text)
        return CutReason(CutRule.NONE, None, None, None, survivors, "no knee cut")
    rule = _rule(step)
    knee = None if step.knee_index is None else step.knee_index + 1
    natural = len(step.curve) if step.natural is None else step.natural
    parts = ["no knee found" if knee is None else f"knee at {knee}"]
    bound = BOUND_WORDS.get(step.bound or "", (step.bound or "").replace("_", " "))
    if rule in (CutRule.MAX_KEEP, CutRule.CAP):
        parts.append(f"capped at {step.cut} by {bound}")
    elif rule is CutRule.MIN_KEEP:
        parts.append(f"raised to {step.cut} by {bound}")
    if survivors < step.cut:
        parts.append(f"{survivors} kept after {step.kept_by or 'the strategy'}")
    elif survivors > step.cut:
        parts.append(f"kept {step.cut}, {survivors} with {step.kept_by or 'the strategy'}")
    elif rule is CutRule.NO_KNEE:
        parts.append(f"kept all {step.cut}")
    else:
        parts.append(f"kept {step.cut}")
    return CutReason(rule, knee, step.cut, natural, survivors, " → ".join(parts))


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


def kept_by_sensitivity(step: Step) -> tuple[list[float], list[int], list[int | None]]:
    """For each sensitivity the slider offers for the step's detector: how many items the step's cut would
    keep, and the knee's rank (None: no knee), on the step's own curve with its own detector and bounds.
    Microseconds per value: the curve is in memory. Empty lists for a step without a knee cut."""
    if step.method is None:
        return [], [], []
    grid = list(SENSITIVITIES[step.method])
    kept, knees = [], []
    for s in grid:
        found = find_knee(step.curve, step.method, s, step.least, step.most)
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


def knee_words(step: Step) -> str:
    """The rule a step's knee cut used, e.g. ``relative S=0.5 on cosine``; a dash without a knee cut."""
    if step.method is None:
        return "—"
    return f"{step.method} S={step.sensitivity:g} on {CURVE_NAMES.get(step.curve_source or '', step.curve_source)}"


def step_rows(result: SearchResult) -> list[dict[str, str | int]]:
    """One row per step: what was ranked, the knee rule, the knee, the cut and why, how many were kept (text
    cells where a value may be missing, so a column never mixes numbers and dashes)."""
    rows = []
    for step in result.trace:
        why = explain(step)
        rows.append(
            {
                "step": step_title(step),
                "ranked": len(step.candidates),
                "knee rule": knee_words(step),
                "knee at": "—" if why.knee_rank is None else str(why.knee_rank),
                "cut": why.text,
                "kept": len(step.kept),
                "ms": f"{step.ms:.1f}",
            }
        )
    return rows
