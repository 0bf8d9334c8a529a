"""Clean text, once, at ingest: TeX's split accents joined, NFKC, soft hyphens resolved, control characters
removed, in PDF pages, text files and outline titles; keywords are whole words of the page, in any script."""

from __future__ import annotations

import re

import pytest
from conftest import PDFS

from drag_core.ingest.clean_text import clean_text
from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.describe.keywords import terms
from drag_core.ingest.loading import load_bytes, load_path
from drag_core.ingest.pipeline import describe_tree

C0_C1 = re.compile("[\x00-\x08\x0b\x0d-\x1f\x7f-\x9f]")


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Wirtschaftsuniversit\u00a8at Wien", "Wirtschaftsuniversität Wien"),
        ("Olivier Guib\u00b4e and Fran\u00b8cois", "Olivier Guibé and François"),
        ("P\u00b4eter", "Péter"),
        ("e\ufb03cient \ufb01les", "efficient files"),
        ("inter\u00ad\nnational co\u00adoperation", "international cooperation"),
        ("a\x85b\x9fc\x07d\ufffee", "abcde"),
        ("don`t touch ``code``", "don`t touch ``code``"),  # no letter holds t + grave: kept
        ("Pe \u0301ter and \u00a0\u0300chroot", "Péter and  chroot"),  # a detached mark joins, an orphan goes
    ],
)
def test_clean_text(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_pdf_pages_are_clean() -> None:
    pages = {
        "R-FAQ.pdf": (13, "Wirtschaftsuniversität Wien"),
        "asymptote.pdf": (184, "Olivier Guibé"),
        "R-intro.pdf": (104, "François Pinard"),
    }
    for name, (page, words) in pages.items():
        document = load_path(PDFS / name)
        assert words in document.pages[page - 1].text, name
        text = "\n".join(p.text for p in document.pages)
        assert not C0_C1.search(text) and "\u00ad" not in text and "\ufb01" not in text, name
        assert not re.search("[a-z][\u00b4\u00a8\u00b8][a-z]", text), name


def test_text_files_and_their_outline_are_clean() -> None:
    data = "# Caf\u00e9\x85 \ufb01gures\n\nThe \ufb01rst\x07 page of P\u00b4eter.\n".encode()
    document = load_bytes("notes.md", data)
    assert document.pages[0].text == "# Café figures\n\nThe first page of Péter."
    assert [entry.title for entry in document.outline] == ["Café figures"]


def test_keywords_are_whole_words_in_any_script() -> None:
    assert terms("Péter Guibé studied at the Universität of 4.4BSD-Lite") == [
        "péter",
        "guibé",
        "studied",
        "universität",
        "lite",
    ]
    document = load_path(PDFS / "R-FAQ.pdf")
    nodes = describe_tree(document, Describer(ExtractiveSummarizer(), DescriptionCache(None)))
    for node in nodes:
        text = "\n".join(p.text for p in document.pages[node.page_start - 1 : node.page_end]).replace(
            "’", "'"
        )
        for keyword in node.keywords:
            pattern = rf"(?<![^\W_]){re.escape(keyword)}(?![^\W_])"
            assert re.search(pattern, text, re.IGNORECASE), (keyword, node.page_start)
        fields = [node.summary, node.title, node.text, *node.keywords]
        assert not any(C0_C1.search(field) for field in fields)
