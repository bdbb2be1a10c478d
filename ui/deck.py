"""Presentation decks: the JSON file format (pure functions, no Streamlit call) and the session's
deck that the sidebar's "Add this view to the deck" button fills.

A deck file is small JSON::

    {"format": "attention-lab-deck", "version": 1, "title": "…",
     "slides": [{"page": "2_Seq2seq_attention", "params": {"s2s_model": "s2s-bahdanau", "s2s_step": "3"},
                 "title": "optional", "notes": "optional speaker notes"}]}

``page`` is a page file's stem (its URL name, ``Seq2seq_attention``, is accepted too); ``params``
are the page's URL values (widget key → the string, or list of strings, that the page writes to the
address bar: a choice's value, never its label, so that a deck reads the same in every language;
a deck written before that, with labels, still opens), the step included. ``notes`` are the
speaker's notes, shown while presenting only when asked for. :func:`parse_deck` checks everything and
raises :class:`DeckError` with one clear sentence (in English and 中文); it never raises anything else.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from ui.i18n import current, tr, text
from ui.tokens import md_escape

FORMAT = "attention-lab-deck"
VERSION = 1
MAX_BYTES = 512_000  # a deck of 100 slides with long texts stays far below this
MAX_SLIDES = 100
MAX_PARAMS = 64  # per slide
MAX_TITLE = 200  # characters of a deck's or slide's title
MAX_NOTES = 2_000  # characters of a slide's speaker notes
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
    """One view of one page: the page's stem and its URL values, with the teacher's title and notes."""

    page: str
    params: Params = field(default_factory=dict)
    title: str = ""
    notes: str = ""


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
        raise DeckError("deck.err.not_text", where=where, type_name=type(value).__name__)
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
    unknown = set(raw) - {"page", "params", "title", "notes"}
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
    return Slide(
        page,
        params,
        _text(raw.get("title", ""), ("deck.where.title", {"number": number}), MAX_TITLE),
        _text(raw.get("notes", ""), ("deck.where.notes", {"number": number}), MAX_NOTES, in_value=True),
    )


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
    return {
        "format": FORMAT,
        "version": VERSION,
        "title": deck.title,
        "slides": [
            {
                "page": s.page,
                "params": s.params,
                **({"title": s.title} if s.title else {}),
                **({"notes": s.notes} if s.notes else {}),
            }
            for s in deck.slides
        ],
    }


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

    ctx = get_script_run_ctx()
    if ctx is None:
        return None
    info = ctx.pages_manager.get_pages().get(ctx.page_script_hash)
    stem = Path(info["script_path"]).stem if info else None
    # every page but Present has a slide (tests/test_deck.py checks it against ui.slides.RENDERERS, which
    # is not imported here: its views load the models, and the landing page's first paint must not)
    return stem if stem in slide_pages() else None


def current_params() -> Params:
    """Every value of the address bar (each setting of a bound widget, the step included)."""
    params: Params = {}
    for key in st.query_params:
        values = st.query_params.get_all(key)
        params[key] = values[0] if len(values) == 1 else list(values)
    return params


# The browser keeps the deck being built (localStorage, this lab's origin only): a reload or a second
# tab of the same browser finds it. Each run hands the component the session's deck to keep; the
# component answers ({"text", "at"}) when the browser keeps a deck this session has not read (one rerun,
# only then: a session of a browser without a deck never reruns for it) and whenever another tab
# changes the deck.
STORE_KEY = "deck_store"  # the component's key: its state "stored" is the browser's last answer
_SEEN = "deck_store_seen"  # the answer this session last adopted
_LOST = "deck_store_lost"  # why the browser's deck could not be read (said once)
_STORE_JS = r"""
const KEY = "attention-lab-deck";
function stored() {
  try { const text = window.localStorage.getItem(KEY); return text === null ? "" : text; } catch (e) { return null; }
}
export default function (component) {
  const { data, parentElement, setStateValue } = component;
  window.__labDeckSend = (text) => setStateValue("stored", {text: text, at: Date.now()});
  if (!window.__labDeckListening) {  // another tab of this browser changed the deck
    window.__labDeckListening = true;
    window.addEventListener("storage", (ev) => {
      if (ev.key === KEY && window.__labDeckSend) window.__labDeckSend(ev.newValue || "");
    });
  }
  const now = stored();
  if (now === null) return;  // storage switched off: the deck stays in this session
  if (!window.__labDeckAsked) {  // once per page load: a deck the browser kept that this session has not read
    window.__labDeckAsked = true;
    if (!data.answered && now && now !== data.save) {
      window.__labDeckPending = true;  // hand it over, and write nothing over it until it is read
      window.__labDeckSend(now);
      return;
    }
  }
  if (window.__labDeckPending) {
    if (!data.answered) return;
    window.__labDeckPending = false;
  }
  if (now === data.save) return;  // the session's deck: keep it (nothing to do when the browser has it)
  try {
    if (data.save) window.localStorage.setItem(KEY, data.save); else window.localStorage.removeItem(KEY);
  } catch (e) { /* storage full: the deck stays in this session */ }
}
"""
_store = st.components.v2.component("attention_lab.deck_store", html="<span></span>", js=_STORE_JS)


def _browser_answer() -> Any:
    """The browser's last answer ({"text", "at"}), or None before it answered."""
    state = st.session_state.get(STORE_KEY)
    try:
        answer = state["stored"] if state is not None else None
    except (KeyError, TypeError):
        return None
    return answer if isinstance(answer, dict) and isinstance(answer.get("text"), str) else None


