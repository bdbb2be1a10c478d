"""Presentation decks: the JSON file format (pure functions, no Streamlit call) and the session's
deck that the sidebar's "Add this view to the deck" button fills.

A deck file is small JSON::

    {"format": "attention-lab-deck", "version": 1, "title": "…",
     "slides": [{"page": "2_Seq2seq_attention", "params": {"s2s_model": "Bahdanau", "s2s_step": "3"},
                 "title": "optional"}]}

``page`` is a page file's stem (its URL name, ``Seq2seq_attention``, is accepted too); ``params``
are the page's URL values (widget key → the string, or list of strings, that the page's bound
widget writes to the address bar), the step included. :func:`parse_deck` checks everything and
raises :class:`DeckError` with one clear sentence (in English and 中文); it never raises anything else.
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from ui.i18n import t, text

FORMAT = "attention-lab-deck"
VERSION = 1
MAX_BYTES = 512_000  # a deck of 100 slides with long texts stays far below this
MAX_SLIDES = 100
MAX_PARAMS = 64  # per slide
MAX_TITLE = 200  # characters of a deck's or slide's title
MAX_VALUE = 20_000  # characters of one URL value (the longest text input takes 20,000)
MAX_LIST = 64  # values of one multi-valued URL key
PRESENT_PAGE = "12_Present"
ROOT = Path(__file__).resolve().parent.parent
DECKS_DIR = Path(__file__).resolve().parent / "decks"
SESSION_KEY = "deck_slides"  # the session's deck: a list of Slide

_KEY = re.compile(r"[A-Za-z0-9_]{1,64}")
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}  # embeddings, overrides, isolates
_TEXT_CONTROLS = {"\t", "\n", "\r"}  # a text area's own characters

Params = dict[str, "str | list[str]"]
Phrase = tuple[str, dict[str, Any]]  # a string id and its format values: words said in any language


def _say(lang: str, key: str, params: dict[str, Any]) -> str:
    """The string ``key`` in ``lang`` filled with ``params``; a value that is a :data:`Phrase` is said too."""
    return text(key, lang).format(**{k: _say(lang, *v) if isinstance(v, tuple) else v for k, v in params.items()})


class DeckError(ValueError):
    """A deck file that cannot be used; the message says why, in one sentence: ``key`` names it in the
    string table, ``params`` fill it (:meth:`say` gives any language; ``str()`` is the English)."""

    def __init__(self, key: str, **params: Any) -> None:
        self.key, self.params = key, params
        super().__init__(self.say("en"))

    def say(self, lang: str) -> str:
        return _say(lang, self.key, self.params)


@dataclass(frozen=True)
class Slide:
    """One view of one page: the page's stem and its URL values."""

    page: str
    params: Params = field(default_factory=dict)
    title: str = ""


@dataclass(frozen=True)
class Deck:
    """A titled sequence of slides."""

    title: str
    slides: tuple[Slide, ...]


def slide_pages(root: Path = ROOT) -> list[str]:
    """The stems of the lab's pages a slide may show (every page in pages/ but the Present page)."""
    return sorted(p.stem for p in (root / "pages").glob("*.py") if p.stem != PRESENT_PAGE)


def url_name(stem: str) -> str:
    """A page's URL name as Streamlit derives it: ``2_Seq2seq_attention`` → ``Seq2seq_attention``."""
    return re.sub(r"^[0-9]+_", "", stem)


def _odd_char(text: str, in_value: bool = False) -> str | None:
    """The first odd character of ``text`` as U+XXXX, or None: a bidi embedding/override/isolate
    (it can make text read backwards), a control, surrogate, private-use or unassigned character,
    and in names and titles any format character. A value (typed text) may hold tab and newlines,
    and format characters such as the zero-width joiner, which belong to scripts and emoji."""
    for ch in text:
        category = unicodedata.category(ch)
        if in_value and (ch in _TEXT_CONTROLS or (category == "Cf" and ch not in _BIDI)):
            continue
        if ch in _BIDI or category in ("Cc", "Cf", "Cs", "Co", "Cn"):
            return f"U+{ord(ch):04X}"
    return None


