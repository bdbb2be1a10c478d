"""Validation of an uploaded file of sentence pairs in the Tatoeba format, row by row.

``source<TAB>target[<TAB>attribution]``, any language pair, one pair per line: the lab's one reader
of pair files (the studio's uploads here, the command line's files through
:func:`corpora.tatoeba.load_tatoeba`). Every line is judged and the bad ones are listed with their
line numbers, so a user can fix a file in one pass: a line
without a tab, an empty side, a line that is not UTF-8 (a file saved in mixed encodings). A file
that is binary (a NUL byte), empty, over :data:`MAX_BYTES`, or has fewer than :data:`MIN_PAIRS`
good pairs is refused as a whole with :class:`~corpora.text.CorpusFormatError`. Every message has an
id in :data:`MESSAGES` (the error's ``key``, and a bad line's reason), so the app can show it in
the reader's language.
"""

from __future__ import annotations

from dataclasses import dataclass

from corpora.text import CorpusFormatError, tokenize

MAX_BYTES = 20_000_000  # an upload over this is refused before it is read line by line
MIN_PAIRS = 20  # fewer good pairs than this cannot train anything
MAX_PROBLEMS = 20  # bad lines listed by number; the rest are counted
# The English of every message by id; ``reason`` is itself an id (why a line is left out). The app's
# string table holds each id with its 中文 (ui/strings/studio.py).
MESSAGES: dict[str, str] = {
    "tsv.too_big": "{name}: {mb:.1f} MB is over the limit of {limit:.0f} MB",
    "tsv.empty": "{name}: empty, no sentence pairs found",
    "tsv.binary": "{name}: line {line}: binary data (NUL byte), not a text file",
    "tsv.too_few": "{name}: {n} usable sentence pairs, at least {least} are needed",
    "tsv.too_few_at": "{name}: {n} usable sentence pairs, at least {least} are needed (line {line}: {reason})",
    "tsv.line": "line {line}: {reason}",
    "tsv.not_utf8": "not valid UTF-8 (save the file as UTF-8)",
    "tsv.no_tab": "no tab between the two sentences",
    "tsv.no_source": "the first sentence is empty",
    "tsv.no_target": "the second sentence is empty",
}

TokenPair = tuple[tuple[str, ...], tuple[str, ...]]


@dataclass(frozen=True)
class TsvCheck:
    """The usable pairs of a file, its first bad lines as (line number, reason id of :data:`MESSAGES`),
    and how many lines were bad."""

    pairs: list[TokenPair]
    bad_lines: list[tuple[int, str]]
    n_bad: int

    @property
    def problems(self) -> list[str]:
        """The bad lines in English: “line 3: no tab between the two sentences”."""
        return [message("tsv.line", line=line, reason=reason) for line, reason in self.bad_lines]


def message(key: str, **params: object) -> str:
    """The English of message ``key`` filled with ``params`` (a ``reason`` id is spelled out)."""
    if "reason" in params:
        params["reason"] = MESSAGES[str(params["reason"])]
    return MESSAGES[key].format(**params)


def _refuse(key: str, **params: object) -> CorpusFormatError:
    return CorpusFormatError(message(key, **params), key, params)


def _row(line: bytes) -> TokenPair | str:
    """One line → its token pair, or the id of why it is unusable."""
    try:
        text = line.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return "tsv.not_utf8"
    fields = text.rstrip("\r").split("\t")
    if len(fields) < 2:
        return "tsv.no_tab"
    src, tgt = tokenize(fields[0]), tokenize(fields[1])
    if not src or not tgt:
        return "tsv.no_source" if not src else "tsv.no_target"
    return tuple(src), tuple(tgt)


def check_tsv(data: bytes, name: str = "the file", max_bytes: int = MAX_BYTES, min_pairs: int = MIN_PAIRS) -> TsvCheck:
    """Judge every line of ``data``; raise CorpusFormatError when the file as a whole is unusable
    (over ``max_bytes``, empty, binary, fewer than ``min_pairs`` good pairs)."""
    if len(data) > max_bytes:
        raise _refuse("tsv.too_big", name=name, mb=len(data) / 1e6, limit=max_bytes / 1e6)
    if not data.strip():
        raise _refuse("tsv.empty", name=name)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise _refuse("tsv.binary", name=name, line=data.count(b"\n", 0, nul) + 1)
    pairs: list[TokenPair] = []
    bad_lines: list[tuple[int, str]] = []
    n_bad = 0
    for number, line in enumerate(data.replace(b"\r\n", b"\n").split(b"\n"), start=1):
        if not line.strip():
            continue
        row = _row(line)
        if isinstance(row, str):
            n_bad += 1
            if len(bad_lines) < MAX_PROBLEMS:
                bad_lines.append((number, row))
        else:
            pairs.append(row)
    if len(pairs) < min_pairs:
        if bad_lines:
            first_bad, reason = bad_lines[0]
            raise _refuse("tsv.too_few_at", name=name, n=len(pairs), least=min_pairs, line=first_bad, reason=reason)
        raise _refuse("tsv.too_few", name=name, n=len(pairs), least=min_pairs)
    return TsvCheck(pairs, bad_lines, n_bad)
