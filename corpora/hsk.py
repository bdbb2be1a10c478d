"""Real Chinese→English sentence pairs: the HSK 3.0 graded sentences of the ``hsk-sentences-audio``
package (4,354 pairs, levels 1–6, CC-BY-SA-4.0), read from the installed package, never copied.

The Chinese side is the package's own word segmentation (its ``tokens``); the English side goes
through :func:`corpora.text.tokenize`. The pairs carry no gold alignment.
"""

from __future__ import annotations

import functools

from corpora.bible import CorpusError
from corpora.text import tokenize

TokenPair = tuple[tuple[str, ...], tuple[str, ...]]
LICENSE = "HSK 3.0 sentences from the hsk-sentences-audio package, CC-BY-SA-4.0"


@functools.lru_cache(maxsize=1)
def hsk_pairs() -> tuple[TokenPair, ...]:
    """(Chinese words, English tokens) of every sentence with a translation, in the package's order."""
    try:
        from hsk_sentences_audio import load_sentences
    except ImportError:
        raise CorpusError(
            "the `hsk-sentences-audio` package is not installed: `pip install hsk-sentences-audio==1.0.0`"
        ) from None
    pairs = []
    for record in load_sentences():
        words = tuple(str(tok.get("word", "")).strip() for tok in record.get("tokens", ()))
        english = tuple(tokenize((record.get("translation") or {}).get("en", "")))
        if all(words) and words and english:
            pairs.append((words, english))
    if not pairs:
        raise CorpusError("the `hsk-sentences-audio` package holds no sentence pairs")
    return tuple(pairs)
