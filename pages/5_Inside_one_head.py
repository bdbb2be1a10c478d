"""Inside one head: QKᵀ → ÷√d_k → + mask → softmax → ·V for one query, as numbers and bars."""
from __future__ import annotations

import numpy as np
import streamlit as st

from ui.export import PLOT, export_menu
from ui.frame import page_frame
from ui.grid import head_picker
from ui.state import at_most, boolean, labels as url_labels, url_check
from ui.tokens import token_strip
from ui.transformer import KIND_LABELS, load_model, run_head_view, transformer_choices
from viz_core.labels import safe_label
from viz_core.transformer import chain_figure, chain_table, entropy, head_output_figure, vectors_figure

page_frame(
    "Inside one head",
    icon="🔬",
    intro="One attention head, one query token, every number: the query meets every key (q·kᵢ), the scores are "
    "divided by √d_k, the mask adds −∞ where attending is forbidden, the softmax turns scores into weights, "
    "and the weights mix the value vectors.",
)

from models.inference.common import InputError  # noqa: E402  (after the frame: the page shows at once)

choices = transformer_choices("encoder-decoder") + transformer_choices("decoder-only")
if not choices:
    st.error("No Transformer checkpoints found in checkpoints/. Train one: `python -m models.train --preset tf-en-fr`.")
    st.stop()
labels = dict(choices)
DEFAULT_TEXT = {"en-fr": "The red car is in the small house.", "lm": "In the beginning God created",
                "copy": "3 1 4 1 5 9", "reverse": "3 1 4 1 5 9"}


def _model_changed() -> None:
    task = getattr(load_model(st.session_state["head_model"]), "task", "en-fr")
    st.session_state["head_text"] = DEFAULT_TEXT.get(task, "")
    st.session_state["head_query"] = 0


url_check("head_model", url_labels(labels.values()), "model")  # the URL holds the model's label
default_model = "tf-en-fr" if "tf-en-fr" in labels else choices[0][0]
c1, c2 = st.columns([2, 3])
model_name = c1.selectbox("Model", list(labels), format_func=labels.get, key="head_model", on_change=_model_changed,
                          index=list(labels).index(default_model), bind="query-params")
loaded = load_model(model_name)
if isinstance(loaded, str):
    st.error(loaded)
    st.stop()
url_check("head_text", at_most(10_000), "text", "its first 10,000 characters")
if "head_text" not in st.session_state:
    st.session_state["head_text"] = DEFAULT_TEXT.get(loaded.task, "")
text = c2.text_input("Input" if loaded.task != "lm" else "Text for the language model", key="head_text",
                     max_chars=10_000, bind="query-params")

cfg = loaded.config
if loaded.kind == "decoder-only":
    kind = "lm"
    n_layers = cfg.num_decoder_layers
    st.caption("A decoder-only model has one attention per layer: causal (masked) self-attention.")
else:
    url_check("head_kind", url_labels(KIND_LABELS.values()), "attention")
    kind = st.radio("Attention", list(KIND_LABELS), format_func=KIND_LABELS.get, key="head_kind", horizontal=True,
                    bind="query-params")
    n_layers = cfg.num_encoder_layers if kind == "encoder" else cfg.num_decoder_layers
k1, k2, k3 = st.columns(3)
layer, head = head_picker(n_layers, cfg.n_heads, key="head", allow_average=False, columns=(k1, k2))

try:
    first = run_head_view(model_name, text, kind, layer, head, 0)
except InputError as exc:
    st.warning(str(exc))
    st.stop()
queries = first.query_tokens
url_check("head_query", url_labels(range(len(queries)), lambda i: f"{i}: {queries[i]}"), "query token",
          "the first token")
if st.session_state.get("head_query", 0) >= len(queries):
    st.session_state["head_query"] = len(queries) - 1
query = k3.selectbox("Query token", list(range(len(queries))),
                     format_func=lambda i: f"{i}: {queries[i]}", key="head_query", bind="query-params")
view = run_head_view(model_name, text, kind, layer, head, query) if query else first
w = view

