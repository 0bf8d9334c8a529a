"""Keywords that say what a page or a part of a document is about, against the rest of the document and
the corpus; never a person's name, never the boilerplate of a genre.

* Terms (``terms``): lower-cased words of ≥ 3 characters that start with a letter and have at least as many
  letters as digits, without NLTK's English stop words (the BM25 model's list) and ``EXTRA_STOPWORDS``
  (prose glue, number words, months).
* A page: Dunning's log-likelihood ratio G² of each term on the page against the rest of the document (only
  over-represented terms; a term occurs twice unless the page is short or has too few such terms) × the
  corpus weight ``FLOOR + (1 − FLOOR) · idf / log(N + 1)``, idf = log((N + 1) / (df + 0.5)) over the corpus'
  N documents (weight 1 below ``MIN_CORPUS`` documents). ``GENRE_STOPWORDS`` always weigh ``FLOOR``.
* A parent: G² of its pages against the rest of the document (a root: against the corpus' other documents;
  without a corpus, term frequency) × coverage (the share of its pages holding the term, at least 2) ×
  corpus weight, chosen greedily so that each keyword also counts the pages the chosen ones leave uncovered.
* Genre boilerplate — ``GENRE_STOPWORDS`` (SEC cover pages, signatures, certifications) and terms in at least
  ``GENRE_SHARE`` of the corpus' documents — is never a root keyword (unless a root would get fewer than
  ``MIN_ROOT_KEYWORDS``: a 4-page 8-K).
* Person names (``names.person_names``) are never keywords, nor any proper token of a people page.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from drag_core.ingest.describe.corpus import CorpusView
from drag_core.ingest.describe.names import people_page_tokens, person_names, proper_tokens
from drag_core.text import ENGLISH_STOPWORDS, WORD

__all__ = [
    "CANDIDATES_PER_KEYWORD",
    "COVER_BONUS",
    "EXTRA_STOPWORDS",
    "FLOOR",
    "GENRE_SHARE",
    "GENRE_STOPWORDS",
    "MIN_CORPUS",
    "MIN_ROOT_KEYWORDS",
    "DocumentTerms",
    "corpus_weight",
    "g2",
    "group_keywords",
    "is_genre",
    "page_keywords",
    "terms",
]

FLOOR = 0.2  # corpus weight of a term found in every document
MIN_CORPUS = 4  # documents needed before the corpus' frequencies count
GENRE_SHARE = 0.65  # a term in at least this share of the documents is boilerplate of the genre
MIN_ROOT_KEYWORDS = 5  # a root with fewer keywords lets genre terms back in
COVER_BONUS = 0.5  # parents: weight of the share of not yet covered pages a keyword adds
MIN_PAGE_COUNT = 2  # a page keyword occurs at least twice on the page ...
SHORT_PAGE = 120  # ... unless the page has fewer terms than this
RELAXED = 0.5  # score factor of a single occurrence let in when a page has too few keywords
CANDIDATES_PER_KEYWORD = 8  # parents: the greedy cover picks among this many best-scoring terms per keyword

EXTRA_STOPWORDS = frozenset(
    [
        "also",
        "may",
        "might",
        "could",
        "would",
        "shall",
        "must",
        "can",
        "cannot",
        "use",
        "used",
        "using",
        "uses",
        "see",
        "following",
        "follows",
        "example",
        "e.g",
        "i.e",
        "etc",
        "thus",
        "therefore",
        "however",
        "within",
        "without",
        "upon",
        "whether",
        "since",
        "per",
        "via",
        "page",
        "pages",
        "chapter",
        "section",
        "sections",
        "table",
        "contents",
        "note",
        "notes",
        "part",
        "item",
        "items",
        "total",
        "including",
        "include",
        "includes",
        "included",
        "various",
        "certain",
        "many",
        "much",
        "well",
        "like",
        "make",
        "makes",
        "made",
        "get",
        "gets",
        "set",
        "sets",
        "way",
        "ways",
        "given",
        "give",
        "gives",
        "other",
        "others",
        "another",
        "number",
        "numbers",
        "based",
        "respectively",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "hundred",
        "thousand",
        "thousands",
        "million",
        "millions",
        "billion",
        "billions",
        "january",
        "february",
        "march",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
)
#: SEC boilerplate: the cover page, signatures and certifications of 10-K, 10-Q and 8-K forms (each word is in
#: ≥ 60 % of the 13 SEC forms of the shared data and in at most one of its 8 manuals).
GENRE_STOPWORDS = frozenset(
    [
        "registrant",
        "registrants",
        "filer",
        "filers",
        "accelerated",
        "non-accelerated",
        "pursuant",
        "duly",
        "undersigned",
        "thereunto",
        "hereunto",
        "hereby",
        "herein",
        "hereof",
        "hereto",
        "hereunder",
        "thereto",
        "thereof",
        "whereof",
        "incorporation",
        "jurisdiction",
        "employer",
        "identification",
        "telephone",
        "washington",
        "commission",
        "complying",
        "soliciting",
        "emerging",
        "xbrl",
        "inline",
        "sarbanes-oxley",
        "cfr",
        "furnished",
        "electronically",
        "s-t",
        "certify",
        "certification",
        "exhibit",
        "exhibits",
        "irs",
        "sec",
        "forward-looking",
    ]
)
_STOPWORDS = ENGLISH_STOPWORDS | EXTRA_STOPWORDS


def terms(text: str) -> list[str]:
    """The candidate terms of a text, in order (see the module docstring)."""
    out = []
    for word in WORD.findall(text):
        lower = word.lower().replace("’", "'")
        letters = sum(ch.isalpha() for ch in lower)
        if (
            len(lower) >= 3
            and 2 * letters >= len(lower)
            and lower not in _STOPWORDS
            and "'" not in lower[-2:]
        ):
            out.append(lower)
    return out


def g2(a: int, b: int, c: int, d: int) -> float:
    """Dunning's log-likelihood ratio of a term counted ``a`` times in ``b`` terms of a part against ``c``
    times in ``d`` terms of a reference; 0 unless the term is over-represented in the part."""
    if a == 0 or b == 0:
        return 0.0
    expected_part = b * (a + c) / (b + d)
    if a <= expected_part:
        return 0.0
    expected_reference = d * (a + c) / (b + d)
    return 2.0 * (a * math.log(a / expected_part) + (c * math.log(c / expected_reference) if c else 0.0))


def corpus_weight(term: str, corpus: CorpusView) -> float:
    """How much a term's score counts: less the more of the corpus' documents hold it."""
    if term in GENRE_STOPWORDS:
        return FLOOR
    if corpus.n < MIN_CORPUS:
        return 1.0
    idf = math.log((corpus.n + 1) / (corpus.df(term) + 0.5))
    return FLOOR + (1 - FLOOR) * max(0.0, min(1.0, idf / math.log(corpus.n + 1)))


def is_genre(term: str, corpus: CorpusView) -> bool:
    """Boilerplate of the genre: the shipped SEC list, or a term in most of the corpus' documents."""
    return term in GENRE_STOPWORDS or (corpus.n >= MIN_CORPUS and corpus.df(term) >= GENRE_SHARE * corpus.n)


