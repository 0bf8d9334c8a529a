"""Replay cut and breadth policies over recorded rankings: the round-3 lever study of ``docs/evaluation.md``
("Never lose a document").

``record`` runs ``adaptive`` without breadth over every query of a data set, through the library, and writes
what each query's policies need as JSON: the seed ranking (flat hybrid over every page, 50 deep — the ranking
``flat`` cuts), the final ranking (the chosen documents' pages with scoped IDF, 50 deep), how many the knee
kept, every candidate's cosine and ranks, the rank of each candidate's parent among their parents, and the
relevant units. ``table`` replays every policy in ``POLICIES`` over recordings and scores it the way ``eval``
scores a run (``drag_core.evaluation.budget``): gain_vs_flat [95 %] · mean pages · doc_hit / flat top-5's.

    python bench/policy_replay.py record ../shared/data/financebench-dev fb.json
    python bench/policy_replay.py record ../shared/data/scifact sf-train.json --split train
    python bench/policy_replay.py table fb.json man.json sf-train.json sf-test.json

The index is the one ``eval`` builds (``$DRAG_EVAL_DIR``, default ``data/eval``); ``record`` builds it if missing.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from drag_core.config import Settings
from drag_core.evaluation.budget import FlatCurve, doc_hit, judge
from drag_core.evaluation.datasets import Dataset, load_dataset
from drag_core.evaluation.index import open_index
from drag_core.evaluation.metrics import Unit, mean, right_sized_recall
from drag_core.knee import find_knee
from drag_core.search import SearchContext, SearchParams, Step, StepKind
from drag_core.search.adaptive import keep_documents
from drag_core.store import Candidate, Scope


@dataclass
class Recorded:
    """One query's rankings.

    Attributes:
        query_id: the query.
        seeds: the flat hybrid ranking of every page, best first.
        pages: ``adaptive``'s final ranking (its chosen documents' pages), best first.
        knee_kept: how many of ``pages`` the knee kept.
        parent_rank: parent id → 1-based rank among the parents of the candidates.
        units: candidate id → the units it covers.
        relevant: unit → grade.
        own: the question's own files.
    """

    query_id: str
    seeds: list[Candidate]
    pages: list[Candidate]
    knee_kept: int
    parent_rank: dict[int, int]
    units: dict[int, list[Unit]]
    relevant: dict[Unit, int]
    own: set[str]


def record(dataset: Dataset) -> list[dict]:
    """Every query's rankings, as JSON-ready dicts."""
    engine, _ = open_index(dataset, Settings.from_env())  # a bench is an entry point
    rows = []
    try:
        for query in dataset.queries:
            vectors = engine.embed_query(query.text)
            result = engine.search(query.text, "adaptive", SearchParams(doc_breadth=0), vectors=vectors)
            seeds, pages = result.trace[0], result.trace[1]
            ctx = SearchContext(engine.store, vectors, SearchParams())
            parents = tuple(sorted({c.parent_id for c in seeds.candidates + pages.candidates} - {-1}))
            ranked: list[int] = []
            if parents:
                (step,) = ctx.rank([Scope(ids=parents, limit=len(parents))], StepKind.RANKING, ["parents"])
                ranked = [c.id for c in step.candidates]
            every = {c.id: c for c in seeds.candidates + pages.candidates}
            rows.append(
                {
                    "query_id": query.id,
                    "seeds": [asdict(c) for c in seeds.candidates],
                    "pages": [asdict(c) for c in pages.candidates],
                    "knee_kept": pages.cut,
                    "parents": ranked,
                    "units": {
                        i: dataset.units(c.file_name, c.page_start, c.page_end) for i, c in every.items()
                    },
                    "relevant": [[*unit, grade] for unit, grade in dataset.qrels[query.id].items()],
                    "own": sorted(dataset.own_files(query)),
                }
            )
    finally:
        engine.close()
    return rows


def load(path: Path) -> list[Recorded]:
    """Recorded queries from ``record``'s JSON."""
    out = []
    for row in json.loads(path.read_text()):
        candidates = {
            key: [Candidate(**{**c, "child_ids": tuple(c["child_ids"])}) for c in row[key]]
            for key in ("seeds", "pages")
        }
        out.append(
            Recorded(
                row["query_id"],
                candidates["seeds"],
                candidates["pages"],
                row["knee_kept"],
                {pid: rank for rank, pid in enumerate(row["parents"], start=1)},
                {int(i): [tuple(u) for u in units] for i, units in row["units"].items()},
                {(file, page): grade for file, page, grade in row["relevant"]},
                set(row["own"]),
            )
        )
    return out


# -- policies: a recorded query → the candidates returned, best first -------------------------------------


def knee(ranking: list[Candidate], sensitivity: float = 1.0, most: int = 5, method: str = "kneedle") -> int:
    """How many of a ranking the knee of its sorted cosines keeps (as ``SearchContext.knee_cut``)."""
    curve = sorted((c.dense_score or 0.0 for c in ranking), reverse=True)
    return find_knee(curve, method, sensitivity, min(1, len(curve)), most).keep if curve else 0


def union(*rankings: list[Candidate]) -> list[Candidate]:
    return list({c.id: c for ranking in rankings for c in ranking}.values())


def breadth(kept: list[Candidate], seeds: list[Candidate], first: int = 5) -> list[Candidate]:
    """``kept`` plus the best seed page of every document of the first ``first`` seeds it lacks (the
    library's own breadth step)."""
    return keep_documents(Step("seeds", seeds), kept, first)[0]


