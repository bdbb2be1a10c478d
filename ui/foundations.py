"""Pieces of the "Attention from scratch" page: cached lesson computations, the Q/K/V sandbox's
input parsing, and the explanations under each figure."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from models.lessons import complexity, kernel_regression as kr, sandbox
from ui.checkpoints import label_of
from ui.export import PLOT
from ui.plot import chart
from ui.state import checked
from ui.i18n import figure_texts, tr
from ui.tokens import input_error, md_escape
from viz_core.foundations import complexity_word

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------------ cached lessons


@st.cache_data(max_entries=32, show_spinner=False)
def toy_data(n_train: int, noise: float, seed: int) -> kr.ToyData:
    """The noisy 1-D training set and test grid of the kernel regression lesson."""
    return kr.make_data(n_train, noise, seed)


@st.cache_data(max_entries=32, show_spinner=False)
def parametric(n_train: int, noise: float, seed: int, steps: int, lr: float) -> kr.ParametricResult:
    """Kernel regression with the width w learned by ``steps`` of gradient descent."""
    return kr.train_parametric(toy_data(n_train, noise, seed), steps=steps, lr=lr, seed=seed)


@st.cache_data(max_entries=4, show_spinner=False)
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
KR_METHODS = ("average", "gaussian", "parametric")  # the kernel regression lesson's methods (its Method radio)
KR_RATES = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0)  # its SGD learning rates (the select slider)


def vector_input(container, label: str, default: tuple[float, float], key: str) -> np.ndarray:
    """Two number inputs (x, y) side by side in ``container``; keys ``{key}_x`` and ``{key}_y``."""
    a, b = container.columns(2)
    x = checked(
        a.number_input,
        f"{label} x",
        -5.0,
        5.0,
        default[0],
        0.1,
        key=f"{key}_x",
        persist_state="page",
        bind="query-params",
    )
    y = checked(
        b.number_input,
        f"{label} y",
        -5.0,
        5.0,
        default[1],
        0.1,
        key=f"{key}_y",
        persist_state="page",
        bind="query-params",
    )
    return np.array([x, y])


def qkv_steps(texts: dict[str, str], mask: str, n_padding: int) -> sandbox.QKVSteps | None:
    """Parse the typed Q, K and V and compute every step of the attention; on bad input show
    each problem as an error line (the typed text literally) and return None."""
    matrices, errors = {}, []
    for name, text in texts.items():
        try:
            matrices[name] = sandbox.parse_matrix(text, name)
        except ValueError as err:
            errors.append(input_error(err))
    if not errors:
        try:
            return sandbox.qkv_steps(matrices["Q"], matrices["K"], matrices["V"], mask, n_padding)
        except ValueError as err:
            errors.append(input_error(err))
    for message in errors:
        st.error(message, icon=":material/error:")
    return None


# ------------------------------------------------------------------------------ explanations


def explain_kernel_regression_setup() -> None:
    """Kernel regression as attention: which of its parts are queries, keys and values."""
    st.markdown(tr("scratch.kr.setup"))


def explain_kernel_regression() -> None:
    """The attention-pooling formula and the three weightings. The same for every sample: a page
    draws it outside the part that a resample redraws (text, formulas above all, is costly to redraw)."""
    st.latex(
        r"f(x) = \sum_{i=1}^{n} \alpha(x, x_i)\, y_i,\qquad"
        r"\alpha(x, x_i) = \operatorname{softmax}_i\!\left(-\tfrac{1}{2}\big((x - x_i)\,w\big)^2\right)"
    )
    st.markdown(tr("scratch.kr.explain"))


def learned_width(steps: int, w: float) -> None:
    """The parametric fit's learned width ``w`` and its bandwidth ``h = 1/w``, after ``steps`` steps."""
    st.caption(tr("scratch.kr.learned", steps=steps, w=w, h=1 / max(w, 1e-9)))


def explain_scores(params: sandbox.ScoreParams) -> None:
    """The five score formulas, their fixed parameters, and how they differ."""
    formulas = (
        ("dot", r"q^\top k_i"),
        ("scaled", r"\frac{q^\top k_i}{\sqrt d}"),
        ("general", r"q^\top W k_i"),
        ("additive", r"v^\top \tanh(W_q q + W_k k_i)"),
        ("cosine", r"\frac{q^\top k_i}{\lVert q\rVert\,\lVert k_i\rVert}"),
    )
    for col, (name, formula) in zip(st.columns([2, 2, 2, 3, 2]), formulas):
        col.markdown(f"**{tr(f'scratch.sf.name.{name}')}**")
        col.latex(formula)
    with st.expander(tr("scratch.sf.params")):
        cols = st.columns(4)
        for col, (name, value) in zip(
            cols, [("W", params.w), ("W_q", params.w_q), ("W_k", params.w_k), ("v", params.v[:, None])]
        ):
            col.markdown(f"**{name}**")
            col.dataframe(pd.DataFrame(value), hide_index=True)  # columns 0 … n−1 (a bare (n, 1) array is "value")
    st.markdown(tr("scratch.sf.explain"))


