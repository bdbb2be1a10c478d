"""The Present page's side of the view registry: :data:`RENDERERS` (page stem → the ``slide`` of that
page's family in ui.views: ui.views.seq2seq, ui.views.transformer, …, which draw the figures their
page draws, with the same functions), and presenting: the full-screen frame, the position in the
deck, the clicker's keys and the deck's handout.

A family's ``slide`` reads a slide's values (ui.deck.Slide.params) as the page reads its link (a
choice's value; a slide saved with an older link's label still opens; a value the page would refuse
falls back to the page's default, with a one-line note) and returns a :class:`ui.views.base.SlideView`:
how many steps the slide has, the step it starts at, and ``draw(t)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import streamlit as st

from ui.heap import upkeep
from ui.i18n import current, figure_texts
from ui.i18n import tr
from ui.tokens import md_escape
from ui.views import bert as bert_view
from ui.views import foundations as foundations_view
from ui.views import llm as llm_view
from ui.views import one_head as head_view
from ui.views import positional as positional_view
from ui.views import real_model as real_model_view
from ui.views import seq2seq as seq2seq_view
from ui.views import studio as studio_view
from ui.views import transformer as transformer_view
from ui.views import transformer_xl as transformer_xl_view
from ui.views import xlnet as xlnet_view
from ui.views import at_scale as at_scale_view
from ui.views import block as block_view
from ui.views import explanations as explanations_view
from ui.views.base import CAPTURE, HIDE_KEY, SlideParams, SlideProblem, SlideView

# Page file stem → its renderer: every page of the lab can be a slide.
RENDERERS: dict[str, Callable[[SlideParams], SlideView]] = {
    "1_Attention_from_scratch": foundations_view.slide,
    "2_Seq2seq_attention": seq2seq_view.slide,
    "3_Positional_encoding": positional_view.slide,
    "4_Transformer_translation": transformer_view.translation_slide,
    "5_Inside_one_head": head_view.slide,
    "6_Generation": transformer_view.generation_slide,
    "7_BERT_masking": bert_view.slide,
    "8_Real_model_explorer": real_model_view.slide,
    "9_LLM_explorer": llm_view.slide,
    "10_Transformer_XL": transformer_xl_view.slide,
    "11_Training_studio": studio_view.slide,
    "13_XLNet": xlnet_view.slide,
    "14_Transformer_block": block_view.slide,
    "15_Attention_at_scale": at_scale_view.slide,
    "16_Attention_as_explanation": explanations_view.slide,
}


def prepare(page: str, params: Mapping[str, str | list[str]]) -> SlideView:
    """The slide of ``page`` for ``params``; raises SlideProblem when it cannot be drawn."""
    if page not in RENDERERS:
        raise SlideProblem(tr("slide.no_renderer", page=page))
    return RENDERERS[page](SlideParams(params))


def capture(page: str, params: Mapping[str, str | list[str]], step: int | None = None) -> tuple[list[Any], list[str]]:
    """(figures, lines of text) that the slide of ``page`` draws at ``step`` (default: its own step),
    collected instead of drawn; a slide that cannot be drawn gives no figure and says why."""
    try:
        view = prepare(page, params)
    except SlideProblem as exc:
        return [], [str(exc)]
    kept: list[Any] = []
    token = CAPTURE.set(kept)
    try:
        view.draw(view.start if step is None else min(max(step, 0), view.n_steps - 1))
    finally:
        CAPTURE.reset(token)
    return [k for k in kept if not isinstance(k, str)], [*view.notes, *(k for k in kept if isinstance(k, str))]


def deck_handout(slides: Iterable[Any], title: str, page_label: Callable[[str], str]) -> str:
    """The whole deck as one standalone, offline HTML page (viz_core.export.handout_html): each
    slide's figures at the slide's own step, captioned with its number, title and text line, and
    its speaker notes; every text escaped there."""
    from viz_core.export import handout_html, safe_filename

    figures: list[tuple[str, Any]] = []
    names: list[str] = []
    notes: list[str] = []
    for number, slide in enumerate(slides, start=1):
        heading = f"{number}. {slide.title or page_label(slide.page)}"
        drawn, lines = capture(slide.page, slide.params)
        caption = " — ".join([heading, *lines])
        for k, fig in enumerate(drawn):
            figures.append((caption if k == 0 else f"{heading} ({k + 1})", fig))
            names.append(safe_filename(f"slide-{number}-{slide.page}" + (f"-{k + 1}" if k else "")))
        if not drawn:
            notes.append(caption)
        if slide.notes:
            notes.append(f"{heading}: {slide.notes}")
    return handout_html(
        title, "", figures, note="\n".join(notes), texts=figure_texts(), lang=current(), image_names=names
    )


# ---------------------------------------------------------------------------------------------
# Presenting: the full-screen frame, the position in the deck and the clicker's keys
# ---------------------------------------------------------------------------------------------

START, END = "start", "end"  # a slide entered forwards starts at its own step, backwards at its last
_AT = "present_at"  # session key: (slide number, step index or START/END)

_SLIDE_CSS = """
<style>
/* Presenting: no sidebar, header or toolbar; the slide spans the screen; large text. */
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stHeader"],
[data-testid="stToolbar"], [data-testid="stDecoration"] { display: none !important; }
.block-container { padding: 0.5rem 1rem 0 1rem !important; max-width: 100% !important; }
[data-testid="stMarkdownContainer"] p { font-size: 1.3rem; }
.st-key-slide_pgup, .st-key-slide_pgdn, .st-key-slide_skip, .st-key-slide_notes_key,
.st-key-slide_hide_key { display: none !important; }
.st-key-slide_notes { font-size: 1.2rem; border-left: 4px solid #555; padding-left: 0.6rem; }
/* The slide is one screen: the figure takes the height that the title, the controls and the
   line of text above it leave. */
[data-testid="stMainBlockContainer"] { height: 100vh; }
[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"] { height: 100%; }
.st-key-slide_figure { flex: 1 1 0 !important; min-height: 300px; }
.st-key-slide_figure > div { flex: 1 1 0; min-width: 0; height: 100%; }
div:has(> .st-key-slide_figure[data-testid="stHorizontalBlock"]) { flex: 1 1 0 !important; min-height: 300px; }
.st-key-slide_figure[data-testid="stHorizontalBlock"] { height: 100%; }
.st-key-slide_title h3, .st-key-slide_line p { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
</style>
"""


def slide_frame(title: str) -> None:
    """The frame of a presented slide: page config (local icon: no font server), no sidebar, no
    header, no toolbar, full width (constant CSS, never user text)."""
    upkeep()  # as page_frame does: without it, each step paid a full collection of torch's objects
    st.set_page_config(
        page_title=f"{title} · {tr('app.title')}", page_icon="📽️", layout="wide", initial_sidebar_state="collapsed"
    )
    st.markdown(_SLIDE_CSS, unsafe_allow_html=True)


def _move(n_slides: int, slide: int, t: int, n_steps: int, delta: int) -> None:
    """Button callback: the next (delta = 1) or previous step, past the slide's ends to the next
    or previous slide."""
    if 0 <= t + delta < n_steps:
        at = (slide, t + delta)
    elif 1 <= slide + delta <= n_slides:
        at = (slide + delta, START if delta > 0 else END)
    else:
        return
    st.session_state[_AT] = at
    st.query_params["slide"] = str(at[0])


def slide_step(slide: int, view: SlideView) -> int:
    """This run's 0-based step of ``slide``: where the keys left it, else the link's ``?step=``
    (1-based), else the slide's own step; kept in the URL."""
    at = st.session_state.get(_AT)
    step: int | str = START
    if at is not None and at[0] == slide:
        step = at[1]
    elif (raw := st.query_params.get("step")) is not None:
        step = int(raw) - 1 if raw.isdigit() and 1 <= int(raw) <= view.n_steps else START
    t = view.start if step == START else view.n_steps - 1 if step == END else min(int(step), view.n_steps - 1)
    st.session_state[_AT] = (slide, t)
    if view.n_steps > 1:
        st.query_params["step"] = str(t + 1)
    elif "step" in st.query_params:
        del st.query_params["step"]
    return t


def start(deck_id: str) -> None:
    """Button callback: present the deck ``deck_id`` from its first slide."""
    st.session_state.pop(_AT, None)
    st.query_params["deck"] = deck_id
    st.query_params["slide"] = "1"


def stop_presenting() -> None:
    """Button callback: stop presenting (back to the deck's overview)."""
    st.session_state.pop(_AT, None)
    for key in ("slide", "step"):
        if key in st.query_params:
            del st.query_params[key]


_NOTES = "present_show_notes"  # session key: the speaker's notes are shown while presenting


def _toggle(key: str) -> None:
    st.session_state[key] = st.session_state.get(key) is not True


def _skip(n_slides: int, slide: int) -> None:
    """Button callback: straight on to the next slide's first step, however many steps are left."""
    if slide < n_slides:
        st.session_state[_AT] = (slide + 1, START)
        st.query_params["slide"] = str(slide + 1)


def slide_notes(notes: str) -> None:
    """The slide's speaker notes, below the figure, only when the presenter asked for them (N)."""
    if notes and st.session_state.get(_NOTES) is True:
        st.container(key="slide_notes").text(notes)


# The clicker's keys that Streamlit's shortcuts cannot name: F5 (and Shift+F5, what most clickers' "present"
# button sends) on the deck's overview presses Present instead of reloading the page; "." (the "blank
# screen" button of many clickers) while presenting skips to the next slide. Constant script, no user text.
CLICKER_KEYS_JS = """
if (!window.__labClickerKeys) {
  window.__labClickerKeys = true;
  const doc = window.parent.document;
  doc.addEventListener("keydown", (ev) => {
    const target = ev.key === "F5" ? ".st-key-present_start button"
      : ev.key === "." && !ev.target.closest("input, textarea, [contenteditable]") ? ".st-key-slide_skip button" : null;
    const button = target && doc.querySelector(target);
    if (!button) return;
    ev.preventDefault();
    if (!button.disabled) button.click();
  }, true);
}
"""


def clicker_keys() -> None:
    """Install the clicker keys that Streamlit's shortcuts cannot name (F5, ".") once per browser tab."""
    st.html(f"<script>{CLICKER_KEYS_JS}</script>", unsafe_allow_javascript=True)


def slide_controls(title: str, n_slides: int, slide: int, t: int, n_steps: int) -> None:
    """The slide's title and its step control: ◀/▶ (the ← and → keys) and, hidden, PageUp/PageDown
    (what a presenter's clicker sends), each one step, past the slide's ends to the next or
    previous slide; "." or B (a clicker's third button) skips to the next slide; N shows the speaker
    notes, H hides the rows after the step; ✕ (Esc) ends the presentation."""
    first, last = slide == 1 and t == 0, slide == n_slides and t == n_steps - 1
    args = (n_slides, slide, t, n_steps)
    head, prev, nxt, where, end = st.columns([7, 0.8, 0.8, 1.8, 0.5], vertical_alignment="center")
    head.container(key="slide_title").markdown(f"### {md_escape(title)}")
    prev.button(
        "◀",
        key="slide_prev",
        shortcut="Left",
        on_click=_move,
        args=(*args, -1),
        disabled=first,
        width="stretch",
        help=tr("slide.prev_help"),
    )
    nxt.button(
        "▶",
        key="slide_next",
        shortcut="Right",
        on_click=_move,
        args=(*args, 1),
        disabled=last,
        width="stretch",
        help=tr("slide.next_help"),
    )
    where.markdown(f"**{slide} / {n_slides}**" + (" · " + tr("slide.step", t=t + 1, n=n_steps) if n_steps > 1 else ""))
    end.button(
        "✕", key="slide_end", shortcut="Esc", on_click=stop_presenting, help=tr("slide.end_help"), type="tertiary"
    )
    st.button("PageUp", key="slide_pgup", shortcut="PageUp", on_click=_move, args=(*args, -1), disabled=first)
    st.button("PageDown", key="slide_pgdn", shortcut="PageDown", on_click=_move, args=(*args, 1), disabled=last)
    st.button(
        tr("slide.skip"),
        key="slide_skip",
        shortcut="B",
        on_click=_skip,
        args=(n_slides, slide),
        disabled=slide == n_slides,
    )  # and "." (clicker_keys)
    st.button(tr("slide.notes"), key="slide_notes_key", shortcut="N", on_click=_toggle, args=(_NOTES,))
    st.button(tr("slide.hide"), key="slide_hide_key", shortcut="H", on_click=_toggle, args=(HIDE_KEY,))
