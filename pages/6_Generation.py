"""Generation: a decoder-only language model continues a prompt, one token at a time."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from ui.checkpoints import loaded_or_stop
from ui.deck import publish_view
from ui.cells import head_chart
from ui.export import PLOT, PLOT_NO_BAR, export_menu
from ui.frame import page_frame
from ui.plot import chart
from ui.quiz import HIDDEN, quiz_toggle, step_quiz
from ui.i18n import figure_texts, tr
from ui.state import at_most, checked, linked, labels as url_labels, number_in, url_check, use_example
from ui.views.transformer import GenerationState, causal_view, generate
from ui.stepper import step_control
from ui.tokens import input_error, md_escape, token_strip
from ui.grid import AVERAGE, head_name, head_picker, on_grid_select, pick
from ui.transformer import GEN_EXAMPLES, GEN_TOP_K, grid_for, load_model, transformer_choices
from viz_core.attention_grid import HEAD_VIEW_PX, head_view_height
from viz_core.labels import safe_label
from viz_core.transformer import (
    attention_row_bars,
    grid_figure,
    next_token_figure,
)

page_frame(tr("nav.6"), icon="✍️", intro=tr("generation.intro"))

from models.inference.common import InputError  # noqa: E402  (after the frame: the page shows at once)

choices = transformer_choices("decoder-only")
if not choices:
    st.error(tr("generation.no_model"))
    st.stop()
labels = dict(choices)


def _top_k_label(k: int) -> str:
    return tr("generation.no_limit") if k == 0 else str(k)


url_check("gen_text", at_most(10_000), tr("generation.url.prompt"), tr("generation.url.prompt_cut"))
if "gen_text" not in st.session_state:
    st.session_state["gen_text"] = GEN_EXAMPLES[0]
url_check("gen_model", url_labels(labels, labels.get), tr("generation.url.model"))
url_check("gen_temperature", number_in(0.0, 2.0), tr("generation.url.temperature"))
url_check("gen_top_k", url_labels(GEN_TOP_K, _top_k_label), "top-k")
url_check("gen_max_new", number_in(1, 40), tr("generation.url.max_new"))
url_check("gen_seed", number_in(0, 1_000_000), tr("generation.url.seed"))
text_col, model_col, options_col = st.columns([5, 3, 1.6], vertical_alignment="bottom")
prompt = text_col.text_input(
    tr("generation.prompt"), key="gen_text", max_chars=10_000, bind="query-params", help=tr("generation.prompt_help")
)
model_name = linked(model_col.selectbox, tr("generation.model"), list(labels), format_func=labels.get, key="gen_model")
with options_col.popover(tr("generation.sampling"), icon=":material/tune:", width="stretch"):
    checked(
        st.selectbox,
        tr("generation.example"),
        GEN_EXAMPLES,
        key="gen_example",
        index=None,
        on_change=use_example("gen_example", "gen_text"),
        placeholder=tr("generation.example_placeholder"),
    )
    temperature = st.slider(
        tr("generation.temperature"),
        0.0,
        2.0,
        0.8,
        0.1,
        key="gen_temperature",
        bind="query-params",
        help=tr("generation.temperature_help"),
    )
    top_k = linked(
        st.select_slider,
        "Top-k",
        options=GEN_TOP_K,
        value=20,
        key="gen_top_k",
        format_func=_top_k_label,
        help=tr("generation.top_k_help"),
    )
    max_new = st.slider(tr("generation.max_new"), 1, 40, 20, key="gen_max_new", bind="query-params")
    seed = int(st.number_input(tr("generation.seed"), 0, 1_000_000, 0, key="gen_seed", bind="query-params"))
    quiz = quiz_toggle("gen")

loaded = loaded_or_stop(load_model(model_name))

state = GenerationState(model_name, prompt, temperature, top_k, max_new, seed)
publish_view(state)
try:
    result = generate(state)  # its slide's too
except InputError as exc:
    st.warning(input_error(exc))
    st.stop()

if result.input_tokens_dropped:
    st.warning(tr("generation.cut", max_len=loaded.config.max_len, dropped=result.input_tokens_dropped))
n_unknown = sum(result.prompt_unknown)
if n_unknown:
    st.warning(tr("generation.unknown", n=n_unknown))
if not result.steps:
    token_strip([result.text or tr("generation.empty")], caption=tr("generation.generated"))
    st.info(tr("generation.nothing"))
    st.stop()


@st.fragment
def steps_view() -> None:
    n = len(result.steps)
    step_col, text_col = st.columns([2, 3], vertical_alignment="bottom")
    with step_col:
        t = step_control(n, key="gen", label=tr("generation.step_label"))
    step = result.steps[t]
    seen = result.tokens[: step.position]
    n_prompt = len(result.prompt_tokens)

    dist_col, attn_col = st.columns([2, 3])
    with dist_col:
        # Quiz: the sampled token and its distribution stay hidden until guessed (ui.quiz); p is
        # the sampled distribution's (after temperature and top-k), the one the token came from.
        shown = not quiz or step_quiz(
            "gen",
            (model_name, prompt, max_new, temperature, top_k, seed),
            t,
            emitted=step.token,
            candidates=step.top_tokens,
            probs=step.sampling_probs,
            emitted_prob=step.prob,
        )
        if shown:
            chart(
                dist := next_token_figure(
                    step.top_tokens,
                    step.top_probs,
                    step.sampling_probs,
                    chosen=step.token,
                    title=tr("generation.fig.dist", step=t + 1),
                    texts=figure_texts(),
                ),
                key="gen_dist",
                config=PLOT,
            )
            st.caption(tr("generation.chosen", token=md_escape(step.token), prob=step.prob))
    with text_col:
        token_strip(
            [*result.tokens[: n_prompt + t], result.tokens[n_prompt + t] if shown else HIDDEN],
            highlight=n_prompt + t,
            caption=tr("generation.step_caption", step=t + 1, n=n, seen=len(seen)),
        )
    with attn_col:
        layer, head = head_picker(result.attention.shape[0], result.attention.shape[1], key="gen")
        publish_view(replace(state, layer=layer, head=head))  # the head is this fragment's
        row = pick(np.asarray(step.attention)[:, :, None, :], layer, head)[0]
        chart(
            bars := attention_row_bars(
                row,
                seen,
                title=tr("generation.fig.row", token=safe_label(seen[-1], 30), head=head_name(layer, head)),
                texts=figure_texts(),
            ),
            key="gen_row",
            config=PLOT,
        )

    size = step.position
    weights = np.ascontiguousarray(result.attention[:, :, :size, :size])
    big_col = st.container()  # the causal map across the column, every token labelled; the grid below it
    grid_col, _ = st.columns([1, 1])
    with grid_col:
        payload = grid_for(weights, tuple(seen), tuple(seen))
        chart(
            grid_figure(
                payload,
                selected=None if head == AVERAGE else (layer, head),
                title=tr("generation.fig.grid"),
                texts=figure_texts(),
            ),
            key="gen_grid",
            on_select=lambda: on_grid_select("gen_grid", "gen"),
            config=PLOT_NO_BAR,
        )
        st.caption(tr("generation.grid_caption"))
    with big_col:  # its slide draws the same figure
        matrix, drawn = causal_view(result, layer, head, t, width=HEAD_VIEW_PX, height=head_view_height(size))
        head_chart(
            matrix,
            "gen_matrix",
            drawn,
            model_name,
            "lm",
            layer,
            head,
            weights.shape[1],
            query_tokens=seen,
            key_tokens=seen,
            src_ids=None,
            tgt_ids=result.ids,
        )
    if not shown:  # the export would give the hidden token away
        return
    export_menu(
        "generation",
        title=tr("generation.export.title", model=labels[model_name]),
        source=prompt,
        trace=result,
        figures={
            tr("generation.export.dist", step=t + 1): dist,
            tr("generation.export.bars", step=t + 1): bars,
            tr("generation.fig.matrix", head=head_name(layer, head)): matrix,
        },
        numbers={
            tr("num.model"): labels[model_name],
            tr("num.generated"): result.text,
            tr("num.temperature"): temperature,
            "Top-k": top_k,
            tr("num.seed"): seed,
            tr("num.p_step", step=t + 1): step.prob,
        },
    )


steps_view()
if not quiz:  # the whole output would give the quiz away
    token_strip([result.text or tr("generation.empty")], caption=tr("generation.generated"))
token_strip(
    result.prompt_tokens,
    result.prompt_unknown,
    caption=tr("generation.prompt_read") + (tr("generation.prompt_unknown", n=n_unknown) if n_unknown else ""),
)
st.caption(
    tr(
        "generation.trained",
        seconds=loaded.training.get("seconds", "?"),
        ppl=loaded.training.get("heldout_perplexity", "?"),
    )
)

st.divider()
st.subheader(tr("generation.sampling_header"))
st.latex(r"p_T(x) = \frac{\exp(z_x / T)}{\sum_{y \in \text{top-}k} \exp(z_y / T)} \quad (x \in \text{top-}k)")
st.markdown(tr("generation.sampling_explain"))
