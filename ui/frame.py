"""The shared page frame: page config, projector-friendly styling and the sidebar."""

from __future__ import annotations

import logging
import secrets
import sys
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.deck import add_view_button, answer_rerun, forget_view, keep_deck
from ui.export import image_buttons
from ui.heap import upkeep
from ui.i18n import LANGUAGES, current, language_switch, resolve, tr, text
from ui.state import quoted, replay_notices

_PAGE_FILES = (
    "pages/1_Attention_from_scratch.py",
    "pages/2_Seq2seq_attention.py",
    "pages/3_Positional_encoding.py",
    "pages/4_Transformer_translation.py",
    "pages/5_Inside_one_head.py",
    "pages/6_Generation.py",
    "pages/14_Transformer_block.py",
    "pages/7_BERT_masking.py",
    "pages/8_Real_model_explorer.py",
    "pages/9_LLM_explorer.py",
    "pages/10_Transformer_XL.py",
    "pages/11_Training_studio.py",
    "pages/12_Present.py",
    "pages/13_XLNet.py",
    "pages/15_Attention_at_scale.py",
    "pages/16_Attention_as_explanation.py",
)


# Pages in teaching order: (file, English label, English blurb), from the string table (ids nav.N and
# nav.N.blurb, N the file's number); page_text gives them in the reader's language. The landing
# page links those that exist.
def page_number(path: str) -> str:
    """A page file's own number (its string ids are nav.N, nav.N.blurb), whatever its place in the order."""
    return Path(path).name.split("_", 1)[0]


PAGES: list[tuple[str, str, str]] = [
    (path, text(f"nav.{page_number(path)}", "en"), text(f"nav.{page_number(path)}.blurb", "en")) for path in _PAGE_FILES
]


def page_text(path: str) -> tuple[str, str]:
    """A page's (label, blurb) in the current language."""
    n = page_number(path)
    return tr(f"nav.{n}"), tr(f"nav.{n}.blurb")


_CSS = """
<style>
/* Projector-friendly: larger text, clear contrast, room around content. */
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.05rem; }
[data-testid="stMetricValue"] p { font-size: inherit; }
.block-container { padding-top: 1.2rem; max-width: 1400px; }
/* Lecture-first: a one-line title and intro, so that the main figure is on the first screen. */
h1 { font-size: 2rem !important; padding: 0 0 0.2rem 0 !important; }
[data-testid="stHeader"] { height: 2.5rem; background: transparent; }
/* Chinese in the figures: the served CJK font (.streamlit/config.toml), for CJK code points only. */
.js-plotly-plot .main-svg text { font-family: "Lab CJK", sans-serif !important; }
</style>
"""


@st.cache_resource
def _device_name() -> tuple[str, dict[str, object]]:
    from models.device import configure_threads, device_name, pick_device

    configure_threads()
    return device_name(pick_device())


def device_caption() -> str:
    """The compute device, once torch is loaded in this server (a model page loads it); before
    that a placeholder, so that the landing page's first paint never waits for torch."""
    if "torch" not in sys.modules:
        return tr("frame.device_pending")
    key, fields = _device_name()
    return tr("frame.device", device=tr(key, **fields))


def page_list() -> None:
    """The sidebar's list of pages in teaching order, headed by the landing page under its real
    name (Streamlit's own list would call it "app", after its file; it is switched off in
    .streamlit/config.toml). Deep links still work: Streamlit discovers pages/ by itself."""
    root = Path(__file__).resolve().parent.parent
    try:
        st.page_link("app.py", label=tr("nav.home"), icon=":material/home:")
        for number, (path, _, _) in enumerate(((p, lab, b) for p, lab, b in PAGES if (root / p).exists()), start=1):
            st.page_link(path, label=f"{number}. {page_text(path)[0]}")
    except StreamlitPageNotFoundError:
        pass  # a page script run on its own (AppTest) has no app around it to link to


_log = logging.getLogger("attention_lab.errors")


def one_line_error(ex: Exception) -> bool:
    """What a student sees of an error no page caught: one line with a reference; the traceback goes to
    the server's log under that reference (Streamlit's on_script_error hook; True: its own display,
    with the exception's text and perhaps a server path, is not shown)."""
    ref = secrets.token_hex(4)
    _log.log(logging.ERROR, "page error %s", ref, exc_info=ex)
    try:
        st.error(tr("error.page", ref=ref), icon=":material/error:")
    except Exception:  # the page is gone (a closed tab): the log has it
        pass
    return True


def catch_errors() -> None:
    """Route this script run's uncaught errors (the page's and its fragments') to :func:`one_line_error`."""
    ctx = get_script_run_ctx()
    if ctx is not None:
        ctx.on_script_error = one_line_error


def page_frame(title: str, icon: str = "🔍", intro: str | None = None) -> None:
    """Start a page: config (with a local ``page_icon``, so no font server is asked), style, sidebar;
    an error the page does not catch shows one line and a reference (:func:`catch_errors`)."""
    catch_errors()
    upkeep()  # Streamlit's collection after each run kept cheap; closed tabs' sessions freed on time (ui.heap)
    bad_lang = resolve()  # this run's language (?lang=, the session's choice, the browser's locale)
    st.set_page_config(page_title=f"{title} · {tr('app.title')}", page_icon=icon, layout="wide")
    st.markdown(_CSS, unsafe_allow_html=True)  # constant CSS, never user text
    with st.sidebar:
        language_switch()
        page_list()
        st.divider()
        keep_deck()  # the deck being built lives in the browser too: a reload or another tab finds it
        add_view_button()  # records this page and its URL settings as a slide (the Present page shows it)
        forget_view()  # this run publishes its own view state (a page that stops before it: none)
        st.caption(device_caption())
        image_buttons()  # the SVG button beside each chart's PNG button
    st.title(title)
    replay_notices(again=answer_rerun())  # the browser's deck came back right after the page opened
    if bad_lang is not None:
        st.info(tr("lang.bad", raw=quoted(bad_lang), language=LANGUAGES[current()]), icon=":material/link_off:")
    if intro:
        st.markdown(intro)
