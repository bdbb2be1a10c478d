"""BERT masking: WordPiece, segments and positions, the 15% / 80-10-10 masking, predictions,
attention around [MASK]/[CLS]/[SEP], next-sentence prediction, heads on the frozen encoder and
full fine-tuning beside them."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ui.frame import page_frame
from ui.i18n import figure_texts, tr

page_frame(tr("nav.7"), icon="🎭", intro=tr("masking.intro"))

from corpora.masking import RULES  # noqa: E402
from models.inference.bert import answer_span  # noqa: E402
from ui.bert import (  # noqa: E402
    RULE_LABELS,
    click_key,
    clickable,
    embedding_check,
    example_pairs,
    first_pair,
    follow_language,
    explain_embedding,
    explain_loss,
    explain_masking,
    explain_nsp,
    explain_pieces,
    explain_special_attention,
    fine_tuning_note,
    finetuned_view,
    head_label,
    held_out_pairs,
    input_notes,
    keep_clicks,
    legend_chips,
    linked_clicks,
    linked_masking_settings,
    linked_model,
    load_small_bert,
    masked_lm_choices,
    masking_chips,
    masking_stats,
    masking_stats_caption,
    predictions_caption,
    masking_summary,
    model_language,
    model_summary,
    outcome_labels,
)
from ui.deck import publish_view  # noqa: E402
from ui.cells import bert_heads_chart, finetuned_cells  # noqa: E402
from ui.export import PLOT, export_menu  # noqa: E402
from ui.plot import chart  # noqa: E402
from ui.quiz import HIDDEN, masked_quiz, quiz_toggle  # noqa: E402
from ui.state import at_most, checked, linked, increment, many, number_in, topic_tabs, url_check  # noqa: E402
from ui.state import labels as url_labels  # noqa: E402
from ui.table import table  # noqa: E402
from ui.tokens import md_escape  # noqa: E402
from ui.views.bert import (  # noqa: E402
    PAGE_ROWS,
    FinetuneState,
    MaskingState,
    analysis_of,
    predicted_rows,
    predictions_view,
)
from viz_core.attention_grid import grid_payload  # noqa: E402
from viz_core.bert import (  # noqa: E402
    attention_share_figure,
    class_figure,
    embedding_sum_figure,
    masking_stats_figure,
    pieces_table,
    predictions_table,
    span_figure,
    special_attention_figure,
    tag_figure,
    token_groups,
)

model_labels = masked_lm_choices()  # shipped checkpoints, then this session's studio runs ("Your run: …")
model_names = list(model_labels)
model_name = linked_model(model_names, model_labels.get)  # read here, before its selectbox is drawn below
loaded = load_small_bert(model_name)
if isinstance(loaded, str):
    st.error(loaded)
    st.stop()
cfg, training = loaded.config, loaded.training

# ---------- Input --------------------------------------------------------------
lang = model_language(model_name)  # a Chinese masked LM starts from Chinese text, its examples Chinese
default_pair = first_pair(lang)
examples = [default_pair, *example_pairs(lang)]


def _use_example() -> None:
    pick = st.session_state.get("bert_example")
    if isinstance(pick, int) and 0 <= pick < len(examples):  # a crafted client may send anything
        st.session_state["bert_a"], st.session_state["bert_b"] = examples[pick]


url_check("bert_a", at_most(10_000), tr("masking.url.a"), tr("masking.url.cut"))
url_check("bert_b", at_most(10_000), tr("masking.url.b"), tr("masking.url.cut"))
seed, draw, rule = linked_masking_settings()  # read here, before their widgets are drawn below
text_col, b_col, options_col = st.columns([4, 4, 1.6], vertical_alignment="bottom")
# The classic pair is the widgets' default, so any other text, an empty B included, is in the link
# (``?bert_b=``: one segment); a text equal to its default is left out of it.
text_a = text_col.text_input(tr("masking.a"), default_pair[0], key="bert_a", max_chars=10_000, bind="query-params")
text_b = b_col.text_input(tr("masking.b"), default_pair[1], key="bert_b", max_chars=10_000, bind="query-params")
with options_col.popover(tr("masking.masking"), icon=":material/tune:", width="stretch"):
    linked(
        st.selectbox,
        tr("masking.model"),
        model_names,
        format_func=model_labels.get,
        key="bert_model",
        help=tr("masking.model_help"),
        on_change=follow_language,
    )
    checked(
        st.selectbox,
        tr("masking.example_zh" if lang == "zh" else "masking.example"),
        range(len(examples)),
        format_func=lambda i: f"{examples[i][0][:70]} | {examples[i][1][:40]}",
        index=None,
        key="bert_example",
        on_change=_use_example,
        placeholder=tr("masking.example_placeholder"),
    )
    linked(st.radio, tr("masking.rule"), list(RULES), format_func=RULE_LABELS.get, key="bert_rule")
    st.number_input(tr("masking.seed"), min_value=0, max_value=10**9, step=1, key="bert_seed", bind="query-params")
    st.button(
        tr("masking.resample"),
        key="bert_resample",
        icon=":material/casino:",
        on_click=increment,
        args=("bert_seed",),
        help=tr("masking.resample_help"),
    )
    st.toggle(tr("masking.draw"), value=True, key="bert_draw", bind="query-params", help=tr("masking.draw_help"))
    quiz = quiz_toggle("bert")

state = MaskingState(model_name, text_a or "", text_b or "", seed, draw, rule)  # what a link and a slide hold
publish_view(state)
if not state.text_a.strip():
    st.warning(tr("masking.empty"))
    st.stop()

clicked_key = click_key(state.text_a, state.text_b, state.model)
url_check(clicked_key, many(range(cfg.max_len)), tr("masking.pills"), url=False)  # read before its pills are drawn
linked_clicks(clicked_key, clickable(state.model, state.text_a, state.text_b))  # the link's clicks (bert_clicked=3,7)
state = replace(state, clicked=tuple(sorted(st.session_state.get(clicked_key) or ())))
publish_view(state)
keep_clicks(state.clicked)  # in the link, so that a link or a slide masks them too
result = analysis_of(state)  # its slide's too
tokens = result.tokens
n = len(tokens)

input_notes(result, cfg.max_len)
masked, plain = result.masked, result.plain  # the corrupted input's run, and the plain input's


def predictions_section() -> None:
    """The corrupted input, the pieces to click, and what the model predicts at every chosen position.
    A click on a piece reruns this section alone, on the input masked with the pieces now chosen."""
    chosen = tuple(sorted(st.session_state.get(clicked_key) or ()))
    view = replace(state, clicked=chosen)
    publish_view(view)  # the pills are this fragment's
    current = result if view == state else analysis_of(view)
    outcome_names = outcome_labels(current.outcome, chosen)
    chips = st.container()
    eligible = [i for i in range(n) if not current.special[i]]
    rows = predicted_rows(current, chosen)
    # Quiz: each [MASK]'s original piece and the predictions stay hidden until guessed (ui.quiz).
    hidden = masked_quiz("bert", (tuple(tokens), tuple(current.input_tokens)), rows) if quiz else set()
    with chips:
        masking_chips(
            [HIDDEN if i in hidden else tok for i, tok in enumerate(tokens)],
            current.input_tokens,
            outcome_names,
            current.segment_ids.tolist(),
        )
    if not rows:
        st.info(tr("masking.none_chosen", n=len(eligible), p=0.85 ** len(eligible)))
    elif not hidden:
        chart(predicted := predictions_view(rows), key="bert_predictions", config=PLOT)
        predictions_caption(rows, cfg.vocab_size, state.text_b)
        if len(rows) > PAGE_ROWS:
            st.caption(tr("masking.first16", rows=len(rows)))
    legend_chips()
    keep_clicks(
        checked(
            st.pills,
            tr("masking.pills"),
            eligible,
            selection_mode="multi",
            key=clicked_key,
            format_func=lambda i: f"{i} {tokens[i]}",
        )
        or ()
    )
    masking_summary(current.outcome, len(eligible), state.seed, len(chosen))
    if rows and not hidden:
        with st.expander(tr("masking.table")):
            table(predictions_table(rows, texts=figure_texts()), key="bert_predictions_table")
    export_menu(
        "bert-masking",
        title=tr("masking.export.title"),
        source=f"A: {state.text_a}\nB: {state.text_b}",
        trace=current,
        figures={tr("masking.export.predictions"): predicted} if rows and not hidden else {},
        numbers={
            tr("num.pieces"): n,
            tr("num.seed"): state.seed,
            tr("num.rule"): state.rule,
            tr("num.chosen"): len(rows),
            tr("num.top1"): sum(r.original_rank == 0 for r in rows),
        },
    )
    with st.expander(tr("masking.about")):
        model_summary(cfg, training)


def masking_section() -> None:
    """Section 2 of the paper's pre-training: 15% chosen, then 80% [MASK], 10% random, 10% kept."""
    st.subheader(tr("masking.mask.header"))
    explain_masking(state.rule)
    stats = masking_stats(tuple(bool(s) for s in result.special.tolist()), 10_000, state.seed, state.rule)
    chart(
        masking_stats_figure(
            stats.chosen_rate,
            stats.mask_share,
            stats.random_share,
            stats.kept_share,
            title=tr("masking.fig.stats", n=stats.totals["eligible"]),
            texts=figure_texts(),
        ),
        key="bert_stats",
        config=PLOT,
    )
    masking_stats_caption(stats, state.rule)


