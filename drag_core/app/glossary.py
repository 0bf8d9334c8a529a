"""Plain words for what the app shows: each knob's label and what it does, in one sentence a newcomer
understands (from the knob registry, ``drag_core.knobs``; its help adds the strategies that read it, from
their declared ``params``, so that part never goes stale), and the terms the pages use where they are shown —
levels, LLM fallbacks, the vector policy, the evaluation's columns (gain at equal budget above all). No
Streamlit here."""

from __future__ import annotations

from drag_core.app.compare import knob_readers
from drag_core.knobs import KNOBS as REGISTRY
from drag_core.knobs import OFFERED_METHODS, Knob, offered_curves, withdrawn_words

__all__ = [
    "KNOBS",
    "METRICS",
    "OFFERED_METHODS",
    "PINNED",
    "SENSITIVITY_WORDS",
    "TERMS",
    "Knob",
    "knob_help",
    "knob_label",
    "offered_curves",
]


#: The knobs the app shows, by widget key: their labels and words are in ``drag_core.knobs`` (as are the
#: detectors and curves it offers: ``OFFERED_METHODS``, ``offered_curves``).
KNOBS: dict[str, Knob] = {knob.key: knob for knob in REGISTRY if knob.widget}
#: What the sensitivity S means for each detector (docs/knee.md).
SENSITIVITY_WORDS: dict[str, str] = {
    "relative": "keeps every item within S × (top − mean) of the top score: higher keeps more, step by step.",
    "kneedle": "higher waits for a clearer knee (later knee or none: keeps more); the values are where knees "
    "move on real rankings.",
    "chord": "slides the knee along the sag below the chord, from its start (0) to its deepest point (1, the "
    "default) and on to its end (2): higher keeps more.",
    "gap": "the largest gap counts when it beats a typical gap by S typical gaps: higher finds fewer knees "
    "(no knee keeps everything up to max-keep), so it keeps more.",
}
#: Why the knee knobs leave ``knee-beam`` alone.
PINNED = "knee-beam keeps the article's knee (Kneedle S = 1, at most 5, on the RRF curve): these knobs do not move it."


def knob_label(key: str) -> str:
    """The label of a Compare knob."""
    return KNOBS[key].label


def knob_help(key: str, detector: str = "") -> str:
    """What a knob does and which strategies read it (``How many … Read by flat, flat-dense.``); the
    sensitivity's says what S means for ``detector``; the detector's and the curve's say which detector is
    not offered on which curve, and why (the curve's: ``detector``'s alone); a knee knob's adds that knee-beam
    does not follow it."""
    knob = KNOBS[key]
    detail = withdrawn = ""
    if key == "sensitivity" and detector in SENSITIVITY_WORDS:
        detail = f" The {detector} detector's S: {SENSITIVITY_WORDS[detector]}"
    elif key in ("knee_method", "score_source"):
        withdrawn = withdrawn_words(detector if key == "score_source" and detector else None)
    parts = (f"{knob.does}{detail}", knob_readers(knob.field), withdrawn, PINNED * knob.pinned)
    return " ".join(filter(None, parts))


#: The terms the pages show, explained where they are shown.
TERMS: dict[str, str] = {
    "levels": "Levels: L0 is a page, L1 a section of 3–5 consecutive pages, L2 a group of sections, and so on "
    "up to the document's root, the highest level, which covers every page.",
    "fallbacks": "LLM fallbacks: pages and sections whose summary the LLM did not deliver (a timeout or an "
    "invalid reply), so the offline summariser wrote it instead.",
    "parent_dense": "The meaning (dense) vector of a section above the pages: centroid = the average of its "
    "pages' vectors, so a section sits among its pages; summary = the embedding of its summary and keywords; "
    "outline = the embedding of the file's title, the section names below it and its keywords; blend = the "
    "average of centroid and outline.",
    "parent_sparse": "The keyword (BM25) vector of a section above the pages: subtree = all the text of its "
    "pages; summary = only its summary and keywords; outline = the file's title, the section names below it and "
    "its keywords; vocabulary = every distinct word of its pages, once.",
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
    "gain_vs_flat_per_query": "Gain at each question's own budget: the run's recall minus flat top-k's with as "
    "many pages as the run returned for that question. Unlike gain_vs_flat, one page more on a few questions "
    "does not raise flat's bar on all the others.",
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
