"""Loader for user-supplied Tatoeba-style sentence pairs.

The format is the one of the Tatoeba / manythings.org downloads: one pair per line,
``english<TAB>french[<TAB>attribution]``, UTF-8 (a byte-order mark is tolerated). Blank lines
are skipped. Both sides go through :func:`corpora.text.tokenize`; the pairs carry no gold
alignment. Nothing is downloaded: the user gives a path, the text, or an uploaded file's bytes.
"""
from __future__ import annotations

import os

from corpora.en_fr import Pair
from corpora.text import CorpusFormatError, decode_text, read_user_file, tokenize

__all__ = ["CorpusFormatError", "load_tatoeba"]

def load_tatoeba(path_or_text: str | bytes | os.PathLike, max_pairs: int | None = None, *,
                 name: str | None = None) -> list[Pair]:
    """Read ``english<TAB>french[<TAB>attribution]`` lines into pairs (no alignment).

    ``path_or_text`` is a path (``str`` without tab or newline, or ``PathLike``), the text
    itself (a ``str`` with a tab or newline), or ``bytes`` such as an uploaded file's contents;
    ``name`` replaces the file name in error messages. Reading stops after ``max_pairs``
    pairs. Raises :class:`CorpusFormatError` for a line without a tab or with an empty side,
    for a binary, non-UTF-8 or empty file, and for a missing file."""
    if max_pairs is not None and max_pairs < 0:
        raise ValueError(f"max_pairs must be >= 0, not {max_pairs}")
    raw, label = read_user_file(path_or_text, name)
    text = decode_text(raw, label) if isinstance(raw, bytes) else raw.removeprefix("\ufeff")
    pairs: list[Pair] = []
    if max_pairs == 0:
        return pairs
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < 2:
            raise CorpusFormatError(f"{label}: line {number}: no tab between English and French")
        src, tgt = tokenize(fields[0]), tokenize(fields[1])
        if not src or not tgt:
            side = "English" if not src else "French"
            raise CorpusFormatError(f"{label}: line {number}: empty {side} side")
        pairs.append(Pair(tuple(src), tuple(tgt), ()))
        if max_pairs is not None and len(pairs) >= max_pairs:
            break
    if not pairs:
        raise CorpusFormatError(f"{label}: empty, no sentence pairs found")
    return pairs
