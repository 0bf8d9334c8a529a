"""Upload: add PDF / TXT / MD files to the index (a status line per file), list the indexed documents,
remove one, and index the bundled sample in one click."""

import streamlit as st

from drag_core import ui
from drag_core.app_state import SAMPLE_PDF, SAMPLE_TITLE, UPLOAD_TYPES, escape_markdown, stale_warning

st.title("Documents")
engine = ui.engine()

uploads = st.file_uploader(
    "Add PDF, TXT or MD files", type=list(UPLOAD_TYPES), accept_multiple_files=True, key="uploads"
)
seen: set[str] = st.session_state.setdefault("ingested_uploads", set())
new = [u for u in uploads or [] if u.file_id not in seen]
indexed_now = bool(new)
if new:
    reports = ui.ingest_files(engine, [(u.name, u.getvalue()) for u in new], "Indexing")
    seen.update(u.file_id for u in new)
    st.session_state["upload_log"] = [r.line() for r in reports]

documents = engine.documents()
if not any(d.file_name == SAMPLE_PDF.name for d in documents) and SAMPLE_PDF.is_file():
    if not documents:
        st.info("The index is empty: upload files above, or start with the sample document.")
    if st.button(
        f"Index the sample document: {SAMPLE_TITLE}", key="index_sample", icon=":material/library_add:"
    ):
        reports = ui.ingest_files(engine, [(SAMPLE_PDF.name, SAMPLE_PDF.read_bytes())], "Indexing the sample")
        st.session_state["upload_log"] = [r.line() for r in reports]
        documents = engine.documents()
        indexed_now = True

if st.session_state.get("upload_log") and not indexed_now:  # the status above already shows them
    with st.expander("Last indexing", expanded=True):
        for line in st.session_state["upload_log"]:
            st.text(line)

removed = st.session_state.pop("removed", None)
if removed:
    st.success(escape_markdown(removed))

st.subheader(f"Indexed documents ({len(documents)})")
warning = stale_warning(documents)
if warning:
    st.warning(escape_markdown(warning))
if documents:
    st.dataframe(
        [
            {
                "file": d.file_name,
                "pages": d.pages,
                "empty pages": d.empty_pages,
                "nodes": d.nodes,
                "levels": d.levels,
                "LLM fallbacks": d.fallbacks,
            }
            for d in documents
        ],
        hide_index=True,
    )

    def remove(file_name: str) -> None:
        nodes = engine.remove(file_name)
        st.session_state["removed"] = f"Removed {file_name} ({nodes} nodes)."

    left, right = st.columns([3, 1], vertical_alignment="bottom")
    doomed = left.selectbox("Remove a document", [d.file_name for d in documents], key="remove_choice")
    right.button("Remove", key="remove", on_click=remove, args=(doomed,), icon=":material/delete:")
