"""The original files of the indexed documents, kept by content hash so a page can be shown as it looks.

The index holds each page's text, not the file, and rendering a PDF page needs the file's bytes. So every file
ingested from bytes (an upload, a path) is copied to ``<store folder>/originals/<doc_id>`` — one copy per
content, whatever its name — and deleted when the last document with that content is removed. The folder is
the embedded store's own (``DRAG_STORE``), beside its caches; with ``QDRANT_URL`` the index is on the server but
the originals stay in the local ``DRAG_STORE`` folder of the process that ingested the file (like the caches):
another machine sharing the server has the text and the vectors but not the file, and shows a page as its text.
A throw-away store (``:memory:``) keeps them in memory. Writes are atomic (a temporary file renamed into place).
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
from pathlib import Path

__all__ = ["Originals"]

_DOC_ID = re.compile(r"^[0-9a-f]{8,64}$")


class Originals:
    """Files by ``doc_id`` (the content hash ``loading.document_id`` gives).

    Attributes:
        folder: where the files are (None: in memory, for a throw-away index).
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._memory: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def _path(self, doc_id: str) -> Path:
        if not _DOC_ID.match(doc_id):
            raise ValueError(f"not a document id: {doc_id!r}")
        assert self.folder is not None
        return self.folder / doc_id

    def put(self, doc_id: str, data: bytes) -> None:
        """Keep ``data`` as the original of ``doc_id`` (nothing happens when it is kept already)."""
        if self.folder is None:
            with self._lock:
                self._memory[doc_id] = data
            return
        target = self._path(doc_id)
        if target.is_file() and target.stat().st_size == len(data):
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".incoming-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def get(self, doc_id: str) -> bytes | None:
        """The original of ``doc_id``, or None when it is not kept here."""
        if self.folder is None:
            return self._memory.get(doc_id)
        try:
            return self._path(doc_id).read_bytes()
        except (OSError, ValueError):
            return None

    def path(self, doc_id: str) -> Path | None:
        """Where the original of ``doc_id`` is on disk (None: not kept, or kept in memory)."""
        if self.folder is None:
            return None
        path = self._path(doc_id)
        return path if path.is_file() else None

    def remove(self, doc_id: str) -> None:
        """Forget the original of ``doc_id`` (nothing happens when it is not kept)."""
        if self.folder is None:
            with self._lock:
                self._memory.pop(doc_id, None)
            return
        self._path(doc_id).unlink(missing_ok=True)
