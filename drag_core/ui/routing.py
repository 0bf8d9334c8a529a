"""Every page runs inside the app's navigation (``app.py``), even when Streamlit started it on its own."""

from __future__ import annotations

import runpy

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx


def through_app() -> None:
    """Run ``app.py`` in place of this page when Streamlit ran the page on its own.

    With a ``pages/`` folder beside the main script, Streamlit (1.67) serves every run by its first
    multipage API — each ``pages/*.py`` on its own, with the file names as the navigation — until some run
    calls ``st.navigation`` (``PagesManager.uses_pages_directory``). So a deep link such as ``/compare``
    opened as a fresh server's first session ran the page without ``app.py``: Streamlit's file list in the
    sidebar, no page config. Here the page declares the app's navigation as the one in use, runs ``app.py``
    (whose navigation runs the linked page, in this same run, so a click that started the run is not lost)
    and stops. Once per server process; AppTest, which resets the flag on every run, takes this path on each.
    """
    ctx = get_script_run_ctx()
    if not PagesManager.uses_pages_directory or ctx is None:
        return
    PagesManager.uses_pages_directory = False
    runpy.run_path(ctx.main_script_path, run_name="__main__")
    st.stop()
