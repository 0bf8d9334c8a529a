"""How far an ingest of one or more files is, in one measure of work, and how long the rest takes at the pace
measured so far.

Work is counted in *embedding units*: the dense model embedding one page's text is 1, and every other stage
costs what it was measured to cost beside it (``STAGE_COST``, from ``bench/progress_estimate.py``; the
embedding is ~90 % of an ingest, docs/benchmarks.md). A file's work is estimated from its page count before
it is read (``loading.expected_pages``) and counted exactly once its stages report their totals; a file that
ends (indexed, unchanged, failed or cancelled) counts as done with the work it did, so a skipped file leaves
the rest of the estimate as it was.

The time left is the work left divided by the rate measured since the warm-up — the model's first
``WARM_UP_TEXTS`` texts, after the fast stages — and stays unknown until ``WARM_UP_S`` seconds of that rate were
measured. Once shown, it never rises by more than the time that passed without progress (the seconds the bar
stood still, waiting for a batch later than the pace said): a slower batch makes the time left stop counting
down for as long as it is late, never jump up by more (``ProgressMeter.seconds_left``). No clock is read here:
every call takes ``now`` (``time.monotonic()`` of the caller).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from drag_core.ingest.report import STAGES, ProgressEvent
from drag_core.ingest.tree import parent_count
from drag_core.models.embeddings import BATCH_SIZE

__all__ = [
    "DENSE_TEXTS_PER_PAGE",
    "SPARSE_SHARE",
    "STAGE_COST",
    "WARM_UP_S",
    "WARM_UP_TEXTS",
    "FileWork",
    "ProgressMeter",
]

#: Cost of one unit of each stage, in dense embeddings of one text: a page read, a page summarised, a parent
#: described, a text embedded (dense and its share of BM25), a node written — the medians of 12 recorded
#: ingests (``bench/progress_estimate.py``; reading a page cost 0.016–0.079, filings being the slowest).
STAGE_COST: dict[str, float] = {
    "pages": 0.03,
    "summaries": 0.015,
    "tree": 0.025,
    "vectors": 1.0,
    "store": 0.004,
}
#: Dense texts a page costs before its vectors stage says how many: the page and its passages (3.9 a page on
#: financebench-dev, 4.8 on manuals-dev, measured for issue 26).
DENSE_TEXTS_PER_PAGE = 4
#: Share of the vectors stage after the last dense batch: BM25 of every node (parents read their subtree).
SPARSE_SHARE = 0.05
#: Seconds of measured pace after the warm-up before a time left is given.
WARM_UP_S = 1.0
#: Texts the dense model embeds before its pace is measured: its first calls run slower than the later ones,
#: and the stages before them are estimates, not measurements. Half a batch: a long file's first batch, or the
#: first few short files of an upload (cold recordings of ``bench/progress_estimate.py``: the first 10–16
#: texts ran ~20 % slower than the rest, the second batch on; two batches held a 156-page upload of 8 files
#: without an estimate until 48 % of its work, half a batch gives it at 18 %, 25 % too long).
WARM_UP_TEXTS = BATCH_SIZE // 2


@dataclass
class FileWork:
    """One file's work.

    Attributes:
        name: the file, as uploaded.
        pages: its pages: expected before it is read, counted once it is.
        stage: the stage of its last progress event ("" before the first).
        done, total: that event's units.
        ended: the file is finished (any outcome); its work is what it did.
        finished_work: the work it did, fixed when it ended.
    """

    name: str
    pages: int
    stage: str = ""
    done: int = 0
    total: int = 0
    ended: bool = False
    finished_work: float = 0.0
    _totals: dict[str, int] = field(default_factory=dict)

    def units(self, stage: str) -> int:
        """Units of ``stage``: as reported, else as expected from the page count."""
        if stage in self._totals:
            return self._totals[stage]
        parents = parent_count(self.pages)
        return {
            "pages": self.pages,
            "summaries": self.pages,
            "tree": parents,
            "store": self.pages + parents,
            "vectors": self.pages * DENSE_TEXTS_PER_PAGE,
        }.get(stage, self.pages)

    def work(self) -> float:
        """All of this file's work (what it did, once it ended)."""
        if self.ended:
            return self.finished_work
        return sum(STAGE_COST[s] * self.units(s) for s in STAGES)

    def work_done(self) -> float:
        """The work finished: every stage before the current one, and the current one's share."""
        if self.ended:
            return self.finished_work
        share = self.done / self.total if self.total else 0.0
        if self.stage not in STAGES:  # a count of the whole file's work (an evaluation's passages)
            return self.work() * share if self.stage else 0.0
        at = STAGES.index(self.stage)
        before = sum(STAGE_COST[s] * self.units(s) for s in STAGES[:at])
        if self.stage == "pages":
            share = 1.0 if self.done and self.done == self.total else 0.0
        elif self.stage == "vectors":
            share *= 1 - SPARSE_SHARE  # BM25 runs after the last dense batch
        return before + STAGE_COST[self.stage] * self.units(self.stage) * share

    @property
    def embedded(self) -> int:
        """Texts of this file the dense model embedded so far."""
        if self.stage == "vectors":
            return self.done
        return self._totals.get("vectors", 0) if self.stage == "store" or self.ended else 0

    def stage_left(self) -> float:
        """Work left in the current stage."""
        if self.ended or self.stage not in STAGES:
            return 0.0 if self.ended else self.work() - self.work_done()
        at = STAGES.index(self.stage)
        return sum(STAGE_COST[s] * self.units(s) for s in STAGES[: at + 1]) - self.work_done()

    def moved(self, event: ProgressEvent) -> None:
        self.stage, self.done, self.total = event.stage, event.done, event.total
        if event.stage == "pages" and event.done and event.done == event.total:
            self.pages = event.total  # read: the count is known
        elif event.stage != "pages":
            self._totals[event.stage] = event.total

    def end(self) -> None:
        if not self.ended:
            self.finished_work = self.work_done()
            self.ended = True

    @property
    def fraction(self) -> float:
        if self.ended:
            return 1.0
        return min(1.0, self.work_done() / self.work())


