"""Session-state helpers shared by the pages' widgets, and the address bar's checks.

Shareable state: a widget with ``key=...`` and ``bind="query-params"`` keeps its value in the URL
under its key (Streamlit 1.67). What Streamlit writes there is the option's *label* (the
``format_func`` text) for selectbox/radio/segmented_control/pills, the number for sliders and
number inputs, ``true``/``false`` for toggles, the text for text inputs; a value equal to the
default is left out. On the page's first run Streamlit seeds the widget from the URL and
silently drops a value it cannot use (unknown option, number out of range, not a boolean),
clamps decimals to the widget's type and cuts text to ``max_chars``. :func:`url_check` runs
before such a widget is first drawn and says in one line when the link's value is not used.

Widget state is not trusted either: a stale session, code or a test harness can leave any value
under a widget's key (NaN, a list, a 10,000-character text …), which Streamlit's widgets and the
pages' arithmetic do not survive. The same :func:`url_check` call, made before every widget (bound
to the URL or not, ``url=False``), checks the session state's value against the widget's options,
range and type, and falls back to the default with a notice; :func:`checked` draws a widget
after that check, reading the options, range and type off the widget's own arguments.
"""

from __future__ import annotations

import inspect
import math
import sys
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, TypeVar

import streamlit as st

from ui.i18n import LANGUAGES, reading, tr, text
from ui.tokens import md_escape

_SHOWN = 40  # characters of a rejected URL value quoted in the notice
T = TypeVar("T")


def use_example(example_key: str, text_key: str) -> Callable[[], None]:
    """An ``on_change`` callback for an examples box: the example chosen under ``example_key`` becomes
    the text under ``text_key`` (clearing the choice leaves the text as it is)."""

    def copy() -> None:
        chosen = st.session_state.get(example_key)
        if chosen:
            st.session_state[text_key] = chosen

    return copy


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


_NOTICES = "state_link_notices"  # session key: the link notices of the page's last run


def url_notice(what: str, raw: str, instead: str | None = None) -> None:
    """The one-line notice for a link value that is not used as given (``instead``: what is shown,
    the default when None), in the reader's language; kept for :func:`replay_notices`."""
    message = tr("state.notice", what=what, raw=quoted(raw), instead=instead or tr("state.default"))
    notices = st.session_state.get(_NOTICES)
    if isinstance(notices, list) and len(notices) < 50:
        notices.append(message)
    st.info(message, icon=":material/link_off:")


def replay_notices(again: bool) -> None:
    """At the start of a page's run: when ``again`` (a rerun that no reader asked for, such as the
    browser handing back its deck right after the page opened), show the last run's link notices once
    more, since the link's values are used by now and would not be named again; else forget them."""
    notices = st.session_state.get(_NOTICES)
    if again and isinstance(notices, list):
        for message in notices:
            st.info(message, icon=":material/link_off:")
    else:
        st.session_state[_NOTICES] = []


@dataclass(frozen=True)
class Accept:
    """What a setting accepts: ``value(v)`` judges a value found in the session state (left there by
    a stale session, by code or by a test harness), ``url(raw)`` the link's text."""

    value: Callable[[Any], bool]
    url: Callable[[str], bool] = lambda raw: False  # a setting the link never holds


def url_check(
    key: str,
    accept: Accept | Callable[[str], bool] | Collection[str],
    what: str,
    instead: str | None = None,
    *,
    url: bool = True,
) -> str | None:
    """Before the widget ``key`` is drawn, check its value wherever it comes from; a refused value
    falls back with one notice (``what`` names the setting):

    - the session state's value, when ``accept.value`` refuses it (NaN, ±inf, a wrong type, an
      unknown option, a text over the limit, a number out of range), is removed, so that the
      widget shows its default;
    - on the widget's first run, a value from the link (``url``: the widget is bound to the URL)
      that ``accept.url`` refuses is named (Streamlit drops it; ``instead``: what shows instead).

    ``accept`` may also be the allowed URL texts or a predicate on them: then only the link is
    checked. Returns the accepted raw URL value (or None). Every value of a multi-valued key must
    pass."""
    if not isinstance(accept, Accept):
        accept = Accept(lambda value: True, accept if callable(accept) else accept.__contains__)
    if key in st.session_state:
        value = st.session_state[key]
        if not _passes(accept.value, value):
            del st.session_state[key]
            st.info(
                tr(
                    "state.session_notice",
                    what=what,
                    raw=quoted(value if isinstance(value, str) else repr(value)),
                    instead=tr("state.default"),
                ),
                icon=":material/settings_backup_restore:",
            )
        return None
    values = url_value(key) if url else None
    if values is None:
        return None
    refused = [raw for raw in values if not _passes(accept.url, raw)]
    if refused:
        url_notice(what, refused[0], instead)
        _keep_in_link(key, [raw for raw in values if raw not in refused])
        return None
    return values[-1]


