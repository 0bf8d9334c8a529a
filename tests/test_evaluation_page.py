"""The Evaluate page in Streamlit's AppTest: pick a data set, run, see the table, plots and per-query rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import child_env, no_exceptions
from test_evaluation import write_page_dataset

from drag_core.app.evaluation import plan_warning
from drag_core.app.jobs.process import SECONDS_PER_PAGE, EvalJob, plan
from drag_core.config import Settings
from drag_core.evaluation.datasets import load_dataset
from drag_core.evaluation.index import MANIFEST, default_folder, ledger_entries, open_index, seconds_per_page
from drag_core.ingest.report import ProgressEvent
from drag_core.ingest.vector_text import VectorPolicy

EVALUATE = "pages/evaluate.py"


def test_evaluate_page_runs_strategies_on_a_data_set(open_app, tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_page_dataset(data / "tiny-pages")
    env = {"DRAG_EVAL_DATA": str(data), "DRAG_EVAL_DIR": str(tmp_path / "eval")}
    at = open_app(tmp_path / "qdrant", EVALUATE, **env)
    no_exceptions(at)
    assert at.title[0].value == "Evaluate strategies"
    assert at.selectbox(key="eval_data").value == str(data / "tiny-pages")
    at.multiselect(key="eval_runs").set_value(["flat", "adaptive"]).run()
    at.text_input(key="eval_extra").set_value("flat:top_k=12").run()
    warning = at.warning[0].value
    assert "The first run indexes the whole data set" in warning and "3 documents" in warning
    at.button(key="eval_run").click().run()
    no_exceptions(at)
    assert at.button(key="eval_cancel").label == "Cancel"
    job = at.session_state["evaluation_job"]
    assert job.wait(600), job.status()
    at.run()
    no_exceptions(at)
    assert "evaluation_job" not in at.session_state
    assert not job.folder.exists(), "the job's temporary folder is removed once its result is read"
    assert "tiny-pages: 2 queries" in at.subheader[0].value.replace("\\", "")
    headline, summary, per_query = (frame.value for frame in at.dataframe)  # every metric: in an expander
    assert list(headline["strategy"]) == list(summary["strategy"]) == ["flat", "adaptive", "flat:top_k=12"]
    assert list(headline["pages_returned"])[::2] == [5, 12]
    assert len(per_query) == 2 * 3  # per query and run
    assert len(at.get("plotly_chart")) == 2
    assert "gain_vs_flat" in headline and list(headline["gain_vs_flat"])[0] == 0  # flat is on its own curve
    for column in ("knee_decides", "slider_sizes", "oracle_share", "final cut set by"):
        assert column in summary, column
    flat_share, adaptive_share = list(summary["knee_decides"])[:2]
    assert flat_share != flat_share and 0 <= adaptive_share <= 1  # flat has no knee cut (NaN in the frame)
    said = [m.value.replace("\\", "") for m in at.markdown if "flat on tiny" in m.value]
    assert len(said) == 1 and said[0].startswith("- adaptive ")  # one sentence per knee run
    assert (tmp_path / "eval" / "tiny-pages").is_dir()  # its own index, outside the app's
    at.run()
    assert "built for these settings" in " ".join(c.value for c in at.caption)  # the next run reuses it


def test_cancel_ends_the_background_run_and_the_next_run_completes_the_index(
    open_app, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    write_page_dataset(data / "tiny-pages")
    env = {"DRAG_EVAL_DATA": str(data), "DRAG_EVAL_DIR": str(tmp_path / "eval")}
    at = open_app(tmp_path / "qdrant", EVALUATE, **env)
    at.multiselect(key="eval_runs").set_value(["flat"]).run()
    at.button(key="eval_run").click().run()
    job = at.session_state["evaluation_job"]
    at.button(key="eval_cancel").click().run()
    no_exceptions(at)
    assert not job.running and "evaluation_job" not in at.session_state
    assert job.status().stage == "cancelled" and not job.folder.exists(), "cancelled, its folder removed"
    assert any("Cancelled" in i.value for i in at.info)
    assert not list((tmp_path / "eval").rglob("manifest.json"))  # not marked complete
    at.button(key="eval_run").click().run()
    assert at.session_state["evaluation_job"].wait(600)
    at.run()
    no_exceptions(at)
    assert list(at.dataframe[0].value["strategy"]) == ["flat"]
    assert list((tmp_path / "eval").rglob("manifest.json"))


def test_a_folder_that_is_no_data_set_is_reported(open_app, tmp_path: Path) -> None:
    env = {"DRAG_EVAL_DATA": str(tmp_path / "nothing"), "DRAG_EVAL_DIR": str(tmp_path / "eval")}
    at = open_app(tmp_path / "qdrant", EVALUATE, **env)
    no_exceptions(at)
    at.text_input(key="eval_folder").set_value(str(tmp_path)).run()
    no_exceptions(at)
    assert "neither a page data set" in at.error[0].value


def test_after_an_interrupted_build_the_estimate_counts_what_is_indexed(tmp_path: Path, embedder) -> None:
    root = write_page_dataset(tmp_path / "data" / "tiny-pages")
    settings = Settings(eval_dir=tmp_path / "eval")
    dataset, policy = load_dataset(root), VectorPolicy()
    first = plan(dataset, policy, settings)
    assert (first.files, first.indexed, first.measured) == (3, 0, False)
    assert first.pages == 3 * 4 and first.seconds == first.pages * SECONDS_PER_PAGE
    assert plan_warning(first, dataset.kind).startswith(
        "The first run indexes the whole data set — 12 pages in 3"
    )

    def stop_at_the_second_file(event: ProgressEvent) -> None:
        if event.file_name != dataset.files[0].name:
            raise KeyboardInterrupt  # as a cancel ends the child: nothing more is written

    with pytest.raises(KeyboardInterrupt):
        open_index(dataset, settings, policy=policy, embedder=embedder, progress=stop_at_the_second_file)
    folder = default_folder(dataset, policy, settings)
    assert [e["file"] for e in ledger_entries(folder)] == [dataset.files[0].name]
    assert not (folder / MANIFEST).exists()
    after = plan(dataset, policy, settings)
    assert (after.files, after.pages, after.indexed, after.measured) == (2, 8, 1, True)
    assert after.seconds == pytest.approx(8 * seconds_per_page([folder]))
    words = plan_warning(after, dataset.kind)
    assert words.startswith(
        "This run indexes the rest of the data set — 8 pages in 2 documents (1 document is"
    )
    assert "at the pace earlier runs measured on this machine" in words


def test_a_failed_job_says_why_and_its_temporary_folder_goes(tmp_path: Path) -> None:
    job = EvalJob.start(tmp_path / "no-such-data-set", 1, ["flat"], VectorPolicy(), env=child_env())
    assert job.wait(300)
    status = job.status()
    assert status.stage == "failed" and status.error, status
    assert job.folder.is_dir()
    job.close()
    assert not job.folder.exists()
