"""Seq2seq attention: translate with an RNN encoder–decoder, step by step, with or without attention."""
from __future__ import annotations

import streamlit as st

from ui.export import PLOT, export_menu
from ui.frame import page_frame
from ui.seq2seq import (
    MODES,
    bleu_chart,
    explain,
    gold_alignment,
    load_model,
    local_caption,
    model_choices,
    run_translation,
)
from ui.state import at_most, labels as url_labels, number_in, url_check
from ui.stepper import length_penalty_slider, step_control
from ui.tokens import show_notices, token_strip
from viz_core.seq2seq import attention_heatmap, beam_tree_figure, step_attention_bars, topk_bars

page_frame(
    "Seq2seq attention",
    icon="🔁",
    intro="An RNN encoder reads the English sentence; a decoder writes French one word at a time. "
    "With attention, every step looks back at all source words and mixes them into a context vector. "
    "Step through a translation and see where each step looks.",
)

from corpora.en_fr import example_sentences  # noqa: E402  (after the frame: the page shows at once)
from models.inference.common import DEFAULT_LENGTH_PENALTY, InputError  # noqa: E402
from models.inference.traces import display_text  # noqa: E402

choices = model_choices()
if not choices:
    st.error("No seq2seq checkpoints found in checkpoints/. Train one: `python -m models.train --preset s2s-bahdanau`.")
    st.stop()
labels = {name: label for name, label in choices}

examples = example_sentences()


def _use_example() -> None:
    st.session_state["s2s_text"] = st.session_state["s2s_example"]


url_check("s2s_text", at_most(10_000), "text", "its first 10,000 characters")
url_check("s2s_model", url_labels(labels.values()), "model")
url_check("s2s_compare", url_labels(labels.values()), "comparison model", "no comparison")
url_check("s2s_beam", number_in(1, 8), "beam width")
url_check("s2s_mode", url_labels(MODES.values()), "attention mode")
url_check("s2s_alpha", number_in(0, 2), "length penalty")
left, right = st.columns([3, 2])
with left:
    st.selectbox("Pick an example", examples, key="s2s_example", on_change=_use_example, index=None,
                 placeholder="Examples from the corpus grammar …")
    text = st.text_area("English sentence", value=examples[0], key="s2s_text", height=80, max_chars=10_000,
                        bind="query-params")
with right:
    default_model = "s2s-bahdanau" if "s2s-bahdanau" in labels else choices[0][0]
    model_name = st.selectbox("Model", list(labels), format_func=labels.get, key="s2s_model",
                              index=list(labels).index(default_model), bind="query-params")
    compare = st.selectbox("Compare side by side with", [None] + [n for n in labels if n != model_name],
                           format_func=lambda n: "— nothing —" if n is None else labels[n], key="s2s_compare",
                           bind="query-params")
    c1, c2 = st.columns(2)
    beam = c1.slider("Beam width", 1, 8, 1, key="s2s_beam", help="1 = greedy decoding", bind="query-params")
    mode = c2.selectbox("Attention", list(MODES), format_func=MODES.get, key="s2s_mode", bind="query-params",
                        help="As trained: global, local-m or local-p, as the model was trained. Hard: one-hot at the "
                             "argmax weight, a decoding-time variant of the Luong models, not trained as such.")
    alpha = length_penalty_slider("s2s_alpha", beam, DEFAULT_LENGTH_PENALTY, bind="query-params")

loaded_primary = load_model(model_name)
if isinstance(loaded_primary, str):
    st.error(loaded_primary)
    st.stop()
if mode != "soft" and loaded_primary.model.cfg.attention != "luong":
    st.info(f"{MODES[mode]} is offered for the Luong models; {labels[model_name]} decodes with soft attention.")
    mode = "soft"


def translate_or_message(name: str):
    """The cached trace, or None after showing why the input cannot be translated."""
    try:
        return run_translation(name, text, beam, mode if load_model(name).model.cfg.attention == "luong" else "soft",
                               alpha)
    except InputError as exc:
        st.warning(str(exc))
        return None


trace = translate_or_message(model_name)
if trace is None:
    st.stop()

n_unknown = sum(trace.src_unknown)
token_strip(trace.src_tokens, trace.src_unknown,
            caption="The tokens as the model reads them" + (
                f" — {n_unknown} not in its vocabulary (⚠), read as <unk>" if n_unknown else ""))

other = None
if compare:
    loaded_other = load_model(compare)
    if isinstance(loaded_other, str):
        st.error(loaded_other)
    else:
        other = translate_or_message(compare)
