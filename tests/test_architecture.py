"""The package's shape, checked: no import cycle in ``drag_core``, nothing but the engine touches its store or
lock, Streamlit only under ``drag_core/ui``, and every strategy declares the parameters it reads."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

from conftest import REPO

from drag_core.search import STRATEGIES, SearchParams

PACKAGE = REPO / "drag_core"


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The ``drag_core`` modules one module imports, anywhere in it (function-level imports included)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {m for m in found if m in known and m != name}


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, name, set(modules)) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of the graph (as a path that ends where it starts), or None."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        for target in sorted(graph[node]):
            cycle = visit(target, [*path, node])
            if cycle:
                return cycle
        done.add(node)
        return None

    for start in sorted(graph):
        cycle = visit(start, [])
        if cycle:
            return cycle
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_sees_every_kind_of_import() -> None:
    graph = import_graph()
    assert "drag_core.store.base" in graph["drag_core.store.edge"]  # from drag_core.store.base import ...
    assert "drag_core.store" in graph["drag_core.search"]  # from drag_core.store import DENSE
    assert "drag_core.describe.extractive" in graph["drag_core.engine"]  # a function-level import


def test_drag_core_has_no_import_cycle() -> None:
    assert find_cycle(import_graph()) is None


def test_only_the_engine_touches_its_store_and_lock() -> None:
    pattern = re.compile(r"engine\.lock|engine\.store")
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for folder in ("pages", "drag_core")
        for path in sorted((REPO / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line)
    ]
    assert {o.partition(":")[0] for o in offenders} <= {"drag_core/engine.py"}, offenders


def test_only_drag_core_ui_imports_streamlit() -> None:
    others = [
        name
        for name in _modules()
        if not (name == "drag_core.ui" or name.startswith("drag_core.ui.")) and not name.endswith("__main__")
    ]
    assert "drag_core.cli" in others and "drag_core.views" in others
    code = (
        "import importlib, sys\n"
        f"for name in {others!r}:\n"
        "    importlib.import_module(name)\n"
        "print('streamlit' in sys.modules)\n"
    )
    found = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"
    ui = subprocess.run(
        [sys.executable, "-c", "import sys, drag_core.ui; print('streamlit' in sys.modules)"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert ui.stdout.strip() == "True", "the check above would not see Streamlit"


def test_every_strategy_declares_fields_of_search_params() -> None:
    names = {f.name for f in fields(SearchParams)}
    for strategy in STRATEGIES.values():
        assert strategy.params and set(strategy.params) <= names, strategy.name
        assert "rrf_k" in strategy.params, f"{strategy.name} ranks, so it reads rrf_k"
