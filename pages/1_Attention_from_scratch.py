"""Attention from scratch: kernel regression, score functions, soft/hard/local attention,
a Q/K/V sandbox, why attention, and self-attention against recurrent and convolutional layers."""

from __future__ import annotations

from itertools import product

import numpy as np
import streamlit as st

from ui.deck import publish_view
from ui.export import PLOT
from ui.frame import page_frame
from ui.i18n import figure_texts, tr

page_frame(tr("nav.1"), icon="🧮", intro=tr("scratch.intro"))

from models.lessons import complexity, sandbox  # noqa: E402
from ui.foundations import (  # noqa: E402
    KEY_DEFAULTS,
    KR_METHODS,
    KR_RATES,
    bleu_by_length,
    device_name,
    explain_bottleneck,
    explain_complexity,
    explain_growth,
    explain_kernel_regression,
    explain_kernel_regression_setup,
    explain_sandbox,
    explain_sandbox_input,
    explain_saturation,
    explain_scores,
    explain_soft_hard_local,
    learned_width,
    qkv_steps,
    saturation,
    timings,
    vector_input,
)
from ui.plot import chart  # noqa: E402
from ui.state import Accept, checked, linked, increment, number_in, topic_tabs, url_check  # noqa: E402
from ui.views.foundations import KernelState, fit_view  # noqa: E402
from viz_core import foundations as viz  # noqa: E402

TABS = tuple(f"scratch.tab.{name}" for name in ("kr", "scores", "shl", "sandbox", "why", "complexity"))


def kernel_regression_section() -> None:
    st.subheader(tr("scratch.kr.header"))
    c1, c2, c3 = st.columns(3, vertical_alignment="bottom")
    n_train = checked(
        c1.slider, tr("scratch.kr.n"), 10, 100, 50, step=5, key="kr_n", persist_state="page", bind="query-params"
    )
    noise = checked(
        c2.slider,
        tr("scratch.kr.noise"),
        0.0,
        1.5,
        0.5,
        step=0.1,
        key="kr_noise",
        persist_state="page",
        bind="query-params",
    )
    bandwidth = checked(
        c3.slider, tr("scratch.kr.h"), 0.05, 2.0, 1.0, step=0.05, key="kr_h", persist_state="page", bind="query-params"
    )
    # Its own fragment: a resample, another method or another SGD setting redraws the fits, not the sliders
    # nor the text below them, the same for every sample.
    st.fragment(kernel_regression_fits)(n_train, noise, bandwidth)
    explain_kernel_regression_setup()
    explain_kernel_regression()


def kernel_regression_fits(n_train: int, noise: float, bandwidth: float) -> None:
    """The method, the SGD settings and Resample; the fits, their weights, test errors and the loss."""
    # the sample: a link's (as its slide reads it), then Resample's
    raw = url_check("kr_seed", number_in(0, 1_000_000), tr("generation.url.seed"))
    st.session_state.setdefault("kr_seed", 0 if raw is None else int(float(raw)))
    c7, c5, c4 = st.columns([6, 2, 2], vertical_alignment="bottom")
    c4.button(
        tr("scratch.kr.resample"),
        key="kr_resample",
        width="stretch",
        help=tr("scratch.kr.resample_help"),
        on_click=increment,
        args=("kr_seed",),
    )
    seed = int(st.session_state["kr_seed"])
    if st.query_params.get("kr_seed") not in (None, str(seed)):  # a link's sample, resampled: the link follows
        st.query_params["kr_seed"] = str(seed)
    c6 = c5.popover(tr("scratch.kr.sgd"), icon=":material/tune:", width="stretch")
    steps = checked(
        c6.slider,
        tr("scratch.kr.steps"),
        0,
        500,
        200,
        step=10,
        key="kr_steps",
        persist_state="page",
        bind="query-params",
    )
    lr = linked(c6.select_slider, tr("scratch.kr.lr"), list(KR_RATES), value=0.5, key="kr_lr", persist_state="page")
    method = linked(
        c7.radio,
        tr("scratch.kr.method"),
        list(KR_METHODS),
        index=1,
        horizontal=True,
        key="kr_method",
        persist_state="page",
        format_func=lambda m: tr(f"scratch.kr.{m}"),
    )

    state = KernelState(n_train, noise, bandwidth, steps, lr, method, seed)  # what a link and a slide hold
    publish_view(state)
    fit, fits = fit_view(state)  # its slide's too
    data, results, names = fits.data, fits.results, fits.names
    short = {
        "average": tr("scratch.kr.average"),
        "gaussian": tr("scratch.kr.gaussian"),
        "parametric": tr("scratch.kr.parametric_short"),
    }
    chosen = results[state.method]
    words = figure_texts()

    left, right = st.columns(2)
    chart(fit, key="kr_fit", config=PLOT, where=left)
    chart(
        viz.weights_heatmap(
            chosen.weights,
            [f"{x:.2f}" for x in data.x_train],
            [f"{x:.1f}" for x in data.x_test],
            title=tr("scratch.kr.fig_weights", name=names[state.method]),
            x_title=tr("scratch.kr.x_key"),
            y_title=tr("scratch.kr.y_query"),
            zmax=None,
            height=430,
            max_ticks=10,
            texts=words,
        ),
        key="kr_weights",
        config=PLOT,
        where=right,
    )
    cols = st.columns(3)
    for col, (key, r) in zip(cols, results.items()):
        col.metric(tr("scratch.kr.test_error", name=short[key]), f"{r.mse:.3f}", help=tr("scratch.kr.test_error_help"))

    learned_width(state.steps, results["parametric"].w)
    if state.steps:
        chart(
            viz.loss_figure(
                results["parametric"].loss_history,
                results["parametric"].w_history,
                title=tr("scratch.kr.fig_loss"),
                texts=words,
            ),
            key="kr_loss",
            config=PLOT,
        )


