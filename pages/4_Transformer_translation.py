"""Transformer translation: decode step by step and look at every layer and head of the three attentions."""
from __future__ import annotations

import numpy as np
import streamlit as st

from ui.export import PLOT, PLOT_NO_BAR, export_menu
from ui.frame import page_frame
from ui.grid import AVERAGE, head_name, head_picker, on_grid_select, pick
from ui.state import at_most, labels as url_labels, number_in, url_check
from ui.stepper import length_penalty_slider, step_control
from ui.tokens import show_notices, token_strip
from ui.transformer import (
    KIND_LABELS,
    SHORT_LABELS,
    attention_of,
    compare_with_rnn,
    explain_translation,
    grid_for,
    load_model,
    masks_section,
    run_translation,
    transformer_choices,
)
from viz_core.seq2seq import beam_tree_figure, step_attention_bars, topk_bars
from viz_core.transformer import attention_matrix_figure, grid_figure

page_frame(
    "Transformer translation",
    icon="🤖",
    intro="No recurrence: the encoder's tokens attend to each other, the decoder attends to its own past "
    "(masked) and to the encoder's output (cross-attention) — in every layer, with several heads at once. "
    "Decode a sentence step by step and open any layer and head.",
)

from corpora.en_fr import example_sentences  # noqa: E402  (after the frame: the page shows at once)
from models.inference.common import DEFAULT_LENGTH_PENALTY, InputError  # noqa: E402

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
linked = url_check("tf_model", url_labels(labels.values()), "model")  # the URL holds the model's label
first_model = next((n for n, lab in labels.items() if lab == linked), default_model)  # for the first text
url_check("tf_text", at_most(10_000), "text", "its first 10,000 characters")
url_check("tf_beam", number_in(1, 8), "beam width")
url_check("tf_alpha", number_in(0, 2), "length penalty")
if "tf_text" not in st.session_state:
    st.session_state["tf_text"] = _example_for(st.session_state.get("tf_model", first_model))

left, right = st.columns([3, 2])
with right:
    model_name = st.selectbox("Model", list(labels), format_func=labels.get, key="tf_model",
                              index=list(labels).index(default_model), on_change=_model_changed, bind="query-params")
    beam = st.slider("Beam width (1 = greedy)", 1, 8, 1, key="tf_beam", bind="query-params")
    alpha = length_penalty_slider("tf_alpha", beam, DEFAULT_LENGTH_PENALTY, bind="query-params")
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
                        height=80, max_chars=10_000, bind="query-params")
with right:
    compare = None
    if is_translation:
        from ui.seq2seq import model_choices as seq2seq_choices

        s2s = dict(seq2seq_choices())
        url_check("tf_compare", url_labels(s2s.values()), "comparison model", "no comparison")
        compare = st.selectbox("Side by side with an RNN (seq2seq) model", [None] + list(s2s),
                               format_func=lambda n: "— nothing —" if n is None else s2s[n], key="tf_compare",
                               bind="query-params")

try:
    trace = run_translation(model_name, text, beam, alpha)
except InputError as exc:
    st.warning(str(exc))
    st.stop()

n_unknown = sum(trace.src_unknown)
token_strip(trace.src_tokens, trace.src_unknown,
            caption="The tokens as the encoder reads them" + (
                f" — {n_unknown} not in its vocabulary (⚠), read as <unk>" if n_unknown else ""))
st.subheader(f"Output of {labels[model_name]}")
token_strip([trace.text or "(empty)"])
show_notices(trace.notices)
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

    url_check("tf_kind", url_labels(KIND_LABELS.values()), "attention")
    kind = st.radio("Attention", list(KIND_LABELS), format_func=KIND_LABELS.get, key="tf_kind", horizontal=True,
                    index=2, bind="query-params")
    weights, keys, queries, step_row, blocked = attention_of(trace, kind, t)

    grid_col, head_col = st.columns([1, 1])
    with grid_col:
        layer, head = head_picker(trace.n_layers, trace.n_heads, key="tf")
        payload = grid_for(np.ascontiguousarray(weights), tuple(keys), tuple(queries))
        st.plotly_chart(
            grid_figure(payload, selected=None if head == AVERAGE else (layer, head),
                        title="All layers × heads — click one to enlarge"),
            key="tf_grid", on_select=lambda: on_grid_select("tf_grid", "tf"), selection_mode="points",
            config=PLOT_NO_BAR)
        st.caption("Each thumbnail is one head (rows: queries, columns: keys), white = 0, dark blue = 1. "
                   "The image is rendered on the server: no weights are sent as JSON.")
    with head_col:
        matrix = pick(weights, layer, head)
        what = SHORT_LABELS[kind]
        st.plotly_chart(head_fig := attention_matrix_figure(
            matrix, keys, queries, blocked=blocked, step=step_row, key_unknown=trace.src_unknown
            if kind != "decoder" else None, title=f"{what}: {head_name(layer, head)}",
            x_title="key: source token" if kind != "decoder" else "key: decoder input",
            y_title="query: source token" if kind == "encoder" else "query: decoder step"),
            key="tf_head_fig", config=PLOT)
        if kind == "decoder":
            st.caption("Grey cells: the look-ahead mask (−∞ before the softmax, weight exactly 0).")

    bars_col, topk_col = st.columns(2)
    with bars_col:
        row = pick(trace.cross_attention[:, :, t: t + 1], layer, head)[0]
        st.plotly_chart(bars := step_attention_bars(row, trace.src_tokens, trace.src_unknown,
                                                    title=f"Cross-attention at step {t + 1}, {head_name(layer, head)}"),
                        key="tf_cross_bars", config=PLOT)
    with topk_col:
        st.plotly_chart(topk := topk_bars(trace.topk_tokens[t], trace.topk_probs[t], emitted=trace.tgt_tokens[t],
                                          title=f"Top-{len(trace.topk_tokens[t])} next tokens at step {t + 1}"),
                        key="tf_topk", config=PLOT)
    export_menu("transformer", title=f"Transformer translation: {labels[model_name]}", source=text, trace=trace,
                figures={f"{what}, {head_name(layer, head)}": head_fig, f"Step {t + 1} cross-attention": bars,
                         f"Step {t + 1} top-k": topk},
                numbers={"Model": labels[model_name], "Output": trace.text, "Search": f"{trace.search}, width "
                         f"{trace.beam_width}", "Σ log p": trace.score, "Step": t + 1, "Head": head_name(layer, head)})

    if other is not None:
        compare_with_rnn(other, s2s.get(other.model, other.model), trace, labels[model_name], layer, head, t)

    if trace.search == "beam":
        st.subheader("Beam search")
        st.plotly_chart(beam_tree_figure(trace.beam_steps, upto=t + 1,
                                         title=f"Beam of width {trace.beam_width}: hypotheses kept up to step {t + 1}"),
                        key="tf_beam_tree", config=PLOT)
        st.caption(f"Finished outputs are ranked by Σ log p / ((5 + |y|) / 6)^α with α = {trace.length_penalty:g} "
                   "(Wu et al. 2016) — the same rule as the seq2seq page.")


steps_view()

st.divider()
masks_section(trace.src_tokens, trace.decoder_tokens)
explain_translation()
