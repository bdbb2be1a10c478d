"""Loader for user-supplied Tatoeba-style sentence pairs.

The format is the one of the Tatoeba / manythings.org downloads: one pair per line,
``english<TAB>french[<TAB>attribution]``, UTF-8 (a byte-order mark is tolerated). Blank lines
are skipped. Both sides go through :func:`corpora.text.tokenize`; the pairs carry no gold
alignment. Nothing is downloaded: the user gives a path, the text, or an uploaded file's bytes.
"""
from __future__ import annotations

import os
from pathlib import Path

from corpora.en_fr import Pair
from corpora.text import tokenize

__all__ = ["CorpusFormatError", "load_tatoeba"]


class CorpusFormatError(ValueError):
    """A sentence-pair file that cannot be read; the message names the file and the line."""


def _read(path_or_text: str | bytes | os.PathLike, name: str | None) -> tuple[bytes | str, str]:
    """The raw contents and a display name for messages."""
    if isinstance(path_or_text, (bytes, bytearray, memoryview)):
        return bytes(path_or_text), name or "<uploaded bytes>"
    if isinstance(path_or_text, os.PathLike) or (
            isinstance(path_or_text, str) and "\t" not in path_or_text
            and "\n" not in path_or_text):
        path = Path(path_or_text)
        try:
            return path.read_bytes(), name or str(path)
        except FileNotFoundError:
            raise CorpusFormatError(f"{name or path}: no such file") from None
        except IsADirectoryError:
            raise CorpusFormatError(f"{name or path}: is a directory, not a file") from None
        except OSError as exc:
            raise CorpusFormatError(f"{name or path}: cannot be read ({exc.strerror})") from None
    if isinstance(path_or_text, str):
        return path_or_text, name or "<text>"
    raise TypeError(f"expected a path, str or bytes, not {type(path_or_text).__name__}")


def _decode(data: bytes, name: str) -> str:
    """UTF-8 text (BOM dropped); the first NUL byte or invalid sequence is an error."""
    nul = data.find(b"\x00")
    try:
        text = data.decode("utf-8-sig")
        bad = len(data)
    except UnicodeDecodeError as exc:
        text, bad = "", exc.start
    if 0 <= nul < bad:
        line = data.count(b"\n", 0, nul) + 1
        raise CorpusFormatError(f"{name}: line {line}: binary data (NUL byte), not a text file")
    if bad < len(data):
        line = data.count(b"\n", 0, bad) + 1
        raise CorpusFormatError(f"{name}: line {line}: not valid UTF-8")
    return text


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
    raw, label = _read(path_or_text, name)
    text = _decode(raw, label) if isinstance(raw, bytes) else raw.removeprefix("\ufeff")
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
