"""Answers from pages: an LLM's answer to a question from a strategy's pages, citing ``[file p.X]``."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import openai

from drag_core.llm.client import Sleep, complete_text, make_client
from drag_core.llm.config import LLMConfig
from drag_core.text import citation
from drag_core.types import Node

__all__ = ["ANSWER_SYSTEM", "CONTEXT_TOKENS", "answer", "answer_question", "citation", "citations"]

#: What a typical model takes as context (tokens): a strategy's pages beyond it would reach an LLM only cut.
CONTEXT_TOKENS = 32_000

ANSWER_SYSTEM = (
    "You answer questions about documents using only the context passages given. "
    "Cite every fact with its passage label, e.g. [report.pdf p.3–4]. "
    "If the context does not contain the answer, say so plainly."
)


def answer_question(
    client: openai.OpenAI,
    cfg: LLMConfig,
    question: str,
    contexts: Sequence[tuple[str, int, int, str]],
    *,
    max_context_chars: int = 12000,
    max_tokens: int = 500,
    sleep: Sleep = time.sleep,
) -> str:
    """Answer ``question`` from ``contexts`` (file_name, page_start, page_end, text), citing [file p.X–Y].

    Plain-text completion. Each passage is cut to an equal share of ``max_context_chars``.
    Raises ``LLMError`` after the last attempt.
    """
    share = max(200, max_context_chars // max(1, len(contexts)))
    passages = [f"{citation(f, a, b)}\n{text.strip()[:share]}" for f, a, b, text in contexts]
    context = "\n\n".join(passages) or "(no passages)"
    user = f"Context:\n\n{context}\n\nQuestion: {question.strip()}"
    messages = [{"role": "system", "content": ANSWER_SYSTEM}, {"role": "user", "content": user}]

    return complete_text(client, cfg, messages, max_tokens, "LLM answer", sleep)


def citations(pages: Sequence[Node]) -> list[str]:
    """``[file p.X–Y]`` for each run of consecutive pages of one file, in the order given."""
    spans: list[list[Any]] = []
    for page in pages:
        last = spans[-1] if spans else None
        if last and last[0] == page.file_name and page.page_start == last[2] + 1:
            last[2] = page.page_end
        else:
            spans.append([page.file_name, page.page_start, page.page_end])
    return [citation(name, start, end) for name, start, end in spans]


def answer(llm: LLMConfig, query: str, context: Sequence[Node]) -> str:
    """An answer to ``query`` from the given pages, citing ``[file p.X]``. Raises ``LLMError``."""
    passages = [(page.file_name, page.page_start, page.page_end, page.text) for page in context]
    return answer_question(make_client(llm), llm, query, passages)