def _keep_in_link(key: str, values: list[str]) -> None:
    """Leave only ``values`` of ``key`` in the address bar: a refused value is named once, and the
    widget drawn next finds the link's other values (a multiselect's accepted options) or none."""
    try:
        if values:
            st.query_params[key] = values if len(values) > 1 else values[0]
        else:
            del st.query_params[key]
    except Exception:  # noqa: BLE001  (a widget already bound to it: Streamlit drops it itself)
        pass


def link_option(
    key: str,
    options: Iterable[Any],
    format_func: Callable[[Any], Any] = str,
    what: str = "",
    instead: str | None = None,
    optional: bool = False,
) -> tuple[bool, Any]:
    """(found, option) that the link names for the option widget ``key``, on the widget's first run
    (:func:`url_check` names a refused value once); (False, None) when the link names none."""
    options = list(options)
    raw = url_check(key, labels(options, format_func, optional), what, instead)
    return (False, None) if raw is None else option_of(raw, options + ([None] if optional else []), format_func)


def _passes(check: Callable[[Any], bool], value: Any) -> bool:
    """``check(value)``, False when the value makes the check itself fail (a hostile type)."""
    try:
        return bool(check(value))
    except (ValueError, TypeError, OverflowError, AttributeError):
        return False


def _same(value: Any, option: Any) -> bool:
    """``value`` is ``option``: equal and of the same type (True is not the option 1)."""
    return type(value) is type(option) and value == option


def link_text(option: Any) -> str:
    """An option as a link writes it: its value, never its label, so that the link reads the same
    in every language (``True`` → ``true``, ``None`` → the empty text, 3 → ``3``)."""
    if option is None:
        return ""
    if isinstance(option, bool):
        return "true" if option else "false"
    return str(option)


def _labels_in_every_language(option: Any, format_func: Callable[[Any], Any]) -> set[str]:
    """``option``'s label in each language (a ``format_func`` that translates as it is called)."""
    names = set()
    for lang in LANGUAGES:
        with reading(lang):
            try:
                names.add(str(format_func(option)))
            except Exception:  # noqa: BLE001  (a label that cannot be made is no match)
                continue
    return names


def option_of(raw: str, options: Iterable[Any], format_func: Callable[[Any], Any] = str) -> tuple[bool, Any]:
    """(found, option) for a link's text: the option whose value it is (:func:`link_text`); for a link
    made before links held values, the option whose label it is in any language."""
    options = list(options)
    for option in options:
        if link_text(option) == raw:
            return True, option
    for option in options:
        if option is not None and raw in _labels_in_every_language(option, format_func):
            return True, option
    return False, None


def labels(options: Iterable[Any], format_func: Callable[[Any], Any] = str, optional: bool = False) -> Accept:
    """A selectbox, radio, segmented control, select slider or tabs over ``options``: the link
    holds an option's value (:func:`link_text`; an older link its label, in any language), the
    session state the option itself, or None when the widget may be left empty (``optional``:
    ``index=None``, a segmented control or pills that are not ``required``)."""
    options = list(options) + ([None] if optional else [])
    return Accept(
        lambda value: any(_same(value, o) for o in options), lambda raw: option_of(raw, options, format_func)[0]
    )


def many(options: Iterable[Any], format_func: Callable[[Any], Any] = str) -> Accept:
    """A multiselect or multi-selection pills over ``options``: a list of distinct options (each
    of the link's values is one option's label)."""
    one = labels(options, format_func)
    return Accept(
        lambda value: (
            isinstance(value, (list, tuple))
            and all(map(one.value, value))
            and len({repr(v) for v in value}) == len(value)
        ),
        one.url,
    )


def number_in(low: float, high: float) -> Accept:
    """A slider or number input from ``low`` to ``high``: a finite number in the range, a whole
    one when both bounds are ints (Streamlit types the widget by its bounds the same way)."""
    number_type = Integral if isinstance(low, int) and isinstance(high, int) else Real
    return Accept(
        lambda value: (
            isinstance(value, number_type)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and low <= value <= high
        ),
        lambda raw: low <= float(raw) <= high,
    )


