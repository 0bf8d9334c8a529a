"""What passages cost at ingest: seconds per page with passages off (the page vectors alone, as before issue 26)
against other vector policies (the default first), the same files into throw-away stores in one process.

Run: ``.venv/bin/python bench/ingest_cost.py [FILE ...] [--policy SPEC ...] [--rounds N] [--cold]``.

* Files: R-FAQ.pdf (manuals-dev) and AMCOR's 8-K (financebench-dev), 61 pages, unless named.
* A warm-up pass ingests them once, so the page cache and the description cache hold every page and
  description; each measured pass then reads them from the caches and the vectors stage is nearly the whole
  ingest (``--cold`` also measures a first ingest: empty caches, so parsing and describing count too).
* ``--policy`` names what is compared with passages off: ``default`` (``VectorPolicy()``) or
  ``field=value,...`` over the default (``page_vector=first,pack=on``; a flag reads on/off). The passes
  alternate, ``--rounds`` times, so a drift of the shared machine's load falls on every policy alike; the sums
  over the rounds count.
* ``--texts-only``: no ingest, no model call: the dense texts and word pieces each policy would embed for the
  named files (or folders of them: ``../shared/data/manuals-dev/docs``), counted with the model's tokenizer.

Printed per policy: ingest seconds per page (wall and CPU, this process and its parse workers), the vectors
stage's seconds per page, the dense texts embedded (and their word pieces as the model reads them, up to its
window), BM25 texts, and the ratios to passages off.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.loading import load_path
from drag_core.ingest.sections import Sections
from drag_core.ingest.vector_text import VectorPolicy, dense_count, leaf_text, passage_texts
from drag_core.models.embeddings import Embedder
from drag_core.types import Node

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no model hub, ever (models load from local folders)
REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
FILES = (
    DATA / "manuals-dev" / "docs" / "R-FAQ.pdf",
    DATA / "financebench-dev" / "docs" / "AMCOR_2022_8K_dated-2022-07-01.pdf",
)
OFF = "passages=off"


class CountingEmbedder(Embedder):
    """The embedder, keeping the texts it embeds densely (counted after a pass, outside its timing)."""

    def __init__(self, model_dir: Path) -> None:
        self.dense_texts: list[str] = []
        super().__init__(model_dir)

    def dense(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        self.dense_texts.extend(texts)
        return super().dense(texts, progress)


@dataclass
class Tally:
    """One policy's sums over its passes."""

    pages: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    dense: int = 0
    pieces: int = 0
    sparse: int = 0
    stages: dict[str, float] = field(default_factory=dict)


