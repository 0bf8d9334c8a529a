"""Plain words for what the app shows, in one table: each knob's label and what it does, in one sentence a
newcomer understands (its help adds the strategies that read it, from their declared ``params``, so that part
never goes stale), and the terms the pages use where they are shown — levels, LLM fallbacks, the vector
policy, the evaluation's columns (gain at equal budget above all). No Streamlit here."""

from __future__ import annotations

from dataclasses import dataclass

from drag_core.app.compare import knob_readers

__all__ = ["KNOBS", "METRICS", "PINNED", "SENSITIVITY_WORDS", "TERMS", "Knob", "knob_help", "knob_label"]


@dataclass(frozen=True)
class Knob:
    """A knob of the Compare page.

    Attributes:
        label: what it is, with the strategies it is for when that is not every one.
        does: what moving it does, in one sentence.
        param: the ``SearchParams`` field whose readers the help names (the knob's own name when empty).
        pinned: a knee knob, which ``knee-beam`` (the article's fixed knee) does not follow.
    """

    label: str
    does: str
    param: str = ""
    pinned: bool = False


KNOBS: dict[str, Knob] = {
    "top_k": Knob("Top k (flat)", "How many of the best-ranked pages the flat strategies return."),
    "roots": Knob(
        "Seed pages (adaptive) / roots (branch, beam)",
        "How many starting points a search keeps: branch and beam start from this many best documents (their "
        "root summaries), adaptive picks its documents from at most this many best pages.",
    ),
    "beam_width": Knob(
        "Beam width (beam)",
        "How many nodes beam carries from one level of the tree to the next; the others are dropped.",
    ),
    "rrf_k": Knob(
        "RRF k (fusion)",
        "How the meaning (dense) and keyword (BM25) rankings are merged: each result scores 1/(k + its rank) "
        "in each, so a small k rewards the very top of each ranking and a large k weighs ranks more evenly.",
    ),
    "doc_breadth": Knob(
        "Document breadth (adaptive)",
        "Adaptive adds the best page of every document among the first N pages of the flat ranking that its "
        "knee-cut answer lacks, so it never shows fewer documents than flat top-N (0: off).",
    ),
    "knee_method": Knob(
        "Knee detector",
        "How the knee — the point where a ranking's scores stop falling fast — is found: relative (every "
        "item close enough to the top score), kneedle (Satopää et al.'s method), chord (the point farthest "
        "below the line from the first score to the last) or gap (just before the largest drop); the ranking "
        "is cut there.",
        pinned=True,
    ),
    "sensitivity": Knob(
        "Sensitivity S",
        "How readily the detector cuts, in its own terms (below); the small line under each knee panel shows "
        "how many items every S keeps.",
        pinned=True,
    ),
    "keep_range": Knob(
        "Kept per ranking (min – max)",
        "The fewest and the most items a knee cut keeps, whatever the knee says: safety rails, the knee sets "
        "the usual cut.",
        param="max_keep",
        pinned=True,
    ),
    "score_source": Knob(
        "Curve the knee reads",
        "Which scores the knee is looked for on: the dense cosines (how close each result's meaning is to the "
        "question) or the fused RRF scores (which depend only on the ranks).",
        pinned=True,
    ),
}
#: What the sensitivity S means for each detector (docs/knee.md).
SENSITIVITY_WORDS: dict[str, str] = {
    "relative": "keeps every item within S × (top − mean) of the top score: higher keeps more, step by step.",
    "kneedle": "higher waits for a clearer knee (usually keeps more); the values are dense where knees move.",
    "chord": "the knee is the last point at least S × the largest distance below the chord: lower keeps more.",
    "gap": "the largest gap counts when it beats a typical gap by S typical gaps: higher finds fewer knees "
    "(no knee keeps everything up to max-keep).",
}
#: Why the knee knobs leave ``knee-beam`` alone.
PINNED = "knee-beam keeps the article's knee (Kneedle S = 1, at most 5, on the RRF curve): these knobs do not move it."


def knob_label(key: str) -> str:
    """The label of a Compare knob."""
    return KNOBS[key].label


def knob_help(key: str, detector: str = "") -> str:
    """What a knob does and which strategies read it (``How many … Read by flat, flat-dense.``); the
    sensitivity's says what S means for ``detector``; a knee knob's adds that knee-beam does not follow it."""
    knob = KNOBS[key]
    detail = (
        f" The {detector} detector's S: {SENSITIVITY_WORDS[detector]}"
        if detector in SENSITIVITY_WORDS
        else ""
    )
    return " ".join(
        filter(None, (f"{knob.does}{detail}", knob_readers(knob.param or key), PINNED * knob.pinned))
    )


#: The terms the pages show, explained where they are shown.
TERMS: dict[str, str] = {
    "levels": "Levels: L0 is a page, L1 a section of 3–5 consecutive pages, L2 a group of sections, and so on "
    "up to the document's root, the highest level, which covers every page.",
    "fallbacks": "LLM fallbacks: pages and sections whose summary the LLM did not deliver (a timeout or an "
    "invalid reply), so the offline summariser wrote it instead.",
    "parent_dense": "The meaning (dense) vector of a section above the pages: centroid = the average of its "
    "pages' vectors, so a section sits among its pages; summary = the embedding of its summary and keywords.",
    "parent_sparse": "The keyword (BM25) vector of a section above the pages: subtree = all the text of its "
    "pages; summary = only its summary and keywords.",
    "summary_by": "Who wrote this node's summary: the offline extractive summariser (sentences picked from "
    "the text) or the configured LLM.",
    "fates": "Each point is one result of that ranking: kept; dropped by the strategy (a parent and its child "
    "never both stay, or the walk did not follow it); cut by the knee; cut by a cap (max-keep, roots) though "
    "the knee would have kept it; or, in the breadth step, already in the answer (its document was there).",
}

#: The Evaluate table's columns that need words (the others are the usual retrieval metrics).
METRICS: dict[str, str] = {
    "right_sized_recall": "Share of the relevant pages found among everything the run returned, however many "
    "pages that was.",
    "pages_returned": "Pages the run returned per question, on average.",
    "gain_vs_flat": "Gain at equal budget: the run's recall minus what flat top-k finds with the same number "
    "of pages (flat's recall read at the run's mean pages, paired per question). Above 0, the run beats "
    "simply returning more or fewer of flat's best pages.",
    "flat_recall_at_pages": "Flat top-k's recall at this run's mean pages: the bar gain_vs_flat measures "
    "against.",
    "doc_hit": "Share of questions whose own document is among the files the run returned.",
    "flat_doc_hit": "The same share for flat top-5, for comparison.",
    "nonrelevant_discarded": "Share of the non-relevant candidates that the knee cuts dropped.",
    "tokens_returned": "About how many tokens the returned pages hold (characters / 4).",
    "knee_decides": "Share of the run's final cuts that the knee set (the rest: a cap, min-keep, or no knee).",
    "slider_sizes": "How many different answer sizes the Sensitivity slider's values give, on average per "
    "question: 1 means the slider changes nothing.",
    "spearman_pages_relevant": "Spearman's ρ between the pages returned and the relevant pages per question: "
    "above 0, the run returns more where more is relevant.",
    "oracle_recall_at_pages": "The recall of an oracle that cuts flat's ranking of each question at its best "
    "k, with the run's mean pages.",
    "oracle_share": "Share of the oracle's gain over flat that the run captures at the same mean pages.",
}
