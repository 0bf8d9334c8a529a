"""Text as the rest of the pipeline reads it: normalised once, where a file's pages are read (PDF pages, text
files, outline titles), before summaries, keywords, vectors and snippets see it.

* TeX's spacing accents between two letters ("universit¨at", "Guib´e", "Fran¸cois") are joined to the letter
  after them ("universität", "Guibé", "François") where one letter holds both ("don`t" stays), as is a
  combining mark split from the letter before it by a space.
* Unicode NFKC: ligatures ("ﬁ" → "fi"), full-width and compatibility forms, composed accents.
* Soft hyphens (U+00AD) removed, a line-end one joining its word ("inter\\u00ad\\nnational" → "international").
* Control characters removed: C0 but tab, line feed and form feed (a text file's page break), DEL, C1
  (U+0080–U+009F), and PDFium's stray U+FFFE / U+FFFF, zero-width spaces and byte-order marks; a combining mark
  left without a letter before it is dropped.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["SPACING_ACCENTS", "clean_text"]

#: Spacing accents as TeX's fonts print them, and the combining mark each stands for.
SPACING_ACCENTS = {
    "\u00b4": "\u0301",  # ´ acute
    "`": "\u0300",  # grave
    "\u00a8": "\u0308",  # ¨ diaeresis
    "\u02c6": "\u0302",  # ˆ circumflex
    "\u02dc": "\u0303",  # ˜ tilde
    "\u00b8": "\u0327",  # ¸ cedilla
    "\u02c7": "\u030c",  # ˇ caron
    "\u00af": "\u0304",  # ¯ macron
    "\u02d8": "\u0306",  # ˘ breve
    "\u02d9": "\u0307",  # ˙ dot above
    "\u02da": "\u030a",  # ˚ ring above
    "\u02dd": "\u030b",  # ˝ double acute
}
_LETTER = r"[^\W\d_]"
_SPLIT_ACCENT = re.compile(rf"(?<={_LETTER})([{''.join(SPACING_ACCENTS)}])({_LETTER})")
_DETACHED_MARK = re.compile(rf"(?<={_LETTER}) ([\u0300-\u036f])")
_SOFT_HYPHEN_BREAK = re.compile(r"\u00ad[ \t]*\n[ \t]*")
_CONTROL = re.compile("[\x00-\x08\x0b\x0d-\x1f\x7f-\x9f\u00ad\u200b\u200c\u200d\u2060\ufeff\ufffe\uffff]")


def _join_accent(match: re.Match[str]) -> str:
    """The letter with its accent where one letter holds both ("é"), else the text as it was ("don`t")."""
    joined = unicodedata.normalize("NFC", match.group(2) + SPACING_ACCENTS[match.group(1)])
    return joined if len(joined) == 1 else match.group(0)


def _is_orphan_mark(text: str, index: int) -> bool:
    return index == 0 or not text[index - 1].isalpha()


def clean_text(text: str) -> str:
    """``text`` normalised (see the module docstring)."""
    text = _SPLIT_ACCENT.sub(_join_accent, text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _DETACHED_MARK.sub(r"\1", text)
    text = _SOFT_HYPHEN_BREAK.sub("", text)
    text = unicodedata.normalize("NFKC", _CONTROL.sub("", text))
    if any(unicodedata.combining(ch) for ch in text):
        text = "".join(
            ch for i, ch in enumerate(text) if not (unicodedata.combining(ch) and _is_orphan_mark(text, i))
        )
    return text