def cpu_seconds() -> float:
    """CPU seconds of this process and of its ended children (the parse workers) so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def policy_of(spec: str) -> VectorPolicy:
    """``default`` or ``field=value,...`` over the default policy."""
    if spec == "default":
        return VectorPolicy()
    default = VectorPolicy()
    changes: dict[str, str | bool] = {}
    for name, value in (item.split("=", 1) for item in spec.split(",")):
        flag = isinstance(getattr(default, name), bool)
        changes[name] = value.lower() in ("1", "true", "on", "yes") if flag else value
    return dataclasses.replace(default, **changes)


def ingest(
    files: Sequence[Path],
    policy: VectorPolicy,
    embedder: CountingEmbedder,
    store: Path,
    cache: Path,
    tally: Tally,
) -> None:
    """Ingest ``files`` into a fresh store with the description and page caches at ``cache``; add to ``tally``."""
    settings = Settings(store=str(store), cache_path=cache)
    engine = Engine(settings, ExtractiveSummarizer(), embedder, policy)
    embedder.dense_texts, sparse_before = [], embedder.embedded
    started, cpu = time.perf_counter(), cpu_seconds()
    reports = engine.ingest_paths(list(files))
    tally.wall += time.perf_counter() - started
    tally.cpu += cpu_seconds() - cpu
    engine.close()
    failed = [r.line() for r in reports if not r.ok]
    if failed:
        raise SystemExit("\n".join(failed))
    tally.pages += sum(r.pages for r in reports)
    for report in reports:
        for name, seconds in report.stage_seconds.items():
            tally.stages[name] = tally.stages.get(name, 0.0) + seconds
    tally.dense += len(embedder.dense_texts)
    tally.sparse += embedder.embedded - sparse_before - len(embedder.dense_texts)
    tally.pieces += sum(min(embedder.pieces(t), embedder.max_pieces) for t in embedder.dense_texts)


def table(title: str, tallies: dict[str, Tally]) -> None:
    """One Markdown table: a row per policy, ratios to the first."""
    print(f"\n{title}\n")
    print(
        "| policy | s / page (wall) | CPU s / page | vectors s / page | dense texts / page | pieces / page | BM25 texts / page | × wall | × CPU | × dense pieces |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    ref = next(iter(tallies.values()))
    for spec, t in tallies.items():
        pages = t.pages or 1
        print(
            f"| {spec} ({policy_of(spec).identity}) | {t.wall / pages:.3f} | {t.cpu / pages:.3f} | {t.stages.get('vectors', 0.0) / pages:.3f} "
            f"| {t.dense / pages:.2f} | {t.pieces / pages:.0f} | {t.sparse / pages:.2f} | {t.wall / ref.wall:.2f} "
            f"| {t.cpu / ref.cpu:.2f} | {t.pieces / ref.pieces:.2f} |"
        )


def count_texts(files: Sequence[Path], specs: Sequence[str], embedder: Embedder) -> None:
    """The dense texts and word pieces each policy embeds for the pages of ``files`` (a page's leaf; parents
    as the default ``centroid`` policy builds them: no text)."""
    counts = {spec: [0, 0] for spec in specs}
    pages = 0
    for path in files:
        document = load_path(path)
        bodies = [page.body for page in document.pages]
        sections = Sections(document.outline, len(bodies))
        leaves = [
            Node(i, -1, [], 0, document.doc_id, document.file_name, p.number, p.number, [], "")
            for i, p in enumerate(document.pages)
        ]
        pages += len(leaves)
        for spec in specs:
            policy = policy_of(spec)
            passages = passage_texts(leaves, policy, bodies, sections, embedder)
            texts = [t for own in passages for t in own or ()]
            texts += [
                leaf_text(n, bodies, sparse=False)
                for n, own in zip(leaves, passages, strict=True)
                if not (own and policy.page_vector != "window")
            ]
            assert len(texts) == dense_count(leaves, policy, passages)
            counts[spec][0] += len(texts)
            counts[spec][1] += sum(min(embedder.pieces(t), embedder.max_pieces) for t in texts)
    print(f"pages={pages} files={len(files)}\n")
    print("| policy | dense texts | per page | word pieces | per page | × texts | × pieces |")
    print("|---|---|---|---|---|---|---|")
    ref = counts[specs[0]]
    for spec, (texts, pieces) in counts.items():
        print(
            f"| {spec} ({policy_of(spec).identity}) | {texts} | {texts / pages:.2f} | {pieces} | {pieces / pages:.0f} "
            f"| {texts / ref[0]:.2f} | {pieces / ref[1]:.2f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=list(FILES))
    parser.add_argument("--policy", nargs="+", default=["default"], metavar="SPEC")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--cold", action="store_true", help="also a first ingest: empty page and description caches"
    )
    parser.add_argument(
        "--texts-only", action="store_true", help="count the texts each policy embeds, no ingest"
    )
    args = parser.parse_args()
    specs = [OFF, *args.policy]
    embedder = CountingEmbedder(Path(os.environ.get("DRAG_MODEL_DIR", REPO / "models")))
    if args.texts_only:
        files = [f for path in args.files for f in (sorted(path.glob("*.pdf")) if path.is_dir() else [path])]
        count_texts(files, specs, embedder)
        return
    print(
        f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f} files={', '.join(f.name for f in args.files)}"
    )
    warm = {spec: Tally() for spec in specs}
    cold = {spec: Tally() for spec in specs}
    with tempfile.TemporaryDirectory(prefix="drag-ingest-cost-") as tmp:
        folder = Path(tmp)
        cache = folder / "cache" / "descriptions.sqlite"
        cache.parent.mkdir()
        ingest(args.files, VectorPolicy(), embedder, folder / "warm-up", cache, Tally())
        run = 0
        for _ in range(args.rounds):
            for spec in specs:
                run += 1
                ingest(args.files, policy_of(spec), embedder, folder / f"store-{run}", cache, warm[spec])
                if args.cold:
                    empty = folder / f"cache-{run}" / "descriptions.sqlite"
                    empty.parent.mkdir()
                    ingest(args.files, policy_of(spec), embedder, folder / f"cold-{run}", empty, cold[spec])
    print(f"pages={warm[OFF].pages // args.rounds} rounds={args.rounds} load={os.getloadavg()[0]:.1f}")
    table("Pages and descriptions from the caches (the vectors stage is the ingest):", warm)
    if args.cold:
        table("First ingest (empty caches: parsing and describing count):", cold)


if __name__ == "__main__":
    main()
