"""Upload: add PDF / TXT / MD files to the index, list the indexed documents, remove one, and index the
bundled sample in one click. Files are ingested in the background (``drag_core.app.uploads``): the progress
of each file moves per batch with the time left, Cancel stops the upload (each file whole or absent), and
the outcome of every file stays on the page until dismissed."""

import streamlit as st

from drag_core.app import ui
from drag_core.app.display import clock, counted, escape_markdown, stale_warning
from drag_core.app.sample import SAMPLE_PDF, SAMPLE_TITLE
from drag_core.app.uploads import UPLOAD_TYPES, IngestStatus, UploadJob

ui.page("pages/upload.py")

JOB, OUTCOMES = "upload_job", "upload_outcomes"

st.title("Documents")
st.markdown(
    "**DRAG with KNEE** indexes your documents as a tree of summaries and, for each question, returns as many "
    "pages as it needs — no more — by cutting each ranking at the knee of its score curve."
)
engine = ui.engine()
documents = ui.documents(engine)
if any(d.file_name == SAMPLE_PDF.name for d in documents):
    st.page_link(
        "pages/compare.py",
        label="The sample document is indexed: ask it a question on Compare",
        icon=":material/compare_arrows:",
    )

job: UploadJob | None = st.session_state.get(JOB)
busy = job is not None and not job.done


def start(files: list[tuple[str, bytes]]) -> None:
    st.session_state[JOB] = UploadJob.start(engine, files)


uploads = st.file_uploader(
    "Add PDF, TXT or MD files", type=list(UPLOAD_TYPES), accept_multiple_files=True, key="uploads"
)
seen: set[str] = st.session_state.setdefault("ingested_uploads", set())
new = [u for u in uploads or [] if u.file_id not in seen]
if new and busy:
    st.info(
        f"{counted(len(new), 'more file')} {'waits' if len(new) == 1 else 'wait'} for the upload below to finish."
    )
elif new:
    start([(u.name, u.getvalue()) for u in new])
    seen.update(u.file_id for u in new)
    busy = True

if not busy and not any(d.file_name == SAMPLE_PDF.name for d in documents) and SAMPLE_PDF.is_file():
    if not documents:
        st.info("The index is empty: upload files above, or start with the sample document.")
    if st.button(
        f"Index the sample document: {SAMPLE_TITLE}", key="index_sample", icon=":material/library_add:"
    ):
        start([(SAMPLE_PDF.name, SAMPLE_PDF.read_bytes())])
        busy = True


@st.fragment(run_every=1.0 if busy else None)
def progress_panel() -> None:
    """The running upload, redrawn every second: a bar per file, elapsed and left time, Cancel."""
    running: UploadJob | None = st.session_state.get(JOB)
    if running is None:
        return
    if running.done:
        outcomes = st.session_state.setdefault(OUTCOMES, [])
        outcomes.extend((r.status, r.line()) for r in running.reports())
        del st.session_state[JOB]
        ui.index_changed(engine)
        st.rerun()
    with st.container(border=True):
        for fraction, line in running.snapshot():
            st.progress(fraction, text=escape_markdown(line))
        left = running.seconds_left()
        estimate = "estimating the time left…" if left is None else f"about {clock(left)} left"
        if running.cancelling:
            estimate = "cancelling: the current step finishes, then nothing of the file is written…"
        done = len(running.reports())
        st.caption(
            f"{done} of {counted(len(running.files), 'file')} done · {clock(running.elapsed())} elapsed · {estimate}"
        )
        st.button("Cancel indexing", key="cancel_upload", on_click=running.cancel, icon=":material/cancel:")


progress_panel()

outcomes = st.session_state.get(OUTCOMES, [])
if outcomes:
    for status, line in outcomes:
        if status == IngestStatus.FAILED:
            st.error(escape_markdown(line), icon=":material/error:")
        elif status == IngestStatus.CANCELLED:
            st.warning(escape_markdown(line), icon=":material/cancel:")
        else:
            st.success(escape_markdown(line), icon=":material/check_circle:")
    st.button("Dismiss", key="dismiss_outcomes", on_click=st.session_state.pop, args=(OUTCOMES, None))

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
        ui.index_changed(engine)
        st.session_state["removed"] = f"Removed {file_name} ({counted(nodes, 'node')})."

    left, right = st.columns([3, 1], vertical_alignment="bottom")
    doomed = left.selectbox("Remove a document", [d.file_name for d in documents], key="remove_choice")
    right.button("Remove", key="remove", on_click=remove, args=(doomed,), icon=":material/delete:")
