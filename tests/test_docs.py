"""The README's configuration table lists every variable the code reads, with the code's own wording."""

from __future__ import annotations

from conftest import REPO

from drag_core.app_state import APP_ENV_VARS
from drag_core.config import ENV_VARS


def test_every_variable_is_in_the_readme_table() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name, meaning in {**ENV_VARS, **APP_ENV_VARS}.items():
        assert f"| `{name}` | {meaning} |" in readme, name
