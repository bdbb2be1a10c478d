"""BERT masking: WordPiece, segments and positions, the 15% / 80-10-10 masking, predictions,
attention around [MASK]/[CLS]/[SEP], next-sentence prediction and fine-tuning heads."""
from __future__ import annotations

import numpy as np
import streamlit as st

from ui.frame import page_frame

page_frame(
    "BERT masking",
    icon="🎭",
    intro="BERT (Devlin et al. 2019) learns by filling in blanks: 15% of the pieces are hidden or "
    "disturbed and the model must say what was there, reading the whole sentence in both directions. "
    "A second task asks whether sentence B really follows sentence A. Everything below runs on a small "
    "BERT this project pre-trained on the World English Bible.",
)

from corpora.masking import NOT_CHOSEN, RULES  # noqa: E402
from models.inference.bert import answer_span  # noqa: E402
from ui.bert import (  # noqa: E402
    SMALL_BERT, analyse, click_key, embedding_check, example_pairs, explain_embedding, explain_loss,
    explain_masking, explain_nsp, explain_pieces, explain_special_attention, fine_tuning_note, held_out_pairs,
    input_notes, legend_chips, linked_masking_settings, load_small_bert, masking_chips, masking_stats, masking_stats_caption,
    masking_summary, model_summary, outcome_labels,
)
from ui.export import PLOT, export_menu  # noqa: E402
from ui.state import at_most, increment, url_check  # noqa: E402
from ui.state import labels as url_labels  # noqa: E402
from viz_core.attention_grid import grid_payload  # noqa: E402
from viz_core.bert import (  # noqa: E402
    attention_share_figure, class_figure, embedding_sum_figure, masking_stats_figure, pieces_table,
    prediction_rows, predictions_figure, predictions_table, span_figure, special_attention_figure, tag_figure,
    token_groups,
)

loaded = load_small_bert()
if isinstance(loaded, str):
    st.error(loaded)
    st.stop()
cfg, training = loaded.config, loaded.training

# ---------- Input --------------------------------------------------------------
DEFAULT = ("The man went to the store.", "He bought a gallon of milk.")  # the example of §3.1
if "bert_a" not in st.session_state:
    st.session_state["bert_a"], st.session_state["bert_b"] = DEFAULT
examples = [DEFAULT, *example_pairs()]


def _use_example() -> None:
    pick = st.session_state.get("bert_example")
    if pick is not None:
        st.session_state["bert_a"], st.session_state["bert_b"] = examples[pick]


url_check("bert_a", at_most(10_000), "sentence A", "its first 10,000 characters")
url_check("bert_b", at_most(10_000), "sentence B", "its first 10,000 characters")
seed, draw, rule = linked_masking_settings()  # read here, before their widgets are drawn below
left, right = st.columns([3, 2])
with left:
    st.selectbox("Pick an example (held-out chapters, never seen in training)", range(len(examples)),
                 format_func=lambda i: f"{examples[i][0][:70]} | {examples[i][1][:40]}", index=None,
                 key="bert_example", on_change=_use_example, placeholder="Examples …")
    text_a = st.text_area("Sentence A", key="bert_a", height=80, max_chars=10_000, bind="query-params")
    text_b = st.text_input("Sentence B (optional: leave empty for one segment)", key="bert_b", max_chars=10_000,
                           bind="query-params")
with right:
    model_summary(cfg, training)

if not (text_a or "").strip():
    st.warning("Sentence A is empty: type a sentence (and optionally a second one) to see how BERT reads it.")
    st.stop()

clicked_key = click_key(text_a, text_b)
clicked = tuple(sorted(st.session_state.get(clicked_key) or ()))
result = analyse(SMALL_BERT, text_a, text_b or "", seed, draw, clicked, rule)
tokens = result.tokens
n = len(tokens)

input_notes(result, cfg.max_len)

# ---------- 1. Tokens, segments, positions, embeddings -------------------------
st.subheader("1 · WordPiece pieces, segments and positions")
explain_pieces()
masking_chips(tokens, tokens, ["not chosen"] * n, result.segment_ids.tolist())
with st.expander("The same as a table (piece, id, segment, position)"):
    st.dataframe(pieces_table(tokens, result.ids.tolist(), result.segment_ids.tolist()), hide_index=True)

