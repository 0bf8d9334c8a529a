"""Where each question's own document ranks in the roots' ranking that ``branch``, ``beam`` and ``knee-beam``
start from, per vector policy and way of ranking the roots (``SearchParams.root_rank``), on an evaluation index
(built by ``eval`` with the same ``DRAG_EVAL_DIR``).

Run: ``.venv/bin/python bench/root_ranks.py DATASET centroid,subtree blend,vocabulary …`` (dense,sparse).
Prints, for each policy and each ``root_rank``, the share of questions whose document is first, in the top 2
and in the top 3 (``roots`` = 3).
"""

from __future__ import annotations

import argparse

from drag_core.config import Settings
from drag_core.evaluation.datasets import load_dataset
from drag_core.evaluation.index import open_index
from drag_core.ingest.vector_text import VectorPolicy
from drag_core.params import ROOT_RANKS, SearchParams


def root_ranks(dataset_path: str, policy: VectorPolicy) -> dict[str, list[int]]:
    """Per ``root_rank``, the rank (1-based; 0: not ranked) of each question's document among the roots."""
    dataset = load_dataset(dataset_path)
    engine, _ = open_index(dataset, Settings.from_env(), policy=policy)
    ranks: dict[str, list[int]] = {way: [] for way in ROOT_RANKS}
    try:
        for query in dataset.queries:
            for way in ROOT_RANKS:
                found = engine.search(query.text, "branch", SearchParams(root_rank=way)).trace[0]
                roots = [c.file_name for c in found.candidates]
                ranks[way].append(roots.index(query.doc) + 1 if query.doc in roots else 0)
    finally:
        engine.close()
    return ranks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("policies", nargs="+", metavar="DENSE,SPARSE")
    args = parser.parse_args()
    for policy in args.policies:
        dense, sparse = policy.split(",")
        found = root_ranks(args.dataset, VectorPolicy(parent_dense=dense, parent_sparse=sparse))
        for way, ranks in found.items():
            shares = [sum(0 < r <= k for r in ranks) / len(ranks) for k in (1, 2, 3)]
            print(
                f"{policy} {way}: first {shares[0]:.2f}, top 2 {shares[1]:.2f}, top 3 {shares[2]:.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
