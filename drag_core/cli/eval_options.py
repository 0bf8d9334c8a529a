"""The options of the ``eval`` and ``sweep`` commands (their bodies are in ``evaluate``, imported only when run).

Examples::

    drag eval ../shared/data/financebench-dev --strategies flat flat-knee adaptive --json out.json
    drag eval ../shared/data/scifact --strategies flat-sparse flat-dense flat:top_k=10
    drag sweep ../shared/data/financebench-dev --strategies adaptive --param sensitivity --values 0.5 1 2 4
    drag eval --labels --store ./data/qdrant     # the pages marked in the app, on that store's own index

A run is ``STRATEGY`` or ``STRATEGY:field=value,field=value`` with fields of ``SearchParams``; ``--set`` gives
every run a base value. Tables go to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from drag_core.ingest.vector_text import (
    PAGE_VECTOR_CHOICES,
    PARENT_DENSE_CHOICES,
    PARENT_SPARSE_CHOICES,
    PASSAGE_CHOICES,
    VectorPolicy,
)
from drag_core.search import DEFAULT_STRATEGIES

__all__ = ["CORPUS", "add_parsers"]

CORPUS = "corpus"


def add_parsers(sub: Any) -> None:
    """Add ``eval`` and ``sweep`` to the subcommand parsers."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "dataset", type=Path, nargs="?", help="a page data set or a BEIR passage data set folder"
    )
    common.add_argument(
        "--labels",
        action="store_true",
        help="instead of a data set: the pages marked relevant in the app (the store's labels/ folder), "
        "evaluated on the store's own index (--store), nothing ingested",
    )
    common.add_argument(
        "--store", metavar="DIR", help="with --labels: the index folder (default: DRAG_STORE)"
    )
    common.add_argument("--strategies", nargs="+", default=list(DEFAULT_STRATEGIES), metavar="RUN")
    common.add_argument("--set", nargs="+", default=[], metavar="FIELD=VALUE", help="base search parameters")
    common.add_argument("--index", help="index folder (default data/eval/<data set>/<vector policy>)")
    common.add_argument("--parent-dense", choices=PARENT_DENSE_CHOICES, default=VectorPolicy.parent_dense)
    common.add_argument("--parent-sparse", choices=PARENT_SPARSE_CHOICES, default=VectorPolicy.parent_sparse)
    common.add_argument(
        "--leaf-passages",
        choices=PASSAGE_CHOICES,
        default=VectorPolicy.passages,
        help="the leaves' passage vectors: under the file's title, also under the section heading, or none",
    )
    common.add_argument(
        "--page-vector",
        choices=PAGE_VECTOR_CHOICES,
        default=VectorPolicy.page_vector,
        help="a page vector where the page has passages: its own first word pieces, its first passage's "
        "vector, or the mean of its passages'",
    )
    common.add_argument(
        "--pack-sections",
        action=argparse.BooleanOptionalAction,
        default=VectorPolicy.pack,
        help="consecutive sections of a page that fit one passage together share it",
    )
    common.add_argument("--bm25-k1", type=float, help="BM25 k1 (default DRAG_BM25_K1 or 1.2)")
    common.add_argument("--bm25-b", type=float, help="BM25 b (default DRAG_BM25_B or 0.75)")
    common.add_argument(
        "--bm25-avg-len",
        type=_avg_len,
        metavar="TOKENS|corpus",
        help="BM25 average document length; 'corpus' measures it on the data set (default DRAG_BM25_AVG_LEN or 256)",
    )
    common.add_argument("--split", default="test", help="qrels split of a BEIR data set")
    common.add_argument("--limit", type=int, help="evaluate the first N queries only")
    common.add_argument("--json", type=Path, metavar="OUT", help="write the full report as JSON")
    common.add_argument("--csv", type=Path, metavar="OUT", help="write per-query rows and means as CSV")
    common.add_argument("--plot", type=Path, metavar="OUT.html", help="write the recall/pages plot")
    common.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    common.add_argument("--baseline", metavar="RUN", help="compare every run with this one, query by query")
    common.add_argument(
        "--no-slider",
        action="store_true",
        help="skip the slider diagnostic (each knee run searched again at every Sensitivity value of its detector)",
    )
    sub.add_parser("eval", parents=[common], help="evaluate strategies on a data set with relevance labels")
    sweep = sub.add_parser("sweep", parents=[common], help="evaluate strategies over values of one parameter")
    sweep.add_argument(
        "--param", required=True, help="a SearchParams field, e.g. sensitivity, beam_width, rrf_k"
    )
    sweep.add_argument("--values", nargs="+", required=True)


def _avg_len(text: str) -> float | str:
    return text if text == CORPUS else float(text)
