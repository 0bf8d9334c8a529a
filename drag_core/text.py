"""Small text utilities shared by the loaders and the offline summariser."""

from __future__ import annotations

import re

# NLTK's English stop-word list (the list the Qdrant/bm25 model uses).
ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    ["i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "you're", "you've", "you'll", "you'd", "your", "yours", "yourself", "yourselves", "he", "him", "his", "himself", "she", "she's", "her", "hers", "herself", "it", "it's", "its", "itself", "they", "them", "their", "theirs", "themselves", "what", "which", "who", "whom", "this", "that", "that'll", "these", "those", "am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing", "a", "an", "the", "and", "but", "if", "or", "because", "as", "until", "while", "of", "at", "by", "for", "with", "about", "against", "between", "into", "through", "during", "before", "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over", "under", "again", "further", "then", "once", "here", "there", "when", "where", "why", "how", "all", "any", "both", "each", "few", "more", "most", "other", "some", "such", "no", "nor", "not", "only", "own", "same", "so", "than", "too", "very", "s", "t", "can", "will", "just", "don", "don't", "should", "should've", "now", "d", "ll", "m", "o", "re", "ve", "y", "ain", "aren", "aren't", "couldn", "couldn't", "didn", "didn't", "doesn", "doesn't", "hadn", "hadn't", "hasn", "hasn't", "haven", "haven't", "isn", "isn't", "ma", "mightn", "mightn't", "mustn", "mustn't", "needn", "needn't", "shan", "shan't", "shouldn", "shouldn't", "wasn", "wasn't", "weren", "weren't", "won", "won't", "wouldn", "wouldn't"]
)

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*[A-Za-z0-9]|[A-Za-z]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
_SPACES = re.compile(r"[ \t\f\v]+")


def content_words(text: str, min_length: int = 3) -> list[str]:
    """Lower-cased words of ``text`` without stop words or very short tokens."""
    words = (w.lower() for w in _WORD.findall(text))
    return [w for w in words if len(w) >= min_length and w not in ENGLISH_STOPWORDS]


def sentences(text: str) -> list[str]:
    """Split text into sentences (line breaks inside a sentence are folded)."""
    flat = _SPACES.sub(" ", text.replace("\r", "\n"))
    parts: list[str] = []
    for block in re.split(r"\n\s*\n", flat):
        block = " ".join(line.strip() for line in block.splitlines() if line.strip())
        parts.extend(s.strip() for s in _SENTENCE_END.split(block) if s.strip())
    return parts


def approx_tokens(text: str) -> int:
    """A rough LLM token count (about 4 characters per token)."""
    return (len(text) + 3) // 4
