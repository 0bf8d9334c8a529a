"""Settings from the environment (or from a mapping the app builds from Streamlit secrets): the only module
that reads environment variables.

``Settings`` (the index, the models, the app and the evaluation) and ``LLMConfig`` (the LLM endpoint) are read
here, once per call of their ``from_env``. Every variable is listed in ``ENV_VARS`` with its meaning; the
README's configuration table equals it (``tests/test_docs.py``). Secrets (API keys) are kept out of ``repr``
and never logged.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from drag_core.fusion import DEFAULT_RRF_K
from drag_core.layout import IN_MEMORY, StoreLayout
from drag_core.llm.config import LLMConfig
from drag_core.params import SearchParams

__all__ = [
    "DEFAULT_BM25",
    "DEFAULT_DENSE_MODEL",
    "DEFAULT_EVAL_DATA",
    "DEFAULT_EVAL_DIR",
    "DEFAULT_LEASE_SECONDS",
    "DEFAULT_MODEL_DIR",
    "DEFAULT_PASSAGE_STORAGE",
    "DEFAULT_PDF_ENGINE",
    "DEFAULT_SPARSE_MODEL",
    "DEFAULT_STORE",
    "ENV_VARS",
    "IN_MEMORY",
    "PASSAGE_STORAGES",
    "PDF_ENGINES",
    "SEARCH_ENV",
    "Bm25Params",
    "Settings",
    "check_pdf_engine",
    "sparse_identity",
]

DEFAULT_STORE = "./data/qdrant"
DEFAULT_DENSE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_SPARSE_MODEL = "Qdrant/bm25"
DEFAULT_MODEL_DIR = Path("./models")
DEFAULT_EVAL_DIR = Path("data/eval")
#: Relative to the working folder (the repository's, for the app): the shared data sets beside it.
DEFAULT_EVAL_DATA = Path("../shared/data")
#: The engines that read the text of PDFs (``drag_core.ingest.pdf_text``), named here so that the settings
#: check ``DRAG_PDF_ENGINE`` without loading either.
PDF_ENGINES = ("pdfium", "pypdf")
DEFAULT_PDF_ENGINE = "pdfium"
#: How long after its last write another writer's partial document counts as abandoned (``store.lease``).
DEFAULT_LEASE_SECONDS = 120.0


@dataclass(frozen=True)
class Bm25Params:
    """BM25's document-side constants (Robertson & Zaragoza 2009), applied when sparse vectors are built.

    Attributes:
        k1: term-frequency saturation.
        b: strength of the document-length normalisation.
        avg_len: the average document length in BM25 tokens that lengths are normalised by.
    """

    k1: float = 1.2
    b: float = 0.75
    avg_len: float = 256.0

    def __post_init__(self) -> None:
        if self.k1 < 0 or not 0 <= self.b <= 1 or self.avg_len <= 0:
            raise ValueError(f"BM25 needs k1 >= 0, 0 <= b <= 1 and avg_len > 0, not {self}")

    @property
    def identity(self) -> str:
        return f"k1={self.k1:g},b={self.b:g},avg_len={self.avg_len:g}"


DEFAULT_BM25 = Bm25Params()
#: The search parameters whose installation default an environment variable sets.
SEARCH_ENV = {"rrf_k": "DRAG_RRF_K"}


#: How a new collection stores the leaves' passage vectors (``Settings.passage_storage``), the default first:
#: half precision held the same results on five sets and takes ~750 MiB off a 1M-node index (docs/benchmarks.md,
#: "Passages at scale" and "One fetch per list"). A collection keeps what it was created with.
PASSAGE_STORAGES = ("float16", "float32", "int8")
DEFAULT_PASSAGE_STORAGE = PASSAGE_STORAGES[0]


def check_passage_storage(storage: str) -> str:
    """``storage`` ("" for the default, ``float16``) when it names a passage storage; else a ``ValueError``."""
    if storage and storage not in PASSAGE_STORAGES:
        raise ValueError(
            f"unknown passage storage {storage!r}; DRAG_PASSAGE_STORAGE is one of {', '.join(PASSAGE_STORAGES)}"
        )
    return storage or DEFAULT_PASSAGE_STORAGE


def check_pdf_engine(engine: str) -> str:
    """``engine`` when it names a PDF engine; else a ``ValueError`` that lists them."""
    if engine not in PDF_ENGINES:
        raise ValueError(f"unknown PDF engine {engine!r}; DRAG_PDF_ENGINE is one of {', '.join(PDF_ENGINES)}")
    return engine


def sparse_identity(sparse_model: str, bm25: Bm25Params) -> str:
    """What builds the sparse vectors: the model, with its BM25 constants when they are not the defaults (an
    index records it on every root, so a document built otherwise is known without loading a model)."""
    return sparse_model if bm25 == DEFAULT_BM25 else f"{sparse_model}({bm25.identity})"


ENV_VARS: dict[str, str] = {
    "DRAG_STORE": f"embedded Qdrant folder (default `{DEFAULT_STORE}`; `:memory:` for a throw-away index)",
    "DRAG_ENGINE": "embedded engine: `edge` (Qdrant Edge, the default) or `local` (qdrant-client local mode)",
    "QDRANT_URL": "a Qdrant server or cluster (e.g. `http://localhost:6333`); overrides DRAG_STORE",
    "QDRANT_API_KEY": "API key for QDRANT_URL (secret)",
    "DRAG_SHARDS": "shards of the collection when this process creates it on a server or cluster (default: the "
    "server's, 1)",
    "DRAG_REPLICATION_FACTOR": "copies of each shard on a cluster, set when the collection is created (default: "
    "the server's, 1)",
    "DRAG_ON_DISK": "`1`: vectors and payload of a new collection on disk, not in RAM (server, cluster, local mode)",
    "DRAG_PASSAGE_STORAGE": "how a new collection stores the pages' passage vectors: `float16` (default: half the "
    "bytes, the same results), `float32` or `int8` (float32 on disk and a scalar-quantized int8 copy held in RAM, "
    'which the scan reads); measured in docs/benchmarks.md, "Passages at scale"',
    "DRAG_COLLECTION": "collection name (default `drag_nodes`)",
    "DRAG_MODEL_DIR": "folder with the offline models (default `./models`, built by `python -m drag_core.models.setup`)",
    "DRAG_DENSE_MODEL": f"dense fastembed model (default `{DEFAULT_DENSE_MODEL}`, loaded offline from DRAG_MODEL_DIR; "
    "any other fastembed name is downloaded the usual way)",
    "DRAG_SPARSE_MODEL": f"sparse fastembed model (default `{DEFAULT_SPARSE_MODEL}`, offline)",
    "DRAG_BM25_K1": "BM25 term-frequency saturation k1 (default 1.2); a change re-embeds documents on ingest",
    "DRAG_BM25_B": "BM25 length normalisation b (default 0.75)",
    "DRAG_BM25_AVG_LEN": "BM25 average document length in tokens (default 256)",
    "DRAG_EMBED_THREADS": "onnxruntime threads of the embedding models (default: one per core); with N ingest "
    "processes on one machine, cores / N",
    "DRAG_CACHE": "description cache file (default `<store>/description-cache.sqlite`; the page cache `page-cache.sqlite` sits beside it)",
    "DRAG_RRF_K": f"classic RRF constant k in 1/(k + rank) (default {DEFAULT_RRF_K})",
    "DRAG_LLM_BASE_URL": "OpenAI-compatible endpoint (falls back to OPENAI_BASE_URL); unset = offline summariser",
    "DRAG_LLM_MODEL": "model name at that endpoint (default `gpt-4o-mini`)",
    "DRAG_LLM_API_KEY": "API key (falls back to OPENAI_API_KEY; secret)",
    "DRAG_LLM_TIMEOUT": "seconds per LLM request (default 60)",
    "DRAG_LLM_CONCURRENCY": "parallel LLM requests during ingestion (default 4)",
    "DRAG_LLM_MAX_RETRIES": "retries per LLM request before the node falls back to the offline summariser (default 3)",
    "DRAG_MAX_FILE_MB": "largest file accepted (default 200)",
    "DRAG_LEASE_SECONDS": "how long after its last write a half-written document of another ingest process counts as "
    "abandoned and is removed (default 120; see Scale out)",
    "DRAG_PDF_ENGINE": "PDF text engine: `pdfium` (PDFium via pypdfium2, the default: faster, keeps word spaces) "
    "or `pypdf`",
    "DRAG_SAMPLE": "`auto` (default): when the app starts on an empty index it indexes the bundled sample "
    "document; `off`: start empty (the Upload page still offers the sample in one click)",
    "DRAG_EVAL_DIR": f"folder of the evaluation indexes, one per data set and vector policy (default `{DEFAULT_EVAL_DIR}`)",
    "DRAG_EVAL_DATA": "folder the Evaluate page lists data sets from (default `../shared/data`, from the folder the app "
    "runs in)",
    "DRAG_SHARED": "tests only: the shared data folder (default `../shared`)",
    "HF_HUB_OFFLINE": "set to 1 by the scripts: no model hub is ever contacted",
}


@dataclass(frozen=True)
class Settings:
    """Where the index lives and which models build it.

    Attributes:
        store: embedded Qdrant folder, or ``IN_MEMORY``.
        engine: embedded engine, ``edge`` or ``local`` ("" picks one, see ``store.open_store``).
        qdrant_url: Qdrant server URL; when set, ``store`` is not used.
        qdrant_api_key: key for the server (hidden from ``repr``).
        shard_number, replication_factor, on_disk: how a server or cluster creates the collection (None/False:
            the server's defaults, in RAM).
        passage_storage: how a new collection stores the passage vectors (``PASSAGE_STORAGES``).
        collection: Qdrant collection name.
        model_dir: folder of the offline models.
        dense_model: dense fastembed model name.
        sparse_model: sparse fastembed model name.
        bm25: BM25 constants (used with the default sparse model).
        embed_threads: onnxruntime threads of the embedder (None: one per core).
        cache_path: SQLite file of cached descriptions (None: no cache).
        search: the default search parameters of this installation: ``SearchParams()`` with ``DRAG_RRF_K``
            applied (``SEARCH_ENV``) — the one source of defaults of the CLI, the app, eval and the retriever.
        llm: the LLM endpoint that describes pages and answers questions (None: offline).
        max_file_bytes: largest file accepted.
        sample_on_start: the app indexes the bundled sample when it starts on an empty index.
        eval_dir: folder of the evaluation indexes.
        eval_data: folder the Evaluate page lists data sets from.
        pdf_engine: which engine reads the text of PDFs (``PDF_ENGINES``).
        lease_seconds: lease of a partial document (``store.lease.Lease``).
    """

    store: str = DEFAULT_STORE
    engine: str = ""
    qdrant_url: str | None = None
    qdrant_api_key: str | None = field(default=None, repr=False)
    shard_number: int | None = None
    replication_factor: int | None = None
    on_disk: bool = False
    passage_storage: str = DEFAULT_PASSAGE_STORAGE
    collection: str = "drag_nodes"
    model_dir: Path = Path("./models")
    dense_model: str = DEFAULT_DENSE_MODEL
    sparse_model: str = DEFAULT_SPARSE_MODEL
    bm25: Bm25Params = DEFAULT_BM25
    embed_threads: int | None = None
    cache_path: Path | None = None
    search: SearchParams = SearchParams()
    llm: LLMConfig | None = None
    max_file_bytes: int = 200 * 1024 * 1024
    sample_on_start: bool = True
    eval_dir: Path = DEFAULT_EVAL_DIR
    eval_data: Path = DEFAULT_EVAL_DATA
    pdf_engine: str = DEFAULT_PDF_ENGINE
    lease_seconds: float = DEFAULT_LEASE_SECONDS

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from environment variables; keyword overrides win (e.g. ``store=`` from ``--store``)."""
        env = os.environ if env is None else env
        store = str(overrides.pop("store", None) or env.get("DRAG_STORE") or DEFAULT_STORE)
        cache = env.get("DRAG_CACHE")
        values: dict[str, object] = {
            "store": store,
            "engine": env.get("DRAG_ENGINE", "").strip().lower(),
            "qdrant_url": env.get("QDRANT_URL") or None,
            "qdrant_api_key": env.get("QDRANT_API_KEY") or None,
            "shard_number": _positive(env.get("DRAG_SHARDS")),
            "replication_factor": _positive(env.get("DRAG_REPLICATION_FACTOR")),
            "on_disk": (env.get("DRAG_ON_DISK") or "").strip().lower() in ("1", "true", "yes", "on"),
            "passage_storage": check_passage_storage(env.get("DRAG_PASSAGE_STORAGE", "").strip().lower()),
            "collection": env.get("DRAG_COLLECTION") or "drag_nodes",
            "model_dir": Path(env.get("DRAG_MODEL_DIR") or DEFAULT_MODEL_DIR),
            "dense_model": env.get("DRAG_DENSE_MODEL") or DEFAULT_DENSE_MODEL,
            "sparse_model": env.get("DRAG_SPARSE_MODEL") or DEFAULT_SPARSE_MODEL,
            "bm25": Bm25Params(
                float(env.get("DRAG_BM25_K1") or Bm25Params.k1),
                float(env.get("DRAG_BM25_B") or Bm25Params.b),
                float(env.get("DRAG_BM25_AVG_LEN") or Bm25Params.avg_len),
            ),
            "embed_threads": _positive(env.get("DRAG_EMBED_THREADS")),
            "cache_path": Path(cache) if cache else _description_cache(store),
            "search": SearchParams(rrf_k=int(env.get(SEARCH_ENV["rrf_k"]) or DEFAULT_RRF_K)),
            "llm": LLMConfig.from_env(env),
            "max_file_bytes": int(float(env.get("DRAG_MAX_FILE_MB") or 200) * 1024 * 1024),
            "sample_on_start": env.get("DRAG_SAMPLE", "auto").strip().lower() != "off",
            "eval_dir": Path(env.get("DRAG_EVAL_DIR") or DEFAULT_EVAL_DIR),
            "eval_data": Path(env.get("DRAG_EVAL_DATA") or DEFAULT_EVAL_DATA),
            "lease_seconds": float(env.get("DRAG_LEASE_SECONDS") or DEFAULT_LEASE_SECONDS),
            "pdf_engine": check_pdf_engine(
                env.get("DRAG_PDF_ENGINE", "").strip().lower() or DEFAULT_PDF_ENGINE
            ),
        }
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]

    @property
    def layout(self) -> StoreLayout | None:
        """The paths inside the store folder (with ``qdrant_url``: this machine's folder for the caches, the
        originals and the labels); None for a throw-away store in memory."""
        return StoreLayout.of(self.store)

    @property
    def in_memory(self) -> bool:
        """Whether the index is a throw-away one in memory (no folder, no cache files)."""
        return not self.qdrant_url and self.store == IN_MEMORY


def _description_cache(store: str) -> Path | None:
    """The description cache sits inside the store folder, so a store is one folder (none in memory)."""
    layout = StoreLayout.of(store)
    return layout.description_cache if layout else None


def _positive(text: str | None) -> int | None:
    """An optional count of at least 1 (None when unset)."""
    if not (text or "").strip():
        return None
    value = int(text)  # type: ignore[arg-type]
    if value < 1:
        raise ValueError(f"expected a count of at least 1, not {text!r}")
    return value
