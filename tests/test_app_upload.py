"""The Upload page in Streamlit's AppTest: upload real files, see a line per file, list, remove, the sample."""

from __future__ import annotations

from pathlib import Path

from conftest import FINANCE, SAMPLE_PDF, no_exceptions

FOOTLOCKER = FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"
PEPSICO = FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf"


def _texts(at) -> list[str]:
    """Result lines: under the progress bars right after indexing (Markdown-escaped), else in "Last indexing"."""
    return [b.text.replace("\\", "") for b in at.get("progress")] + [t.value for t in at.text]


def _listed(at) -> list[str]:
    return list(at.dataframe[0].value["file"]) if at.dataframe else []


def test_upload_indexes_several_files_and_reports_each(open_app, tmp_path: Path) -> None:
    at = open_app(tmp_path / "qdrant")
    no_exceptions(at)
    assert at.title[0].value == "Documents"
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
    status = at.status[0]
    assert status.state == "error" and "2 done, 1 failed" in status.label
    bars = at.get("progress")
    assert [b.value for b in bars] == [100, 100, 100]
    lines = _texts(at)
    assert any(line.startswith(f"{FOOTLOCKER.name}: indexed — 4 pages") for line in lines), lines
    assert any(line.startswith("notes.md: indexed — 1 page,") for line in lines), lines
    assert any(line.startswith("broken.pdf: FAILED — ") for line in lines), lines
    assert sorted(_listed(at)) == [FOOTLOCKER.name, "notes.md"]
    table = at.dataframe[0].value.set_index("file")
    assert table.loc[FOOTLOCKER.name, "pages"] == 4 and table.loc[FOOTLOCKER.name, "nodes"] >= 5


def test_reuploading_an_unchanged_file_costs_nothing(open_app, tmp_path: Path) -> None:
    at = open_app(tmp_path / "qdrant")
    at.file_uploader(key="uploads").set_value((PEPSICO.name, PEPSICO.read_bytes(), "application/pdf")).run()
    assert any(": indexed — 5 pages" in line for line in _texts(at))
    at.run()  # a rerun with the same upload in the widget does not ingest it again
    assert len(at.status) == 0
    at.file_uploader(key="uploads").set_value((PEPSICO.name, PEPSICO.read_bytes(), "application/pdf")).run()
    no_exceptions(at)
    assert any(line.startswith(f"{PEPSICO.name}: unchanged, already indexed (5 pages") for line in _texts(at))
    assert _listed(at) == [PEPSICO.name]


def test_remove_takes_a_document_out_of_the_index(open_app, small_index_copy: Path) -> None:
    at = open_app(small_index_copy)
    before = _listed(at)
    assert len(before) == 2
    at.selectbox(key="remove_choice").set_value(before[0]).run()
    at.button(key="remove").click().run()
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
    assert len(at.metric) >= 4


def test_documents_built_with_other_bm25_constants_are_flagged_until_uploaded_again(
    open_app, small_index_copy: Path
) -> None:
    at = open_app(small_index_copy, DRAG_BM25_K1="0.9")
    no_exceptions(at)
    (warning,) = [w.value.replace("\\", "") for w in at.warning]
    assert warning.startswith("2 of 2 documents were indexed with other vector settings")
    ulta = FINANCE / "ULTABEAUTY_2023Q4_EARNINGS.pdf"
    at.file_uploader(key="uploads").set_value((ulta.name, ulta.read_bytes(), "application/pdf")).run()
    no_exceptions(at)
    assert any(line.startswith(f"{ulta.name}: replaced") for line in _texts(at)), _texts(at)
    (warning,) = [w.value.replace("\\", "") for w in at.warning]
    assert warning.startswith("1 of 2 documents") and warning.endswith(
        "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"
    )
