"""How true the upload's progress is: record real ingests, replay them through ``ProgressMeter``, and report
the bar and the time-left estimate at 10 %, 25 %, 50 % and 75 % of the time the ingest took — beside the
estimator the app had before (each of the five stages an equal share of a file, files weighted by size, time
left = elapsed × (1 − share) / share), replayed from the same recording.

Run: ``.venv/bin/python bench/progress_estimate.py [--sets filings big manuals financebench] [--out DIR]``
records each set (a fresh Qdrant Edge folder and a fresh embedder, the offline summariser, no description or
page cache: a first upload) into ``DIR/<set>.json`` and replays it; ``--replay FILE …`` replays earlier
recordings without ingesting.

Errors: *bar* is the bar's share minus the share of the time elapsed (0 = the bar moves with the clock);
*left* is the estimate over the true time left, minus 1 (+0.30 = 30 % too long); "—" while no estimate is
shown. The summary counts, from 25 % of the time on, the checkpoints with an estimate and those within ±30 %
of the truth. The script also prints each stage's measured cost per unit against one embedded text — the
basis of ``STAGE_COST``.

Then each recording is replayed as the app shows it — the time left asked once a second — and the script
prints when the first estimate came (seconds, share of the work done) and its error; from 25 % of the work on,
how many of those estimates were within ±30 % of the truth and the worst; and the largest rise of the time
left from one second to the next beyond the seconds the bar stood still meanwhile (0 = the time left never
rose by more than the time that passed without progress). ``--meter FILE`` replays with the
``ProgressMeter`` of another version of ``drag_core/ingest/progress.py`` too (``git show REV:… > FILE``), for
a before/after on the same recordings.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.loading import expected_pages
from drag_core.ingest.progress import ProgressMeter
from drag_core.ingest.report import STAGES, ProgressEvent
from drag_core.models.embeddings import Embedder

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no model hub, ever (models load from local folders)
REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
FINANCE = DATA / "financebench-dev" / "docs"
SETS = {
    "manuals": sorted((DATA / "manuals-dev" / "docs").glob("*.pdf")),  # 5 manuals, 544 pages
    # the 8 shortest filings, 156 pages
    "filings": sorted(FINANCE.glob("*.pdf"), key=lambda p: p.stat().st_size)[:8],
    "big": [DATA / "pdfs" / "debian-reference.en.pdf"],  # one 261-page manual
    "financebench": sorted(FINANCE.glob("*.pdf")),  # all 17 filings, 1,408 pages: an evaluation's first run
}
CHECKPOINTS = (0.10, 0.25, 0.50, 0.75)


def record(name: str, files: list[Path], embedder: Embedder, out: Path) -> Path:
    """Ingest ``files`` one after another into a fresh index, as an upload does, writing every progress event
    and every file's end with its time since the start."""
    uploads = [(path.name, path.read_bytes()) for path in files]
    events: list[list[Any]] = []
    ends: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="drag-progress-") as folder:
        settings = Settings.from_env(env={}, store=str(Path(folder) / "qdrant"), cache_path=None)
        engine = Engine(settings, embedder=embedder, summarizer=ExtractiveSummarizer())
        started = time.monotonic()
        for index, (file_name, data) in enumerate(uploads):

            def moved(event: ProgressEvent, index: int = index) -> None:
                events.append([time.monotonic() - started, index, event.stage, event.done, event.total])

            report = engine.ingest_bytes(file_name, data, moved)
            ends.append([time.monotonic() - started, index, str(report.status)])
        engine.close()
    recording = {
        "set": name,
        "files": [{"name": n, "bytes": len(d), "expected_pages": expected_pages(n, d)} for n, d in uploads],
        "events": events,
        "ends": ends,
        "seconds": ends[-1][0],
        "load": os.getloadavg(),
    }
    path = out / f"{name}.json"
    path.write_text(json.dumps(recording))
    return path


def timeline(recording: dict[str, Any]) -> list[tuple[float, str, int, list[Any]]]:
    """Events and ends in time order: (time, kind, file index, the event's fields)."""
    items = [(e[0], "event", e[1], e[2:]) for e in recording["events"]]
    items += [(e[0], "end", e[1], []) for e in recording["ends"]]
    return sorted(items, key=lambda item: item[0])


