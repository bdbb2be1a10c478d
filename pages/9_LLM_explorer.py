"""Real LLM: SmolLM2-135M-Instruct (or, once converted, Gemma 3 270M) run offline: generation with every
head's attention, grouped-query attention, RoPE on its own head dimension, and head types found by measurement."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import streamlit as st

from ui.frame import page_frame
from ui.i18n import figure_texts, tr

page_frame(tr("nav.9"), icon="🦙", intro=tr("llm_explorer.intro"))

from ui.cells import llm_step_chart  # noqa: E402
from ui.deck import publish_view  # noqa: E402
from ui.export import PLOT, export_menu  # noqa: E402
from ui.llm import BYTES, DEFAULT_PROMPT, HEAD_TYPES, HEADS_TEXT, bytes_label, choose_model, heads_figure  # noqa: E402
from ui.llm import CANDIDATES_PX, chinese_notice, ready_model, rope_bases, step_figure, visible  # noqa: E402
from ui.llm import SUMMARIES, direction_label, lab_figure, lab_translations  # noqa: E402
from ui.llm import translation_figure, translation_heads_figure, translation_quality  # noqa: E402
from ui.plot import chart  # noqa: E402
from ui.state import checked, linked, topic_tabs  # noqa: E402
from ui.stepper import step_control  # noqa: E402
from ui.tokens import input_error, md_escape, token_strip  # noqa: E402
from ui.views.llm import GQAState, HeadTypesState, LLMGenerationState, RopeState, TranslationState  # noqa: E402
from ui.views.llm import TOPICS, generate, kv_cache, rope, score_heads, translate  # noqa: E402
from viz_core.transformer import next_token_figure  # noqa: E402

if TYPE_CHECKING:
    from models.inference.llm import LLMTrace

model = choose_model()  # SmolLM2, or the choice of it and Gemma 3 once Gemma is converted
llm = ready_model(model)  # a message, the conversion button and its progress instead, until the model is converted


def generation_tab() -> None:
    prompt_col, options_col = st.columns([6, 1.4], vertical_alignment="bottom")
    prompt = checked(
        prompt_col.text_input,
        tr("llm_explorer.prompt"),
        DEFAULT_PROMPT,
        max_chars=2000,
        key="llm_prompt",
        bind="query-params",
    )
    with options_col.popover(tr("llm_explorer.options"), icon=":material/tune:", width="stretch"):
        has_chat = bool(getattr(llm.tokenizer, "chat_template", None))  # Gemma 3 270M here: the pretrained model
        chat = checked(
            st.toggle,
            tr("llm_explorer.chat"),
            True,
            key="llm_chat",
            help=tr("llm_explorer.chat_help" if has_chat else "llm_explorer.chat_none"),
            disabled=not has_chat,
            bind="query-params",
        )
        temperature = checked(
            st.slider,
            tr("llm_explorer.temperature"),
            0.0,
            2.0,
            0.7,
            0.05,
            key="llm_temperature",
            help=tr("llm_explorer.temperature_help"),
            bind="query-params",
        )
        top_k = checked(
            st.slider,
            tr("llm_explorer.top_k"),
            0,
            200,
            50,
            key="llm_top_k",
            help=tr("llm_explorer.top_k_help"),
            bind="query-params",
        )
        top_p = checked(
            st.slider,
            tr("llm_explorer.top_p"),
            0.05,
            1.0,
            0.9,
            0.05,
            key="llm_top_p",
            help=tr("llm_explorer.top_p_help"),
            bind="query-params",
        )
        max_new = checked(st.slider, tr("llm_explorer.max_new"), 1, 64, 24, key="llm_max_new", bind="query-params")
        seed = checked(st.number_input, tr("llm_explorer.seed"), 0, 10_000, 0, key="llm_seed", bind="query-params")
        use_cache = checked(
            st.toggle,
            tr("llm_explorer.kv_cache"),
            True,
            key="llm_cache",
            help=tr("llm_explorer.kv_cache_help"),
            bind="query-params",
        )
        rows = linked(
            st.segmented_control,
            tr("llm_explorer.heads_shown"),
            ["layers", "heads"],
            default="layers",
            required=True,
            key="llm_rows",
            format_func=lambda r: tr(f"llm_explorer.rows.{r}"),
        )
        layer = checked(
            st.slider,
            tr("llm_explorer.layer"),
            1,
            llm.n_layers,
            llm.n_layers // 2,
            key="llm_layer",
            disabled=rows != "heads",
            bind="query-params",
        )
    state = LLMGenerationState(
        model,
        prompt,
        bool(chat),
        float(temperature),
        int(top_k),
        float(top_p),
        int(max_new),
        int(seed),
        bool(use_cache),
        rows,
        int(layer) - 1,
    )
    publish_view(state)
    if not state.prompt.strip():
        st.warning(tr("llm_explorer.empty_prompt"))
        return
    trace = generate(state)  # its slide's too
    if trace.dropped:
        st.info(
            tr(
                "llm_explorer.cut",
                n=len(trace.prompt_ids) + trace.dropped,
                limit=len(trace.prompt_ids),
                dropped=trace.dropped,
            )
        )
    st.fragment(generation_step)(trace, state)  # a step reruns only the step's figures
    chinese_notice(state.model, trace.prompt_tokens)  # below the figure: the figure is on the first screen
    total = sum(trace.step_seconds)
    st.caption(
        tr(
            "llm_explorer.speed",
            n=len(trace.steps),
            seconds=total,
            rate=len(trace.steps) / max(total, 1e-9),
            cache=tr("llm_explorer.with_cache" if trace.use_cache else "llm_explorer.without_cache"),
            prompt=len(trace.prompt_ids),
        )
    )
    st.markdown(tr("llm_explorer.explain.generation"))


def generation_step(trace: LLMTrace, state: LLMGenerationState) -> None:
    """The step control and that step's figures: the new token's attention and its candidates, and
    their export (each figure's numbers, the trace, a handout) named after the step."""
    step = step_control(len(trace.steps), key="llm", label=tr("llm_explorer.step"))
    shown = trace.steps[step]
    main, side = st.columns([3, 1.2])
    attention = step_figure(trace, step, state.rows, state.layer + 1)
    # a click on a cell derives it from the model's own modules, below the figures (ui.cells)
    llm_step_chart(attention, "step_attention", trace, step, state.model, state.rows, state.layer, where=main)
    with side:
        token_strip(visible(trace.generated_tokens[: step + 1]), highlight=step)
    candidates = tr("llm_explorer.fig.candidates", n=step + 1)
    bars = next_token_figure(
        visible(shown.top_tokens[:8]),
        shown.top_probs[:8],
        shown.sampling_probs[:8],
        visible([shown.token])[0],
        title=candidates,
        texts=figure_texts(),
        width=CANDIDATES_PX,
    )
    chart(bars, key="candidates", config=PLOT, where=side)
    with side:
        export_menu(
            "llm",
            title=tr("nav.9"),
            source=state.prompt,
            trace=trace,
            figures={tr("llm_explorer.export.attention", n=step + 1): attention, candidates: bars},
            numbers={
                tr("num.model"): tr(f"llm_explorer.model.{state.model}"),
                tr("num.generated"): trace.text,
                tr("num.temperature"): state.temperature,
                "Top-k": state.top_k,
                "Top-p": state.top_p,
                tr("num.seed"): state.seed,
                tr("num.p_step", step=step + 1): shown.prob,
            },
        )


def follow_direction() -> None:
    """A new direction brings its own example sentence, unless the reader typed one of their own."""
    from models.inference.llm_translate import DEFAULT_SOURCES

    text = st.session_state.get("llm_tr_text")
    if not isinstance(text, str) or not text.strip() or text in DEFAULT_SOURCES.values():
        st.session_state["llm_tr_text"] = DEFAULT_SOURCES[st.session_state.get("llm_tr_dir") or "zh-en"]


def translation_tab() -> None:
    from models.inference.common import InputError
    from models.inference.llm_translate import DEFAULT_SOURCES, DIRECTIONS, MAX_SOURCE_CHARS

    dir_col, text_col, options_col = st.columns([2.2, 5, 1.4], vertical_alignment="bottom")
    direction = linked(
        dir_col.selectbox,
        tr("llm_explorer.tr.dir"),
        list(DIRECTIONS),
        key="llm_tr_dir",
        format_func=direction_label,
        on_change=follow_direction,
    )
    source = checked(
        text_col.text_input,
        tr("llm_explorer.tr.source"),
        DEFAULT_SOURCES[direction],
        max_chars=MAX_SOURCE_CHARS,
        key="llm_tr_text",
        bind="query-params",
    )
    with options_col.popover(tr("llm_explorer.options"), icon=":material/tune:", width="stretch"):
        summary = linked(
            st.segmented_control,
            tr("llm_explorer.tr.summary"),
            list(SUMMARIES),
            default=SUMMARIES[0],
            required=True,
            key="llm_tr_sum",
            format_func=lambda s: tr(f"llm_explorer.tr.sum_option.{s}"),
        )
        layer = checked(
            st.slider,
            tr("llm_explorer.layer"),
            1,
            llm.n_layers,
            1,
            key="llm_tr_layer",
            disabled=summary == "all",
            bind="query-params",
        )
        head = checked(
            st.slider,
            tr("llm_explorer.tr.head"),
            1,
            llm.n_heads,
            1,
            key="llm_tr_head",
            disabled=summary != "head",
            bind="query-params",
        )
        renormalise = checked(
            st.toggle,
            tr("llm_explorer.tr.renormalise"),
            True,
            key="llm_tr_norm",
            help=tr("llm_explorer.tr.renormalise_help"),
            bind="query-params",
        )
    state = TranslationState(model, direction, source, summary, int(layer) - 1, int(head) - 1, bool(renormalise))
    publish_view(state)
    if not state.source.strip():
        st.warning(tr("llm_explorer.tr.empty"))
        return
    try:
        result = translate(state)  # its slide's too
    except InputError as exc:
        st.warning(input_error(exc))
        return
    if not result.output_tokens:
        st.warning(tr("llm_explorer.tr.nothing"))
        return
    step = step_control(len(result.output_tokens), key="llm_tr", label=tr("llm_explorer.tr.step"))
    main, side = st.columns([3, 1.6])
    chart(
        translation_figure(result, state.summary, state.layer, state.head, step, state.renormalise),
        key="llm_tr_fig",
        config=PLOT,
        where=main,
    )
    chart(translation_heads_figure(result, step), key="llm_tr_heads", config=PLOT, where=side)
    side.caption(tr("llm_explorer.tr.share_line", share=float(result.on_source[step].mean())))
    st.markdown(tr("llm_explorer.tr.output", model=tr(f"llm_explorer.model.{model}"), text=md_escape(result.text)))
    chinese_notice(state.model, result.source_tokens)
    if not result.finished:
        st.caption(tr("llm_explorer.tr.unfinished", n=len(result.output_tokens)))
    st.markdown(tr("llm_explorer.explain.translation"))
    with st.expander(tr("llm_explorer.tr.prompt")):
        st.code(result.prompt, language=None, wrap_lines=True)
    st.subheader(tr("llm_explorer.tr.lab"))
    labs = lab_translations(state.direction, state.source)
    for lab in labs:
        st.markdown(tr("llm_explorer.tr.lab_line", model=md_escape(lab.name), text=lab.error or md_escape(lab.text)))
    if shown := [lab for lab in labs if lab.weights is not None]:
        chart(lab_figure(shown[0]), key="llm_tr_lab", config=PLOT)
    quality = translation_quality(state.direction)
    if quality is None:
        st.caption(tr("llm_explorer.tr.no_quality"))
        return
    st.caption(
        tr("llm_explorer.tr.quality", n=quality["pairs"], corpus=tr(f"llm_explorer.tr.corpus.{quality['corpus']}"))
    )
    st.dataframe(
        {
            tr("llm_explorer.tr.col.model"): list(quality["models"]),
            tr("llm_explorer.tr.col.bleu"): [m["bleu"] for m in quality["models"].values()],
            tr("llm_explorer.tr.col.chrf"): [m["chrf"] for m in quality["models"].values()],
        },
        hide_index=True,
    )


def gqa_tab() -> None:
    left, right = st.columns([1, 1.3])
    with right:
        st.markdown(
            tr(
                "llm_explorer.mqa.explain" if llm.n_kv_heads == 1 else "llm_explorer.gqa.explain",
                heads=llm.n_heads,
                kv=llm.n_kv_heads,
                group=llm.n_heads // llm.n_kv_heads,
            )
        )
        size = linked(
            st.segmented_control,
            tr("llm_explorer.gqa.bytes"),
            list(BYTES),
            default=BYTES[0],
            required=True,
            key="llm_bytes",
            format_func=bytes_label,
        )
        context = checked(
            st.slider,
            tr("llm_explorer.gqa.context"),
            256,
            llm.max_positions,
            2048,
            256,
            key="llm_context",
            bind="query-params",
        )
        state = GQAState(llm.name, size, int(context))
        publish_view(state)
        figure, cache = kv_cache(state, llm)  # its slide's too
        a, b = st.columns(2)
        a.metric(
            tr("llm_explorer.gqa.per_token"),
            cache.per_token[0],
            help=tr("llm_explorer.gqa.vs_mha", mha=cache.per_token[1]),
        )
        b.metric(
            tr("llm_explorer.gqa.at_context", n=cache.context),
            cache.at_context[0],
            help=tr("llm_explorer.gqa.vs_mha", mha=cache.at_context[1]),
        )
        st.caption(
            tr(
                "llm_explorer.gqa.formula",
                layers=llm.n_layers,
                kv=llm.n_kv_heads,
                dim=llm.head_dim,
                bytes=state.size,
                gqa=cache.gqa,
                heads=llm.n_heads,
                mha=cache.mha,
                share=cache.gqa / cache.mha,
            )
        )
        if window := cache.window_line(llm):
            st.caption(window)
    chart(figure, config=PLOT, where=left)


def rope_tab() -> None:
    half = llm.head_dim // 2
    c1, c2 = st.columns(2)
    pair = checked(c1.slider, tr("llm_explorer.rope.pair"), 0, half - 1, 0, key="llm_pair", bind="query-params")
    n = checked(c2.slider, tr("llm_explorer.rope.positions"), 4, 48, 16, key="llm_positions", bind="query-params")
    state = RopeState(llm.name, int(pair), int(n))
    publish_view(state)
    view = rope(state, llm)  # its slide's too
    left, right = st.columns(2)
    chart(view.pair, config=PLOT, where=left)
    left.caption(tr("llm_explorer.rope.theta", i=state.pair, theta=view.theta, wave=2 * np.pi / view.theta))
    chart(view.wavelengths, config=PLOT, where=right)
    st.markdown(tr("llm_explorer.rope.explain", dim=llm.head_dim, theta=llm.rope_theta, pairs=half, half=half))
    if bases := rope_bases(llm):
        st.caption(bases)
    chart(view.scores, config=PLOT)
    st.caption(tr("llm_explorer.rope.scores_explain", dim=llm.head_dim, err=view.err))


def heads_tab() -> None:
    type_col, options_col = st.columns([6, 1.4], vertical_alignment="bottom")
    head_type = linked(
        type_col.segmented_control,
        tr("llm_explorer.heads.kind"),
        list(HEAD_TYPES),
        default=HEAD_TYPES[0],
        required=True,
        key="llm_kind",
        format_func=lambda k: tr(f"llm_explorer.kind.{k}"),
    )
    with options_col.popover(tr("llm_explorer.options"), icon=":material/tune:", width="stretch"):
        text = checked(
            st.text_area,
            tr("llm_explorer.heads.text"),
            HEADS_TEXT,
            max_chars=4000,
            key="llm_heads_text",
            bind="query-params",
        )
        period = checked(st.slider, tr("llm_explorer.heads.period"), 10, 200, 50, key="llm_period", bind="query-params")
        seed = checked(
            st.number_input, tr("llm_explorer.heads.seed"), 0, 10_000, 0, key="llm_heads_seed", bind="query-params"
        )
    state = HeadTypesState(llm.name, head_type, text, int(period), int(seed))
    publish_view(state)
    if len(state.text.split()) < 2:
        st.warning(tr("llm_explorer.empty_prompt"))
        return
    scores = score_heads(state)  # its slide's too
    best = scores.best(state.head_type, 5)
    main, side = st.columns([3, 1.2])
    chart(heads_figure(scores, state.head_type), config=PLOT, where=main)
    with side:
        st.caption(tr("llm_explorer.heads.best"))
        st.dataframe(
            {
                tr("llm_explorer.col.layer"): [b[0] + 1 for b in best],
                tr("llm_explorer.col.head"): [b[1] + 1 for b in best],
                tr("llm_explorer.col.score"): [round(b[2], 3) for b in best],
            },
            hide_index=True,
        )
        st.markdown(tr(f"llm_explorer.explain.{state.head_type}", n=state.period))
    if state.head_type == "sink":
        st.caption(tr("llm_explorer.heads.per_layer"))
        st.bar_chart(
            {
                tr("llm_explorer.col.layer"): list(range(1, llm.n_layers + 1)),
                tr("llm_explorer.col.score"): scores.sink.mean(axis=1).round(3),
            },
            x=tr("llm_explorer.col.layer"),
            y=tr("llm_explorer.col.score"),
            height=220,
        )
    with st.expander(tr("llm_explorer.heads.tokens")):
        st.text(" ".join(visible(scores.text_tokens)))
        st.text(" ".join(visible(scores.induction_tokens)))


opened = topic_tabs(TOPICS, [generation_tab, translation_tab, gqa_tab, rope_tab, heads_tab])
st.caption(
    tr(
        "llm_explorer.summary",
        layers=llm.n_layers,
        heads=llm.n_heads,
        kv=llm.n_kv_heads,
        dim=llm.head_dim,
        hidden=llm.hidden,
        theta=llm.rope_theta,
        load=llm.load_seconds,
    )
)
if (bases := rope_bases(llm)) and opened != "llm_explorer.tab.rope":  # the RoPE tab says it already
    st.caption(bases)
