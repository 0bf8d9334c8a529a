"""The dense model folder: built once (fp32 export, int8 fallback), checked by its manifest, and swapped into
place atomically so readers never see a half-written folder."""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from drag_core.models.files.onnx_graph import export_fp32_onnx, smoke_test
from drag_core.models.files.packages import int8_onnx_path, sha256, weights_dir
from drag_core.models.files.spec import (
    BUILDER_VERSION,
    DENSE_DIM,
    DENSE_MODEL_NAME,
    INT8_PACKAGE,
    INT8_SHA256,
    MANIFEST_FILE,
    MAX_SEQ_LENGTH,
    ONNX_FILE,
    REQUIRED_FILES,
    SOURCE_FP32,
    SOURCE_INT8,
    ModelFilesError,
)
from drag_core.models.files.tokenizer import write_tokenizer_files

logger = logging.getLogger(__name__)

__all__ = ['is_dense_model_dir', 'prepare_dense_model', 'read_manifest']

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
        cosine = smoke_test(onnx_file, work / "tokenizer.json", reference=int8)
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
    if sha256(int8) != INT8_SHA256:
        raise ModelFilesError(f"{int8}: sha256 mismatch")
    shutil.copyfile(int8, onnx_file)
    smoke_test(onnx_file, work / "tokenizer.json")
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