@dataclass
class DocumentTerms:
    """One document's terms: per page, in all, and what may never be a keyword.

    Attributes:
        pages: each page body's term counts.
        total: the document's term counts.
        size: terms in the document.
        excluded: per page, the terms that may not be its keywords (names; a people page's proper tokens).
        names: the person names of the document.
    """

    pages: list[Counter[str]]
    total: Counter[str]
    size: int
    excluded: list[set[str]]
    names: set[str]

    @classmethod
    def of(cls, bodies: Sequence[str], file_name: str = "") -> DocumentTerms:
        names = person_names(bodies, file_name)
        proper = proper_tokens(bodies)
        pages = [Counter(terms(body)) for body in bodies]
        total: Counter[str] = Counter()
        for page in pages:
            total.update(page)
        excluded = [people_page_tokens(body, proper) | names for body in bodies]
        return cls(pages, total, sum(total.values()), excluded, names)


def _ranked(scored: dict[str, float], count: int) -> list[str]:
    return [term for term, _ in sorted(scored.items(), key=lambda item: (-item[1], item[0]))[:count]]


def page_keywords(document: DocumentTerms, page: int, corpus: CorpusView, count: int) -> list[str]:
    """The keywords of page ``page`` (0-based), best first."""
    counts = document.pages[page]
    size = sum(counts.values())
    rest = document.size - size
    least = 1 if size < SHORT_PAGE else MIN_PAGE_COUNT
    strict: dict[str, float] = {}
    relaxed: dict[str, float] = {}
    for term, n in counts.items():
        if term in document.excluded[page]:
            continue
        score = (g2(n, size, document.total[term] - n, rest) if rest else float(n)) * corpus_weight(
            term, corpus
        )
        if score > 0:
            (strict if n >= least else relaxed)[term] = score
    if len(strict) < count:  # too few repeated terms: single occurrences count half
        strict |= {term: RELAXED * score for term, score in relaxed.items()}
    return _ranked(strict, count)


