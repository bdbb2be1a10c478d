"""Transformer pieces shared by the pages: cached loading, decoding, generation, one-head
walkthroughs and grid payloads, the head picker that the grid's clicks drive, explanations.

Models are shared read-only in ``st.cache_resource`` (inference never changes them: they are
loaded in eval mode and decoding runs under ``torch.inference_mode``); per-input results are
``st.cache_data`` entries of numpy/dataclass traces.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from models.checkpoints import LoadedTransformer, load_transformer, shipped_transformers
from ui.checkpoints import labelled, load_or_message

KIND_LABELS = {
    "encoder": "Encoder self-attention",
    "decoder": "Decoder self-attention (masked)",
    "cross": "Cross-attention (encoder–decoder)",
}
SHORT_LABELS = {"encoder": "Encoder self-attention", "decoder": "Decoder self-attention", "cross": "Cross-attention"}
AVERAGE = -1  # the "head" that means the average over heads


@st.cache_data(ttl=60)
def transformer_choices(kind: str) -> list[tuple[str, str]]:
    """(checkpoint name, label) of every shipped transformer checkpoint of ``kind``."""
    return labelled(shipped_transformers(kind))


@st.cache_resource(show_spinner="Loading model …")
def _load(name: str) -> LoadedTransformer:
    return load_transformer(name)


def load_model(name: str) -> LoadedTransformer | str:
    """The shared read-only model, or a one-line error message naming the bad file."""
    return load_or_message(_load, name)


@st.cache_data(max_entries=64, show_spinner="Translating …")
def run_translation(name: str, text: str, beam: int):
    """DecodeTrace of ``text``; raises models.inference.common.InputError for unusable input."""
    from models.inference.translate import translate_transformer

    return translate_transformer(_load(name), text, beam)


@st.cache_data(max_entries=64, show_spinner="Generating …")
def run_generation(name: str, prompt: str, max_new: int, temperature: float, top_k: int | None, seed: int):
    """GenerationTrace of the prompt; raises models.inference.common.InputError for unusable input."""
    from models.inference.generate import generate_text

    return generate_text(_load(name), prompt, max_new, temperature, top_k, seed)


@st.cache_data(max_entries=128, show_spinner="Computing …")
def run_head_view(name: str, text: str, kind: str, layer: int, head: int, query: int):
    """HeadWalkthrough (with its axes' token strings) of one head for one query."""
    from models.inference.translate import head_view

    return head_view(_load(name), text, kind, layer, head, query)


@st.cache_data(max_entries=64, show_spinner=False)
def grid_for(weights: np.ndarray, key_tokens: tuple[str, ...], query_tokens: tuple[str, ...]):
    """The layers × heads PNG mosaic (viz_core.attention_grid) of (layers, heads, L, S) weights."""
    from viz_core.attention_grid import grid_payload
    from viz_core.labels import safe_label

    return grid_payload(weights, [safe_label(t) for t in key_tokens], [safe_label(t) for t in query_tokens],
                        scale="absolute", max_thumb=96, min_thumb=100)


def head_picker(n_layers: int, n_heads: int, key: str, allow_average: bool = True) -> tuple[int, int]:
    """Layer and head selectboxes (the head list ends with "average over heads"); returns
    0-based (layer, head) with head = AVERAGE for the average. The grid's click callback
    (:func:`on_grid_select`) writes the same session keys."""
    lk, hk = f"{key}_layer", f"{key}_head"
    heads = list(range(n_heads)) + ([AVERAGE] if allow_average else [])
    if st.session_state.get(lk) not in range(n_layers):
        st.session_state[lk] = 0
    if st.session_state.get(hk) not in heads:
        st.session_state[hk] = 0
    c1, c2 = st.columns(2)
    c1.selectbox("Layer", list(range(n_layers)), format_func=lambda i: f"layer {i + 1}", key=lk)
    c2.selectbox("Head", heads, format_func=lambda h: "average over heads" if h == AVERAGE else f"head {h + 1}",
                 key=hk)
    return int(st.session_state[lk]), int(st.session_state[hk])


def on_grid_select(chart_key: str, key: str) -> None:
    """Callback of the grid chart: a clicked thumbnail selects its (layer, head)."""
    event = st.session_state.get(chart_key)
    try:
        points = event["selection"]["points"] if event else []
    except (KeyError, TypeError):
        points = []
    for point in points:
        data = point.get("customdata")
        if isinstance(data, dict):  # a numpy row arrives as {"0": layer, "1": head}
            data = [data[k] for k in sorted(data, key=int)]
        if data is not None and len(data) == 2:
            st.session_state[f"{key}_layer"], st.session_state[f"{key}_head"] = int(data[0]), int(data[1])
            return


def pick(weights: np.ndarray, layer: int, head: int) -> np.ndarray:
    """One head's matrix, or the average over heads when ``head`` is AVERAGE."""
    return weights[layer].mean(axis=0) if head == AVERAGE else weights[layer, head]


def head_name(layer: int, head: int) -> str:
    return f"layer {layer + 1}, " + ("average over heads" if head == AVERAGE else f"head {head + 1}")


def explain_translation() -> None:
    st.subheader("How the Transformer attends")
    st.markdown(
        "Every attention sub-layer computes, for each head *i*, "
        "$\\mathrm{head}_i = \\mathrm{softmax}\\big(Q W_i^Q (K W_i^K)^\\top / \\sqrt{d_k} + M\\big)\\, V W_i^V$ "
        "and concatenates the heads: $\\mathrm{MultiHead}(Q,K,V) = [\\mathrm{head}_1; …; \\mathrm{head}_h]\\, W^O$.")
    st.markdown(
        "- **Encoder self-attention**: every source token attends to every source token; the *padding mask* "
        "blocks the `<pad>` positions a batch adds.\n"
        "- **Decoder self-attention**: each target position attends to itself and earlier positions only; the "
        "*look-ahead mask* puts −∞ above the diagonal, so the softmax gives the future exactly 0.\n"
        "- **Cross-attention**: queries come from the decoder, keys and values from the encoder's output — the "
        "Transformer's counterpart of the RNN attention α of the seq2seq page, once per layer and head.")
