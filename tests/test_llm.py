"""The OpenAI-compatible LLM path: configuration, retries, fallback, secrecy of the API key, a real local LLM.

A scripted fake server (http.server on 127.0.0.1) plays the endpoint for the failure cases; xllamacpp serving
SmolLM2-135M proves the path end to end against a real model.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fake_llm import FakeLLM, Reply, Respond, completion, error
from llm_server import local_llm  # noqa: F401 - session fixture used by the real-LLM tests

from drag_core.ingest.describe.base import DocumentContext
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.describe.openai_llm import PAGE_CHARS, OpenAISummarizer
from drag_core.ingest.outline import OutlineEntry
from drag_core.llm.answer import answer_question
from drag_core.llm.client import (
    DESCRIPTION_SCHEMA,
    SUMMARY_SCHEMA,
    LLMError,
    backoff_delay,
    complete_json,
    make_client,
    normalize_description,
)
from drag_core.llm.config import LLMConfig
from drag_core.types import Description

SENTINEL = "sk-SENTINEL-123"
GOOD = {"summary": "Revenue grew 6%. Costs rose faster.", "keywords": ["revenue", "costs", "margin"]}

PAGE = """Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations

Northwind Freight Corporation operates 214 regional distribution centres across the United States and
Canada. Net revenue for fiscal 2023 was $4.82 billion, an increase of 6.1% compared with $4.54 billion in
fiscal 2022, driven by higher shipment volumes in the e-commerce segment and a 3.2% average increase in
contract rates.

Operating income decreased to $312 million from $347 million in the prior year. The decline reflects higher
labour costs under the collective bargaining agreement signed in March 2023, higher diesel prices in the
first half of the year, and $28 million of restructuring charges for the closure of nine facilities.

Cash and cash equivalents were $611 million at December 31, 2023. Capital expenditures totalled $405 million,
mainly for fleet electrification and warehouse automation. The company repurchased 2.1 million shares for
$96 million and paid quarterly dividends of $0.42 per share."""
ONE_PAGE = DocumentContext.alone("northwind.txt", [PAGE])


def one_page(text: str) -> DocumentContext:
    """A document of one page."""
    return DocumentContext.alone("doc.txt", [text])


def pages_of(children: list[Description]) -> DocumentContext:
    """A document whose pages are the children's summaries."""
    return DocumentContext.alone("doc.txt", [child.summary for child in children])


# --- the scripted fake OpenAI-compatible server (tests/fake_llm.py) -------------------------------------


def echo_auth(status: int) -> Respond:
    """A server that puts the request's Authorization header into its error body."""
    return lambda request: error(status, f"rejected: {request.headers.get('authorization')}")


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        server.play(completion(GOOD))
        yield server


