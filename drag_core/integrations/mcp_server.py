"""An MCP server over a DRAG with KNEE store: ``drag mcp`` (needs ``pip install "drag-with-knee[mcp]"``), built on
the official ``mcp`` SDK (``MCPServer``).

Tools: ``search`` (the pages a strategy keeps, each with its citation ``[file p.N]``, section, snippet and
scores, and the knee's decision in one line), ``page`` (a page's text, the sentences matching a question marked
»like this«), ``documents`` and ``tree``; each returns text for the model and structured content (a JSON
schema) for the host. ``ingest`` exists only when the server is given folders to ingest from, and takes only
files under them. Nothing else writes: a read-only server serves what the index holds and changes nothing.

Every argument is checked and a bad one is a tool error with one clear line (unknown strategy, knob, file, page
out of range), never a traceback; every answer is bounded (``max_pages``, ``max_tokens``) so an agent's context
is not flooded.
"""

from __future__ import annotations

import ipaddress
import sys
import typing
from collections.abc import Callable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Annotated, Any, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, create_model

from drag_core.engine import Engine
from drag_core.errors import DragError
from drag_core.evidence import Snippet, snippet
from drag_core.evidence.snippets import node_snippets
from drag_core.search import STRATEGIES, SearchParams, SearchResult, StepKind
from drag_core.search import strategy as strategy_named
from drag_core.search.explain import explain, knee_words
from drag_core.text import CHARS_PER_TOKEN, approx_tokens, citation, counted, cut, marked, tree_lines
from drag_core.types import Node

__all__ = [
    "DEFAULT_MAX_PAGES",
    "DEFAULT_MAX_TOKENS",
    "MAX_PAGES",
    "MAX_TOKENS",
    "DocumentsAnswer",
    "Hit",
    "IngestAnswer",
    "Knobs",
    "PageAnswer",
    "SearchAnswer",
    "TreeAnswer",
    "build_server",
    "compact_schema",
    "http_address",
    "knee_line",
    "serve",
]

T = TypeVar("T")
DEFAULT_MAX_PAGES, MAX_PAGES = 10, 50
DEFAULT_MAX_TOKENS, MAX_TOKENS = 4000, 20000
LOOPBACK = "127.0.0.1"
#: Characters of a node's summary shown when its pages share no word with the question.
SUMMARY_CHARS = 300
INSTRUCTIONS = (
    "Retrieval over a DRAG with KNEE index (a tree of summaries over the documents, searched by hybrid dense + "
    "BM25 ranking cut at its knee): search(question) returns as many pages as the knee keeps, each with a "
    "citation [file p.N] to quote; page(file, page, question) reads one page, the matching sentences marked; "
    "documents() lists the indexed files and tree(file) one file's outline."
)
_READ = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
_KNOBS = {f.name for f in fields(SearchParams)} - {"sensitivity"}
_HINTS = typing.get_type_hints(SearchParams)

#: The search knobs an agent may set, typed as ``SearchParams`` declares them (``sensitivity`` is an argument of
#: its own); a knob not given takes the server's default (``Settings.search``).
Knobs: type[BaseModel] = create_model(  # type: ignore[call-overload]
    "Knobs",
    __config__=ConfigDict(extra="allow"),  # an unknown knob is refused by name, with the known ones listed
    **{name: (_HINTS[name] | None, None) for name in sorted(_KNOBS)},
)


class Hit(BaseModel):
    """One kept node: where it is, what in it matches, how it ranked."""

    rank: int
    file_name: str
    page_start: int
    page_end: int
    level: int = Field(description="0: a page; higher: a summary node standing for the pages it covers")
    title: str = Field(description="the section it belongs to ('' when the file has no outline)")
    citation: str = Field(description="how to cite it: [file p.N] or [file p.N–M]")
    snippet: str = Field(description="the sentences of its page that best match the question ('' if none)")
    snippet_page: int | None
    summary: str = Field(description="its summary, cut, when no sentence matches")
    score: float | None = Field(description="fused RRF score in the last ranking it was in")
    cosine: float | None
    bm25: float | None


