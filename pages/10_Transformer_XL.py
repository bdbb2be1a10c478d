"""Transformer-XL (Dai et al. 2019): segment-level recurrence with a memory, relative positional attention."""

from __future__ import annotations

import streamlit as st

from ui.checkpoints import checkpoint_picker, loaded_or_stop
from ui.deck import publish_view
from ui.export import PLOT
from ui.frame import page_frame
from ui.grid import head_picker
from ui.i18n import tr
from ui.plot import chart
from ui.state import at_most, checked, number_in, topic_tabs, url_check, use_example
from ui.stepper import step_control
from ui.tokens import input_error, token_strip
from ui.transformer_xl import (
    EXAMPLES,
    dependency_section,
    evaluation_section,
    generation_section,
    load_model,
    model_choices,
    terms_section,
)
from ui.views.transformer_xl import XLState, read_passage, segment_view

page_frame(tr("nav.10"), icon="🧠", intro=tr("txl.intro"))

from models.inference.common import InputError  # noqa: E402  (after the frame: the page shows at once)

url_check("txl_text", at_most(10_000), tr("txl.url.text"), tr("txl.url.text_cut"))
if "txl_text" not in st.session_state:
    st.session_state["txl_text"] = EXAMPLES[0]
url_check("txl_seg", number_in(2, 32), tr("txl.seg"))
url_check("txl_mem", number_in(0, 64), tr("txl.mem"))
text_col, seg_col, mem_col, layer_col, head_col, options_col = st.columns(
    [3, 1.4, 1.4, 1.5, 1.5, 0.8], vertical_alignment="bottom"
)
# the options popover: an icon with its name as a tooltip (a word would be cut in this narrow column)
with options_col.popover("", icon=":material/tune:", width="stretch", help=tr("txl.options")):
    # the shipped xl-lm, then the studio's Transformer-XL runs; the layer and head pickers follow its size
    model_name = checkpoint_picker(
        model_choices(), "txl_model", tr("txl.model"), tr("txl.model_help"), follow=("txl_layer", "txl_head")
    )
    checked(
        st.selectbox,
        tr("txl.example"),
        EXAMPLES,
        key="txl_example",
        index=None,
        on_change=use_example("txl_example", "txl_text"),
        placeholder=tr("txl.example_placeholder"),
    )
loaded = loaded_or_stop(load_model(model_name))
cfg = loaded.config
text = text_col.text_input(
    tr("txl.text"), key="txl_text", max_chars=10_000, bind="query-params", help=tr("txl.text_help")
)
seg_len = seg_col.slider(tr("txl.seg"), 2, 32, 8, key="txl_seg", bind="query-params", help=tr("txl.seg_help"))
mem_len = mem_col.slider(tr("txl.mem"), 0, 64, 8, key="txl_mem", bind="query-params", help=tr("txl.mem_help"))
layer, head = head_picker(cfg.n_layers, cfg.n_heads, key="txl", columns=(layer_col, head_col))
state = XLState(model_name, text, seg_len, mem_len, layer, head)  # what a link and a slide hold
publish_view(state)

try:
    trace = read_passage(state)  # its slide's too
except InputError as exc:
    st.warning(input_error(exc))
    st.stop()
if trace.dropped:
    st.warning(tr("txl.dropped", n=len(trace.tokens), dropped=trace.dropped))
if any(trace.unknown):
    st.warning(tr("txl.unknown", n=sum(trace.unknown)))


@st.fragment
def segments_view() -> None:
    n = len(trace.segments)
    s = step_control(n, key="txl", label=tr("txl.segment"))
    seg = trace.segments[s]
    m, l_ = len(seg.memory_tokens), len(seg.tokens)
    chart(segment_view(trace, s, state.layer, state.head), key="txl_attention", config=PLOT)
    st.caption(tr("txl.strip", s=s + 1, n=n, m=m, l=l_))
    memory_col, segment_col = st.columns([max(m, 1), l_]) if m else (None, st.container())
    if memory_col is not None:
        with memory_col:
            token_strip(seg.memory_tokens, caption=tr("txl.memory", n=m))
    with segment_col:
        token_strip(seg.tokens, caption=tr("txl.current", n=l_))
    st.session_state["txl_segment"] = s  # the terms tab explains a query of this segment


segments_view()


def _dependency() -> None:
    dependency_section(len(trace.tokens), state.seg_len, state.mem_len, cfg.n_layers, trace.tokens)


def _terms() -> None:
    s = min(st.session_state.get("txl_segment", 0), len(trace.segments) - 1)
    terms_section(
        state.text, state.seg_len, state.mem_len, s, len(trace.segments[s].tokens), state.layer, state.head, state.model
    )


topic_tabs(
    ["txl.tab.dependency", "txl.tab.terms", "txl.tab.eval", "txl.tab.generate"],
    [
        _dependency,
        _terms,
        lambda: evaluation_section(loaded),
        lambda: generation_section(state.seg_len, state.mem_len, state.layer, state.head, state.model),
    ],
)
