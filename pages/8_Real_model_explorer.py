"""Real model explorer: every layer and head of a real pretrained encoder, on any text, up to 512 tokens."""

from __future__ import annotations

import time
from dataclasses import replace

import streamlit as st

from ui.frame import page_frame
from ui.i18n import figure_texts, tr

page_frame(tr("nav.8"), icon="🔬", intro=tr("real_model.intro"))

from models.inference.hf_adapter import MAX_TOKENS  # noqa: E402
from models.inference.llm import gqa_groups  # noqa: E402
from ui.bert import REAL_MAX_CHOICES, REAL_SHADES, REAL_SOURCES, REAL_TEXT, load_decoder, load_real_model  # noqa: E402
from ui.bert import decoder_unavailable, heads_as_rows, real_grid  # noqa: E402
from ui.deck import publish_view  # noqa: E402
from ui.cells import real_head_chart  # noqa: E402
from ui.export import PLOT, export_menu  # noqa: E402
from ui.grid import head_picker, on_grid_select  # noqa: E402
from ui.plot import chart  # noqa: E402
from ui.state import at_most, checked, linked, number_in, url_check  # noqa: E402
from ui.state import labels as url_labels  # noqa: E402
from ui.tokens import input_error, md_escape  # noqa: E402
from ui.views.real_model import RealState, head_views, real_input, shown_tokens  # noqa: E402
from viz_core.attention_grid import HEAD_VIEW_PX  # noqa: E402
from viz_core.bert import lines_figure  # noqa: E402
from viz_core.transformer import grid_figure  # noqa: E402


# ------------------------------------------------------------------------------------
# Model and text
# ------------------------------------------------------------------------------------
url_check("real_text", at_most(20_000), tr("real_model.url.text"), tr("real_model.url.text_cut"))
url_check("real_text_b", at_most(10_000), tr("real_model.url.text_b"), tr("real_model.url.text_b_cut"))
url_check("real_max", url_labels(REAL_MAX_CHOICES), tr("real_model.url.max"))
left, right, options = st.columns([5, 3, 1.6], vertical_alignment="bottom")
with left:  # the text widgets first: they must be drawn on every run, or Streamlit forgets their value
    if "real_text" not in st.session_state:
        st.session_state["real_text"] = REAL_TEXT
    text = st.text_area(tr("real_model.text"), key="real_text", height=68, max_chars=20_000, bind="query-params")
with right:  # (drawn before the options: a decoder has no second segment)
    source = linked(
        st.radio,
        tr("real_model.model"),
        list(REAL_SOURCES),
        key="real_source",
        horizontal=True,
        format_func=REAL_SOURCES.get,
    )
    folder = ""
    if source == "folder":
        folder = checked(
            st.text_input, tr("real_model.folder"), key="real_dir", placeholder="bert-base-uncased", max_chars=4096
        )
decoder = source == "decoder"
with options.popover(tr("common.options"), icon=":material/tune:", width="stretch"):
    text_b = st.text_input(
        tr("real_model.text_b"),
        key="real_text_b",
        max_chars=10_000,
        bind="query-params",
        disabled=decoder,
        help=tr("real_model.text_b_decoder") if decoder else None,
    )
    max_tokens = linked(st.select_slider, tr("real_model.max"), REAL_MAX_CHOICES, value=MAX_TOKENS, key="real_max")
    url_check("real_scale", url_labels(REAL_SHADES, REAL_SHADES.get, optional=True), tr("real_model.url.shade"))
    scale = (
        linked(
            st.segmented_control,
            tr("real_model.shade"),
            list(REAL_SHADES),
            default="absolute",
            key="real_scale",
            format_func=REAL_SHADES.get,
        )
        or "absolute"
    )
state = RealState(source, text, "" if decoder else text_b or "", int(max_tokens), scale)  # a folder is not in it
publish_view(state)  # the head is the fragment's (head_view)
if source == "folder" and not folder.strip():
    st.info(tr("real_model.type_folder"))
    st.stop()

if state.decoder:  # page 9's one loaded LLM, or page 9's message and the way to its convert button
    real = load_decoder()
    if isinstance(real, str):
        decoder_unavailable(real)
        st.stop()
