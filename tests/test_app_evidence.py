"""The app's evidence in HTML and the links that open pages: every text escaped, a citation linked only to a
page the answer was given, the page a click names checked, snippets cut for the cards, the tokens warning."""

from __future__ import annotations

import html
import json
import re

from drag_core.app.evidence import PageTarget, target_of
from drag_core.app.figures.cards import tokens_warning
from drag_core.app.figures.evidence import answer_html, cited_html, marked_html, open_link, snippet_html
from drag_core.evidence import Extract, snippet

TEXT = "Net sales grew <b>16.6%</b> in the fourth quarter.\nThe weather was fine all week.\n"
QUERY = "net sales growth in the fourth quarter"


def _targets(block: str) -> list[dict]:
    return [json.loads(html.unescape(t)) for t in re.findall(r'data-open="([^"]+)"', block)]


def test_a_link_names_its_page_and_what_a_click_sends_is_checked() -> None:
    link = open_link("a <b>.pdf", 3, "p.3", [(0, 5)])
    assert "<b>.pdf" not in link and _targets(link) == [{"file": "a <b>.pdf", "page": 3, "spans": [[0, 5]]}]
    assert target_of(_targets(link)[0]) == PageTarget("a <b>.pdf", 3, ((0, 5),))
    for junk in (None, "p.3", {"file": "", "page": 1}, {"file": "a", "page": 0}, {"file": "a", "page": True}):
        assert target_of(junk) is None, junk
    assert target_of({"file": "a", "page": 2, "spans": [[5, 1], "x", [1, 2, 3]]}) == PageTarget("a", 2, ())


def test_snippets_are_escaped_marked_and_cut_for_the_cards() -> None:
    found = snippet(QUERY, TEXT)
    block = snippet_html(TEXT, found)
    assert "&lt;b&gt;16.6%&lt;/b&gt;" in block and "<b>" not in block
    assert re.findall(r'<mark class="drag-term">(\w+)</mark>', block) == ["Net", "sales", "fourth", "quarter"]
    text = "Sales rose strongly in the spring.\nThe weather stayed fine in the spring.\n"
    two = snippet("sales weather", text)
    assert len(two.units) == 2 and snippet_html(text, two).count(" … ") == 1
    assert snippet_html(text, two, 40).endswith("…") and "weather" not in snippet_html(text, two, 40)


def test_a_text_page_is_shown_whole_with_its_highlights() -> None:
    found = snippet(QUERY, TEXT)
    block = marked_html(TEXT, found.highlights, found.marks)
    assert '<mark class="drag-hl">' in block and "The weather was fine all week." in block
    assert block.count('<mark class="drag-term">') == 4 and "&lt;b&gt;" in block


def test_answers_link_their_citations_to_the_pages_given() -> None:
    extract = Extract("Net sales grew.", "r.pdf", 2, 0, 15, 3.0)
    assert _targets(answer_html([extract])) == [{"file": "r.pdf", "page": 2, "spans": [[0, 15]]}]
    generated = cited_html("Sales grew [r.pdf p.2–3] but <i>see</i> [other.pdf p.9].", [("r.pdf", 2)])
    assert _targets(generated) == [{"file": "r.pdf", "page": 2}], "a page it was not given stays text"
    assert "[other.pdf p.9]" in generated and "&lt;i&gt;see&lt;/i&gt;" in generated


def test_the_tokens_warning_comes_before_a_typical_context_is_full() -> None:
    assert tokens_warning(10_000) is None
    assert "close to the 32k tokens" in (tokens_warning(27_000) or "")
    assert "more than the 32k tokens" in (tokens_warning(40_000) or "")
