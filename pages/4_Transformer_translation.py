"""Transformer translation: decode step by step and look at every layer and head of the three attentions."""
from __future__ import annotations

import numpy as np
import streamlit as st

from ui.frame import page_frame
from ui.stepper import step_control
from ui.tokens import token_strip
from ui.transformer import (
    AVERAGE,
    KIND_LABELS,
    SHORT_LABELS,
    explain_translation,
    grid_for,
    head_name,
    head_picker,
    load_model,
    on_grid_select,
    pick,
    run_translation,
    transformer_choices,
)
from viz_core.seq2seq import attention_heatmap, beam_tree_figure, step_attention_bars, topk_bars
from viz_core.transformer import attention_matrix_figure, grid_figure, mask_figure

page_frame(
    "Transformer translation",
    icon="🤖",
    intro="No recurrence: the encoder's tokens attend to each other, the decoder attends to its own past "
    "(masked) and to the encoder's output (cross-attention) — in every layer, with several heads at once. "
    "Decode a sentence step by step and open any layer and head.",
)

from corpora.en_fr import example_sentences  # noqa: E402  (after the frame: the page shows at once)
from models.inference.common import InputError  # noqa: E402

choices = transformer_choices("encoder-decoder")
if not choices:
    st.error("No Transformer checkpoints found in checkpoints/. Train one: `python -m models.train --preset tf-en-fr`.")
    st.stop()
labels = dict(choices)
TOY_EXAMPLE = "3 1 4 1 5 9 2 6"
examples = example_sentences()


def _example_for(name: str) -> str:
    return examples[0] if name.endswith("en-fr") or "fr" in name else TOY_EXAMPLE


def _model_changed() -> None:
    # A toy model reads digits, the translation model English: give each a fitting input.
    st.session_state["tf_text"] = _example_for(st.session_state["tf_model"])


def _use_example() -> None:
    if st.session_state.get("tf_example"):
        st.session_state["tf_text"] = st.session_state["tf_example"]


default_model = "tf-en-fr" if "tf-en-fr" in labels else choices[0][0]
if st.session_state.get("tf_model") not in labels:
    st.session_state["tf_model"] = default_model
if "tf_text" not in st.session_state:
    st.session_state["tf_text"] = _example_for(st.session_state["tf_model"])

left, right = st.columns([3, 2])
with right:
    model_name = st.selectbox("Model", list(labels), format_func=labels.get, key="tf_model",
                              on_change=_model_changed)
    beam = st.slider("Beam width (1 = greedy)", 1, 8, 1, key="tf_beam")
loaded = load_model(model_name)
if isinstance(loaded, str):
    st.error(loaded)
    st.stop()
is_translation = loaded.task == "en-fr"
with left:
    if is_translation:
        st.selectbox("Pick an example", examples, key="tf_example", on_change=_use_example, index=None,
                     placeholder="Examples from the corpus grammar …")
    text = st.text_area("English sentence" if is_translation else "Digits 0–9, separated by spaces", key="tf_text",
                        height=80, max_chars=10_000)
with right:
    compare = None
    if is_translation:
        from ui.seq2seq import model_choices as seq2seq_choices

        s2s = dict(seq2seq_choices())
        compare = st.selectbox("Side by side with an RNN (seq2seq) model", [None] + list(s2s),
                               format_func=lambda n: "— nothing —" if n is None else s2s[n], key="tf_compare")

try:
    trace = run_translation(model_name, text, beam)
except InputError as exc:
    st.warning(str(exc))
    st.stop()

if trace.input_tokens_dropped:
    st.warning(f"The input is longer than this model reads ({len(trace.src_tokens) - (1 if is_translation else 0)} "
               f"tokens): the last {trace.input_tokens_dropped} tokens were cut off.")
n_unknown = sum(trace.src_unknown)
token_strip(trace.src_tokens, trace.src_unknown,
            caption="The tokens as the encoder reads them" + (
                f" — {n_unknown} not in its vocabulary (⚠), read as <unk>" if n_unknown else ""))
st.subheader(f"Output of {labels[model_name]}")
token_strip([trace.text or "(empty)"])
if not trace.tgt_tokens:
    st.info("The model produced no tokens.")
    st.stop()

other = None
if compare:
    from ui.seq2seq import load_model as load_seq2seq_model
    from ui.seq2seq import run_translation as run_seq2seq

    loaded_other = load_seq2seq_model(compare)
    if isinstance(loaded_other, str):
        st.error(loaded_other)
    else:
        try:
            other = run_seq2seq(compare, text, 1, "soft", 2)
        except InputError as exc:
            st.warning(str(exc))