def group_keywords(
    document: DocumentTerms, first: int, last: int, corpus: CorpusView, count: int
) -> list[str]:
    """The keywords of the part over pages ``first … last`` (0-based, inclusive); the part over every page is
    the root."""
    is_root = first == 0 and last == len(document.pages) - 1
    chosen = _covering(document, range(first, last + 1), corpus, count, is_root, strict=is_root)
    if is_root and len(chosen) < MIN_ROOT_KEYWORDS:
        extra = _covering(document, range(first, last + 1), corpus, count, is_root, strict=False)
        chosen += [term for term in extra if term not in chosen][: count - len(chosen)]
    return chosen


def _covering(
    document: DocumentTerms, pages: range, corpus: CorpusView, count: int, is_root: bool, strict: bool
) -> list[str]:
    """Greedy choice of ``count`` terms with high G² × coverage × corpus weight that cover the pages; with
    ``strict``, genre boilerplate is left out."""
    part: Counter[str] = Counter()
    for p in pages:
        part.update(document.pages[p])
    size = sum(part.values())
    against_corpus = is_root and corpus.n >= MIN_CORPUS
    rest = corpus.others_size if against_corpus else document.size - size
    excluded = document.names.union(*(document.excluded[p] for p in pages))
    present: dict[str, set[int]] = {}
    for p in pages:
        for term in document.pages[p]:
            present.setdefault(term, set()).add(p)
    candidates: dict[str, float] = {}
    for term, n in part.items():
        if term in excluded or len(present[term]) < min(2, len(pages)) or (strict and is_genre(term, corpus)):
            continue
        reference = corpus.others_total(term) if against_corpus else document.total[term] - n
        score = g2(n, size, max(reference, 0), rest) if rest > 0 else float(n)
        if score > 0:
            candidates[term] = score * len(present[term]) / len(pages) * corpus_weight(term, corpus)
    candidates = {term: candidates[term] for term in _ranked(candidates, CANDIDATES_PER_KEYWORD * count)}
    chosen: list[str] = []
    covered: set[int] = set()

    def gain(term: str) -> float:
        fresh = len(present[term] - covered) / len(present[term])
        return candidates[term] * ((1 - COVER_BONUS) + COVER_BONUS * fresh)

    while candidates and len(chosen) < count:
        best = max(candidates, key=lambda term: (gain(term), term))
        chosen.append(best)
        covered |= present[best]
        del candidates[best]
    return chosen
