"""Summariser backed by an OpenAI-compatible chat-completions endpoint, with an offline fallback.

Page descriptions (summary + keywords) and parent summaries come from the LLM as strict JSON; parent
keywords are merged from the children in code (``merge_keywords``), never by the LLM. A parent's prompt
starts with what the part covers (``DocumentContext.contents``: its sections by name with their pages, or
its keywords; for the root, the document's title and kind), the same line the offline summariser begins
with, and the LLM is asked to name those sections. When a call fails
for good (``LLMError``), the fallback summariser's description is returned with ``fallback_reason`` set.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import openai

from drag_core.ingest.describe.base import DocumentContext, Summarizer, merge_keywords
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.llm.client import (
    DESCRIPTION_SCHEMA,
    SUMMARY_SCHEMA,
    LLMError,
    complete_json,
    make_client,
    normalize_description,
    normalize_summary,
)
from drag_core.llm.config import LLMConfig
from drag_core.types import Description

__all__ = [
    "CHILD_MIN_CHARS",
    "GROUP_CHARS",
    "GROUP_MAX_TOKENS",
    "GROUP_SYSTEM",
    "PAGE_CHARS",
    "PAGE_MAX_TOKENS",
    "PAGE_SYSTEM",
    "OpenAISummarizer",
]

PAGE_CHARS = 6000
GROUP_CHARS = 6000
CHILD_MIN_CHARS = 200
PAGE_MAX_TOKENS = 600
GROUP_MAX_TOKENS = 500

PAGE_SYSTEM = (
    "Summarise the page in 2 to 5 short sentences stating its main facts, and list 5 to 10 key terms "
    'or names from it. Reply in JSON: {"summary": "...", "keywords": ["...", "..."]}.'
)
GROUP_SYSTEM = (
    "Summarise this part of a document in 2 to 4 short sentences: first name its sections as listed under "
    "'What it covers', then its main facts. "
    'Reply in JSON: {"summary": "..."}.'
)


class OpenAISummarizer:
    """``Summarizer`` that asks an OpenAI-compatible LLM, falling back to ``fallback`` on failure.

    Thread-safe: it keeps no per-call state, and the ``openai`` client may be shared between threads.

    Attributes:
        identity: ``openai:MODEL@HOST`` (never the API key).
        max_workers: how many pages the ingest pipeline should describe in parallel (``cfg.concurrency``).
        fallback: the summariser used when the LLM fails (extractive by default).
    """

    def __init__(
        self,
        cfg: LLMConfig,
        fallback: Summarizer | None = None,
        *,
        client: openai.OpenAI | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.cfg = cfg
        self.identity = f"openai:{cfg.model}@{cfg.host}"
        self.max_workers = max(1, cfg.concurrency)
        self.fallback: Summarizer = fallback if fallback is not None else ExtractiveSummarizer()
        self._client = client if client is not None else make_client(cfg)
        self._sleep = sleep

    def describe_page(self, context: DocumentContext, page: int) -> Description:
        """Summary + keywords of one page (the first ``PAGE_CHARS`` characters of its body) from the LLM.

        A page without text is not sent: the fallback describes it (no ``fallback_reason``, nothing failed).
        """
        text = context.pages[page]
        if not text.strip():
            return self.fallback.describe_page(context, page)
        messages = [
            {"role": "system", "content": PAGE_SYSTEM},
            {"role": "user", "content": f"Page:\n{_clip(text, PAGE_CHARS)}"},
        ]
        try:
            data = self._ask(
                messages, DESCRIPTION_SCHEMA, "page_description", normalize_description, PAGE_MAX_TOKENS
            )
        except LLMError as exc:
            return self._fallback(self.fallback.describe_page(context, page), exc)
        return Description(summary=data["summary"], keywords=data["keywords"], source=self.identity)

    def describe_group(
        self, children: Sequence[Description], context: DocumentContext, pages: range
    ) -> Description:
        """Parent summary from the LLM over what the part covers (its sections) and the children's summaries
        + keywords; keywords merged in code."""
        if not children:
            return self.fallback.describe_group(children, context, pages)
        keywords = merge_keywords(children)
        contents = f"What it covers: {context.contents(pages, keywords)}\n\n"
        messages = [
            {"role": "system", "content": GROUP_SYSTEM},
            {"role": "user", "content": contents + _children_prompt(children)},
        ]
        try:
            data = self._ask(messages, SUMMARY_SCHEMA, "group_summary", normalize_summary, GROUP_MAX_TOKENS)
        except LLMError as exc:
            return self._fallback(self.fallback.describe_group(children, context, pages), exc)
        return Description(summary=data["summary"], keywords=keywords, source=self.identity)

    def _ask(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        name: str,
        validate: Callable[[dict[str, Any]], dict[str, Any]],
        max_tokens: int,
    ) -> dict[str, Any]:
        return complete_json(
            self._client,
            self.cfg,
            messages,
            schema,
            name,
            validate=validate,
            max_tokens=max_tokens,
            sleep=self._sleep,
        )

    def _fallback(self, description: Description, exc: LLMError) -> Description:
        return Description(
            summary=description.summary,
            keywords=description.keywords,
            source=self.fallback.identity,
            fallback_reason=exc.reason,
        )


def _clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a word boundary when one is near."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space > limit * 0.8 else cut


def _children_prompt(children: Sequence[Description]) -> str:
    share = max(CHILD_MIN_CHARS, GROUP_CHARS // len(children))
    parts = []
    for number, child in enumerate(children, start=1):
        keywords = ", ".join(child.keywords)
        parts.append(f"Part {number}: {_clip(child.summary, share)}\nKeywords: {keywords}")
    return "\n\n".join(parts)
