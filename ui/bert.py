"""BERT pieces shared by the BERT pages: cached models, cached per-input results, chips, explanations.

Models live in ``st.cache_resource`` (shared, read-only); per-input results in
``st.cache_data(max_entries=...)`` with hashable arguments, returning numpy dataclasses.
"""
from __future__ import annotations

import html
import re
from collections.abc import Sequence

import streamlit as st

from viz_core.bert import OUTCOME_BG, OUTCOME_COLORS, SPECIAL_COLOR

SMALL_BERT = "bert-small"
MAX_CHARS = 10_000


# --------------------------------------------------------------------------------------
# The small BERT
# --------------------------------------------------------------------------------------

@st.cache_resource(show_spinner="Loading the small BERT …")
def _load_small(name: str):
    from models.checkpoints import load_bert
    from models.device import configure_threads

    configure_threads()
    return load_bert(name)


def load_small_bert(name: str = SMALL_BERT):
    """The shared read-only LoadedBert, or a one-line error message."""
    from ui.checkpoints import load_or_message

    return load_or_message(_load_small, name, ". Train it: `python -m models.train --preset bert-small`.")


def clean_text(text: str | None) -> str:
    """Text as typed, cut to MAX_CHARS, with lone surrogates dropped (they break the tokenizer)."""
    text = (text or "")[:MAX_CHARS]
    return "".join(ch for ch in text if not 0xD800 <= ord(ch) <= 0xDFFF)


@st.cache_data(max_entries=64, show_spinner=False)
def analyse(name: str, text_a: str, text_b: str, seed: int, draw: bool, clicked: tuple[int, ...],
            top_k: int = 5):
    """MaskedAnalysis (models.inference.bert.analyse_masked) of the typed pair, cached per input."""
    from models.inference.bert import analyse_masked

    return analyse_masked(_load_small(name), clean_text(text_a), clean_text(text_b), seed, draw, clicked, top_k)


@st.cache_data(max_entries=32, show_spinner=False)
def masking_stats(special: tuple[bool, ...], n_draws: int, seed: int):
    from corpora.masking import masking_statistics

    return masking_statistics(special, n_draws=n_draws, seed=seed)


@st.cache_data(max_entries=8, show_spinner="Drawing sentence pairs …")
def nsp_examples(name: str, seed: int, n: int = 8) -> list[tuple[str, str, bool, float]]:
    """``n`` held-out IsNext/NotNext pairs with the model's P(IsNext): (a, b, is_next, p)."""
    from models.inference.bert import run_bert
    from corpora.bert_data import heldout_text_pairs

    loaded = _load_small(name)
    out = []
    for a, b, is_next in heldout_text_pairs(n, seed):
        enc = loaded.tokenizer.encode_pair(a, b, max_len=loaded.config.max_len)
        out.append((a, b, is_next, run_bert(loaded.model, enc.ids, enc.segment_ids, top_k=1).p_is_next))
    return out


@st.cache_data(ttl=60)
def example_pairs() -> list[tuple[str, str]]:
    """A few held-out consecutive sentence pairs for the example picker (never training text)."""
    try:
        from corpora.bert_data import heldout_text_pairs

        return [(a, b) for a, b, is_next in heldout_text_pairs(40, seed=7) if is_next][:8]
    except Exception:  # the corpus package may be missing: the page still works on typed text
        return []


# --------------------------------------------------------------------------------------
# Real models
# --------------------------------------------------------------------------------------

@st.cache_resource(show_spinner="Loading the model …", max_entries=3)
def _load_real(path: str):
    from models.device import configure_threads
    from models.inference.hf_adapter import load_hf_model

    configure_threads()
    return load_hf_model(path or None)


def load_real_model(path: str):
    """The shared HFModel for ``path`` ('' = the installed MiniLM-L6), or a one-line error message."""
    from models.inference.hf_adapter import ModelDirError

    try:
        return _load_real(path)
    except ModelDirError as exc:
        return str(exc)


@st.cache_data(max_entries=3, show_spinner="Running the model …")
def real_trace(path: str, text: str, text_b: str, max_tokens: int):
    """Every layer's attention of ``text`` (raises ValueError for empty text)."""
    from models.inference.hf_adapter import run_hf

    return run_hf(_load_real(path), clean_text(text), clean_text(text_b) or None, max_tokens=max_tokens)


# --------------------------------------------------------------------------------------
# Chips and small helpers
# --------------------------------------------------------------------------------------

_CHIP = ("display:inline-block;margin:3px 3px;padding:3px 8px;border-radius:8px;font-size:1.2rem;"
         "font-family:ui-monospace,monospace;border:3px solid {border};background:{bg};color:{fg};"
         "text-align:center;line-height:1.25")


def masking_chips(original: Sequence[str], shown: Sequence[str], outcomes: Sequence[str],
                  segment_ids: Sequence[int] | None = None) -> None:
    """Tokens as chips, colour-coded by outcome; a changed token shows "original → shown"; the
    position under each chip. All text is HTML-escaped."""
    chips = []
    for i, (o, s, kind) in enumerate(zip(original, shown, outcomes)):
        special = o in ("[CLS]", "[SEP]", "[PAD]")
        border = SPECIAL_COLOR if special else OUTCOME_COLORS.get(kind, "#9aa7b8")
        bg = "#eceff1" if special else OUTCOME_BG.get(kind, "#f4f6f9")
        text = html.escape(o) if o == s else f"{html.escape(o)}<br>→&nbsp;{html.escape(s)}"
        seg = f" · {'AB'[segment_ids[i]]}" if segment_ids is not None and segment_ids[i] in (0, 1) else ""
        chips.append(f'<span style="{_CHIP.format(border=border, bg=bg, fg="#111")}">{text}'
                     f'<br><small style="color:#666;font-size:0.75rem">{i}{seg}</small></span>')
    st.html(f'<div style="line-height:1.4">{"".join(chips)}</div>')


def legend_chips() -> None:
    """The colour key of the masking outcomes."""
    items = [("[MASK]", "chosen → [MASK] (80%)"), ("random", "chosen → random token (10%)"),
             ("kept", "chosen → kept as is (10%)"), ("not chosen", "not chosen (85%)")]
    chips = [f'<span style="{_CHIP.format(border=OUTCOME_COLORS[k], bg=OUTCOME_BG[k], fg="#111")}">{html.escape(t)}</span>'
             for k, t in items]
    chips.append(f'<span style="{_CHIP.format(border=SPECIAL_COLOR, bg="#eceff1", fg="#111")}">[CLS] [SEP]: never chosen</span>')
    st.html(f'<div>{"".join(chips)}</div>')


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>$:])")


def md_escape(text: str) -> str:
    """Backslash-escape markdown so user text shows as typed in widget labels and markdown."""
    return _MD_SPECIAL.sub(r"\\\1", str(text))
