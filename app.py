"""DRAG with KNEE — the Streamlit explorer: ``streamlit run app.py``. This file only routes (and settles the
heap after a page's first run: ``ui.settle_heap``); the pages are in ``pages/`` and everything they compute is
in ``drag_core``."""

from pathlib import Path

import streamlit as st

from drag_core import ui

st.set_page_config(page_title="DRAG with KNEE", page_icon=":material/account_tree:", layout="wide")

pages = [
    st.Page("pages/upload.py", title="Upload", icon=":material/upload_file:", default=True),
    st.Page("pages/tree.py", title="Tree", icon=":material/account_tree:"),
    st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
]
if (Path(__file__).parent / "pages" / "evaluate.py").is_file():
    pages.append(st.Page("pages/evaluate.py", title="Evaluate", icon=":material/fact_check:"))
pages.append(st.Page("pages/settings.py", title="Settings", icon=":material/settings:"))

page = st.navigation(pages)
page.run()
ui.settle_heap(page.url_path)
