"""Ingest, one way: load → describe → tree → embed → store (``pipeline.Ingestor`` runs it for one file).

Modules: ``loading`` (files → pages: PDF, TXT, MD; bad input refused with a one-line reason), ``pdf_text``
(PDFium or pypdf), ``parsing`` (pages cached by content hash, PDFs in parallel), ``describe`` (summaries and
keywords: offline extractive or an LLM), ``tree`` (pages grouped 3–5 per parent up to a root),
``vector_text`` (which text each vector sees), ``report`` (the stages, progress events and reports its
callers share), ``pipeline`` (the stages wired together).

Nothing is imported here, so a module of the stage (e.g. ``report``, read by the app and the CLI) loads alone.
"""

__all__: list[str] = []