class Sleeps(list):
    """An injected ``sleep`` that records the delays instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def config(fake: FakeLLM, **kwargs: Any) -> LLMConfig:
    values: dict[str, Any] = {"base_url": fake.url, "model": "fake-model", "api_key": SENTINEL}
    return LLMConfig(**{**values, **kwargs})


def summarizer(fake: FakeLLM, **kwargs: Any) -> tuple[OpenAISummarizer, Sleeps]:
    sleeps = Sleeps()
    return OpenAISummarizer(config(fake, **kwargs), sleep=sleeps), sleeps


# --- configuration -------------------------------------------------------------------------------------


def test_from_env_offline_when_nothing_configured() -> None:
    assert LLMConfig.from_env({}) is None
    assert LLMConfig.from_env({"DRAG_LLM_MODEL": "m", "DRAG_LLM_BASE_URL": "  "}) is None


def test_from_env_reads_drag_variables_first() -> None:
    env = {
        "DRAG_LLM_BASE_URL": "http://llm.local:8080/v1",
        "OPENAI_BASE_URL": "http://other/v1",
        "DRAG_LLM_MODEL": "qwen",
        "DRAG_LLM_API_KEY": SENTINEL,
        "OPENAI_API_KEY": "sk-other",
        "DRAG_LLM_TIMEOUT": "12.5",
        "DRAG_LLM_CONCURRENCY": "8",
    }
    cfg = LLMConfig.from_env(env)
    assert cfg is not None
    assert (cfg.base_url, cfg.model, cfg.api_key) == ("http://llm.local:8080/v1", "qwen", SENTINEL)
    assert (cfg.timeout_s, cfg.concurrency, cfg.max_retries) == (12.5, 8, 3)
    assert cfg.host == "llm.local:8080"


def test_from_env_falls_back_to_openai_variables() -> None:
    cfg = LLMConfig.from_env({"OPENAI_API_KEY": SENTINEL})
    assert cfg is not None and cfg.api_key == SENTINEL and cfg.base_url.startswith("https://api.openai.com")
    cfg = LLMConfig.from_env({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert cfg is not None and cfg.api_key is None and cfg.host == "127.0.0.1:9"


def test_from_env_rejects_bad_numbers() -> None:
    with pytest.raises(ValueError, match="DRAG_LLM_TIMEOUT"):
        LLMConfig.from_env({"DRAG_LLM_BASE_URL": "http://x/v1", "DRAG_LLM_TIMEOUT": "soon"})
    with pytest.raises(ValueError, match="DRAG_LLM_CONCURRENCY"):
        LLMConfig.from_env({"DRAG_LLM_BASE_URL": "http://x/v1", "DRAG_LLM_CONCURRENCY": "0"})


def test_make_client_disables_library_retries() -> None:
    client = make_client(LLMConfig(base_url="http://127.0.0.1:9/v1", timeout_s=7))
    assert client.max_retries == 0
    assert client.api_key == "not-needed"


def test_backoff_is_exponential_with_jitter() -> None:
    for attempt in range(4):
        delay = backoff_delay(attempt)
        assert 0.25 * 2**attempt <= delay < 0.75 * 2**attempt


def test_normalize_description_dedupes_and_caps_keywords() -> None:
    words = [f"w{i}" for i in range(15)]
    data = normalize_description({"summary": "  A.  B. ", "keywords": ["Tax", "tax ", "TAX", *words]})
    assert data["summary"] == "A. B."
    assert data["keywords"] == ["Tax", *words[:9]]
    for bad in ({"summary": "", "keywords": ["a"]}, {"summary": "x", "keywords": []}):
        with pytest.raises(ValueError):
            normalize_description(bad)
    with pytest.raises(ValueError, match="2000"):
        normalize_description({"summary": "x" * 2001, "keywords": ["a"]})
    with pytest.raises(ValueError):
        normalize_description({"summary": "x", "keywords": [f"k{i}" for i in range(21)]})


# --- the summariser against the fake server ------------------------------------------------------------


def test_valid_reply_sends_json_schema_and_returns_description(fake: FakeLLM) -> None:
    fake.play(
        completion({"summary": " Revenue grew.  Costs rose. ", "keywords": ["Revenue", "revenue", "costs"]})
    )
    llm, sleeps = summarizer(fake, model="m1", concurrency=3)
    description = llm.describe_page(one_page("x " * 5000), 0)
    assert description == Description("Revenue grew. Costs rose.", ["Revenue", "costs"], llm.identity)
    assert llm.identity == f"openai:m1@{fake.url.split('/')[2]}"
    assert llm.max_workers == 3
    assert fake.attempts == 1 and not sleeps
    body = fake.requests[0].body
    assert body["model"] == "m1"
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "page_description", "schema": DESCRIPTION_SCHEMA, "strict": True},
    }
    user = body["messages"][-1]["content"]
    assert "x x x" in user and len(user) <= PAGE_CHARS + 50  # the page is truncated
    assert fake.requests[0].headers["authorization"] == f"Bearer {SENTINEL}"


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (completion("{not json"), "invalid JSON"),
        (completion({"summary": "ok", "keywords": "a string"}), "violates schema"),
        (completion({"summary": "", "keywords": ["a"]}), "violates schema"),
        (completion({"keywords": ["a"]}), "violates schema"),
        (completion(""), "empty reply"),
        (completion(None), "empty reply"),
    ],
    ids=["invalid-json", "keywords-string", "empty-summary", "missing-summary", "empty", "null"],
)
def test_bad_reply_is_retried_then_accepted(fake: FakeLLM, bad: Reply, reason: str) -> None:
    fake.play(bad, completion(GOOD))
    llm, sleeps = summarizer(fake)
    description = llm.describe_page(ONE_PAGE, 0)
    assert description.fallback_reason is None and description.summary == GOOD["summary"]
    assert fake.attempts == 2 and len(sleeps) == 1


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (completion("{not json"), "invalid JSON"),
        (completion({"summary": "ok", "keywords": "a string"}), "$.keywords should be array"),
        (completion(""), "empty reply"),
        (error(500), "HTTP 500: boom"),
    ],
    ids=["invalid-json", "keywords-string", "empty", "http-500"],
)
def test_permanent_failure_falls_back_with_reason(fake: FakeLLM, bad: Reply, reason: str) -> None:
    fake.play(bad)
    llm, sleeps = summarizer(fake, max_retries=3)
    description = llm.describe_page(ONE_PAGE, 0)
    expected = ExtractiveSummarizer().describe_page(ONE_PAGE, 0)
    assert (description.summary, description.keywords) == (expected.summary, expected.keywords)
    assert description.source == llm.fallback.identity
    assert description.fallback_reason is not None and reason in description.fallback_reason
    assert "\n" not in description.fallback_reason
    assert fake.attempts == 4  # max_retries + 1
    assert len(sleeps) == 3 and sleeps[0] < sleeps[2]  # exponential backoff


def test_http_429_is_retried_and_honours_retry_after(fake: FakeLLM) -> None:
    fake.play(error(429, "slow down", headers={"Retry-After": "2"}), completion(GOOD))
    llm, sleeps = summarizer(fake)
    description = llm.describe_page(ONE_PAGE, 0)
    assert description.fallback_reason is None and description.keywords == GOOD["keywords"]
    assert fake.attempts == 2
    assert sleeps == [pytest.approx(2.0, abs=0.76)] and sleeps[0] >= 2.0


def test_malformed_response_body_is_retried(fake: FakeLLM) -> None:
    fake.play(Reply(body=b"<html>502 Bad Gateway</html>", content_type="text/html"), completion(GOOD))
    llm, sleeps = summarizer(fake)
    assert llm.describe_page(ONE_PAGE, 0).fallback_reason is None
    assert fake.attempts == 2 and len(sleeps) == 1


def test_empty_page_is_not_sent(fake: FakeLLM) -> None:
    llm, _ = summarizer(fake)
    description = llm.describe_page(one_page("  \n "), 0)
    assert fake.attempts == 0
    assert description.source == llm.fallback.identity and description.fallback_reason is None


def test_client_errors_are_not_retried(fake: FakeLLM) -> None:
    fake.play(error(404, "no such model"))
    llm, sleeps = summarizer(fake)
    description = llm.describe_page(ONE_PAGE, 0)
    assert fake.attempts == 1 and not sleeps
    assert "HTTP 404: no such model" in (description.fallback_reason or "")


def test_slow_reply_times_out_and_falls_back(fake: FakeLLM) -> None:
    fake.play(completion(GOOD, delay_s=2.0))
    llm, _ = summarizer(fake, timeout_s=0.5, max_retries=1)
    started = time.monotonic()
    description = llm.describe_page(ONE_PAGE, 0)
    assert time.monotonic() - started < 2.0
    assert "timeout after 0.5s" in (description.fallback_reason or "")
    assert description.source == llm.fallback.identity
    assert fake.attempts == 2


def test_unreachable_server_falls_back(fake: FakeLLM) -> None:
    cfg = LLMConfig(base_url=fake.url, model="m", max_retries=1)
    fake.close()
    description = OpenAISummarizer(cfg, sleep=Sleeps()).describe_page(ONE_PAGE, 0)
    assert "connection error" in (description.fallback_reason or "")


def test_switches_to_max_completion_tokens_when_asked(fake: FakeLLM) -> None:
    message = "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens' instead."
    fake.play(error(400, message), completion(GOOD))
    llm, sleeps = summarizer(fake, model="reasoning-model")
    assert llm.describe_page(ONE_PAGE, 0).fallback_reason is None
    assert "max_tokens" in fake.requests[0].body and "max_completion_tokens" in fake.requests[1].body
    assert "max_tokens" not in fake.requests[1].body and not sleeps
    llm.describe_page(ONE_PAGE, 0)
    assert "max_completion_tokens" in fake.requests[2].body  # remembered for this endpoint


def test_describe_group_merges_keywords_in_code(fake: FakeLLM) -> None:
    fake.play(completion({"summary": "Both parts discuss revenue."}))
    llm, _ = summarizer(fake)
    children = [
        Description("Part one on revenue.", ["revenue", "Costs", "tax"], "x"),
        Description("Part two on costs.", ["costs", "debt", "Revenue"], "x"),
    ]
    parent = llm.describe_group(children, pages_of(children), range(2))
    assert parent == Description(
        "Both parts discuss revenue.", ["revenue", "Costs", "tax", "debt"], llm.identity
    )
    body = fake.requests[0].body
    assert body["response_format"]["json_schema"]["schema"] == SUMMARY_SCHEMA
    prompt = body["messages"][-1]["content"]
    assert "Part one on revenue." in prompt and "Part two on costs." in prompt and "debt" in prompt


def test_describe_group_is_fed_the_section_names(fake: FakeLLM) -> None:
    fake.play(completion({"summary": "Covers revenue and costs."}), completion({"summary": "A report."}))
    llm, _ = summarizer(fake)
    children = [Description(f"Page {i} on revenue.", ["revenue"], "x") for i in range(6)]
    outline = [
        OutlineEntry(0, "1 Revenue", 0),
        OutlineEntry(1, "1.1 Subscriptions", 1),
        OutlineEntry(1, "1.2 Licences", 2),
        OutlineEntry(0, "2 Costs", 4),
    ]
    context = DocumentContext.alone("report.txt", [c.summary for c in children], outline)
    parent = llm.describe_group(children[:4], context, range(4))
    assert parent.summary == "Covers revenue and costs." and parent.source == llm.identity
    prompt = fake.requests[0].body["messages"][-1]["content"]
    assert prompt.startswith("What it covers: In 1 Revenue: 1.1 Subscriptions and 1.2 Licences.")
    assert "name its sections" in fake.requests[0].body["messages"][0]["content"]
    llm.describe_group(children, context, range(6))
    root_prompt = fake.requests[1].body["messages"][-1]["content"]
    assert root_prompt.startswith(
        "What it covers: report.txt, a document of 6 pages. Contents: 1 Revenue and 2 Costs."
    )


def test_describe_group_falls_back(fake: FakeLLM) -> None:
    fake.play(error(503, "overloaded"))
    llm, _ = summarizer(fake, max_retries=2)
    children = [
        Description("Revenue grew strongly.", ["revenue"], "x"),
        Description("Debt fell.", ["debt"], "x"),
    ]
    context = pages_of(children)
    parent = llm.describe_group(children, context, range(2))
    assert parent.source == llm.fallback.identity and "HTTP 503" in (parent.fallback_reason or "")
    expected = ExtractiveSummarizer().describe_group(children, context, range(2))
    assert (parent.summary, parent.keywords) == (expected.summary, expected.keywords) and fake.attempts == 3


def test_summarizer_is_thread_safe(fake: FakeLLM) -> None:
    fake.play(error(500), completion(GOOD))  # one thread sees a failure first and must retry
    llm, _ = summarizer(fake, concurrency=4)
    with ThreadPoolExecutor(max_workers=llm.max_workers) as pool:
        results = list(pool.map(lambda i: llm.describe_page(one_page(f"{PAGE} {i}"), 0), range(12)))
    assert all(r.fallback_reason is None and r.keywords == GOOD["keywords"] for r in results)
    assert fake.attempts == 13


def test_answer_question_sends_context_and_question(fake: FakeLLM) -> None:
    fake.play(completion("Revenue was $4.82 billion [10k.pdf p.3–4]."))
    cfg = config(fake)
    contexts = [("10k.pdf", 3, 4, "Net revenue was $4.82 billion."), ("10k.pdf", 9, 9, "Dividends $0.42.")]
    answer = answer_question(make_client(cfg), cfg, "What was net revenue?", contexts, sleep=Sleeps())
    assert answer == "Revenue was $4.82 billion [10k.pdf p.3–4]."
    body = fake.requests[0].body
    assert "response_format" not in body
    prompt = "\n".join(m["content"] for m in body["messages"])
    assert "What was net revenue?" in prompt and "Net revenue was $4.82 billion." in prompt
    assert "[10k.pdf p.3–4]" in prompt and "[10k.pdf p.9]" in prompt


def test_answer_question_raises_llm_error_after_retries(fake: FakeLLM) -> None:
    fake.play(completion(""))
    cfg = config(fake, max_retries=1)
    with pytest.raises(LLMError, match="empty reply"):
        answer_question(make_client(cfg), cfg, "Q?", [("a.pdf", 1, 1, "text")], sleep=Sleeps())
    assert fake.attempts == 2


# --- the API key never leaks ---------------------------------------------------------------------------


def _assert_no_sentinel(*texts: str) -> None:
    for text in texts:
        assert SENTINEL not in text


def test_api_key_never_leaks(fake: FakeLLM, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    cfg = config(fake, max_retries=2)
    llm = OpenAISummarizer(cfg, sleep=Sleeps())
    _assert_no_sentinel(repr(cfg), str(cfg), llm.identity)

    fake.play(echo_auth(500))  # the server echoes "Bearer sk-..." into its error body
    description = llm.describe_page(ONE_PAGE, 0)
    assert description.fallback_reason and "HTTP 500" in description.fallback_reason
    _assert_no_sentinel(description.fallback_reason)

    fake.play(echo_auth(401))
    with pytest.raises(LLMError) as raised:
        complete_json(make_client(cfg), cfg, [{"role": "user", "content": "hi"}], SUMMARY_SCHEMA, "s")
    exc = raised.value
    assert exc.__cause__ is None and exc.__context__ is None
    _assert_no_sentinel(str(exc), repr(exc), "".join(traceback.format_exception(exc)))

    fake.play(completion({"summary": f"The key is {SENTINEL}.", "keywords": [SENTINEL, "key"]}))
    echoed = llm.describe_page(ONE_PAGE, 0)
    _assert_no_sentinel(echoed.summary, *echoed.keywords)

    assert fake.attempts == 3 + 1 + 1
    assert any(r.name.startswith("openai") for r in caplog.records), "library debug logs were not captured"
    for record in caplog.records:
        _assert_no_sentinel(record.getMessage(), str(record.args), record.exc_text or "")


# --- a real local LLM (xllamacpp + SmolLM2-135M) -------------------------------------------------------


@pytest.fixture(scope="module")
def real_llm(local_llm: str) -> OpenAISummarizer:  # noqa: F811 - the imported fixture
    # A 135M model sometimes writes past max_tokens inside a JSON string (the reply is then junk, retried with
    # a new random seed); four attempts all failing happened once in ~20 runs (session 11), seven make it rare.
    cfg = LLMConfig(base_url=local_llm, model="smollm2", timeout_s=120, max_retries=6, concurrency=1)
    return OpenAISummarizer(cfg)


def test_real_llm_describes_a_page(real_llm: OpenAISummarizer) -> None:
    started = time.monotonic()
    page = real_llm.describe_page(ONE_PAGE, 0)
    print(f"SmolLM2 page description in {time.monotonic() - started:.1f}s: {page}")
    assert page.fallback_reason is None, page.fallback_reason
    assert page.source == real_llm.identity
    assert page.summary.strip() and len(page.keywords) >= 1


def test_real_llm_describes_a_group(real_llm: OpenAISummarizer) -> None:
    # Fixed, well-formed children: a 135M model fed its own rambling page summaries tends to loop.
    children = [
        Description(
            "Northwind Freight runs 214 distribution centres. Net revenue for fiscal 2023 rose 6.1% to "
            "$4.82 billion on higher e-commerce volumes.",
            ["Northwind Freight", "net revenue", "e-commerce"],
            "x",
        ),
        Description(
            "Operating income fell to $312 million. Labour, diesel and restructuring costs were higher.",
            ["operating income", "restructuring", "diesel", "net revenue"],
            "x",
        ),
    ]
    started = time.monotonic()
    group = real_llm.describe_group(children, pages_of(children), range(2))
    print(f"SmolLM2 group description in {time.monotonic() - started:.1f}s: {group}")
    assert group.fallback_reason is None, group.fallback_reason
    assert group.source == real_llm.identity and group.summary.strip()
    assert group.keywords[0] == "net revenue" and "restructuring" in group.keywords
