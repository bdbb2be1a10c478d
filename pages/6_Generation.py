"""Generation: a decoder-only language model continues a prompt, one token at a time."""
from __future__ import annotations

import numpy as np
import streamlit as st

from ui.export import PLOT, PLOT_NO_BAR, export_menu
from ui.frame import page_frame
from ui.state import at_most, labels as url_labels, number_in, url_check
from ui.stepper import step_control
from ui.tokens import token_strip
from ui.grid import AVERAGE, head_name, head_picker, on_grid_select, pick
from ui.transformer import grid_for, load_model, run_generation, transformer_choices
from viz_core.labels import safe_label
from viz_core.transformer import (
    attention_matrix_figure,
    attention_row_bars,
    causal_mask,
    grid_figure,
    next_token_figure,
)

page_frame(
    "Generation",
    icon="✍️",
    intro="A small decoder-only Transformer trained on the World English Bible predicts the next word from "
    "the words so far — it can attend only to the past. Type a prompt, choose how to sample, and step "
    "through the tokens it writes.",
)

from models.inference.common import InputError  # noqa: E402  (after the frame: the page shows at once)

choices = transformer_choices("decoder-only")
if not choices:
    st.error("No language model found in checkpoints/. Train it: `python -m models.train --preset tf-lm`.")
    st.stop()
labels = dict(choices)
EXAMPLES = ["In the beginning God created", "The king said to his servants,", "Blessed are", "And it happened that"]

if "gen_text" not in st.session_state:
    st.session_state["gen_text"] = EXAMPLES[0]


def _top_k_label(k: int) -> str:
    return "no limit" if k == 0 else str(k)


def _use_example() -> None:
    if st.session_state.get("gen_example"):
        st.session_state["gen_text"] = st.session_state["gen_example"]


TOP_K = [1, 2, 3, 5, 10, 20, 50, 100, 0]
url_check("gen_text", at_most(10_000), "prompt", "its first 10,000 characters")
url_check("gen_model", url_labels(labels.values()), "model")
url_check("gen_temperature", number_in(0, 2), "temperature")
url_check("gen_top_k", url_labels(TOP_K, _top_k_label), "top-k")
url_check("gen_max_new", number_in(1, 40), "number of new tokens")
url_check("gen_seed", number_in(0, 1_000_000), "random seed")
left, right = st.columns([3, 2])
with left:
    st.selectbox("Pick an example", EXAMPLES, key="gen_example", on_change=_use_example, index=None,
                 placeholder="Example prompts …")
    prompt = st.text_area("Prompt", key="gen_text", height=80, max_chars=10_000, bind="query-params",
                          help="Empty: the model starts a new verse.")
with right:
    model_name = st.selectbox("Model", list(labels), format_func=labels.get, key="gen_model", bind="query-params")
    c1, c2 = st.columns(2)
    temperature = c1.slider("Temperature T", 0.0, 2.0, 0.8, 0.1, key="gen_temperature", bind="query-params",
                            help="Logits are divided by T before the softmax. T → 0: always the most probable token.")
    top_k = c2.select_slider("Top-k", options=TOP_K, value=20, key="gen_top_k", format_func=_top_k_label,
                             bind="query-params",
                             help="Sample only among the k most probable tokens (1 = greedy).")
    c3, c4 = st.columns(2)
    max_new = c3.slider("New tokens", 1, 40, 20, key="gen_max_new", bind="query-params")
    seed = int(c4.number_input("Random seed", 0, 1_000_000, 0, key="gen_seed", bind="query-params"))

loaded = load_model(model_name)
if isinstance(loaded, str):
    st.error(loaded)
    st.stop()

try:
    result = run_generation(model_name, prompt, max_new, float(temperature), int(top_k) or None, seed)
except InputError as exc:
    st.warning(str(exc))
    st.stop()

if result.input_tokens_dropped:
    st.warning(f"The prompt is longer than the model's context of {loaded.config.max_len} tokens: its first "
               f"{result.input_tokens_dropped} tokens were cut off.")
