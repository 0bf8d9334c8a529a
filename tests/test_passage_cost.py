"""The ingest cost of passages (issue 26): a page with passages can take its page vector from its first passage
instead of embedding its first word pieces again (``page_vector``), and consecutive short sections can share a
passage (``pack``; both measured, neither the default); neither loses a word, a heading or the model's window, a
document built one way is flagged for re-ingest by a build of another, and passages are embedded in order of
word pieces."""

from __future__ import annotations

from bisect import bisect_left

import numpy as np
import pytest
from conftest import FINANCE, PDFS
from test_passages import leaves_of

from drag_core.ingest.loading import LoadedDocument, load_path
from drag_core.ingest.passages import section_starts
from drag_core.ingest.report import StaleReason
from drag_core.ingest.sections import Sections
from drag_core.ingest.vector_text import (
    VectorPolicy,
    dense_count,
    dense_vectors,
    page_passages,
    passage_texts,
    passage_vectors,
    titled,
)
from drag_core.params import SearchParams

MANUAL = PDFS / "R-intro.pdf"
FILING = FINANCE / "AMCOR_2022_8K_dated-2022-07-01.pdf"
BEFORE = VectorPolicy(page_vector="window", pack=False)  # the passages as the first release built them


@pytest.fixture(scope="module")
def manual() -> LoadedDocument:
    return load_path(MANUAL)


def test_the_page_vector_is_the_first_passage_and_costs_no_text_of_its_own(make_engine, embedder) -> None:
    used = {}
    engines = {}
    for name, policy in (("before", BEFORE), ("first", VectorPolicy(page_vector="first"))):
        engines[name] = make_engine(policy=policy)
        embedded = embedder.embedded
        assert engines[name].ingest_paths([FILING])[0].ok
        used[name] = embedder.embedded - embedded
    document = load_path(FILING)
    bodies = [page.body for page in document.pages]
    texts = passage_texts(
        leaves_of(document), VectorPolicy(), bodies, Sections(document.outline, len(bodies)), embedder
    )
    with_passages = [page for page, own in enumerate(texts) if own]
    assert len(with_passages) >= len(bodies) // 2
    assert used["before"] - used["first"] == len(with_passages)  # one text fewer a page with passages

    # the stored page vector is the first passage's: ranking by page vectors scores a page by its cosine
    question = "Amcor completed the acquisition of Bemis"
    query = embedder.query(question)[0]
    first = embedder.dense([own[0] for own in texts if own])
    expected = {page: float(first[k] @ query) for k, page in enumerate(with_passages)}
    result = engines["first"].search(question, "flat-dense", SearchParams(passages="off", top_k=20))
    candidates = result.trace[0].candidates
    pages = {n.id: n.page_start - 1 for n in engines["first"].store.get([c.id for c in candidates])}
    scored = [(expected[pages[c.id]], c.dense_score) for c in candidates if pages[c.id] in expected]
    assert len(scored) >= 3
    assert all(score == pytest.approx(want, abs=1e-4) for want, score in scored)


def _parts(body: str, sections: Sections, page: int) -> list[tuple[int, int, str]]:
    """The page's sections as ``section_starts`` finds them: (start, end, heading)."""
    before = sections.page_title(page - 1) if page > 0 else ""
    starts = section_starts(body, sections.starts_on(page), before)
    ends = [s.offset for s in starts[1:]] + [len(body)]
    return [(s.offset, end, s.heading) for s, end in zip(starts, ends, strict=True)]