def neighbours(kept: list[Candidate], ranking: list[Candidate], depth: int) -> list[Candidate]:
    """``kept`` plus every page of ``ranking``'s first ``depth`` next to a kept page of the same file."""
    near = {(c.file_name, c.page_start + d) for c in kept for d in (-1, 1)}
    return union(kept, [c for c in ranking[:depth] if (c.file_name, c.page_start) in near])


def fill_holes(kept: list[Candidate], ranking: list[Candidate], widest: int = 1) -> list[Candidate]:
    """``kept`` plus the pages of ``ranking`` that fill a hole of at most ``widest`` pages between two kept
    pages of one file (a span read whole)."""
    pages: dict[str, set[int]] = {}
    for c in kept:
        pages.setdefault(c.file_name, set()).update(range(c.page_start, c.page_end + 1))
    holes = {
        (name, page)
        for name, found in pages.items()
        for low, high in zip(sorted(found), sorted(found)[1:], strict=False)
        if 1 < high - low <= widest + 1
        for page in range(low + 1, high)
    }
    return union(kept, [c for c in ranking if c.level == 0 and (c.file_name, c.page_start) in holes])


def tree_prior(q: Recorded, weight: float) -> list[Candidate]:
    """The final ranking re-ordered by its fused rank plus ``weight`` × its parent's RRF term, then the knee."""

    def score(rank: int, c: Candidate) -> float:
        parent = q.parent_rank.get(c.parent_id)
        return 1 / (60 + rank) + (weight / (60 + parent) if parent else 0.0)

    ordered = [c for _, c in sorted(enumerate(q.pages, start=1), key=lambda rc: -score(*rc))]
    return ordered[: knee(ordered)]


def consensus(ranking: list[Candidate], depth: int, most: int = 5) -> list[Candidate]:
    """As many as pages both lists rank in their first ``depth`` (1 … ``most``)."""
    both = sum(1 for c in ranking if max(c.dense_rank or depth + 1, c.sparse_rank or depth + 1) <= depth)
    return ranking[: max(1, min(most, both))]


def answer(q: Recorded) -> list[Candidate]:
    return q.pages[: q.knee_kept]


POLICIES: dict[str, Callable[[Recorded], list[Candidate]]] = {
    "adaptive without breadth": answer,
    "tree prior w=0.5": lambda q: tree_prior(q, 0.5),
    "tree prior w=1": lambda q: tree_prior(q, 1.0),
    "neighbours (first 5)": lambda q: neighbours(answer(q), q.pages, 5),
    "neighbours (first 10)": lambda q: neighbours(answer(q), q.pages, 10),
    "consensus top 10": lambda q: consensus(q.pages, 10),
    "consensus top 5": lambda q: consensus(q.pages, 5),
    "∪ flat-knee S=2": lambda q: union(answer(q), q.seeds[: knee(q.seeds, 2.0)]),
    "∪ flat top-2": lambda q: union(answer(q), q.seeds[:2]),
    "breadth 3": lambda q: breadth(answer(q), q.seeds, 3),
    "breadth 4": lambda q: breadth(answer(q), q.seeds, 4),
    "breadth 5 (the default)": lambda q: breadth(answer(q), q.seeds, 5),
    "breadth 5 + neighbours (first 5)": lambda q: breadth(neighbours(answer(q), q.pages, 5), q.seeds),
    "breadth 5 + one-page holes filled": lambda q: breadth(fill_holes(answer(q), q.pages), q.seeds),
    "breadth 5 + holes of ≤ 2 pages filled": lambda q: breadth(fill_holes(answer(q), q.pages, 2), q.seeds),
    "breadth 5, chord knee": lambda q: breadth(q.pages[: knee(q.pages, method="chord")], q.seeds),
    "breadth 5, kneedle S=2": lambda q: breadth(q.pages[: knee(q.pages, 2.0)], q.seeds),
    "breadth 5, max_keep 4": lambda q: breadth(q.pages[: knee(q.pages, most=4)], q.seeds),
}


def cell(queries: list[Recorded], policy: Callable[[Recorded], list[Candidate]]) -> str:
    """gain_vs_flat [95 %] · mean pages · doc_hit / flat top-5's, as ``eval`` computes them."""
    flat, recalls, pages, hits = FlatCurve(), {}, [], []
    for q in queries:
        ranked = list(dict.fromkeys(u for c in q.seeds for u in q.units[c.id]))
        flat.add(q.query_id, ranked, q.relevant, q.own)
        returned = policy(q)
        units = list(dict.fromkeys(u for c in returned for u in q.units[c.id]))
        recalls[q.query_id] = right_sized_recall(units, q.relevant)
        pages.append(float(len(units)))
        hits.append(doc_hit([c.file_name for c in returned], q.own))
    verdict = judge(recalls, mean(pages), flat)
    low, high = verdict.interval or (0.0, 0.0)
    return (
        f"{verdict.gain:+.3f} [{low:+.3f}, {high:+.3f}] · {mean(pages):.1f} · "
        f"{mean(hits):.2f}/{verdict.flat_doc_hit:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    rec = commands.add_parser("record", help="record a data set's rankings")
    rec.add_argument("dataset", type=Path)
    rec.add_argument("out", type=Path)
    rec.add_argument("--split", default="test")
    tab = commands.add_parser("table", help="replay every policy over recordings")
    tab.add_argument("recordings", type=Path, nargs="+")
    args = parser.parse_args()
    if args.command == "record":
        args.out.write_text(json.dumps(record(load_dataset(args.dataset, args.split))))
        return
    sets = {path.stem: load(path) for path in args.recordings}
    print(f"| policy | {' | '.join(sets)} |\n|---|{'---|' * len(sets)}")
    for name, policy in POLICIES.items():
        print(f"| {name} | {' | '.join(cell(queries, policy) for queries in sets.values())} |")


if __name__ == "__main__":
    main()
