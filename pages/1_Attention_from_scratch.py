"""Attention from scratch: kernel regression, score functions, soft/hard/local attention,
a Q/K/V sandbox, why attention, and self-attention against recurrent and convolutional layers."""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from ui.frame import page_frame

page_frame(
    "Attention from scratch",
    icon="🧮",
    intro=(
        "Attention is a weighted average: a **query** compares itself with every **key**, the "
        "scores go through a softmax, and the weights mix the **values**. Every figure below is "
        "computed live from the formulas; every control changes it at once."
    ),
)

from models.lessons import complexity, kernel_regression as kr, sandbox  # noqa: E402
from viz_core import foundations as viz  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TABS = ("Kernel regression", "Score functions", "Soft, hard, local", "Q/K/V sandbox",
        "Why attention", "Attention vs RNN vs CNN")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def plain(text: str) -> str:
    """Escape Markdown so that text (which may quote user input) shows literally in st.error."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


# ------------------------------------------------------------------------------ cached models

@st.cache_data(max_entries=32, show_spinner=False)
def toy_data(n_train: int, noise: float, seed: int) -> kr.ToyData:
    return kr.make_data(n_train, noise, seed)


@st.cache_data(max_entries=32, show_spinner="Training w by SGD …")
def parametric(n_train: int, noise: float, seed: int, steps: int, lr: float) -> kr.ParametricResult:
    return kr.train_parametric(toy_data(n_train, noise, seed), steps=steps, lr=lr, seed=seed)


@st.cache_data(max_entries=4, show_spinner="Drawing random queries and keys …")
def saturation() -> sandbox.SaturationResult:
    return sandbox.softmax_saturation()


@st.cache_data(max_entries=8, show_spinner=False)
def timings(lengths: tuple[int, ...], d_model: int, repeats: int, device: str) -> complexity.TimingResult:
    return complexity.time_layers(lengths, d_model=d_model, repeats=repeats, device=device)


@st.cache_resource
def device_name() -> str:
    from models.device import pick_device

    return str(pick_device())


# ------------------------------------------------------------------------------ sections

def kernel_regression_section() -> None:
    st.subheader("Nadaraya–Watson kernel regression: attention pooling in one dimension")
    st.markdown(
        "Predict $y$ at a new input $x$ by averaging the training targets $y_i$, weighting each "
        "by how close its input $x_i$ is to $x$. The test input is the **query**, the training "
        "inputs are the **keys**, the training targets are the **values**.")
    st.session_state.setdefault("kr_seed", 0)
    c1, c2, c3, c4 = st.columns([3, 3, 3, 2], vertical_alignment="bottom")
    n_train = c1.slider("Training points n", 10, 100, 50, step=5, key="kr_n",
                        persist_state="page")
    noise = c2.slider("Noise σ", 0.0, 1.5, 0.5, step=0.1, key="kr_noise", persist_state="page")
    bandwidth = c3.slider("Gaussian bandwidth h", 0.05, 2.0, 1.0, step=0.05, key="kr_h",
                          persist_state="page")
    c4.button("Resample", key="kr_resample", width="stretch",
              help="Draw a new random training set with the same size and noise.",
              on_click=lambda: st.session_state.update(kr_seed=st.session_state["kr_seed"] + 1))
    seed = int(st.session_state["kr_seed"])
    c5, c6, c7 = st.columns([3, 3, 5], vertical_alignment="bottom")
    steps = c5.slider("SGD steps for w", 0, 500, 200, step=10, key="kr_steps", persist_state="page")
    lr = c6.select_slider("Learning rate", [0.05, 0.1, 0.2, 0.5, 1.0, 2.0], value=0.5,
                          key="kr_lr", persist_state="page")
    method = c7.radio("Weights to show", ["average", "gaussian", "parametric"], index=1,
                      horizontal=True, key="kr_method", persist_state="page",
                      format_func=lambda m: {"average": "Average pooling",
                                             "gaussian": "Gaussian kernel",
                                             "parametric": "Parametric (learned w)"}[m])

    data = toy_data(n_train, noise, seed)
    results = {"average": kr.average_pooling(data),
               "gaussian": kr.gaussian_pooling(data, bandwidth),
               "parametric": parametric(n_train, noise, seed, steps, lr)}
    fits = {key: (r.name, r.y_hat) for key, r in results.items()}
    chosen = results[method]

    left, right = st.columns(2)
    left.plotly_chart(viz.kernel_fit_figure(data.x_train, data.y_train, data.x_test, data.y_true,
                                            fits, highlight=method,
                                            title="Fitted curves (thick: the chosen method)"),
                      key="kr_fit")
    right.plotly_chart(viz.weights_heatmap(
        chosen.weights, [f"{x:.2f}" for x in data.x_train], [f"{x:.1f}" for x in data.x_test],
        title=f"Attention weights α(x, xᵢ): {chosen.name}", x_title="training input xᵢ (key)",
        y_title="test input x (query)", zmax=None, height=430, max_ticks=10), key="kr_weights")
    cols = st.columns(3)
    for col, (key, r) in zip(cols, results.items()):
        col.metric(f"Test error: {r.name.split(' (')[0]}", f"{r.mse:.3f}",
                   help="Mean squared error against the noise-free f on the test grid.")

    st.latex(r"f(x) = \sum_{i=1}^{n} \alpha(x, x_i)\, y_i,\qquad"
             r"\alpha(x, x_i) = \operatorname{softmax}_i\!\left(-\tfrac{1}{2}\big((x - x_i)\,w\big)^2\right)")
    st.markdown(
        "* **Average pooling**: $\\alpha = 1/n$ for every query, so the prediction is a flat line "
        "at the mean of the $y_i$: it ignores the query.\n"
        "* **Gaussian kernel**: $w = 1/h$. Nearby training points get most of the weight; a "
        "small bandwidth $h$ follows the noise, a large one over-smooths.\n"
        f"* **Parametric**: $w$ is learned by {steps} steps of gradient descent on the squared "
        f"error, each training point predicted from the *other* points (otherwise $w \\to \\infty$ "
        f"and each point simply looks itself up). Learned $w$ = **{results['parametric'].w:.2f}**, "
        f"i.e. $h = 1/w$ = {1 / max(results['parametric'].w, 1e-9):.2f}. A larger $w$ narrows "
        "the band of weights in the heatmap and makes the curve less smooth.")
    if steps:
        st.plotly_chart(viz.loss_figure(results["parametric"].loss_history,
                                        results["parametric"].w_history,
                                        title="Training the width w"), key="kr_loss")


def _vector_input(container, label: str, default: tuple[float, float], key: str) -> np.ndarray:
    a, b = container.columns(2)
    x = a.number_input(f"{label} x", -5.0, 5.0, default[0], 0.1, key=f"{key}_x",
                       persist_state="page")
    y = b.number_input(f"{label} y", -5.0, 5.0, default[1], 0.1, key=f"{key}_y",
                       persist_state="page")
    return np.array([x, y])


KEY_DEFAULTS = ((1.0, 0.2), (0.2, 1.0), (-1.0, 0.3), (2.0, 1.0), (0.0, -1.5))


def score_functions_section() -> None:
    st.subheader("Score functions side by side")
    st.markdown("One query $q$ and a few keys $k_i$ in the plane. Type their coordinates; every "
                "score and weight below follows at once.")
    controls, plane, bars = st.columns([2, 3, 3])
    n_keys = controls.slider("Number of keys", 2, 5, 4, key="sf_n", persist_state="page")
    query = _vector_input(controls, "q", (1.0, 0.5), "sf_q")
    keys = np.array([_vector_input(controls, f"k{i + 1}", KEY_DEFAULTS[i], f"sf_k{i}")
                     for i in range(n_keys)])
    labels = [f"k{i + 1}" for i in range(n_keys)]
    params = sandbox.default_score_params()
    comp = sandbox.compare_scores(query, keys, params)
    plane.plotly_chart(viz.vectors_figure(comp.query, comp.keys, labels, title="Query and keys"),
                       key="sf_plane")
    bars.plotly_chart(viz.score_bars_figure(comp.names, labels, comp.weights,
                                            title="Weights α = softmax(e)"),
                      key="sf_bars")
    st.dataframe(viz.score_table(comp.names, labels, comp.scores, comp.weights), key="sf_table")
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

    st.divider()
    st.subheader("Why divide by √d? Unscaled dot products saturate the softmax")
    result = saturation()
    dims = [int(d) for d in result.dims]
    d = st.select_slider("Dimension d of queries and keys", dims, value=64, key="sf_d",
                         persist_state="page")
    st.plotly_chart(viz.saturation_figure(result.dims, result.max_weight_dot,
                                          result.max_weight_scaled, result.grad_norm_dot,
                                          result.grad_norm_scaled, chosen=d,
                                          n_keys=result.n_keys), key="sf_saturation")
    i = dims.index(d)
    left, right = st.columns([1, 1], vertical_alignment="center")
    left.plotly_chart(viz.example_weights_figure(result.example_dot[i], result.example_scaled[i],
                                                 d), key="sf_example")
    right.markdown(
        f"With entries of $q$ and $k$ drawn from $\\mathcal N(0, 1)$, $q^\\top k$ has mean 0 and "
        f"variance $d$. At $d$ = {d} the unscaled scores spread over about ±{2 * math.sqrt(d):.0f}, "
        f"so the softmax puts {result.max_weight_dot[i]:.0%} of the weight on one key on average "
        f"(scaled: {result.max_weight_scaled[i]:.0%}). The softmax's gradient "
        "$\\partial\\alpha/\\partial e = \\operatorname{diag}(\\alpha) - \\alpha\\alpha^\\top$ "
        f"shrinks with it (size {result.grad_norm_dot[i]:.3f} against "
        f"{result.grad_norm_scaled[i]:.3f}): the scores stop learning. Dividing by $\\sqrt d$ "
        "keeps the variance at 1 for every $d$. Averages over 300 random draws of "
        f"{result.n_keys} keys.")


def soft_hard_local_section() -> None:
    st.subheader("Soft, hard and local attention on one example")
    tokens = sandbox.EXAMPLE_SOURCE
    c1, c2, c3, c4 = st.columns(4)
    focus = c1.selectbox("The query resembles", range(len(tokens)), index=10, key="shl_focus",
                         format_func=lambda i: f"{i}: {tokens[i]}", persist_state="page")
    sharpness = c2.slider("Query length (sharpness)", 0.2, 3.0, 1.0, 0.1, key="shl_sharp",
                          persist_state="page")
    center = c3.slider("Local: aligned position pₜ", 0.0, float(len(tokens) - 1), 10.0, 0.5,
                       key="shl_center", persist_state="page")
    half_width = c4.slider("Local: half-width D", 1, 4, 2, key="shl_D", persist_state="page")
    ex = sandbox.soft_hard_local(int(focus), center, half_width, sharpness)
    st.plotly_chart(viz.soft_hard_local_figure(ex.tokens, ex.soft, ex.hard, ex.local, ex.window),
                    key="shl_fig")
    st.markdown(
        f"* **Soft** (Bahdanau; Luong global): $\\alpha = \\operatorname{{softmax}}(e)$ over all "
        f"source words. Differentiable, so it trains with ordinary backpropagation; costs one "
        f"score per source word.\n"
        f"* **Hard** (Xu et al. 2015): attend to a single word, here "
        f"“{tokens[int(np.argmax(ex.hard))]}”. Choosing is not differentiable, so training needs "
        f"sampling (REINFORCE) instead of plain gradients.\n"
        f"* **Local** (Luong et al. 2015): a soft window $[p_t - D, p_t + D]$ (outlined), "
        f"weighted by a Gaussian around $p_t$ with $\\sigma = D/2$. Only "
        f"{int(ex.window.sum())} of {len(tokens)} words are scored. The weights sum to "
        f"{ex.local.sum():.2f}, not 1, because of the Gaussian factor. Local-m sets $p_t = t$; "
        f"local-p predicts $p_t = S\\cdot\\sigma(v_p^\\top \\tanh(W_p h_t))$.")
    st.latex(r"\alpha^{\text{local}}_i = \operatorname{softmax}_{i \in [p_t-D,\,p_t+D]}(e_i)\;"
             r"\exp\!\left(-\frac{(i - p_t)^2}{2\sigma^2}\right),\quad \sigma = D/2")


DEFAULT_Q = "1 0 1 0\n0 2 0 2\n1 1 1 1"
DEFAULT_K = "1 0 1 0\n0 1 0 1\n1 1 0 0\n0 0 2 2"
DEFAULT_V = "1 0\n0 1\n1 1\n2 -1"


def sandbox_section() -> None:
    st.subheader("Q/K/V sandbox: every step of softmax(QKᵀ/√d + mask)·V")
    st.markdown(f"One row per line, numbers separated by spaces or commas; at most "
                f"{sandbox.MAX_ROWS} rows × {sandbox.MAX_COLS} columns, each between "
                f"−{sandbox.MAX_ABS:g} and {sandbox.MAX_ABS:g}. Q and K need the same number of "
                "columns; K and V the same number of rows.")
    cq, ck, cv, cm = st.columns([3, 3, 3, 3])
    texts = {"Q": cq.text_area("Q (queries)", DEFAULT_Q, height=170, key="sb_q", persist_state="page"),
             "K": ck.text_area("K (keys)", DEFAULT_K, height=170, key="sb_k", persist_state="page"),
             "V": cv.text_area("V (values)", DEFAULT_V, height=170, key="sb_v", persist_state="page")}
    mask = cm.radio("Mask", sandbox.MASKS, index=1, key="sb_mask", persist_state="page",
                    format_func=lambda m: {"none": "none", "causal": "causal (key j ≤ query i)",
                                           "padding": "padding (hide the last keys)"}[m])
    n_padding = cm.number_input("Padded keys", 0, sandbox.MAX_ROWS - 1, 1, key="sb_pad",
                                persist_state="page", disabled=mask != "padding")
    matrices, errors = {}, []
    for name, text in texts.items():
        try:
            matrices[name] = sandbox.parse_matrix(text, name)
        except ValueError as err:
            errors.append(str(err))
    if not errors:
        try:
            steps = sandbox.qkv_steps(matrices["Q"], matrices["K"], matrices["V"], mask,
                                      int(n_padding))
        except ValueError as err:
            errors.append(str(err))
    if errors:
        for message in errors:
            st.error(plain(message), icon=":material/error:")
        return

    q_labels = [f"q{i + 1}" for i in range(steps.q.shape[0])]
    k_labels = [f"k{j + 1}" for j in range(steps.k.shape[0])]
    v_labels = [f"dim {j + 1}" for j in range(steps.v.shape[1])]
    row1 = st.columns(3)
    row1[0].plotly_chart(viz.matrix_heatmap(steps.scores, k_labels, q_labels, title="1 · QKᵀ"),
                         key="sb_scores")
    row1[1].plotly_chart(viz.matrix_heatmap(steps.scaled, k_labels, q_labels,
                                            title=f"2 · ÷ √d_k = ÷ {math.sqrt(steps.d_k):.2f}"),
                         key="sb_scaled")
    row1[2].plotly_chart(viz.matrix_heatmap(steps.scaled, k_labels, q_labels,
                                            masked=~steps.allowed, title="3 · + mask (−∞)"),
                         key="sb_masked")
    row2 = st.columns(3)
    row2[0].plotly_chart(viz.weights_heatmap(steps.weights, k_labels, q_labels, annotate=True,
                                             title="4 · softmax over each row"), key="sb_weights")
    row2[1].plotly_chart(viz.matrix_heatmap(steps.v, v_labels, k_labels, title="V"),
                         key="sb_v_fig")
    row2[2].plotly_chart(viz.matrix_heatmap(steps.output, v_labels, q_labels,
                                            title="5 · weights · V = output"), key="sb_output")
    st.latex(r"\operatorname{Attention}(Q, K, V) = "
             r"\operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right) V,\qquad "
             r"M_{ij} = \begin{cases} 0 & \text{if query } i \text{ may see key } j\\ "
             r"-\infty & \text{otherwise}\end{cases}")
    st.markdown("Each output row is a weighted average of the rows of V, with the weights of the "
                "same row of step 4. A masked key gets $e^{-\\infty} = 0$ weight, so it cannot "
                "leak into the output.")


def why_attention_section() -> None:
    st.subheader("Why attention: the fixed-size bottleneck")
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
        st.plotly_chart(figure, key="why_bleu")
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


def complexity_section() -> None:
    st.subheader("Self-attention against recurrent and convolutional layers")
    st.table(viz.complexity_table(complexity.COMPLEXITY_TABLE))
    st.markdown(
        "$n$ is the sequence length, $d$ the width, $k$ the kernel size. Self-attention compares "
        "every pair of positions ($n^2$ pairs), but all at once: no step waits for another, and "
        "any two words are one step apart. A recurrent layer needs $n$ steps one after the "
        "other, and information from word 1 reaches word $n$ only through $n$ steps.")
    c1, c2, c3, c4 = st.columns([2, 3, 2, 2], vertical_alignment="bottom")
    d_model = c1.selectbox("Width d", [16, 32, 64, 128, 256], index=2, key="cx_d",
                           persist_state="page")
    max_len = c2.select_slider("Longest sequence", list(complexity.DEFAULT_LENGTHS), value=2048,
                               key="cx_max", persist_state="page")
    repeats = c3.selectbox("Repeats", [1, 3, 5], index=1, key="cx_repeats", persist_state="page")
    lengths = tuple(n for n in complexity.DEFAULT_LENGTHS if n <= max_len)
    device = device_name()
    if c4.button("Measure", key="cx_run", type="primary", width="stretch",
                 help="Time one forward pass of each layer at every length on this device."):
        st.session_state["cx_params"] = (lengths, int(d_model), int(repeats), device)
    params = st.session_state.get("cx_params")
    if params is None:
        st.info(f"Press **Measure** to time one forward pass of each layer on {device.upper()} "
                "(batch 1, lengths 16 … the longest). It takes a few seconds.", icon=":material/timer:")
        return
    with st.spinner("Timing forward passes …"):
        result = timings(*params)
    st.plotly_chart(viz.timing_figure(result.lengths, result.seconds,
                                      title=f"Forward time on {result.device.upper()} "
                                            f"({result.threads} thread{'s' * (result.threads != 1)}), "
                                            f"d = {result.d_model}"), key="cx_fig")
    slopes = complexity.growth_exponents(result)
    st.markdown(
        "Growth over the longest three lengths, time ∝ $n^p$: "
        + ", ".join(f"**{name}** p ≈ {p:.2f}" for name, p in slopes.items() if np.isfinite(p))
        + ". Self-attention's $n^2$ term takes over at long lengths; at short lengths fixed "
          "overheads dominate every layer. The GRU's time is spent in $n$ sequential steps, "
          "which a GPU cannot run in parallel.")


SECTIONS = (kernel_regression_section, score_functions_section, soft_hard_local_section,
            sandbox_section, why_attention_section, complexity_section)

tabs = st.tabs(TABS, key="topic", bind="query-params")
for tab, section in zip(tabs, SECTIONS):
    with tab:
        if tab.open is not False:  # only the selected tab runs
            section()