else:
    real = load_real_model(folder.strip())  # resolved and checked against the server's model_folders setting
    if isinstance(real, str):
        st.error(tr("real_model.cannot_use", error=md_escape(real)))  # user text is never markdown
        st.stop()
model = real.model
with left:
    if state.decoder:
        summary = tr(
            "real_model.summary_decoder",
            type=model.model_type,
            layers=model.n_layers,
            heads=model.n_heads,
            kv=model.n_kv_heads,
            hidden=model.hidden,
            max=model.max_positions,
        )
    else:
        summary = tr(
            "real_model.summary",
            type=model.model_type,
            layers=model.n_layers,
            heads=model.n_heads,
            hidden=model.hidden,
            max=model.max_positions,
            mlm=tr("real_model.summary_mlm") if model.has_mlm_head else "",
        )
    st.caption(f"**{md_escape(real.label)}** — {md_escape(summary)}")

if not state.text.strip():
    st.warning(tr("real_model.empty"))
    st.stop()

t0 = time.perf_counter()
request = real_input(state, real)  # its slide's too
try:  # one heavy request at a time server-wide (ui.work_queue), so stepping elsewhere never stalls
    trace, trace_again = request.traced(tr("real_model.run_what"))
except ValueError as exc:  # also a reload refused by the model-folder checks (models.inference.model_access)
    st.warning(input_error(exc))
    st.stop()
tokens = shown_tokens(trace, state.decoder)  # a decoder's pieces with their spaces shown (␣)
n_layers, n_heads, L, _ = trace.attention.shape
if trace.truncated:
    st.warning(
        tr(
            "real_model.truncated",
            n_in=trace.n_tokens_in,
            L=L,
            cut=trace.truncated,
            limit=min(MAX_TOKENS, model.max_positions),
        )
    )
n_unk = 0 if state.decoder else sum(tok == getattr(model.tokenizer, "unk_token", "[UNK]") for tok in tokens)
if n_unk:
    st.info(tr("real_model.unknown", n=n_unk, unk=md_escape(getattr(model.tokenizer, "unk_token", "[UNK]"))))

# ------------------------------------------------------------------------------------
# Grid of every layer and head (one PNG mosaic)
# ------------------------------------------------------------------------------------
st.markdown("##### " + tr("real_model.grid_header", total=n_layers * n_heads, n_layers=n_layers, n_heads=n_heads, L=L))
payload = real_grid(*request, state.scale)
transposed = heads_as_rows(n_layers, n_heads)  # a deep model's heads as rows: wide, one screen at 1280 px
# planned for the column's width at 1280 px with the sidebar collapsed: thumbnails large enough for the room
grid_fig = grid_figure(payload, target_width=1100, texts=figure_texts())
chart(grid_fig, key="real_grid", on_select=lambda: on_grid_select("real_grid", "real", transposed), config=PLOT)
st.caption(
    tr(
        "real_model.grid_caption",
        binned=tr("real_model.grid_binned", n=payload.row_factor) if payload.row_factor > 1 else "",
    )
    + (tr("real_model.grid_heads_as_rows", n_layers=n_layers, n_heads=n_heads) if transposed else "")
)


