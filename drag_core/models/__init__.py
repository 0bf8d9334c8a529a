"""The embedding models, offline: ``embeddings.Embedder`` (dense MiniLM through fastembed + BM25 sparse
vectors), ``query_embedder.QueryEmbedder`` (the same query vectors without importing fastembed),
``bm25_terms`` (the one BM25 term pipeline both use), ``files`` (the model folder built from PyPI wheels) and
``setup`` (``python -m drag_core.models.setup`` builds it).

Nothing is imported here, so ``import drag_core.models.files`` does not load fastembed.
"""

__all__: list[str] = []