n_unknown = sum(result.prompt_unknown)
token_strip(result.prompt_tokens, result.prompt_unknown,
            caption="The prompt as the model reads it (<s> starts a verse)" + (
                f" — {n_unknown} words not in its vocabulary (⚠), read as <unk>" if n_unknown else ""))
st.subheader("Generated text")
token_strip([result.text or "(empty)"])
if not result.steps:
    st.info("Nothing was generated.")
    st.stop()
st.caption(f"Trained in {loaded.training.get('seconds', '?')} s; held-out perplexity "
           f"{loaded.training.get('heldout_perplexity', '?')} — a small model: expect Bible-flavoured phrases, "
           "not sense.")


@st.fragment
def steps_view() -> None:
    n = len(result.steps)
    t = step_control(n, key="gen", label="Generation step")
    step = result.steps[t]
    seen = result.tokens[: step.position]
    st.markdown(f"**Step {t + 1} of {n}** — reading {len(seen)} tokens, the model samples:")
    n_prompt = len(result.prompt_tokens)
    token_strip(result.tokens[: n_prompt + t + 1], highlight=n_prompt + t)

    dist_col, attn_col = st.columns([2, 3])
    with dist_col:
        st.plotly_chart(dist := next_token_figure(step.top_tokens, step.top_probs, step.sampling_probs,
                                                  chosen=step.token,
                                                  title=f"Next-token distribution at step {t + 1}"),
                        key="gen_dist", config=PLOT)
        st.caption(f"Chosen: “{step.token}” with probability {step.prob:.1%} under the sampled distribution.")
    with attn_col:
        layer, head = head_picker(result.attention.shape[0], result.attention.shape[1], key="gen")
        row = pick(np.asarray(step.attention)[:, :, None, :], layer, head)[0]
        st.plotly_chart(bars := attention_row_bars(row, seen, title=f"What “{safe_label(seen[-1], 30)}” attends to, {head_name(layer, head)}"),
                        key="gen_row", config=PLOT)

    size = step.position
    weights = np.ascontiguousarray(result.attention[:, :, :size, :size])
    grid_col, big_col = st.columns([1, 1])
    with grid_col:
        payload = grid_for(weights, tuple(seen), tuple(seen))
        st.plotly_chart(grid_figure(payload, selected=None if head == AVERAGE else (layer, head),
                                    title="Causal attention, every layer × head"),
                        key="gen_grid", on_select=lambda: on_grid_select("gen_grid", "gen"), selection_mode="points",
                        config=PLOT_NO_BAR)
        st.caption("Click a thumbnail to enlarge it. Everything above the diagonal is 0: the look-ahead mask.")
    with big_col:
        st.plotly_chart(matrix := attention_matrix_figure(pick(weights, layer, head), seen, seen,
                                                          blocked=~causal_mask(size), step=size - 1,
                                                          title=f"Causal self-attention, {head_name(layer, head)}",
                                                          x_title="key: earlier token", y_title="query: position"),
                        key="gen_matrix", config=PLOT)
    export_menu("generation", title=f"Generation: {labels[model_name]}", source=prompt, trace=result,
                figures={f"Step {t + 1} next token": dist, f"Step {t + 1} attention": bars,
                         f"Causal self-attention, {head_name(layer, head)}": matrix},
                numbers={"Model": labels[model_name], "Generated": result.text, "Temperature": temperature,
                         "Top-k": top_k, "Seed": seed, f"p(step {t + 1})": step.prob})


steps_view()

st.divider()
st.subheader("Sampling")
st.latex(r"p_T(x) = \frac{\exp(z_x / T)}{\sum_{y \in \text{top-}k} \exp(z_y / T)} \quad (x \in \text{top-}k)")
st.markdown("Grey bars: the model's own probabilities $\\mathrm{softmax}(z)$. Blue bars: the distribution the token "
            "is drawn from after dividing the logits by the temperature $T$ and keeping the $k$ most probable tokens. "
            "Low $T$ sharpens it (T → 0 is greedy), high $T$ flattens it. The same seed gives the same text.")
