"""The shared page frame: page config, projector-friendly styling and the sidebar."""
from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from ui.export import image_buttons

# Pages in teaching order: (file, label). The landing page links those that exist.
PAGES: list[tuple[str, str, str]] = [
    ("pages/1_Attention_from_scratch.py", "Attention from scratch",
     "Kernel regression, score functions, soft/hard/local attention, a Q/K/V sandbox."),
    ("pages/2_Seq2seq_attention.py", "Seq2seq attention",
     "Translate with an RNN encoder–decoder: no attention, Bahdanau, Luong; step by step."),
    ("pages/3_Positional_encoding.py", "Positional encoding",
     "Sinusoids, their rotation property, learned, relative, RoPE and ALiBi."),
    ("pages/4_Transformer_translation.py", "Transformer translation",
     "Multi-head encoder self-, masked decoder self- and cross-attention."),
    ("pages/5_Inside_one_head.py", "Inside one head",
     "QKᵀ → ÷√d_k → mask → softmax → ·V for one query, as numbers."),
    ("pages/6_Generation.py", "Generation",
     "A decoder-only language model, token by token."),
    ("pages/7_BERT_masking.py", "BERT masking",
     "WordPiece, 15% masking (80/10/10), next-sentence pairs, predictions."),
    ("pages/8_Real_model_explorer.py", "Real model explorer",
     "Every layer and head of a real pretrained encoder."),
]

_CSS = """
<style>
/* Projector-friendly: larger text, clear contrast, room around content. */
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.05rem; }
[data-testid="stMetricValue"] p { font-size: inherit; }
.block-container { padding-top: 2.2rem; max-width: 1400px; }
</style>
"""


@st.cache_resource
def _device_label() -> str:
    from models.device import configure_threads, describe_device, pick_device

    configure_threads()
    return describe_device(pick_device())


def device_caption() -> str:
    """The compute device, once torch is loaded in this server (a model page loads it); before
    that a placeholder, so that the landing page's first paint never waits for torch."""
    if "torch" not in sys.modules:
        return "Compute device: shown once a model has loaded"
    return f"Compute device: **{_device_label()}**"


def page_list() -> None:
    """The sidebar's list of pages in teaching order, headed by the landing page under its real
    name (Streamlit's own list would call it "app", after its file; it is switched off in
    .streamlit/config.toml). Deep links still work: Streamlit discovers pages/ by itself."""
    root = Path(__file__).resolve().parent.parent
    try:
        st.page_link("app.py", label="Attention Lab — home", icon=":material/home:")
        for number, (path, label, _) in enumerate(((p, lab, b) for p, lab, b in PAGES if (root / p).exists()),
                                                  start=1):
            st.page_link(path, label=f"{number}. {label}")
    except StreamlitPageNotFoundError:
        pass  # a page script run on its own (AppTest) has no app around it to link to


def page_frame(title: str, icon: str = "🔍", intro: str | None = None) -> None:
    """Start a page: config (with a local ``page_icon``, so no font server is asked), style, sidebar."""
    st.set_page_config(page_title=f"{title} · Attention Lab", page_icon=icon, layout="wide")
    st.markdown(_CSS, unsafe_allow_html=True)  # constant CSS, never user text
    with st.sidebar:
        page_list()
        st.divider()
        st.caption(device_caption())
        image_buttons()  # the SVG button beside each chart's PNG button
    st.title(title)
    if intro:
        st.markdown(intro)