class SearchAnswer(BaseModel):
    """What ``search`` returns."""

    question: str
    strategy: str
    knee: str = Field(description="the knee's decision in one line")
    hits: list[Hit]
    kept: int = Field(description="nodes the strategy kept (hits: those shown within max_pages / max_tokens)")
    pages: int = Field(description="distinct pages the hits cover")
    tokens: int = Field(description="approximate tokens of the text answer")
    latency_ms: float


class PageAnswer(BaseModel):
    """What ``page`` returns."""

    file_name: str
    page: int
    pages: int
    title: str
    citation: str
    text: str = Field(description="the page's text, the sentences matching the question between » and «")
    snippet: str
    highlights: list[tuple[int, int]] = Field(description="the marked sentences' spans in the unmarked text")
    truncated: bool


class DocumentInfoOut(BaseModel):
    file_name: str
    pages: int
    nodes: int
    levels: int
    sections: int
    current: bool = Field(description="built with the current tree and vector settings")


class DocumentsAnswer(BaseModel):
    """What ``documents`` returns."""

    documents: list[DocumentInfoOut]
    total: int
    truncated: bool


class TreeNode(BaseModel):
    id: int
    level: int
    page_start: int
    page_end: int
    title: str
    keywords: list[str]
    children: list[int]


class TreeAnswer(BaseModel):
    """What ``tree`` returns: the top levels of a document's tree that fit in ``max_tokens``."""

    file_name: str
    levels: int
    lowest_level_shown: int
    nodes: list[TreeNode]
    total: int


class IngestAnswer(BaseModel):
    """What ``ingest`` returns."""

    path: str
    ok: bool
    line: str


def knee_line(result: SearchResult) -> str:
    """The knee's decision in one line, from the last ranking a knee cut: ``kept 6 of 41: knee at 6 → kept 6
    (relative S=0.5 on cosine)``; pages a breadth step added are counted after it."""
    cuts = [s for s in result.trace if s.cut is not None]
    added = sum(len(s.kept) for s in result.trace if s.kind is StepKind.BREADTH)
    if not cuts:
        return f"kept {counted(len(result.nodes), 'node')}: {result.strategy} cuts no ranking at a knee"
    step = cuts[-1]
    line = f"kept {len(step.kept)} of {len(step.candidates)}: {explain(step).text} ({knee_words(step)})"
    return line + (f"; breadth added {counted(added, 'page')}" if added else "")


