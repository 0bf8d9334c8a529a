"""The package's shape, checked: no import cycle, the core apart from the app (no Streamlit, plotly or
``drag_core.app`` in it), Streamlit only in the app's ``ui`` and plotly only in its ``figures``, pages that use
the app package, ``__all__`` everywhere, settings read at the entry points only, and every strategy declares
the parameters it reads."""

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


def _import_pairs(path: Path) -> list[tuple[str, str | None]]:
    """Every import of a file, anywhere in it (function-level imports included): ``(module, None)`` for
    ``import module``, ``(module, name)`` for ``from module import name`` (relative imports resolved)."""
    name = _module_name(path) if path.is_relative_to(PACKAGE) else path.stem
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    pairs: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            pairs += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            pairs += [(base, alias.name) for alias in node.names]
    return pairs


def _external_imports(path: Path) -> set[str]:
    """Every module a file imports by its full dotted name; ``from a import b`` gives both ``a`` and ``a.b``."""
    return {m for base, name in _import_pairs(path) for m in (base, f"{base}.{name}" if name else base)}


def _imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The ``drag_core`` modules one module imports: ``from a import b`` is ``a.b`` when that is a module,
    else ``a``."""
    found = {
        f"{base}.{alias}" if alias and f"{base}.{alias}" in known else base
        for base, alias in _import_pairs(path)
    }
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
    assert "drag_core.ingest.describe.extractive" in graph["drag_core.engine"]  # a function-level import


def test_drag_core_has_no_import_cycle() -> None:
    assert find_cycle(import_graph()) is None


def room_of(name: str) -> str:
    """The package or module directly under ``drag_core`` that a module belongs to (``drag_core`` for the root)."""
    return ".".join(name.split(".")[:2])


def room_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The import graph between the rooms (the packages and modules directly under ``drag_core``); the package
    root, which only re-exports, is left out."""
    rooms: dict[str, set[str]] = {}
    for name, targets in graph.items():
        if room_of(name) != "drag_core":
            found = rooms.setdefault(room_of(name), set())
            found |= {room_of(t) for t in targets} - {room_of(name), "drag_core"}
    return rooms


def test_the_room_graph_sees_imports_between_rooms() -> None:
    rooms = room_graph(import_graph())
    assert "drag_core.store" in rooms["drag_core.ingest"] and "drag_core.config" in rooms["drag_core.store"]
    assert find_cycle(room_graph({"drag_core.a.x": {"drag_core.b.y"}, "drag_core.b.y": {"drag_core.a.z"}}))


def test_no_import_cycle_between_the_rooms() -> None:
    """The lower floors stand on each other one way: e.g. the store never imports ingest, nor config the store."""
    assert find_cycle(room_graph(import_graph())) is None


def layers(graph: dict[str, set[str]], prefix: str) -> int:
    """The tallest chain of imports among the modules under ``prefix`` (1: no module imports another)."""
    inside = {
        name: {t for t in targets if _in(t, prefix)} for name, targets in graph.items() if _in(name, prefix)
    }
    heights: dict[str, int] = {}

    def height(name: str) -> int:
        if name not in heights:
            heights[name] = 1 + max((height(t) for t in inside[name] if t != name), default=0)
        return heights[name]

    return max(map(height, inside))


def test_the_evaluation_is_a_harness_only() -> None:
    """``evaluation`` holds data sets, runs, metrics and reports: at most five layers, no command line (argparse,
    now in ``cli``) and no app (Streamlit, the background jobs, the labels the viewer writes)."""
    assert layers({"p.a": {"p.b"}, "p.b": {"p.c", "q"}, "p.c": set(), "q": set()}, "p") == 3
    assert layers(import_graph(), "drag_core.evaluation") <= 5
    harness = {name for name in _modules() if _in(name, "drag_core.evaluation")}
    for front_end in ("argparse", "streamlit", APP, "drag_core.cli", "drag_core.labels"):
        assert not (_importers(front_end) & harness), front_end


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


def _importers(prefix: str) -> set[str]:
    """The drag_core modules that import ``prefix`` (a package or module name) anywhere in them."""
    return {
        name
        for name, path in _modules().items()
        if any(m == prefix or m.startswith(prefix + ".") for m in _external_imports(path))
    }


APP = "drag_core.app"


