"""Seq2seq attention: translate with an RNN encoder–decoder, step by step, with or without attention."""

from __future__ import annotations

import streamlit as st

from ui.checkpoints import loaded_or_stop
from ui.deck import add_section_button, publish_view
from ui.cells import seq2seq_chart, seq2seq_exposure_cells
from ui.export import PLOT, export_menu
from ui.i18n import figure_texts, tr
from ui.frame import page_frame
from ui.plot import chart
from ui.quiz import HIDDEN, quiz_toggle, step_quiz
from ui.seq2seq import (
    MODES,
    bleu_chart,
    example_inputs,
    explain,
    exposure_view,
    follow_model,
    heatmap_texts,
    load_model,
    local_caption,
    model_choices,
    model_data,
    what_if_view,
)
from ui.state import at_most, checked, linked, labels as url_labels, number_in, url_check, use_example
from ui.stepper import length_penalty_slider, step_control
from ui.views.seq2seq import ExposureState, Seq2seqState, attention_view, comparison_heatmap, decode, page_gold
from ui.tokens import input_error, md_escape, show_notices, token_strip
from viz_core.seq2seq import attention_heatmap, beam_tree_figure, step_attention_bars, topk_bars

page_frame(tr("nav.2"), icon="🔁", intro=tr("seq2seq.intro"))

from models.inference.common import DEFAULT_LENGTH_PENALTY, InputError  # noqa: E402
from models.inference.traces import display_text  # noqa: E402

choices = model_choices()
if not choices:
    st.error(tr("seq2seq.no_model"))
    st.stop()
labels = {name: label for name, label in choices}


url_check("s2s_text", at_most(10_000), tr("seq2seq.url.text"), tr("seq2seq.url.text_cut"))
url_check("s2s_model", url_labels(labels, labels.get), tr("seq2seq.url.model"))
url_check(
    "s2s_compare",
    url_labels(labels, labels.get, optional=True),
    tr("seq2seq.url.compare"),
    tr("seq2seq.url.no_compare"),
)
url_check("s2s_beam", number_in(1, 8), tr("seq2seq.url.beam"))
url_check("s2s_mode", url_labels(MODES, MODES.get), tr("seq2seq.url.mode"))
url_check("s2s_alpha", number_in(0.0, 2.0), tr("seq2seq.url.alpha"))
text_col, model_col, options_col = st.columns([5, 3, 1.6], vertical_alignment="bottom")
with model_col:  # first: the text box's language and default follow the model
    default_model = "s2s-bahdanau" if "s2s-bahdanau" in labels else choices[0][0]
    model_name = linked(
        st.selectbox,
        tr("seq2seq.model"),
        list(labels),
        format_func=labels.get,
        key="s2s_model",
        index=list(labels).index(default_model),
        on_change=follow_model,
        args=("s2s_text", "s2s_model"),
    )
corpus, source_lang = model_data(model_name)
examples = example_inputs(model_name)
with text_col:
    text = st.text_input(
        tr("seq2seq.sentence.zh" if source_lang == "zh" else "seq2seq.sentence"),
        value=examples[0],
        key="s2s_text",
        max_chars=10_000,
        bind="query-params",
    )
with options_col.popover(tr("seq2seq.options"), icon=":material/tune:", width="stretch"):
    checked(
        st.selectbox,
        tr("seq2seq.example"),
        examples,
        key="s2s_example",
        index=None,
        on_change=use_example("s2s_example", "s2s_text"),
        placeholder=tr("seq2seq.example_placeholder_real" if corpus else "seq2seq.example_placeholder"),
    )
    compare = linked(
        st.selectbox,
        tr("seq2seq.compare"),
        [None] + [n for n in labels if n != model_name],
        format_func=lambda n: tr("seq2seq.nothing") if n is None else labels[n],
        key="s2s_compare",
    )
    beam = st.slider(tr("seq2seq.beam"), 1, 8, 1, key="s2s_beam", help=tr("seq2seq.beam_help"), bind="query-params")
    mode = linked(
        st.selectbox,
        tr("seq2seq.mode"),
        list(MODES),
        format_func=MODES.get,
        key="s2s_mode",
        help=tr("seq2seq.mode_help"),
    )
    alpha = length_penalty_slider("s2s_alpha", beam, DEFAULT_LENGTH_PENALTY, bind="query-params")
    quiz = quiz_toggle("s2s")

