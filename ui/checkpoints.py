"""Checkpoint pickers and loading shared by every model page: one label rule, one error message."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

import streamlit as st

from models.checkpoints import CheckpointError, read_config
from models.errors import without_paths
from ui.i18n import tr
from ui.state import labels as url_labels, linked, url_check
from ui.strings import STRINGS

T = TypeVar("T")
F = TypeVar("F", bound=Callable)

#: Loaded models a server keeps per family (shipped and studio runs together; the least recently used
#: goes first): each studio run opened holds its model until evicted or deleted.
MAX_LOADED = 16
_LOADERS: list = []  # the families' cached loaders (:func:`cached_loader`)


def cached_loader(load: F) -> F:
    """A family's checkpoint loader as a bounded ``st.cache_resource`` (at most :data:`MAX_LOADED`
    models), registered so that :func:`release` frees a deleted run's model."""
    cached = st.cache_resource(show_spinner=False, max_entries=MAX_LOADED)(load)
    _LOADERS.append(cached)
    return cached  # type: ignore[return-value]


def release(path: str) -> None:
    """Forget the model loaded from checkpoint folder ``path`` in every family (its run was deleted)."""
    for cached in _LOADERS:
        cached.clear(path)


def label_of(name: str, label: str) -> str:
    """A checkpoint's config label in the reader's language: the table's (id ``ckpt.label.<name>``)
    when its English is this very label, else the label as the config gives it."""
    key = f"ckpt.label.{name}"
    return tr(key) if key in STRINGS and STRINGS[key][0] == label else label


def labelled(names: Iterable[str]) -> list[tuple[str, str]]:
    """(checkpoint name, display label from its config.json, in the reader's language); unreadable
    ones stay listed and marked. A cached caller keys its cache on the language."""
    out = []
    for name in names:
        try:
            out.append((name, label_of(name, read_config(name).get("training", {}).get("label", name))))
        except CheckpointError:
            out.append((name, tr("ckpt.unreadable", name=name)))
    return out


def load_or_message(load: Callable[[str], T], name: str, hint: str = "") -> T | str:
    """``load(name)`` (a cached loader), or a one-line message naming the bad file."""
    try:
        return load(name)
    except CheckpointError as exc:
        # the message names the file, not where the server keeps it; its text is the lab's own (folder and
        # file names of the shipped models and of studio runs, whose names are ids), never a student's
        return tr("ckpt.cannot_load", name=without_paths(name), error=without_paths(str(exc))) + hint


def loaded_or_stop(result: T | str) -> T:
    """A page's model from :func:`load_or_message`: the model, or its one-line message shown as an
    error and the page run stopped there."""
    if isinstance(result, str):
        st.error(result)
        st.stop()
    return result


def checkpoint_picker(
    choices: Sequence[tuple[str, str]], key: str, label: str, help: str | None = None, follow: Sequence[str] = ()
) -> str:
    """A model selectbox over (checkpoint, display label) ``choices`` (the shipped one first, then the
    studio's runs), kept in the URL by its label; a link or a kept value naming no listed model (a
    deleted run, another session's) falls back to the first with a notice. The widgets ``follow``
    (sizes, K …) go back to the new model's defaults when the choice changes. Returns the checkpoint."""
    names = dict(choices)
    url_check(key, url_labels(names, names.get), label)
    return linked(
        st.selectbox, label, list(names), format_func=names.get, key=key, help=help, on_change=_forget, args=(follow,)
    )


def _forget(keys: Sequence[str]) -> None:
    for key in keys:
        st.session_state.pop(key, None)