def _in(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_the_core_never_imports_the_app_streamlit_or_plotly() -> None:
    core = {name for name in _modules() if not _in(name, APP)}
    assert "drag_core.cli" in core and "drag_core.evaluation.chart" in core and len(core) > 50
    for forbidden in (APP, "streamlit", "plotly"):
        assert not (_importers(forbidden) & core), forbidden


def test_streamlit_only_in_the_apps_ui_and_plotly_only_in_its_figures() -> None:
    assert _importers("streamlit") == {n for n in _modules() if _in(n, f"{APP}.ui") and n != f"{APP}.ui"}
    assert _importers("plotly") <= {n for n in _modules() if _in(n, f"{APP}.figures")}
    assert _importers("plotly"), "the check above would see plotly"


def test_the_core_loads_without_streamlit_or_plotly() -> None:
    """What the static checks say, at run time: importing every module of the core loads neither."""
    core = [name for name in _modules() if not _in(name, APP) and not name.endswith("__main__")]
    code = (
        "import importlib, sys\n"
        f"for name in {core!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in ('streamlit', 'plotly') if m in sys.modules))\n"
    )
    found = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"
    app = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, drag_core.app.ui, drag_core.app.figures; print('plotly' in sys.modules)",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert app.stdout.strip() == "True", "the check above would see plotly"


def test_the_pages_use_the_app_package_and_the_public_api_only() -> None:
    """The pages import the app package's modules and the names of ``drag_core`` itself, nothing deeper."""
    files = [REPO / "app.py", *sorted((REPO / "pages").glob("*.py"))]
    modules = set(_modules())
    used = {m for path in files for m in _external_imports(path) if m in modules}
    assert used - {"drag_core"}, "the check would see the app's modules"
    assert {m for m in used if not _in(m, APP)} == {"drag_core"}, used


def test_every_module_declares_what_it_exports() -> None:
    """``__all__`` in every module of the package, naming only what the module has."""
    import importlib

    missing, unknown = [], []
    for name, path in _modules().items():
        if name.endswith("__main__"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets = [
            ast.unparse(n.targets[0] if isinstance(n, ast.Assign) else n.target)
            for n in tree.body
            if isinstance(n, ast.Assign | ast.AnnAssign)
        ]
        if "__all__" not in targets:
            missing.append(name)
            continue
        module = importlib.import_module(name)
        unknown += [f"{name}.{n}" for n in module.__all__ if not hasattr(module, n)]
    assert not missing, missing
    assert not unknown, unknown


def test_settings_are_read_only_at_the_entry_points() -> None:
    """The environment is read where a program starts (the CLI, the app, the background evaluation, the
    model set-up, the framework retrievers' ``Retrieval``, ``Engine.from_env`` for scripts); everything below takes
    settings."""
    entry_points = {
        "drag_core/config.py",
        "drag_core/cli/__init__.py",
        "drag_core/app/ui/session.py",
        "drag_core/app/jobs/process.py",
        "drag_core/models/setup.py",
        "drag_core/integrations/passages.py",
        "drag_core/engine.py",
    }
    pattern = re.compile(r"\b(Settings|LLMConfig)\.from_env\(|os\.environ\b|os\.getenv\(")
    readers = {
        str(path.relative_to(REPO))
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if pattern.search(line) and not line.lstrip().startswith(("#", '"'))
    }
    assert readers <= entry_points, readers - entry_points
    engine = (PACKAGE / "engine.py").read_text(encoding="utf-8")
    assert engine.count("Settings.from_env(") == 1, "Engine.from_env only"


def test_in_memory_is_one_named_value() -> None:
    pattern = re.compile(r"""[=!]=\s*["']:memory:["']|["']:memory:["']\s*[=!]=""")
    compared = [
        str(path.relative_to(REPO))
        for path in sorted(PACKAGE.rglob("*.py"))
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert not compared, compared


STORE_PATHS = {"description-cache.sqlite", "page-cache.sqlite", "originals", "labels", "edge", "collection"}


def test_only_the_layout_names_the_paths_inside_a_store_folder() -> None:
    """``StoreLayout`` decides every path inside a store folder: no other module joins one of its names onto a
    path or spells a cache file's name."""
    offenders = []
    for name, path in _modules().items():
        if name == "drag_core.layout":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            joined = isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and node.right
            spelled = isinstance(node, ast.Constant) and str(node.value).endswith("-cache.sqlite") and node
            found = joined if isinstance(joined, ast.Constant) and joined.value in STORE_PATHS else spelled
            if found:
                offenders.append(f"{name}:{found.lineno}")
    assert not offenders, offenders


TOP_LEVEL = {
    "__init__",
    "__main__",
    "config",
    "engine",
    "errors",
    "fusion",
    "knobs",
    "layout",
    "lru",
    "params",
    "text",
    "types",
}
ROOMS = {
    "app",
    "cli",
    "data",
    "evaluation",
    "evidence",
    "ingest",
    "integrations",
    "knee",
    "labels",
    "llm",
    "models",
    "search",
    "store",
}


def test_every_stage_has_its_room() -> None:
    """A newcomer finds a stage's code in its folder: the top level holds only the shared pieces."""
    assert {p.stem for p in PACKAGE.glob("*.py")} == TOP_LEVEL
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} == ROOMS


def test_every_strategy_declares_fields_of_search_params() -> None:
    names = {f.name for f in fields(SearchParams)}
    for strategy in STRATEGIES.values():
        assert strategy.params and set(strategy.params) <= names, strategy.name
        assert "rrf_k" in strategy.params, f"{strategy.name} ranks, so it reads rrf_k"