def pieces_section() -> None:
    """WordPiece pieces, segments, positions and the input embedding."""
    st.subheader(tr("masking.pieces.header"))
    explain_pieces()
    masking_chips(tokens, tokens, ["not chosen"] * n, result.segment_ids.tolist())
    with st.expander(tr("masking.pieces.table")):
        st.dataframe(
            pieces_table(tokens, result.ids.tolist(), result.segment_ids.tolist(), texts=figure_texts()),
            hide_index=True,
        )

    explain_embedding()
    url_check(
        "bert_embed_pos",
        url_labels(range(n), lambda i: f"{i} · {tokens[i]}"),
        tr("masking.url.piece"),
        tr("masking.url.piece1"),
    )
    pos = linked(
        st.selectbox,
        tr("masking.piece"),
        range(n),
        index=min(1, n - 1),
        key="bert_embed_pos",
        format_func=lambda i: f"{i} · {tokens[i]}",
    )
    chart(
        embedding_sum_figure(
            plain.token_emb[pos],
            plain.segment_emb[pos],
            plain.position_emb[pos],
            plain.embedding_sum[pos],
            plain.embedding[pos],
            tokens[pos],
            int(result.segment_ids[pos]),
            pos,
            title=tr("masking.fig.embedding", pos=pos, d=cfg.d_model),
            texts=figure_texts(),
        ),
        key="bert_embedding",
        config=PLOT,
    )
    embedding_check(plain)


