"""The app's environment: the process environment with the top-level values of Streamlit secrets laid over
it, from which the app reads its settings (once per run, in ``ui.settings``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["app_env"]


def app_env(secrets: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, str]:
    """The environment with the top-level values of Streamlit secrets laid over it (secrets win).

    Only scalar secrets count (``DRAG_LLM_API_KEY = "..."``); tables are left alone.
    """
    env = dict(environ)
    for key, value in secrets.items():
        if isinstance(value, str | int | float | bool):
            env[str(key)] = str(value)
    return env
