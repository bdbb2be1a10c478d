"""XLNet (Yang et al. 2019): a permutation language model read under a factorisation order, with
two-stream attention, partial prediction, and BERT's independence assumption beside it."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ui.checkpoints import checkpoint_picker, loaded_or_stop
from ui.deck import publish_view
from ui.export import PLOT, export_menu
from ui.frame import page_frame
from ui.grid import head_picker
from ui.i18n import tr
from ui.plot import chart
from ui.state import at_most, checked, linked, increment, labels, topic_tabs, url_check, use_example
from ui.tokens import input_error, md_escape
from ui.xlnet import (
    EXAMPLES,
    MODES,
    bert_section,
    load_model,
    masks_section,
    model_choices,
    order_view,
    predictions_section,
    streams_caption,
)
from ui.views.xlnet import XLNetState, predict, stream_view

page_frame(tr("nav.13"), icon="🔀", intro=tr("xlnet.intro"))

from models.inference.common import InputError  # noqa: E402  (after the frame: the page shows at once)
from models.inference.xlnet import MAX_K, XLNetTrace  # noqa: E402


def _mode_label(mode: str) -> str:
    return tr(f"xlnet.mode.{mode}")


url_check("xlnet_text", at_most(10_000), tr("xlnet.url.text"), tr("xlnet.url.text_cut"))
if "xlnet_text" not in st.session_state:
    st.session_state["xlnet_text"] = EXAMPLES[0]
url_check("xlnet_mode", labels(MODES, _mode_label), tr("xlnet.mode"), _mode_label(MODES[1]))
text_col, mode_col, param_col, k_col, options_col = st.columns([3, 1.8, 1.8, 1.6, 0.6], vertical_alignment="bottom")
popover = options_col.popover("", icon=":material/tune:", width="stretch", help=tr("xlnet.options"))
with popover:  # the shipped xlnet-small, then the studio's XLNet runs; K's default and the heads follow it
    model_name = checkpoint_picker(
        model_choices(),
        "xlnet_model",
        tr("xlnet.model"),
        tr("xlnet.model_help"),
        follow=("xlnet_k", "xlnet_layer", "xlnet_head"),
    )
loaded = loaded_or_stop(load_model(model_name))
cfg = loaded.config
text = text_col.text_input(
    tr("xlnet.text"), key="xlnet_text", max_chars=10_000, bind="query-params", help=tr("xlnet.text_help")
)
mode = linked(
    mode_col.selectbox,
    tr("xlnet.mode"),
    MODES,
    index=1,
    format_func=_mode_label,
    key="xlnet_mode",
    help=tr("xlnet.mode_help"),
)
if mode == "random":
    param_col.button(
        tr("xlnet.resample"),
        key="xlnet_resample",
        icon=":material/casino:",
        on_click=increment,
        args=("xlnet_seed",),
        help=tr("xlnet.resample_help"),
        width="stretch",
    )
typed = (
    checked(
        param_col.text_input,
        tr("xlnet.typed"),
        key="xlnet_typed",
        max_chars=200,
        bind="query-params",
        placeholder=tr("xlnet.typed_placeholder"),
        help=tr("xlnet.typed_help"),
    )
    if mode == "typed"
    else ""
)
k_split = checked(
    k_col.slider, "K", 1, MAX_K, cfg.k_split, key="xlnet_k", bind="query-params", help=tr("xlnet.k_help", k=cfg.k_split)
)
with popover:
    checked(
        st.selectbox,
        tr("xlnet.example"),
        EXAMPLES,
        key="xlnet_example",
        index=None,
        on_change=use_example("xlnet_example", "xlnet_text"),
        placeholder=tr("xlnet.example_placeholder"),
    )
    seed = int(
        checked(
            st.number_input,
            tr("xlnet.seed"),
            0,
            1_000_000,
            key="xlnet_seed",
            bind="query-params",
            help=tr("xlnet.seed_help"),
            disabled=mode != "random",
        )
    )
state = XLNetState(model_name, text, mode, seed, typed, int(k_split))  # what a link and a slide hold
publish_view(state)
try:
    tokens, unknown, trace = predict(state)  # its slide's too
except InputError as exc:
    st.warning(input_error(exc))
    st.stop()

chart(order_view(trace), key="xlnet_order", config=PLOT)


@st.fragment
def streams(trace: XLNetTrace, state: XLNetState) -> None:
    """The head picker and the two streams of its head: another head reruns only this."""
    layer_col, head_col, export_col, _ = st.columns([1.8, 1.8, 2.0, 5.4], vertical_alignment="bottom")
    layer, head = head_picker(cfg.n_layers, cfg.n_heads, key="xlnet", columns=(layer_col, head_col))
    state = replace(state, layer=layer, head=head)  # the head picker's, under the order view
    publish_view(state)
    with export_col:
        export_menu("xlnet", title=tr("nav.13"), source=state.text, trace=trace, key="xlnet_export")
    query_col, content_col = st.columns(2)  # the query and the content stream of one head side by side
    chart(stream_view(trace, "query", state.layer, state.head), key="xlnet_query", config=PLOT, where=query_col)
    chart(stream_view(trace, "content", state.layer, state.head), key="xlnet_content", config=PLOT, where=content_col)


streams(trace, state)
# Under the streams, the page's width: beside the head row it took 7 lines and pushed them down the first screen.
st.caption(streams_caption(trace))
st.caption(tr("xlnet.memory_note"))
if any(unknown):  # next to the output (⚠ on the figures' labels), not above it
    st.warning(tr("xlnet.unknown", words=", ".join(md_escape(w) for w, u in zip(tokens, unknown) if u)))
topic_tabs(
    ["xlnet.tab.masks", "xlnet.tab.predictions", "xlnet.tab.bert"],
    [
        lambda: masks_section(trace),
        lambda: predictions_section(trace),
        lambda: bert_section(state.text, tokens, state.model),
    ],
)