def http_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` (on the loopback interface); ``ValueError`` when it is neither."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or LOOPBACK
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--http wants HOST:PORT or PORT, not {text!r}")
    return host, int(port)


def _is_loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _asked(call: Callable[[], T]) -> T:
    """``call()``, a user's mistake (unknown file or strategy, bad value) turned into a one-line tool error."""
    try:
        return call()
    except KeyError as error:
        raise ToolError(f"{error.args[0] if error.args else error}; documents() lists the files") from None
    except (ValueError, TypeError, DragError) as error:
        raise ToolError(str(error)) from None


def _answer(text: str, data: BaseModel) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=data.model_dump(mode="json")
    )


def _params(defaults: SearchParams, sensitivity: float | None, knobs: BaseModel | None) -> SearchParams:
    """The server's defaults with the knobs given; an unknown knob is refused with the known ones named."""
    given = dict(knobs.model_dump(exclude_unset=True)) if knobs is not None else {}
    unknown = sorted(set(given) - _KNOBS)
    if unknown:
        raise ToolError(f"unknown knob {', '.join(unknown)}; knobs are {', '.join(sorted(_KNOBS))}")
    if sensitivity is not None:
        given["sensitivity"] = sensitivity
    return _asked(lambda: defaults.with_(**given))


def _hit_block(hit: Hit) -> str:
    words = f"“{hit.snippet}”" if hit.snippet else f"summary: {hit.summary}"
    title = f"{hit.title} — " if hit.title else ""
    scores = ", ".join(
        f"{name} {value:.{digits}f}"
        for name, value, digits in (("fused", hit.score, 4), ("cosine", hit.cosine, 3), ("BM25", hit.bm25, 2))
        if value is not None
    )
    return f"{hit.rank}. {hit.citation} {title}{words} ({scores})"


def _hits(result: SearchResult, pages: Sequence[Node]) -> list[Hit]:
    final = result.final_candidates()
    found = node_snippets(
        result.query, result.nodes, pages
    )  # each call anew: a question is rarely asked twice
    hits = []
    for rank, node in enumerate(result.nodes, 1):
        page, best = found.get(node.id, (node, Snippet()))
        c = final.get(node.id)
        hits.append(
            Hit(
                rank=rank,
                file_name=node.file_name,
                page_start=node.page_start,
                page_end=node.page_end,
                level=node.level,
                title=node.title,
                citation=citation(node.file_name, node.page_start, node.page_end),
                snippet=best.text,
                snippet_page=page.page_start if best.text else None,
                summary="" if best.text else cut(node.summary, SUMMARY_CHARS),
                score=result.scores.get(node.id),
                cosine=c.dense_score if c else None,
                bm25=c.sparse_score if c else None,
            )
        )
    return hits


def _bounded(hits: list[Hit], head: str, max_pages: int, max_tokens: int) -> tuple[list[Hit], list[str]]:
    """The leading hits within ``max_pages`` distinct pages and ``max_tokens`` of text (the first always), and
    their text blocks."""
    shown: list[Hit] = []
    blocks: list[str] = []
    pages: set[tuple[str, int]] = set()
    tokens = approx_tokens(len(head))
    for hit in hits:
        block = _hit_block(hit)
        more = {(hit.file_name, p) for p in range(hit.page_start, hit.page_end + 1)}
        cost = approx_tokens(len(block) + 1)
        if shown and (len(pages | more) > max_pages or tokens + cost > max_tokens):
            break
        shown.append(hit)
        blocks.append(block)
        pages |= more
        tokens += cost
    return shown, blocks


def _inside(path: str, folders: Sequence[Path]) -> Path:
    """The file ``path`` names (relative: under the first folder holding it), refused unless it lies, links
    resolved, under one of ``folders``."""
    candidates = [Path(path).expanduser()] if Path(path).is_absolute() else [f / path for f in folders]
    found = next((c.resolve() for c in candidates if c.exists()), None)
    if found is None:
        raise ToolError(f"no such file: {path}")
    if not any(found.is_relative_to(f) for f in folders):
        names = ", ".join(map(str, folders))
        raise ToolError(f"{path} is outside the folders this server may ingest from ({names})")
    if not found.is_file():
        raise ToolError(f"{path} is not a file")
    return found


def _tree_levels(nodes: list[Node], max_tokens: int) -> list[Node]:
    """The top levels of a tree whose outline fits in ``max_tokens`` (the roots always)."""
    chosen: list[Node] = []
    for level in sorted({n.level for n in nodes}, reverse=True):
        more = chosen + [n for n in nodes if n.level == level]
        if chosen and approx_tokens(sum(len(line) + 1 for line in tree_lines(more))) > max_tokens:
            break
        chosen = more
    return chosen


def compact_schema(schema: Any, defs: dict[str, Any] | None = None) -> Any:
    """A JSON schema with its ``$defs`` written in place and ``anyOf [T, null]`` as ``type: [T, null]``: the
    same constraints, checked ~2× faster by a client that validates every result (the official one does)."""
    if isinstance(schema, list):
        return [compact_schema(item, defs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    defs = schema.get("$defs", {}) if defs is None else defs
    if "$ref" in schema:
        return compact_schema(defs[schema["$ref"].rpartition("/")[2]], defs)
    either = schema.get("anyOf", [])
    if len(either) == 2 and {"type": "null"} in either and all(set(a) == {"type"} for a in either):
        rest = {k: v for k, v in schema.items() if k != "anyOf"}
        return {**rest, "type": [a["type"] for a in either]}
    return {k: compact_schema(v, defs) for k, v in schema.items() if k != "$defs"}


def _tool(
    fn: Callable[..., Any], annotations: ToolAnnotations = _READ, description: str | None = None
) -> Tool:
    """A tool with structured output, its output schema compacted."""
    tool = Tool.from_function(fn, annotations=annotations, description=description, structured_output=True)
    tool.fn_metadata.output_schema = compact_schema(tool.fn_metadata.output_schema)
    return tool


def build_server(
    engine: Engine,
    ingest_folders: Sequence[Path | str] = (),
    default_params: SearchParams | None = None,
) -> MCPServer:
    """The MCP server of ``engine``'s index. ``ingest_folders``: where ``ingest`` may read files (none: no
    ``ingest`` tool, the server writes nothing). ``default_params``: the knobs an agent does not set (default:
    the engine's settings' ``search``)."""
    defaults = default_params or engine.settings.search

    def search(
        question: str,
        strategy: Annotated[str, Field(description=f"one of: {', '.join(STRATEGIES)}")] = "adaptive",
        sensitivity: Annotated[float | None, Field(description="the knee detector's sensitivity")] = None,
        max_pages: Annotated[int, Field(ge=1, le=MAX_PAGES, description="most distinct pages shown")] = (
            DEFAULT_MAX_PAGES
        ),
        max_tokens: Annotated[int, Field(ge=100, le=MAX_TOKENS)] = DEFAULT_MAX_TOKENS,
        knobs: Annotated[Knobs | None, Field(description="other search knobs (drag search --help)")] = None,  # type: ignore[valid-type]
    ) -> Annotated[CallToolResult, SearchAnswer]:
        """Search the indexed documents: the pages the strategy's knee keeps, best first, each with a citation
        [file p.N], its section, the sentences that match and its scores; and the knee's decision in one line."""
        _asked(lambda: strategy_named(strategy))
        params = _params(defaults, sensitivity, knobs)
        result = _asked(lambda: engine.search(question, strategy, params))
        pages = engine.context_pages([n for n in result.nodes if n.level > 0])  # a parent's pages
        hits = _hits(result, pages)
        head = f"{strategy}: {knee_line(result)}"
        shown, blocks = _bounded(hits, head, max_pages, max_tokens)
        if len(shown) < len(hits):
            head += f"; {len(shown)} shown (max_pages {max_pages}, max_tokens {max_tokens})"
        text = "\n".join([head, *blocks])
        answer = SearchAnswer(
            question=question,
            strategy=strategy,
            knee=head.partition(": ")[2],
            hits=shown,
            kept=len(hits),
            pages=len({(h.file_name, p) for h in shown for p in range(h.page_start, h.page_end + 1)}),
            tokens=approx_tokens(len(text)),
            latency_ms=round(result.latency_ms, 2),
        )
        return _answer(text, answer)

    def page(
        file: Annotated[str, Field(description="an indexed file's name, as documents() lists it")],
        page: Annotated[int, Field(description="1-based page number")],
        question: str = "",
        max_tokens: Annotated[int, Field(ge=100, le=MAX_TOKENS)] = DEFAULT_MAX_TOKENS,
    ) -> Annotated[CallToolResult, PageAnswer]:
        """One page of an indexed document as text, the sentences that best match the question marked »like
        this« (a page cited by search: its file and page)."""
        node = _asked(lambda: engine.page(file, page))
        info = _asked(lambda: engine.document(file))
        found = snippet(question, node.text, tuple(node.units)) if question.strip() else Snippet()
        text = marked(node.text, found.highlights)
        limit = max_tokens * CHARS_PER_TOKEN
        truncated = len(text) > limit
        where = citation(file, page, page)
        title = f" — {node.title}" if node.title else ""
        shown = text[:limit] + ("\n… (cut at max_tokens)" if truncated else "")
        answer = PageAnswer(
            file_name=file,
            page=page,
            pages=info.pages,
            title=node.title,
            citation=where,
            text=shown,
            snippet=found.text,
            highlights=found.highlights,
            truncated=truncated,
        )
        return _answer(f"{where} of {info.pages}{title}\n{shown}", answer)

    def documents(
        max_tokens: Annotated[int, Field(ge=100, le=MAX_TOKENS)] = DEFAULT_MAX_TOKENS,
    ) -> Annotated[CallToolResult, DocumentsAnswer]:
        """The indexed documents: pages, tree nodes and levels, sections, and whether each is current."""
        infos = engine.documents()
        lines, shown = [], []
        for d in infos:
            stale = "" if d.current else f" ({d.stale_reason}: to ingest again)"
            line = (
                f"{d.file_name} — {counted(d.pages, 'page')}, {counted(d.nodes, 'node')}, "
                f"{counted(d.levels, 'level')}, {counted(d.sections, 'section')}{stale}"
            )
            if shown and approx_tokens(sum(map(len, lines)) + len(line)) > max_tokens:
                break
            lines.append(line)
            shown.append(DocumentInfoOut(**{k: getattr(d, k) for k in DocumentInfoOut.model_fields}))
        head = f"{counted(len(infos), 'indexed document')}" + (
            f", {len(shown)} shown (max_tokens)" if len(shown) < len(infos) else ""
        )
        answer = DocumentsAnswer(documents=shown, total=len(infos), truncated=len(shown) < len(infos))
        return _answer("\n".join([head, *lines]), answer)

    def tree(
        file: Annotated[str, Field(description="an indexed file's name, as documents() lists it")],
        max_tokens: Annotated[int, Field(ge=100, le=MAX_TOKENS)] = DEFAULT_MAX_TOKENS,
    ) -> Annotated[CallToolResult, TreeAnswer]:
        """A document's summary tree as an outline, top levels first (as many as fit in max_tokens): each
        node's page range, level, section and keywords."""
        nodes = _asked(lambda: engine.tree(file))
        chosen = _tree_levels(nodes, max_tokens)
        lowest = min((n.level for n in chosen), default=0)
        head = f"{file}: {counted(len(nodes), 'node')}" + (
            f", levels ≥ {lowest} shown (max_tokens)" if len(chosen) < len(nodes) else ""
        )
        answer = TreeAnswer(
            file_name=file,
            levels=max((n.level for n in nodes), default=0) + 1,
            lowest_level_shown=lowest,
            nodes=[
                TreeNode(
                    id=n.id,
                    level=n.level,
                    page_start=n.page_start,
                    page_end=n.page_end,
                    title=n.title,
                    keywords=list(n.keywords),
                    children=list(n.child_ids),
                )
                for n in chosen
            ],
            total=len(nodes),
        )
        return _answer("\n".join([head, *tree_lines(chosen)]), answer)

    tools = [_tool(search), _tool(page), _tool(documents), _tool(tree)]
    folders = [Path(f).expanduser().resolve() for f in ingest_folders]
    if folders:

        def ingest(path: str) -> Annotated[CallToolResult, IngestAnswer]:
            found = _inside(path, folders)
            (report,) = engine.ingest_paths([found])
            answer = IngestAnswer(path=str(found), ok=report.ok, line=report.line())
            result = _answer(report.line(), answer)
            result.is_error = not report.ok
            return result

        where = ", ".join(map(str, folders))
        tools.append(
            _tool(
                ingest,
                ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
                "Index one PDF, TXT or MD file (a new version replaces the old one); only files under "
                f"{where} (a relative path: under the first of them that holds it).",
            )
        )
    return MCPServer("drag-with-knee", instructions=INSTRUCTIONS, log_level="WARNING", tools=tools)


def serve(engine: Engine, http: str | None = None, ingest_folders: Sequence[Path | str] = ()) -> None:
    """Run the server on stdio, or on streamable HTTP at ``http`` (``HOST:PORT``; loopback unless a host is
    named) until it is stopped."""
    server = build_server(engine, ingest_folders)
    if http is None:
        server.run("stdio")
        return
    host, port = http_address(http)
    if not _is_loopback(host):
        print(f"warning: serving {host}:{port} without authentication", file=sys.stderr)
    print(f"MCP server on http://{host}:{port}/mcp (ctrl-c stops it)", file=sys.stderr)
    server.run("streamable-http", host=host, port=port)
