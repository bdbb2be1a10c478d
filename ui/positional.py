"""Pieces of the "Positional encoding" page: cached lesson computations and the explanations
under each figure."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st

from models.checkpoints import LoadedTransformer, load_transformer
from models.lessons import positional as pos_enc
from ui.checkpoints import load_or_message
from ui.export import PLOT
from viz_core import positional as viz

ROOT = Path(__file__).resolve().parent.parent
SCORE_MODEL = "tf-en-fr"  # the shipped translation Transformer whose W_Q, W_K the page uses


# ------------------------------------------------------------------------------ cached lessons

@st.cache_data(max_entries=16, show_spinner=False)
def sinusoids(length: int, d_model: int) -> pos_enc.SinusoidTrace:
    """The sinusoidal table, its similarities and wavelengths for ``length`` positions."""
    return pos_enc.sinusoid_trace(length, d_model)


@st.cache_data(max_entries=16, show_spinner="Checking every shift k …")
def rotation(length: int, d_model: int, k: int, pos: int) -> pos_enc.RotationCheck:
    """The rotation M_k with PE(pos + k) = M_k PE(pos), checked for every pos and k."""
    return pos_enc.rotation_check(length, d_model, k, pos)


@st.cache_data(max_entries=16, show_spinner=False)
def mix(d_model: int, scale: float, init: str) -> pos_enc.EmbeddingMix:
    """Word embeddings scaled by ``scale`` plus the encoding, and how much of each survives."""
    return pos_enc.embedding_mix(d_model, scale, init)


@st.cache_data(ttl=60, max_entries=1, show_spinner=False)
def learned_positions() -> pos_enc.LearnedPositions | None:
    """The learned position table of a shipped checkpoint, or None when there is none."""
    return pos_enc.find_learned_positions(ROOT / "checkpoints")


@st.cache_data(max_entries=16, show_spinner=False)
def schemes(train_len: int, eval_len: int, d_model: int, alibi_head: int,
            with_learned: bool) -> pos_enc.SchemeComparison:
    """The position-only score maps of every scheme (the learned one when ``with_learned``)."""
    return pos_enc.compare_schemes(train_len, eval_len, d_model, n_heads=8, alibi_head=alibi_head,
                                   learned=learned_positions() if with_learned else None)


@st.cache_resource(show_spinner="Loading tf-en-fr …")
def _load(name: str) -> LoadedTransformer:
    return load_transformer(name)


def score_model() -> LoadedTransformer | str:
    """The shared read-only tf-en-fr, or a one-line message naming the missing or bad file."""
    return load_or_message(_load, SCORE_MODEL, ". The other figures on this page do not need it.")


@st.cache_data(max_entries=16, show_spinner=False)
def model_scores(name: str, layer: int, head: int) -> pos_enc.ModelPositionScores:
    """The position-only score of encoder layer ``layer``, head ``head`` (0-based) of ``name``,
    over positions 0 … (longest training source − 1)."""
    loaded = _load(name)
    length = loaded.training.get("max_src_len") or loaded.model.src_embed.positions.pe.shape[0]
    return pos_enc.model_position_scores(loaded.model, layer, head, int(length))


# ------------------------------------------------------------------------------ explanations

def explain_sinusoids() -> None:
    """Each sine/cosine pair is one frequency: fast ones tell near positions apart, slow ones far ones."""
    st.markdown(
        "Each pair of dimensions $(2i, 2i+1)$ is a sine and a cosine of one frequency "
        "$\\omega_i = 10000^{-2i/d}$. The first pairs wiggle fast (left of the heatmap), the last "
        "ones hardly move in 100 positions: like the hands of a clock, fast ones tell nearby "
        "positions apart, slow ones tell far-apart positions apart, and together no two "
        "positions get the same vector.")


def explain_wavelengths(container, wavelengths: np.ndarray, d_model: int) -> None:
    """The wavelengths of the pairs form a geometric progression (next to the wavelength chart)."""
    ratio = 10000 ** (2 / d_model)
    container.markdown(
        f"The wavelengths $\\lambda_i = 2\\pi \\cdot 10000^{{2i/d}}$ form a **geometric "
        f"progression**: each is {ratio:.3f} times the one before, from $2\\pi \\approx 6.28$ "
        f"(dimensions 0, 1) up to {wavelengths[-1]:,.0f} (dimensions {d_model - 2}, "
        f"{d_model - 1}), just short of $10000 \\cdot 2\\pi \\approx 62{{,}}832$. On a log axis "
        f"that is a straight line.")


def explain_offsets(offset_spread: np.ndarray) -> None:
    """PE(pos)·PE(pos + k) depends on the offset k only, and is the same for +k and −k."""
    st.markdown(
        f"The dot product of two encodings depends only on how far apart they are, not where: "
        f"$PE(pos)\\cdot PE(pos+k) = \\sum_i \\cos(\\omega_i k)$ for every $pos$ (largest spread "
        f"over $pos$ here: {offset_spread.max():.1e}). It is largest at $k = 0$, falls "
        f"off with distance, and is the same for $+k$ and $-k$: the dot product alone cannot "
        f"tell before from after. These are dot products of encodings, **not attention "
        f"scores**: a score compares $W_Q x_i$ with $W_K x_j$ (end of this tab).")


def model_score_formula() -> None:
    """The position-only part of a trained head's score, as the figure computes it."""
    st.latex(r"s^{pos}_{ij} = \frac{(W_Q\, PE_i)\cdot(W_K\, PE_j)}{\sqrt{d_k}}"
             r"\qquad\text{(one head's rows of } W_Q, W_K\text{; biases left out)}")


