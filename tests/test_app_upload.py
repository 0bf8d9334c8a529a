"""The Upload page in Streamlit's AppTest: upload real files, see a line per file, list, remove, the sample."""

from __future__ import annotations

from pathlib import Path

from conftest import FINANCE, SAMPLE_PDF, no_exceptions

FOOTLOCKER = FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"
PEPSICO = FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf"


def _finish(at) -> None:
    """Wait for the background upload to end, then rerun the page (as its polling fragment would). A quick
    one (an unchanged file) may have ended within the run that started it."""
    if "upload_job" in at.session_state:
        assert at.session_state["upload_job"].wait(600)
        at.run()
    assert "upload_job" not in at.session_state


def _outcomes(at) -> dict[str, list[str]]:
    """Outcome lines that stay until dismissed, by kind (error, warning, success), Markdown escapes removed."""
    return {
        kind: [e.value.replace("\\", "") for e in at.get(kind)] for kind in ("error", "warning", "success")
    }


def _listed(at) -> list[str]:
    return list(at.dataframe[0].value["file"]) if at.dataframe else []


def test_upload_indexes_several_files_and_keeps_failures_until_dismissed(open_app, tmp_path: Path) -> None:
    at = open_app(tmp_path / "qdrant")
    no_exceptions(at)
    assert at.title[0].value == "Documents"
    assert "tree of summaries" in at.markdown[0].value
    assert any("index is empty" in i.value for i in at.info)
    assert at.button(key="index_sample").label.startswith("Index the sample document")
    uploader = at.file_uploader(key="uploads")
    assert uploader.accept_multiple_files and set(uploader.allowed_type) == {".pdf", ".txt", ".md"}

    uploader.set_value(
        [
            (FOOTLOCKER.name, FOOTLOCKER.read_bytes(), "application/pdf"),
            (
                "notes.md",
                b"# Returns\n\nItems can be returned within 30 days with a receipt.\n",
                "text/markdown",
            ),
            ("broken.pdf", b"%PDF-1.7 this is not really a PDF", "application/pdf"),
        ]
    ).run()
    no_exceptions(at)
    assert at.button(key="cancel_upload").label == "Cancel indexing"
    assert len(at.get("progress")) == 4  # the whole upload, then each file
    assert at.get("progress")[0].proto.text.startswith("All files\\: 0 % · 0 of 3 files done")
    assert at.file_uploader[0].key != "uploads", "the files were taken: a fresh, empty uploader"
    _finish(at)
    no_exceptions(at)
    outcomes = _outcomes(at)
    assert [line for line in outcomes["error"] if line.startswith("broken.pdf: FAILED — ")]
    assert any(line.startswith(f"{FOOTLOCKER.name}: indexed — 4 pages") for line in outcomes["success"])
    assert any(line.startswith("notes.md: indexed — 1 page,") for line in outcomes["success"])
    assert sorted(_listed(at)) == [FOOTLOCKER.name, "notes.md"]
    table = at.dataframe[0].value.set_index("file")
    assert table.loc[FOOTLOCKER.name, "pages"] == 4 and table.loc[FOOTLOCKER.name, "nodes"] >= 5

    at.file_uploader[0].set_value((PEPSICO.name, PEPSICO.read_bytes(), "application/pdf")).run()
    _finish(at)
    outcomes = _outcomes(at)
    assert len(outcomes["error"]) == 1, "the earlier failure stays until dismissed"
    assert any(line.startswith(f"{PEPSICO.name}: indexed") for line in outcomes["success"])
    at.button(key="dismiss_outcomes").click().run()
    assert not at.error and not [b for b in at.button if b.key == "dismiss_outcomes"]


def test_reuploading_an_unchanged_file_costs_nothing(open_app, tmp_path: Path) -> None:
    at = open_app(tmp_path / "qdrant")
    at.file_uploader(key="uploads").set_value((PEPSICO.name, PEPSICO.read_bytes(), "application/pdf")).run()
    _finish(at)
    assert any(": indexed — 5 pages" in line for line in _outcomes(at)["success"])
    at.run()  # a rerun with the same upload in the widget does not ingest it again
    assert "upload_job" not in at.session_state
    at.button(key="dismiss_outcomes").click().run()
    at.file_uploader[0].set_value((PEPSICO.name, PEPSICO.read_bytes(), "application/pdf")).run()
    _finish(at)
    no_exceptions(at)
    success = _outcomes(at)["success"]
    assert any(line.startswith(f"{PEPSICO.name}: unchanged, already indexed (5 pages") for line in success)
    assert _listed(at) == [PEPSICO.name]


def test_cancel_stops_the_upload_and_leaves_the_index_as_it_was(open_app, tmp_path: Path) -> None:
    at = open_app(tmp_path / "qdrant")
    files = [(p.name, p.read_bytes(), "application/pdf") for p in (PEPSICO, FOOTLOCKER)]
    at.file_uploader(key="uploads").set_value(files).run()
    at.button(key="cancel_upload").click().run()
    _finish(at)
    no_exceptions(at)
    cancelled = _outcomes(at)["warning"]
    assert len(cancelled) == 2 and all(": cancelled — " in line for line in cancelled), cancelled
    assert _listed(at) == []
    assert any("index is empty" in i.value for i in at.info)


def test_remove_asks_once_then_takes_a_document_out_of_the_index(open_app, small_index_copy: Path) -> None:
    at = open_app(small_index_copy)
    before = _listed(at)
    assert len(before) == 2
    at.selectbox(key="remove_choice").set_value(before[0]).run()
    at.button(key="remove").click().run()
    no_exceptions(at)
    assert _listed(at) == before and "from the index?" in at.warning[0].value
    at.button(key="remove_kept").click().run()  # kept: nothing removed, nothing asked any more
    assert _listed(at) == before and not at.warning
    at.button(key="remove").click().run()
    at.button(key="remove_confirmed").click().run()
    no_exceptions(at)
    assert _listed(at) == before[1:]
    assert at.success[0].value.startswith("Removed ")
    at.switch_page("pages/tree.py").run()
    assert at.selectbox(key="tree_doc").options == before[1:]


def test_an_empty_index_gets_the_sample_on_first_start(open_app, tmp_path: Path) -> None:
    at = open_app(tmp_path / "qdrant", DRAG_SAMPLE="auto")
    no_exceptions(at)
    assert at.status[0].state == "complete" and "sample" in at.status[0].label
    assert _listed(at) == [SAMPLE_PDF.name]
    assert not [b for b in at.button if b.key == "index_sample"]
    at.switch_page("pages/compare.py").run()
    no_exceptions(at)
    assert at.text_input(key="query").value  # a sample question is ready
    assert "comparison" in at.session_state


def test_documents_built_with_other_bm25_constants_are_flagged_until_uploaded_again(
    open_app, small_index_copy: Path
) -> None:
    at = open_app(small_index_copy, DRAG_BM25_K1="0.9")
    no_exceptions(at)
    (warning,) = [w.value.replace("\\", "") for w in at.warning]
    assert warning.startswith("2 of 2 documents were indexed with other vector settings")
    ulta = FINANCE / "ULTABEAUTY_2023Q4_EARNINGS.pdf"
    at.file_uploader(key="uploads").set_value((ulta.name, ulta.read_bytes(), "application/pdf")).run()
    _finish(at)
    no_exceptions(at)
    assert any(line.startswith(f"{ulta.name}: replaced") for line in _outcomes(at)["success"]), _outcomes(at)
    (warning,) = [w.value.replace("\\", "") for w in at.warning]
    assert warning.startswith("1 of 2 documents") and warning.endswith(
        "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"
    )