def _adopt_browser_deck(slides: list[Slide]) -> None:
    """Take a new answer of the browser into the session's deck ``slides``: on the session's first
    answer, what the browser kept comes first and what this session added before it answered
    follows; later answers (another tab changed the deck) replace it. A deck the browser holds
    that cannot be read (changed by hand, an older lab) is set aside with one notice."""
    answer = _browser_answer()
    if answer is None or answer == st.session_state.get(_SEEN):
        return
    first = _SEEN not in st.session_state
    st.session_state[_SEEN] = answer
    kept: list[Slide] = []
    if answer["text"]:
        try:
            kept = list(parse_deck(answer["text"]).slides)
        except DeckError as exc:
            st.session_state[_LOST] = exc
    if first and kept != slides:  # what this session added before the browser answered follows
        kept = (kept + slides)[:MAX_SLIDES]
    slides[:] = kept


def browser_answered() -> bool:
    """Whether the browser has handed this session the deck it keeps (or said it keeps none)."""
    return _SEEN in st.session_state


def session_slides() -> list[Slide]:
    """The session's deck (kept across pages in ``st.session_state`` and, once the browser has
    answered, in the browser: :func:`keep_deck`; anything else found under its key, left by a stale
    session or code, starts a new deck)."""
    slides = st.session_state.get(SESSION_KEY)
    if not (isinstance(slides, list) and all(isinstance(s, Slide) for s in slides)):
        slides = st.session_state[SESSION_KEY] = []
    _adopt_browser_deck(slides)
    return slides


def keep_deck() -> None:
    """Hand the session's deck to the browser to keep (a deck the browser keeps that this session
    has not read yet is handed over first, never written over). Called by the page frame on every page."""
    slides = session_slides()
    if (lost := st.session_state.pop(_LOST, None)) is not None:
        st.warning(tr("deck.lost", reason=md_escape(lost.say(current()))), icon=":material/warning:")
    save = deck_json(Deck("", tuple(slides))) if slides else ""
    _store(
        key=STORE_KEY,
        data={"save": save, "answered": browser_answered()},
        default={"stored": None},
        on_stored_change=_answered,
    )


_ANSWER_RERUN = "deck_store_rerun"  # session key: this run is the browser's answer, not the reader's doing


def _answered() -> None:
    st.session_state[_ANSWER_RERUN] = True


def answer_rerun() -> bool:
    """Whether this run only takes in the browser's deck (once per run: the flag is cleared)."""
    return st.session_state.pop(_ANSWER_RERUN, None) is True


def _clean(text: Any, limit: int, in_value: bool = False) -> str:
    """A teacher's typed title or notes as a deck may hold them: text, odd characters dropped, cut
    to ``limit`` (what :func:`parse_deck` would refuse never reaches the kept deck)."""
    if not isinstance(text, str):
        return ""
    return "".join(ch for ch in text if _odd_char(ch, in_value) is None)[:limit]