def score_functions_section() -> None:
    st.subheader(tr("scratch.sf.header"))
    st.markdown(tr("scratch.sf.intro"))
    controls, plane, bars = st.columns([2, 3, 3])
    n_keys = checked(
        controls.slider, tr("scratch.sf.n_keys"), 2, 5, 4, key="sf_n", persist_state="page", bind="query-params"
    )
    query = vector_input(controls, "q", (1.0, 0.5), "sf_q")
    keys = np.array([vector_input(controls, f"k{i + 1}", KEY_DEFAULTS[i], f"sf_k{i}") for i in range(n_keys)])
    labels = [f"k{i + 1}" for i in range(n_keys)]
    params = sandbox.default_score_params()
    comp = sandbox.compare_scores(query, keys, params)
    words = figure_texts()
    chart(
        viz.vectors_figure(comp.query, comp.keys, labels, title=tr("scratch.sf.fig_plane")),
        key="sf_plane",
        config=PLOT,
        where=plane,
    )
    chart(
        viz.score_bars_figure(comp.names, labels, comp.weights, title=tr("scratch.sf.fig_bars"), texts=words),
        key="sf_bars",
        config=PLOT,
        where=bars,
    )
    st.dataframe(viz.score_table(comp.names, labels, comp.scores, comp.weights, texts=words), key="sf_table")
    explain_scores(params)
    st.divider()
    st.subheader(tr("scratch.sat.header"))
    with st.spinner(tr("scratch.sat.spinner")):
        result = saturation()
    dims = [int(d) for d in result.dims]
    d = linked(st.select_slider, tr("scratch.sat.d"), dims, value=64, key="sf_d", persist_state="page")
    chart(
        viz.saturation_figure(
            result.dims,
            result.max_weight_dot,
            result.max_weight_scaled,
            result.grad_norm_dot,
            result.grad_norm_scaled,
            chosen=d,
            n_keys=result.n_keys,
            texts=words,
        ),
        key="sf_saturation",
        config=PLOT,
    )
    i = dims.index(d)
    left, right = st.columns([1, 1], vertical_alignment="center")
    chart(
        viz.example_weights_figure(result.example_dot[i], result.example_scaled[i], d, texts=words),
        key="sf_example",
        config=PLOT,
        where=left,
    )
    explain_saturation(right, d, result, i)


def soft_hard_local_section() -> None:
    st.subheader(tr("scratch.shl.header"))
    tokens = sandbox.EXAMPLE_SOURCE
    c1, c2, c3, c4 = st.columns(4)
    focus = linked(
        c1.selectbox,
        tr("scratch.shl.focus"),
        range(len(tokens)),
        index=10,
        key="shl_focus",
        format_func=lambda i: f"{i}: {tokens[i]}",
        persist_state="page",
    )
    sharpness = checked(
        c2.slider,
        tr("scratch.shl.sharp"),
        0.2,
        3.0,
        1.0,
        0.1,
        key="shl_sharp",
        persist_state="page",
        bind="query-params",
    )
    center = checked(
        c3.slider,
        tr("scratch.shl.center"),
        0.0,
        float(len(tokens) - 1),
        10.0,
        0.5,
        key="shl_center",
        persist_state="page",
        bind="query-params",
    )
    half_width = checked(
        c4.slider, tr("scratch.shl.width"), 1, 4, 2, key="shl_D", persist_state="page", bind="query-params"
    )
    ex = sandbox.soft_hard_local(int(focus), center, half_width, sharpness)
    chart(
        viz.soft_hard_local_figure(
            ex.tokens, ex.soft, ex.hard, ex.local_m, ex.local_p, ex.window, texts=figure_texts()
        ),
        key="shl_fig",
        config=PLOT,
    )
    explain_soft_hard_local(tokens, ex)


