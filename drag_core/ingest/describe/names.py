"""Person names in a document, offline and without a model, so that keywords never name people.

* A token is *proper* when it occurs capitalised and never in lower case in the document.
* A pair or triple of proper tokens ("John Bowman", "John C. Bowman") is a person's name when it stands in a
  name context: after ``/s/``, ``by``, ``Mr.``/``Ms.``/``Dr.``/``Prof.``/``I,``; before ``, Chief …``,
  ``, Director``, ``, President`` …; with a middle initial; or beside another such pair in a list ("Andy
  Hammerlindl, John Bowman, and Tom Prince") on a *people page* (copyright, credits, acknowledgements,
  signatures, certifications). A proper token after ``Mr.``/``Ms.``/``Mrs.``/``Dr.``/``Prof.`` is a surname
  ("Ms. Nicosia"), and the token before it in a pair a first name ("Darlene Nicosia"). All are then names
  everywhere in the document.
* Words of the file name and ``ROLE_WORDS`` are never names; on a people page every proper token is kept out
  of that page's keywords (``people_page_tokens``).

Place names next to a name context ("Santa Clara, California") can be taken for names: harmless, they only
leave the keyword candidates.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from drag_core.text import WORD

__all__ = ["ROLE_WORDS", "is_people_page", "people_page_tokens", "person_names", "proper_tokens"]

#: Capitalised words that stand next to names but are none.
ROLE_WORDS = frozenset(
    [
        "president",
        "vice",
        "chairman",
        "chair",
        "chief",
        "executive",
        "officer",
        "officers",
        "director",
        "directors",
        "secretary",
        "treasurer",
        "controller",
        "counsel",
        "general",
        "senior",
        "principal",
        "investor",
        "investors",
        "relations",
        "title",
        "name",
        "signature",
        "date",
        "media",
        "contact",
        "contacts",
        "street",
        "floor",
        "avenue",
        "road",
        "suite",
    ]
)


_UPPER, _LOWER = "A-ZÀ-ÖØ-ÞĀ-ſ", "a-zß-öø-ÿĀ-ſ"  # Latin letters, accented ones too ("Guibé", "Ľubomír")
_CAPITALISED = rf"[{_UPPER}][{_LOWER}]+(?:[-'’][{_UPPER}]?[{_LOWER}]+)?"
_NAME = re.compile(rf"\b({_CAPITALISED})\s+(?:([{_UPPER}])\.\s*)?({_CAPITALISED})(?:\s+({_CAPITALISED}))?\b")
_BEFORE_NAME = re.compile(r"(?:/s/|\bby|\bMr\.|\bMs\.|\bMrs\.|\bDr\.|\bProf\.|\bI,)\s*$")
_TITLED = re.compile(rf"\b(?:Mr|Ms|Mrs|Dr|Prof)\.\s*({_CAPITALISED})\b")
_AFTER_NAME = re.compile(
    r"^\s*,?\s*(?:Jr\.|Sr\.)?,?\s*(?:Chief|Director|President|Vice|Executive|Senior|Secretary|Treasurer|"
    r"Chairman|Chair|Officer|General Counsel|Controller|Principal)\b"
)
_LIST_GAP = re.compile(r"\s*(?:,|,?\s+and|&)\s*")
_PEOPLE_PAGE = re.compile(
    r"copyright|©|\(c\)\s*\d{4}|all rights reserved|permission is granted|\bauthors?\b|acknowledg|"
    r"\bthanks\b|contributors|written by|maintained by|/s/|\bsignatures?\b|\bcertify\b|duly caused",
    re.IGNORECASE,
)
_BEFORE_CHARS, _AFTER_CHARS = 8, 40


def is_people_page(text: str) -> bool:
    """Copyright, credits, acknowledgements, signatures, certifications."""
    return _PEOPLE_PAGE.search(text) is not None


def proper_tokens(pages: Sequence[str]) -> set[str]:
    """Lower-cased forms of the capitalised tokens that never occur in lower case in the document."""
    lower, capital = set(), set()
    for page in pages:
        for word in WORD.findall(page):
            if word.islower():
                lower.add(word)
            elif word[0].isupper() and not word.isupper():
                capital.add(word.lower())
    return capital - lower


def people_page_tokens(page: str, proper: set[str]) -> set[str]:
    """The proper tokens of a people page (none for another page): kept out of its keywords."""
    if not is_people_page(page):
        return set()
    return {word.lower() for word in WORD.findall(page)} & proper


def person_names(pages: Sequence[str], file_name: str = "") -> set[str]:
    """Lower-cased tokens of the document that are person names (see the module docstring)."""
    never = {word.lower() for word in WORD.findall(file_name.replace("_", " "))} | ROLE_WORDS
    proper = proper_tokens(pages) - never
    surnames = {m.group(1).lower() for page in pages for m in _TITLED.finditer(page)} & proper
    names = set(surnames)
    for page in pages:
        people = is_people_page(page)
        matches = [m for m in _NAME.finditer(page) if all(t.lower() in proper for t in _tokens(m))]
        # a candidate is in a list when only ", " / " and " separates it from the one before or after it
        listed = [False] * len(matches)
        for i, (a, b) in enumerate(zip(matches, matches[1:])):
            if people and _LIST_GAP.fullmatch(page[a.end() : b.start()]):
                listed[i] = listed[i + 1] = True
        for match, in_list in zip(matches, listed):
            before = page[max(0, match.start() - _BEFORE_CHARS) : match.start()]
            after = page[match.end() : match.end() + _AFTER_CHARS]
            surname = _tokens(match)[-1].lower() in surnames
            if (
                match.group(2)
                or in_list
                or surname
                or _BEFORE_NAME.search(before)
                or _AFTER_NAME.match(after)
            ):
                names.update(t.lower() for t in _tokens(match))
    return names


def _tokens(match: re.Match[str]) -> list[str]:
    return [t for t in (match.group(1), match.group(3), match.group(4)) if t]
