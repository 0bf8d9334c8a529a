"""The Evaluate page in Streamlit's AppTest: pick a data set, run, see the table, plots and per-query rows."""

from __future__ import annotations

from pathlib import Path

from conftest import no_exceptions
from test_evaluation import write_page_dataset

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
    assert "tiny-pages: 2 queries" in at.subheader[0].value.replace("\\", "")
    summary = at.dataframe[0].value
    assert list(summary["strategy"]) == ["flat", "adaptive", "flat:top_k=12"]
    assert list(summary["pages_returned"])[::2] == [5, 12]
    assert len(at.dataframe[1].value) == 2 * 3  # per query and run
    assert len(at.get("plotly_chart")) == 2
    assert "gain_vs_flat" in summary and list(summary["gain_vs_flat"])[0] == 0  # flat is on its own curve
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
