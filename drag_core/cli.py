"""``python -m drag_core``: ingest, search, docs, tree, remove (and eval, from the evaluation harness).

Results go to stdout (``--json`` for machines); progress and errors go to stderr. Exit codes: 0 ok,
1 some file failed or nothing was found, 2 bad usage or an unusable store.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from drag_core.engine import Engine
from drag_core.errors import DragError
from drag_core.ingest import ProgressEvent
from drag_core.knee import KNEE_METHODS
from drag_core.search import SCORE_SOURCES, STRATEGIES, SearchParams
from drag_core.text import page_span

Command = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, Command] = {}


def command(name: str) -> Callable[[Command], Command]:
    def register(fn: Command) -> Command:
        COMMANDS[name] = fn
        return fn

    return register


def _engine(args: argparse.Namespace) -> Engine:
    return Engine.from_env(store=args.store)


def _progress(event: ProgressEvent) -> None:
    if event.done == event.total:
        print(f"  {event.file_name}: {event.stage} {event.done}/{event.total}", file=sys.stderr, flush=True)


@command("ingest")
def _ingest(args: argparse.Namespace) -> int:
    engine = _engine(args)
    reports = engine.ingest_paths(args.paths, progress=_progress)
    if args.json:
        print(json.dumps([r.__dict__ | {"line": r.line()} for r in reports], indent=2))
    else:
        for report in reports:
            print(report.line())
    return 0 if all(r.ok for r in reports) else 1


@command("search")
def _search(args: argparse.Namespace) -> int:
    engine = _engine(args)
    params = SearchParams(
        top_k=args.top_k,
        roots=args.roots,
        beam_width=args.beam_width,
        rrf_k=args.rrf_k if args.rrf_k is not None else engine.settings.rrf_k,
        knee_method=args.knee,
        sensitivity=args.sensitivity,
        min_keep=args.min_keep,
        max_keep=args.max_keep,
        score_source=args.score_source,
    )
    result = engine.search(args.query, args.strategy, params)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    print(
        f"{result.strategy}: {len(result.nodes)} nodes, {len(result.pages)} pages, {result.latency_ms:.0f} ms"
    )
    for node in result.nodes:
        span = page_span(node.page_start, node.page_end)
        print(f"  {result.scores.get(node.id, 0):.4f}  {node.file_name} {span} (level {node.level})")
        print(f"      {node.summary[:160]}")
    return 0 if result.nodes else 1


@command("docs")
def _docs(args: argparse.Namespace) -> int:
    docs = _engine(args).documents()
    if args.json:
        print(json.dumps([d.__dict__ for d in docs], indent=2))
    for d in [] if args.json else docs:
        stale = "" if d.current else "\tbuilt with other vector settings: ingest again"
        print(
            f"{d.file_name}\t{d.pages} pages\t{d.nodes} nodes\t{d.levels} levels\t{d.empty_pages} empty{stale}"
        )
    return 0


@command("tree")
def _tree(args: argparse.Namespace) -> int:
    nodes = _engine(args).tree(args.file)
    if args.json:
        print(json.dumps([n.payload() for n in nodes], indent=2))
        return 0
    by_id = {n.id: n for n in nodes}

    def show(node_id: int, depth: int) -> None:
        n = by_id[node_id]
        print(
            f"{'  ' * depth}[{n.level}] {page_span(n.page_start, n.page_end)} #{n.id}: {', '.join(n.keywords[:6])}"
        )
        for child in n.child_ids:
            show(child, depth + 1)

    for root in (n for n in nodes if n.is_root):
        show(root.id, 0)
    return 0


@command("remove")
def _remove(args: argparse.Namespace) -> int:
    removed = _engine(args).remove(args.file)
    print(f"removed {args.file} ({removed} nodes)")
    return 0


@command("eval")
def _eval(args: argparse.Namespace) -> int:
    from drag_core.evaluation.commands import eval_command

    return eval_command(args)


@command("sweep")
def _sweep(args: argparse.Namespace) -> int:
    from drag_core.evaluation.commands import sweep_command

    return sweep_command(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m drag_core", description=__doc__.splitlines()[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", help="embedded index folder (default: DRAG_STORE or ./data/qdrant)")
    common.add_argument("--json", action="store_true", help="print JSON")
    sub = parser.add_subparsers(dest="command", required=True)
    ingest = sub.add_parser("ingest", parents=[common], help="index PDF/TXT/MD files")
    ingest.add_argument("paths", nargs="+")
    search = sub.add_parser("search", parents=[common], help="search the index")
    defaults = SearchParams()
    search.add_argument("query")
    search.add_argument("--strategy", choices=list(STRATEGIES), default="adaptive")
    search.add_argument("--top-k", type=int, default=defaults.top_k)
    search.add_argument("--roots", type=int, default=defaults.roots)
    search.add_argument("--beam-width", type=int, default=defaults.beam_width)
    search.add_argument("--rrf-k", type=int, default=None, help="classic RRF k (default DRAG_RRF_K or 60)")
    search.add_argument("--knee", choices=KNEE_METHODS, default=defaults.knee_method)
    search.add_argument("--sensitivity", type=float, default=defaults.sensitivity)
    search.add_argument("--min-keep", type=int, default=defaults.min_keep)
    search.add_argument("--max-keep", type=int, default=defaults.max_keep)
    search.add_argument("--score-source", choices=SCORE_SOURCES, default=defaults.score_source)
    sub.add_parser("docs", parents=[common], help="list indexed documents")
    tree = sub.add_parser("tree", parents=[common], help="show a document's tree")
    tree.add_argument("file")
    remove = sub.add_parser("remove", parents=[common], help="remove a document")
    remove.add_argument("file")
    from drag_core.evaluation.commands import add_parsers

    add_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except DragError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (KeyError, ValueError) as error:
        print(f"error: {error.args[0] if error.args else error}", file=sys.stderr)
        return 2
