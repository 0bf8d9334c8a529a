"""Streamlit's floor for the UI benchmark: a page with one slider and the value it sets, nothing else."""

import streamlit as st

st.title("Minimal")
value = st.slider("Sensitivity", min_value=0.0, max_value=5.0, value=1.0, step=0.1)
st.write(f"S = {value}")
