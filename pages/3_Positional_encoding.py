"""Positional encoding: sinusoids, their rotation property, adding them to embeddings, learned,
relative (Transformer-XL), rotary (RoPE) and ALiBi encodings, and the PAD convention."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from ui.frame import page_frame

page_frame(
    "Positional encoding",
    icon="〰️",
    intro=(
        "Attention by itself is blind to order: shuffle the words and every weight stays the "
        "same. A **positional encoding** tells the model where each word sits. Every figure "
        "below is computed live from the formulas."
    ),
)

from models.lessons import positional as pos_enc  # noqa: E402
from viz_core import positional as viz  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TABS = ("Sinusoids", "Similarity and rotation", "Adding to embeddings",
        "Learned, relative, RoPE, ALiBi", "Padding")
D_CHOICES = [8, 16, 32, 64, 128, 256, 512]


# ------------------------------------------------------------------------------ cached models

@st.cache_data(max_entries=16, show_spinner=False)
def sinusoids(length: int, d_model: int) -> pos_enc.SinusoidTrace:
    return pos_enc.sinusoid_trace(length, d_model)


@st.cache_data(max_entries=16, show_spinner="Checking every shift k …")
def rotation(length: int, d_model: int, k: int, pos: int) -> pos_enc.RotationCheck:
    return pos_enc.rotation_check(length, d_model, k, pos)


@st.cache_data(max_entries=16, show_spinner=False)
def mix(d_model: int, scale: float, init: str) -> pos_enc.EmbeddingMix:
    return pos_enc.embedding_mix(d_model, scale, init)


@st.cache_data(ttl=60, max_entries=1, show_spinner=False)
def learned_positions() -> pos_enc.LearnedPositions | None:
    return pos_enc.find_learned_positions(ROOT / "checkpoints")


@st.cache_data(max_entries=16, show_spinner=False)
def schemes(train_len: int, eval_len: int, d_model: int, alibi_head: int,
            with_learned: bool) -> pos_enc.SchemeComparison:
    return pos_enc.compare_schemes(train_len, eval_len, d_model, n_heads=8, alibi_head=alibi_head,
                                   learned=learned_positions() if with_learned else None)


# ------------------------------------------------------------------------------ sections

def sinusoid_section() -> None:
    st.subheader("The sinusoidal encoding (Vaswani et al. 2017)")
    c1, c2 = st.columns(2)
    d_model = c1.select_slider("d_model", D_CHOICES, value=64, key="pe_d", persist_state="page")
    length = c2.slider("Sequence length", 10, 400, 100, step=10, key="pe_len",
                       persist_state="page")
    trace = sinusoids(length, d_model)
    # a fast, a medium and a slow frequency, and the cosine partner of the first
    default = sorted({2 * (d_model // 16), 2 * (d_model // 16) + 1, 2 * (d_model // 8),
                      2 * (d_model // 4)})
    dims = st.multiselect("Dimensions to draw", list(range(d_model)), default=default,
                          key=f"pe_dims_{d_model}", persist_state="page")
    st.latex(r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right),\qquad "
             r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)")
    left, right = st.columns(2)
    left.plotly_chart(viz.pe_curves_figure(trace.pe, dims, title="Chosen dimensions against "
                                                                 "position"), key="pe_curves")
    right.plotly_chart(viz.pe_heatmap_figure(trace.pe, title=f"All {length} positions × "
                                                             f"{d_model} dimensions"),
                       key="pe_heatmap")
    st.markdown(
        "Each pair of dimensions $(2i, 2i+1)$ is a sine and a cosine of one frequency "
        "$\\omega_i = 10000^{-2i/d}$. The first pairs wiggle fast (left of the heatmap), the last "
        "ones hardly move in 100 positions: like the hands of a clock, fast ones tell nearby "
        "positions apart, slow ones tell far-apart positions apart, and together no two "
        "positions get the same vector.")
    left, right = st.columns([3, 2])
    left.plotly_chart(viz.wavelength_figure(trace.wavelengths, d_model), key="pe_wavelengths")
    ratio = 10000 ** (2 / d_model)
    right.markdown(
        f"The wavelengths $\\lambda_i = 2\\pi \\cdot 10000^{{2i/d}}$ form a **geometric "
        f"progression**: each is {ratio:.3f} times the one before, from $2\\pi \\approx 6.28$ "
        f"(dimensions 0, 1) up to {trace.wavelengths[-1]:,.0f} (dimensions {d_model - 2}, "
        f"{d_model - 1}), just short of $10000 \\cdot 2\\pi \\approx 62{{,}}832$. On a log axis "
        f"that is a straight line.")


def similarity_rotation_section() -> None:
    st.subheader("Similarity between positions, and the rotation property")
    c1, c2, c3, c4 = st.columns(4)
    d_model = c1.select_slider("d_model", D_CHOICES[:-1], value=64, key="rot_d",
                               persist_state="page")
    length = c2.slider("Positions", 16, 256, 100, step=4, key="rot_len", persist_state="page")
    k = c3.slider("Shift k", 0, length - 1, min(5, length - 1), key="rot_k", persist_state="page")
    pos = c4.slider("Example position pos", 0, length - 1, min(10, length - 1), key="rot_pos",
                    persist_state="page")
    trace = sinusoids(length, d_model)
    left, right = st.columns(2)
    left.plotly_chart(viz.similarity_figure(trace.similarity, title="PE(p) · PE(q)"),
                      key="rot_similarity")
    right.plotly_chart(viz.offset_figure(trace.offsets, trace.offset_formula,
                                         trace.offset_measured, title="Against the offset k"),
                       key="rot_offset")
    st.markdown(
        f"The dot product of two encodings depends only on how far apart they are, not where: "
        f"$PE(pos)\\cdot PE(pos+k) = \\sum_i \\cos(\\omega_i k)$ for every $pos$ (largest spread "
        f"over $pos$ here: {trace.offset_spread.max():.1e}). It is largest at $k = 0$, falls "
        f"off with distance, and is the same for $+k$ and $-k$: the dot product alone cannot "
        f"tell before from after.")

    st.divider()
    check = rotation(length, d_model, k, pos)
    st.latex(r"\begin{bmatrix} PE_{(pos+k,\,2i)} \\ PE_{(pos+k,\,2i+1)} \end{bmatrix} = "
             r"\underbrace{\begin{bmatrix} \cos \omega_i k & \sin \omega_i k \\ "
             r"-\sin \omega_i k & \cos \omega_i k \end{bmatrix}}_{R(\omega_i k)}"
             r"\begin{bmatrix} PE_{(pos,\,2i)} \\ PE_{(pos,\,2i+1)} \end{bmatrix}")
    st.latex(r"PE(pos + k) = M_k\, PE(pos),\qquad M_k = "
             r"\operatorname{diag}\big(R(\omega_0 k), \dots, R(\omega_{d/2-1} k)\big)")
    m1, m2, m3 = st.columns(3)
    m1.metric(f"Max error, k = {k}, all pos", f"{check.max_error:.1e}",
              help=f"max over pos = 0 … {length - 1} and all dimensions of "
                   f"|M_k·PE(pos) − PE(pos+k)|, in float64.")
    m2.metric(f"Max error, every k = 0 … {length - 1}", f"{check.max_error_by_k.max():.1e}",
              help="The same check for every shift k, each with its own M_k.")
    m3.metric(f"Max error, k = {k}, float32 table", f"{check.max_error_float32:.1e}",
              help="The model stores PE in float32; this is rounding, not the formula.")
    left, right = st.columns([2, 3])
    left.plotly_chart(viz.rotation_matrix_figure(check.matrix, k), key="rot_matrix")
    right.plotly_chart(viz.rotation_vectors_figure(check.pe_shifted, check.rotated, pos, k),
                       key="rot_vectors")
    left, right = st.columns([3, 2], vertical_alignment="center")
    left.plotly_chart(viz.rotation_error_figure(check.ks, check.max_error_by_k),
                      key="rot_errors")
    right.markdown(
        "For every shift $k$ there is one fixed matrix $M_k$ — block-diagonal, a 2×2 rotation "
        "by $\\omega_i k$ per frequency — that turns the encoding of *any* position into the "
        "encoding $k$ places later. It does not depend on $pos$, so a linear layer can learn "
        "to attend by relative offset (Vaswani et al. §3.5). The errors above are float64 "
        "rounding, about $10^{-14}$.")


def embeddings_section() -> None:
    st.subheader("Adding the encoding to word embeddings")
    c1, c2, c3 = st.columns([2, 3, 3])
    d_model = c1.select_slider("d_model", D_CHOICES[1:], value=64, key="emb_d",
                               persist_state="page")
    init_label = c2.radio("Embedding initial std σ", list(pos_enc.EMBEDDING_INITS), index=0,
                          key="emb_init", persist_state="page")
    scaled = c3.toggle("Scale embeddings by √d_model", value=True, key="emb_scaled",
                       persist_state="page")
    scale = math.sqrt(d_model) if scaled else 1.0
    result = mix(d_model, scale, pos_enc.EMBEDDING_INITS[init_label])
    st.latex(r"x_{pos} = s\cdot E[\text{word}_{pos}] + PE(pos),\qquad s = "
             + (r"\sqrt{d_{model}} = " + f"{scale:.2f}" if scaled else "1"))
    st.plotly_chart(viz.embedding_mix_figure(result.tokens, result.embedded, result.pe,
                                             result.summed), key="emb_heatmaps")
    m1, m2, m3 = st.columns(3)
    m1.metric("‖s·e‖ (mean over words)", f"{result.word_norm:.2f}")
    m2.metric("‖PE(pos)‖ = √(d/2)", f"{result.pe_norm:.2f}")
    i = int(np.argmin(np.abs(result.scales - scale)))
    m3.metric("word's share of ‖x‖²", f"{result.word_share[i]:.0%}")
    st.plotly_chart(viz.embedding_scale_figure(result.scales, result.same_word_cos,
                                               result.same_pos_cos, result.word_share,
                                               scale, math.sqrt(d_model)), key="emb_curve")
    st.markdown(
        "Every $PE(pos)$ has length $\\sqrt{d/2}$. The Transformer shares its embedding matrix "
        "with the output layer and initialises it with $\\sigma = 1/\\sqrt{d}$, so a word vector "
        "has length about 1: added as is, the position would swamp the word (left of the "
        "curve: two different words at one position look alike). Multiplying by "
        "$\\sqrt{d_{model}}$ (§3.4) brings the word to length about $\\sqrt d$, the same order "
        "as the encoding, so both the word and its position survive in the sum.")


SCHEME_TABLE = pd.DataFrame([
    {"Scheme": "Learned absolute (BERT, GPT-2)", "Where position enters": "added to the input",
     "Parameters": "one vector per position", "Beyond the training length":
         "no row exists: the model cannot run"},
    {"Scheme": "Sinusoidal absolute", "Where position enters": "added to the input",
     "Parameters": "none", "Beyond the training length":
         "defined, but the model never saw these vectors"},
    {"Scheme": "Transformer-XL relative", "Where position enters":
         "every score: qᵢᵀW_R R(i−j) + vᵀW_R R(i−j)", "Parameters": "W_R, u, v",
     "Beyond the training length": "depends only on i − j; long distances unseen"},
    {"Scheme": "RoPE", "Where position enters": "rotates q and k by angle pos·θᵢ",
     "Parameters": "none", "Beyond the training length":
         "slow pairs reach angles never seen; quality drops without tricks"},
    {"Scheme": "ALiBi", "Where position enters": "score bias −m·|i − j| per head",
     "Parameters": "none (fixed slopes m)", "Beyond the training length":
         "the same linear penalty: extrapolates best"},
]).set_index("Scheme")


def schemes_section() -> None:
    st.subheader("Learned, relative, rotary and ALiBi side by side")
    c1, c2, c3, c4 = st.columns(4)
    train_len = c1.slider("Training length", 8, 128, 32, step=8, key="sch_train",
                          persist_state="page")
    eval_len = c2.slider("Shown length", 16, 256, 96, step=8, key="sch_eval",
                         persist_state="page")
    d_model = c3.select_slider("d_model", [16, 32, 64, 128], value=64, key="sch_d",
                               persist_state="page")
    head = c4.slider("ALiBi head", 1, 8, 1, key="sch_head", persist_state="page")
    eval_len = max(eval_len, train_len)
    learned = learned_positions()
    result = schemes(train_len, eval_len, d_model, head - 1, learned is not None)
    maps = {name: m for name, m in result.maps.items()
            if learned is not None or name != "Learned (absolute)"}
    st.plotly_chart(viz.schemes_figure(maps, train_len), key="sch_maps")
    st.caption("The position-only part of the score between query i and key j, with the same "
               "content at every position, each scaled to [−1, 1]. Dashed box: positions "
               "below the training length; every pair inside it was seen in training. Random, "
               "untrained W_R and v for Transformer-XL; one fixed random query and key for RoPE.")
    left, right = st.columns([3, 2])
    left.plotly_chart(viz.scheme_profile_figure(maps, train_len), key="sch_profile")
    right.markdown(
        f"* **Sinusoidal / Transformer-XL / RoPE**: the maps are constant along diagonals: the "
        f"score depends on $i - j$ only.\n"
        f"* **RoPE**: {result.rope_unseen_pairs} of {d_model // 2} frequency pairs turn less "
        f"than once in {train_len} positions, so past the training length they show the "
        f"model angles it never saw.\n"
        f"* **ALiBi**, head {head}: slope $m$ = {result.alibi_slope:.4g}, bias "
        f"$-m\\,|i-j|$ keeps falling in a straight line, however long the input.")
    c1, c2 = st.columns(2)
    c1.latex(r"\text{RoPE: } (R_{m} q)^\top (R_{n} k) = q^\top R_{n-m}\, k")
    c2.latex(r"\text{ALiBi: } e_{ij} = q_i^\top k_j - m_h\,|i - j|")
    st.latex(r"\text{Transformer-XL: } A_{ij} = q_i^\top k_j + q_i^\top W_R R_{i-j} + u^\top k_j "
             r"+ v^\top W_R R_{i-j}")
    st.table(SCHEME_TABLE)
    st.markdown("##### Learned absolute positions")
    if learned is None:
        st.info(
            "No trained checkpoint with a learned position table was found under "
            "`checkpoints/`. When one is there (a `*.safetensors` file with a tensor named like "
            "`*position_embeddings*` or `*pos_embedding*`, as in BERT), its position × dimension "
            "matrix appears here, with the cosine similarity between its rows in the maps "
            "above: blank past its last row, because a learned table has nothing to say about "
            "positions it was never given.", icon=":material/inventory_2:")
    else:
        st.caption(f"From the trained checkpoint `{Path(learned.path).parent.name}`, tensor `{learned.tensor_name}`: "
                   f"{learned.matrix.shape[0]} positions × {learned.matrix.shape[1]} dimensions.")
        st.plotly_chart(viz.learned_figure(learned.matrix, "Learned position embeddings"),
                        key="sch_learned")


def padding_section() -> None:
    st.subheader("Padding: a zero row for the PAD position")
    cols = st.columns(3)
    lengths = tuple(int(col.slider(f"Sentence {i + 1} length", 1, 10, n, key=f"pad_len{i}",
                                   persist_state="page"))
                    for i, (col, n) in enumerate(zip(cols, (5, 3, 7))))
    trace = pos_enc.padded_positions(lengths, d_model=16)
    st.plotly_chart(viz.padding_ids_figure(trace.position_ids, title="Position ids of a padded "
                                                                     "batch"), key="pad_ids")
    st.plotly_chart(viz.padding_encoded_figure(trace.encoded), key="pad_encoded")
    st.markdown(
        "Sentences of different lengths share one batch, so the short ones are filled with "
        "PAD. The convention: real tokens get position ids $1, 2, \\dots, n$; PAD gets id 0, "
        "and row 0 of the position table is all zeros, like the word embedding's "
        "`padding_idx` row. A PAD slot therefore enters the model as an exact zero vector, its "
        "position carries no signal, and no gradient flows into that row. The attention mask "
        "still has to hide PAD keys: zero in is not zero out after the biases of the first "
        "layer.")


SECTIONS = (sinusoid_section, similarity_rotation_section, embeddings_section, schemes_section,
            padding_section)

tabs = st.tabs(TABS, key="topic", bind="query-params")
for tab, section in zip(tabs, SECTIONS):
    with tab:
        if tab.open is not False:  # only the selected tab runs
            section()