loaded_primary = loaded_or_stop(load_model(model_name))
if mode != "soft" and loaded_primary.model.cfg.attention != "luong":
    st.info(tr("seq2seq.mode_luong_only", mode=MODES[mode], model=md_escape(labels[model_name])))
    mode = "soft"


state = Seq2seqState(model_name, text, beam, mode, alpha, compare)  # what a link and a slide hold
publish_view(state)


def translate_or_message(name: str):
    """The cached trace (the one the view's slide draws), or None after showing why the input cannot be
    translated."""
    try:
        return decode(state, name)
    except InputError as exc:
        st.warning(input_error(exc))
        return None


trace = translate_or_message(model_name)
if trace is None:
    st.stop()

other = None
if compare:
    loaded_other = load_model(compare)
    if isinstance(loaded_other, str):
        st.error(loaded_other)
    else:
        other = translate_or_message(compare)
gold = page_gold(trace)  # real sentence pairs have no gold alignment
playing = quiz and other is None  # the quiz plays on one model's output


def translation_summary() -> None:
    """The translation and its notices (unknown words, cut input, confidence), next to the output."""
    if not playing:  # in the quiz the output shows step by step, once guessed
        caption = tr("seq2seq.translation_by", model=md_escape(labels[model_name]))
        token_strip([display_text(trace.tgt_tokens)], caption=caption)
    show_notices(trace.notices)


