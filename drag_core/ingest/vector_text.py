"""What each vector of a node sees — a design decision measured with the evaluation harness (see README).

* ``title``: the file name made readable (``AMCOR_2023_10K.pdf`` → ``AMCOR 2023 10K``); it is prefixed to every
  text so a question naming a company or a year can find the right document at every level. A name without a
  letter (``4983.txt``, an evaluation corpus id) is no title and adds nothing. In the BM25 text the node's
  section title follows it (``asymptote › 6 Programming › Paths and guides``, ``Node.title``; none without an
  outline): the chapter a page is in, as its running header named it, without the page numbers. MiniLM reads
  the page without it (measured: in the dense text too it cost ``adaptive`` two financebench-dev questions,
  docs/evaluation.md).
* Leaves: dense and sparse read the page's body — its text without the document's running headers and
  footers (``running_lines``) — (MiniLM reads the first 256 word pieces; BM25 all of it).
* Leaves, ``passages`` (issue 26): the page body cut into passages of at most the dense model's word pieces,
  at the sections that start on the page first (``ingest.passages``), each embedded under the file's title
  (``"plain"``) or under the title and its section's heading (``"heading"``); stored as the leaf's
  ``passages`` multivector, which a ranking can read by MaxSim instead of the page vector. A page whose one
  passage is its whole dense text reuses the page vector (no model call); ``"off"`` builds none. With
  ``pack``, consecutive sections that fit one passage together share it (``cut_passages``).
* Leaves with passages, ``page_vector``: ``"window"`` embeds the page's own text (the model reads its first word
  pieces, which the first passage embeds again); ``"first"`` takes the first passage's vector (one text fewer
  a page); ``"mean"`` the normalised mean of its passages' vectors (every word, no model call).
* Parents, ``parent_dense``: ``"summary"`` embeds title + summary + keywords; ``"centroid"`` takes the normalised
  mean of the children's dense vectors (so a parent sits among its pages); ``"outline"`` embeds the node's
  outline (``outline_text``: the file's title, the section names below the node, its keywords); ``"blend"`` is
  the normalised mean of the centroid and the outline's vector.
* Parents, ``parent_sparse``: ``"summary"`` indexes title + keywords + summary; ``"subtree"`` indexes all the page
  bodies below the node; ``"outline"`` indexes its outline (``outline_text``, under its section title);
  ``"vocabulary"`` indexes every distinct word of the page bodies below it once (``vocabulary_text``: a
  subtree whose length grows with its vocabulary, not its pages, so a long document's root does not fall
  behind on BM25's length normalisation, nor match by repetition).

``bodies`` are the page bodies of the nodes' document in page order (``[page.body for page in
document.pages]``): nodes hold the page text shown to people.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Protocol

import numpy as np

from drag_core.ingest.passages import Passage, cut_passages, section_starts
from drag_core.ingest.sections import Sections
from drag_core.types import Node

__all__ = [
    "PARENT_DENSE_CHOICES",
    "PARENT_SPARSE_CHOICES",
    "PAGE_VECTOR_CHOICES",
    "PASSAGE_CHOICES",
    "PieceCounter",
    "VectorPolicy",
    "dense_count",
    "dense_vectors",
    "leaf_text",
    "outline_text",
    "page_passages",
    "passage_texts",
    "passage_vectors",
    "sparse_texts",
    "stored_passages",
    "title_of",
    "titled",
    "vocabulary_text",
]

PARENT_DENSE_CHOICES = ("summary", "centroid", "outline", "blend")
PARENT_SPARSE_CHOICES = ("summary", "subtree", "outline", "vocabulary")
PASSAGE_CHOICES = ("off", "plain", "heading")
PAGE_VECTOR_CHOICES = ("window", "first", "mean")


@dataclass(frozen=True)
class VectorPolicy:
    """Which text each vector sees.

    Attributes:
        parent_dense: ``"summary"``, ``"centroid"``, ``"outline"`` or ``"blend"`` (module docstring).
        parent_sparse: ``"summary"``, ``"subtree"``, ``"outline"`` or ``"vocabulary"`` (module docstring).
        passages: the leaves' passages: ``"plain"`` (under the file's title), ``"heading"`` (and the section's
            heading) or ``"off"`` (none: the page vector is a leaf's only dense vector).
        page_vector: a leaf's page vector where it has passages: ``"window"``, ``"first"`` or ``"mean"``
            (module docstring; ``"first"`` and ``"mean"`` save a quarter of the word pieces embedded; measured
            in docs/evaluation.md, "What it costs": each cost ``adaptive`` more than 0.01 on a set, the mean
            on financebench-dev while it gained 0.087 on manuals-dev).
        pack: whether consecutive sections of a page that fit one passage together share it (measured, not
            chosen: it saves texts, not word pieces, and cost ``adaptive`` at equal budget on sections-train).
    """

    parent_dense: str = "centroid"
    parent_sparse: str = "subtree"
    passages: str = "plain"
    page_vector: str = "window"
    pack: bool = False

    def __post_init__(self) -> None:
        if (
            self.parent_dense not in PARENT_DENSE_CHOICES
            or self.parent_sparse not in PARENT_SPARSE_CHOICES
            or self.passages not in PASSAGE_CHOICES
            or self.page_vector not in PAGE_VECTOR_CHOICES
        ):
            raise ValueError(f"unknown vector policy {self}")

    @property
    def identity(self) -> str:
        """The policy in one string, recorded on every root: a setting at its value of before it existed
        (passages off; the page vector from its window, sections not packed) adds nothing, so a document built
        then keeps its identity."""
        passages = ""
        if self.passages != "off":
            page = "" if self.page_vector == "window" else f",page={self.page_vector}"
            passages = f",passages={self.passages}{page}{',packed' if self.pack else ''}"
        return f"dense={self.parent_dense},sparse={self.parent_sparse}{passages}"


class PieceCounter(Protocol):
    """The dense model's tokenizer as the passage cut reads it (``Embedder`` is one)."""

    @property
    def max_pieces(self) -> int:
        """Word pieces the model reads of a text, special tokens included."""
        ...

    @property
    def special_pieces(self) -> int:
        """Special tokens added to every text."""
        ...

    def piece_starts(self, text: str) -> list[int]:
        """Where each word piece of ``text`` begins."""
        ...


def title_of(file_name: str) -> str:
    """A readable title from a file name ("" when the name holds no letter)."""
    title = re.sub(r"[_\-.]+", " ", PurePath(file_name).stem).strip()
    return title if any(c.isalpha() for c in title) else ""


def titled(file_name: str, text: str, section: str = "") -> str:
    """``text`` under the file's title and the section's (``section``: a node's title)."""
    heading = " › ".join(part for part in (title_of(file_name), section) if part)
    return f"{heading}\n{text}" if heading else text


def _described(node: Node, sparse: bool) -> str:
    text = f"{node.summary}\nKeywords: {', '.join(node.keywords)}"
    return titled(node.file_name, text, node.title if sparse else "")


def leaf_text(node: Node, bodies: Sequence[str], sparse: bool) -> str:
    """What a page's dense or (``sparse``) BM25 vector reads: its body under the file's title (and, for BM25,
    the section's); its description when it has no body."""
    body = bodies[node.page_start - 1]
    if not body.strip():
        return _described(node, sparse)
    return titled(node.file_name, body, node.title if sparse else "")


def outline_text(node: Node, by_id: Mapping[int, Node], sparse: bool) -> str:
    """A parent as a table of contents: the distinct section titles below it, level by level (its children's
    first, so the dense model's first word pieces read the top of the outline), then its keywords; under the
    file's title (and, ``sparse``, its own section title). Without an outline only the keywords remain."""
    headings: list[str] = []
    generation = [by_id[c] for c in node.child_ids]
    while generation:
        headings += [n.title for n in generation if n.title and n.title != node.title]
        generation = [by_id[c] for n in generation for c in n.child_ids]
    text = "; ".join(dict.fromkeys(headings))
    keywords = f"Keywords: {', '.join(node.keywords)}"
    return titled(node.file_name, f"{text}\n{keywords}" if text else keywords, node.title if sparse else "")


def vocabulary_text(text: str) -> str:
    """Every distinct word of ``text`` once, in order of first appearance (case-folded)."""
    return " ".join(dict.fromkeys(re.findall(r"\w+", text.casefold())))


def sparse_texts(nodes: Sequence[Node], policy: VectorPolicy, bodies: Sequence[str]) -> list[str]:
    """Text for each node's BM25 vector."""
    by_id = {n.id: n for n in nodes}

    def below(node: Node) -> str:
        if node.level == 0:
            return bodies[node.page_start - 1]
        return "\n".join(below(by_id[c]) for c in node.child_ids)

    out = []
    for node in nodes:
        if node.level == 0:
            out.append(leaf_text(node, bodies, sparse=True))
        elif policy.parent_sparse == "subtree":
            out.append(titled(node.file_name, below(node), node.title))
        elif policy.parent_sparse == "vocabulary":
            out.append(titled(node.file_name, vocabulary_text(below(node)), node.title))
        elif policy.parent_sparse == "outline":
            out.append(outline_text(node, by_id, sparse=True))
        else:
            out.append(_described(node, sparse=True))
    return out


def _dense_text(
    node: Node, policy: VectorPolicy, bodies: Sequence[str], by_id: Mapping[int, Node]
) -> str | None:
    """The text a node's dense vector embeds (None: only a centroid of its children's vectors, no model
    call)."""
    if node.level == 0:
        return leaf_text(node, bodies, sparse=False)
    if policy.parent_dense == "summary":
        return _described(node, sparse=False)
    if policy.parent_dense in ("outline", "blend"):
        return outline_text(node, by_id, sparse=False)
    return None


def page_passages(
    node: Node,
    bodies: Sequence[str],
    sections: Sections,
    tokenizer: PieceCounter,
    headed: bool,
    pack: bool = False,
) -> list[Passage]:
    """The passages of a leaf's page body (``ingest.passages``): cut at the sections starting on the page
    (``pack``: consecutive ones that fit together share a passage), each at most as long as the dense model
    reads once the file's title (and, ``headed``, the section's heading) and the special tokens are counted."""
    page = node.page_start - 1
    body = bodies[page]
    before = sections.page_title(page - 1) if page > 0 else ""
    starts = section_starts(body, sections.starts_on(page), before)
    prefix = max(
        len(tokenizer.piece_starts(titled(node.file_name, "", s.heading if headed else ""))) for s in starts
    )
    budget = tokenizer.max_pieces - tokenizer.special_pieces - prefix
    return cut_passages(body, tokenizer.piece_starts(body), budget, starts, pack)


def passage_texts(
    nodes: Sequence[Node],
    policy: VectorPolicy,
    bodies: Sequence[str],
    sections: Sections,
    tokenizer: PieceCounter,
) -> list[list[str] | None]:
    """The dense texts of each node's passages (``page_passages``): None for a parent or with passages off;
    [] for a leaf whose page vector is its one passage (an empty body, or a page read whole already)."""
    if policy.passages == "off":
        return [None] * len(nodes)
    headed = policy.passages == "heading"
    out: list[list[str] | None] = []
    for node in nodes:
        if node.level != 0:
            out.append(None)
            continue
        cut = page_passages(node, bodies, sections, tokenizer, headed, policy.pack)
        texts = [titled(node.file_name, p.text, p.heading if headed else "") for p in cut]
        whole = " ".join(leaf_text(node, bodies, sparse=False).split())
        out.append([] if [" ".join(t.split()) for t in texts] in ([], [whole]) else texts)
    return out


def _from_passages(policy: VectorPolicy, passages: list[str] | np.ndarray | None) -> bool:
    """Whether a leaf's page vector comes from its passages (it has some, and the policy says so)."""
    return policy.page_vector != "window" and passages is not None and len(passages) > 0


def dense_count(
    nodes: Sequence[Node], policy: VectorPolicy, passages: Sequence[list[str] | None] = ()
) -> int:
    """How many texts ``passage_vectors`` and ``dense_vectors`` give the model: the ingest's count of its
    vectors stage."""
    own = sum(1 for n in nodes if n.level == 0 or policy.parent_dense != "centroid")
    return own + sum(len(p or ()) - _from_passages(policy, p) for p in passages)


def dense_vectors(
    nodes: Sequence[Node],
    policy: VectorPolicy,
    embed: Callable[[list[str]], np.ndarray],
    bodies: Sequence[str],
    passages: Sequence[np.ndarray | None] = (),
) -> np.ndarray:
    """Dense vector of every node: leaves embed their text, or take it from their passages' vectors
    (``passage_vectors``, per ``policy.page_vector``); parents per ``policy.parent_dense``.

    ``nodes`` are ordered leaves first, parents after their children (as ``tree.build_tree`` returns them).
    A ``"blend"`` parent's centroid is of its children's blended vectors.
    """
    index = {n.id: i for i, n in enumerate(nodes)}
    by_id = {n.id: n for n in nodes}
    given = {i: p for i, p in enumerate(passages) if _from_passages(policy, p)}
    texts = [None if i in given else _dense_text(n, policy, bodies, by_id) for i, n in enumerate(nodes)]
    embedded_at = [i for i, t in enumerate(texts) if t is not None]
    embedded = embed([texts[i] for i in embedded_at])
    vectors = np.zeros((len(nodes), embedded.shape[1]), dtype=np.float32)
    vectors[embedded_at] = embedded
    for i, rows in given.items():
        mean = rows[0] if policy.page_vector == "first" else rows.mean(axis=0)
        vectors[i] = mean / (np.linalg.norm(mean) or 1.0)
    for i, node in enumerate(nodes):
        if node.level > 0 and policy.parent_dense in ("centroid", "blend"):
            mean = vectors[[index[c] for c in node.child_ids]].mean(axis=0)
            if policy.parent_dense == "blend":
                mean = mean / (np.linalg.norm(mean) or 1.0) + vectors[i]
            vectors[i] = mean / (np.linalg.norm(mean) or 1.0)
    return vectors


def passage_vectors(
    passages: Sequence[list[str] | None],
    embed: Callable[[list[str]], np.ndarray],
    dim: int,
    pieces: Callable[[str], int] = len,
) -> list[np.ndarray | None]:
    """Each node's passage vectors from ``passage_texts`` (None: no passages; no rows: the page vector is its
    one passage, ``stored_passages``), in one model call, the texts in order of length (``pieces``: the
    model's word pieces of a text)."""
    texts = [text for p in passages for text in (p or ())]
    # shortest first: a batch is padded to its longest text, and a page's last passage and a short section's
    # are much shorter than the rest; counted in word pieces, not characters (a statement table's numbers
    # hold far more pieces per character than prose: sorted by characters, the batches of R-FAQ and an 8-K
    # embed 33 % padding, by pieces 10 %)
    lengths = [pieces(text) for text in texts]
    order = sorted(range(len(texts)), key=lengths.__getitem__)
    embedded = np.zeros((len(texts), dim), dtype=np.float32)
    if texts:
        embedded[order] = embed([texts[i] for i in order])
    out: list[np.ndarray | None] = []
    at = 0
    for texts_of in passages:
        out.append(None if texts_of is None else embedded[at : at + len(texts_of)])
        at += len(texts_of or ())
    return out


def stored_passages(passages: Sequence[np.ndarray | None], dense: np.ndarray) -> list[np.ndarray | None]:
    """The passage vectors a store writes: a leaf without rows of its own gets its page vector (its row of
    ``dense``) as its one passage."""
    return [dense[i : i + 1] if p is not None and not len(p) else p for i, p in enumerate(passages)]