def _text(value: Any, where: Phrase, limit: int, in_value: bool = False) -> str:
    """``value`` as a checked string: a string of at most ``limit`` characters, no odd character."""
    if not isinstance(value, str):
        raise DeckError("deck.err.not_text", where=where, kind=type(value).__name__)
    if len(value) > limit:
        raise DeckError("deck.err.too_long", where=where, n=len(value), most=limit)
    odd = _odd_char(value, in_value)
    if odd:
        raise DeckError("deck.err.odd_char", where=where, char=odd)
    return value


def _param_value(value: Any, where: Phrase) -> str | list[str]:
    if isinstance(value, list):
        if len(value) > MAX_LIST:
            raise DeckError("deck.err.too_many_values", where=where, n=len(value), most=MAX_LIST)
        return [_text(v, where, MAX_VALUE, in_value=True) for v in value]
    return _text(value, where, MAX_VALUE, in_value=True)


def _page(value: Any, where: Phrase, pages: Collection[str]) -> str:
    name = _text(value, where, 100)
    by_url = {url_name(p): p for p in pages}
    if name in pages:
        return name
    if name in by_url:
        return by_url[name]
    raise DeckError("deck.err.no_page", where=where, name=name, pages=", ".join(sorted(pages)))


def _slide(raw: Any, number: int, pages: Collection[str]) -> Slide:
    where: Phrase = ("deck.where.slide", {"number": number})
    if not isinstance(raw, dict):
        raise DeckError("deck.err.slide_object", where=where)
    unknown = set(raw) - {"page", "params", "title"}
    if unknown:
        raise DeckError("deck.err.slide_field", where=where, field=sorted(unknown)[0][:40])
    if "page" not in raw:
        raise DeckError("deck.err.slide_no_page", where=where)
    page = _page(raw["page"], ("deck.where.page", {"number": number}), pages)
    params_raw = raw.get("params", {})
    if not isinstance(params_raw, dict):
        raise DeckError("deck.err.params_object", where=("deck.where.params", {"number": number}))
    if len(params_raw) > MAX_PARAMS:
        raise DeckError("deck.err.too_many_params", where=where, n=len(params_raw), most=MAX_PARAMS)
    params: Params = {}
    for key, value in params_raw.items():
        if not _KEY.fullmatch(key):
            raise DeckError("deck.err.param_name", where=where, name=_shown(key))
        params[key] = _param_value(value, ("deck.where.param", {"number": number, "key": key}))
    return Slide(page, params, _text(raw.get("title", ""), ("deck.where.title", {"number": number}), MAX_TITLE))


def _shown(text: str) -> str:
    """A short printable quote of a rejected string."""
    return "".join(c if c.isprintable() else "�" for c in text[:40]) + ("…" if len(text) > 40 else "")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    for key in keys:
        if keys.count(key) > 1:
            raise DeckError("deck.err.duplicate", field=_shown(key))
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise DeckError("deck.err.constant", name=name)


