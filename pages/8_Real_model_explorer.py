"""Real model explorer: every layer and head of a real pretrained encoder, on any text, up to 512 tokens."""
from __future__ import annotations

import time

import streamlit as st

from ui.frame import page_frame

page_frame(
    "Real model explorer",
    icon="🔬",
    intro="The same attention, inside a real pretrained encoder: MiniLM-L6 (6 layers × 12 heads, BERT "
    "architecture, distilled from a large model and trained on over a billion sentence pairs), installed "
    "as a package and run here offline — or any Hugging Face model folder on this machine.",
)

from models.inference.hf_adapter import DEFAULT_MODEL_LABEL, MAX_TOKENS  # noqa: E402
from ui.bert import load_real_model, real_grid, real_trace  # noqa: E402
from ui.export import PLOT, export_menu  # noqa: E402
from ui.grid import head_picker, on_grid_select  # noqa: E402
from ui.state import at_most, number_in, url_check  # noqa: E402
from ui.state import labels as url_labels  # noqa: E402
from ui.tokens import md_escape  # noqa: E402
from viz_core.bert import explorer_head_figures, lines_figure  # noqa: E402

MAX_CHOICES = [32, 64, 128, 256, 384, 512]
DEFAULT_TEXT = ("The animal didn't cross the street because it was too tired. "
                "The trophy would not fit in the brown suitcase because it was too big.")

# ------------------------------------------------------------------------------------
# Model and text
# ------------------------------------------------------------------------------------
url_check("real_text", at_most(20_000), "text", "its first 20,000 characters")
url_check("real_text_b", at_most(10_000), "second segment", "its first 10,000 characters")
url_check("real_max", url_labels(MAX_CHOICES), "token limit")
left, right = st.columns([3, 2])
with left:  # the text widgets first: they must be drawn on every run, or Streamlit forgets their value
    if "real_text" not in st.session_state:
        st.session_state["real_text"] = DEFAULT_TEXT
    text = st.text_area("Text", key="real_text", height=120, max_chars=20_000, bind="query-params")
    text_b = st.text_input("Second segment (optional, read as segment B)", key="real_text_b", max_chars=10_000,
                           bind="query-params")
with right:
    source = st.radio("Model", ["installed", "folder"], key="real_source", horizontal=True,
                      format_func={"installed": "MiniLM-L6 (installed)", "folder": "A local model folder"}.get)
    folder = ""
    if source == "folder":
        folder = st.text_input("Model folder (config.json + weights + tokenizer; nothing is downloaded)",
                               key="real_dir", placeholder="/path/to/a/bert-base-uncased", max_chars=4096)
    max_tokens = st.select_slider("Read at most this many tokens", MAX_CHOICES, value=MAX_TOKENS,
                                  key="real_max", bind="query-params")
if source == "folder" and not folder.strip():
    st.info("Type the path of a local Hugging Face model folder, e.g. one saved with `save_pretrained`.")
    st.stop()

model = load_real_model(folder.strip())
if isinstance(model, str):
    st.error(f"Cannot use this model: {md_escape(model)}")  # the message quotes the typed path: never markdown
    st.stop()
with right:
    st.caption(("**" + DEFAULT_MODEL_LABEL + "** — " if not folder else f"**{md_escape(folder.strip())}** — ")
               + model.summary)

if not (text or "").strip():
    st.warning("The text is empty: type something for the model to read.")
    st.stop()

t0 = time.perf_counter()
try:
    trace = real_trace(folder.strip(), text, text_b or "", int(max_tokens))
except ValueError as exc:
    st.warning(str(exc))
    st.stop()
tokens = trace.tokens
n_layers, n_heads, L, _ = trace.attention.shape
if trace.truncated:
    st.warning(f"The text has {trace.n_tokens_in} tokens; the model reads the first {L} "
               f"({trace.truncated} cut off). Raise the limit (up to {min(MAX_TOKENS, model.max_positions)}) or "
               "shorten the text.")
n_unk = sum(t == getattr(model.tokenizer, "unk_token", "[UNK]") for t in tokens)
if n_unk:
    st.info(f"{n_unk} token(s) are unknown to this model's vocabulary ({getattr(model.tokenizer, 'unk_token', '[UNK]')}).")

# ------------------------------------------------------------------------------------
# Grid of every layer and head (one PNG mosaic)
# ------------------------------------------------------------------------------------
st.subheader(f"All {n_layers * n_heads} heads: {n_layers} layers × {n_heads} heads over {L} tokens")
SHADES = {"head": "each head to its own maximum", "absolute": "weight 1 = darkest"}
url_check("real_scale", url_labels(SHADES.values()), "shading")
scale = st.segmented_control("Shade", list(SHADES), default="absolute", key="real_scale", bind="query-params",
                             format_func=SHADES.get) or "absolute"
