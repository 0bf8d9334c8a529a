"""The LLM endpoint (any OpenAI-compatible server): ``config`` says where and how to call it (``LLMConfig``,
read by the settings), ``client`` makes structured calls with retries and redaction, ``answer`` answers a
question from pages with citations.

Only ``LLMConfig`` is imported here: reading the settings never loads the ``openai`` package, which the
client and the answer import (use their modules: ``drag_core.llm.client``, ``drag_core.llm.answer``)."""

from drag_core.llm.config import DEFAULT_BASE_URL, DEFAULT_MODEL, LLMConfig

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_MODEL", "LLMConfig"]