class ProgressMeter:
    """The progress of a batch of files ingested one after another: each file's share, the batch's, the time
    left.

    Between two events the work is taken to go on at the measured rate, up to one batch of the dense model
    (``BATCH_SIZE`` texts) and never past the current stage, so the bars move with the clock and a stalled
    batch stops them instead of counting down a wrong time.

    Attributes:
        files: each file's work, in the order they are ingested.
        started: when the batch started (the caller's clock).
    """

    def __init__(self, files: Sequence[tuple[str, int]], started: float) -> None:
        self.files = [FileWork(name, max(1, pages)) for name, pages in files]
        self.started = started
        self._warm: tuple[float, float] | None = None  # (time, work done) when the warm-up ended
        self._last: tuple[float, float] | None = None  # the same at the last event since
        self._current = 0  # the file that moved last
        self._still = 0.0  # seconds the bar stood still up to the last event (``still``)
        self._still_from: float | None = None  # when the bar stops after the last event (its batch is due)
        self._shown: tuple[float, float, float] | None = None  # (time, seconds left, ``still``) last said
        self._most = 0.0  # the largest share of the work said so far: the bar never goes back

    def add(self, name: str, pages: int) -> None:
        """Queue one more file (the batch grows: its share of work done may fall, once)."""
        self.files.append(FileWork(name, max(1, pages)))
        self._most = 0.0

    def moved(self, index: int, event: ProgressEvent, now: float) -> None:
        """File ``index`` reported ``event`` at ``now``."""
        self._end_before(index)
        self.files[index].moved(event)
        self._measure(index, now, warmed=self.embedded() >= WARM_UP_TEXTS)

    def ended(self, index: int, now: float) -> None:
        """File ``index`` is finished (indexed, unchanged, failed or cancelled) at ``now``."""
        self._end_before(index)
        self.files[index].end()
        self._measure(index, now, warmed=False)

    def _end_before(self, index: int) -> None:
        for file in self.files[:index]:  # one file at a time: a later file's event ends every earlier one
            file.end()

    def _measure(self, index: int, now: float, warmed: bool) -> None:
        self._still = self.still(now)
        self._current = index
        done = self.work_done()
        if self._warm is None:
            if warmed:
                self._warm = (now, done)
            self._still_from = now
            return
        self._last = (now, done)
        rate = self.rate()
        due = min(float(BATCH_SIZE), self.files[index].stage_left()) / rate if rate else 0.0
        self._still_from = now + due  # the bar moves on at the pace until then (``_ahead``), then waits

    def still(self, now: float) -> float:
        """Seconds the bar stood still up to ``now``: from when the work the pace promised after an event was
        done (one batch at most) until the next event."""
        if self._still_from is None:
            return self._still
        return self._still + max(0.0, now - self._still_from)

    def work(self) -> float:
        return sum(f.work() for f in self.files)

    def embedded(self) -> int:
        """Texts the dense model embedded so far, over every file."""
        return sum(f.embedded for f in self.files)

    def work_done(self) -> float:
        return sum(f.work_done() for f in self.files)

    def rate(self) -> float | None:
        """Work per second since the warm-up (None until ``WARM_UP_S`` of it were measured)."""
        if self._warm is None or self._last is None:
            return None
        (t0, w0), (t1, w1) = self._warm, self._last
        if t1 - t0 < WARM_UP_S or w1 <= w0:
            return None
        return (w1 - w0) / (t1 - t0)

    def _ahead(self, now: float | None) -> float:
        """Work done since the last event, at the measured rate (0 without a rate or a time)."""
        rate = self.rate()
        if rate is None or now is None or self._last is None:
            return 0.0
        file = self.files[self._current]
        return max(0.0, min(rate * (now - self._last[0]), float(BATCH_SIZE), file.stage_left()))

    def fraction(self, now: float | None = None) -> float:
        """Share of the batch's work done at ``now``, 0–1; never less than it said before (when a file turns out
        to hold more work than its pages promised, the bar holds until the work catches up)."""
        total = self.work()
        share = min(1.0, (self.work_done() + self._ahead(now)) / total) if total else 1.0
        self._most = max(self._most, share)  # more work than expected (a file's passages) holds the bar
        return self._most

    def file_fraction(self, index: int, now: float | None = None) -> float:
        """Share of file ``index``'s work done at ``now``, 0–1."""
        file = self.files[index]
        if file.ended or not file.stage:
            return file.fraction
        ahead = self._ahead(now) if index == self._current else 0.0
        return min(1.0, (file.work_done() + ahead) / file.work())

    def seconds_left(self, now: float) -> float | None:
        """Seconds until the batch is done at the measured rate (None while it is unknown, or when done), never
        more than the last time left said plus the seconds the bar stood still since: a pace that drops shows
        as a time left that stops counting down while a batch is late, not as a jump."""
        rate = self.rate()
        if rate is None or all(f.ended for f in self.files):
            return None
        left = max(0.0, (self.work() - self.work_done() - self._ahead(now)) / rate)
        still = self.still(now)
        if self._shown is not None and now >= self._shown[0]:
            _, said, still_then = self._shown
            left = min(left, said + still - still_then)
        self._shown = (now, left, still)
        return left
