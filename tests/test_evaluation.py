"""The evaluation pipeline on tiny data sets whose metric values are known by hand.

Every page is generated text of exactly ``PAGE_CHARS`` characters about one topic with its own vocabulary, and
each query is a sentence of one page, so that page is first in the dense, the sparse and the fused ranking
(and the only page BM25 matches). Expected values follow from that and from the qrels written here.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest
from conftest import REPO
from test_metrics import ranx_scores

from drag_core.app.figures.evaluation import per_query_figure, recall_vs_pages, sweep_figure
from drag_core.cli import main
from drag_core.config import IN_MEMORY, PDF_ENGINES, Settings
from drag_core.evaluation.budget import FLAT_DEPTH, FlatCurve, judge
from drag_core.evaluation.datasets import PAGE_KIND, PASSAGE_KIND, load_dataset, passages
from drag_core.evaluation.diagnostics import cut_rule
from drag_core.evaluation.index import default_folder, identity, open_index
from drag_core.evaluation.report import (
    comparisons,
    query_rows,
    summary_rows,
    sweep_verdicts,
    table,
    verdicts,
    write_csv,
)
from drag_core.evaluation.runner import Outcome, Report, RunSpec, Summary, evaluate, measure, parse_spec
from drag_core.evaluation.sweep import run_sweep
from drag_core.ingest.loading import load_path
from drag_core.ingest.vector_text import VectorPolicy
from drag_core.knee import SENSITIVITIES
from drag_core.search import SearchParams, SearchResult, Step
from drag_core.store import Candidate

PAGE_CHARS = 2000
TOPICS = {
    "alpha.txt": [
        "Glaciers carve steep valleys while compacted snow hardens into blue ice creeping downhill.",
        "Sourdough bakers knead rye dough, proof loaves overnight and bake crusty bread in hot ovens.",
        "Chess grandmasters sacrifice knights, castle kings early and calculate tactical combinations.",
        "Hummingbirds hover beside tubular flowers, sipping nectar with long forked tongues.",
    ],
    "beta.txt": [
        "Violinists tune four strings, rosin horsehair bows and practise vibrato with arpeggios.",
        "Volcanoes erupt molten lava; magma chambers vent sulphurous ash above smouldering craters.",
        "Sailors trim jib sheets, reef mainsails in gales and navigate by sextant across oceans.",
        "Beekeepers smoke hives, harvest golden honeycomb and watch queens lay eggs in wax cells.",
    ],
    "gamma.txt": [
        "Astronomers point telescopes at distant galaxies, measuring redshift of quasars and nebulae.",
        "Potters throw clay on spinning wheels, shape bowls and fire glazed stoneware in kilns.",
        "Cyclists climb alpine passes, shift derailleur gears and sprint toward finishing lines.",
        "Tax accountants reconcile ledgers, file quarterly returns and audit deductible expenses.",
    ],
}
MISSING = ("missing.pdf", 1)  # relevant, never indexed: caps recall at 1/2 for q1
NDCG_HALF = 1 / (1 + 1 / math.log2(3))  # one of two relevant at rank 1


def _page(sentence: str) -> str:
    text = ((sentence + " ") * (PAGE_CHARS // len(sentence) + 1))[: PAGE_CHARS - 1].rstrip()
    return text + "." * (PAGE_CHARS - len(text))


@pytest.fixture(scope="module")
def page_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_page_dataset(tmp_path_factory.mktemp("pages") / "tiny-pages")


def write_page_dataset(root: Path) -> Path:
    """The tiny page data set: three generated documents of four pages, two labelled queries."""
    (root / "docs").mkdir(parents=True)
    for name, sentences in TOPICS.items():
        (root / "docs" / name).write_text("\n\n".join(_page(s) for s in sentences))
    queries = [
        {"_id": "q1", "text": TOPICS["alpha.txt"][1], "answer": "bread", "doc": "alpha.txt"},
        {"_id": "q2", "text": TOPICS["beta.txt"][2], "answer": "sextant", "doc": "beta.txt"},
        {"_id": "q3", "text": "a question nobody labelled"},
    ]
    (root / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries))
    qrels = ["query-id\tfile\tpage\tscore", "q1\talpha.txt\t2\t1", f"q1\t{MISSING[0]}\t{MISSING[1]}\t1"]
    (root / "qrels.tsv").write_text("\n".join([*qrels, "q2\tbeta.txt\t3\t1", "q2\tgamma.txt\t1\t0", ""]))
    return root


@pytest.fixture(scope="module")
def page_engine(page_dataset: Path, embedder):
    engine, index = open_index(load_dataset(page_dataset), Settings(), IN_MEMORY, embedder=embedder)
    assert index["failed"] == [] and not index["reused"]
    yield engine
    engine.close()


def test_page_dataset_is_read_and_pages_are_as_generated(page_dataset: Path) -> None:
    dataset = load_dataset(page_dataset)
    assert dataset.kind == PAGE_KIND
    assert [q.id for q in dataset.queries] == ["q1", "q2"]  # q3 has no relevant page
    assert dataset.qrels == {"q1": {("alpha.txt", 2): 1, MISSING: 1}, "q2": {("beta.txt", 3): 1}}
    assert dataset.units("alpha.txt", 2, 4) == [("alpha.txt", 2), ("alpha.txt", 3), ("alpha.txt", 4)]
    for path in dataset.files:
        assert [len(p.text) for p in load_path(path).pages] == [PAGE_CHARS] * 4


def test_flat_runs_match_hand_computed_values(page_dataset: Path, page_engine) -> None:
    dataset = load_dataset(page_dataset)
    base = SearchParams()
    specs = [parse_spec(s, base) for s in ("flat", "flat:top_k=12", "flat-sparse", "flat-dense:top_k=3")]
    report = evaluate(page_engine, dataset, specs)
    assert report.n_queries == 2
    by_label = {s.spec.label: s.means for s in report.summaries}
    top5 = by_label["flat"]
    assert top5["recall@1"] == pytest.approx((0.5 + 1) / 2)
    assert top5["recall@5"] == pytest.approx(0.75)
    assert top5["ndcg@10"] == pytest.approx((NDCG_HALF + 1) / 2)
    assert top5["mrr@10"] == pytest.approx(1.0)
    assert top5["pages_returned"] == 5
    assert top5["tokens_returned"] == 5 * PAGE_CHARS / 4
    assert top5["nonrelevant_discarded"] is None  # no knee cut in flat
    everything = by_label["flat:top_k=12"]
    assert everything["pages_returned"] == 12
    assert everything["tokens_returned"] == 12 * PAGE_CHARS / 4
    assert everything["right_sized_recall"] == pytest.approx(0.75)
    assert everything["ndcg@10"] == pytest.approx(top5["ndcg@10"])
    sparse = by_label["flat-sparse"]  # BM25 matches only the page that holds the query's words
    assert sparse["pages_returned"] == 1
    assert sparse["recall@1"] == pytest.approx(0.75)
    assert by_label["flat-dense:top_k=3"]["pages_returned"] == 3
    assert by_label["flat-dense:top_k=3"]["mrr@10"] == pytest.approx(1.0)
    first = next(o for o in report.outcomes if o.label == "flat" and o.query_id == "q1")
    assert first.units[0] == ("alpha.txt", 2)
    low, high = report.summaries[0].intervals["recall@1"]
    assert low == pytest.approx(0.5) and high == pytest.approx(1.0)  # two queries: resampled means 0.5–1


def test_every_strategy_is_measured_like_ranx(page_dataset: Path, page_engine) -> None:
    dataset = load_dataset(page_dataset)
    specs = [
        parse_spec(s, SearchParams(roots=2)) for s in ("flat", "flat-knee", "branch", "beam", "adaptive")
    ]
    report = evaluate(page_engine, dataset, specs)
    for spec in specs:
        mine = {o.query_id: o for o in report.outcomes if o.label == spec.label}
        runs = {q: o.units for q, o in mine.items()}
        reference = ranx_scores(dataset.qrels, runs, ["recall@5", "ndcg@10", "mrr@10"])
        for q, outcome in mine.items():
            assert outcome.values["pages_returned"] == len(outcome.units)
            assert outcome.values["tokens_returned"] == len(outcome.units) * PAGE_CHARS / 4
            for metric in ("recall@5", "ndcg@10", "mrr@10"):
                assert outcome.values[metric] == pytest.approx(reference[metric].get(q, 0.0)), (spec, q)
    assert "adaptive" in table(report) and "| strategy |" in table(report, markdown=True)


def _candidate(node_id: int, page: int) -> Candidate:
    return Candidate(node_id, -1, (), 0, "alpha.txt", page, page, 1.0 / node_id, node_id, node_id, 0.5)


def test_nonrelevant_discarded_reads_the_knee_steps(page_dataset: Path) -> None:
    dataset = load_dataset(page_dataset)
    query = dataset.queries[0]  # relevant: alpha.txt page 2
    cut = Step("leaves", [_candidate(i, p) for i, p in ((1, 2), (2, 1), (3, 3), (4, 4))], cut=2)
    uncut = Step("roots", [_candidate(5, 1)])
    result = SearchResult("flat-knee", query.text, [], {}, [uncut, cut], 1.0, 1, SearchParams())
    values = measure(dataset, query, result, tokens=0)
    assert values["nonrelevant_discarded"] == pytest.approx(2 / 3)  # pages 1, 3, 4 non-relevant; 3 and 4 cut
    assert values["pages_returned"] == 0 and values["recall@10"] == 0


@pytest.fixture(scope="module")
def passage_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("beir") / "tiny-beir"
    (root / "qrels").mkdir(parents=True)
    sentences = [s for topic in TOPICS.values() for s in topic][:6]
    with gzip.open(root / "corpus.jsonl.gz", "wt", encoding="utf-8") as corpus:
        for i, sentence in enumerate(sentences):
            corpus.write(json.dumps({"_id": f"d{i}", "title": f"Passage {i}", "text": sentence}) + "\n")
    queries = [{"_id": "1", "text": sentences[4]}, {"_id": "2", "text": sentences[1]}]
    (root / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries))
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\td4\t1\n2\td1\t1\n2\td5\t1\n")
    return root


def test_passage_dataset_flat_anchors(passage_dataset: Path, embedder) -> None:
    dataset = load_dataset(passage_dataset)
    assert dataset.kind == PASSAGE_KIND
    assert dataset.qrels["2"] == {("d1.txt", 0): 1, ("d5.txt", 0): 1}
    documents = list(passages(dataset))
    assert [d.file_name for d in documents][:2] == ["d0.txt", "d1.txt"]
    assert documents[0].pages[0].text.startswith("Passage 0\nGlaciers")
    engine, _ = open_index(dataset, Settings(), IN_MEMORY, embedder=embedder)
    try:
        assert len(engine.documents()) == 6
        specs = [RunSpec(n, n, SearchParams(top_k=5)) for n in ("flat", "flat-dense", "flat-sparse")]
        report = evaluate(engine, dataset, specs)
    finally:
        engine.close()
    for summary in report.summaries:
        # q1: its one passage first; q2: one of two relevant passages first (d5 shares no word with q2)
        assert summary.means["recall@1"] == pytest.approx((1 + 0.5) / 2), summary.spec.label
        assert summary.means["mrr@10"] == pytest.approx(1.0)
    sparse = next(s for s in report.summaries if s.spec.label == "flat-sparse")
    assert sparse.means["pages_returned"] == 1  # a passage counts once, BM25 matches only that passage
    assert sparse.means["ndcg@10"] == pytest.approx((1 + NDCG_HALF) / 2)


def test_cli_eval_writes_json_and_csv_and_reuses_its_index(
    page_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setenv("DRAG_MODEL_DIR", str(REPO / "models"))
    for name in ("DRAG_LLM_BASE_URL", "OPENAI_BASE_URL", "QDRANT_URL"):
        monkeypatch.delenv(name, raising=False)
    index, out = tmp_path / "index", tmp_path / "report.json"
    argv = [
        "eval",
        str(page_dataset),
        "--index",
        str(index),
        "--strategies",
        "flat",
        "adaptive:sensitivity=2",
    ]
    assert main([*argv, "--json", str(out), "--csv", str(tmp_path / "report.csv")]) == 0
    first = json.loads(out.read_text())
    assert first["dataset"] == "tiny-pages" and first["n_queries"] == 2
    assert first["index"]["reused"] is False
    flat = first["strategies"]["flat"]
    assert flat["recall@5"] == pytest.approx(0.75) and flat["pages_returned"] == 5
    assert flat["ci95"]["recall@5"] == [pytest.approx(0.5), pytest.approx(1.0)]
    assert first["strategies"]["adaptive:sensitivity=2"]["params"]["sensitivity"] == 2.0
    for key in ("recall@1", "recall@10", "ndcg@10", "mrr@10", "right_sized_recall", "tokens_returned"):
        assert key in first["strategies"]["adaptive:sensitivity=2"]
    adaptive = first["strategies"]["adaptive:sensitivity=2"]
    for key in (
        "cut_rules",
        "pages_distribution",
        "spearman_pages_relevant",
        "slider_response",
        "oracle_share",
    ):
        assert key in adaptive and key in flat, key
    assert flat["cut_rules"] is None and flat["slider_response"] is None
    response = adaptive["slider_response"]
    assert set(adaptive["cut_rules"]) == {"final", "all"}
    assert (response["method"], response["curve"]) == ("relative", "dense")
    assert 0 <= response["cliff_queries"] <= response["big_step_queries"] <= 1
    assert [r["slider_pages"] for r in first["queries"] if r["strategy"] == "flat"] == [[]] * 2
    assert "flat" in capsys.readouterr().out
    rows = (tmp_path / "report.csv").read_text().splitlines()
    assert rows[0].startswith("strategy,query_id,recall@1") and len(rows) == 1 + 2 * 2 + 2
    assert main([*argv, "--json", str(out), "--no-slider"]) == 0
    again = json.loads(out.read_text())
    assert again["index"]["reused"] is True
    assert again["strategies"]["adaptive:sensitivity=2"]["slider_response"] is None
    assert main(["eval", str(page_dataset), "--strategies", "nope"]) == 2
    assert main(["eval", str(page_dataset), "--strategies", "flat", "--baseline", "beam"]) == 2
    assert main(["sweep", str(page_dataset), "--param", "colour", "--values", "1"]) == 2


def test_write_csv_leaves_undefined_values_empty(page_dataset: Path, page_engine, tmp_path: Path) -> None:
    report = evaluate(page_engine, load_dataset(page_dataset), [RunSpec("flat", "flat", SearchParams())])
    write_csv(report, tmp_path / "r.csv")
    header, *rows = (tmp_path / "r.csv").read_text().splitlines()
    column = header.split(",").index("nonrelevant_discarded")
    assert all(row.split(",")[column] == "" for row in rows)


def test_sweep_comparisons_rows_and_plots(page_dataset: Path, page_engine) -> None:
    dataset = load_dataset(page_dataset)
    sweep = run_sweep(page_engine, dataset, [RunSpec("flat", "flat", SearchParams())], "top_k", ["1", "12"])
    labels = [s.spec.label for s in sweep.report.summaries]
    assert labels == ["flat top_k=1", "flat top_k=12"]
    assert sweep.points == {"flat top_k=1": ("flat", 1), "flat top_k=12": ("flat", 12)}
    pages = [s.means["pages_returned"] for s in sweep.report.summaries]
    assert pages == [1, 12]
    (line,) = comparisons(sweep.report, "flat top_k=1")
    # recall of everything: q1 0.5 → 0.5, q2 1 → 1; the same on both queries
    assert (
        line
        == "flat top_k=12 − flat top_k=1: right_sized_recall +0.000 [+0.000, +0.000]; higher on 0, lower on 0 queries"
    )
    with pytest.raises(ValueError, match="no run named"):
        comparisons(sweep.report, "beam")
    rows = summary_rows(sweep.report)
    assert rows[1]["pages_returned"] == 12 and rows[1]["recall@5 95%"] == "0.500–1.000"
    assert [r["pages"].count(":") for r in query_rows(sweep.report)] == [1, 12, 1, 12]
    figure = sweep_figure(sweep)  # the flat top-k curve under the sweep's line
    assert [list(t.x) for t in figure.data] == [list(range(1, FLAT_DEPTH + 1)), [1, 12]]
    assert len(recall_vs_pages(sweep.report).data) == 3
    heat = per_query_figure(sweep.report).data[0]  # no questions given: the rows are named by their ids
    assert list(heat.y) == ["1. q1", "2. q2"] and [list(r) for r in heat.z] == [[0.5, 0.5], [1.0, 1.0]]
    long = "What does the <b>second</b> question ask, at a length that no row name of a heat map can hold?"
    named = per_query_figure(sweep.report, questions={"q2": long}).data[0]
    assert (
        named.y[0] == "1. q1"
        and named.y[1].startswith("2. What does the<br>&lt;b&gt;second")
        and "…" in named.y[1]
    )
    assert long.replace("<", "&lt;").replace(">", "&gt;") in named.customdata[1][0]
    assert named.y[1].count("<br>") == 1  # two short lines: the runs' names keep their room under the map


def test_cli_eval_measures_bm25_avg_len_on_the_corpus_and_keeps_that_index_apart(
    page_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder
) -> None:
    monkeypatch.setenv("DRAG_MODEL_DIR", str(REPO / "models"))
    monkeypatch.setenv("DRAG_EVAL_DIR", str(tmp_path))
    for name in ("DRAG_LLM_BASE_URL", "OPENAI_BASE_URL", "QDRANT_URL", "DRAG_BM25_K1", "DRAG_BM25_B"):
        monkeypatch.delenv(name, raising=False)
    texts = [
        f"{path.stem}\n{page.text}"
        for path in load_dataset(page_dataset).files
        for page in load_path(path).pages
    ]
    lengths = [len(tokens) for tokens in embedder.bm25_tokens(texts)]
    avg_len = sum(lengths) / len(lengths)
    assert len(set(lengths)) > 1  # the mean is not any single page's length

    options = ["--bm25-k1", "0.9", "--bm25-b", "0.4", "--bm25-avg-len", "corpus"]
    assert main(["eval", str(page_dataset), "--strategies", "flat-sparse", *options]) == 0
    folders = sorted(p.name for p in (tmp_path / "tiny-pages").iterdir() if p.is_dir())
    assert folders == [
        f"dense-centroid-sparse-subtree-passages-plain-bm25-k1-0-9-b-0-4-avg-len-{avg_len:g}-pdf-pdfium".replace(
            ".", "-"
        )
    ]
    manifest = json.loads((tmp_path / "tiny-pages" / folders[0] / "manifest.json").read_text())
    assert manifest["sparse_model"] == f"Qdrant/bm25(k1=0.9,b=0.4,avg_len={avg_len:g})"
    assert main(["eval", str(page_dataset), "--strategies", "flat-sparse"]) == 0  # default constants
    assert len([p for p in (tmp_path / "tiny-pages").iterdir() if p.is_dir()]) == 2


def test_flat_is_judged_level_with_itself_at_every_budget(page_dataset: Path, page_engine) -> None:
    dataset = load_dataset(page_dataset)
    specs = [parse_spec(s, SearchParams()) for s in ("flat:top_k=1", "flat", "flat:top_k=12", "flat-sparse")]
    report = evaluate(page_engine, dataset, specs)
    by_label = {s.spec.label: s for s in report.summaries}
    for summary in report.summaries:  # flat top-k is a point of its own curve: no gain, interval [0, 0]
        if summary.spec.strategy == "flat":
            assert summary.means["gain_vs_flat"] == pytest.approx(0.0)
            assert summary.means["gain_vs_flat_per_query"] == pytest.approx(0.0)
            assert summary.intervals["gain_vs_flat"] == (pytest.approx(0.0), pytest.approx(0.0))
            assert summary.means["flat_recall_at_pages"] == pytest.approx(summary.means["right_sized_recall"])
    # BM25 returns one page, the right one: flat top-1 finds the same, q1 0.5 (one relevant page missing), q2 1
    assert by_label["flat-sparse"].means["gain_vs_flat"] == pytest.approx(0.0)
    assert by_label["flat-sparse"].means["flat_recall_at_pages"] == pytest.approx(0.75)
    assert by_label["flat"].means["doc_hit"] == 1.0 and by_label["flat"].means["flat_doc_hit"] == 1.0
    assert report.flat.recall["q1"][:3] == [0.0, 0.5, 0.5] and report.flat.recall["q2"][1] == 1.0
    assert len(report.flat.recall["q1"]) == FLAT_DEPTH + 1
    data = report.to_json()
    assert data["flat_curve"]["depth"] == FLAT_DEPTH and data["flat_curve"]["doc_hit@5"] == 1.0
    for label in by_label:
        assert {
            "gain_vs_flat",
            "doc_hit",
            "flat_doc_hit",
            "flat_recall_at_pages",
            "gain_vs_flat_per_query",
        } <= set(data["strategies"][label])
        assert len(data["strategies"][label]["ci95"]["gain_vs_flat"]) == 2


def test_gain_interpolates_each_query_between_its_floor_and_ceiling() -> None:
    flat = FlatCurve()
    flat.recall = {
        "a": [0.0, 0.0, 1.0] + [1.0] * (FLAT_DEPTH - 2),
        "b": [0.0, 0.5, 0.5] + [1.0] * (FLAT_DEPTH - 2),
    }
    flat.doc_hit = {"a": 1.0, "b": 0.0}
    assert flat.at("a", 1.25) == pytest.approx(0.25) and flat.at("b", 0.5) == pytest.approx(0.25)
    assert flat.at("a", 99) == 1.0 and flat.at("a", -1) == 0.0
    verdict = judge({"a": 1.0, "b": 0.5}, 1.5, flat)  # flat at 1.5 pages: a 0.5, b 0.5
    assert verdict.flat_recall == pytest.approx(0.5)
    assert verdict.gain == pytest.approx((0.5 + 0.0) / 2)
    assert verdict.interval == (pytest.approx(0.0), pytest.approx(0.5))
    assert verdict.flat_doc_hit == 0.5
    assert judge({"a": None}, 2.0, flat).gain is None


def test_one_page_more_on_one_question_is_judged_at_that_questions_budget() -> None:
    """SciFact's case (docs/evaluation.md): a run recalls what flat top-5 recalls on every question and returns a
    sixth page on one, whose recall is already whole. At the mean budget (5.5 pages here) flat is credited half
    of its sixth page on the other question too; at each question's own pages the run is level with flat."""
    flat = FlatCurve()
    flat.recall = {
        "whole": [0.0] + [1.0] * FLAT_DEPTH,
        "sixth": [0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 1.0] + [1.0] * (FLAT_DEPTH - 6),
    }
    flat.doc_hit = {"whole": 1.0, "sixth": 1.0}
    verdict = judge({"whole": 1.0, "sixth": 0.5}, 5.5, flat, {"whole": 6.0, "sixth": 5.0})
    assert verdict.gain == pytest.approx(-0.125)  # "sixth" against flat at 5.5 pages: 0.75
    assert verdict.own_gain == pytest.approx(0.0) and verdict.own_interval == (pytest.approx(0.0),) * 2
    assert judge({"whole": 1.0}, 5.5, flat).own_gain is None  # no pages per question given


