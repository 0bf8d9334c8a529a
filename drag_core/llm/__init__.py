"""The LLM endpoint (any OpenAI-compatible server): ``client`` makes structured calls with retries and
redaction, ``answer`` answers a question from pages with citations."""

from drag_core.llm import answer as _answer
from drag_core.llm import client as _client
from drag_core.llm.answer import *  # noqa: F403
from drag_core.llm.client import *  # noqa: F403

__all__ = [*_answer.__all__, *_client.__all__]