DEFAULT_Q = "1 0 1 0\n0 2 0 2\n1 1 1 1"
DEFAULT_K = "1 0 1 0\n0 1 0 1\n1 1 0 0\n0 0 2 2"
DEFAULT_V = "1 0\n0 1\n1 1\n2 -1"


def sandbox_section() -> None:
    st.subheader(tr("scratch.sb.header"))
    explain_sandbox_input()
    cq, ck, cv, cm = st.columns([3, 3, 3, 3])
    texts = {
        "Q": checked(
            cq.text_area,
            tr("scratch.sb.q"),
            DEFAULT_Q,
            height=170,
            key="sb_q",
            persist_state="page",
            bind="query-params",
        ),
        "K": checked(
            ck.text_area,
            tr("scratch.sb.k"),
            DEFAULT_K,
            height=170,
            key="sb_k",
            persist_state="page",
            bind="query-params",
        ),
        "V": checked(
            cv.text_area,
            tr("scratch.sb.v"),
            DEFAULT_V,
            height=170,
            key="sb_v",
            persist_state="page",
            bind="query-params",
        ),
    }
    mask = linked(
        cm.radio,
        tr("scratch.sb.mask"),
        sandbox.MASKS,
        index=1,
        key="sb_mask",
        persist_state="page",
        format_func=lambda m: tr(f"scratch.sb.mask.{m}"),
    )
    n_padding = checked(
        cm.number_input,
        tr("scratch.sb.padded"),
        0,
        sandbox.MAX_ROWS - 1,
        1,
        key="sb_pad",
        persist_state="page",
        bind="query-params",
        disabled=mask != "padding",
    )
    steps = qkv_steps(texts, mask, int(n_padding))
    if steps is None:
        return

    figures = viz.qkv_step_figures(
        steps.scores, steps.scaled, steps.allowed, steps.weights, steps.v, steps.output, steps.d_k, texts=figure_texts()
    )
    keys = ("sb_scores", "sb_scaled", "sb_masked", "sb_weights", "sb_v_fig", "sb_output")
    for col, figure, key in zip(st.columns(3) + st.columns(3), figures, keys):
        chart(figure, key=key, config=PLOT, where=col)
    explain_sandbox()


def why_attention_section() -> None:
    st.subheader(tr("scratch.why.header"))
    explain_bottleneck()
    bleu_by_length()


CX_WIDTHS, CX_REPEATS = [16, 32, 64, 128, 256], [1, 3, 5]


def complexity_section() -> None:
    st.subheader(tr("scratch.cx.header"))
    st.table(viz.complexity_table(complexity.COMPLEXITY_TABLE, texts=figure_texts()))
    explain_complexity()
    c1, c2, c3, c4 = st.columns([2, 3, 2, 2], vertical_alignment="bottom")
    d_model = linked(c1.selectbox, tr("scratch.cx.width"), CX_WIDTHS, index=2, key="cx_d", persist_state="page")
    max_len = linked(
        c2.select_slider,
        tr("scratch.cx.longest"),
        list(complexity.DEFAULT_LENGTHS),
        value=2048,
        key="cx_max",
        persist_state="page",
    )
    repeats = linked(
        c3.selectbox, tr("scratch.cx.repeats"), CX_REPEATS, index=1, key="cx_repeats", persist_state="page"
    )
    lengths = tuple(n for n in complexity.DEFAULT_LENGTHS if n <= max_len)
    device = device_name()
    if c4.button(
        tr("scratch.cx.measure"), key="cx_run", type="primary", width="stretch", help=tr("scratch.cx.measure_help")
    ):
        st.session_state["cx_params"] = (lengths, int(d_model), int(repeats), device)
    measurable = {
        (tuple(n for n in complexity.DEFAULT_LENGTHS if n <= m), d, r, device)
        for m, d, r in product(complexity.DEFAULT_LENGTHS, CX_WIDTHS, CX_REPEATS)
    }
    url_check("cx_params", Accept(measurable.__contains__), tr("scratch.cx.measure"), url=False)
    params = st.session_state.get("cx_params")
    if params is None:
        st.info(tr("scratch.cx.press", device=device.upper()), icon=":material/timer:")
        return
    with st.spinner(tr("scratch.cx.spinner")):
        result = timings(*params)
    chart(
        viz.timing_figure(
            result.lengths,
            result.seconds,
            title=tr("scratch.cx.fig", device=result.device.upper(), threads=result.threads, d=result.d_model),
            texts=figure_texts(),
        ),
        key="cx_fig",
        config=PLOT,
    )
    explain_growth(result)


SECTIONS = (
    kernel_regression_section,
    score_functions_section,
    soft_hard_local_section,
    sandbox_section,
    why_attention_section,
    complexity_section,
)

topic_tabs(TABS, SECTIONS)
