"""The Settings page and the app's navigation in Streamlit's AppTest; API keys are never shown."""

from __future__ import annotations

from pathlib import Path

from conftest import REPO, no_exceptions

PAGES = ["pages/upload.py", "pages/tree.py", "pages/compare.py", "pages/settings.py"]


def _page_text(at) -> str:
    """Every value the page shows, as one string."""
    parts = [
        str(e.value)
        for kind in ("markdown", "text", "caption", "info", "error", "metric")
        for e in getattr(at, kind)
    ]
    parts += [t.value.to_csv() for t in at.table]
    return "\n".join(parts)


def _settings(at) -> dict[str, str]:
    table = at.table[0].value  # values are Markdown-escaped for display
    return dict(zip(table["setting"], (v.replace("\\", "") for v in table["value"]), strict=True))


def test_settings_show_the_index_models_and_offline_summariser(open_app, small_index_copy: Path) -> None:
    at = open_app(small_index_copy, "pages/settings.py")
    no_exceptions(at)
    assert at.title[0].value == "Settings"
    rows = _settings(at)
    assert rows["Index"] == f"embedded Qdrant folder {small_index_copy.resolve()}"
    assert rows["Dense model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert rows["Summaries"].startswith("offline extractive summariser")
    assert rows["RRF k (default)"] == "60"
    assert rows["Engine"] == "Qdrant Edge (embedded)"
    assert rows["BM25 constants"] == "k1=1.2,b=0.75,avg_len=256"
    assert [m.value for m in at.metric][0] == "2"  # documents
    variables = list(at.table[1].value["variable"])
    assert {"DRAG_STORE", "DRAG_LLM_BASE_URL", "DRAG_SAMPLE"} <= set(variables)


def test_settings_never_show_api_keys(open_app, small_index_copy: Path) -> None:
    at = open_app(
        small_index_copy,
        "pages/settings.py",
        DRAG_LLM_BASE_URL="http://user:pw-in-url@127.0.0.1:9/v1",
        DRAG_LLM_MODEL="tiny",
        DRAG_LLM_API_KEY="sk-very-secret-key",
    )
    no_exceptions(at)
    rows = _settings(at)
    assert rows["Summaries"].startswith("LLM tiny at 127.0.0.1:9")
    assert rows["LLM API key"] == "set (hidden)"
    shown = _page_text(at)
    assert "sk-very-secret-key" not in shown and "pw-in-url" not in shown


def test_secrets_configure_the_llm(open_app, small_index_copy: Path) -> None:
    at = open_app(small_index_copy, "pages/settings.py")
    at.secrets["DRAG_LLM_BASE_URL"] = "http://127.0.0.1:7/v1"
    at.secrets["DRAG_LLM_MODEL"] = "from-secrets"
    at.secrets["DRAG_LLM_API_KEY"] = "secret-from-toml"
    at.run()
    no_exceptions(at)
    assert _settings(at)["Answers"] == "LLM from-secrets at 127.0.0.1:7"
    assert "secret-from-toml" not in _page_text(at)


def test_every_page_runs_from_the_navigation(open_app, small_index_copy: Path) -> None:
    at = open_app(small_index_copy)
    no_exceptions(at)
    assert at.title[0].value == "Documents"  # Upload is the default page
    titles = []
    for page in PAGES:
        at.switch_page(page).run()
        no_exceptions(at)
        titles.append(at.title[0].value)
    assert titles == ["Documents", "Tree", "Compare strategies", "Settings"]
    if (REPO / "pages" / "evaluate.py").is_file():
        at.switch_page("pages/evaluate.py").run()
        no_exceptions(at)