def test_packed_sections_start_at_their_headings_fit_the_model_and_leave_no_two_that_fit_together(
    embedder, manual
) -> None:
    bodies = [page.body for page in manual.pages]
    sections = Sections(manual.outline, len(bodies))
    packed_pages = 0
    for node in leaves_of(manual):
        page = node.page_start - 1
        body, parts = bodies[page], _parts(bodies[page], sections, page)
        packed = page_passages(node, bodies, sections, embedder, headed=True, pack=True)
        single = page_passages(node, bodies, sections, embedder, headed=True)
        assert " ".join(p.text for p in packed).split() == " ".join(p.text for p in single).split()
        pieces = embedder.piece_starts(body)
        prefix = max(len(embedder.piece_starts(titled(node.file_name, "", h))) for _, _, h in parts)
        budget = embedder.max_pieces - embedder.special_pieces - prefix
        whole: list[bool] = []  # whether each passage holds its sections whole (not cut for size)
        for passage in packed:
            assert (
                embedder.pieces(titled(node.file_name, passage.text, passage.heading)) <= embedder.max_pieces
            )
            held = [
                k for k, (start, end, _) in enumerate(parts) if passage.start < end and start < passage.end
            ]
            first_start, _, first_heading = parts[held[0]]
            last_end = len(body[: parts[held[-1]][1]].rstrip())
            if len(held) > 1:  # sections packed together: from the first one's heading, each whole
                assert passage.start == len(body) - len(body[first_start:].lstrip())
                assert passage.heading == first_heading and passage.end == last_end
            whole.append(
                passage.start == len(body) - len(body[first_start:].lstrip()) and passage.end == last_end
            )
        for k in range(len(packed) - 1):  # greedy: two whole neighbours that fit the budget together are one
            if whole[k] and whole[k + 1]:
                both = bisect_left(pieces, packed[k + 1].end) - bisect_left(pieces, packed[k].start)
                assert both > budget
        packed_pages += len(packed) < len(single)
    assert packed_pages >= 5  # some of R-intro's short sections share passages


def test_a_document_built_with_another_page_vector_is_flagged_for_re_ingest(make_engine, tmp_path) -> None:
    assert BEFORE.identity == "dense=centroid,sparse=subtree,passages=plain"  # what the first release wrote
    assert VectorPolicy(passages="off").identity == "dense=centroid,sparse=subtree"
    first = VectorPolicy(page_vector="first")
    assert len({BEFORE.identity, first.identity, VectorPolicy(pack=True).identity}) == 3
    folder = str(tmp_path / "qdrant")
    old = make_engine(store=folder, policy=first)
    assert old.ingest_paths([FILING])[0].ok and old.documents()[0].current
    old.close()
    new = make_engine(store=folder, policy=BEFORE)  # the same index, opened by a build with the other vector
    (info,) = new.documents()
    assert not info.current and info.stale_reason == StaleReason.OTHER_VECTORS
    assert new.ingest_paths([FILING])[0].status != "unchanged"  # re-ingested, not skipped
    assert new.documents()[0].current


def test_passages_are_embedded_in_order_of_word_pieces_and_keep_their_places(embedder) -> None:
    document = load_path(FILING)
    bodies = [page.body for page in document.pages]
    texts = passage_texts(
        leaves_of(document), VectorPolicy(), bodies, Sections(document.outline, len(bodies)), embedder
    )
    asked: list[str] = []

    def embed(batch: list[str]):
        asked.extend(batch)
        return embedder.dense(batch)

    vectors = passage_vectors(texts, embed, embedder.dim, embedder.pieces)
    lengths = [embedder.pieces(t) for t in asked]
    assert lengths == sorted(lengths) and lengths != [embedder.pieces(t) for p in texts for t in p or ()]
    assert [len(t) for t in asked] != sorted(len(t) for t in asked)  # characters would order them otherwise
    page, own = next((k, p) for k, p in enumerate(texts) if p and len(p) > 1)
    assert vectors[page] == pytest.approx(embedder.dense(own), abs=1e-5)  # each row is its own passage's


def test_the_mean_page_vector_is_the_normalised_mean_of_the_passages_and_costs_no_text(embedder) -> None:
    document = load_path(FILING)
    bodies = [page.body for page in document.pages]
    leaves = leaves_of(document)
    policy = VectorPolicy(page_vector="mean")
    texts = passage_texts(leaves, policy, bodies, Sections(document.outline, len(bodies)), embedder)
    asked: list[int] = []

    def embed(batch: list[str]):
        asked.append(len(batch))
        return embedder.dense(batch)

    own = passage_vectors(texts, embed, embedder.dim, embedder.pieces)
    dense = dense_vectors(leaves, policy, embed, bodies, own)
    with_passages = [page for page, p in enumerate(texts) if p]
    assert len(with_passages) >= len(bodies) // 2
    passages = sum(len(p or ()) for p in texts)
    assert sum(asked) == dense_count(leaves, policy, texts) == passages + len(leaves) - len(with_passages)
    for page in with_passages:
        mean = embedder.dense(texts[page]).mean(axis=0)
        assert dense[page] == pytest.approx(mean / np.linalg.norm(mean), abs=1e-5)
    assert np.linalg.norm(dense, axis=1) == pytest.approx(1.0, abs=1e-5)