def test_the_pdf_engine_names_the_index_of_a_data_set_of_files(
    page_dataset: Path, passage_dataset: Path, page_engine, tmp_path: Path
) -> None:
    files, policy = load_dataset(page_dataset), VectorPolicy()
    settings = {engine: Settings(eval_dir=tmp_path, pdf_engine=engine) for engine in PDF_ENGINES}
    folders = {engine: default_folder(files, policy, s) for engine, s in settings.items()}
    assert folders["pdfium"] != folders["pypdf"] and folders["pypdf"].name.endswith("-pdf-pypdf")
    assert folders["pdfium"].parent == tmp_path / files.name, "under the settings' eval_dir"
    assert identity(files, page_engine)["pdf_engine"] == page_engine.parser.pdf_engine == "pdfium"
    abstracts = load_dataset(passage_dataset)  # passages are text: no PDF engine reads them
    assert default_folder(abstracts, policy, settings["pypdf"]) == default_folder(
        abstracts, policy, settings["pdfium"]
    )
    assert "pdf_engine" not in identity(abstracts, page_engine)


def test_knee_diagnostics_read_the_trace_and_the_slider_reuses_a_sweeps_searches(
    page_dataset: Path, page_engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep of adaptive's sensitivity over its detector's slider values: each query's slider sizes are
    the sweep's own answers (no search twice), the cut rules are the trace's, and the oracle and the verdicts
    are reported for every knee run."""
    dataset = load_dataset(page_dataset)
    searches: list[str] = []
    search = page_engine.search

    def counted(query, strategy, params=None, **kwargs):
        searches.append(strategy)
        return search(query, strategy, params, **kwargs)

    monkeypatch.setattr(page_engine, "search", counted)
    grid = SENSITIVITIES["relative"]
    sweep = run_sweep(
        page_engine,
        dataset,
        [RunSpec("adaptive", "adaptive", SearchParams())],
        "sensitivity",
        list(map(str, grid)),
    )
    assert len(searches) == len(dataset.queries) * (1 + len(grid))  # flat's ranking and one search per value
    report = sweep.report
    for query in dataset.queries:
        own = [o for o in report.outcomes if o.query_id == query.id]
        sizes = [int(o.values["pages_returned"]) for o in own]
        assert all(o.slider_pages == sizes for o in own), query.id
        result = search(query.text, "adaptive", SearchParams())
        assert own[grid.index(0.5)].cut_rules == [cut_rule(s) for s in result.trace if s.bound is not None]
    for summary in report.summaries:
        response = summary.diagnostics["slider_response"]
        assert response["sensitivities"] == list(grid) and len(response["mean_pages"]) == len(grid)
        assert summary.means["slider_sizes"] == response["distinct"] >= 1
        assert 0 <= summary.means["knee_decides"] <= 1
        assert summary.means["oracle_recall_at_pages"] >= summary.means["flat_recall_at_pages"]
    assert len(verdicts(report)) == len(grid) and all(" flat on tiny-pages" in v for v in verdicts(report))
    (said,) = sweep_verdicts(sweep)  # one sentence for the whole sweep of one strategy
    assert said.startswith("adaptive ") and f"{len(grid)} settings" in said


def test_verdicts_say_in_one_sentence_whether_a_knee_run_beats_flat() -> None:
    def run(label: str, gain: float, low: float, high: float, pages: float) -> Summary:
        spec = RunSpec(label, "adaptive", SearchParams())
        return Summary(spec, {"gain_vs_flat": gain, "pages_returned": pages}, {"gain_vs_flat": (low, high)})

    runs = [
        run("a", 0.118, 0.028, 0.215, 8.2),
        run("b", 0.056, -0.003, 0.125, 6.0),
        run("c", 0.0001, -0.037, 0.042, 1.4),  # +0.000 at three decimals: no gain
        run("d", 0.0, 0.0, 0.0, 5.0),
        run("flat", 0.0, 0.0, 0.0, 5.0),
    ]
    outcomes = [Outcome("q", label, {}, [], cut_rules=["knee"]) for label in "abcd"]
    said = verdicts(Report("set", 1, runs, [*outcomes, Outcome("q", "flat", {}, [])], {}))
    assert said == [
        "a beats flat on set at its own budget: +0.118 [+0.028, +0.215] at 8.2 pages.",
        "b is above flat on set at its own budget, but not clearly: +0.056 [-0.003, +0.125] at 6.0 pages.",
        "c does not beat flat on set at its own budget: +0.000 [-0.037, +0.042] at 1.4 pages.",
        "d does not beat flat on set: on every question it recalls what flat recalls at its budget "
        "(+0.000 [+0.000, +0.000] at 5.0 pages), so the cut changes nothing here.",
    ]  # flat cuts at no knee: no sentence