def _position(value: Any, n: int) -> int | None:
    """A typed slide position as 1 … n, or None when it is not a whole number (NaN, text, a list)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or abs(value) == float("inf"):
        return None
    return min(max(int(value), 1), n)


def apply_edits(slides: list[Slide], edited_rows: Any) -> list[Slide]:
    """The deck after the overview table's edits (``edited_rows``: row → {column: value}, as
    ``st.data_editor`` reports them; anything else is ignored): titles and notes changed, slides
    ticked "remove" gone, and a slide given another number moved to that place."""
    n = len(slides)
    kept: list[Slide] = []
    moved: list[tuple[int, Slide]] = []
    rows = edited_rows if isinstance(edited_rows, dict) else {}
    for i, slide in enumerate(slides):
        change = rows.get(i, rows.get(str(i)))
        change = change if isinstance(change, dict) else {}
        if change.get("remove") is True:
            continue
        if "title" in change:
            slide = Slide(slide.page, slide.params, _clean(change["title"], MAX_TITLE), slide.notes)
        if "notes" in change:
            slide = Slide(slide.page, slide.params, slide.title, _clean(change["notes"], MAX_NOTES, in_value=True))
        target = _position(change.get("position"), n) if "position" in change else None
        if target is None or target == i + 1:
            kept.append(slide)
        else:
            moved.append((target, slide))
    for target, slide in sorted(moved, key=lambda m: m[0]):  # each moved slide lands at its number
        kept.insert(min(target - 1, len(kept)), slide)
    return kept


_EDITS = "deck_edits"  # session key: the overview table's generation (a fresh table after each edit)


def _apply_table(key: str) -> None:
    """The overview table's on_change: apply its edits to the session's deck, then start a fresh table."""
    state = st.session_state.get(key)
    edited = state.get("edited_rows") if isinstance(state, dict) else None
    slides = session_slides()
    slides[:] = apply_edits(slides, edited)
    st.session_state[_EDITS] = int(st.session_state.get(_EDITS, 0)) + 1


def edit_deck(slides: list[Slide], page_label: Callable[[str], str]) -> None:
    """The session's deck as a table the teacher edits in place: each slide's position (type another
    number to move it), its title and speaker notes, and a box that removes it. Applied at once and
    kept by the browser with the deck (:func:`keep_deck`)."""
    generation = st.session_state.get(_EDITS, 0)
    key = f"deck_table_{generation if isinstance(generation, int) else 0}"
    rows = [
        {
            "position": i,
            "page": page_label(s.page),
            "title": s.title,
            "notes": s.notes,
            "remove": False,
            "settings": ", ".join(f"{k}={v}" for k, v in s.params.items())[:200],
        }
        for i, s in enumerate(slides, start=1)
    ]
    st.data_editor(
        rows,
        key=key,
        on_change=_apply_table,
        args=(key,),
        hide_index=True,
        width="stretch",
        num_rows="fixed",
        disabled=["page", "settings"],
        column_config={
            "position": st.column_config.NumberColumn(
                tr("present.col.slide"),
                min_value=1,
                max_value=max(1, len(slides)),
                step=1,
                help=tr("present.col.slide_help"),
            ),
            "page": st.column_config.TextColumn(tr("present.col.page")),
            "title": st.column_config.TextColumn(tr("present.col.title"), max_chars=MAX_TITLE),
            "notes": st.column_config.TextColumn(
                tr("present.col.notes"), max_chars=MAX_NOTES, help=tr("present.col.notes_help")
            ),
            "remove": st.column_config.CheckboxColumn(tr("present.col.remove")),
            "settings": st.column_config.TextColumn(tr("present.col.settings")),
        },
    )


def copy_to_session(deck: Deck) -> None:
    """Button callback: a ready-made or uploaded deck becomes the session's deck, to edit and keep."""
    session_slides()[:] = list(deck.slides)[:MAX_SLIDES]
    st.session_state.pop("present_pick", None)
    st.query_params["deck"] = "session"


VIEW_STATE = "view_state"  # (page stem, the typed state its view was last drawn from)


def publish_view(state: Any) -> None:
    """Record the typed, language-free state (ui.views.*State) that this run of the page draws its view
    from: "Add this view to the deck" records its link (``state.link()``), so the slide reads the page's
    own state, not the widgets' address bar alone. A page calls this as soon as it has built the state."""
    st.session_state[VIEW_STATE] = (current_page(), state)


def forget_view() -> None:
    """A page's run starts with no published state (its button's callback has already read the last one)."""
    st.session_state.pop(VIEW_STATE, None)


def view_params(page: str) -> Params:
    """The link of ``page``'s view: the address bar (the step, a tab's own settings) with the values
    of the state the page last published laid over it."""
    params = current_params()
    published = st.session_state.get(VIEW_STATE)
    if published is not None and published[0] == page:
        params.update(published[1].link())
    return params


def _add_view(page: str) -> None:
    _add_slide(page, view_params(page))


def _add_slide(page: str, params: Params) -> None:
    slides = session_slides()
    if len(slides) < MAX_SLIDES:
        slides.append(Slide(page, dict(params)))
        st.toast(tr("deck.added", n=len(slides)), icon=":material/slideshow:")


def add_section_button(state: Any, key: str) -> None:
    """A section's own "Add this section to the deck" (a section below a page's main view: its slide is the
    page's slide for ``state``, a view state whose link names the section's topic), disabled when the deck is
    full."""
    page = current_page()
    if page is None:
        return
    st.button(
        tr("deck.add_section"),
        key=key,
        icon=":material/add_to_queue:",
        on_click=_add_slide,
        args=(page, state.link()),
        disabled=len(session_slides()) >= MAX_SLIDES,
        help=tr("deck.add_section.help"),
    )


def add_view_button() -> None:
    """The sidebar's "Add this view to the deck" button: records this page and every setting in its
    URL into the session's deck (shown and presented on the Present page); on every page, how many
    slides the deck has."""
    page = current_page()
    n = len(session_slides())
    if page is not None:
        st.button(
            tr("deck.add"),
            key="deck_add",
            icon=":material/add_to_queue:",
            on_click=_add_view,
            args=(page,),
            disabled=n >= MAX_SLIDES,
            width="stretch",
            help=tr("deck.add.help"),
        )
    st.caption(tr("deck.count", n=n))
