"""Attention at scale: FlashAttention's tiles stepped through on a real head (Dao et al. 2022; the online
softmax of Milakov & Gimelshein 2018), then the KV cache and shared heads, windows and sinks, linear
attention, and cost against length as bench/attention_cost measured it."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ui.at_scale import (
    BLOCKS,
    EXAMPLE,
    TEXT_LIMIT,
    FlashRun,
    cache_section,
    cost_section,
    explained_tiles,
    head_qkv,
    linear_section,
    model_choices,
    model_label,
    rebuild_section,
    rows_section,
    shape_of,
    window_section,
)
from ui.deck import publish_view
from ui.export import export_menu
from ui.frame import page_frame
from ui.grid import head_picker
from ui.i18n import tr
from ui.state import at_most, labels, linked, topic_tabs, url_check
from ui.stepper import step_control
from ui.views.at_scale import TilesState, n_steps, query_blocks, step_caption, tile_view, tiles_run

page_frame(tr("nav.15"), icon="🧱", intro=tr("scale.intro"))

url_check("scale_text", at_most(TEXT_LIMIT), tr("scale.url.text"), tr("scale.url.text_cut"))
if "scale_text" not in st.session_state:
    st.session_state["scale_text"] = EXAMPLE
url_check("scale_model", labels(model_choices(), model_label), tr("scale.url.model"), model_label(model_choices()[0]))
text_col, block_col, qblock_col, options_col = st.columns([4, 1.3, 1.8, 0.6], vertical_alignment="bottom")
popover = options_col.popover("", icon=":material/tune:", width="stretch", help=tr("scale.options"))
with popover:
    model = linked(
        st.selectbox,
        tr("scale.model"),
        model_choices(),
        format_func=model_label,
        key="scale_model",
        help=tr("scale.model_help"),
    )
try:
    n_layers, n_heads, max_tokens = shape_of(model)
except RuntimeError as exc:
    st.error(str(exc))
    st.stop()
with popover:
    layer, head = head_picker(n_layers, n_heads, key="scale", allow_average=False)
text = text_col.text_input(
    tr("scale.text"),
    key="scale_text",
    max_chars=TEXT_LIMIT,
    bind="query-params",
    help=tr("scale.text_help", max=max_tokens),
)
block = int(
    linked(block_col.selectbox, tr("scale.block"), BLOCKS, index=1, key="scale_block", help=tr("scale.block_help"))
)
state = TilesState(model, text, layer, head, block)  # its query block is picked below, from its tokens
publish_view(state)
qkv, cut = head_qkv(state.model, state.text, state.layer, state.head)
if len(qkv.tokens) < 2:
    st.warning(tr("scale.empty"))
    st.stop()
blocks = query_blocks(len(qkv.tokens), state.block)
qblock = int(
    linked(
        qblock_col.selectbox,
        tr("scale.qblock"),
        blocks,
        index=min(1, len(blocks) - 1),
        key="scale_qblock",
        help=tr("scale.qblock_help"),
        format_func=lambda b: tr(
            "scale.qblock_label", start=b * state.block + 1, stop=min(len(qkv.tokens), (b + 1) * state.block)
        ),
    )
)
state = replace(state, query_block=qblock)
publish_view(state)
run = tiles_run(state)  # its slide's too


@st.fragment
def tiles(run: FlashRun) -> None:
    """Stepping through the key blocks reruns only this: the figure, the caption and the rows' table."""
    step = step_control(n_steps(run), "scale", tr("scale.step"))
    fig = tile_view(run, step)
    explained_tiles(fig, run, state.model, state.text)
    caption_col, kept_col, held_col, export_col = st.columns([5, 1.6, 1.6, 1.1], vertical_alignment="bottom")
    if step == n_steps(run) - 1:
        caption_col.success(tr("scale.done", diff=run.diff, model=run.model_diff))
    else:
        caption_col.caption(step_caption(run, step))
    kept_col.metric(tr("scale.kept"), tr("scale.kept_value", numbers=2 * run.n))
    held_col.metric(tr("scale.held"), tr("scale.held_value", numbers=run.n * run.n))
    with export_col:
        export_menu(
            "at_scale",
            title=tr("scale.export"),
            source=state.text,
            figures={tr("scale.fig.tile"): fig},
            trace=run.head,
            key="scale_export",
        )
    with st.expander(tr("scale.tab.rows")):
        rows_section(run, step)


if cut:
    st.caption(tr("scale.cut", n=len(qkv.tokens)))
tiles(run)
topic_tabs(
    ["scale.tab.rebuild", "scale.tab.cache", "scale.tab.window", "scale.tab.linear", "scale.tab.cost"],
    [
        lambda: rebuild_section(run),
        cache_section,
        lambda: window_section(run.n),
        lambda: linear_section(run),
        cost_section,
    ],
)
