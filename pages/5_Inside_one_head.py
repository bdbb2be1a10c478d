"""Inside one head: QKᵀ → ÷√d_k → + mask → softmax → ·V for one query, as numbers and bars."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from ui.checkpoints import loaded_or_stop
from ui.deck import publish_view
from ui.explain import whole_head
from ui.export import PLOT, export_menu
from ui.frame import page_frame
from ui.i18n import figure_texts, tr
from ui.grid import head_picker
from ui.plot import chart
from ui.state import at_most, boolean, checked, linked, labels as url_labels, url_check
from ui.table import table
from ui.tokens import input_error, token_strip
from ui.transformer import SITE_LABELS, head_text, load_model, transformer_choices
from ui.views.one_head import HeadState, chain_view, walk
from viz_core.transformer import chain_table, entropy, head_output_figure, vectors_figure

page_frame(tr("nav.5"), icon="🔬", intro=tr("head.intro"))

from models.inference.common import InputError  # noqa: E402  (after the frame: the page shows at once)

choices = transformer_choices("encoder-decoder") + transformer_choices("decoder-only")
if not choices:
    st.error(tr("head.no_model"))
    st.stop()
labels = dict(choices)


def _model_changed() -> None:
    name = st.session_state["head_model"]
    st.session_state["head_text"] = head_text(name, getattr(load_model(name), "task", "en-fr"))
    st.session_state["head_query"] = 0


url_check("head_model", url_labels(labels, labels.get), tr("head.url.model"))  # the URL holds the model's label
default_model = "tf-en-fr" if "tf-en-fr" in labels else choices[0][0]
c1, c2 = st.columns([2, 3], vertical_alignment="bottom")
model_name = linked(
    c1.selectbox,
    tr("head.model"),
    list(labels),
    format_func=labels.get,
    key="head_model",
    on_change=_model_changed,
    index=list(labels).index(default_model),
)
loaded = loaded_or_stop(load_model(model_name))
url_check("head_text", at_most(10_000), tr("head.url.text"), tr("head.url.text_cut"))
if "head_text" not in st.session_state:
    st.session_state["head_text"] = head_text(model_name, loaded.task)
text = c2.text_input(
    tr("head.input") if loaded.task != "lm" else tr("head.input_lm"),
    key="head_text",
    max_chars=10_000,
    bind="query-params",
)


@st.fragment
def head_view() -> None:
    """Everything under the model and the input: another attention, layer, head, query or the
    scaling reruns this alone."""
    cfg = loaded.config
    k0, k1, k2, k3, k4 = st.columns([3, 2, 2, 3, 2.4], vertical_alignment="bottom")
    url_check("head_scale", boolean, tr("head.url.scale"))
    scaled = k4.toggle(tr("head.scale"), value=True, key="head_scale", bind="query-params", help=tr("head.scale_help"))
    if loaded.architecture == "decoder-only":
        site = "lm"
        n_layers = cfg.num_decoder_layers
        k0.caption(tr("head.lm_kind"))
    else:
        url_check("head_kind", url_labels(SITE_LABELS, SITE_LABELS.get), tr("head.url.kind"))
        site = linked(k0.selectbox, tr("head.kind"), list(SITE_LABELS), format_func=SITE_LABELS.get, key="head_kind")
        n_layers = cfg.num_encoder_layers if site == "encoder" else cfg.num_decoder_layers
    layer, head = head_picker(n_layers, cfg.n_heads, key="head", allow_average=False, columns=(k1, k2))
    state = HeadState(model_name, text, site, layer, head, scaled=scaled)  # the first query, until one is picked
    publish_view(state)

    try:
        first = walk(state)
    except InputError as exc:
        st.warning(input_error(exc))
        return
    queries = first.query_tokens
    url_check(
        "head_query",
        url_labels(range(len(queries)), lambda i: f"{i}: {queries[i]}"),
        tr("head.url.query"),
        tr("head.url.query_first"),
    )
    query = linked(
        k3.selectbox,
        tr("head.query"),
        list(range(len(queries))),
        format_func=lambda i: f"{i}: {queries[i]}",
        key="head_query",
    )
    state = replace(state, query=query)
    publish_view(state)
    view = walk(state) if state.query else first  # its slide's too
    w = view

    if view.input_tokens_dropped:
        st.warning(tr("head.cut", n=view.input_tokens_dropped))
    weights = w.weights if state.scaled else w.unscaled_weights
    output = w.output if state.scaled else w.unscaled_output

    left, right = st.columns([0.92, 1.08])  # the table's six columns whole at 1280 px, in English too
    with left:
        chart(
            chain := chain_view(view, state.query, state.layer, state.head, state.scaled), key="head_chain", config=PLOT
        )
        export_menu(
            "one-head",
            title=tr("head.export.title", model=labels[state.model]),
            source=state.text,
            trace=view,
            figures={tr("head.export.chain"): chain},
            numbers={
                tr("grid.layer"): state.layer + 1,
                tr("grid.head"): state.head + 1,
                "d_k": w.d_k,
                tr("num.query"): view.query_tokens[state.query],
                tr("num.largest"): float(weights.max()),
                tr("num.entropy"): entropy(weights),
            },
        )
    with right:
        table(
            chain_table(
                view.key_tokens,
                w.scores,
                w.scaled,
                w.allowed,
                w.masked if state.scaled else np.where(w.allowed, w.scores, -np.inf),
                weights,
                w.scale,
                state.scaled,
                texts=figure_texts(),
            ),
            key="head_table",
        )
        m1, m2 = st.columns(2)
        m1.metric(tr("head.largest"), f"{weights.max():.3f}")
        m2.metric(tr("head.entropy"), f"{entropy(weights):.2f}", help=tr("head.entropy_help"))
        other = w.unscaled_weights if state.scaled else w.weights
        st.caption(
            tr("head.other_without" if state.scaled else "head.other_with", largest=other.max(), entropy=entropy(other))
        )
        if state.scaled:
            diff = float(np.abs(w.weights - w.model_weights).max())
            st.caption(tr("head.check", diff=diff))

    st.subheader(tr("head.chain_header"))
    st.latex(
        r"e_i = q\cdot k_i \;\;\longrightarrow\;\; "
        + (r"\frac{e_i}{\sqrt{d_k}}" if state.scaled else r"e_i")
        + r" \;\;\longrightarrow\;\; + M_i \;\;\longrightarrow\;\; \alpha = \mathrm{softmax}"
        r" \;\;\longrightarrow\;\; \sum_i \alpha_i v_i"
    )
    st.caption(tr("head.dk", d_k=w.d_k, scale=w.scale))
    token_strip(
        view.query_tokens,
        highlight=state.query,
        caption=tr("head.queries", attention=SITE_LABELS.get(state.site, tr("head.causal"))),
    )
    if state.site == "cross":
        token_strip(view.key_tokens, caption=tr("head.keys"))
    if state.site != "encoder" and state.site != "lm":
        st.caption(tr("head.decoder_inputs"))

    if checked(st.toggle, tr("explain.whole"), key="head_whole"):
        whole_head(
            lambda q: walk(replace(state, query=q)),
            len(queries),
            "head_matrix",
            (state.model, state.text, state.site, state.layer, state.head),
            tr("explain.whole.title", layer=state.layer + 1, head=state.head + 1),
        )

    st.subheader(tr("head.vectors_header"))
    v1, v2 = st.columns([3, 2])
    with v1:
        chart(
            vectors_figure(
                w.q,
                w.keys,
                view.key_tokens,
                view.query_tokens[state.query],
                title=tr("head.fig.vectors"),
                texts=figure_texts(),
            ),
            key="head_vectors",
            config=PLOT,
        )
    with v2:
        chart(
            head_output_figure(output, title=tr("head.fig.output"), texts=figure_texts()),
            key="head_output",
            config=PLOT,
        )
        st.caption(tr("head.concat"))

    st.markdown(tr("head.why_scale"))


head_view()