def at_most(n_chars: int) -> Accept:
    """A text widget with ``max_chars=n_chars``: a text of at most ``n_chars`` characters."""
    return Accept(lambda value: isinstance(value, str) and len(value) <= n_chars, lambda raw: len(raw) <= n_chars)


# A toggle or checkbox: true/false (any case) in the link, a bool in the session state.
boolean = Accept(lambda value: isinstance(value, bool), lambda raw: raw.lower() in ("true", "false"))


def accepts(widget_type: str, arguments: Mapping[str, Any]) -> Accept:
    """What a widget of type ``widget_type`` ("slider", "selectbox" …) accepts, read off its call's
    ``arguments``: its range, its options (and whether it may be empty), ``max_chars``, or bool."""
    if widget_type in ("slider", "number_input"):
        low, high = arguments.get("min_value"), arguments.get("max_value")
        return number_in(-math.inf if low is None else low, math.inf if high is None else high)
    if widget_type in ("text_area", "text_input"):
        return at_most(arguments.get("max_chars") or sys.maxsize)
    if widget_type in ("toggle", "checkbox"):
        return boolean
    format_func = arguments.get("format_func") or str
    if widget_type == "multiselect" or arguments.get("selection_mode") == "multi":
        return many(arguments["options"], format_func)
    optional = (
        arguments.get("index", 0) is None
        if widget_type in ("selectbox", "radio")
        else widget_type in ("segmented_control", "pills") and not arguments.get("required")
    )
    return labels(arguments["options"], format_func, optional)


