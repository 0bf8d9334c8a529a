"""Where and how to call an OpenAI-compatible endpoint: ``LLMConfig``, read from a mapping of environment
variables that the settings hand over (``drag_core.config.Settings.from_env``). Importing it loads no client."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_MODEL", "LLMConfig"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to call an OpenAI-compatible endpoint. ``api_key`` is left out of the repr."""

    base_url: str = DEFAULT_BASE_URL
    model: str = DEFAULT_MODEL
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 60.0
    max_retries: int = 3
    concurrency: int = 4

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> LLMConfig | None:
        """Configuration from the ``DRAG_LLM_*`` (or ``OPENAI_*``) variables of ``env`` (the settings read the
        environment and hand it over); None when neither a base URL nor an API key is set (offline)."""
        base_url = _env(env, "DRAG_LLM_BASE_URL") or _env(env, "OPENAI_BASE_URL")
        api_key = _env(env, "DRAG_LLM_API_KEY") or _env(env, "OPENAI_API_KEY")
        if not base_url and not api_key:
            return None
        return cls(
            base_url=base_url or DEFAULT_BASE_URL,
            model=_env(env, "DRAG_LLM_MODEL") or DEFAULT_MODEL,
            api_key=api_key,
            timeout_s=_env_number(env, "DRAG_LLM_TIMEOUT", 60.0, float),
            max_retries=int(_env_number(env, "DRAG_LLM_MAX_RETRIES", 3, int, minimum=0)),
            concurrency=int(_env_number(env, "DRAG_LLM_CONCURRENCY", 4, int)),
        )

    @property
    def host(self) -> str:
        """``host[:port]`` of the base URL, without any user info."""
        parts = urlsplit(self.base_url)
        host = parts.hostname or self.base_url
        return f"{host}:{parts.port}" if parts.port else host


def _env(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def _env_number(
    env: Mapping[str, str], name: str, default: float, kind: type, minimum: float = 1e-9
) -> float:
    raw = _env(env, name)
    if raw is None:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {raw!r}") from None
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum:g}, got {raw!r}")
    return value