def explain_saturation(container, d: int, result: sandbox.SaturationResult, i: int) -> None:
    """Why unscaled scores at dimension ``d`` (index ``i`` of ``result.dims``) saturate the softmax."""
    container.markdown(
        tr(
            "scratch.sat.explain",
            d=d,
            spread=2 * math.sqrt(d),
            top=result.max_weight_dot[i],
            top_scaled=result.max_weight_scaled[i],
            grad=result.grad_norm_dot[i],
            grad_scaled=result.grad_norm_scaled[i],
            n_keys=result.n_keys,
        )
    )


def explain_soft_hard_local(tokens: list[str], ex: sandbox.SoftHardLocal) -> None:
    """Soft, hard and local attention on the example, with the local window's formula."""
    st.markdown(
        tr(
            "scratch.shl.explain",
            hard=md_escape(tokens[int(np.argmax(ex.hard))]),
            scored=int(ex.window.sum()),
            n=len(tokens),
            sum_m=ex.local_m.sum(),
            sum_p=ex.local_p.sum(),
        )
    )
    st.latex(
        r"\alpha^{\text{local-m}}_i = \operatorname{softmax}_{i \in [p_t-D,\,p_t+D]}(e_i) \qquad "
        r"\alpha^{\text{local-p}}_i = \alpha^{\text{local-m}}_i\,"
        r"\exp\!\left(-\frac{(i - p_t)^2}{2\sigma^2}\right),\quad \sigma = D/2"
    )


def explain_sandbox_input() -> None:
    """What the sandbox's Q, K and V text areas accept."""
    st.markdown(tr("scratch.sb.input", rows=sandbox.MAX_ROWS, cols=sandbox.MAX_COLS, limit=sandbox.MAX_ABS))


def explain_sandbox() -> None:
    """The attention formula with its mask, and what each output row is."""
    st.latex(
        r"\operatorname{Attention}(Q, K, V) = "
        r"\operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right) V,\qquad "
        r"M_{ij} = \begin{cases} 0 & " + tr("scratch.sb.latex_if") + r"\\ "
        r"-\infty & " + tr("scratch.sb.latex_else") + r"\end{cases}"
    )
    st.markdown(tr("scratch.sb.explain"))


def explain_bottleneck() -> None:
    """The fixed-size bottleneck of an encoder–decoder without attention."""
    st.markdown(tr("scratch.why.explain"))
    st.latex(
        tr("scratch.why.latex_without")
        + r"c = h_T \qquad\qquad "
        + tr("scratch.why.latex_with")
        + r"c_t = \sum_{i=1}^{T} \alpha_{t,i}\, h_i,\quad \alpha_{t,\cdot} = \operatorname{softmax}(e_{t,\cdot})"
    )


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
                models = [{**m, "label": label_of(m.get("name", ""), m["label"])} for m in results.get("models", [])]
                figure = bleu_by_length_figure({**results, "models": models}, texts=figure_texts())
        except Exception as err:  # a broken results file must not break this page
            problem = f"{type(err).__name__}"
    if figure is not None:
        chart(figure, key="why_bleu", config=PLOT)
        st.caption(tr("scratch.why.caption"))
    else:
        st.info(
            tr("scratch.why.missing") + (tr("scratch.why.unreadable", problem=problem) if problem else ""),
            icon=":material/show_chart:",
        )
    if (ROOT / "pages" / "2_Seq2seq_attention.py").exists():
        try:
            st.page_link("pages/2_Seq2seq_attention.py", label=tr("scratch.why.try"), icon=":material/arrow_forward:")
        except StreamlitPageNotFoundError:  # this page was started on its own, not from app.py
            st.markdown(tr("scratch.why.try_text"))


def explain_complexity() -> None:
    """Cost per layer and path length of self-attention, recurrent and convolutional layers."""
    st.markdown(tr("scratch.cx.explain"))


def explain_growth(result: complexity.TimingResult) -> None:
    """The measured growth exponents of each layer's time over the longest lengths."""
    slopes = complexity.growth_exponents(result)
    words = figure_texts()
    st.markdown(
        tr(
            "scratch.cx.growth",
            slopes=", ".join(
                f"**{complexity_word(name, words)}** p ≈ {p:.2f}" for name, p in slopes.items() if np.isfinite(p)
            ),
        )
    )
