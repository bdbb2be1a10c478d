"""The one tokenizer of the lab, for English, French and whatever a user types.

Tokens are lowercase words and single punctuation marks. French elisions are their own
token with the apostrophe kept (``"l'homme"`` → ``["l'", "homme"]``, ``"qu'est-ce"`` →
``["qu'", "est-ce"]``); hyphenated words (``est-ce``) and other word-internal apostrophes
(``aujourd'hui``, ``don't``) stay one token. ``detokenize`` is the inverse for display:
``tokenize(detokenize(tokens)) == tokens`` for every corpus sentence.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

__all__ = ["ELISION_PREFIXES", "is_cjk", "normalize", "tokenize", "detokenize"]

#: Word starts that French elides before a vowel: l', n', qu', d', j', c', s', m', t'.
ELISION_PREFIXES: frozenset[str] = frozenset({"l", "n", "qu", "d", "j", "c", "s", "m", "t"})

# Typographic apostrophes and look-alikes that NFKC leaves alone.
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u00b4": "'", "\u2032": "'", "`": "'"})
# A word (letters/digits, inner hyphens or apostrophes, maybe a trailing apostrophe), or any
# other single non-space character.
_TOKEN_RE = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*'?|\S")
_NO_SPACE_BEFORE = frozenset({".", ",", "?", "!", ";", ":", ")", "]", "}", "%", "…"})
_NO_SPACE_AFTER = frozenset({"(", "[", "{"})


def _clean(text: str) -> str:
    """Drop control/format/unassigned characters; every kind of whitespace becomes a space."""
    out = []
    for ch in text:
        if ch.isspace():
            out.append(" ")
        elif unicodedata.category(ch)[0] != "C":
            out.append(ch)
    return "".join(out)


def _split_elisions(word: str, out: list[str]) -> None:
    """Append ``word`` to ``out``, splitting leading elisions and a stray trailing apostrophe."""
    while "'" in word:
        head, _, rest = word.partition("'")
        if head in ELISION_PREFIXES:
            out.append(head + "'")
            if not rest:
                return
            word = rest
        elif word.endswith("'") and word.count("'") == 1:
            # "dogs'" or a lone quote mark: the word (if any), then the apostrophe.
            if len(word) > 1:
                out.append(word[:-1])
            out.append("'")
            return
        else:
            break
    if word:
        out.append(word)


def normalize(text: object) -> str:
    """What the tokenizers read: ``text`` (non-str coerced, None → "") without lone surrogates and
    control characters, NFKC-normalised (full-width letters and punctuation → ASCII), apostrophes
    unified, whitespace → spaces, lowercased. Never raises."""
    if text is None:
        return ""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    elif not isinstance(text, str):
        text = str(text)
    # Lone surrogates would break normalisation and any later encoding: drop them first.
    text = "".join(ch for ch in text if not 0xD800 <= ord(ch) <= 0xDFFF)
    text = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
    return _clean(text).lower()


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lowercase tokens; never raises (non-str input is coerced)."""
    tokens: list[str] = []
    for match in _TOKEN_RE.finditer(normalize(text)):
        _split_elisions(match.group(), tokens)
    return tokens


def is_cjk(ch: str) -> bool:
    """A Chinese/Japanese character or CJK punctuation: written without spaces between words."""
    return bool(ch) and (
        "\u3000" <= ch <= "\u303f"
        or "\u3400" <= ch <= "\u9fff"
        or "\uf900" <= ch <= "\ufaff"
        or "\uff00" <= ch <= "\uffef"
    )


def detokenize(tokens: list[str]) -> str:
    """Join tokens for display: elisions glued to the next word, no space before . , ? ! etc., none
    between two Chinese words."""
    parts: list[str] = []
    glue = True  # no space before the first token
    for tok in tokens:
        tok = str(tok)
        if not glue and tok not in _NO_SPACE_BEFORE and not (is_cjk(tok[:1]) and parts and is_cjk(parts[-1][-1:])):
            parts.append(" ")
        parts.append(tok)
        glue = tok in _NO_SPACE_AFTER or (len(tok) > 1 and tok.endswith("'") and tok[:-1] in ELISION_PREFIXES)
    return "".join(parts)


class CorpusFormatError(ValueError):
    """A user's file that cannot be read; the message names the file (and the line). Where ``key``
    is set, it is the message's id (its English template in a module's ``MESSAGES``, e.g.
    :data:`corpora.user_tsv.MESSAGES`) and ``params`` fill it, so an interface can say the same in
    another language."""

    def __init__(self, message: str, key: str | None = None, params: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.key, self.params = key, dict(params or {})


def read_user_file(path_or_text: str | bytes | os.PathLike, name: str | None) -> tuple[bytes | str, str]:
    """The raw contents of a user's file (a path, the text itself, or uploaded bytes) and a
    display name for messages; a missing or unreadable file is a :class:`CorpusFormatError`."""
    if isinstance(path_or_text, (bytes, bytearray, memoryview)):
        return bytes(path_or_text), name or "<uploaded bytes>"
    if isinstance(path_or_text, os.PathLike) or (
        isinstance(path_or_text, str) and "\t" not in path_or_text and "\n" not in path_or_text
    ):
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


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 text (BOM dropped); the first NUL byte or invalid sequence is an error naming its line."""
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
