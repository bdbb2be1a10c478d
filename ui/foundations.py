"""Pieces of the "Attention from scratch" page: cached lesson computations, the Q/K/V sandbox's
input parsing, and the explanations under each figure."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from models.lessons import complexity, kernel_regression as kr, sandbox
from ui.export import PLOT
from ui.tokens import md_escape

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------------ cached lessons

@st.cache_data(max_entries=32, show_spinner=False)
def toy_data(n_train: int, noise: float, seed: int) -> kr.ToyData:
    """The noisy 1-D training set and test grid of the kernel regression lesson."""
    return kr.make_data(n_train, noise, seed)


@st.cache_data(max_entries=32, show_spinner="Training w by SGD …")
def parametric(n_train: int, noise: float, seed: int, steps: int, lr: float) -> kr.ParametricResult:
    """Kernel regression with the width w learned by ``steps`` of gradient descent."""
    return kr.train_parametric(toy_data(n_train, noise, seed), steps=steps, lr=lr, seed=seed)


@st.cache_data(max_entries=4, show_spinner="Drawing random queries and keys …")
def saturation() -> sandbox.SaturationResult:
    """How unscaled dot products saturate the softmax, for every dimension d."""
    return sandbox.softmax_saturation()


@st.cache_data(max_entries=8, show_spinner=False)
def timings(lengths: tuple[int, ...], d_model: int, repeats: int, device: str) -> complexity.TimingResult:
    """Forward times of self-attention, GRU and convolution layers at each length."""
    return complexity.time_layers(lengths, d_model=d_model, repeats=repeats, device=device)


@st.cache_resource
def device_name() -> str:
    """The torch device the timings run on ("cpu", "cuda" …)."""
    from models.device import pick_device

    return str(pick_device())


KEY_DEFAULTS = ((1.0, 0.2), (0.2, 1.0), (-1.0, 0.3), (2.0, 1.0), (0.0, -1.5))  # k1 … k5 of the score lesson


def vector_input(container, label: str, default: tuple[float, float], key: str) -> np.ndarray:
    """Two number inputs (x, y) side by side in ``container``; keys ``{key}_x`` and ``{key}_y``."""
    a, b = container.columns(2)
    x = a.number_input(f"{label} x", -5.0, 5.0, default[0], 0.1, key=f"{key}_x", persist_state="page")
    y = b.number_input(f"{label} y", -5.0, 5.0, default[1], 0.1, key=f"{key}_y", persist_state="page")
    return np.array([x, y])


def qkv_steps(texts: dict[str, str], mask: str, n_padding: int) -> sandbox.QKVSteps | None:
    """Parse the typed Q, K and V and compute every step of the attention; on bad input show
    each problem as an error line (the typed text literally) and return None."""
    matrices, errors = {}, []
    for name, text in texts.items():
        try:
            matrices[name] = sandbox.parse_matrix(text, name)
        except ValueError as err:
            errors.append(str(err))
    if not errors:
        try:
            return sandbox.qkv_steps(matrices["Q"], matrices["K"], matrices["V"], mask, n_padding)
        except ValueError as err:
            errors.append(str(err))
    for message in errors:
        st.error(md_escape(message), icon=":material/error:")
    return None


# ------------------------------------------------------------------------------ explanations

def explain_kernel_regression_setup() -> None:
    """Kernel regression as attention: which of its parts are queries, keys and values."""
    st.markdown(
        "Predict $y$ at a new input $x$ by averaging the training targets $y_i$, weighting each "
        "by how close its input $x_i$ is to $x$. The test input is the **query**, the training "
        "inputs are the **keys**, the training targets are the **values**.")


def explain_kernel_regression(steps: int, w: float) -> None:
    """The attention-pooling formula and the three weightings; ``w``: the learned width."""
    st.latex(r"f(x) = \sum_{i=1}^{n} \alpha(x, x_i)\, y_i,\qquad"
             r"\alpha(x, x_i) = \operatorname{softmax}_i\!\left(-\tfrac{1}{2}\big((x - x_i)\,w\big)^2\right)")
    st.markdown(
        "* **Average pooling**: $\\alpha = 1/n$ for every query, so the prediction is a flat line "
        "at the mean of the $y_i$: it ignores the query.\n"
        "* **Gaussian kernel**: $w = 1/h$. Nearby training points get most of the weight; a "
        "small bandwidth $h$ follows the noise, a large one over-smooths.\n"
        f"* **Parametric**: $w$ is learned by {steps} steps of gradient descent on the squared "
        f"error, each training point predicted from the *other* points (otherwise $w \\to \\infty$ "
        f"and each point simply looks itself up). Learned $w$ = **{w:.2f}**, "
        f"i.e. $h = 1/w$ = {1 / max(w, 1e-9):.2f}. A larger $w$ narrows "
        "the band of weights in the heatmap and makes the curve less smooth.")


def explain_scores(params: sandbox.ScoreParams) -> None:
    """The five score formulas, their fixed parameters, and how they differ."""
    formulas = (("dot", r"q^\top k_i"), ("scaled dot", r"\frac{q^\top k_i}{\sqrt d}"),
                ("general", r"q^\top W k_i"), ("additive", r"v^\top \tanh(W_q q + W_k k_i)"),
                ("cosine", r"\frac{q^\top k_i}{\lVert q\rVert\,\lVert k_i\rVert}"))
    for col, (name, formula) in zip(st.columns([2, 2, 2, 3, 2]), formulas):
        col.markdown(f"**{name}**")
        col.latex(formula)
    with st.expander("The fixed parameters W, W_q, W_k and v used here"):
        cols = st.columns(4)
        for col, (name, value) in zip(cols, [("W", params.w), ("W_q", params.w_q),
                                             ("W_k", params.w_k), ("v", params.v[:, None])]):
            col.markdown(f"**{name}**")
            col.dataframe(value, hide_index=True)
    st.markdown(
        "Dot products grow with the length of the vectors, so a long key wins even when it "
        "points elsewhere; **cosine** compares directions only. **General** and **additive** have "
        "learned parameters (here fixed random numbers), so they can prefer other directions.")


def explain_saturation(container, d: int, result: sandbox.SaturationResult, i: int) -> None:
    """Why unscaled scores at dimension ``d`` (index ``i`` of ``result.dims``) saturate the softmax."""
    container.markdown(
        f"With entries of $q$ and $k$ drawn from $\\mathcal N(0, 1)$, $q^\\top k$ has mean 0 and "
        f"variance $d$. At $d$ = {d} the unscaled scores spread over about ±{2 * math.sqrt(d):.0f}, "
        f"so the softmax puts {result.max_weight_dot[i]:.0%} of the weight on one key on average "
        f"(scaled: {result.max_weight_scaled[i]:.0%}). The softmax's gradient "
        "$\\partial\\alpha/\\partial e = \\operatorname{diag}(\\alpha) - \\alpha\\alpha^\\top$ "
        f"shrinks with it (size {result.grad_norm_dot[i]:.3f} against "
        f"{result.grad_norm_scaled[i]:.3f}): the scores stop learning. Dividing by $\\sqrt d$ "
        "keeps the variance at 1 for every $d$. Averages over 300 random draws of "
        f"{result.n_keys} keys.")


def explain_soft_hard_local(tokens: list[str], ex: sandbox.SoftHardLocal) -> None:
    """Soft, hard and local attention on the example, with the local window's formula."""
    st.markdown(
        f"* **Soft** (Bahdanau; Luong global): $\\alpha = \\operatorname{{softmax}}(e)$ over all "
        f"source words. Differentiable, so it trains with ordinary backpropagation; costs one "
        f"score per source word.\n"
        f"* **Hard** (Xu et al. 2015): attend to a single word, here "
        f"“{tokens[int(np.argmax(ex.hard))]}”. Choosing is not differentiable, so training needs "
        f"sampling (REINFORCE) instead of plain gradients.\n"
        f"* **Local** (Luong et al. 2015): only a window $[p_t - D, p_t + D]$ (outlined) counts. "
        f"Only {int(ex.window.sum())} of {len(tokens)} words are scored. **Local-m** assumes monotonic "
        f"alignment, $p_t = t$, and takes the softmax inside the window: its weights sum to "
        f"{ex.local_m.sum():.2f}. **Local-p** predicts $p_t = S\\cdot\\sigma(v_p^\\top \\tanh(W_p h_t))$ and "
        f"multiplies that softmax by a Gaussian around $p_t$ with $\\sigma = D/2$: its weights sum to "
        f"{ex.local_p.sum():.2f}, not 1. Here both use the $p_t$ of the slider.")
    st.latex(r"\alpha^{\text{local-m}}_i = \operatorname{softmax}_{i \in [p_t-D,\,p_t+D]}(e_i) \qquad "
             r"\alpha^{\text{local-p}}_i = \alpha^{\text{local-m}}_i\,"
             r"\exp\!\left(-\frac{(i - p_t)^2}{2\sigma^2}\right),\quad \sigma = D/2")