if view.input_tokens_dropped:
    st.warning(f"The input is longer than this model reads: {view.input_tokens_dropped} tokens were cut off.")
if kind != "encoder" and kind != "lm":
    st.caption("The decoder's inputs come from a greedy translation of the input: the start token, then the "
               "output so far.")
token_strip(view.query_tokens, highlight=query,
            caption=f"Queries ({KIND_LABELS.get(kind, 'causal self-attention')}); the chosen one is outlined")
if kind == "cross":
    token_strip(view.key_tokens, caption="Keys and values: the encoder's output for the source tokens")

url_check("head_scale", boolean, "√d_k switch")
scaled = st.toggle("Divide by √d_k", value=True, key="head_scale", bind="query-params",
                   help="Switch it off to see what the softmax does with raw dot products: the scores are √d_k "
                        "times larger, and the softmax saturates towards one key.")
weights = w.weights if scaled else w.unscaled_weights
output = w.output if scaled else w.unscaled_output

st.subheader("The chain, as numbers")
st.latex(r"e_i = q\cdot k_i \;\;\longrightarrow\;\; " + (r"\frac{e_i}{\sqrt{d_k}}" if scaled else r"e_i")
         + r" \;\;\longrightarrow\;\; + M_i \;\;\longrightarrow\;\; \alpha = \mathrm{softmax}"
         r" \;\;\longrightarrow\;\; \sum_i \alpha_i v_i")
st.caption(f"This head has d_k = {w.d_k} dimensions, so √d_k = {w.scale:.3f}. M adds 0 where the query may "
           "attend and −∞ where a mask forbids it.")
left, right = st.columns([1, 1])
with left:
    st.plotly_chart(chain := chain_figure(view.key_tokens, w.scores, w.scaled, w.allowed, weights, w.scale, scaled,
                                 title=f"Query “{safe_label(view.query_tokens[query], 30)}”, layer {layer + 1}, head {head + 1}"),
                    key="head_chain", config=PLOT)
    export_menu("one-head", title=f"Inside one head: {labels[model_name]}", source=text, trace=view,
                figures={"The chain": chain}, numbers={"Layer": layer + 1, "Head": head + 1, "d_k": w.d_k,
                "Query": view.query_tokens[query], "Largest weight": float(weights.max()),
                "Entropy (bits)": entropy(weights)})
with right:
    st.dataframe(chain_table(view.key_tokens, w.scores, w.scaled, w.allowed, w.masked if scaled else
                             np.where(w.allowed, w.scores, -np.inf), weights, w.scale, scaled),
                 hide_index=True, width="stretch")
    m1, m2 = st.columns(2)
    m1.metric("Largest weight", f"{weights.max():.3f}")
    m2.metric("Entropy (bits)", f"{entropy(weights):.2f}",
              help="0 bits: all weight on one key; log₂(number of keys): spread evenly.")
    other = w.unscaled_weights if scaled else w.weights
    st.caption(f"{'Without' if scaled else 'With'} ÷√d_k the largest weight would be {other.max():.3f} "
               f"(entropy {entropy(other):.2f} bits).")
    if scaled:
        diff = float(np.abs(w.weights - w.model_weights).max())
        st.caption(f"Check: these weights equal the model's own to within {diff:.1e}.")

st.subheader("Query, keys and the output")
v1, v2 = st.columns([3, 2])
with v1:
    st.plotly_chart(vectors_figure(w.q, w.keys, view.key_tokens, view.query_tokens[query],
                                   title="q and every kᵢ of this head (red > 0, blue < 0)"), key="head_vectors",
                    config=PLOT)
with v2:
    st.plotly_chart(head_output_figure(output, title="This head's output Σ αᵢ vᵢ"), key="head_output", config=PLOT)
    st.caption("The h head outputs are concatenated and multiplied by W^O to give the sub-layer's output.")

st.markdown("**Why divide by √d_k?** If the entries of q and k have variance 1, q·k has variance d_k: "
            "with d_k = 32 the scores spread about 5.7 times wider, and the softmax pushes nearly all weight "
            "onto the largest one — its gradient then almost vanishes (Vaswani et al. 2017, §3.2.1).")
