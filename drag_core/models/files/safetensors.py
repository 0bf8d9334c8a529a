"""A ``.safetensors`` reader with numpy alone (no torch, no safetensors package)."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np

from drag_core.models.files.spec import ModelFilesError

_SAFETENSORS_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4"}

__all__ = ['read_safetensors']

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