def explain_sandbox_input() -> None:
    """What the sandbox's Q, K and V text areas accept."""
    st.markdown(f"One row per line, numbers separated by spaces or commas; at most "
                f"{sandbox.MAX_ROWS} rows × {sandbox.MAX_COLS} columns, each between "
                f"−{sandbox.MAX_ABS:g} and {sandbox.MAX_ABS:g}. Q and K need the same number of "
                "columns; K and V the same number of rows.")


def explain_sandbox() -> None:
    """The attention formula with its mask, and what each output row is."""
    st.latex(r"\operatorname{Attention}(Q, K, V) = "
             r"\operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right) V,\qquad "
             r"M_{ij} = \begin{cases} 0 & \text{if query } i \text{ may see key } j\\ "
             r"-\infty & \text{otherwise}\end{cases}")
    st.markdown("Each output row is a weighted average of the rows of V, with the weights of the "
                "same row of step 4. A masked key gets $e^{-\\infty} = 0$ weight, so it cannot "
                "leak into the output.")


def explain_bottleneck() -> None:
    """The fixed-size bottleneck of an encoder–decoder without attention."""
    st.markdown(
        "A plain encoder–decoder reads the whole source sentence into **one** vector $c = h_T$ "
        "of fixed size, then writes the translation from that vector alone. Ten words or fifty, "
        "the same few hundred numbers must hold everything, so long sentences lose detail: "
        "names drop out, clauses are forgotten, quality falls with length.\n\n"
        "With attention the decoder keeps **all** encoder states $h_1, \\dots, h_T$ and, at each "
        "output step $t$, builds a fresh context from the ones it needs now. The memory grows "
        "with the sentence instead of being squeezed into one vector.")
    st.latex(r"\text{without: } c = h_T \qquad\qquad \text{with: } c_t = \sum_{i=1}^{T} "
             r"\alpha_{t,i}\, h_i,\quad \alpha_{t,\cdot} = \operatorname{softmax}(e_{t,\cdot})")


