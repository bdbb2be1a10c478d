"""Chinese word segmentation by forward maximum matching against a model's source vocabulary.

Chinese is written without spaces, and the HSK translation models read words as the
``hsk-sentences-audio`` package segmented them (``运动员 们 在 训练``). Typed Chinese is cut the
same way by forward maximum matching (Wong & Chan 1996; the classic dictionary method): at each
position take the longest vocabulary word that starts there; a character that starts no
vocabulary word stays a single token, flagged unknown. A run of ASCII letters and digits, or of
digits of any script, is one token (never cut inside a Latin word or a number); whitespace
separates tokens and is dropped; every other character (punctuation, emoji) is a token of its
own. Nothing is lost or changed: ``"".join(tokens)`` is the input without its whitespace.
Pure Python: no torch, usable anywhere.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

__all__ = ["Segmentation", "segment"]


@dataclass(frozen=True)
class Segmentation:
    tokens: list[str]
    unknown: list[bool]  # per token: not in the vocabulary


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _run_end(chunk: str, start: int) -> int:
    """End of the run of ASCII letters/digits or of digits that starts at ``start`` (``start`` if none)."""
    same = _latin if _latin(chunk[start]) else str.isdigit if chunk[start].isdigit() else None
    if same is None:
        return start
    end = start + 1
    while end < len(chunk) and same(chunk[end]):
        end += 1
    return end


def segment(text: str, vocabulary: Collection[str], max_word_len: int | None = None) -> Segmentation:
    """Cut ``text`` into the longest ``vocabulary`` words, left to right (forward maximum matching).

    ``max_word_len`` bounds the words tried (default: the vocabulary's longest word).
    """
    if max_word_len is None:
        max_word_len = max((len(w) for w in vocabulary), default=1)
    tokens: list[str] = []
    for chunk in text.split():
        i = 0
        while i < len(chunk):
            end = _run_end(chunk, i)
            if end == i:  # the longest vocabulary word starting here, else one character
                end = next(
                    (j for j in range(min(len(chunk), i + max_word_len), i + 1, -1) if chunk[i:j] in vocabulary), i + 1
                )
            tokens.append(chunk[i:end])
            i = end
    return Segmentation(tokens, [tok not in vocabulary for tok in tokens])
