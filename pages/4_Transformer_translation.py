"""Transformer translation: decode step by step and look at every layer and head of the three attentions."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from ui.checkpoints import loaded_or_stop
from ui.deck import add_section_button, publish_view
from ui.cells import head_chart, transformer_exposure_cells
from ui.export import PLOT, PLOT_NO_BAR, export_menu
from ui.frame import page_frame
from ui.plot import chart
from ui.quiz import HIDDEN, hide_rows, quiz_toggle, step_quiz
from ui.seq2seq import example_inputs, model_data
from ui.i18n import figure_texts, tr
from ui.grid import AVERAGE, head_name, head_picker, on_grid_select, pick
from ui.state import at_most, checked, link_option, linked, labels as url_labels, number_in, url_check, use_example
from ui.views.transformer import ExposureState, SmoothingState, TranslationState, head_view, translate
from ui.stepper import length_penalty_slider, step_control
from ui.tokens import input_error, md_escape, show_notices, token_strip
from ui.transformer import (
    SITE_LABELS,
    SHORT_LABELS,
    ablation_view,
    attention_of,
    compare_with_rnn,
    explain_translation,
    exposure_view,
    label_smoothing_view,
    first_input,
    follow_translation_model,
    grid_for,
    load_model,
    masks_section,
    scores_view,
    transformer_choices,
    what_if_view,
)
from viz_core.seq2seq import beam_tree_figure, step_attention_bars, topk_bars
from viz_core.transformer import grid_figure

page_frame(tr("nav.4"), icon="🤖", intro=tr("transformer.intro"))

from models.inference.common import DEFAULT_LENGTH_PENALTY, InputError  # noqa: E402
from models.inference.translate import TRANSLATION  # noqa: E402

choices = transformer_choices("encoder-decoder")
if not choices:
    st.error(tr("transformer.no_model"))
    st.stop()
labels = dict(choices)

default_model = "tf-en-fr" if "tf-en-fr" in labels else choices[0][0]
found, first_model = link_option(
    "tf_model", labels, labels.get, tr("transformer.url.model")
)  # the model the link names
first_model = first_model if found else default_model  # for the first text
url_check("tf_text", at_most(10_000), tr("transformer.url.text"), tr("transformer.url.text_cut"))
url_check("tf_beam", number_in(1, 8), tr("transformer.url.beam"))
url_check("tf_alpha", number_in(0.0, 2.0), tr("transformer.url.alpha"))
if "tf_text" not in st.session_state:
    st.session_state["tf_text"] = first_input(st.session_state.get("tf_model", first_model))

text_col, model_col, options_col = st.columns([5, 3, 1.6], vertical_alignment="bottom")
with model_col:
    model_name = linked(
        st.selectbox,
        tr("transformer.model"),
        list(labels),
        format_func=labels.get,
        key="tf_model",
        index=list(labels).index(default_model),
        on_change=follow_translation_model,
        args=("tf_text", "tf_model"),
    )
loaded = loaded_or_stop(load_model(model_name))
is_translation = loaded.task == TRANSLATION  # a translation model, whatever its language pair
corpus, source_lang = model_data(model_name)  # a real corpus (Bible, HSK) or None; "zh": typed Chinese is segmented
with text_col:
    text = st.text_input(
        tr(
            ("transformer.sentence.zh" if source_lang == "zh" else "transformer.sentence")
            if is_translation
            else "transformer.digits"
        ),
        key="tf_text",
        max_chars=10_000,
        bind="query-params",
    )
with options_col.popover(tr("transformer.options"), icon=":material/tune:", width="stretch"):
    if is_translation:
        checked(
            st.selectbox,
            tr("transformer.example"),
            example_inputs(model_name),
            key="tf_example",
            index=None,
            on_change=use_example("tf_example", "tf_text"),
            placeholder=tr("transformer.example_placeholder_real" if corpus else "transformer.example_placeholder"),
        )
    beam = st.slider(tr("transformer.beam"), 1, 8, 1, key="tf_beam", bind="query-params")
    alpha = length_penalty_slider("tf_alpha", beam, DEFAULT_LENGTH_PENALTY, bind="query-params")
    quiz = quiz_toggle("tf")
    compare = None
    if is_translation:
        from ui.seq2seq import model_choices as seq2seq_choices

        s2s = {n: lab for n, lab in seq2seq_choices() if model_data(n)[1] == source_lang}  # same source language
        url_check(
            "tf_compare",
            url_labels(s2s, s2s.get, optional=True),
            tr("transformer.url.compare"),
            tr("transformer.url.no_compare"),
        )
        compare = linked(
            st.selectbox,
            tr("transformer.compare"),
            [None] + list(s2s),
            format_func=lambda n: tr("transformer.nothing") if n is None else s2s[n],
            key="tf_compare",
        )

state = TranslationState(model_name, text, beam, alpha)  # what a link and a slide hold
publish_view(state)
try:
    trace = translate(state)  # its slide's too
except InputError as exc:
    st.warning(input_error(exc))
    st.stop()

if not trace.tgt_tokens:
    token_strip(
        [trace.text or tr("transformer.empty")],
        caption=tr("transformer.output_of", model=md_escape(labels[state.model])),
    )
    show_notices(trace.notices)
    st.info(tr("transformer.no_tokens"))
    st.stop()

other = None
if compare:
    from ui.seq2seq import load_model as load_seq2seq_model
    from ui.seq2seq import run_translation as run_seq2seq

    loaded_other = load_seq2seq_model(compare)
    if isinstance(loaded_other, str):
        st.error(loaded_other)
    else:
        try:
            other = run_seq2seq(compare, state.text, 1, "soft", 2)
        except InputError as exc:
            st.warning(input_error(exc))


@st.fragment
def steps_view() -> None:
    """Everything that changes with the step or the chosen head: re-run alone."""
    n = len(trace.tgt_tokens)
    step_col, site_col = st.columns([1, 1], vertical_alignment="bottom")
    with step_col:
        t = step_control(n, key="tf")
    with site_col:
        url_check("tf_kind", url_labels(SITE_LABELS, SITE_LABELS.get), tr("transformer.url.kind"))
        site = linked(
            st.radio,
            tr("transformer.kind"),
            list(SITE_LABELS),
            format_func=SITE_LABELS.get,
            key="tf_kind",
            horizontal=True,
            index=2,
        )
    weights, keys, queries, step_row, blocked = attention_of(trace, site, t)
    quiz_box = st.container()  # the quiz's question, above the figures whose step row it hides

    grid_col, head_col = st.columns([1, 1])
    with grid_col:
        layer, head = head_picker(trace.n_layers, trace.n_heads, key="tf")
        publish_view(replace(state, site=site, layer=layer, head=head))  # these are this fragment's
        with quiz_box:  # "where it looks": the chosen head's cross-attention at step t (ui.quiz)
            shown = not quiz or step_quiz(
                "tf",
                (state.model, state.text, state.beam, state.alpha, layer, head),
                t,
                emitted=trace.tgt_tokens[t],
                candidates=trace.topk_tokens[t],
                probs=trace.topk_probs[t],
                src_tokens=trace.src_tokens,
                alpha=pick(trace.cross_attention[:, :, t : t + 1], layer, head)[0],
            )
        if not shown and site != "encoder":  # step t's query row is the answer: blank until guessed
            weights = hide_rows(weights, queries, t)[0]
        payload = grid_for(
            np.ascontiguousarray(weights if shown else np.nan_to_num(weights)), tuple(keys), tuple(queries)
        )
        chart(
            grid_figure(
                payload,
                selected=None if head == AVERAGE else (layer, head),
                title=tr("transformer.fig.grid"),
                texts=figure_texts(),
            ),
            key="tf_grid",
            on_select=lambda: on_grid_select("tf_grid", "tf"),
            config=PLOT_NO_BAR,
        )
        st.caption(tr("transformer.grid_caption"))
    with head_col:
        what = SHORT_LABELS[site]
        # the quiz: step t's query row is the answer, blank until guessed; its slide draws the same figure
        head_fig, matrix = head_view(trace, site, layer, head, t, rows=None if shown else t)
        head_chart(
            head_fig,
            "tf_head_fig",
            matrix,
            state.model,
            site,
            layer,
            head,
            trace.n_heads,
            query_tokens=queries,
            key_tokens=keys,
            src_ids=trace.src_ids,
            tgt_ids=trace.decoder_input_ids,
        )
        if site == "decoder":
            st.caption(tr("transformer.lookahead"))

    if not quiz:  # in the quiz the output shows step by step, once guessed
        token_strip(
            [trace.text or tr("transformer.empty")],
            caption=tr("transformer.output_of", model=md_escape(labels[state.model])),
        )
    show_notices(trace.notices)
    st.markdown(tr("transformer.step", step=t + 1, n=n, token=md_escape(trace.decoder_tokens[t])))
    token_strip([*trace.tgt_tokens[:t], trace.tgt_tokens[t] if shown else HIDDEN], highlight=t)
    if not shown:  # the bars, top-k, export, what-if, ablation and beam would give step t away
        return
    bars_col, topk_col = st.columns(2)
    with bars_col:
        row = pick(trace.cross_attention[:, :, t : t + 1], layer, head)[0]
        chart(
            bars := step_attention_bars(
                row,
                trace.src_tokens,
                trace.src_unknown,
                title=tr("transformer.fig.cross", step=t + 1, head=head_name(layer, head)),
            ),
            key="tf_cross_bars",
            config=PLOT,
        )
    with topk_col:
        chart(
            topk := topk_bars(
                trace.topk_tokens[t],
                trace.topk_probs[t],
                emitted=trace.tgt_tokens[t],
                title=tr("transformer.fig.topk", k=len(trace.topk_tokens[t]), step=t + 1),
            ),
            key="tf_topk",
            config=PLOT,
        )
    export_menu(
        "transformer",
        title=tr("transformer.export.title", model=labels[state.model]),
        source=state.text,
        trace=trace,
        figures={
            tr("transformer.export.head", what=what, head=head_name(layer, head)): head_fig,
            tr("transformer.export.cross", step=t + 1): bars,
            tr("transformer.export.topk", step=t + 1): topk,
        },
        numbers={
            tr("num.model"): labels[state.model],
            tr("num.output"): trace.text,
            tr("num.search"): tr("num.search_value", search=trace.search, width=trace.beam_width),
            "Σ log p": trace.score,
            tr("num.step"): t + 1,
            tr("grid.head"): head_name(layer, head),
        },
    )
    what_if_view(trace, state.text, t, layer, head)
    ablation_view(trace, state.text, state.beam, state.alpha, site, layer, head, t)

    if other is not None and quiz:
        st.caption(tr("quiz.no_compare"))
    elif other is not None:
        compare_with_rnn(other, s2s.get(other.model, other.model), trace, labels[state.model], layer, head, t)

    if trace.search == "beam":
        st.subheader(tr("transformer.beam_header"))
        chart(
            beam_tree_figure(
                trace.beam_steps,
                upto=t + 1,
                title=tr("transformer.fig.beam", width=trace.beam_width, step=t + 1),
                texts=figure_texts(),
            ),
            key="tf_beam_tree",
            config=PLOT,
        )
        st.caption(tr("transformer.beam_caption", alpha=trace.length_penalty))


steps_view()
n_unknown = sum(trace.src_unknown)
token_strip(
    trace.src_tokens,
    trace.src_unknown,
    caption=tr("transformer.src") + (tr("transformer.src_unknown", n=n_unknown) if n_unknown else ""),
)
if is_translation:
    scores_view(state.model)
    st.divider()
    exposure_view(
        state.model,
        lambda index: add_section_button(ExposureState(state.model, index), "deck_add_exposure"),
        transformer_exposure_cells,
    )
    st.divider()
    label_smoothing_view(lambda: add_section_button(SmoothingState(), "deck_add_smoothing"))

st.divider()
masks_section(trace.src_tokens, trace.decoder_tokens)
explain_translation()