def parse_deck(data: bytes | str, pages: Collection[str] | None = None) -> Deck:
    """Read and check a deck file's bytes or text; ``pages`` are the page stems a slide may name
    (default: :func:`slide_pages`). Raises DeckError, with one sentence, for anything unusable."""
    pages = slide_pages() if pages is None else pages
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > MAX_BYTES:
        raise DeckError("deck.err.too_big", size=size, most=MAX_BYTES)
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise DeckError("deck.err.not_utf8") from None
    try:
        raw = json.loads(data, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise DeckError("deck.err.json", line=exc.lineno, column=exc.colno, detail=exc.msg) from None
    except RecursionError:
        raise DeckError("deck.err.nested") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise DeckError("deck.err.format", format=FORMAT)
    if raw.get("version") != VERSION or isinstance(raw.get("version"), bool):
        raise DeckError("deck.err.version", version=_shown(str(raw.get("version"))), supported=VERSION)
    unknown = set(raw) - {"format", "version", "title", "slides"}
    if unknown:
        raise DeckError("deck.err.deck_field", field=_shown(sorted(unknown)[0]))
    title = _text(raw.get("title", ""), ("deck.where.deck_title", {}), MAX_TITLE)
    slides = raw.get("slides")
    if not isinstance(slides, list) or not slides:
        raise DeckError("deck.err.no_slides")
    if len(slides) > MAX_SLIDES:
        raise DeckError("deck.err.too_many_slides", n=len(slides), most=MAX_SLIDES)
    return Deck(title, tuple(_slide(s, i, pages) for i, s in enumerate(slides, start=1)))


def deck_dict(deck: Deck) -> dict[str, Any]:
    """The JSON object of a deck (what :func:`parse_deck` reads back)."""
    return {"format": FORMAT, "version": VERSION, "title": deck.title,
            "slides": [{"page": s.page, "params": s.params, **({"title": s.title} if s.title else {})}
                       for s in deck.slides]}


def deck_json(deck: Deck) -> str:
    """The deck as a small, readable JSON file (UTF-8 text, non-ASCII kept as is)."""
    return json.dumps(deck_dict(deck), ensure_ascii=False, indent=1) + "\n"


def ready_decks(directory: Path = DECKS_DIR, pages: Collection[str] | None = None) -> dict[str, Deck]:
    """The ready-made decks shipped in ui/decks/, by file stem, in name order (each one checked)."""
    return {path.stem: parse_deck(path.read_bytes(), pages) for path in sorted(directory.glob("*.json"))}


# ---------------------------------------------------------------------------------------------
# The session's deck (Streamlit): filled from any page's sidebar, shown on the Present page.
# ---------------------------------------------------------------------------------------------

def current_page() -> str | None:
    """The stem of the page file this script run draws, when a slide can show that page (None on
    the landing page, the Present page, a page without a slide renderer, or outside a run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    from ui.slides import RENDERERS

    ctx = get_script_run_ctx()
    if ctx is None:
        return None
    info = ctx.pages_manager.get_pages().get(ctx.page_script_hash)
    stem = Path(info["script_path"]).stem if info else None
    return stem if stem in RENDERERS else None


def current_params() -> Params:
    """Every value of the address bar (each setting of a bound widget, the step included)."""
    params: Params = {}
    for key in st.query_params:
        values = st.query_params.get_all(key)
        params[key] = values[0] if len(values) == 1 else list(values)
    return params


def session_slides() -> list[Slide]:
    """The session's deck (kept across pages in ``st.session_state``; anything else found under
    its key, left by a stale session or code, starts a new deck)."""
    slides = st.session_state.get(SESSION_KEY)
    if not (isinstance(slides, list) and all(isinstance(s, Slide) for s in slides)):
        slides = st.session_state[SESSION_KEY] = []
    return slides


def _add_view(page: str) -> None:
    slides = session_slides()
    if len(slides) < MAX_SLIDES:
        slides.append(Slide(page, current_params()))
        st.toast(t("deck.added", n=len(slides)), icon=":material/slideshow:")


def add_view_button() -> None:
    """The sidebar's "Add this view to the deck" button: records this page and every setting in its
    URL into the session's deck (shown and presented on the Present page). Nothing on other pages."""
    page = current_page()
    if page is None:
        return
    n = len(session_slides())
    st.button(t("deck.add"), key="deck_add", icon=":material/add_to_queue:", on_click=_add_view, args=(page,),
              disabled=n >= MAX_SLIDES, width="stretch", help=t("deck.add.help"))
    st.caption(t("deck.count", n=n))