def explain_model_scores(result: pos_enc.ModelPositionScores) -> None:
    """Why the trained score is not a function of i − j, and what that motivated."""
    (i1, j1), (i2, j2) = result.worst_low, result.worst_high
    s = result.scores
    st.caption(
        f"Encoder layer {result.layer}, head {result.head + 1} of tf-en-fr, positions 0 … "
        f"{result.scores.shape[0] - 1} (the longest training source), with the model's own W_Q, W_K "
        f"(d_k = {result.d_k}) and PE table, biases left out (they add terms in i alone or j "
        f"alone). This is a score, not an attention weight: blue below 0, red above, white 0, "
        f"the scale set by this matrix's largest |score| ({result.peak:.2f}).")
    layer_note = (
        "In layer 0 the input is $\\sqrt{d}\\cdot E[\\text{word}] + PE$, so the real score is "
        "this plus cross terms between words and positions." if result.layer == 0 else
        "In layer 1 the encoding arrives through layer 0's residual stream and LayerNorm, so "
        "this is what layer 1's weights make of the bare encoding.")
    st.markdown(
        f"$PE_i \\cdot PE_j$ at the top of this tab depends on $i - j$ only. The position-only "
        f"part of the attention score does not: it is $PE_i^\\top W_Q^\\top W_K\\, PE_j / "
        f"\\sqrt{{d_k}}$, which would depend on $i - j$ only if $W_Q^\\top W_K$ commuted with "
        f"every rotation $M_k$, and a trained one does not. Along the diagonal "
        f"$i - j = {result.worst_offset}$ this head's score goes from {s[i1, j1]:.2f} at "
        f"$(i, j) = ({i1}, {j1})$ to {s[i2, j2]:.2f} at $({i2}, {j2})$: a change of "
        f"**{result.variation:.0%}** of its largest |score|. {layer_note} Relative attention "
        f"*can* be learned from absolute sinusoids, but nothing forces it. That is why "
        f"Transformer-XL (Dai et al. 2019) splits the score so that position enters only as "
        f"$R_{{i-j}}$, a function of $i - j$ (next tab).")