def bleu_by_length() -> None:
    """The shipped seq2seq models' quality against sentence length, or how to get it, and a
    link to the Seq2seq attention page."""
    figure, problem = None, None
    try:
        from models.checkpoints import load_results
        from viz_core.seq2seq import bleu_by_length_figure
    except ImportError:
        load_results = None
    if load_results is not None:
        try:
            results = load_results()
            if results:
                figure = bleu_by_length_figure(results)
        except Exception as err:  # a broken results file must not break this page
            problem = f"{type(err).__name__}"
    if figure is not None:
        st.plotly_chart(figure, key="why_bleu", config=PLOT)
        st.caption("Translation quality against source length for the shipped seq2seq models, "
                   "with and without attention.")
    else:
        st.info("The quality-against-sentence-length chart of the seq2seq models (with and "
                "without attention) appears here once the shipped seq2seq checkpoints are "
                "evaluated: run `python -m models.evaluate --write`."
                + (f" (The results could not be read: {problem}.)" if problem else ""),
                icon=":material/show_chart:")
    if (ROOT / "pages" / "2_Seq2seq_attention.py").exists():
        try:
            st.page_link("pages/2_Seq2seq_attention.py", label="Try it: Seq2seq attention",
                         icon=":material/arrow_forward:")
        except StreamlitPageNotFoundError:  # this page was started on its own, not from app.py
            st.markdown("Try it on the **Seq2seq attention** page.")


def explain_complexity() -> None:
    """Cost per layer and path length of self-attention, recurrent and convolutional layers."""
    st.markdown(
        "$n$ is the sequence length, $d$ the width, $k$ the kernel size. Self-attention compares "
        "every pair of positions ($n^2$ pairs), but all at once: no step waits for another, and "
        "any two words are one step apart. A recurrent layer needs $n$ steps one after the "
        "other, and information from word 1 reaches word $n$ only through $n$ steps.")


def explain_growth(result: complexity.TimingResult) -> None:
    """The measured growth exponents of each layer's time over the longest lengths."""
    slopes = complexity.growth_exponents(result)
    st.markdown(
        "Growth over the longest three lengths, time ∝ $n^p$: "
        + ", ".join(f"**{name}** p ≈ {p:.2f}" for name, p in slopes.items() if np.isfinite(p))
        + ". Self-attention's $n^2$ term takes over at long lengths; at short lengths fixed "
          "overheads dominate every layer. The GRU's time is spent in $n$ sequential steps, "
          "which a GPU cannot run in parallel.")
