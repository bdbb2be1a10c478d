"""Loader for user-supplied Tatoeba-style sentence pairs (the command line's ``--data FILE``).

The format is the one of the Tatoeba / manythings.org downloads: one pair per line,
``english<TAB>french[<TAB>attribution]``, UTF-8 (a byte-order mark is tolerated). Blank lines are
skipped. Every line is judged by the lab's one reader of pair files, :func:`corpora.user_tsv.check_tsv`
(the Training studio's too); a file with bad lines is refused with every one of them listed (the first
:data:`~corpora.user_tsv.MAX_PROBLEMS` by number, then how many more), so it can be fixed in one pass.
The pairs carry no gold alignment. Nothing is downloaded: the user gives a path, the text, or an
uploaded file's bytes.
"""

from __future__ import annotations

import os

from corpora.en_fr import Pair
from corpora.text import CorpusFormatError, read_user_file
from corpora.user_tsv import check_tsv

__all__ = ["CorpusFormatError", "load_tatoeba"]

NO_LIMIT = 1 << 62  # a file on the user's own machine: no size cap (the studio's uploads have one)


def load_tatoeba(
    path_or_text: str | bytes | os.PathLike, max_pairs: int | None = None, *, name: str | None = None
) -> list[Pair]:
    """Read ``english<TAB>french[<TAB>attribution]`` lines into pairs (no alignment).

    ``path_or_text`` is a path (``str`` without tab or newline, or ``PathLike``), the text
    itself (a ``str`` with a tab or newline), or ``bytes`` such as an uploaded file's contents;
    ``name`` replaces the file name in error messages. At most ``max_pairs`` pairs are kept.
    Raises :class:`CorpusFormatError` naming the file and every bad line (no tab, an empty side,
    not UTF-8), for a binary or empty file, and for a missing file."""
    if max_pairs is not None and max_pairs < 0:
        raise ValueError(f"max_pairs must be >= 0, not {max_pairs}")
    raw, label = read_user_file(path_or_text, name)
    data = raw if isinstance(raw, bytes) else raw.encode("utf-8")
    found = check_tsv(data, label, max_bytes=NO_LIMIT, min_pairs=1)
    if found.bad_lines:
        more = found.n_bad - len(found.bad_lines)
        raise CorpusFormatError(f"{label}: " + "; ".join(found.problems) + (f"; and {more} more" if more else ""))
    pairs = [Pair(src, tgt, ()) for src, tgt in found.pairs]
    return pairs if max_pairs is None else pairs[:max_pairs]
