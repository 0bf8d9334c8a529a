"""OpenAI-compatible chat completions: a client, structured (JSON schema) calls with retries, redaction.

Works against OpenAI itself and any server speaking its chat-completions API (llama.cpp, vLLM, Ollama, ...).
The client's own retries are disabled: ``complete_json`` (and ``answer.answer_question``) retry timeouts, connection
errors, HTTP 408/409/429/5xx and malformed replies themselves, with exponential backoff and jitter, and raise
``LLMError`` with a one-line reason after the last attempt. The API key never appears in a repr, a log record,
an exception or a returned text: every message taken from a server is redacted first.
"""

from __future__ import annotations

import json
import logging
import random
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import openai

from drag_core.errors import DragError
from drag_core.llm.config import LLMConfig

__all__ = [
    "BACKOFF_BASE_S",
    "BACKOFF_CAP_S",
    "DESCRIPTION_SCHEMA",
    "KEYWORDS_ACCEPTED",
    "KEYWORDS_KEPT",
    "KEYWORD_MAX_CHARS",
    "MAX_REASON_CHARS",
    "RETRYABLE_STATUS",
    "SUMMARY_MAX_CHARS",
    "SUMMARY_SCHEMA",
    "LLMError",
    "Messages",
    "Sleep",
    "backoff_delay",
    "check_schema",
    "complete_json",
    "complete_text",
    "make_client",
    "normalize_description",
    "normalize_summary",
    "redact",
]

log = logging.getLogger(__name__)

BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 30.0
RETRYABLE_STATUS = frozenset({408, 409, 429})
MAX_REASON_CHARS = 300
SUMMARY_MAX_CHARS = 2000
KEYWORDS_ACCEPTED = (1, 20)
KEYWORDS_KEPT = 10
KEYWORD_MAX_CHARS = 80

Messages = Sequence[Mapping[str, str]]
Sleep = Callable[[float], None]

DESCRIPTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "keywords": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": KEYWORDS_KEPT},
    },
    "required": ["summary", "keywords"],
    "additionalProperties": False,
}
SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"summary": {"type": "string"}},
    "required": ["summary"],
    "additionalProperties": False,
}


class LLMError(DragError):
    """The LLM call failed after all attempts; ``reason`` is one line, free of secrets."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def make_client(cfg: LLMConfig) -> openai.OpenAI:
    """An ``openai.OpenAI`` client for ``cfg`` with the library's retries off (we retry ourselves)."""
    return openai.OpenAI(
        base_url=cfg.base_url, api_key=cfg.api_key or "not-needed", timeout=cfg.timeout_s, max_retries=0
    )


# --- retries ---------------------------------------------------------------------------------------------


