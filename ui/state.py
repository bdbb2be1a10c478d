"""Session-state helpers shared by the pages' widgets, and the address bar's checks.

Shareable state: a widget with ``key=...`` and ``bind="query-params"`` keeps its value in the URL
under its key (Streamlit 1.67). What Streamlit writes there is the option's *label* (the
``format_func`` text) for selectbox/radio/segmented_control/pills, the number for sliders and
number inputs, ``true``/``false`` for toggles, the text for text inputs; a value equal to the
default is left out. On the page's first run Streamlit seeds the widget from the URL and
silently drops a value it cannot use (unknown option, number out of range, not a boolean),
clamps decimals to the widget's type and cuts text to ``max_chars``. :func:`url_check` runs
before such a widget is first drawn and says in one line when the link's value is not used.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

import streamlit as st

from ui.tokens import md_escape

_SHOWN = 40  # characters of a rejected URL value quoted in the notice


def increment(key: str) -> None:
    """Widget callback: add 1 to the integer under ``key`` in the session state (0 when unset)."""
    st.session_state[key] = int(st.session_state.get(key, 0)) + 1


def url_value(key: str) -> list[str] | None:
    """The link's raw values for a widget ``key`` on the widget's first run on this page (None
    when the URL has none or the widget already has a value in this session)."""
    if key in st.session_state:
        return None
    try:
        values = st.query_params.get_all(key)
    except Exception:  # noqa: BLE001  (a malformed address bar is never an error)
        return None
    return values or None


def quoted(raw: str) -> str:
    """A URL value as a notice may quote it: shortened, control characters shown as �, escaped."""
    text = "".join("�" if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") else c for c in raw[:_SHOWN])
    return md_escape(text + ("…" if len(raw) > _SHOWN else ""))


def url_notice(what: str, raw: str, instead: str = "the default") -> None:
    """The one-line notice for a link value that is not used as given."""
    st.info(f"The link's {what} “{quoted(raw)}” is not available here, so this shows {instead}.",
            icon=":material/link_off:")


Accept = Callable[[str], bool] | Collection[str]


def url_check(key: str, accept: Accept, what: str, instead: str = "the default") -> str | None:
    """Before a widget bound to the URL under ``key`` is first drawn: when the link gives it a
    value that ``accept`` (the allowed URL strings, or a predicate) refuses, show one notice.
    Returns the accepted raw value (or None). Every value of a multi-valued key must pass."""
    values = url_value(key)
    if values is None:
        return None
    for raw in values:
        try:
            ok = accept(raw) if callable(accept) else raw in accept
        except (ValueError, TypeError, OverflowError):
            ok = False
        if not ok:
            url_notice(what, raw, instead)
            return None
    return values[-1]


def labels(options: Iterable[Any], format_func: Callable[[Any], Any] = str) -> set[str]:
    """The URL strings of a selectbox/radio/segmented control/pills: its options' labels."""
    return {str(format_func(o)) for o in options}


def number_in(low: float, high: float) -> Callable[[str], bool]:
    """Accept a number from ``low`` to ``high`` (a slider's or number input's range)."""
    def accept(raw: str) -> bool:
        value = float(raw)
        return low <= value <= high
    return accept


def at_most(n_chars: int) -> Callable[[str], bool]:
    """Accept a text of at most ``n_chars`` characters (a text widget's ``max_chars``)."""
    return lambda raw: len(raw) <= n_chars


def boolean(raw: str) -> bool:
    """Accept a toggle's or checkbox's URL value (true/false in any case)."""
    return raw.lower() in ("true", "false")


def topic_tabs(titles: Sequence[str], sections: Sequence[Callable[[], None]]) -> None:
    """A page's tabs, the open one kept in the URL (``?topic=…``, a refused value falls back with a
    notice); only the open tab's section runs."""
    url_check("topic", list(titles), "topic", f"“{titles[0]}”")
    tabs = st.tabs(list(titles), key="topic", bind="query-params")
    for tab, section in zip(tabs, sections):
        with tab:
            if tab.open is not False:
                section()
