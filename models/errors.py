"""The one base of the messages models/ raises for a person to read (no torch, no streamlit).

A :class:`KeyedError` keeps its English text as ``str(exc)`` (the command line prints it) and
carries the id of the same message in the interface's string table (ui/strings/messages.py) with
its fields, so that a page shows it in the reader's language (ui.tokens.input_error). The table's
English, formatted with the fields, is the exception's own text (tests/test_model_messages.py).
"""

from __future__ import annotations

import re

__all__ = ["KeyedError", "Count", "without_paths"]

_ABSOLUTE = re.compile(r"(?<![\w.~:/…])(?:/[^\s/:'\"`]+){2,}/?")


def without_paths(text: str) -> str:
    """``text`` with every absolute path shortened to its last two parts (``…/run-id/checkpoint``): a
    message a student reads names the file, never where the server keeps it."""
    return _ABSOLUTE.sub(lambda m: "…/" + "/".join(m.group(0).rstrip("/").split("/")[-2:]), str(text))


class KeyedError(Exception):
    """A message with ``key`` (its string id, "" when it has no translation) and ``params`` (the
    fields both languages format: numbers, names, exception class names)."""

    def __init__(self, message: str, key: str = "", **params: object) -> None:
        super().__init__(message)
        self.key = key
        self.params = params


class Count(int):
    """A whole number that a message can write in words: format spec ``words`` gives English scale
    words to one decimal ("22.6 million", "1.5 billion"); any other spec is int's own ("{n:,}")."""

    def __format__(self, spec: str) -> str:
        if spec != "words":
            return int.__format__(self, spec)
        for unit, scale in (("billion", 1e9), ("million", 1e6), ("thousand", 1e3)):
            if self >= scale:
                return f"{self / scale:,.1f} {unit}"
        return f"{int(self):,}"
