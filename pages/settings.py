"""Settings: where the index lives, which models and LLM are used, and how to change them. API keys are
never shown, only whether one is set."""

import streamlit as st

from drag_core.app import ui
from drag_core.app.display import ENV_VARS, describe_settings, escape_markdown

ui.page("pages/settings.py")

st.title("Settings")
engine = ui.engine()

left, right = st.columns(2)
left.metric("Documents", len(engine.documents()))
right.metric("Tree nodes in the index", engine.node_count())

rows = describe_settings(engine.settings, ui.llm_config(), engine.engine_label)
st.table([{"setting": name, "value": escape_markdown(value)} for name, value in rows])  # cells are Markdown

st.subheader("How to change them")
st.caption(
    "Set these environment variables before `streamlit run app.py`, or put them in `.streamlit/secrets.toml` "
    "(top-level keys). Restart the app after a change."
)
st.table([{"variable": name, "meaning": meaning} for name, meaning in ENV_VARS.items()])
