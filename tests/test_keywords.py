"""Keywords that discriminate: a page against its document and the corpus, never a person's name, never the
boilerplate of a genre in a root; parents take the terms that cover their pages; the corpus lives beside the
caches, so keywords are deterministic and unchanged files are not described again."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from conftest import FINANCE, PDFS, SHARED

from drag_core.ingest.describe.base import document_terms
from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.ingest.describe.corpus import Corpus
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.describe.keywords import GENRE_STOPWORDS, DocumentTerms, group_keywords, page_keywords
from drag_core.ingest.describe.names import person_names
from drag_core.ingest.loading import load_path
from drag_core.ingest.pipeline import describe_tree

DEV_DOCS = sorted((SHARED / "data" / "financebench-dev" / "docs").glob("*.pdf")) + sorted(
    (SHARED / "data" / "manuals-dev" / "docs").glob("*.pdf")
)
FIRST_NAMES = frozenset(
    line.strip()
    for line in (Path(__file__).parent / "data" / "first_names.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
)
_PAIR = re.compile(r"\b([A-Z][a-z]+)\s+(?:[A-Z]\.\s*)?([A-Z][a-z'’]+)\b")
_LOWER = re.compile(r"(?<![A-Za-z])[a-z]+(?![A-Za-z])")


def names_by_first_name(text: str) -> set[str]:
    """The oracle: the tokens of "First Last" pairs whose first name is a common given name, except words the
    text also uses in lower case ("Mark" of "check mark", "Grace" of "grace period")."""
    names = set()
    for match in _PAIR.finditer(text):
        if match.group(1).lower() in FIRST_NAMES:
            names |= {match.group(1).lower(), match.group(2).lower().rstrip("'’")}
    return names - set(_LOWER.findall(text))


def test_the_oracle_finds_names() -> None:
    text = "Signed by Kurt Hornik and Mary Smith. Check mark whether Mark Twain wrote it."
    assert names_by_first_name(text) == {"mary", "smith", "twain"}
    assert len(FIRST_NAMES) == 200


def test_names_in_name_contexts() -> None:
    pages = [
        "SIGNATURES\n/s/ Shantanu Narayen\nShantanu Narayen, Chief Executive Officer\nSanta Clara is a city.",
        "Written by Andy Hammerlindl, John Bowman, and Tom Prince. Copyright 2004.",
        "The Board designated Ms. Nicosia as chair. Darlene Nicosia 55,123,930 votes.",
        "The Creative Cloud and Document Cloud grew; Adobe Systems sells them. santa was not here.",
    ]
    names = person_names(pages, "ADOBE_2022_10K.pdf")
    assert {"shantanu", "narayen", "andy", "hammerlindl", "john", "bowman", "tom", "prince"} <= names
    assert {"nicosia", "darlene"} <= names
    assert not {"creative", "cloud", "document", "adobe", "systems", "santa", "chief", "officer"} & names


def _dev_trees() -> dict[str, list]:
    """Every development document described against a corpus of all of them, as an index holding them has."""
    documents = [load_path(path) for path in DEV_DOCS]
    corpus = Corpus()
    counts = {d.file_name: document_terms([p.body for p in d.pages]) for d in documents}
    for document in documents:
        corpus.add((document.file_name, document.doc_id), counts[document.file_name])
    describer = Describer(ExtractiveSummarizer(), DescriptionCache(None))
    trees = {}
    for document in documents:
        view = corpus.view((document.file_name, document.doc_id), counts[document.file_name])
        trees[document.file_name] = (document, describe_tree(document, describer, view))
    return trees


def test_root_keywords_of_the_dev_documents_name_no_person_and_no_genre() -> None:
    trees = _dev_trees()
    assert len(trees) == 22
    found_names = 0
    for file_name, (document, nodes) in trees.items():
        root = nodes[-1]
        names = names_by_first_name("\n".join(page.text for page in document.pages))
        found_names += len(names)
        assert not names & set(root.keywords), (file_name, root.keywords)
        assert len(root.keywords) >= 5
        if len(document.pages) > 5:  # a 4-page 8-K's root may fall back to its cover words
            assert not GENRE_STOPWORDS & set(root.keywords), (file_name, root.keywords)
    assert found_names > 100, "the documents do name people"
    assert "registrant" not in trees["AMCOR_2023Q2_10Q.pdf"][1][-1].keywords
    assert {"pen", "picture"} <= set(trees["asymptote.pdf"][1][-1].keywords)


def test_a_term_in_most_documents_is_no_root_keyword() -> None:
    corpus = Corpus()
    topics = ["rivers", "stars", "bread", "trains", "ships"]
    for i, topic in enumerate(topics[1:]):
        corpus.add((f"{topic}.txt", str(i)), Counter({topic: 30, "widget": 10, "common": 5}))
    pages = [
        f"Rivers and widget {i}: the widget of rivers, banks and bridges. Boats float, water flows, fish swim, "
        "widget turns, common widget."
        for i in range(4)
    ]
    own = document_terms(pages)
    terms = DocumentTerms.of(pages, "rivers.txt")
    alone = group_keywords(terms, 0, 3, Corpus().view(("rivers.txt", "x"), own), 8)
    weighed = group_keywords(terms, 0, 3, corpus.view(("rivers.txt", "x"), own), 8)
    assert "widget" in alone, "without a corpus it is a frequent term of the document"
    assert weighed[0] == "rivers" and "widget" not in weighed and "common" not in weighed


def test_page_keywords_tell_the_page_from_its_document() -> None:
    document = load_path(PDFS / "asymptote.pdf")
    terms = DocumentTerms.of([p.body for p in document.pages], document.file_name)
    view = Corpus().view(
        (document.file_name, document.doc_id), document_terms([p.body for p in document.pages])
    )
    keywords = page_keywords(terms, 40, view, 8)  # page 41: winding numbers and fill rules
    assert {"fillrule", "winding"} & set(keywords) and "asymptote" not in keywords


def test_parents_take_terms_that_cover_their_children_not_the_first_childs() -> None:
    document = load_path(PDFS / "R-intro.pdf")
    nodes = describe_tree(document, Describer(ExtractiveSummarizer(), DescriptionCache(None)))
    by_id = {n.id: n for n in nodes}
    shares = []
    for parent in (n for n in nodes if n.child_ids):
        first = set(by_id[parent.child_ids[0]].keywords)
        shares.append(sum(k in first for k in parent.keywords) / len(parent.keywords))
    assert sum(shares) / len(shares) < 0.4, "not the first child's keywords"


def test_the_corpus_lives_beside_the_caches_and_unchanged_files_cost_nothing(
    make_engine, tmp_path: Path
) -> None:
    cache = tmp_path / "description-cache.sqlite"
    files = [FINANCE / "AMCOR_2022_8K_dated-2022-07-01.pdf", FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf"]
    engine = make_engine(str(tmp_path / "qdrant"), cache_path=cache)
    first = engine.ingest_paths(files)
    assert [r.status for r in first] == ["indexed", "indexed"]
    keywords = {d.file_name: engine.tree(d.file_name)[-1].keywords for d in engine.documents()}
    engine.close()
    again = make_engine(str(tmp_path / "qdrant"), cache_path=cache)
    assert again.corpus.corpus().n == 2, "read back from the table beside the caches"
    assert [r.status for r in again.ingest_paths(files)] == ["unchanged", "unchanged"]
    assert again.remove(files[0].name) and again.corpus.corpus().n == 1
    assert again.ingest_paths(files[:1])[0].status == "indexed", "described again, against the other file"
    fresh = make_engine(str(tmp_path / "fresh"), cache_path=tmp_path / "fresh-cache.sqlite")
    assert [r.status for r in fresh.ingest_paths(files[::-1])] == ["indexed", "indexed"]
    for file in files:  # the same documents in the index: the same keywords, computed afresh
        assert fresh.tree(file.name)[-1].keywords == again.tree(file.name)[-1].keywords
    assert again.tree(files[1].name)[-1].keywords == keywords[files[1].name]