class OldEstimate:
    """The estimator the app had before ``ProgressMeter``: equal stage shares, files weighted by size."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes, self.fractions = sizes, [0.0] * len(sizes)

    def moved(self, index: int, stage: str, done: int, total: int) -> None:
        at = STAGES.index(stage) if stage in STAGES else 0
        within = done / total if total else 1.0
        self.fractions[index] = min(1.0, (at + within) / len(STAGES))

    def ended(self, index: int) -> None:
        self.fractions[index] = 1.0

    def fraction(self) -> float:
        return sum(s * f for s, f in zip(self.sizes, self.fractions)) / sum(self.sizes)

    def seconds_left(self, elapsed: float) -> float | None:
        share = self.fraction()
        if elapsed < 2.0 or share < 0.02 or share >= 1.0:
            return None
        return elapsed * (1 - share) / share


def replay(recording: dict[str, Any]) -> list[dict[str, Any]]:
    """The bar and the time left of both estimators at each checkpoint of the recorded ingest."""
    total = recording["seconds"]
    files = recording["files"]
    meter = ProgressMeter([(f["name"], f["expected_pages"]) for f in files], started=0.0)
    old = OldEstimate([f["bytes"] for f in files])
    items = timeline(recording)
    rows, position = [], 0
    for share in CHECKPOINTS:
        now = share * total
        while position < len(items) and items[position][0] <= now:
            at, kind, index, fields = items[position]
            if kind == "event":
                stage, done, count = fields
                meter.moved(index, ProgressEvent(files[index]["name"], stage, done, count), at)
                old.moved(index, stage, done, count)
            else:
                meter.ended(index, at)
                old.ended(index)
            position += 1
        truth = total - now
        rows.append(
            {
                "share": share,
                "bar": meter.fraction(now) - share,
                "left": _error(meter.seconds_left(now), truth),
                "old_bar": old.fraction() - share,
                "old_left": _error(old.seconds_left(now), truth),
            }
        )
    return rows


def meter_class(path: Path | None) -> type[ProgressMeter]:
    """``ProgressMeter`` of the ``progress.py`` at ``path`` (this checkout's when None)."""
    if path is None:
        return ProgressMeter
    spec = importlib.util.spec_from_file_location("progress_other", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module.ProgressMeter


def polled(recording: dict[str, Any], meter_type: type[ProgressMeter] = ProgressMeter) -> dict[str, Any]:
    """The time left as the app shows it (asked once a second): the first estimate (time, share of the work,
    error), the errors from 25 % of the work on, and the largest rise between two seconds beyond the seconds
    the bar stood still meanwhile (``still``; a meter without it: the whole rise)."""
    total = recording["seconds"]
    files = recording["files"]
    meter = meter_type([(f["name"], f["expected_pages"]) for f in files], started=0.0)
    items = timeline(recording)
    final = _final_work(recording)
    first: tuple[float, float, float] | None = None
    late: list[float] = []
    rise, position, before = 0.0, 0, None
    still, bar = 0.0, None  # seconds the bar stood still, watched every 10 ms
    for step in range(1, math.ceil(total) * 100):
        now = step / 100
        still += 0.01 if meter.fraction(now) == bar else 0.0
        while position < len(items) and items[position][0] <= now:
            at, kind, index, fields = items[position]
            if kind == "event":
                meter.moved(index, ProgressEvent(files[index]["name"], *fields), at)
            else:
                meter.ended(index, at)
            position += 1
        bar = meter.fraction(now)
        if step % 100:
            continue
        left = meter.seconds_left(now)
        if left is None:
            before = None
            continue
        error = left / (total - now) - 1
        share = meter.work_done() / final
        if first is None:
            first = (now, share, error)
        if share >= 0.25:
            late.append(error)
        if before is not None:
            rise = max(rise, left - before[0] - (still - before[1]))
        before = (left, still)
    return {"first": first, "late": late, "rise": rise}


def _final_work(recording: dict[str, Any]) -> float:
    """The whole ingest's work, as the meter counts it once every file ended."""
    files = recording["files"]
    meter = ProgressMeter([(f["name"], f["expected_pages"]) for f in files], started=0.0)
    for at, kind, index, fields in timeline(recording):
        if kind == "event":
            meter.moved(index, ProgressEvent(files[index]["name"], *fields), at)
        else:
            meter.ended(index, at)
    return meter.work_done()


def report_polled(paths: list[Path], meters: dict[str, type[ProgressMeter]]) -> None:
    print(
        "\n| set | meter | first estimate at | its share of the work | its error | from 25 % of the work: "
        "within ±30 % | median · worst abs. error | largest rise beyond the stall |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for path in paths:
        recording = json.loads(path.read_text())
        for name, meter_type in meters.items():
            found = polled(recording, meter_type)
            first, late = found["first"], found["late"]
            at = "—" if first is None else f"{first[0]:.0f} s of {recording['seconds']:.0f}"
            share = "—" if first is None else f"{first[1]:.0%}"
            within = sum(abs(e) <= 0.30 for e in late)
            worst = f"{statistics.median(map(abs, late)):.2f} · {max(map(abs, late)):.2f}" if late else "—"
            print(
                f"| {recording['set']} | {name} | {at} | {share} | {_cell(first and first[2])} | {within} of "
                f"{len(late)} | {worst} | {found['rise']:.1f} s |"
            )


def _error(estimate: float | None, truth: float) -> float | None:
    return None if estimate is None else estimate / truth - 1


def stage_costs(recording: dict[str, Any]) -> dict[str, float]:
    """Measured seconds per unit of each stage (pages: per page read; summaries: per page; tree: per parent;
    vectors: per embedded text; store: per node), over the seconds per embedded text."""
    seconds: dict[str, float] = dict.fromkeys(STAGES, 0.0)
    units: dict[str, float] = dict.fromkeys(STAGES, 0.0)
    by_file: dict[int, list[list[Any]]] = {}
    for event in recording["events"]:
        by_file.setdefault(event[1], []).append(event)
    ends = {e[1]: e[0] for e in recording["ends"]}
    for index, events in by_file.items():
        first_seen: dict[str, float] = {}
        totals: dict[str, int] = {}
        for at, _, stage, _done, total in events:
            first_seen.setdefault(stage, at)
            totals[stage] = total
        order = [s for s in STAGES if s in first_seen]
        for stage, after in zip(order, [*order[1:], None]):
            seconds[stage] += (first_seen[after] if after else ends[index]) - first_seen[stage]
            units[stage] += totals[stage]
    per_text = seconds["vectors"] / units["vectors"]
    return {s: seconds[s] / units[s] / per_text for s in STAGES if units[s]}


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{value:+.2f}"


def report(paths: list[Path]) -> None:
    print("| set | files | pages | seconds | load | at | bar | left | bar before | left before |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    late: dict[str, list[float | None]] = {"left": [], "old_left": []}  # from 25 % of the time on
    for path in paths:
        recording = json.loads(path.read_text())
        pages = sum(f["expected_pages"] for f in recording["files"])
        load = "–".join(f"{v:.1f}" for v in recording["load"][:2])
        for row in replay(recording):
            print(
                f"| {recording['set']} | {len(recording['files'])} | {pages} | {recording['seconds']:.0f} | {load} "
                f"| {row['share']:.0%} | {_cell(row['bar'])} | {_cell(row['left'])} | {_cell(row['old_bar'])} "
                f"| {_cell(row['old_left'])} |"
            )
            if row["share"] >= 0.25:
                late["left"].append(row["left"])
                late["old_left"].append(row["old_left"])
    for key, name in (("left", "ProgressMeter"), ("old_left", "before")):
        shown = [abs(e) for e in late[key] if e is not None]
        within = sum(e <= 0.30 for e in shown)
        worst = f", worst {max(shown):.2f}" if shown else ""
        print(
            f"\n{name}, from 25 % of the time on: an estimate at {len(shown)} of {len(late[key])} checkpoints, "
            f"{within} within ±30 % (median |error| {statistics.median(shown) if shown else 0:.2f}{worst})"
        )
    print("\nmeasured cost per unit, in embedded texts (per recording, then the median):")
    costs = [stage_costs(json.loads(p.read_text())) for p in paths]
    for path, cost in zip(paths, costs):
        print("  " + path.stem + ": " + ", ".join(f"{s} {c:.3f}" for s, c in cost.items()))
    median = {s: statistics.median(c[s] for c in costs if s in c) for s in costs[0]}
    print("  median: " + ", ".join(f"{s} {c:.3f}" for s, c in median.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", choices=sorted(SETS), default=list(SETS))
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "drag-progress-recordings")
    parser.add_argument("--replay", nargs="+", type=Path, help="recordings to replay (no ingest)")
    parser.add_argument("--meter", type=Path, help="another progress.py whose ProgressMeter is replayed too")
    args = parser.parse_args()
    paths = args.replay
    if not paths:
        args.out.mkdir(parents=True, exist_ok=True)
        paths = []
        for name in args.sets:  # a fresh embedder each: every recording starts as a new app process does
            paths.append(record(name, SETS[name], Embedder(REPO / "models"), args.out))
            print(f"recorded {paths[-1]}", flush=True)
    report(paths)
    meters = {"this": ProgressMeter, **({args.meter.name: meter_class(args.meter)} if args.meter else {})}
    report_polled(paths, meters)


if __name__ == "__main__":
    main()