@st.fragment
def steps_view() -> None:
    """Everything that changes with the step: re-run alone when stepping."""
    n = len(trace.tgt_tokens)
    hyp = trace.best
    if other is not None:
        translation_summary()
        t = step_control(n, key="s2s")
        if quiz:
            st.caption(tr("quiz.no_compare"))
        # Side by side while the heatmaps stay readable at half width, else one above the other.
        cols = st.columns(2) if len(trace.src_tokens) <= 14 else [st.container(), st.container()]
        # labels by the picker's key (a studio run's trace names its folder, "checkpoint", not its path)
        for i, (col, name, side) in enumerate(zip(cols, (model_name, compare), (trace, other))):
            with col:
                st.text(display_text(side.tgt_tokens))
                show_notices([n for n in side.notices if n.level == "warning"])
                pane = comparison_heatmap(side, t, labels[name])  # its slide draws the same figure
                if pane is None:
                    st.markdown(f"#### {md_escape(labels[name])}")
                    st.info(tr("seq2seq.no_attention_cmp"))
                else:
                    seq2seq_chart(pane, f"cmp_{i}_{side.model}", side, side.best, text)
        return
    heat_col, side_col = st.columns([3, 2])
    with side_col:
        t = step_control(n, key="s2s")
        translation_summary()
        # Quiz: step t's α, token and top-k stay hidden until the student has guessed (ui.quiz).
        shown = not playing or step_quiz(
            "s2s",
            (trace.model, trace.mode, text, beam, alpha),
            t,
            emitted=hyp.tokens[t],
            candidates=hyp.topk_tokens[t],
            probs=hyp.topk_probs[t],
            src_tokens=trace.src_tokens,
            alpha=None if hyp.attention is None else hyp.attention[t],
        )
        st.caption(tr("seq2seq.step", step=t + 1, n=n))
        token_strip([*hyp.tokens[:t], hyp.tokens[t] if shown else HIDDEN], highlight=t)
        if shown and hyp.attention is not None:
            chart(
                bars := step_attention_bars(
                    hyp.attention[t], trace.src_tokens, trace.src_unknown, title=tr("seq2seq.fig.alpha", step=t + 1)
                ),
                key="bars",
                config=PLOT,
            )
        if shown:
            chart(
                topk := topk_bars(
                    hyp.topk_tokens[t],
                    hyp.topk_probs[t],
                    emitted=hyp.tokens[t],
                    title=tr("seq2seq.fig.topk", k=len(hyp.topk_tokens[t]), step=t + 1),
                ),
                key="topk",
                config=PLOT,
            )
    with heat_col:
        if hyp.attention is None:
            st.info(tr("seq2seq.no_attention"))
        else:
            rows = t + int(shown) if playing else len(hyp.tokens)  # the quiz shows only the guessed steps
            heat, weights = attention_view(trace, hyp, t, rows=rows, width=470)  # its slide draws the same figure
            seq2seq_chart(heat, "heatmap", trace, hyp, text, drawn=weights)
            if gold:
                st.caption(tr("seq2seq.gold"))
            elif corpus:
                st.caption(tr("seq2seq.no_gold"))
            if hyp.positions is not None:
                st.caption(local_caption(loaded_primary.model.cfg))
    if not shown:  # the export, the what-if and the beam would give the hidden step away
        return
    export_menu(
        "seq2seq",
        title=tr("seq2seq.export.title", model=labels[model_name]),
        source=text,
        trace=trace,
        figures={
            tr("seq2seq.export.attention"): heat,
            tr("seq2seq.export.step", step=t + 1): bars,
            tr("seq2seq.export.topk", step=t + 1): topk,
        }
        if hyp.attention is not None
        else {tr("seq2seq.export.topk", step=t + 1): topk},
        numbers={
            tr("num.model"): labels[model_name],
            tr("num.translation"): display_text(trace.tgt_tokens),
            tr("num.search"): tr("num.search_value", search=trace.search, width=trace.beam_width),
            tr("num.score"): hyp.score,
        },
    )
    what_if_view(trace, text, t, alpha, labels[model_name])
    if trace.search == "beam":
        st.subheader(tr("seq2seq.beam_header"))
        chart(
            beam_tree_figure(
                trace.beam_steps,
                upto=t + 1,
                title=tr("seq2seq.fig.beam", width=trace.beam_width, step=t + 1),
                texts=figure_texts(),
            ),
            key="beam_tree",
            config=PLOT,
        )


steps_view()
n_unknown = sum(trace.src_unknown)
token_strip(
    trace.src_tokens,
    trace.src_unknown,
    caption=tr("seq2seq.src.zh" if source_lang == "zh" else "seq2seq.src")
    + (tr("seq2seq.src_unknown", n=n_unknown) if n_unknown else ""),
)

if trace.search == "beam" and not playing:  # every finished hypothesis would give the quiz away
    st.markdown(tr("seq2seq.hypotheses", alpha=trace.length_penalty))
    tabs = st.tabs([f"#{i + 1}  {h.score:.3f}" for i, h in enumerate(trace.hypotheses)])
    for i, (tab, h) in enumerate(zip(tabs, trace.hypotheses)):
        with tab:
            st.text(display_text(h.tokens) + ("" if h.finished else tr("seq2seq.unfinished")))
            if h.attention is not None:
                with st.columns([3, 2])[0]:
                    seq2seq_chart(
                        attention_heatmap(
                            h.attention,
                            trace.src_tokens,
                            h.tokens,
                            src_unknown=trace.src_unknown,
                            texts=heatmap_texts(model_name),
                        ),
                        f"hyp_{i}",
                        trace,
                        h,
                        text,
                    )

st.divider()
bleu_chart()
st.divider()
exposure_view(
    lambda name, index: add_section_button(ExposureState(name, index), "deck_add_exposure"), seq2seq_exposure_cells
)
explain()
