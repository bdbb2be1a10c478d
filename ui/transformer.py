"""Transformer pieces shared by the pages: cached loading, decoding, generation, one-head
walkthroughs and grid payloads, the attention a translation page shows, explanations.

Models are shared read-only in ``st.cache_resource`` (inference never changes them: they are
loaded in eval mode and decoding runs under ``torch.inference_mode``); per-input results are
``st.cache_data`` entries of numpy/dataclass traces.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from models.checkpoints import LoadedTransformer, load_transformer, shipped_transformers
from ui.tokens import show_notices
from ui.checkpoints import labelled, load_or_message
from ui.export import PLOT
from ui.grid import head_name, pick
from viz_core.labels import safe_label
from viz_core.seq2seq import attention_heatmap
from viz_core.transformer import attention_matrix_figure, causal_mask, mask_figure, padding_mask

KIND_LABELS = {
    "encoder": "Encoder self-attention",
    "decoder": "Decoder self-attention (masked)",
    "cross": "Cross-attention (encoder–decoder)",
}
SHORT_LABELS = {"encoder": "Encoder self-attention", "decoder": "Decoder self-attention", "cross": "Cross-attention"}


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
def run_translation(name: str, text: str, beam: int, length_penalty: float):
    """DecodeTrace of ``text``; raises models.inference.common.InputError for unusable input."""
    from models.inference.translate import translate_transformer

    return translate_transformer(_load(name), text, beam, length_penalty=length_penalty)


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

    return grid_payload(weights, [safe_label(t) for t in key_tokens], [safe_label(t) for t in query_tokens],
                        scale="absolute", max_thumb=96, min_thumb=100)


def attention_of(trace, kind: str, t: int) -> tuple[np.ndarray, list[str], list[str], int | None, np.ndarray | None]:
    """What the translation page draws for attention ``kind`` at decoding step ``t`` of a
    DecodeTrace: (weights (layers, heads, L, S), key tokens, query tokens, the query row of the
    step or None, the look-ahead mask's blocked cells or None)."""
    if kind == "encoder":
        return trace.encoder_attention, trace.src_tokens, trace.src_tokens, None, None
    if kind == "decoder":
        tokens = trace.decoder_tokens[: t + 1]
        return trace.decoder_self_attention[:, :, : t + 1, : t + 1], tokens, tokens, t, ~causal_mask(t + 1)
    return trace.cross_attention[:, :, : t + 1], trace.src_tokens, trace.decoder_tokens[: t + 1], t, None


def compare_with_rnn(other, other_label: str, trace, label: str, layer: int, head: int, t: int) -> None:
    """The seq2seq trace ``other``'s attention α beside the Transformer's cross-attention of
    (layer, head) on the same sentence, with the step ``t`` outlined."""
    from models.inference.traces import display_text

    st.subheader("RNN attention against Transformer cross-attention")
    st.caption("Same sentence. Left: the seq2seq model's single attention α per step. Right: the Transformer's "
               f"cross-attention, {head_name(layer, head)} (change it above). Rows: output steps.")
    c1, c2 = st.columns(2)
    with c1:
        st.markdown(f"**{safe_label(other_label, 60)}** — {display_text(other.tgt_tokens)}")
        show_notices([n for n in other.notices if n.level == "warning"])
        if other.attention is None:
            st.info("No attention: the encoder's final state is the decoder's only view of the source.")
        else:
            st.plotly_chart(attention_heatmap(other.attention, other.src_tokens, other.tgt_tokens,
                                              step=min(t, len(other.tgt_tokens) - 1), src_unknown=other.src_unknown,
                                              title="RNN attention α"), key="tf_cmp_rnn", config=PLOT)
    with c2:
        st.markdown(f"**{label}** — {trace.text}")
        st.plotly_chart(attention_matrix_figure(
            pick(trace.cross_attention, layer, head), trace.src_tokens, trace.tgt_tokens, step=t,
            key_unknown=trace.src_unknown, title="Transformer cross-attention",
            x_title="source (English)", y_title="target step (French)"), key="tf_cmp_tf", config=PLOT)


def masks_section(src_tokens: list[str], decoder_tokens: list[str], n_pad: int = 3) -> None:
    """The padding mask of the source with ``n_pad`` pads and the decoder's look-ahead mask."""
    st.subheader("The masks")
    st.markdown("Sentences are batched: shorter ones are padded with `<pad>`, which no query may attend to "
                "(**padding mask**). The decoder must not see the future (**look-ahead mask**). A mask *adds* "
                "0 where attending is allowed and −∞ where it is not, before the softmax.")
    m1, m2 = st.columns(2)
    with m1:
        src_padded = list(src_tokens) + ["<pad>"] * n_pad
        st.plotly_chart(mask_figure(padding_mask(len(src_tokens), n_pad), src_padded, src_padded,
                                    title=f"Padding mask: {n_pad} pad tokens added",
                                    x_title="key", y_title="query"), key="tf_pad_mask", config=PLOT)
    with m2:
        st.plotly_chart(mask_figure(causal_mask(len(decoder_tokens)), decoder_tokens, decoder_tokens,
                                    title="Look-ahead mask of the decoder", x_title="key: decoder input",
                                    y_title="query: decoder step"), key="tf_causal_mask", config=PLOT)


def explain_translation() -> None:
    """How the three attentions of the encoder–decoder attend, and their masks."""
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
