"""The Qdrant store: one collection, one flat point per tree node, named vectors ``dense`` and ``sparse``.

Two engines behind one contract (``NodeStore``, in ``base`` with the records every engine shares): Qdrant
Edge, Qdrant's engine in-process (``edge.EdgeStore``, the default embedded engine), and qdrant-client
(``client.ClientStore``: a Qdrant server or cluster when a URL is given, or its pure-Python local mode).
``open_store`` picks one. The contract is written down in docs/store.md.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from drag_core.config import Settings
from drag_core.layout import StoreLayout
from drag_core.store import base
from drag_core.store.base import *  # noqa: F403  (the records and the contract every engine shares)
from drag_core.store.base import NodeStore, StoreError
from drag_core.store.edge import EdgeStore

#: qdrant-client's store, loaded on first use (``__getattr__``).
CLIENT_NAMES = ("ClientStore", "CollectionLayout", "open_client")

__all__ = [*base.__all__, *CLIENT_NAMES[:2], "ENGINES", "EdgeStore", "index_exists", "open_store"]

log = logging.getLogger(__name__)

ENGINES = ("edge", "local")
DEFAULT_ENGINE = "edge"


def __getattr__(name: str) -> Any:
    """qdrant-client (about 1 s to import) is loaded only when its store is used: a search on Qdrant Edge and
    the CLI's ``--help`` never import it."""
    if name in CLIENT_NAMES:
        from drag_core.store import client

        return getattr(client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def index_exists(settings: Settings) -> bool:
    """Whether the settings point at an index: a server (asked when opened), or a folder holding a collection.
    Reading commands check it first, so a mistyped folder is reported instead of created."""
    if settings.qdrant_url or settings.in_memory:
        return True
    return _engine_of_folder(settings.store, settings.collection) is not None


def open_store(settings: Settings) -> NodeStore:
    """The store for the settings: a Qdrant server when ``qdrant_url`` is set; else the embedded engine named
    by ``settings.engine`` (``edge`` or ``local``), by default Qdrant Edge — unless the folder already holds a
    qdrant-client local-mode index and no Edge one, which is then opened as it is.

    Raises ``StoreError`` (one line: folder in use, server down, unknown engine, ...).
    """
    engine = settings.engine or _engine_of_folder(settings.store, settings.collection) or DEFAULT_ENGINE
    if not settings.qdrant_url and engine not in ENGINES:
        raise StoreError(f"unknown engine {engine!r}; DRAG_ENGINE is one of {', '.join(ENGINES)}")
    try:
        if settings.qdrant_url or engine == "local":
            from drag_core.store.client import ClientStore, CollectionLayout, open_client

            layout = CollectionLayout.of(settings)
            return ClientStore(open_client(settings), settings.collection, bool(settings.qdrant_url), layout)
        folder = None if settings.in_memory else Path(settings.store)
        return EdgeStore(folder, settings.collection, settings.passage_storage)
    except Exception as error:  # qdrant-client and qdrant-edge raise many types for the same few causes
        raise StoreError(describe_open_error(settings, error)) from None


def describe_open_error(settings: Settings, error: Exception) -> str:
    """One line for a store that cannot be opened (folder held by another process, server down, ...)."""
    text = str(error)
    if "already accessed" in text or "WouldBlock" in text:
        return (
            f"the index folder {settings.store} is in use by another process (the app or another command); "
            "stop it, or point --store / DRAG_STORE at another folder"
        )
    if settings.qdrant_url:
        first = text.splitlines()[0] if text else type(error).__name__
        return f"the Qdrant server at {settings.qdrant_url} does not answer ({first[:160]})"
    return (
        f"cannot open the index folder {settings.store} ({text.splitlines()[0][:160] if text else error!r})"
    )


def _engine_of_folder(store: str, collection: str) -> str | None:
    layout = StoreLayout.of(store)
    if layout is None:
        return None
    if layout.edge_shard(collection).exists():
        return "edge"
    if layout.local_collection(collection).exists():
        log.info("%s holds a qdrant-client local-mode index: opening it with qdrant-client", store)
        return "local"
    return None
