"""The bodies of the ``eval`` and ``sweep`` commands (their options are in ``eval_options``), over the harness
of ``drag_core.evaluation``. Tables go to stdout, progress to stderr; a sweep without --json/--csv/--plot writes
its JSON and plot under ``SWEEP_DIR``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from drag_core.cli.eval_options import CORPUS
from drag_core.config import Bm25Params, Settings
from drag_core.engine import Engine
from drag_core.evaluation.chart import Chart, chart_html, recall_chart, sweep_chart
from drag_core.evaluation.datasets import Dataset, load_dataset
from drag_core.evaluation.index import corpus_avg_len, open_index
from drag_core.evaluation.report import (
    comparisons,
    headline,
    sweep_verdicts,
    table,
    verdicts,
    write_csv,
    write_json,
)
from drag_core.evaluation.runner import Report, RunSpec, evaluate, param_value, parse_spec
from drag_core.evaluation.sweep import run_sweep
from drag_core.ingest.report import ProgressEvent
from drag_core.ingest.vector_text import VectorPolicy
from drag_core.labels import Labels, labels_dataset
from drag_core.models.embeddings import Embedder
from drag_core.text import counted

__all__ = ["SWEEP_DIR", "eval_command", "sweep_command"]

#: Where ``sweep`` writes its JSON and plot when no output is named.
SWEEP_DIR = Path("data/eval/sweeps")


def _bm25(args: argparse.Namespace, dataset: Dataset, settings: Settings) -> Bm25Params:
    """The BM25 constants of the options, over those of the settings; ``corpus`` is measured here."""
    configured = settings.bm25
    avg_len = configured.avg_len if args.bm25_avg_len is None else args.bm25_avg_len
    if avg_len == CORPUS:  # the tokens do not depend on the constants: any BM25 embedder counts them
        avg_len = corpus_avg_len(dataset, Embedder(settings.model_dir), settings)
        print(f"  BM25 avg_len of {dataset.name}: {avg_len:.1f} tokens", file=sys.stderr)
    return Bm25Params(
        configured.k1 if args.bm25_k1 is None else args.bm25_k1,
        configured.b if args.bm25_b is None else args.bm25_b,
        float(avg_len),
    )


def _specs(args: argparse.Namespace, settings: Settings) -> list[RunSpec]:
    """The runs asked for, each over the settings' default parameters with ``--set``'s values."""
    base: dict[str, Any] = {}
    for item in args.set:
        name, _, value = item.partition("=")
        base[name] = param_value(name, value)
    params = settings.search.with_(**base)
    return [parse_spec(text, params) for text in args.strategies]


def _progress(done: int, total: int, query_id: str) -> None:
    if done == total or done % 10 == 0:
        print(f"  query {done}/{total} ({query_id})", file=sys.stderr, flush=True)


def _ingest_progress(event: ProgressEvent) -> None:
    if event.done == event.total:
        print(f"  {event.file_name}: {event.stage} {event.done}", file=sys.stderr, flush=True)


def _open(args: argparse.Namespace, settings: Settings) -> tuple[Dataset, Engine, dict[str, Any]]:
    if args.labels:
        return _open_labels(args, settings)
    if args.dataset is None:
        raise ValueError("name a data set folder, or pass --labels for the pages marked in the app")
    dataset = load_dataset(args.dataset, args.split).subset(args.limit)
    policy = VectorPolicy(
        parent_dense=args.parent_dense,
        parent_sparse=args.parent_sparse,
        passages=args.leaf_passages,
        page_vector=args.page_vector,
        pack=args.pack_sections,
    )
    print(f"preparing the index of {dataset.name} ({len(dataset.queries)} queries)", file=sys.stderr)
    settings = replace(settings, bm25=_bm25(args, dataset, settings))
    engine, index = open_index(dataset, settings, args.index, policy, progress=_ingest_progress)
    for line in index["failed"]:
        print(f"  {line}", file=sys.stderr)
    return dataset, engine, index


def _open_labels(args: argparse.Namespace, settings: Settings) -> tuple[Dataset, Engine, dict[str, Any]]:
    """The labels of the store (``--store``), over that store's own index: nothing is ingested."""
    from drag_core.store import index_exists

    layout = settings.layout
    if args.dataset is not None or layout is None or not index_exists(settings):
        raise ValueError(
            "--labels reads the labels and the index of a store folder: pass --store, not a data set"
        )
    engine = Engine(settings)
    dataset, index = labels_dataset(engine, Labels(layout.labels), args.limit)
    print(
        f"labels of {layout.folder}: {counted(len(dataset.queries), 'question')} with a page marked relevant "
        f"({counted(index['stale_labels_left_out'], 'stale label')} left out)",
        file=sys.stderr,
    )
    if not dataset.queries:
        engine.close()
        raise ValueError(f"no question in {layout.labels} has a page marked relevant: mark some on Compare")
    return dataset, engine, index


def _write(
    args: argparse.Namespace, report: Report, chart: Callable[[], Chart], said: Sequence[str] | None = None
) -> None:
    """The table, the verdicts (``said``, else one per knee run), the comparisons, and the files asked for."""
    print(headline(report))
    print(table(report, markdown=args.markdown))
    for line in verdicts(report) if said is None else said:
        print(line)
    for line in comparisons(report, args.baseline) if args.baseline else []:
        print(line)
    if args.json:
        write_json(report, args.json)
    if args.csv:
        write_csv(report, args.csv)
    if args.plot:
        Path(args.plot).write_text(chart_html(chart()), encoding="utf-8")


def _sweep_outputs(args: argparse.Namespace, dataset: Dataset) -> None:
    """A sweep always leaves its numbers and its plot: without --json/--csv/--plot they go to SWEEP_DIR."""
    if args.json or args.csv or args.plot:
        return
    stem = SWEEP_DIR / f"{dataset.name}-{args.param}"
    stem.parent.mkdir(parents=True, exist_ok=True)
    args.json, args.plot = stem.with_suffix(".json"), stem.with_suffix(".html")
    print(f"writing {args.json} and {args.plot}", file=sys.stderr)


def eval_command(args: argparse.Namespace, settings: Settings) -> int:
    specs = _specs(args, settings)
    if args.baseline and args.baseline not in {s.label for s in specs}:
        raise ValueError(f"--baseline {args.baseline!r} is not one of the runs")
    dataset, engine, index = _open(args, settings)
    try:
        report = evaluate(engine, dataset, specs, _progress, index, slider=not args.no_slider)
    finally:
        engine.close()
    _write(args, report, lambda: recall_chart(report))
    return 0


def sweep_command(args: argparse.Namespace, settings: Settings) -> int:
    specs = _specs(args, settings)
    for value in args.values:  # fail on a bad value before the index is opened
        param_value(args.param, value)
    dataset, engine, index = _open(args, settings)
    _sweep_outputs(args, dataset)
    try:
        result = run_sweep(
            engine, dataset, specs, args.param, args.values, _progress, index, slider=not args.no_slider
        )
    finally:
        engine.close()
    _write(args, result.report, lambda: sweep_chart(result), sweep_verdicts(result))
    return 0
