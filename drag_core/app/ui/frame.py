"""What every page draws first: its browser title, the app's navigation in the sidebar, and (from its second
run on) a settled heap.

The pages are Streamlit's own ``pages/`` folder (its first multipage API, still supported), so a deep link such
as ``/compare?q=…`` opens the page in any session, a fresh server's first included. Streamlit's generated
navigation is hidden (``client.showSidebarNavigation = false`` in ``.streamlit/config.toml``) and replaced by
``PAGES``, with our titles and icons; ``app.py`` only sends ``/`` to the first of them.
"""

from __future__ import annotations

import gc

import streamlit as st

__all__ = ["PAGES", "page", "settle_heap"]

#: The app's pages in navigation order: (script, title, icon).
PAGES: tuple[tuple[str, str, str], ...] = (
    ("pages/upload.py", "Upload", ":material/upload_file:"),
    ("pages/tree.py", "Tree", ":material/account_tree:"),
    ("pages/compare.py", "Compare", ":material/compare_arrows:"),
    ("pages/evaluate.py", "Evaluate", ":material/fact_check:"),
    ("pages/settings.py", "Settings", ":material/settings:"),
)
_ran: set[str] = set()


def page(script: str) -> None:
    """Start the page ``script`` (a key of ``PAGES``): page config, the navigation, and on its second run in
    this process the heap settled (``settle_heap``)."""
    title = next(t for s, t, _ in PAGES if s == script)
    st.set_page_config(page_title=f"{title} · DRAG with KNEE", layout="wide")
    with st.sidebar:
        for target, label, icon in PAGES:
            st.page_link(target, label=label, icon=icon)
    if script in _ran:
        settle_heap(script)
    _ran.add(script)


@st.cache_resource(show_spinner=False)
def settle_heap(page: str) -> None:
    """Once per page and process, before its second run: move everything alive (models, index, modules,
    remembered searches) to the collector's permanent generation, so Streamlit's full collection after every
    rerun scans only what reruns allocate (it took ~150 ms of every knob step with the 10,000-node index).
    A fragment's reruns do not pass through ``page``: a page whose knobs rerun a fragment calls this at the
    end of the fragment's first run."""
    gc.collect()
    gc.freeze()
