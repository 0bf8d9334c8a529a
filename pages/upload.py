"""Upload: add PDF / TXT / MD files to the index, list the indexed documents, remove one (asked once), and index the
bundled sample in one click. Files are ingested in the background (``drag_core.app.uploads``): a bar for
the whole upload with the time left and one per file, in one measure of work; files dropped meanwhile are
queued, the uploader is emptied as soon as its files are taken, Cancel stops the upload (each file whole or
absent), and the outcome of every file stays on the page until dismissed."""

import streamlit as st

from drag_core.app import ui
from drag_core.app.display import clock, counted, escape_markdown, stale_warning
from drag_core.app.glossary import TERMS
from drag_core.app.sample import SAMPLE_PDF, SAMPLE_TITLE
from drag_core.app.uploads import UPLOAD_TYPES, IngestStatus, UploadJob, overall_line

ui.page("pages/upload.py")

JOB, OUTCOMES, PENDING, UPLOADER = "upload_job", "upload_outcomes", "upload_pending", "uploader_generation"
CONFIRM = "remove_asked"  # the document whose Remove was clicked once: a second, named button removes it

st.title("Documents")
st.markdown(
    "**DRAG with KNEE** indexes your documents as a tree of summaries and, for each question, returns as many "
    "pages as it needs — no more — by cutting each ranking at the knee of its score curve."
)
engine = ui.engine()


def collect() -> UploadJob | None:
    """The running upload; a finished one's outcomes are moved to the page's list (kept until dismissed)."""
    job: UploadJob | None = st.session_state.get(JOB)
    if job is not None and job.done:
        st.session_state.setdefault(OUTCOMES, []).extend((r.status, r.line()) for r in job.reports())
        del st.session_state[JOB]
        ui.index_changed(engine)
        return None
    return job


def queue(files: list[tuple[str, bytes]]) -> None:
    """Ingest ``files`` after what runs: into the running upload, or held until a cancelled one stopped."""
    job = collect()
    if job is not None and job.cancelling:
        st.session_state.setdefault(PENDING, []).extend(files)
    elif job is None or not job.add(files):
        st.session_state[JOB] = UploadJob.start(engine, files)


def take_uploads(key: str) -> None:
    """Move the files just dropped into the uploader to the upload, and give the page a fresh, empty uploader
    (what was taken is shown in the progress panel, then in the outcomes)."""
    files = st.session_state.get(key) or []
    if files:
        queue([(u.name, u.getvalue()) for u in files])
        st.session_state[UPLOADER] = st.session_state.get(UPLOADER, 0) + 1


job = collect()
if job is None and st.session_state.get(PENDING):
    queue(st.session_state.pop(PENDING))
    job = collect()
documents = ui.documents(engine)
if any(d.file_name == SAMPLE_PDF.name for d in documents):
    st.page_link(
        "pages/compare.py",
        label="The sample document is indexed: ask it a question on Compare",
        icon=":material/compare_arrows:",
    )

generation = st.session_state.get(UPLOADER, 0)
uploader_key = "uploads" if not generation else f"uploads-{generation}"
st.file_uploader(
    "Add PDF, TXT or MD files",
    type=list(UPLOAD_TYPES),
    accept_multiple_files=True,
    key=uploader_key,
    on_change=take_uploads,
    args=(uploader_key,),
)
busy = job is not None

if not busy and not any(d.file_name == SAMPLE_PDF.name for d in documents) and SAMPLE_PDF.is_file():
    if not documents:
        st.info("The index is empty: upload files above, or start with the sample document.")
    if st.button(
        f"Index the sample document: {SAMPLE_TITLE}", key="index_sample", icon=":material/library_add:"
    ):
        queue([(SAMPLE_PDF.name, SAMPLE_PDF.read_bytes())])
        busy = True


@st.fragment(run_every=1.0 if busy else None)
def progress_panel() -> None:
    """The running upload, redrawn every second: the whole upload's bar with the time left, a bar per file,
    Cancel."""
    running: UploadJob | None = st.session_state.get(JOB)
    if running is None:
        return
    if running.done:
        st.rerun()  # the whole page: outcomes, the document list, and no more polling
    with st.container(border=True):
        rows, share, left = running.snapshot(), running.fraction(), running.seconds_left()
        if len(rows) > 1:
            st.progress(share, text=escape_markdown(overall_line(share, len(running.reports()), len(rows))))
        for fraction, line in rows:
            st.progress(fraction, text=escape_markdown(line))
        estimate = "estimating the time left…" if left is None else f"about {clock(left)} left"
        if running.cancelling:
            estimate = "cancelling: the current step finishes, then nothing of the file is written…"
        pending = st.session_state.get(PENDING, [])
        waiting = f" · {counted(len(pending), 'more file')} after it" if pending else ""
        st.caption(f"{clock(running.elapsed())} elapsed · {estimate}{waiting}")
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
        column_config={
            "levels": st.column_config.NumberColumn(help=TERMS["levels"]),
            "LLM fallbacks": st.column_config.NumberColumn(help=TERMS["fallbacks"]),
        },
    )

    def remove(file_name: str) -> None:
        st.session_state.pop(CONFIRM, None)
        nodes = engine.remove(file_name)
        ui.index_changed(engine)
        st.session_state["removed"] = f"Removed {file_name} ({counted(nodes, 'node')})."

    left, right = st.columns([3, 1], vertical_alignment="bottom")
    doomed = left.selectbox("Remove a document", [d.file_name for d in documents], key="remove_choice")
    asked = st.session_state.get(CONFIRM) == doomed  # Remove asks once before anything is deleted
    right.button(
        "Remove",
        key="remove",
        on_click=st.session_state.__setitem__,
        args=(CONFIRM, doomed),
        icon=":material/delete:",
        disabled=asked,
    )
    if asked:
        info = next(d for d in documents if d.file_name == doomed)
        with st.container(border=True):
            st.warning(
                escape_markdown(
                    f"Remove {doomed} from the index? Its {counted(info.pages, 'page')} and "
                    f"{counted(info.nodes, 'node')} go; labels of its pages are kept, marked stale."
                ),
                icon=":material/delete:",
            )
            yes, no = st.columns(2)
            yes.button(
                f"Remove {doomed}", key="remove_confirmed", on_click=remove, args=(doomed,), type="primary"
            )
            no.button("Keep it", key="remove_kept", on_click=st.session_state.pop, args=(CONFIRM, None))
