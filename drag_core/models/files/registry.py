"""The model folder registered with fastembed under our own name, so fastembed loads it offline."""

from __future__ import annotations

import contextlib

from drag_core.models.files.spec import DENSE_DIM, DENSE_MODEL_NAME, ONNX_FILE

__all__ = ['register_dense_model']

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
            description="all-MiniLM-L6-v2 from a local folder built by drag_core.models.files",
            license="apache-2.0",
            size_in_gb=0.09,
        )
