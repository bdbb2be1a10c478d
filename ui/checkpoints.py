"""Checkpoint pickers and loading shared by every model page: one label rule, one error message."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from models.checkpoints import CheckpointError, read_config

T = TypeVar("T")


def labelled(names: Iterable[str]) -> list[tuple[str, str]]:
    """(checkpoint name, display label from its config.json); unreadable ones stay listed and marked."""
    out = []
    for name in names:
        try:
            out.append((name, read_config(name).get("training", {}).get("label", name)))
        except CheckpointError:
            out.append((name, f"{name} (unreadable)"))
    return out


def load_or_message(load: Callable[[str], T], name: str, hint: str = "") -> T | str:
    """``load(name)`` (a cached loader), or a one-line message naming the bad file."""
    try:
        return load(name)
    except CheckpointError as exc:
        return f"Cannot load model “{name}”: {exc}{hint}"