# ------------------------------------------------------------------------------------
# One head, the head average, and the lines view
# ------------------------------------------------------------------------------------
@st.fragment
def head_view() -> None:
    """One head, the head average and the lines view: choosing a head reruns only this part."""
    trace = trace_again()  # (the page keeps no trace of its own: see the end of the page)
    layer, head = head_picker(n_layers, n_heads, key="real", allow_average=False)
    publish_view(replace(state, layer=layer, head=head))  # the head is this fragment's
    # one head and the average across the column, every token labelled (viz_core.attention_grid.HEAD_VIEW_PX)
    one, avg = head_views(trace, layer, head, tokens, state.scale, width=HEAD_VIEW_PX)
    binned = tr("real_model.binned") if one.binned else ""
    st.markdown(tr("real_model.head_header", layer=layer + 1, head=head + 1, binned=binned))
    if state.decoder:  # the score a click explains (models.inference.explain.explain_llama_heads)
        st.latex(
            r"\alpha_{q,k} = \operatorname{softmax}_k\Big(\frac{(R_q W_q h_q)\cdot(R_k W_k h_k)}{\sqrt{d}}"
            r" + M_{q,k}\Big), \quad M_{q,k} = -\infty \text{ for } k > q"
        )
        st.caption(
            tr("real_model.decoder_formula", head=head + 1, kv=int(gqa_groups(n_heads, model.n_kv_heads)[head]) + 1)
        )
    real_head_chart(
        one.figure,
        "real_head_fig",
        trace.attention[layer, head],
        real.key,
        trace.ids,
        trace.segment_ids,
        tokens,
        layer,
        head,
        n_heads,
    )
    st.markdown(tr("real_model.avg_header", layer=layer + 1, n=n_heads, binned=binned))
    real_head_chart(
        avg.figure,
        "real_avg_fig",
        trace.attention[layer].mean(0),
        real.key,
        trace.ids,
        trace.segment_ids,
        tokens,
        layer,
        None,
        n_heads,
    )
    export_menu(
        "real-model",
        title=tr("nav.8"),
        source=state.text + (f"\n{state.text_b}" if state.text_b else ""),
        trace=trace_again,
        figures={
            tr("real_model.export.head", layer=layer + 1, head=head + 1): one.figure,
            tr("real_model.export.avg", layer=layer + 1): avg.figure,
        },
        numbers={
            tr("num.model"): real.label,
            tr("num.tokens"): L,
            tr("num.layers"): n_layers,
            tr("num.heads"): n_heads,
        },
    )
    if one.binned:
        st.caption(tr("real_model.binned_caption", L=L, rows=one.row_factor, cols=one.col_factor))

    st.markdown(tr("real_model.lines"))
    w1, w2, w3, w4 = st.columns(4)
    window = 40
    url_check("real_lines_start", number_in(0, max(0, L - 1)), tr("real_model.url.first"))  # (the text may have shrunk)
    start = w1.number_input(
        tr("real_model.first"), 0, max(0, L - 1), 0, step=10, key="real_lines_start", bind="query-params"
    )
    stop = min(L, int(start) + window)
    lines_of = [None, *range(int(start), stop)]
    url_check(
        "real_lines_query",
        url_labels(lines_of, lambda i: tr("real_model.every") if i is None else f"{i} · {tokens[i]}"),
        tr("real_model.url.query"),
        tr("real_model.every"),
    )
    query = linked(
        w2.selectbox,
        tr("real_model.only"),
        lines_of,
        key="real_lines_query",
        format_func=lambda i: tr("real_model.every") if i is None else f"{i} · {tokens[i]}",
    )
    WHICH = {"head": tr("real_model.which.head"), "average": tr("real_model.which.average")}
    url_check("real_lines_which", url_labels(WHICH, WHICH.get), tr("real_model.url.which"))
    url_check("real_lines_min", number_in(0.01, 0.5), tr("real_model.url.min"))
    which = linked(
        w3.selectbox, tr("real_model.weights_of"), list(WHICH), key="real_lines_which", format_func=WHICH.get
    )
    min_w = w4.slider(tr("real_model.hide_below"), 0.01, 0.5, 0.1, key="real_lines_min", bind="query-params")
    matrix = trace.attention[layer, head] if which == "head" else trace.attention[layer].mean(0)
    lines = lines_figure(
        matrix,
        tokens,
        int(start),
        stop,
        query,
        float(min_w),
        title=tr("real_model.fig.lines", start=int(start), stop=stop - 1, L=L),
        texts=figure_texts(),
    )
    chart(lines, key="real_lines", config=PLOT)
    if L > window:
        st.caption(tr("real_model.window", window=window))


head_view()
st.caption(
    tr(
        "real_model.server",
        server=time.perf_counter() - t0,
        forward=trace.seconds,
        grid=payload.build_seconds,
        kb=len(payload.png_bytes) / 1e3,
        numbers=n_layers * n_heads * L * L,
    )
)
with st.expander(tr("real_model.tokens")):
    columns = {
        tr("real_model.col.position"): list(range(L)),
        tr("real_model.col.token"): tokens,
        "id": trace.ids.tolist(),
        tr("real_model.col.segment"): trace.segment_ids.tolist(),
        tr("real_model.col.special"): trace.special.tolist(),
    }
    if state.decoder:  # one text: no segments
        del columns[tr("real_model.col.segment")]
    st.dataframe(columns, hide_index=True)
del trace  # the session keeps the input and a weak reference, not 75–283 MB of attention (ui.bert.RealInput)
