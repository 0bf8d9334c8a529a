"""A document's life: uploaded twice, changed, removed, and kept across restarts of an index folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FINANCE

from drag_core.engine import Engine
from drag_core.ingest.loading import load_path
from drag_core.search import SearchParams
from drag_core.types import Node

NAME = "quarterly report.pdf"
VERSION_1 = FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf"
VERSION_2 = FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"
BYSTANDER = "bystander.md"
BYSTANDER_TEXT = "\n\n".join(
    f"# Chapter {i}\n\n" + f"The lighthouse keeper logged fog, tides and {i * 3} passing ships. " * 30
    for i in range(1, 8)
).encode()


def root_of(engine: Engine, file_name: str) -> Node:
    return next(n for n in engine.tree(file_name) if n.is_root)


def test_uploading_the_same_content_again_adds_nothing(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    first = engine.ingest_bytes(NAME, VERSION_1.read_bytes())
    documents, count, root = engine.documents(), engine.store.count(), root_of(engine, NAME)

    again = engine.ingest_bytes(NAME, VERSION_1.read_bytes())

    assert (first.status, again.status) == ("indexed", "unchanged")
    assert (again.doc_id, again.nodes) == (first.doc_id, first.nodes)
    assert engine.documents() == documents
    assert engine.store.count() == count
    assert root_of(engine, NAME).extra["ingested_at"] == root.extra["ingested_at"], "not rewritten"


def test_a_changed_file_replaces_its_old_tree(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    bystander = engine.ingest_bytes(BYSTANDER, BYSTANDER_TEXT)
    old = engine.ingest_bytes(NAME, VERSION_1.read_bytes())
    new = engine.ingest_bytes(NAME, VERSION_2.read_bytes())

    assert new.status == "replaced" and new.doc_id != old.doc_id
    assert [(d.file_name, d.doc_id) for d in engine.documents() if d.file_name == NAME] == [
        (NAME, new.doc_id)
    ]
    assert engine.store.nodes_of(old.doc_id) == [], "no node of the old version is left"
    assert engine.store.count() == bystander.nodes + new.nodes
    leaves = [n.text for n in engine.tree(NAME, with_text=True) if n.level == 0]
    assert leaves == [p.text for p in load_path(VERSION_2).pages]

    hits = engine.search("PepsiCo annual meeting of shareholders", "flat", SearchParams(top_k=10))
    assert old.doc_id not in {n.doc_id for n in hits.nodes}


def test_removing_a_document_removes_every_node(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    bystander = engine.ingest_bytes(BYSTANDER, BYSTANDER_TEXT)
    report = engine.ingest_bytes(NAME, VERSION_1.read_bytes())

    assert engine.remove(NAME) == report.nodes
    assert engine.store.nodes_of(report.doc_id) == []
    assert engine.store.count() == bystander.nodes
    assert [d.file_name for d in engine.documents()] == [BYSTANDER]
    hits = engine.search("PepsiCo annual meeting of shareholders", "flat", SearchParams(top_k=10))
    assert hits.nodes and {n.file_name for n in hits.nodes} == {BYSTANDER}
    with pytest.raises(KeyError):
        engine.remove(NAME)
    with pytest.raises(KeyError):
        engine.tree(NAME)

    back = engine.ingest_bytes(NAME, VERSION_1.read_bytes())
    assert (back.status, back.nodes, back.doc_id) == ("indexed", report.nodes, report.doc_id)


@pytest.mark.parametrize("store_engine", ["edge", "local"])
def test_an_index_folder_keeps_documents_removals_and_rankings_across_restarts(
    make_engine: Callable[..., Engine], tmp_path: Path, store_engine: str
) -> None:
    folder = str(tmp_path / "qdrant")
    query = "quarterly sales results and earnings per share"
    engine = make_engine(store=folder, engine=store_engine)
    engine.ingest_bytes(BYSTANDER, BYSTANDER_TEXT)
    engine.ingest_paths([VERSION_1, VERSION_2])
    engine.remove(VERSION_1.name)
    documents = engine.documents()
    trees = {d.file_name: engine.tree(d.file_name, with_text=True) for d in documents}
    ranking = engine.search(query, "beam")
    engine.close()

    reopened = make_engine(store=folder, engine=store_engine)

    assert reopened.documents() == documents
    assert {d.file_name: reopened.tree(d.file_name, with_text=True) for d in documents} == trees
    again = reopened.search(query, "beam")
    assert [n.id for n in again.nodes] == [n.id for n in ranking.nodes]
    assert again.scores == pytest.approx(ranking.scores)
    assert reopened.ingest_bytes(BYSTANDER, BYSTANDER_TEXT).status == "unchanged"
    assert reopened.ingest_paths([VERSION_2])[0].status == "unchanged"


def test_the_same_content_under_two_names_is_two_documents(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    data = VERSION_1.read_bytes()
    original = engine.ingest_bytes("original.pdf", data)
    copy = engine.ingest_bytes("copy.pdf", data)
    assert (original.status, copy.status) == ("indexed", "indexed")
    assert len(engine.tree("copy.pdf")) == copy.nodes

    engine.ingest_bytes("original.pdf", VERSION_2.read_bytes())  # a new version of one replaces only its tree
    assert len(engine.tree("copy.pdf")) == copy.nodes
    engine.remove("original.pdf")  # removing one keeps the other whole

    assert [d.file_name for d in engine.documents()] == ["copy.pdf"]
    assert len(engine.tree("copy.pdf")) == copy.nodes == engine.store.count()
