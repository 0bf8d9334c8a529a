"""Leases on partial documents, so several writers can share one collection (scale-out ingest).

A document is committed by writing its root last; until then it is *partial*. Every point a writer writes
carries the writer's id and the time of writing (the heartbeat: each batch of a document's points is stamped
as it is written, so a long write keeps its lease alive). ``recover`` removes a partial document only when it
is abandoned: written by the writer that recovers (it is not writing now), by a process of this machine that
has ended (killed mid-write), without a lease (written before leases, or by a single-writer caller), or whose
newest heartbeat is older than the lease. A live writer's half-written document is left alone. Heartbeats are wall-clock times: machines that share a collection need
clocks closer than the lease length.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

from drag_core.config import DEFAULT_LEASE_SECONDS

__all__ = [
    "HEARTBEAT",
    "LEASE_FIELDS",
    "WRITER",
    "Lease",
    "abandoned",
    "ended_here",
    "new_writer_id",
]

WRITER, HEARTBEAT = "writer", "heartbeat"
LEASE_FIELDS = [WRITER, HEARTBEAT]


def new_writer_id() -> str:
    """A writer id unique across machines and processes: host, process id and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True)
class Lease:
    """One writer's claim on the documents it is writing.

    Attributes:
        writer: the writer's id.
        seconds: how long after its last heartbeat a partial document of this writer counts as abandoned
            (by the writers that recover).
    """

    writer: str = field(default_factory=new_writer_id)
    seconds: float = DEFAULT_LEASE_SECONDS

    def stamp(self, payload: dict) -> dict:
        """The payload with this writer's id and a heartbeat of now."""
        return {**payload, WRITER: self.writer, HEARTBEAT: time.time()}


def abandoned(partial: Iterable[dict], lease: Lease | None, now: float | None = None) -> set[tuple[str, str]]:
    """Which partial documents ``(doc_id, file_name)`` may be removed by the holder of ``lease`` (None: a
    caller that writes alone, which may remove every partial document), given the payloads of their points
    (``doc_id``, ``file_name`` and the lease fields)."""
    now = time.time() if now is None else now
    newest: dict[tuple[str, str], tuple[float, str]] = {}
    for payload in partial:
        key = (payload["doc_id"], payload["file_name"])
        beat = (float(payload.get(HEARTBEAT) or 0.0), str(payload.get(WRITER) or ""))
        newest[key] = max(newest.get(key, beat), beat)
    return {
        key
        for key, (heartbeat, writer) in newest.items()
        if lease is None
        or not writer
        or writer == lease.writer
        or now - heartbeat > lease.seconds
        or ended_here(writer)
    }


def ended_here(writer: str) -> bool:
    """Whether the writer was a process of this machine that is no longer running."""
    host, _, rest = writer.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return True
    except PermissionError:  # it exists, run by another user
        return False
    return False
