"""The Transformer block (Vaswani et al. 2017, §3): the whole model around attention, drawn from the model's own
modules, with the real tensors of one box for the typed sentence; post-LN against pre-LN, LayerNorm against
BatchNorm, label smoothing, the warm-up schedule and Adam."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ui.block import (
    EXAMPLES,
    ARCHITECTURES,
    MODELS,
    TABS,
    batch_section,
    changes_section,
    norms_section,
    schedule_section,
    smoothing_section,
)
from ui.deck import publish_view
from ui.explain import explained_chart
from ui.export import PLOT, export_menu
from ui.frame import page_frame
from ui.i18n import tr
from ui.plot import chart, kept_figure
from ui.state import at_most, linked, topic_tabs, url_check
from ui.tokens import input_error, md_escape
from ui.views.block import (
    BlockState,
    architecture_view,
    attention_cells,
    box_label,
    box_view,
    architecture_label,
    n_layers,
    stack_of,
    trace_of,
)
from viz_core.block import boxes

page_frame(tr("nav.14"), icon="🧱", intro=tr("block.intro"))

from models.inference.common import InputError  # noqa: E402  (after the frame: the page shows at once)


def _architecture_changed() -> None:  # another model has other boxes, blocks and tokens
    for key in ("block_box", "block_layer", "block_token"):
        st.session_state.pop(key, None)


def _clicked() -> None:
    """A click on the diagram: its box (the invisible point's customdata) becomes the chosen box."""
    event = st.session_state.get("block_diagram")
    try:
        points = event["selection"]["points"] if event else []
    except (KeyError, TypeError):
        points = []
    architecture = st.session_state.get("block_family", ARCHITECTURES[0])
    for point in points:
        box = point.get("customdata")
        if isinstance(box, list):
            box = box[0] if box else None
        if isinstance(box, str) and box in boxes(architecture):
            st.session_state["block_box"] = box
            return


url_check("block_text", at_most(2_000), tr("block.url.text"))
architecture_col, text_col, box_col, layer_col, token_col, export_col = st.columns(
    [1.6, 3, 2.6, 1.1, 1.4, 1], vertical_alignment="bottom"
)
architecture = linked(
    architecture_col.selectbox,
    tr("block.family"),
    ARCHITECTURES,
    format_func=architecture_label,
    key="block_family",
    on_change=_architecture_changed,
    help=tr("block.family_help"),
)
typed = text_col.text_input(
    tr("block.text"),
    key="block_text",
    max_chars=2_000,
    bind="query-params",
    placeholder=EXAMPLES[architecture],
    help=tr("block.text_help"),
)
text = typed.strip() or EXAMPLES[architecture]
state = BlockState(architecture, typed)  # what a link and a slide hold
publish_view(state)
try:
    trace = trace_of(state)  # its slide's too
except InputError as exc:
    st.warning(input_error(exc))
    st.stop()
except RuntimeError as exc:  # the shipped model is missing or unreadable: one line
    st.warning(str(exc))
    st.stop()
options = boxes(architecture)
box = linked(
    box_col.selectbox,
    tr("block.box"),
    options,
    index=1,
    format_func=lambda b: box_label(architecture, b),
    key="block_box",
    help=tr("block.box_help"),
)
layer = linked(
    layer_col.selectbox,
    tr("block.layer"),
    list(range(n_layers(trace, box))),
    format_func=lambda i: tr("block.layer_option", n=i + 1),
    key="block_layer",
)
tokens = stack_of(trace, box).tokens
token = linked(
    token_col.selectbox,
    tr("block.token"),
    list(range(len(tokens))),
    format_func=lambda i: f"{i + 1} {tokens[i]}",
    key="block_token",
    help=tr("block.token_help"),
)
state = replace(state, box=box, layer=layer, token=token)
publish_view(state)

diagram_col, detail_col = st.columns(2)
# another token or layer leaves the diagram as it was: kept, not built again
diagram = kept_figure(
    "block_diagram", (state.architecture, text, state.chosen_box), lambda: architecture_view(trace, state.chosen_box)
)
chart(diagram, key="block_diagram", config=PLOT, on_select=_clicked, where=diagram_col)
detail, caption = box_view(trace, state.chosen_box, state.layer, state.token)
cells = attention_cells(trace, state.chosen_box, state.layer)
if cells is None:
    chart(detail, key="block_detail", config=PLOT, where=detail_col)
else:  # an attention box: click a cell of its heatmap for that weight's derivation (below the two figures)
    weights, explain, queries, keys = cells
    context = (trace.model, text, state.chosen_box, state.layer)
    explained_chart(
        detail,
        "block_detail",
        weights,
        explain,
        query_tokens=queries,
        key_tokens=keys,
        context=context,
        where=detail_col,
    )
detail_col.caption(caption)
with export_col:
    export_menu(
        "block",
        title=tr("nav.14"),
        source=f"{MODELS[state.architecture]}: {text}",
        trace=trace,
        key="block_export",
        figures={tr("block.box"): diagram, box_label(state.architecture, state.chosen_box): detail},
    )
if trace.unknown:
    st.warning(tr("block.unknown", words=", ".join(md_escape(w) for w in trace.unknown)))

tab = topic_tabs(
    TABS,
    [
        lambda: changes_section(trace, state.layer),
        norms_section,
        batch_section,
        lambda: smoothing_section(trace),
        schedule_section,
    ],
)
publish_view(replace(state, topic=None if tab == TABS[0] else tab))  # the first tab leaves the link: the diagram
