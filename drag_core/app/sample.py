"""The bundled sample document: package data, so it is there in an installed package too."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from drag_core.config import Settings

__all__ = ["SAMPLE_PDF", "SAMPLE_QUERY", "SAMPLE_TITLE", "sample_on_start"]

#: "R Data Import/Export" (R Core Team), distributed verbatim under its permission notice (LICENSE-R-data.txt
#: beside it).
SAMPLE_PDF = Path(str(resources.files("drag_core.app") / "sample" / "R-data.pdf"))
SAMPLE_TITLE = "R Data Import/Export (R manual, 41 pages)"
SAMPLE_QUERY = "How do I read a CSV file?"


def sample_on_start(settings: Settings) -> bool:
    """Whether an empty index gets the bundled sample when the app starts (``DRAG_SAMPLE``)."""
    return settings.sample_on_start and SAMPLE_PDF.is_file()