def rotation_formulas() -> None:
    """PE(pos + k) = M_k PE(pos): one 2×2 rotation per frequency pair."""
    st.latex(r"\begin{bmatrix} PE_{(pos+k,\,2i)} \\ PE_{(pos+k,\,2i+1)} \end{bmatrix} = "
             r"\underbrace{\begin{bmatrix} \cos \omega_i k & \sin \omega_i k \\ "
             r"-\sin \omega_i k & \cos \omega_i k \end{bmatrix}}_{R(\omega_i k)}"
             r"\begin{bmatrix} PE_{(pos,\,2i)} \\ PE_{(pos,\,2i+1)} \end{bmatrix}")
    st.latex(r"PE(pos + k) = M_k\, PE(pos),\qquad M_k = "
             r"\operatorname{diag}\big(R(\omega_0 k), \dots, R(\omega_{d/2-1} k)\big)")


def rotation_metrics(check: pos_enc.RotationCheck, k: int, length: int) -> None:
    """How exactly M_k maps PE(pos) to PE(pos + k): for this k, for every k, and in float32."""
    m1, m2, m3 = st.columns(3)
    m1.metric(f"Max error, k = {k}, all pos", f"{check.max_error:.1e}",
              help=f"max over pos = 0 … {length - 1} and all dimensions of "
                   f"|M_k·PE(pos) − PE(pos+k)|, in float64.")
    m2.metric(f"Max error, every k = 0 … {length - 1}", f"{check.max_error_by_k.max():.1e}",
              help="The same check for every shift k, each with its own M_k.")
    m3.metric(f"Max error, k = {k}, float32 table", f"{check.max_error_float32:.1e}",
              help="The model stores PE in float32; this is rounding, not the formula.")


def explain_rotation(container) -> None:
    """Why one fixed M_k per shift lets a linear layer attend by relative offset."""
    container.markdown(
        "For every shift $k$ there is one fixed matrix $M_k$ — block-diagonal, a 2×2 rotation "
        "by $\\omega_i k$ per frequency — that turns the encoding of *any* position into the "
        "encoding $k$ places later. It does not depend on $pos$, so a linear layer *could* "
        "learn to attend by relative offset (Vaswani et al.'s hypothesis, §3.5); whether a "
        "trained one does is below. The errors above are float64 rounding, about $10^{-14}$.")


def explain_embeddings() -> None:
    """Why the Transformer multiplies its word embeddings by √d_model before adding PE, and how
    our models differ from the paper's setup."""
    st.markdown(
        "Every $PE(pos)$ has length $\\sqrt{d/2}$. The original Transformer shares its "
        "embedding matrix with the output layer (§3.4), and the reference code initialises it "
        "with $\\sigma = 1/\\sqrt{d}$, so a word vector has length about 1: added as is, the "
        "position would swamp the word (left of the curve: two different words at one "
        "position look alike). Multiplying by $\\sqrt{d_{model}}$ (§3.4) brings the word to "
        "length about $\\sqrt d$, the same order as the encoding, so both the word and its "
        "position survive in the sum.")
    st.info(
        "**How our models differ from the paper.** Ours also multiply by $\\sqrt{d_{model}}$ "
        "and add sinusoidal PE, but tf-en-fr does **not** tie its embeddings "
        "(`tie_embeddings: false` in its `config.json`) and initialises every matrix, the "
        "embeddings included, with Glorot (Xavier) uniform, not $\\sigma = 1/\\sqrt{d}$. Only "
        "the language model tf-lm ties its embedding to the output layer (also Glorot-"
        "initialised).", icon=":material/info:")


def scheme_titles(learned: pos_enc.LearnedPositions | None) -> dict[str, str]:
    """Subplot titles that say what each map is (not every map is an attention score)."""
    source = Path(learned.path).parent.name if learned is not None else "a learned"
    return {
        "Learned (absolute)": f"Learned: cosine<br>similarity of<br>{source} rows",
        "Sinusoidal (absolute)": "Sinusoidal:<br>PE_i·PE_j<br>(not a score)",
        "Transformer-XL (relative)": "Transformer-XL:<br>its position<br>terms",
        "RoPE": "RoPE: score<br>of one fixed<br>q and k",
        "ALiBi": "ALiBi (causal):<br>−m·(i − j)<br>for j ≤ i",
    }