def attention_section() -> None:
    """Attention to and from [MASK], [CLS] and [SEP], every layer and head."""
    st.subheader(tr("masking.att.header"))
    att = masked.attention  # (layers, heads, L, L) on the corrupted input
    specials = [i for i in range(n) if result.input_tokens[i] in ("[CLS]", "[SEP]", "[MASK]")]
    url_check(
        "bert_focus",
        url_labels(specials, lambda i: f"{result.input_tokens[i]} · {i}", optional=True),
        tr("masking.url.token"),
        result.input_tokens[specials[0]],
    )
    focus = linked(
        st.segmented_control,
        tr("masking.token"),
        specials,
        default=specials[0],
        key="bert_focus",
        format_func=lambda i: f"{result.input_tokens[i]} · {i}",
    )
    focus = specials[0] if focus is None else focus
    words = figure_texts()
    bert_heads_chart(
        special_attention_figure(
            att,
            result.input_tokens,
            focus,
            "from",
            title=tr("masking.fig.from", token=result.input_tokens[focus], pos=focus),
            texts=words,
        ),
        "bert_from",
        att,
        state.model,
        result.input_ids,
        result.segment_ids,
        result.input_tokens,
        focus,
        "from",
    )
    bert_heads_chart(
        special_attention_figure(
            att,
            result.input_tokens,
            focus,
            "to",
            title=tr("masking.fig.to", token=result.input_tokens[focus], pos=focus),
            texts=words,
        ),
        "bert_to",
        att,
        state.model,
        result.input_ids,
        result.segment_ids,
        result.input_tokens,
        focus,
        "to",
    )
    chart(
        attention_share_figure(att, token_groups(result.input_tokens), title=tr("masking.fig.share"), texts=words),
        key="bert_share",
        config=PLOT,
    )
    explain_special_attention()
    with st.expander(tr("masking.grid")):
        payload = grid_payload(att, result.input_tokens, max_thumb=96, min_thumb=96)
        chart(payload.figure(texts=words), key="bert_grid", config=PLOT)
        st.caption(tr("masking.grid_caption"))


