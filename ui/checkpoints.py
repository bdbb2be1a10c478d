"""Checkpoint pickers and loading shared by every model page: one label rule, one error message."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from models.checkpoints import CheckpointError, read_config
from ui.i18n import t
from ui.strings import STRINGS

T = TypeVar("T")


def label_of(name: str, label: str) -> str:
    """A checkpoint's config label in the reader's language: the table's (id ``ckpt.label.<name>``)
    when its English is this very label, else the label as the config gives it."""
    key = f"ckpt.label.{name}"
    return t(key) if key in STRINGS and STRINGS[key][0] == label else label


def labelled(names: Iterable[str]) -> list[tuple[str, str]]:
    """(checkpoint name, display label from its config.json, in the reader's language); unreadable
    ones stay listed and marked. A cached caller keys its cache on the language."""
    out = []
    for name in names:
        try:
            out.append((name, label_of(name, read_config(name).get("training", {}).get("label", name))))
        except CheckpointError:
            out.append((name, t("ckpt.unreadable", name=name)))
    return out


def load_or_message(load: Callable[[str], T], name: str, hint: str = "") -> T | str:
    """``load(name)`` (a cached loader), or a one-line message naming the bad file."""
    try:
        return load(name)
    except CheckpointError as exc:
        return t("ckpt.cannot_load", name=name, error=exc) + hint