explain_embedding()
url_check("bert_embed_pos", url_labels(range(n), lambda i: f"{i} · {tokens[i]}"), "piece", "piece 1")
pos = st.selectbox("Piece to decompose", range(n), index=min(1, n - 1), key="bert_embed_pos",
                   format_func=lambda i: f"{i} · {tokens[i]}", bind="query-params")
plain = result.plain
st.plotly_chart(embedding_sum_figure(plain.token_emb[pos], plain.segment_emb[pos], plain.position_emb[pos],
                                     plain.embedding_sum[pos], plain.embedding[pos], tokens[pos],
                                     int(result.segment_ids[pos]), pos,
                                     title=f"Piece {pos}: token + segment + position = sum, over {cfg.d_model} dimensions"),
                key="bert_embedding", config=PLOT)
embedding_check(plain)

# ---------- 2. Masking ---------------------------------------------------------
st.subheader("2 · Masking: 15% chosen, then 80% [MASK], 10% random, 10% kept")
explain_masking(rule)
st.radio("Masking rule", list(RULES), format_func=RULES.get, key="bert_rule", horizontal=True, bind="query-params")
c1, c2, c3 = st.columns([1, 1, 2])
c1.number_input("Seed", min_value=0, max_value=10**9, step=1, key="bert_seed", bind="query-params")
c2.button("Resample", key="bert_resample", icon=":material/casino:", on_click=increment, args=("bert_seed",),
          help="Draw again with the next seed")
c3.toggle("Random 15% draw", value=True, key="bert_draw", bind="query-params", help="Off: only the pieces you click are masked")
legend_chips()
outcome_names = outcome_labels(result.outcome, clicked)
masking_chips(tokens, result.input_tokens, outcome_names, result.segment_ids.tolist())
eligible = [i for i in range(n) if not result.special[i]]
st.pills("Click any piece to mask it", eligible, selection_mode="multi", key=clicked_key,
         format_func=lambda i: f"{i} {tokens[i]}", help="Clicked pieces always become [MASK]")
masking_summary(result.outcome, len(eligible), seed, len(clicked))

stats = masking_stats(tuple(bool(s) for s in result.special.tolist()), 10_000, seed, rule)
st.plotly_chart(masking_stats_figure(stats.chosen_rate, stats.mask_share, stats.random_share, stats.kept_share,
                                     title=f"10,000 draws on this input ({stats.totals['eligible']:,} eligible pieces)"),
                key="bert_stats", config=PLOT)
masking_stats_caption(stats, rule)

# ---------- 3. Predictions -----------------------------------------------------
st.subheader("3 · What the model predicts at every chosen position")
masked = result.masked
rows = prediction_rows(np.flatnonzero(result.outcome != NOT_CHOSEN), tokens, result.input_tokens, outcome_names,
                       result.top_tokens, masked.top_probs, masked.target_probs, masked.target_rank)
if not rows:
    st.info(f"No piece was chosen in this draw (this happens with probability 0.85^{len(eligible)} = "
            f"{0.85 ** len(eligible):.1%}). Resample, or click a piece above to mask it.")
else:
    hits = sum(r.original_rank == 0 for r in rows)
    st.markdown(f"The model reads the corrupted input and predicts a distribution over all {cfg.vocab_size:,} "
                f"pieces at each chosen position — **{hits} of {len(rows)}** right at top-1. Green bar: the "
                "original piece. It must predict it even where it was *kept* or replaced by a *random* piece.")
    st.plotly_chart(predicted := predictions_figure(rows[:16]), key="bert_predictions", config=PLOT)
    if len(rows) > 16:
        st.caption(f"The first 16 of {len(rows)} chosen positions are drawn; the table has them all.")
    st.dataframe(predictions_table(rows), hide_index=True)
