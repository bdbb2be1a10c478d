"""Attention from scratch: kernel regression, score functions, soft/hard/local attention,
a Q/K/V sandbox, why attention, and self-attention against recurrent and convolutional layers."""
from __future__ import annotations

import numpy as np
import streamlit as st

from ui.export import PLOT
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
from ui.foundations import (  # noqa: E402
    KEY_DEFAULTS, bleu_by_length, device_name, explain_bottleneck, explain_complexity, explain_growth,
    explain_kernel_regression, explain_kernel_regression_setup, explain_sandbox, explain_sandbox_input,
    explain_saturation, explain_scores, explain_soft_hard_local, parametric, qkv_steps, saturation, timings,
    toy_data, vector_input,
)
from ui.state import increment, topic_tabs  # noqa: E402
from viz_core import foundations as viz  # noqa: E402

TABS = ("Kernel regression", "Score functions", "Soft, hard, local", "Q/K/V sandbox",
        "Why attention", "Attention vs RNN vs CNN")


def kernel_regression_section() -> None:
    st.subheader("Nadaraya–Watson kernel regression: attention pooling in one dimension")
    explain_kernel_regression_setup()
    st.session_state.setdefault("kr_seed", 0)
    c1, c2, c3, c4 = st.columns([3, 3, 3, 2], vertical_alignment="bottom")
    n_train = c1.slider("Training points n", 10, 100, 50, step=5, key="kr_n", persist_state="page")
    noise = c2.slider("Noise σ", 0.0, 1.5, 0.5, step=0.1, key="kr_noise", persist_state="page")
    bandwidth = c3.slider("Gaussian bandwidth h", 0.05, 2.0, 1.0, step=0.05, key="kr_h", persist_state="page")
    c4.button("Resample", key="kr_resample", width="stretch",
              help="Draw a new random training set with the same size and noise.",
              on_click=increment, args=("kr_seed",))
    seed = int(st.session_state["kr_seed"])
    c5, c6, c7 = st.columns([3, 3, 5], vertical_alignment="bottom")
    steps = c5.slider("SGD steps for w", 0, 500, 200, step=10, key="kr_steps", persist_state="page")
    lr = c6.select_slider("Learning rate", [0.05, 0.1, 0.2, 0.5, 1.0, 2.0], value=0.5,
                          key="kr_lr", persist_state="page")
    method = c7.radio("Weights to show", ["average", "gaussian", "parametric"], index=1,
                      horizontal=True, key="kr_method", persist_state="page",
                      format_func=lambda m: {"average": "Average pooling", "gaussian": "Gaussian kernel",
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
                      key="kr_fit", config=PLOT)
    right.plotly_chart(viz.weights_heatmap(
        chosen.weights, [f"{x:.2f}" for x in data.x_train], [f"{x:.1f}" for x in data.x_test],
        title=f"Attention weights α(x, xᵢ): {chosen.name}", x_title="training input xᵢ (key)",
        y_title="test input x (query)", zmax=None, height=430, max_ticks=10), key="kr_weights", config=PLOT)
    cols = st.columns(3)
    for col, (key, r) in zip(cols, results.items()):
        col.metric(f"Test error: {r.name.split(' (')[0]}", f"{r.mse:.3f}",
                   help="Mean squared error against the noise-free f on the test grid.")

    explain_kernel_regression(steps, results["parametric"].w)
    if steps:
        st.plotly_chart(viz.loss_figure(results["parametric"].loss_history,
                                        results["parametric"].w_history,
                                        title="Training the width w"), key="kr_loss", config=PLOT)


def score_functions_section() -> None:
    st.subheader("Score functions side by side")
    st.markdown("One query $q$ and a few keys $k_i$ in the plane. Type their coordinates; every "
                "score and weight below follows at once.")
    controls, plane, bars = st.columns([2, 3, 3])
    n_keys = controls.slider("Number of keys", 2, 5, 4, key="sf_n", persist_state="page")
    query = vector_input(controls, "q", (1.0, 0.5), "sf_q")
    keys = np.array([vector_input(controls, f"k{i + 1}", KEY_DEFAULTS[i], f"sf_k{i}") for i in range(n_keys)])
    labels = [f"k{i + 1}" for i in range(n_keys)]
    params = sandbox.default_score_params()
    comp = sandbox.compare_scores(query, keys, params)
    plane.plotly_chart(viz.vectors_figure(comp.query, comp.keys, labels, title="Query and keys"), key="sf_plane",
                        config=PLOT)
    bars.plotly_chart(viz.score_bars_figure(comp.names, labels, comp.weights, title="Weights α = softmax(e)"),
                      key="sf_bars", config=PLOT)
    st.dataframe(viz.score_table(comp.names, labels, comp.scores, comp.weights), key="sf_table")
    explain_scores(params)
    st.divider()
    st.subheader("Why divide by √d? Unscaled dot products saturate the softmax")
    result = saturation()
    dims = [int(d) for d in result.dims]
    d = st.select_slider("Dimension d of queries and keys", dims, value=64, key="sf_d", persist_state="page")
    st.plotly_chart(viz.saturation_figure(result.dims, result.max_weight_dot,
                                          result.max_weight_scaled, result.grad_norm_dot,
                                          result.grad_norm_scaled, chosen=d,
                                          n_keys=result.n_keys), key="sf_saturation", config=PLOT)
    i = dims.index(d)
    left, right = st.columns([1, 1], vertical_alignment="center")
    left.plotly_chart(viz.example_weights_figure(result.example_dot[i], result.example_scaled[i], d),
                      key="sf_example", config=PLOT)
    explain_saturation(right, d, result, i)


def soft_hard_local_section() -> None:
    st.subheader("Soft, hard and local attention on one example")
    tokens = sandbox.EXAMPLE_SOURCE
    c1, c2, c3, c4 = st.columns(4)
    focus = c1.selectbox("The query resembles", range(len(tokens)), index=10, key="shl_focus",
                         format_func=lambda i: f"{i}: {tokens[i]}", persist_state="page")
    sharpness = c2.slider("Query length (sharpness)", 0.2, 3.0, 1.0, 0.1, key="shl_sharp", persist_state="page")
    center = c3.slider("Local: aligned position pₜ", 0.0, float(len(tokens) - 1), 10.0, 0.5,
                       key="shl_center", persist_state="page")
    half_width = c4.slider("Local: half-width D", 1, 4, 2, key="shl_D", persist_state="page")
    ex = sandbox.soft_hard_local(int(focus), center, half_width, sharpness)
    st.plotly_chart(viz.soft_hard_local_figure(ex.tokens, ex.soft, ex.hard, ex.local_m, ex.local_p, ex.window),
                    key="shl_fig", config=PLOT)
    explain_soft_hard_local(tokens, ex)


DEFAULT_Q = "1 0 1 0\n0 2 0 2\n1 1 1 1"
DEFAULT_K = "1 0 1 0\n0 1 0 1\n1 1 0 0\n0 0 2 2"
DEFAULT_V = "1 0\n0 1\n1 1\n2 -1"


def sandbox_section() -> None:
    st.subheader("Q/K/V sandbox: every step of softmax(QKᵀ/√d + mask)·V")
    explain_sandbox_input()
    cq, ck, cv, cm = st.columns([3, 3, 3, 3])
    texts = {"Q": cq.text_area("Q (queries)", DEFAULT_Q, height=170, key="sb_q", persist_state="page"),
             "K": ck.text_area("K (keys)", DEFAULT_K, height=170, key="sb_k", persist_state="page"),
             "V": cv.text_area("V (values)", DEFAULT_V, height=170, key="sb_v", persist_state="page")}
    mask = cm.radio("Mask", sandbox.MASKS, index=1, key="sb_mask", persist_state="page",
                    format_func=lambda m: {"none": "none", "causal": "causal (key j ≤ query i)",
                                           "padding": "padding (hide the last keys)"}[m])
    n_padding = cm.number_input("Padded keys", 0, sandbox.MAX_ROWS - 1, 1, key="sb_pad",
                                persist_state="page", disabled=mask != "padding")
    steps = qkv_steps(texts, mask, int(n_padding))
    if steps is None:
        return

    figures = viz.qkv_step_figures(steps.scores, steps.scaled, steps.allowed, steps.weights, steps.v,
                                   steps.output, steps.d_k)
    keys = ("sb_scores", "sb_scaled", "sb_masked", "sb_weights", "sb_v_fig", "sb_output")
    for col, figure, key in zip(st.columns(3) + st.columns(3), figures, keys):
        col.plotly_chart(figure, key=key, config=PLOT)
    explain_sandbox()


def why_attention_section() -> None:
    st.subheader("Why attention: the fixed-size bottleneck")
    explain_bottleneck()
    bleu_by_length()


def complexity_section() -> None:
    st.subheader("Self-attention against recurrent and convolutional layers")
    st.table(viz.complexity_table(complexity.COMPLEXITY_TABLE))
    explain_complexity()
    c1, c2, c3, c4 = st.columns([2, 3, 2, 2], vertical_alignment="bottom")
    d_model = c1.selectbox("Width d", [16, 32, 64, 128, 256], index=2, key="cx_d", persist_state="page")
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
                                            f"d = {result.d_model}"), key="cx_fig", config=PLOT)
    explain_growth(result)


SECTIONS = (kernel_regression_section, score_functions_section, soft_hard_local_section,
            sandbox_section, why_attention_section, complexity_section)

topic_tabs(TABS, SECTIONS)
