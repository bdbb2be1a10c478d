"""Is attention an explanation? One input, every answer side by side (raw attention, rollout and flow,
norm-based attention, gradients, occlusion), and which one is faithful, measured against the model
(Jain & Wallace 2019; Wiegreffe & Pinter 2019; Abnar & Zuidema 2020; Kobayashi et al. 2020)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ui.frame import page_frame
from ui.i18n import tr

page_frame(tr("nav.16"), icon="🔎", intro=tr("xai.intro"))

from models.inference.common import InputError  # noqa: E402
from ui.views.base import PAGE_WIDTH  # noqa: E402
from ui.explanations import (  # noqa: E402  (after the frame: the page shows at once)
    EXAMPLES,
    MAX_CHARS,
    MODELS,
    SINK_WARNING,
    SWAP_MODEL,
    guess_score,
    method_name,
    run_swap,
    table_rows,
    tokens_of,
    uniform_comparison,
)
from ui.deck import publish_view  # noqa: E402
from ui.export import PLOT, export_menu  # noqa: E402
from ui.plot import chart  # noqa: E402
from ui.table import table  # noqa: E402
from ui.state import at_most, checked, labels, linked, url_check  # noqa: E402
from ui.tokens import input_error, md_escape  # noqa: E402
from ui.views.explanations import ExplanationState, explain, methods_view, swap_view  # noqa: E402
from viz_core.explanations import erasure_figure  # noqa: E402


def _model_label(name: str) -> str:
    return tr(f"xai.model.{name}")


def _new_input() -> None:
    """Another input, model or output token: the guess and its reveal start over."""
    for key in ("xai_revealed", "xai_guess"):
        st.session_state.pop(key, None)


def _new_model() -> None:
    st.session_state["xai_text"] = EXAMPLES[st.session_state.get("xai_model", MODELS[0])]
    st.session_state.pop("xai_step", None)
    _new_input()


@st.fragment
def explorer() -> None:
    """The whole page below its frame, as one fragment: another model, text or output token reruns this,
    not the frame (the sidebar's links, the title and intro). Another output token, click to drawn:
    0.16–0.17 s as a fragment, 0.19–0.20 s as a full rerun (the same page in two tabs of one browser,
    21 clicks each, clicks taking turns)."""
    url_check("xai_model", labels(MODELS, _model_label), tr("xai.model"), _model_label(MODELS[0]))
    url_check("xai_text", at_most(MAX_CHARS), tr("xai.text"), tr("xai.url.text_cut"))
    model_col, text_col, step_col = st.columns([1.6, 3.8, 1.8], vertical_alignment="bottom")
    name = linked(
        model_col.selectbox,
        tr("xai.model"),
        MODELS,
        key="xai_model",
        format_func=_model_label,
        on_change=_new_model,
        help=tr("xai.model_help"),
    )
    if "xai_text" not in st.session_state:
        st.session_state["xai_text"] = EXAMPLES[name]
    text = text_col.text_input(
        tr("xai.text"),
        key="xai_text",
        max_chars=MAX_CHARS,
        bind="query-params",
        help=tr(f"xai.text_help.{name}"),
        on_change=_new_input,
    )
    state = ExplanationState(name, text)  # its output step is picked below, its head in the fragment
    publish_view(state)
    try:
        tokens, removable, outputs, default_step = tokens_of(state.model, state.text)
    except InputError as exc:
        st.warning(input_error(exc))
        st.stop()
    step = -1
    if len(outputs) > 1:
        step = int(
            linked(
                step_col.selectbox,
                tr("xai.step"),
                list(range(len(outputs))),
                index=default_step,
                key="xai_step",
                format_func=lambda i: f"{i + 1} {outputs[i]}",
                help=tr("xai.step_help"),
                on_change=_new_input,
            )
        )
    state = replace(state, step=-1 if step == default_step else step)  # the default: -1, as the link leaves it out
    publish_view(state)

    @st.fragment
    def results() -> None:
        """The methods, the guess and the measures: the head and the guess rerun only this part."""
        with st.popover(tr("common.options"), icon=":material/tune:", help=tr("xai.options")):
            layer = int(
                checked(
                    st.number_input,
                    tr("xai.layer"),
                    -1,
                    100,
                    -1,
                    key="xai_layer",
                    bind="query-params",
                    help=tr("xai.layer_help"),
                )
            )
            head = int(
                checked(
                    st.number_input,
                    tr("xai.head"),
                    0,
                    100,
                    0,
                    key="xai_head",
                    bind="query-params",
                    help=tr("xai.head_help"),
                )
            )
            predict = checked(
                st.toggle, tr("xai.predict"), key="xai_predict", bind="query-params", help=tr("xai.predict_help")
            )
        view = replace(state, layer=layer, head=head)
        publish_view(view)  # the head is this fragment's

        guess: list[int] = []
        if predict:  # predict, then reveal: the methods stay hidden until the student has chosen
            choices = [i for i, r in enumerate(removable) if r]
            guess = list(
                st.pills(
                    tr("xai.guess"),
                    choices,
                    selection_mode="multi",
                    key="xai_guess",
                    format_func=lambda i: md_escape(f"{i + 1} {tokens[i]}"),
                )
                or []
            )
            if not st.session_state.get("xai_revealed"):
                if st.button(
                    tr("xai.reveal"), key="xai_reveal", icon=":material/visibility:", disabled=not guess, type="primary"
                ):
                    st.session_state["xai_revealed"] = True
                    st.rerun()
                st.info(tr("xai.predict_first"))
                return
        try:
            trace = explain(view)  # its slide's too
        except InputError as exc:
            st.warning(input_error(exc))
            st.stop()

        figure = methods_view(trace, outlined=guess)
        chart(figure, key="xai_methods", config=PLOT)
        if predict and guess:
            hits, k, top = guess_score(guess, trace)
            st.success(tr("xai.score", hits=hits, k=k, top=", ".join(md_escape(trace.tokens[i]) for i in top)))
        if trace.rollout_sink_share > SINK_WARNING:
            st.warning(tr("xai.sink_warning", share=trace.rollout_sink_share))
        erasure = erasure_figure(
            trace.erasure,
            [method_name(m) for m in trace.methods],
            title=tr("xai.erasure.title"),
            x_title=tr("xai.erasure.x"),
            y_title=tr("xai.erasure.y"),
            width=PAGE_WIDTH * 3 / 5 - 16,  # the curve's column, beside the table (st.columns([2, 3]) below)
        )
        caption_col, export_col = st.columns([6, 1], vertical_alignment="center")
        caption_col.caption(
            tr(
                "xai.ig_check",
                steps=trace.ig_steps,
                total=trace.ig_sum,
                fx=trace.ig_f_input,
                fb=trace.ig_f_baseline,
                gap=trace.ig_relative_gap,
                baseline=tr("xai.baseline.token", token=md_escape(trace.ig_baseline_token))
                if trace.ig_baseline_token
                else tr("xai.baseline.zero"),
            )
        )
        with export_col:
            export_menu(
                "xai",
                title=tr("nav.16"),
                source=view.text,
                trace=trace,
                key="xai_export",
                figures={tr("xai.fig.caption"): figure, tr("xai.erasure.title"): erasure},
            )
        table_col, curve_col = st.columns([2, 3])
        with table_col:  # plain HTML, drawn with the figures (st.dataframe's grid redraws its cells ~200 ms later)
            table(table_rows(trace), key="xai_table")
        table_col.caption(tr("xai.table_explain"))
        chart(erasure, key="xai_erasure", config=PLOT, where=curve_col)
        st.markdown(tr("xai.claims"))
        if view.model == SWAP_MODEL and checked(
            st.toggle, tr("xai.swap.toggle"), key="xai_swap", bind="query-params", help=tr("xai.swap.help")
        ):
            swap = run_swap(view.text, view.step)
            chart(swap_view(swap, width=PAGE_WIDTH), key="xai_swap_fig", config=PLOT)
            st.caption(
                tr(
                    "xai.swap.caption",
                    n=swap.n_permutations,
                    tvd=swap.perm_tvd_median,
                    jsd=swap.perm_jsd_median,
                    same=swap.perm_same_output,
                    eps=swap.epsilon,
                )
            )
            st.markdown(uniform_comparison())

    results()


explorer()