export_menu("bert-masking", title="BERT masking", source=f"A: {text_a}\nB: {text_b or ''}", trace=result,
            figures={"Predictions": predicted} if rows else {}, numbers={"Pieces": n, "Seed": seed, "Rule": rule,
            "Chosen": len(rows), "Top-1 right": sum(r.original_rank == 0 for r in rows)})

# ---------- 4. Attention around special tokens ---------------------------------
st.subheader("4 · Attention to and from [MASK], [CLS] and [SEP], every layer and head")
att = masked.attention  # (layers, heads, L, L) on the corrupted input
specials = [i for i in range(n) if result.input_tokens[i] in ("[CLS]", "[SEP]", "[MASK]")]
url_check("bert_focus", url_labels(specials, lambda i: f"{result.input_tokens[i]} · {i}"), "token",
          result.input_tokens[specials[0]])
focus = st.segmented_control("Token", specials, default=specials[0], key="bert_focus", bind="query-params",
                             format_func=lambda i: f"{result.input_tokens[i]} · {i}")
focus = specials[0] if focus is None else focus
st.plotly_chart(special_attention_figure(att, result.input_tokens, focus, "from",
                                         title=f"From {result.input_tokens[focus]} at {focus}: where it looks "
                                               "(each row sums to 1)"),
                key="bert_from", config=PLOT)
st.plotly_chart(special_attention_figure(att, result.input_tokens, focus, "to",
                                         title=f"To {result.input_tokens[focus]} at {focus}: how much each piece "
                                               "gives it"),
                key="bert_to", config=PLOT)
st.plotly_chart(attention_share_figure(att, token_groups(result.input_tokens),
                                       title="Share of all attention landing on each kind of token"),
                key="bert_share", config=PLOT)
explain_special_attention()
with st.expander("Every head's full attention matrix (layers × heads)"):
    payload = grid_payload(att, result.input_tokens, max_thumb=96, min_thumb=96)
    st.plotly_chart(payload.figure(), key="bert_grid", config=PLOT)
    st.caption("Each thumbnail: rows are queries, columns keys, in token order; the one 0–1 scale (weight 1 = darkest).")

# ---------- 5. Next sentence ---------------------------------------------------
st.subheader("5 · Next-sentence prediction")
explain_nsp()
if (text_b or "").strip():
    st.metric("Your pair: P(B follows A)", f"{plain.p_is_next:.1%}")
else:
    st.caption("Type a sentence B above to score your own pair.")
st.button("Draw other pairs", key="bert_nsp_draw", on_click=increment, args=("bert_nsp_seed",),
          icon=":material/casino:")
held_out_pairs(int(st.session_state.get("bert_nsp_seed", 0)), training)

# ---------- 6. Fine-tuning -----------------------------------------------------
st.subheader("6 · How BERT is fine-tuned: one small head on top")
st.markdown("Fine-tuning adds one layer on top of the pre-trained encoder and trains it on labelled "
            "examples (§4). Shown here on this model and on your input above:")
heads = training.get("heads", {})
f1, f2, f3 = st.tabs(["Sentence classification ([CLS])", "Token tagging (every piece)", "Answer span (start/end)"])
with f1:
    ok = fine_tuning_note("classifier", cfg, heads)
    st.plotly_chart(class_figure(cfg.class_labels, plain.class_probs.tolist(), ok,
                                 title="Your input: P(class) from [CLS]"), key="bert_class", config=PLOT)
with f2:
    ok = fine_tuning_note("tagger", cfg, heads)
    st.plotly_chart(tag_figure(tokens, plain.tag_probs[:, -1], cfg.tag_labels[-1], ok,
                               title=f"Your input: P({cfg.tag_labels[-1]}) per piece"), key="bert_tags", config=PLOT)
with f3:
    fine_tuning_note("span", cfg, heads)
    i, j = answer_span(result, bool((text_b or "").strip()))
    st.plotly_chart(span_figure(tokens, plain.span_start, plain.span_end, (i, j),
                                title="Start and end scores per piece; shaded: the highest-scoring span"),
                    key="bert_span", config=PLOT)
    if i >= 0:
        st.caption(f"Highest-scoring span: pieces {i}–{j}.")

st.divider()
explain_loss()
