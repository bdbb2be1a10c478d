"""Present: a deck of views from any page as slides, one at a time and full screen; ←/→ and
PageUp/PageDown walk through the decoding steps and on to the next slide; offline."""

from __future__ import annotations

import streamlit as st

from ui.deck import (
    Deck,
    DeckError,
    browser_answered,
    copy_to_session,
    deck_json,
    edit_deck,
    keep_deck,
    parse_deck,
    ready_decks,
    session_slides,
)
from ui.frame import page_frame, page_text
from ui.i18n import current, tr
from ui.slides import (
    RENDERERS,
    SlideProblem,
    SlideView,
    deck_handout,
    prepare,
    slide_controls,
    slide_frame,
    clicker_keys,
    slide_notes,
    slide_step,
    start,
    stop_presenting,
)
from ui.state import checked, url_check
from ui.tokens import md_escape
from viz_core.export import safe_filename

READY = ready_decks(pages=RENDERERS)
SESSION, UPLOAD = "session", "upload"
UPLOADED = "deck_uploaded"  # session key of the last good uploaded Deck
DECKS = [*READY, SESSION, UPLOAD]


def deck_label(deck_id: str) -> str:
    return READY[deck_id].title if deck_id in READY else tr(f"present.deck.{deck_id}")


def chosen_deck(deck_id: str) -> Deck | None:
    """The deck ``deck_id`` names (None: the session's or the uploaded deck is still empty)."""
    if deck_id == SESSION:
        slides = session_slides()
        return Deck(tr("present.my_deck"), tuple(slides)) if slides else None
    if deck_id == UPLOAD:
        return st.session_state.get(UPLOADED)
    return READY[deck_id]


def page_label(stem: str) -> str:
    return page_text(f"pages/{stem}.py")[0]


def default_deck() -> str:
    """The session's deck once it has slides, else the ready-made deck in the reader's language
    (a file named …_zh.json is the 中文 one), else the first."""
    if session_slides():
        return SESSION
    return next((d for d in READY if d.endswith(f"_{current()}")), DECKS[0])


deck_id = url_check("deck", DECKS, tr("present.url.deck")) or default_deck()
deck = chosen_deck(deck_id)

# ------------------------------------------------------------------------------------------------
# Presenting: one slide, full screen, the keys move through its steps and on (?slide=N&step=M)
# ------------------------------------------------------------------------------------------------
if "slide" in st.query_params and deck is None and deck_id == SESSION and not browser_answered():
    slide_frame(tr("present.my_deck"))  # a reload while presenting: the browser hands the deck back (a rerun)
    st.info(tr("present.nothing_linked"), icon=":material/link_off:")
    st.button(tr("slide.end_help"), key="slide_end", shortcut="Esc", on_click=stop_presenting)
    keep_deck()
    st.stop()
if "slide" in st.query_params and deck is not None:
    slide_frame(deck.title)
    n = len(deck.slides)
    raw = url_check(
        "slide", lambda v: v.isdigit() and 1 <= int(v) <= n, tr("present.url.slide"), tr("present.url.slide_first")
    )
    number = int(raw) if raw is not None else 1
    st.query_params["slide"] = str(number)
    slide = deck.slides[number - 1]
    try:
        view = prepare(slide.page, slide.params)
    except SlideProblem as exc:  # drawn as a one-step slide that says why, so the keys still move on
        view = SlideView(1, 0, lambda _, message=str(exc): st.warning(message))
    step = slide_step(number, view)
    slide_controls(slide.title or page_label(slide.page), n, number, step, view.n_steps)
    for note in view.notes:
        st.caption(note)
    view.draw(step)
    slide_notes(slide.notes)
    clicker_keys()  # "." as well as B: on to the next slide
    st.stop()

# ------------------------------------------------------------------------------------------------
# The deck: choose, upload, look through, download, start
# ------------------------------------------------------------------------------------------------
page_frame(tr("nav.12"), icon="📽️", intro=tr("present.intro"))
lang = current()
if "slide" in st.query_params:  # a link to present a deck this session does not have
    st.info(tr("present.nothing_linked"), icon=":material/link_off:")
    del st.query_params["slide"]


def _picked() -> None:
    st.query_params["deck"] = st.session_state["present_pick"]


checked(
    st.radio,
    tr("present.deck"),
    DECKS,
    index=DECKS.index(deck_id),
    format_func=deck_label,
    key="present_pick",
    on_change=_picked,
    horizontal=True,
)
if deck_id == UPLOAD:
    upload = st.file_uploader(tr("present.upload"), type=["json"], key="present_upload", max_upload_size=1)
    if upload is not None:
        try:
            st.session_state[UPLOADED] = deck = parse_deck(upload.getvalue(), RENDERERS)
        except DeckError as exc:
            st.warning(tr("present.bad_file", reason=md_escape(exc.say(current()))))
if deck is None:
    st.info(tr("present.no_slides" if deck_id == SESSION else "present.choose_file"))
    st.stop()

st.subheader(md_escape(deck.title) if deck.title else tr("present.untitled"))  # a student's title
c1, c2, c3, c4 = st.columns([1.3, 1, 1, 1])
# The clicker's "next" (PageDown) starts the deck from here, as F5 does (ui.slides.START_KEYS_JS).
c1.button(
    tr("present.present"),
    key="present_start",
    type="primary",
    icon=":material/slideshow:",
    on_click=start,
    args=(deck_id,),
    width="stretch",
    shortcut="PageDown",
    help=tr("present.present_help"),
)
clicker_keys()  # and F5
c2.download_button(
    tr("present.download"),
    data=deck_json(deck),
    file_name=f"{safe_filename(deck.title)}.json",
    mime="application/json",
    key="present_download",
    icon=":material/download:",
    on_click="ignore",
    width="stretch",
    help=tr("present.download_help"),
)
handout_name = f"{safe_filename(deck.title or tr('present.my_deck'))}-handout.html"
with c3.popover(tr("present.handout"), icon=":material/description:", width="stretch", help=tr("present.handout_help")):
    if st.button(tr("present.handout_make", n=len(deck.slides)), key="present_handout_make"):
        with st.spinner(tr("present.handout_making")):
            st.session_state["present_handout"] = (deck, lang, deck_handout(deck.slides, deck.title, page_label))
    made = st.session_state.get("present_handout")
    if isinstance(made, tuple) and made[:2] == (deck, lang):
        st.download_button(
            tr("present.handout_download"),
            data=made[2],
            mime="text/html",
            file_name=handout_name,
            key="present_handout_file",
            icon=":material/download:",
            on_click="ignore",
        )
if deck_id == SESSION:
    c4.button(
        tr("present.clear"),
        key="present_clear",
        on_click=lambda: session_slides().clear(),
        icon=":material/delete_sweep:",
        width="stretch",
    )
    edit_deck(session_slides(), page_label)
else:
    c4.button(
        tr("present.copy"),
        key="present_copy",
        on_click=copy_to_session,
        args=(deck,),
        icon=":material/edit:",
        width="stretch",
        help=tr("present.copy_help"),
    )
    st.dataframe(
        [
            {
                tr("present.col.slide"): i,
                tr("present.col.page"): page_label(s.page),
                tr("present.col.title"): s.title,
                tr("present.col.notes"): s.notes,
                tr("present.col.settings"): ", ".join(f"{k}={v}" for k, v in s.params.items())[:200],
            }
            for i, s in enumerate(deck.slides, start=1)
        ],
        hide_index=True,
        width="stretch",
    )
