"""The README's configuration table lists every variable the code reads, with the code's own wording, and
nothing else."""

from __future__ import annotations

import re

from conftest import REPO

from drag_core.config import ENV_VARS

ROW = re.compile(r"^\| `([A-Z0-9_]+)` \| (.*) \|$")


def readme_variables() -> dict[str, str]:
    """The rows of the README's configuration table (the section "Configuration", up to the next heading)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    return {m[1]: m[2] for line in section.splitlines() if (m := ROW.match(line))}


def test_the_readme_table_equals_env_vars() -> None:
    table = readme_variables()
    assert list(table) == list(ENV_VARS), "same variables, same order"
    for name, meaning in ENV_VARS.items():
        assert table[name] == meaning, name


def test_every_variable_the_code_reads_is_in_env_vars() -> None:
    read = set()
    for path in (REPO / "drag_core").rglob("*.py"):
        read |= set(re.findall(r"env\.get\(\s*\"([A-Z0-9_]+)\"", path.read_text(encoding="utf-8")))
        read |= set(re.findall(r"_env(?:_number)?\(env, \"([A-Z0-9_]+)\"", path.read_text(encoding="utf-8")))
    fallbacks = {"OPENAI_BASE_URL", "OPENAI_API_KEY"}  # named in their DRAG_LLM_* variables' meanings
    assert read - fallbacks <= set(ENV_VARS), read - fallbacks - set(ENV_VARS)
    assert {"DRAG_STORE", "DRAG_EVAL_DIR", "DRAG_EVAL_DATA", "DRAG_LLM_MODEL"} <= read, "the scan found reads"


def test_the_readme_links_every_document_in_docs() -> None:
    """A newcomer finds every document from the README: each ``docs/*.md`` is linked at least once."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    documents = sorted((REPO / "docs").glob("*.md"))
    assert len(documents) >= 5, "the check would see the docs folder"
    unlinked = [d.name for d in documents if f"](docs/{d.name}" not in readme]
    assert not unlinked, unlinked
