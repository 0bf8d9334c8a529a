"""The command line: every command's options, with the strategies and the search knobs described in ``--help``.

The knobs are generated from ``SearchParams`` (name, type, default and the docstring's words) and the knob
registry (``drag_core.knobs``: flag, choices), so the CLI cannot drift from the library's defaults. Building
the parser imports no model and no Qdrant.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import MISSING, fields
from typing import Any

from drag_core.cli.eval_options import add_parsers
from drag_core.config import SEARCH_ENV
from drag_core.knobs import CHOICES, FLAGS
from drag_core.search import STRATEGIES, SearchParams

__all__ = [
    "DEFAULT_STRATEGY",
    "METAVARS",
    "TYPES",
    "add_mcp_parser",
    "add_search_knobs",
    "build_parser",
    "field_help",
    "search_params",
    "strategy_description",
]

DEFAULT_STRATEGY = "adaptive"


def strategy_description(strategy: object) -> str:
    """One line on what a strategy does: its ``description``, else its class docstring's first line."""
    text = getattr(strategy, "description", None) or (type(strategy).__doc__ or "").strip()
    first = " ".join(text.split("\n\n")[0].split())
    return re.sub(r"``([^`]*)``", r"\1", first).rstrip(".")


def field_help(cls: type) -> dict[str, str]:
    """Each attribute's words from a dataclass docstring's ``Attributes:`` section, joined onto one line."""
    section = (cls.__doc__ or "").split("Attributes:", 1)[-1]
    found: dict[str, str] = {}
    name = ""
    for line in section.splitlines():
        match = re.match(r"\s{4,8}([\w, ]+):\s+(.*)", line)
        if match and len(line) - len(line.lstrip()) <= 8:
            names, text = match.groups()
            for name in (n.strip() for n in names.split(",")):
                found[name] = text
        elif name and line.strip():
            found[name] += " " + line.strip()
    return {key: re.sub(r"``([^`]*)``", r"\1", value) for key, value in found.items()}


def _optional_int(text: str) -> int | None:
    return None if text.lower() == "none" else int(text)


METAVARS = {"float": "X", "float | None": "X", "int | None": "N|none"}
TYPES: dict[str, Any] = {
    "int": int,
    "float": float,
    "float | None": float,  # sensitivity: not given, the detector's own default
    "str": str,
    "ScoreSource": str,
    "int | None": _optional_int,
}


def add_search_knobs(parser: argparse.ArgumentParser) -> None:
    """One option per ``SearchParams`` field, its flag and choices from ``drag_core.knobs``; an option not
    given takes the settings' default (``Settings.search``: ``SearchParams()`` with the environment's values,
    see ``SEARCH_ENV``)."""
    knobs = parser.add_argument_group("search knobs (each strategy reads the ones that concern it)")
    words = field_help(SearchParams)
    defaults = SearchParams()  # the defaults as made (the default detector's own sensitivity)
    for field in fields(SearchParams):
        shown = getattr(defaults, field.name) if field.default is not MISSING else "none"
        where = f"{SEARCH_ENV[field.name]} or {shown}" if field.name in SEARCH_ENV else str(shown).lower()
        knobs.add_argument(
            FLAGS[field.name],  # a field without a registry entry fails here, and in the tests
            dest=field.name,
            type=TYPES[str(field.type)],
            choices=CHOICES.get(field.name),
            default=argparse.SUPPRESS,  # not given: no attribute, so an explicit "none" stays None
            metavar=None if field.name in CHOICES else METAVARS.get(str(field.type), "N"),
            help=f"{words.get(field.name, field.name).rstrip('.')} (default: {where})",
        )


def search_params(args: argparse.Namespace, defaults: SearchParams) -> SearchParams:
    """The parameters of a parsed ``search``: the options given, else ``defaults`` (the settings')."""
    given = {f.name: getattr(args, f.name) for f in fields(SearchParams) if hasattr(args, f.name)}
    return defaults.with_(**given)


def _strategies_epilog() -> str:
    width = max(map(len, STRATEGIES))
    lines = [
        f"  {name:<{width}}  {strategy_description(s)} (reads {', '.join(getattr(s, 'params', ()))})"
        for name, s in STRATEGIES.items()
    ]
    return "strategies:\n" + "\n".join(lines)


def build_parser(prog: str = "drag") -> argparse.ArgumentParser:
    """The parser of every command."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="DRAG with KNEE: index documents as a tree of summaries in Qdrant and search it, "
        "cutting each ranking at its knee. Results on stdout, progress and errors on stderr.",
        epilog=f"'{prog} COMMAND --help' describes a command.",
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", metavar="DIR", help="index folder (default: DRAG_STORE or ./data/qdrant)")
    common.add_argument("--json", action="store_true", help="print JSON instead of a table")
    common.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    ingest = sub.add_parser("ingest", parents=[common], help="index PDF, TXT and MD files")
    ingest.add_argument("paths", nargs="+", metavar="FILE")
    search = sub.add_parser(
        "search",
        parents=[common],
        help="search the index",
        epilog=_strategies_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    search.add_argument("query")
    search.add_argument(
        "--strategy",
        choices=list(STRATEGIES),
        default=DEFAULT_STRATEGY,
        help=f"how the tree is walked, see below (default: {DEFAULT_STRATEGY})",
    )
    add_search_knobs(search)
    sub.add_parser("docs", parents=[common], help="list the indexed documents")
    tree = sub.add_parser("tree", parents=[common], help="show a document's summary tree")
    tree.add_argument("file", help="the document's file name, as 'docs' lists it")
    remove = sub.add_parser("remove", parents=[common], help="remove a document and all its nodes")
    remove.add_argument("file", help="the document's file name, as 'docs' lists it")
    page = sub.add_parser(
        "page",
        parents=[common],
        help="one page of a document, the passages matching a question highlighted",
        description="Write page PAGE of an indexed document as a PNG (--png) with the sentences that best "
        "match --query highlighted, or print its text with them marked »like this« (a TXT or MD file has no "
        "page image). The PDF is rendered from the copy the store keeps of every ingested file.",
    )
    page.add_argument("file", help="the document's file name, as 'docs' lists it")
    page.add_argument("page", type=int, help="1-based page number")
    page.add_argument("--query", default="", help="highlight the sentences that best match this question")
    page.add_argument("--png", metavar="OUT", help="write the page image here (PDF only)")
    add_mcp_parser(sub)
    add_parsers(sub)
    return parser


def add_mcp_parser(sub: Any) -> None:
    """``drag mcp``: the index as an MCP server for agents (``drag_core.integrations.mcp_server``)."""
    mcp = sub.add_parser(
        "mcp",
        help="serve the index to agents over MCP (stdio; --http for streamable HTTP)",
        description="An MCP server over the index: tools search, page, documents and tree (read-only), and "
        "ingest only with --allow-ingest. Needs the mcp extra: pip install 'drag-with-knee[mcp]'.",
    )
    mcp.add_argument("--store", metavar="DIR", help="index folder (default: DRAG_STORE or ./data/qdrant)")
    mcp.add_argument(
        "--http", metavar="HOST:PORT", help="serve streamable HTTP at HOST:PORT (PORT alone: on 127.0.0.1)"
    )
    mcp.add_argument(
        "--allow-ingest",
        metavar="DIR",
        action="append",
        default=[],
        help="add an ingest tool taking files under DIR (repeatable); without it nothing is written",
    )
    mcp.set_defaults(json=False, quiet=True)
