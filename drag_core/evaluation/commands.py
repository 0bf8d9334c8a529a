"""The ``eval`` and ``sweep`` subcommands of ``python -m drag_core``: options and bodies.

Examples::

    python -m drag_core eval ../shared/data/financebench-dev --strategies flat flat-knee adaptive --json out.json
    python -m drag_core eval ../shared/data/scifact --strategies flat-sparse flat-dense flat:top_k=10
    python -m drag_core sweep ../shared/data/financebench-dev --strategies adaptive --param sensitivity \\
        --values 0.5 1 2 4 --plot sweep.html

A run is ``STRATEGY`` or ``STRATEGY:field=value,field=value`` with fields of ``SearchParams``; ``--set`` gives
every run a base value. Tables go to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from drag_core.config import Bm25Params, Settings
from drag_core.embeddings import Embedder
from drag_core.engine import Engine
from drag_core.evaluation.datasets import Dataset, load_dataset
from drag_core.evaluation.index import corpus_avg_len, open_index
from drag_core.evaluation.plots import recall_vs_pages, sweep_figure
from drag_core.evaluation.report import comparisons, headline, table, write_csv, write_json
from drag_core.evaluation.runner import Report, RunSpec, evaluate, param_value, parse_spec
from drag_core.evaluation.sweep import run_sweep
from drag_core.ingest import ProgressEvent
from drag_core.search import DEFAULT_STRATEGIES, SearchParams
from drag_core.vector_text import PARENT_DENSE_CHOICES, PARENT_SPARSE_CHOICES, VectorPolicy

CORPUS = "corpus"


def add_parsers(sub: Any) -> None:
    """Add ``eval`` and ``sweep`` to the subcommand parsers."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("dataset", type=Path, help="a page data set or a BEIR passage data set folder")
    common.add_argument("--strategies", nargs="+", default=list(DEFAULT_STRATEGIES), metavar="RUN")
    common.add_argument("--set", nargs="+", default=[], metavar="FIELD=VALUE", help="base search parameters")
    common.add_argument("--index", help="index folder (default data/eval/<data set>/<vector policy>)")
    common.add_argument("--parent-dense", choices=PARENT_DENSE_CHOICES, default=VectorPolicy.parent_dense)
    common.add_argument("--parent-sparse", choices=PARENT_SPARSE_CHOICES, default=VectorPolicy.parent_sparse)
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
    sub.add_parser("eval", parents=[common], help="evaluate strategies on a data set with relevance labels")
    sweep = sub.add_parser("sweep", parents=[common], help="evaluate strategies over values of one parameter")
    sweep.add_argument(
        "--param", required=True, help="a SearchParams field, e.g. sensitivity, beam_width, rrf_k"
    )
    sweep.add_argument("--values", nargs="+", required=True)


def _avg_len(text: str) -> float | str:
    return text if text == CORPUS else float(text)


def _bm25(args: argparse.Namespace, dataset: Dataset) -> Bm25Params:
    """The BM25 constants of the options, over those of the environment; ``corpus`` is measured here."""
    settings = Settings.from_env()
    configured = settings.bm25
    avg_len = configured.avg_len if args.bm25_avg_len is None else args.bm25_avg_len
    if avg_len == CORPUS:  # the tokens do not depend on the constants: any BM25 embedder counts them
        avg_len = corpus_avg_len(dataset, Embedder(settings.model_dir))
        print(f"  BM25 avg_len of {dataset.name}: {avg_len:.1f} tokens", file=sys.stderr)
    return Bm25Params(
        configured.k1 if args.bm25_k1 is None else args.bm25_k1,
        configured.b if args.bm25_b is None else args.bm25_b,
        float(avg_len),
    )


def _specs(args: argparse.Namespace) -> list[RunSpec]:
    base: dict[str, Any] = {}
    for item in args.set:
        name, _, value = item.partition("=")
        base[name] = param_value(name, value)
    params = SearchParams(**base)
    return [parse_spec(text, params) for text in args.strategies]


def _progress(done: int, total: int, query_id: str) -> None:
    if done == total or done % 10 == 0:
        print(f"  query {done}/{total} ({query_id})", file=sys.stderr, flush=True)


def _ingest_progress(event: ProgressEvent) -> None:
    if event.done == event.total:
        print(f"  {event.file_name}: {event.stage} {event.done}", file=sys.stderr, flush=True)


def _open(args: argparse.Namespace) -> tuple[Dataset, Engine, dict[str, Any]]:
    dataset = load_dataset(args.dataset, args.split).subset(args.limit)
    policy = VectorPolicy(parent_dense=args.parent_dense, parent_sparse=args.parent_sparse)
    print(f"preparing the index of {dataset.name} ({len(dataset.queries)} queries)", file=sys.stderr)
    bm25 = _bm25(args, dataset)
    engine, index = open_index(dataset, args.index, policy, progress=_ingest_progress, bm25=bm25)
    for line in index["failed"]:
        print(f"  {line}", file=sys.stderr)
    return dataset, engine, index


def _write(args: argparse.Namespace, report: Report, figure: go.Figure) -> None:
    print(headline(report))
    print(table(report, markdown=args.markdown))
    for line in comparisons(report, args.baseline) if args.baseline else []:
        print(line)
    if args.json:
        write_json(report, args.json)
    if args.csv:
        write_csv(report, args.csv)
    if args.plot:
        figure.write_html(args.plot)


def eval_command(args: argparse.Namespace) -> int:
    specs = _specs(args)
    if args.baseline and args.baseline not in {s.label for s in specs}:
        raise ValueError(f"--baseline {args.baseline!r} is not one of the runs")
    dataset, engine, index = _open(args)
    try:
        report = evaluate(engine, dataset, specs, _progress, index)
    finally:
        engine.close()
    _write(args, report, recall_vs_pages(report))
    return 0


def sweep_command(args: argparse.Namespace) -> int:
    specs = _specs(args)
    for value in args.values:  # fail on a bad value before the index is opened
        param_value(args.param, value)
    dataset, engine, index = _open(args)
    try:
        result = run_sweep(engine, dataset, specs, args.param, args.values, _progress, index)
    finally:
        engine.close()
    _write(args, result.report, sweep_figure(result))
    return 0
