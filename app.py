"""DRAG with KNEE — the Streamlit explorer: ``streamlit run app.py``.

This file only routes: the pages are Streamlit's ``pages/`` folder (so every page opens by its own address,
e.g. ``/compare?q=…``), each draws the app's navigation (``drag_core.app.ui.page``), and ``/`` goes to the
first of them. Everything the pages compute is in ``drag_core``.
"""

import streamlit as st

from drag_core.app import ui

st.switch_page(ui.PAGES[0][0])