def checked(draw: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Draw a widget, ``draw(*args, **kwargs)`` (``st.slider``, ``column.selectbox`` …), after
    :func:`url_check` has checked its value in the session state, and in the link when it is bound
    to the URL, against what its own arguments allow (:func:`accepts`); the notice names it by its
    label. ``checked(st.slider, "Points", 10, 100, 50, key="n")`` is ``st.slider("Points", 10, 100,
    50, key="n")`` with a checked value."""
    arguments = inspect.signature(draw).bind(*args, **kwargs).arguments
    url_check(
        arguments["key"],
        accepts(draw.__name__, arguments),
        str(arguments["label"]),
        url=arguments.get("bind") == "query-params",
    )
    return draw(*args, **kwargs)


OPTION_WIDGETS = frozenset({"selectbox", "radio", "segmented_control", "pills", "select_slider", "multiselect"})
_DEFAULT_ARG = {"selectbox": "index", "radio": "index", "select_slider": "value"}  # the others: "default"


def _default_option(widget_type: str, arguments: Mapping[str, Any], options: Sequence[Any], multi: bool) -> Any:
    """The option an option widget shows when nothing chose another (its ``index``/``value``/``default``)."""
    if widget_type in ("selectbox", "radio"):
        index = arguments.get("index", 0)
        return None if index is None else options[index]
    if widget_type == "select_slider":
        value = arguments.get("value")
        return options[0] if value is None else value
    default = arguments.get("default")
    if multi:
        return [] if default is None else list(default) if isinstance(default, (list, tuple)) else [default]
    return default


def _from_link(
    raws: list[str], options: Sequence[Any], format_func: Callable[[Any], Any], multi: bool, optional: bool
) -> tuple[bool, Any]:
    """(found, the option or options) that the link's texts for one widget name."""
    if multi:
        chosen = []
        for raw in raws:
            if raw == "":
                continue
            found, option = option_of(raw, options, format_func)
            if not found:
                return False, raw
            chosen.append(option)
        return True, chosen
    raw = raws[-1]
    if raw == "" and optional:
        return True, None
    found, option = option_of(raw, options, format_func)
    return (True, option) if found else (False, raw)


def linked(draw: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Draw a widget whose value the link keeps under its key, after :func:`checked`'s checks.

    An option widget (selectbox, radio, segmented control, pills, select slider, multiselect) keeps
    the option's *value* in the link (:func:`link_text`), never its label, read on the widget's
    first run and written after every run (left out when it is the default): a link made in
    English opens the same view in 中文 and back. A link made before links held values (an option's
    label, in either language) still opens; a text that names no option is named in one notice.
    Other widgets (sliders, number inputs, toggles, text) keep plain values, language-free
    already: Streamlit's own ``bind="query-params"`` keeps them."""
    widget_type = draw.__name__
    if widget_type not in OPTION_WIDGETS:
        return checked(draw, *args, bind="query-params", **kwargs)
    bound = inspect.signature(draw).bind(*args, **kwargs)
    arguments = bound.arguments
    key = str(arguments["key"])
    options = list(arguments["options"])
    format_func = arguments.get("format_func") or str
    multi = widget_type == "multiselect" or arguments.get("selection_mode") == "multi"
    optional = (
        arguments.get("index", 0) is None
        if widget_type in ("selectbox", "radio")
        else widget_type in ("segmented_control", "pills") and not arguments.get("required")
    )
    url_check(key, accepts(widget_type, arguments), str(arguments["label"]), url=False)
    default = _default_option(widget_type, arguments, options, multi)
    if key not in st.session_state and key in st.query_params:
        found, chosen = _from_link(st.query_params.get_all(key), options, format_func, multi, optional)
        if not found:
            url_notice(str(arguments["label"]), chosen)
        elif widget_type in ("selectbox", "radio"):
            arguments["index"] = None if chosen is None else options.index(chosen)
        else:
            arguments[_DEFAULT_ARG.get(widget_type, "default")] = chosen
    value = draw(*bound.args, **bound.kwargs)
    _write_link(key, value, default, multi)
    return value


def _write_link(key: str, value: Any, default: Any, multi: bool) -> None:
    """Keep ``value`` in the link under ``key`` (as values), or leave it out when it is ``default``."""
    is_default = list(value or []) == default if multi else (_same(value, default) or value == default)
    if is_default:
        if key in st.query_params:
            del st.query_params[key]
        return
    texts = ([link_text(v) for v in value] or [""]) if multi else [link_text(value)]
    if st.query_params.get_all(key) != texts:
        st.query_params[key] = texts if len(texts) > 1 else texts[0]


def topic_name(title_id: str) -> str:
    """A tab's name in the link: the last part of its title's string id (``llm_explorer.tab.heads`` → ``heads``)."""
    return title_id.rsplit(".", 1)[-1]


def topic_of(raw: str, title_ids: Sequence[str]) -> int | None:
    """The index of the tab a link's ``?topic=`` names: its name (:func:`topic_name`), or, in a link
    made before links held names, its title in any language; None when it names none."""
    for i, title_id in enumerate(title_ids):
        if raw == topic_name(title_id) or raw in {text(title_id, lang) for lang in LANGUAGES}:
            return i
    return None


def topic_tabs(title_ids: Sequence[str], sections: Sequence[Callable[[], None]]) -> str:
    """A page's tabs (``title_ids``: their titles' string ids), the open one kept in the link by name
    (``?topic=heads``: the same link in every language; a refused value falls back with a notice);
    only the open tab's section runs, as a fragment: its own widgets rerun it alone (a section whose
    widget changes what the page computed above it calls ``st.rerun()``). Returns the open tab's title id."""
    titles = [tr(i) for i in title_ids]
    index = None
    shown = st.session_state.get("topic")  # the tab open in the last run (a title, in that run's language)
    if isinstance(shown, str) and (index := topic_of(shown, title_ids)) is not None:
        if shown != titles[index]:  # the reader switched language: the same tab, by its title in this one
            del st.session_state["topic"]
    else:
        url_check("topic", labels(titles), tr("state.topic"), url=False)  # a hostile value: one notice
        if "topic" not in st.session_state and "topic" in st.query_params:
            raw = st.query_params.get_all("topic")[-1]
            index = topic_of(raw, title_ids)
            if index is None:
                url_notice(tr("state.topic"), raw, f"“{titles[0]}”")
    # The open tab is also the default: a rerun whose browser reports no tab keeps it open.
    tabs = st.tabs(titles, key="topic", default=None if index is None else titles[index], on_change="rerun")
    opened = next((i for i, tab in enumerate(tabs) if tab.open), 0)
    if opened:
        if st.query_params.get("topic") != topic_name(title_ids[opened]):
            st.query_params["topic"] = topic_name(title_ids[opened])
    elif "topic" in st.query_params:
        del st.query_params["topic"]
    for tab, section in zip(tabs, sections):
        with tab:
            if tab.open is not False:
                st.fragment(section)()
    return title_ids[opened]
