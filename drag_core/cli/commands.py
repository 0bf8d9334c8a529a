"""The bodies of ``ingest``, ``search``, ``docs``, ``tree``, ``remove`` and ``mcp`` (``eval`` and ``sweep``
live in ``evaluate``, loaded when they run). Each imports the engine when it runs, so ``--help`` stays fast."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from drag_core.cli.output import console, docs_table, page_json, search_table
from drag_core.cli.parser import search_params
from drag_core.cli.progress import IngestProgress
from drag_core.text import counted, marked, tree_lines

if TYPE_CHECKING:
    from drag_core.config import Settings
    from drag_core.engine import Engine
    from drag_core.types import Node

__all__ = [
    "COMMANDS",
    "Command",
    "UsageError",
    "command",
    "docs",
    "ingest",
    "mcp",
    "open_engine",
    "page",
    "remove",
    "search",
    "tree",
]

T = TypeVar("T")
Command = Callable[[argparse.Namespace, "Settings"], int]
COMMANDS: dict[str, Command] = {}


class UsageError(Exception):
    """A command cannot run as asked (e.g. a read command pointed at a folder with no index)."""


def command(name: str) -> Callable[[Command], Command]:
    def register(fn: Command) -> Command:
        COMMANDS[name] = fn
        return fn

    return register


def open_engine(
    args: argparse.Namespace, settings: Settings, read: bool = True, models: bool = True
) -> Engine:
    """The engine of the settings (``--store`` applied); a read command refuses a folder with no index (and
    creates nothing). ``models``: whether the command will load embedding models (only said on a terminal)."""
    from drag_core.store import index_exists

    if read and not index_exists(settings):
        raise UsageError(f"no index at {Path(settings.store).resolve()}: ingest first or pass --store")
    if not args.quiet and not args.json and sys.stderr.isatty():
        # Only on a terminal, where a person waits for the first output; scripts read one error line.
        what = "the index and the embedding models" if models else "the index"
        print(f"loading {what} …", file=sys.stderr, flush=True)
    from drag_core.engine import Engine

    return Engine(settings)


def _print_json(data: object) -> None:
    print(json.dumps(data, indent=2))


@command("ingest")
def ingest(args: argparse.Namespace, settings: Settings) -> int:
    engine = open_engine(args, settings, read=False)
    reports = []
    with IngestProgress(len(args.paths), quiet=args.quiet) as progress:
        for report in engine.iter_ingest_paths(args.paths, progress=progress):
            reports.append(report)
            if not args.json:
                print(report.line(), flush=True)  # as soon as the file is done
            progress.next_file()
    engine.close()
    if args.json:
        _print_json([r.__dict__ | {"line": r.line()} for r in reports])
    return 0 if all(r.ok for r in reports) else 1


@command("search")
def search(args: argparse.Namespace, settings: Settings) -> int:
    from drag_core.evidence.snippets import node_snippets, snippet_fields

    engine = open_engine(args, settings)
    try:
        result = engine.search(args.query, args.strategy, search_params(args, settings.search))
        pages = engine.context_pages([n for n in result.nodes if n.level > 0])  # a parent's pages
    finally:
        engine.close()
    snippets = node_snippets(args.query, result.nodes, pages)
    if args.json:
        data = result.to_json({i: snippet_fields(page, found) for i, (page, found) in snippets.items()})
        data["page_list"] = [{"file_name": f, "page": p} for f, p in sorted(result.pages)]
        print(json.dumps(data))
    else:
        console().print(search_table(result, snippets))
    return 0 if result.nodes else 1


@command("page")
def page(args: argparse.Namespace, settings: Settings) -> int:
    from drag_core.evidence import PageImages
    from drag_core.evidence.view import view_page

    if args.png and Path(args.file).suffix.lower() != ".pdf":
        raise UsageError(f"{args.file} is a text file: it has no page image (leave out --png for its text)")
    started = time.perf_counter()
    engine = open_engine(args, settings, models=False)
    try:
        shown = view_page(engine, PageImages(), args.file, args.page, args.query)
    finally:
        engine.close()
    if args.png:
        if shown.image is None:
            raise UsageError(f"{args.file} p.{args.page}: {shown.note}")
        Path(args.png).write_bytes(shown.image.png)
    ms = (time.perf_counter() - started) * 1000
    if args.json:
        _print_json(page_json(shown, args.png, ms))
        return 0
    if shown.note and not args.quiet:
        print(f"note: {shown.note}", file=sys.stderr)
    if args.png:
        image = shown.image
        assert image is not None
        print(
            f"{args.png}: {args.file} p.{args.page} of {image.pages}, {image.width}×{image.height}, "
            f"{counted(image.boxes, 'highlight box', 'highlight boxes')}, {ms:.0f} ms"
        )
    else:
        print(marked(shown.text, shown.snippet.highlights))
    return 0


def _read(
    args: argparse.Namespace,
    settings: Settings,
    ask: Callable[[Engine], T],
    as_json: Callable[[T], object],
    show: Callable[[T], None],
) -> int:
    """Open the index, ask it one thing, close it, print the answer as JSON or for people."""
    engine = open_engine(args, settings, models=False)
    try:
        answer = ask(engine)
    finally:
        engine.close()
    if args.json:
        _print_json(as_json(answer))
    else:
        show(answer)
    return 0


@command("docs")
def docs(args: argparse.Namespace, settings: Settings) -> int:
    return _read(
        args,
        settings,
        lambda engine: engine.documents(),
        lambda infos: [d.__dict__ for d in infos],
        lambda infos: console().print(docs_table(infos)),
    )


@command("tree")
def tree(args: argparse.Namespace, settings: Settings) -> int:
    def show(nodes: list[Node]) -> None:
        print(f"{args.file}: {counted(len(nodes), 'node')} (pages, level, id, section — keywords)")
        print("\n".join(tree_lines(nodes)))

    return _read(
        args,
        settings,
        lambda engine: engine.tree(args.file),
        lambda nodes: [n.payload() for n in nodes],
        show,
    )


@command("remove")
def remove(args: argparse.Namespace, settings: Settings) -> int:
    return _read(
        args,
        settings,
        lambda engine: engine.remove(args.file),
        lambda removed: {"file_name": args.file, "removed_nodes": removed},
        lambda removed: print(f"removed {args.file} ({counted(removed, 'node')})"),
    )


def _loaded_when_run(module: str, name: str) -> Command:
    """A command whose body is ``name`` of ``module``, imported only when it runs (``eval`` and ``sweep`` load
    the evaluation harness and the engine, which ``--help`` and the other commands never need)."""

    def run(args: argparse.Namespace, settings: Settings) -> int:
        return getattr(importlib.import_module(module), name)(args, settings)

    return run


COMMANDS["eval"] = _loaded_when_run("drag_core.cli.evaluate", "eval_command")
COMMANDS["sweep"] = _loaded_when_run("drag_core.cli.evaluate", "sweep_command")


@command("mcp")
def mcp(args: argparse.Namespace, settings: Settings) -> int:
    try:
        from drag_core.integrations.mcp_server import http_address, serve
    except ImportError as error:
        raise UsageError(
            f"the MCP server needs the mcp extra: pip install 'drag-with-knee[mcp]' ({error})"
        ) from None
    if args.http:
        http_address(args.http)  # a bad address is refused before the index is opened
    folders = [Path(f) for f in args.allow_ingest]
    for folder in folders:
        if not folder.is_dir():
            raise UsageError(f"--allow-ingest {folder}: no such folder")
    engine = open_engine(args, settings, read=not folders)  # with ingest allowed, an empty store may start
    try:
        serve(engine, args.http, folders)
    finally:
        engine.close()
    return 0