payload = real_grid(folder.strip(), text, text_b or "", int(max_tokens), scale)
grid_fig = payload.figure()
st.plotly_chart(grid_fig, key="real_grid", on_select=lambda: on_grid_select("real_grid", "real"),
                selection_mode="points", config=PLOT)
st.caption("Each thumbnail is one head: rows are queries, columns keys, in token order"
           + (f" ({payload.row_factor} tokens per pixel, block maximum)" if payload.row_factor > 1 else "")
           + ". Click a thumbnail to open it below.")

# ------------------------------------------------------------------------------------
# One head, the head average, and the lines view
# ------------------------------------------------------------------------------------
layer, head = head_picker(n_layers, n_heads, key="real", allow_average=False)
one, avg = explorer_head_figures(trace.attention[layer], head, tokens, scale=scale)
binned = " (binned: see below)" if one.binned else ""
st.markdown(f"#### Layer {layer + 1}, head {head + 1}{binned}")
st.plotly_chart(one.figure, key="real_head_fig", config=PLOT)
st.markdown(f"#### Layer {layer + 1}: the average of its {n_heads} heads{binned}")
st.plotly_chart(avg.figure, key="real_avg_fig", config=PLOT)
export_menu("real-model", title="Real model explorer", source=text + (f"\n{text_b}" if text_b else ""),
            trace=trace, figures={f"Layer {layer + 1}, head {head + 1}": one.figure,
                                  f"Layer {layer + 1} average": avg.figure},
            numbers={"Model": folder.strip() or DEFAULT_MODEL_LABEL, "Tokens": L, "Layers": n_layers, "Heads": n_heads})
if one.binned:
    st.caption(f"{L} tokens are binned to {one.row_factor} × {one.col_factor} per cell (mean total weight): "
               "hover shows the token ranges. Use the lines view below for single tokens.")

st.markdown("**Lines view** — queries left, keys right; darker, thicker lines carry more attention.")
w1, w2, w3, w4 = st.columns(4)
window = 40
url_check("real_lines_start", number_in(0, max(0, L - 1)), "first token")
if st.session_state.get("real_lines_start", 0) not in range(L):  # the model or the text changed size
    st.session_state["real_lines_start"] = 0
start = w1.number_input("First token", 0, max(0, L - 1), 0, step=10, key="real_lines_start", bind="query-params")
stop = min(L, int(start) + window)
if st.session_state.get("real_lines_query") is not None and not int(start) <= st.session_state["real_lines_query"] < stop:
    st.session_state["real_lines_query"] = None
lines_of = [None, *range(int(start), stop)]
url_check("real_lines_query", url_labels(lines_of, lambda i: "every token" if i is None else f"{i} · {tokens[i]}"),
          "query token", "every token")
query = w2.selectbox("Only the lines of", lines_of, key="real_lines_query", bind="query-params",
                     format_func=lambda i: "every token" if i is None else f"{i} · {tokens[i]}")
WHICH = {"head": "the head above", "average": "the layer's average"}
url_check("real_lines_which", url_labels(WHICH.values()), "lines weights")
url_check("real_lines_min", number_in(0.01, 0.5), "line threshold")
which = w3.selectbox("Weights of", list(WHICH), key="real_lines_which", format_func=WHICH.get, bind="query-params")
min_w = w4.slider("Hide lines below", 0.01, 0.5, 0.1, key="real_lines_min", bind="query-params")
matrix = trace.attention[layer, head] if which == "head" else trace.attention[layer].mean(0)
lines = lines_figure(matrix, tokens, int(start), stop, query, float(min_w),
                     title=f"Tokens {int(start)}–{stop - 1} of {L}")
st.plotly_chart(lines, key="real_lines", config=PLOT)
if L > window:
    st.caption(f"The lines view draws {window} tokens at a time (lines to keys outside the window are not drawn); "
               "move “First token” to slide along the text.")

server_s = time.perf_counter() - t0
wire = sum(len(f.to_json().encode("utf-8")) for f in (grid_fig, one.figure, avg.figure, lines))
st.caption(f"Server time for this run: {server_s:.2f} s (model forward {trace.seconds:.2f} s when first computed, "
           f"grid {payload.build_seconds:.2f} s when first built); figures sent: {wire / 1e6:.2f} MB "
           f"(the grid is one {len(payload.png_bytes) / 1e3:.0f} kB PNG, not {n_layers * n_heads * L * L:,} numbers).")
with st.expander("Tokens as the model's tokenizer split them"):
    st.dataframe({"position": list(range(L)), "token": tokens, "id": trace.ids.tolist(),
                  "segment": trace.segment_ids.tolist(), "special": trace.special.tolist()}, hide_index=True)