class _Retry(Exception):
    """A failed attempt worth repeating; carries its (unredacted) reason and an optional server delay."""

    def __init__(self, reason: str, delay_s: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.delay_s = delay_s


def redact(text: str, secret: str | None) -> str:
    """``text`` with ``secret`` and any bearer token replaced by ``***``."""
    if secret:
        text = text.replace(secret, "***")
    return re.sub(r"(?i)(bearer\s+)[^\s\"'\\]+", r"\1***", text)  # stops at quotes: JSON stays JSON


def _one_line(text: str, secret: str | None) -> str:
    line = " ".join(redact(text, secret).split())
    return line if len(line) <= MAX_REASON_CHARS else line[: MAX_REASON_CHARS - 1] + "…"


def backoff_delay(attempt: int, base_s: float = BACKOFF_BASE_S) -> float:
    """Delay before retry number ``attempt`` (0-based): ``base · 2^attempt`` scaled by a jitter in [0.5, 1.5)."""
    return min(BACKOFF_CAP_S, base_s * 2**attempt * (0.5 + random.random()))


def _with_retries(cfg: LLMConfig, attempt_fn: Callable[[], Any], what: str, sleep: Sleep) -> Any:
    """Run ``attempt_fn`` up to ``cfg.max_retries + 1`` times; raise ``LLMError`` when all attempts fail."""
    attempts = max(0, cfg.max_retries) + 1
    reason = "no attempt made"
    for attempt in range(attempts):
        try:
            return attempt_fn()
        except _Retry as failure:
            reason, delay_s = _one_line(failure.reason, cfg.api_key), failure.delay_s
        except openai.APIStatusError as exc:
            reason = _status_reason(exc, cfg)
            if not _retryable(exc.status_code):
                log.warning("%s failed permanently: %s", what, reason)
                break
            delay_s = _retry_after(exc)
        except openai.APITimeoutError:
            reason, delay_s = f"timeout after {cfg.timeout_s:g}s", None
        except openai.APIConnectionError as exc:
            reason, delay_s = _one_line(f"connection error: {_root_cause(exc)}", cfg.api_key), None
        except (json.JSONDecodeError, openai.APIResponseValidationError) as exc:
            # A 200 whose body is no completion (e.g. an HTML page from a proxy).
            reason, delay_s = _one_line(f"malformed response body: {exc}", cfg.api_key), None
        if attempt + 1 < attempts:
            wait = max(backoff_delay(attempt), min(delay_s or 0.0, BACKOFF_CAP_S))
            log.warning(
                "%s attempt %d/%d failed (%s); retrying in %.2fs", what, attempt + 1, attempts, reason, wait
            )
            sleep(wait)
    # Raised outside any ``except`` block, so no library exception (whose text may hold secrets) is chained.
    raise LLMError(f"{what} failed after {attempt + 1} attempt(s): {reason}")


def _retryable(status: int) -> bool:
    return status in RETRYABLE_STATUS or status >= 500


def _status_reason(exc: openai.APIStatusError, cfg: LLMConfig) -> str:
    return _one_line(f"HTTP {exc.status_code}: {_error_message(exc)}", cfg.api_key)


def _error_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if message:
            return str(message)
    return exc.response.text or exc.response.reason_phrase or ""


def _retry_after(exc: openai.APIStatusError) -> float | None:
    raw = exc.response.headers.get("retry-after")
    try:
        return max(0.0, float(raw)) if raw else None
    except ValueError:
        return None


def _root_cause(exc: BaseException) -> str:
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


# --- structured completions ----------------------------------------------------------------------------


def complete_json(
    client: openai.OpenAI,
    cfg: LLMConfig,
    messages: Messages,
    schema: Mapping[str, Any],
    name: str,
    *,
    validate: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    max_tokens: int = 400,
    sleep: Sleep = time.sleep,
) -> dict[str, Any]:
    """Chat completion constrained to ``schema`` (strict ``json_schema`` response format), parsed and checked.

    The reply is checked against the schema's types and required properties, then passed to ``validate``
    (which may normalise it, and raises ``ValueError`` to reject it). Rejected replies are retried like
    transport errors. Raises ``LLMError`` after the last attempt.
    """
    response_format = {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}

    def attempt() -> dict[str, Any]:
        response = _create(client, cfg, list(messages), max_tokens, response_format=response_format)
        content = redact(_content(response), cfg.api_key)
        try:
            data = json.loads(content)
        except json.JSONDecodeError as exc:
            raise _Retry(f"invalid JSON ({exc.msg} at char {exc.pos}){_finish_note(response)}") from None
        try:
            check_schema(data, schema)
            return validate(data) if validate else data
        except ValueError as exc:
            raise _Retry(f"reply violates schema: {exc}") from None

    return _with_retries(cfg, attempt, f"LLM call {name!r}", sleep)


# Endpoints (base_url, model) that rejected ``max_tokens`` and want ``max_completion_tokens`` (OpenAI's
# reasoning models). Local servers (llama.cpp, Ollama, vLLM) all take ``max_tokens``, so it is tried first.
_WANTS_MAX_COMPLETION_TOKENS: set[tuple[str, str]] = set()


def complete_text(
    client: openai.OpenAI,
    cfg: LLMConfig,
    messages: Messages,
    max_tokens: int,
    what: str,
    sleep: Sleep = time.sleep,
) -> str:
    """A plain-text completion, retried like :func:`complete_json`, redacted and stripped. Raises
    ``LLMError`` after the last attempt."""

    def attempt() -> str:
        response = _create(client, cfg, list(messages), max_tokens)
        return redact(_content(response), cfg.api_key).strip()

    return _with_retries(cfg, attempt, what, sleep)


def _create(client: openai.OpenAI, cfg: LLMConfig, messages: list[Any], max_tokens: int, **extra: Any) -> Any:
    """One chat completion, switching once to ``max_completion_tokens`` if the endpoint asks for it."""
    endpoint = (cfg.base_url, cfg.model)
    if endpoint not in _WANTS_MAX_COMPLETION_TOKENS:
        try:
            return client.chat.completions.create(
                model=cfg.model, messages=messages, max_tokens=max_tokens, **extra
            )
        except openai.BadRequestError as exc:
            if "max_completion_tokens" not in str(exc.body or exc.message):
                raise
            _WANTS_MAX_COMPLETION_TOKENS.add(endpoint)  # a benign race: every thread adds the same value
    return client.chat.completions.create(
        model=cfg.model, messages=messages, max_completion_tokens=max_tokens, **extra
    )


def _content(response: Any) -> str:
    choices = getattr(response, "choices", None) or []
    message = choices[0].message if choices else None
    content = getattr(message, "content", None)
    if not isinstance(content, str) or not content.strip():
        refusal = getattr(message, "refusal", None)
        raise _Retry(f"model refused: {refusal}" if refusal else "empty reply")
    return content


def _finish_note(response: Any) -> str:
    choices = getattr(response, "choices", None) or []
    reason = getattr(choices[0], "finish_reason", None) if choices else None
    return "; reply cut off at max_tokens" if reason == "length" else ""


_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}


