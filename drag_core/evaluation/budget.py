"""Judging at equal page budget: flat hybrid top-k for k = 1…``FLAT_DEPTH`` from one ranking per query, and
each run's recall against flat's recall at the run's own mean number of pages.

A strategy that returns fewer pages should not be compared with flat top-5 but with flat at *its* budget.
``gain_vs_flat`` is the run's right-sized recall minus flat's recall interpolated at the run's mean pages
``p``, paired per query: for every query, flat's recall is interpolated linearly between top-⌊p⌋ and top-⌈p⌉
of that query's ranking (top-0 recalls nothing; beyond ``FLAT_DEPTH`` flat is read at ``FLAT_DEPTH``), and
the per-query differences are averaged with a bootstrap 95 % interval. ``gain_vs_flat_per_query`` reads flat at
each question's own pages instead: a run that returns one page more on a few questions (recall already whole
there) is not charged for flat's next page on every other question, as the mean budget charges it.

``doc_hit`` is the share of questions whose own document (the data set's ``doc`` field, read for this
diagnostic only; for passage sets the files holding a relevant passage) is among the files returned.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from drag_core.evaluation.metrics import Unit, bootstrap_interval, mean, recall_at_k

__all__ = ["FLAT_DEPTH", "FLAT_DOC_HIT_K", "BudgetJudgement", "FlatCurve", "doc_hit", "judge"]

FLAT_DEPTH = 20
FLAT_DOC_HIT_K = 5


@dataclass
class FlatCurve:
    """Flat hybrid top-k of every query, cut at each k of one ranking.

    Attributes:
        recall: query id → recall at k = 0…``FLAT_DEPTH`` (index k; k = 0 is 0).
        doc_hit: query id → whether flat top-``FLAT_DOC_HIT_K`` returned the question's own document.
    """

    recall: dict[str, list[float]] = field(default_factory=dict)
    doc_hit: dict[str, float] = field(default_factory=dict)

    def add(
        self, query_id: str, ranked: Sequence[Unit], relevant: Mapping[Unit, int], files: set[str]
    ) -> None:
        """Record one query's flat ranking (distinct units, best first, at least ``FLAT_DEPTH`` deep)."""
        self.recall[query_id] = [recall_at_k(ranked, relevant, k) for k in range(FLAT_DEPTH + 1)]
        self.doc_hit[query_id] = doc_hit([file for file, _ in ranked[:FLAT_DOC_HIT_K]], files)

    def at(self, query_id: str, pages: float) -> float:
        """Flat recall of one query interpolated at ``pages`` (clamped to 0…``FLAT_DEPTH``)."""
        curve = self.recall[query_id]
        pages = min(max(pages, 0.0), float(FLAT_DEPTH))
        low, high = math.floor(pages), math.ceil(pages)
        return curve[low] + (pages - low) * (curve[high] - curve[low])

    def mean_curve(self) -> list[float]:
        """Mean recall at k = 1…``FLAT_DEPTH``."""
        return [float(mean([c[k] for c in self.recall.values()]) or 0.0) for k in range(1, FLAT_DEPTH + 1)]

    def to_json(self) -> dict[str, object]:
        return {
            "depth": FLAT_DEPTH,
            "recall_at_k": self.mean_curve(),
            f"doc_hit@{FLAT_DOC_HIT_K}": mean(list(self.doc_hit.values())),
        }


def doc_hit(returned_files: Sequence[str], own: set[str]) -> float:
    """1.0 when any returned file is one of the question's own documents, else 0.0."""
    return 1.0 if own & set(returned_files) else 0.0


@dataclass(frozen=True)
class BudgetJudgement:
    """One run against flat at the run's own budget.

    Attributes:
        gain: mean per-query right-sized recall minus flat's interpolated recall (None without data).
        interval: its bootstrap 95 % interval.
        own_gain: the same with flat read at each question's own pages (None where they are not given).
        own_interval: its bootstrap 95 % interval.
        flat_recall: flat's mean recall at the run's mean pages.
        flat_doc_hit: flat top-``FLAT_DOC_HIT_K``'s doc_hit on the same queries.
    """

    gain: float | None
    interval: tuple[float, float] | None
    flat_recall: float | None
    flat_doc_hit: float | None
    own_gain: float | None = None
    own_interval: tuple[float, float] | None = None


def judge(
    recalls: Mapping[str, float | None],
    pages: float | None,
    flat: FlatCurve,
    own_pages: Mapping[str, float | None] | None = None,
) -> BudgetJudgement:
    """Paired gain of a run's per-query right-sized recall over flat at the run's mean pages, and (given
    ``own_pages``, each question's pages) over flat at each question's own pages."""
    ids = [q for q, r in recalls.items() if r is not None and q in flat.recall]
    if pages is None or not ids:
        return BudgetJudgement(None, None, None, None)
    baseline = {q: flat.at(q, pages) for q in ids}
    gains = [float(recalls[q]) - baseline[q] for q in ids]  # type: ignore[arg-type]
    own = own_pages or {}
    paired = [q for q in ids if own.get(q) is not None]
    own_gains = [float(recalls[q]) - flat.at(q, float(own[q])) for q in paired]  # type: ignore[arg-type]
    return BudgetJudgement(
        mean(gains),
        bootstrap_interval(gains),
        mean(list(baseline.values())),
        mean([flat.doc_hit[q] for q in ids]),
        mean(own_gains) if own_gains else None,
        bootstrap_interval(own_gains) if own_gains else None,
    )
