"""``StoreLayout``: every path inside a store folder, decided here and nowhere else.

A store is one folder: the embedded index (``edge/<collection>`` for Qdrant Edge, ``collection/<collection>``
for qdrant-client's local mode), the description cache (``description-cache.sqlite``, which also keeps each
document's term counts) with the page cache beside it (``page-cache.sqlite``), the ingested files by content
hash (``originals/``) and the pages a user marked (``labels/``). With ``QDRANT_URL`` the index is on the server
and the rest stays in this machine's folder. A throw-away store in memory (``IN_MEMORY``) has no folder and no
files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["DESCRIPTION_CACHE", "IN_MEMORY", "PAGE_CACHE", "StoreLayout", "page_cache_beside"]

#: The store of a throw-away index, kept in memory (``DRAG_STORE=:memory:``).
IN_MEMORY = ":memory:"
DESCRIPTION_CACHE = "description-cache.sqlite"
PAGE_CACHE = "page-cache.sqlite"


def page_cache_beside(description_cache: Path | None) -> Path | None:
    """The page cache sits beside the description cache, wherever that is (``DRAG_CACHE`` may move it); none
    without one."""
    return description_cache.with_name(PAGE_CACHE) if description_cache else None


@dataclass(frozen=True)
class StoreLayout:
    """The paths inside one store folder.

    Attributes:
        folder: the store folder.
    """

    folder: Path

    @classmethod
    def of(cls, store: str | Path) -> StoreLayout | None:
        """The layout of ``DRAG_STORE``'s value; None for a throw-away store in memory (no folder, no files)."""
        return None if str(store) == IN_MEMORY else cls(Path(store))

    @property
    def description_cache(self) -> Path:
        """The description cache (summaries, keywords and each document's term counts)."""
        return self.folder / DESCRIPTION_CACHE

    @property
    def page_cache(self) -> Path:
        """The page cache (pages read from files, by content hash and PDF engine)."""
        return self.folder / PAGE_CACHE

    @property
    def originals(self) -> Path:
        """The ingested files, by content hash, so a page can be shown as it looks."""
        return self.folder / "originals"

    @property
    def labels(self) -> Path:
        """The pages a user marked relevant or not, as a page data set."""
        return self.folder / "labels"

    def edge_shard(self, collection: str) -> Path:
        """Where Qdrant Edge keeps a collection's shard."""
        return self.folder / "edge" / collection

    def local_collection(self, collection: str) -> Path:
        """Where qdrant-client's local mode keeps a collection."""
        return self.folder / "collection" / collection
