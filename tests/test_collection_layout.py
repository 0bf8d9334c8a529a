"""A server or cluster creates the collection with the configured shards, replication and on-disk storage.

No Qdrant server runs in the tests: a fake one on 127.0.0.1 (the network edge) records what qdrant-client sends
it. Local mode, a real engine, shows that the vectors' on-disk setting is taken.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from qdrant_client import QdrantClient

from drag_core.config import Settings
from drag_core.store import DENSE, PASSAGES, SPARSE, ClientStore, open_store
from drag_core.store.edge import CONFIG_FILE

COLLECTION = "drag_nodes"


def _collection_info() -> dict:
    """What a server answers for the collection: a real CollectionInfo, made by local mode."""
    local = ClientStore(QdrantClient(":memory:"), COLLECTION)
    local._create(384)
    info = json.loads(local.client.get_collection(COLLECTION).model_dump_json(exclude_none=True))
    local.close()
    return info


class FakeQdrant(ThreadingHTTPServer):
    """Answers the calls ``open_store`` + ``ensure_collection`` make; keeps the collection-creation bodies."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.created: list[dict] = []
        self.info = _collection_info()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: FakeQdrant

    def log_message(self, *args: object) -> None:
        pass

    def _answer(self, result: object) -> None:
        body = json.dumps({"result": result, "status": "ok", "time": 0.0}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path == "/":
            body = json.dumps({"title": "qdrant - vector search engine", "version": "1.20.0"}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif path == "/collections":
            self._answer({"collections": [{"name": COLLECTION}] if self.server.created else []})
        elif path == f"/collections/{COLLECTION}/exists":
            self._answer({"exists": bool(self.server.created)})
        else:
            self._answer(self.server.info)

    def do_PUT(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path.split("?")[0] == f"/collections/{COLLECTION}":
            self.server.created.append(body)
            self._answer(True)
        else:  # a payload index
            self._answer({"operation_id": 0, "status": "completed"})


@pytest.fixture
def fake_qdrant() -> Iterator[FakeQdrant]:
    server = FakeQdrant()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_cluster_collection_is_created_with_shards_replication_and_on_disk(fake_qdrant) -> None:
    env = {
        "QDRANT_URL": fake_qdrant.url,
        "DRAG_SHARDS": "6",
        "DRAG_REPLICATION_FACTOR": "2",
        "DRAG_ON_DISK": "1",
    }
    store = open_store(Settings.from_env(env=env))
    store.ensure_collection(384)
    store.ensure_collection(384)  # exists now: not created again
    store.close()
    (created,) = fake_qdrant.created
    assert created["shard_number"] == 6 and created["replication_factor"] == 2
    assert created["on_disk_payload"] is True
    assert created["vectors"][DENSE]["on_disk"] is True
    assert created["sparse_vectors"][SPARSE]["index"]["on_disk"] is True


def test_without_settings_the_server_chooses(fake_qdrant) -> None:
    store = open_store(Settings.from_env(env={"QDRANT_URL": fake_qdrant.url}))
    store.ensure_collection(384)
    store.close()
    (created,) = fake_qdrant.created
    assert "shard_number" not in created and "replication_factor" not in created
    assert "on_disk" not in created["vectors"][DENSE]


def test_local_mode_keeps_vectors_on_disk_when_asked(tmp_path) -> None:
    settings = Settings.from_env(env={"DRAG_ON_DISK": "yes"}, store=str(tmp_path / "q"), engine="local")
    store = open_store(settings)
    store.ensure_collection(384)
    assert store.client.get_collection(COLLECTION).config.params.vectors[DENSE].on_disk is True
    store.close()


def test_scale_out_settings_are_read_and_counts_below_one_refused() -> None:
    settings = Settings.from_env(env={"DRAG_EMBED_THREADS": "1", "DRAG_LEASE_SECONDS": "30"})
    assert settings.embed_threads == 1 and settings.lease_seconds == 30.0
    assert Settings.from_env(env={}).embed_threads is None
    for name in ("DRAG_SHARDS", "DRAG_REPLICATION_FACTOR", "DRAG_EMBED_THREADS"):
        with pytest.raises(ValueError, match="at least 1"):
            Settings.from_env(env={name: "0"})


def test_the_passage_storage_reaches_a_new_collection_on_every_engine(fake_qdrant, tmp_path) -> None:
    env = {"QDRANT_URL": fake_qdrant.url, "DRAG_PASSAGE_STORAGE": "int8"}
    store = open_store(Settings.from_env(env=env))
    store.ensure_collection(384)
    store.close()
    (created,) = fake_qdrant.created
    assert created["vectors"][PASSAGES]["quantization_config"]["scalar"]["type"] == "int8"
    assert "quantization_config" not in created["vectors"][DENSE]
    for storage, key, value in (
        ("int8", "quantization_config", {"scalar"}),
        ("float16", "datatype", "float16"),
        ("", "datatype", "float16"),  # the default
    ):
        settings = Settings.from_env(env={"DRAG_PASSAGE_STORAGE": storage}, store=str(tmp_path / storage))
        edge_store = open_store(settings)
        edge_store.ensure_collection(384)
        vectors = json.loads((edge_store.folder / CONFIG_FILE).read_text())["vectors"]
        edge_store.close()
        stored = vectors[PASSAGES][key]
        assert (set(stored) if isinstance(stored, dict) else stored.lower()) == value
        assert key not in vectors[DENSE]
    with pytest.raises(ValueError, match="DRAG_PASSAGE_STORAGE"):
        Settings.from_env(env={"DRAG_PASSAGE_STORAGE": "int4"})


def test_a_collection_keeps_the_passage_storage_it_was_created_with(tmp_path) -> None:
    """An index made before half precision became the default is opened, written and read as it was made."""
    folder = str(tmp_path / "older")
    older = open_store(Settings.from_env(env={"DRAG_PASSAGE_STORAGE": "float32"}, store=folder))
    older.ensure_collection(384)
    made = json.loads((older.folder / CONFIG_FILE).read_text())["vectors"][PASSAGES]
    older.close()
    reopened = open_store(Settings.from_env(env={}, store=folder))
    reopened.ensure_collection(384)
    assert reopened.holds_passages
    assert json.loads((reopened.folder / CONFIG_FILE).read_text())["vectors"][PASSAGES] == made
    assert "datatype" not in made or made["datatype"].lower() == "float32"
    reopened.close()
