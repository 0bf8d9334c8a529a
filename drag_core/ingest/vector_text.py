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
* Parents, ``parent_dense``: ``"summary"`` embeds title + summary + keywords; ``"centroid"`` takes the normalised
  mean of the children's dense vectors (so a parent sits among its pages).
* Parents, ``parent_sparse``: ``"summary"`` indexes title + keywords + summary; ``"subtree"`` indexes all the page
  bodies below the node.

``bodies`` are the page bodies of the nodes' document in page order (``[page.body for page in
document.pages]``): nodes hold the page text shown to people.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

import numpy as np

from drag_core.types import Node

__all__ = [
    "PARENT_DENSE_CHOICES",
    "PARENT_SPARSE_CHOICES",
    "VectorPolicy",
    "dense_count",
    "dense_vectors",
    "leaf_text",
    "sparse_texts",
    "title_of",
    "titled",
]

PARENT_DENSE_CHOICES = ("summary", "centroid")
PARENT_SPARSE_CHOICES = ("summary", "subtree")


@dataclass(frozen=True)
class VectorPolicy:
    """Which text each vector sees.

    Attributes:
        parent_dense: ``"summary"`` or ``"centroid"``.
        parent_sparse: ``"summary"`` or ``"subtree"``.
    """

    parent_dense: str = "centroid"
    parent_sparse: str = "subtree"

    def __post_init__(self) -> None:
        if self.parent_dense not in PARENT_DENSE_CHOICES or self.parent_sparse not in PARENT_SPARSE_CHOICES:
            raise ValueError(f"unknown vector policy {self}")

    @property
    def identity(self) -> str:
        return f"dense={self.parent_dense},sparse={self.parent_sparse}"


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
        else:
            out.append(_described(node, sparse=True))
    return out


def _dense_text(node: Node, policy: VectorPolicy, bodies: Sequence[str]) -> str | None:
    """The text a node's dense vector embeds (None: a centroid of its children's vectors, no model call)."""
    if node.level == 0:
        return leaf_text(node, bodies, sparse=False)
    return _described(node, sparse=False) if policy.parent_dense == "summary" else None


def dense_count(nodes: Sequence[Node], policy: VectorPolicy) -> int:
    """How many texts ``dense_vectors`` gives the model: the ingest's count of its vectors stage."""
    return sum(1 for n in nodes if n.level == 0 or policy.parent_dense == "summary")


def dense_vectors(
    nodes: Sequence[Node],
    policy: VectorPolicy,
    embed: Callable[[list[str]], np.ndarray],
    bodies: Sequence[str],
) -> np.ndarray:
    """Dense vector of every node: leaves embed their text; parents per ``policy.parent_dense``.

    ``nodes`` are ordered leaves first, parents after their children (as ``tree.build_tree`` returns them).
    """
    index = {n.id: i for i, n in enumerate(nodes)}
    texts = [_dense_text(n, policy, bodies) for n in nodes]
    embedded_at = [i for i, t in enumerate(texts) if t is not None]
    embedded = embed([texts[i] for i in embedded_at])
    vectors = np.zeros((len(nodes), embedded.shape[1]), dtype=np.float32)
    vectors[embedded_at] = embedded
    for i, node in enumerate(nodes):
        if texts[i] is None:
            mean = vectors[[index[c] for c in node.child_ids]].mean(axis=0)
            vectors[i] = mean / (np.linalg.norm(mean) or 1.0)
    return vectors