gold = gold_alignment(trace)


@st.fragment
def steps_view() -> None:
    """Everything that changes with the step: re-run alone when stepping."""
    n = len(trace.tgt_tokens)
    t = step_control(n, key="s2s")
    hyp = trace.best
    st.markdown(f"**Step {t + 1} of {n}** — emitted token:")
    token_strip(hyp.tokens[: t + 1], highlight=t)
    if other is not None:
        # Side by side while the heatmaps stay readable at half width, else one above the other.
        cols = st.columns(2) if len(trace.src_tokens) <= 14 else [st.container(), st.container()]
        for col, tr in zip(cols, (trace, other)):
            with col:
                st.markdown(f"#### {labels[tr.model]}")
                st.text(display_text(tr.tgt_tokens))
                show_notices([n for n in tr.notices if n.level == "warning"])
                if tr.attention is None:
                    st.info("No attention: the encoder's final state is the decoder's only view of the source.")
                else:
                    st.plotly_chart(attention_heatmap(tr.attention, tr.src_tokens, tr.tgt_tokens,
                                                      step=min(t, len(tr.tgt_tokens) - 1),
                                                      src_unknown=tr.src_unknown),
                                    key=f"cmp_{tr.model}", config=PLOT)
        return
    heat_col, side_col = st.columns([3, 2])
    with heat_col:
        if hyp.attention is None:
            st.info("This model has no attention: each step sees the source only through the encoder's final "
                    "state, so there is nothing to show per source word. Switch to Bahdanau or Luong.")
        else:
            st.plotly_chart(heat := attention_heatmap(hyp.attention, trace.src_tokens, hyp.tokens, step=t,
                                                      gold=gold, src_unknown=trace.src_unknown,
                                                      positions=hyp.positions, width=470,
                                                      title="Attention α (rows: target steps, columns: source)"),
                            key="heatmap", config=PLOT)
            if gold:
                st.caption("Red squares: the corpus's gold word alignment for this sentence.")
            if hyp.positions is not None:
                st.caption(local_caption(loaded_primary.model.cfg))
    with side_col:
        if hyp.attention is not None:
            st.plotly_chart(bars := step_attention_bars(hyp.attention[t], trace.src_tokens, trace.src_unknown,
                                                        title=f"α at step {t + 1}"), key="bars", config=PLOT)
        st.plotly_chart(topk := topk_bars(hyp.topk_tokens[t], hyp.topk_probs[t], emitted=hyp.tokens[t],
                                          title=f"Top-{len(hyp.topk_tokens[t])} next tokens at step {t + 1}"),
                        key="topk", config=PLOT)
    export_menu("seq2seq", title=f"Seq2seq attention: {labels[model_name]}", source=text, trace=trace,
                figures={"Attention": heat, f"Step {t + 1} attention": bars, f"Step {t + 1} top-k": topk}
                if hyp.attention is not None else {f"Step {t + 1} top-k": topk},
                numbers={"Model": labels[model_name], "Translation": display_text(trace.tgt_tokens),
                         "Search": f"{trace.search}, width {trace.beam_width}", "Score": hyp.score})
    if trace.search == "beam":
        st.subheader("Beam search")
        st.plotly_chart(beam_tree_figure(trace.beam_steps, upto=t + 1,
                                         title=f"Beam of width {trace.beam_width}: candidates up to step {t + 1}"),
                        key="beam_tree", config=PLOT)


st.subheader(f"Translation by {labels[model_name]}")
token_strip([display_text(trace.tgt_tokens)])
show_notices(trace.notices)
steps_view()

if trace.search == "beam":
    st.markdown(f"**Every hypothesis the beam finished**, best first (score = Σ log p / ((5 + |y|) / 6)^α, "
                f"α = {trace.length_penalty:g}):")
    tabs = st.tabs([f"#{i + 1}  {h.score:.3f}" for i, h in enumerate(trace.hypotheses)])
    for i, (tab, h) in enumerate(zip(tabs, trace.hypotheses)):
        with tab:
            st.text(display_text(h.tokens) + ("" if h.finished else "   (not finished: length limit)"))
            if h.attention is not None:
                st.columns([3, 2])[0].plotly_chart(attention_heatmap(h.attention, trace.src_tokens, h.tokens,
                                                                     src_unknown=trace.src_unknown), key=f"hyp_{i}",
                                                   config=PLOT)

st.divider()
bleu_chart()
explain()
