"""Fixed train / valid / test splits of the real sentence pairs (issue 11): World English Bible →
Louis Segond verses (:mod:`corpora.bible_pairs`) and HSK Chinese → English (:mod:`corpora.hsk`).

One pair per distinct source sentence (the Bible repeats verses, e.g. "Then Yahweh said to Moses"),
shuffled with a fixed seed and cut: the test sentences first, then the validation ones, the rest for
training. So no test or validation source is ever trained on, and every run and the evaluation
see the same test split.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Sequence

TokenPair = tuple[tuple[str, ...], tuple[str, ...]]

BIBLE, HSK = "bible", "hsk"
REAL_CORPORA = (BIBLE, HSK)
#: (source language, target language) of each corpus, as ISO 639-1 codes.
LANGUAGES = {BIBLE: ("en", "fr"), HSK: ("zh", "en")}
#: Held-out sentences per corpus: (test, valid).
HELD_OUT = {BIBLE: (500, 250), HSK: (300, 200)}
SPLIT_SEED = 0


def unique_sources(pairs: Iterable[tuple[Sequence[str], Sequence[str]]]) -> list[TokenPair]:
    """One pair per distinct source sentence (the last translation seen), in first-seen order."""
    return list({tuple(src): (tuple(src), tuple(tgt)) for src, tgt in pairs}.values())


def seeded_split(pairs: Iterable[tuple[Sequence[str], Sequence[str]]], seed: int, *sizes: int) -> list[list[TokenPair]]:
    """Deduplicate by source (:func:`unique_sources`), shuffle with ``seed`` and cut off parts of
    the given ``sizes`` in order; the last part returned is the rest."""
    shuffled = unique_sources(pairs)
    random.Random(seed).shuffle(shuffled)
    parts, start = [], 0
    for size in sizes:
        parts.append(shuffled[start : start + size])
        start += size
    return parts + [shuffled[start:]]


def describe(corpus: str) -> str:
    """What a real corpus is, for training records and notices (HSK: with its licence)."""
    if corpus == HSK:
        from corpora.hsk import LICENSE

        return LICENSE
    return "World English Bible → Louis Segond 1910 verses"


def corpus_pairs(corpus: str) -> tuple[TokenPair, ...]:
    """All the pairs of a real corpus, read from its installed package (``CorpusError`` if missing)."""
    if corpus == BIBLE:
        from corpora.bible_pairs import verse_pairs

        return verse_pairs()
    if corpus == HSK:
        from corpora.hsk import hsk_pairs

        return hsk_pairs()
    raise ValueError(f"unknown corpus {corpus!r}: one of {REAL_CORPORA}")


@functools.lru_cache(maxsize=4)
def real_splits(corpus: str) -> dict[str, list[TokenPair]]:
    """{"train", "valid", "test"} of a real corpus: fixed (seed :data:`SPLIT_SEED`), deterministic,
    disjoint by source sentence."""
    pairs = corpus_pairs(corpus)
    test, valid, train = seeded_split(pairs, SPLIT_SEED, *HELD_OUT[corpus])
    return {"train": train, "valid": valid, "test": test}