def check_schema(value: Any, schema: Mapping[str, Any], path: str = "$") -> None:
    """Check the JSON-schema subset we send (type, properties, required, additionalProperties, items).

    Length and count limits are left to the caller's ``validate``, which may be more lenient than the schema.
    Raises ``ValueError`` naming the first offending path.
    """
    kind = schema.get("type")
    expected = _JSON_TYPES.get(kind) if isinstance(kind, str) else None
    wrong_bool = isinstance(value, bool) and kind in ("integer", "number")
    if expected is not None and (not isinstance(value, expected) or wrong_bool):
        raise ValueError(f"{path} should be {kind}, got {type(value).__name__}")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                raise ValueError(f"{path}.{key} is missing")
        for key, item in value.items():
            if key in properties:
                check_schema(item, properties[key], f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                raise ValueError(f"{path}.{key} is not allowed")
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for index, item in enumerate(value):
            check_schema(item, schema["items"], f"{path}[{index}]")


def normalize_summary(data: dict[str, Any]) -> dict[str, Any]:
    """Strip the summary; reject it when empty or longer than ``SUMMARY_MAX_CHARS``."""
    summary = " ".join(str(data.get("summary", "")).split())
    if not summary:
        raise ValueError("summary is empty")
    if len(summary) > SUMMARY_MAX_CHARS:
        raise ValueError(f"summary has {len(summary)} chars (max {SUMMARY_MAX_CHARS})")
    return {**data, "summary": summary}


def normalize_description(data: dict[str, Any]) -> dict[str, Any]:
    """Check summary + keywords (1–20 non-empty strings); drop keywords over ``KEYWORD_MAX_CHARS``, dedupe
    case-insensitively (first spelling wins), keep 10."""
    data = normalize_summary(data)
    keywords = data.get("keywords")
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        raise ValueError("keywords should be a list of strings")
    cleaned = [" ".join(k.split()) for k in keywords]
    if any(not k for k in cleaned):
        raise ValueError("keywords contain an empty string")
    low, high = KEYWORDS_ACCEPTED
    if not low <= len(cleaned) <= high:
        raise ValueError(f"{len(cleaned)} keywords (expected {low}–{high})")
    # Runaway "keywords" (small models loop inside a string) are dropped rather than failing the reply.
    kept = [k for k in cleaned if len(k) <= KEYWORD_MAX_CHARS]
    if not kept:
        raise ValueError(f"every keyword is longer than {KEYWORD_MAX_CHARS} chars")
    unique: dict[str, str] = {}
    for keyword in kept:
        unique.setdefault(keyword.lower(), keyword)
    return {**data, "keywords": list(unique.values())[:KEYWORDS_KEPT]}
