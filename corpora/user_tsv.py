"""Validation of an uploaded file of sentence pairs in the Tatoeba format, row by row.

``source<TAB>target[<TAB>attribution]``, any language pair, one pair per line. Unlike
:func:`corpora.tatoeba.load_tatoeba` (which stops at the first bad line), every line is judged and
the bad ones are listed with their line numbers, so a user can fix a file in one pass: a line
without a tab, an empty side, a line that is not UTF-8 (a file saved in mixed encodings). A file
that is binary (a NUL byte), empty, over :data:`MAX_BYTES`, or has fewer than :data:`MIN_PAIRS`
good pairs is refused as a whole with :class:`~corpora.text.CorpusFormatError`.
"""
from __future__ import annotations

from dataclasses import dataclass

from corpora.text import CorpusFormatError, tokenize

MAX_BYTES = 20_000_000  # an upload over this is refused before it is read line by line
MIN_PAIRS = 20  # fewer good pairs than this cannot train anything
MAX_PROBLEMS = 20  # bad lines listed by number; the rest are counted

TokenPair = tuple[tuple[str, ...], tuple[str, ...]]


@dataclass(frozen=True)
class TsvCheck:
    """The usable pairs of a file, the messages about its bad lines, and how many lines were bad."""

    pairs: list[TokenPair]
    problems: list[str]
    n_bad: int


def _row(line: bytes) -> TokenPair | str:
    """One line → its token pair, or why it is unusable."""
    try:
        text = line.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return "not valid UTF-8 (save the file as UTF-8)"
    fields = text.rstrip("\r").split("\t")
    if len(fields) < 2:
        return "no tab between the two sentences"
    src, tgt = tokenize(fields[0]), tokenize(fields[1])
    if not src or not tgt:
        return f"the {'first' if not src else 'second'} sentence is empty"
    return tuple(src), tuple(tgt)


def check_tsv(data: bytes, name: str = "the file", max_bytes: int = MAX_BYTES) -> TsvCheck:
    """Judge every line of ``data``; raise CorpusFormatError when the file as a whole is unusable."""
    if len(data) > max_bytes:
        raise CorpusFormatError(f"{name}: {len(data) / 1e6:.1f} MB is over the limit of {max_bytes / 1e6:.0f} MB")
    if not data.strip():
        raise CorpusFormatError(f"{name}: empty, no sentence pairs found")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise CorpusFormatError(f"{name}: line {line}: binary data (NUL byte), not a text file")
    pairs: list[TokenPair] = []
    problems: list[str] = []
    n_bad = 0
    for number, line in enumerate(data.replace(b"\r\n", b"\n").split(b"\n"), start=1):
        if not line.strip():
            continue
        row = _row(line)
        if isinstance(row, str):
            n_bad += 1
            if len(problems) < MAX_PROBLEMS:
                problems.append(f"line {number}: {row}")
        else:
            pairs.append(row)
    if len(pairs) < MIN_PAIRS:
        first = f" ({problems[0]})" if problems else ""
        raise CorpusFormatError(f"{name}: {len(pairs)} usable sentence pairs, at least {MIN_PAIRS} are needed"
                                f"{first}")
    return TsvCheck(pairs, problems, n_bad)