def explain_scheme_maps(learned: pos_enc.LearnedPositions | None) -> None:
    """What the scheme maps show and how they were made."""
    learned_note = (f"Learned: the cosine similarity between rows i and j of "
                    f"{Path(learned.path).parent.name}'s learned position table. "
                    if learned is not None else "")
    st.caption(f"What each scheme does with position alone, query i down, key j across, each "
               f"scaled to [−1, 1]. {learned_note}Sinusoidal: dot products of encodings, not "
               f"attention scores. Transformer-XL: its position terms with random, untrained "
               f"W_R and v; RoPE: one fixed random query and key; ALiBi: its causal bias, blank "
               f"above the diagonal where the future is masked. Dashed box: positions below the "
               f"training length; every pair inside it was seen in training.")


def explain_schemes(container, result: pos_enc.SchemeComparison, d_model: int, train_len: int, head: int) -> None:
    """How each scheme behaves past the training length (in ``container``; ALiBi ``head`` is
    1-based), then the RoPE, ALiBi and Transformer-XL formulas."""
    container.markdown(
        f"* **Transformer-XL / RoPE**: position enters the score only through $i - j$, "
        f"whatever the weights: with the same content everywhere the maps are constant along "
        f"diagonals.\n"
        f"* **Sinusoidal**: $PE_i \\cdot PE_j$ is constant along diagonals too, but a trained "
        f"model's score $(W_Q PE_i)\\cdot(W_K PE_j)$ is not (tf-en-fr in the previous tab).\n"
        f"* **RoPE**: {result.rope_unseen_pairs} of {d_model // 2} frequency pairs turn less "
        f"than once in {train_len} positions, so past the training length they show the "
        f"model angles it never saw.\n"
        f"* **ALiBi**, head {head}: slope $m$ = {result.alibi_slope:.4g}; the bias "
        f"$-m\\,(i-j)$ on keys $j \\le i$ (the future is masked) keeps falling in a straight "
        f"line, however long the input.")
    c1, c2 = st.columns(2)
    c1.latex(r"\text{RoPE: } (R_{m} q)^\top (R_{n} k) = q^\top R_{n-m}\, k")
    c2.latex(r"\text{ALiBi: } e_{ij} = q_i^\top k_j - m_h\,(i - j),\quad j \le i")
    st.latex(r"\text{Transformer-XL: } A_{ij} = q_i^\top k_j + q_i^\top W_R R_{i-j} + u^\top k_j "
             r"+ v^\top W_R R_{i-j}")


def learned_positions_view(learned: pos_enc.LearnedPositions | None) -> None:
    """A shipped checkpoint's learned position table, or where such a table would come from."""
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
                        key="sch_learned", config=PLOT)


def explain_padding() -> None:
    """The PAD convention (position id 0, a zero row), and what our Transformers do instead."""
    st.markdown(
        "Sentences of different lengths share one batch, so the short ones are filled with "
        "PAD. A common convention (fairseq's, there with the PAD index in place of 0): real tokens get "
        "position ids $1, 2, \\dots, n$; PAD gets id 0, and row 0 of the position table is all "
        "zeros, like the word embedding's `padding_idx` row. A PAD slot then enters the model "
        "as an exact zero vector and its position carries no signal. The attention mask still "
        "has to hide PAD keys: zero in is not zero out after the biases of the first layer.")
    st.info(
        "**How our models differ.** The original Transformer paper says nothing about PAD, "
        "and our Transformers do not use this convention: they add $PE(t)$ at every slot $t$, "
        "padded slots too (`PositionalEncoding` adds the first $L$ rows of the table to the "
        "whole batch; only the PAD *word* embedding row is zero). Those slots are then masked "
        "out by the padding mask, in self-attention and cross-attention alike, so their "
        "position never reaches a real token.", icon=":material/info:")