@st.fragment
def steps_view() -> None:
    """Everything that changes with the step or the chosen head: re-run alone."""
    n = len(trace.tgt_tokens)
    t = step_control(n, key="tf")
    st.markdown(f"**Step {t + 1} of {n}** — the decoder reads the tokens up to "
                f"“{trace.decoder_tokens[t]}” and emits:")
    token_strip(trace.tgt_tokens[: t + 1], highlight=t)

    kind = st.radio("Attention", list(KIND_LABELS), format_func=KIND_LABELS.get, key="tf_kind", horizontal=True,
                    index=2)
    if kind == "encoder":
        weights, keys, queries = trace.encoder_attention, trace.src_tokens, trace.src_tokens
        step_row, blocked = None, None
    elif kind == "decoder":
        weights = trace.decoder_self_attention[:, :, : t + 1, : t + 1]
        keys = queries = trace.decoder_tokens[: t + 1]
        step_row = t
        blocked = ~np.tril(np.ones((t + 1, t + 1), dtype=bool))
    else:
        weights, keys, queries = trace.cross_attention[:, :, : t + 1], trace.src_tokens, trace.decoder_tokens[: t + 1]
        step_row, blocked = t, None

    grid_col, head_col = st.columns([1, 1])
    with grid_col:
        layer, head = head_picker(trace.n_layers, trace.n_heads, key="tf")
        payload = grid_for(np.ascontiguousarray(weights), tuple(keys), tuple(queries))
        st.plotly_chart(
            grid_figure(payload, selected=None if head == AVERAGE else (layer, head),
                        title="All layers × heads — click one to enlarge"),
            key="tf_grid", on_select=lambda: on_grid_select("tf_grid", "tf"), selection_mode="points",
            config={"displaylogo": False, "displayModeBar": False})
        st.caption("Each thumbnail is one head (rows: queries, columns: keys), white = 0, dark blue = 1. "
                   "The image is rendered on the server: no weights are sent as JSON.")
    with head_col:
        matrix = pick(weights, layer, head)
        what = SHORT_LABELS[kind]
        st.plotly_chart(attention_matrix_figure(
            matrix, keys, queries, blocked=blocked, step=step_row, key_unknown=trace.src_unknown
            if kind != "decoder" else None, title=f"{what}: {head_name(layer, head)}",
            x_title="key: source token" if kind != "decoder" else "key: decoder input",
            y_title="query: source token" if kind == "encoder" else "query: decoder step"),
            key="tf_head_fig", config={"displaylogo": False})
        if kind == "decoder":
            st.caption("Grey cells: the look-ahead mask (−∞ before the softmax, weight exactly 0).")

    bars_col, topk_col = st.columns(2)
    with bars_col:
        row = pick(trace.cross_attention[:, :, t: t + 1], layer, head)[0]
        st.plotly_chart(step_attention_bars(row, trace.src_tokens, trace.src_unknown,
                                            title=f"Cross-attention at step {t + 1}, {head_name(layer, head)}"),
                        key="tf_cross_bars")
    with topk_col:
        st.plotly_chart(topk_bars(trace.topk_tokens[t], trace.topk_probs[t], emitted=trace.tgt_tokens[t],
                                  title=f"Top-{len(trace.topk_tokens[t])} next tokens at step {t + 1}"), key="tf_topk")

    if other is not None:
        st.subheader("RNN attention against Transformer cross-attention")
        st.caption("Same sentence. Left: the seq2seq model's single attention α per step. Right: the Transformer's "
                   f"cross-attention, {head_name(layer, head)} (change it above). Rows: output steps.")
        c1, c2 = st.columns(2)
        with c1:
            st.markdown(f"**{safe(s2s_label(other))}** — {other_text(other)}")
            if other.attention is None:
                st.info("No attention: the encoder's final state is the decoder's only view of the source.")
            else:
                st.plotly_chart(attention_heatmap(other.attention, other.src_tokens, other.tgt_tokens,
                                                  step=min(t, len(other.tgt_tokens) - 1), src_unknown=other.src_unknown,
                                                  title="RNN attention α"), key="tf_cmp_rnn")
        with c2:
            st.markdown(f"**{labels[model_name]}** — {trace.text}")
            st.plotly_chart(attention_matrix_figure(
                pick(trace.cross_attention, layer, head), trace.src_tokens, trace.tgt_tokens, step=t,
                key_unknown=trace.src_unknown, title="Transformer cross-attention",
                x_title="source (English)", y_title="target step (French)"), key="tf_cmp_tf")

    if trace.search == "beam":
        st.subheader("Beam search")
        st.plotly_chart(beam_tree_figure(trace.beam_steps, upto=t + 1,
                                         title=f"Beam of width {trace.beam_width}: hypotheses kept up to step {t + 1}"),
                        key="tf_beam_tree")


def safe(text: str) -> str:
    from viz_core.labels import safe_label

    return safe_label(text, 60)


def s2s_label(tr) -> str:
    return dict(s2s).get(tr.model, tr.model)


def other_text(tr) -> str:
    from models.inference.traces import display_text

    return display_text(tr.tgt_tokens)


steps_view()

st.divider()
st.subheader("The masks")
st.markdown("Sentences are batched: shorter ones are padded with `<pad>`, which no query may attend to "
            "(**padding mask**). The decoder must not see the future (**look-ahead mask**). A mask *adds* "
            "0 where attending is allowed and −∞ where it is not, before the softmax.")
m1, m2 = st.columns(2)
with m1:
    n_pad = 3
    src_padded = list(trace.src_tokens) + ["<pad>"] * n_pad
    allowed = np.ones((len(src_padded), len(src_padded)), dtype=bool)
    allowed[:, len(trace.src_tokens):] = False
    st.plotly_chart(mask_figure(allowed, src_padded, src_padded,
                                title=f"Padding mask: {n_pad} pad tokens added",
                                x_title="key", y_title="query"), key="tf_pad_mask")
with m2:
    dec = trace.decoder_tokens
    st.plotly_chart(mask_figure(np.tril(np.ones((len(dec), len(dec)), dtype=bool)), dec, dec,
                                title="Look-ahead mask of the decoder", x_title="key: decoder input",
                                y_title="query: decoder step"), key="tf_causal_mask")

explain_translation()