def next_sentence_section() -> None:
    """Next-sentence prediction on the user's pair and on held-out pairs."""
    st.subheader(tr("masking.nsp.header"))
    explain_nsp()
    if "nsp" not in cfg.trained_heads:  # e.g. minilm-mlm: only its masked-LM head was trained
        st.warning(tr("masking.nsp.untrained", model=md_escape(state.model)))
        return
    if state.text_b.strip():
        st.metric(tr("masking.nsp.yours"), f"{plain.p_is_next:.1%}")
    else:
        st.caption(tr("masking.nsp.type_b"))
    st.button(
        tr("masking.nsp.draw"),
        key="bert_nsp_draw",
        on_click=increment,
        args=("bert_nsp_seed",),
        icon=":material/casino:",
    )
    url_check("bert_nsp_seed", number_in(0, 2**32 - 1), tr("masking.nsp.draw"), url=False)
    held_out_pairs(int(st.session_state.get("bert_nsp_seed", 0)), training, model_name)


def fine_tuning_section() -> None:
    """Output heads on the frozen encoder (§5.3), then every parameter fine-tuned (§4) beside them."""
    st.subheader(tr("masking.ft.header"))
    st.markdown(tr("masking.ft.intro"))
    heads = training.get("heads", {})
    words = figure_texts()
    f1, f2, f3 = st.tabs([tr("masking.ft.class"), tr("masking.ft.tag"), tr("masking.ft.span")])
    with f1:
        ok = fine_tuning_note("classifier", cfg, heads)
        chart(
            class_figure(
                [head_label(c) for c in cfg.class_labels],
                plain.class_probs.tolist(),
                ok,
                title=tr("masking.fig.class"),
                texts=words,
            ),
            key="bert_class",
            config=PLOT,
        )
    with f2:
        ok = fine_tuning_note("tagger", cfg, heads)
        tag = head_label(cfg.tag_labels[-1])
        chart(
            tag_figure(tokens, plain.tag_probs[:, -1], tag, ok, title=tr("masking.fig.tag", tag=tag)),
            key="bert_tags",
            config=PLOT,
        )
    with f3:
        fine_tuning_note("span", cfg, heads)
        i, j = answer_span(result, bool(state.text_b.strip()))
        chart(
            span_figure(tokens, plain.span_start, plain.span_end, (i, j), title=tr("masking.fig.span"), texts=words),
            key="bert_span",
            config=PLOT,
        )
        if i >= 0:
            st.caption(tr("masking.span", i=i, j=j))
    st.divider()
    finetuned_view(lambda model, task: publish_view(FinetuneState(model, task)), finetuned_cells)
    st.divider()
    explain_loss()


topic_tabs(
    [f"masking.tab.{name}" for name in ("predictions", "masking", "pieces", "attention", "nsp", "finetune")],
    [
        predictions_section,
        masking_section,
        pieces_section,
        attention_section,
        next_sentence_section,
        fine_tuning_section,
    ],
)
