"""BERT masking: WordPiece, segments and positions, the 15% / 80-10-10 masking, predictions,
attention around [MASK]/[CLS]/[SEP], next-sentence prediction and fine-tuning heads."""
from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
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

from corpora.masking import KEPT, MASKED, NOT_CHOSEN, OUTCOME_NAMES, RANDOM  # noqa: E402
from ui.bert import (  # noqa: E402
    SMALL_BERT, analyse, example_pairs, legend_chips, load_small_bert, masking_chips, masking_stats, md_escape,
    nsp_examples,
)
from viz_core.attention_grid import grid_payload  # noqa: E402
from viz_core.bert import (  # noqa: E402
    PredictionRow, attention_share_figure, class_figure, embedding_sum_figure, masking_stats_figure, nsp_figure,
    predictions_figure, span_figure, special_attention_figure, tag_figure,
)

PLOT = {"displaylogo": False}
loaded = load_small_bert()
if isinstance(loaded, str):
    st.error(loaded)
    st.stop()
cfg, training = loaded.config, loaded.training

# ------------------------------------------------------------------------------------
# Input
# ------------------------------------------------------------------------------------
DEFAULT = ("The man went to the store.", "He bought a gallon of milk.")  # the example of §3.1
if "bert_a" not in st.session_state:
    st.session_state["bert_a"], st.session_state["bert_b"] = DEFAULT
examples = [DEFAULT, *example_pairs()]


def _use_example() -> None:
    pick = st.session_state.get("bert_example")
    if pick is not None:
        st.session_state["bert_a"], st.session_state["bert_b"] = examples[pick]


left, right = st.columns([3, 2])
with left:
    st.selectbox("Pick an example (held-out chapters, never seen in training)", range(len(examples)),
                 format_func=lambda i: f"{examples[i][0][:70]} | {examples[i][1][:40]}", index=None,
                 key="bert_example", on_change=_use_example, placeholder="Examples …")
    text_a = st.text_area("Sentence A", key="bert_a", height=80, max_chars=10_000)
    text_b = st.text_input("Sentence B (optional: leave empty for one segment)", key="bert_b", max_chars=10_000)
with right:
    st.markdown(f"**Model:** {training.get('label', SMALL_BERT)} — WordPiece vocabulary of {cfg.vocab_size:,} "
                f"pieces, at most {cfg.max_len} pieces per input.")
    held = training.get("heldout", {})
    if held:
        st.markdown(f"**On held-out chapters:** the original piece is the top prediction at "
                    f"**{held['mlm_top1']:.1%}** of the chosen positions and among the top 5 at "
                    f"**{held['mlm_top5']:.1%}**; next sentence right on **{held['nsp_accuracy']:.1%}** of "
                    "pairs (chance 50%).")
        st.caption(f"Pre-trained for {training.get('seconds', '?')} s ({training.get('steps', '?')} steps) "
                   f"by `{training.get('command', 'python -m models.train --preset bert-small')}`.")

if not (text_a or "").strip():
    st.warning("Sentence A is empty: type a sentence (and optionally a second one) to see how BERT reads it.")
    st.stop()

seed = int(st.session_state.get("bert_seed", 0))
draw = bool(st.session_state.get("bert_draw", True))
clicked_key = f"bert_click_{zlib.crc32(repr((text_a, text_b)).encode('utf-8', 'replace'))}"
clicked = tuple(sorted(st.session_state.get(clicked_key) or ()))
result = analyse(SMALL_BERT, text_a, text_b or "", seed, draw, clicked)
tokens = result.tokens
n = len(tokens)

if result.dropped:
    st.warning(f"The input is longer than the {cfg.max_len} pieces this model reads: {result.dropped} pieces were "
               "cut, longest segment first (as BERT truncates pairs).")
if result.n_unknown:
    st.info(f"{result.n_unknown} piece(s) are [UNK]: characters the WordPiece vocabulary never saw "
            "(emoji, Chinese, most symbols). The model reads them all as the same unknown piece.")

# ------------------------------------------------------------------------------------
# 1. Tokens, segments, positions, embeddings
# ------------------------------------------------------------------------------------
st.subheader("1 · WordPiece pieces, segments and positions")
st.markdown("The text is lower-cased and split into words, then each word into the longest pieces of the "
            "vocabulary; a piece that continues a word starts with **##**. `[CLS]` opens the input, `[SEP]` "
            "closes each segment. Under each piece: its **position** and its **segment** (A or B).")
masking_chips(tokens, tokens, ["not chosen"] * n, result.segment_ids.tolist())
with st.expander("The same as a table (piece, id, segment, position)"):
    st.dataframe({"position": list(range(n)), "piece": tokens, "id": result.ids.tolist(),
                  "segment": ["AB"[s] for s in result.segment_ids.tolist()],
                  "continues a word (##)": [t.startswith("##") for t in tokens]}, hide_index=True)

st.markdown("**The input embedding** of each piece is the sum of three learned vectors — its token, its segment "
            "and its position — followed by LayerNorm:")
st.latex(r"E_i \;=\; \mathrm{LayerNorm}\big(E_{\text{token}}[x_i] + E_{\text{segment}}[s_i] + E_{\text{position}}[i]\big)")
pos = st.selectbox("Piece to decompose", range(n), index=min(1, n - 1), key="bert_embed_pos",
                   format_func=lambda i: f"{i} · {tokens[i]}")
plain = result.plain
st.plotly_chart(embedding_sum_figure(plain.token_emb[pos], plain.segment_emb[pos], plain.position_emb[pos],
                                     plain.embedding_sum[pos], plain.embedding[pos], tokens[pos],
                                     int(result.segment_ids[pos]), pos,
                                     title=f"Piece {pos}: token + segment + position = sum, over {cfg.d_model} dimensions"),
                key="bert_embedding", config=PLOT)
err = float(np.abs(plain.token_emb + plain.segment_emb + plain.position_emb - plain.embedding_sum).max())
st.caption(f"Largest difference between the drawn sum and the model's own sum over all pieces: {err:.1e} "
           "(blue negative, red positive).")

# ------------------------------------------------------------------------------------
# 2. Masking
# ------------------------------------------------------------------------------------
st.subheader("2 · Masking: 15% chosen, then 80% [MASK], 10% random, 10% kept")
st.markdown("Each piece except `[CLS]`/`[SEP]` is **chosen** with probability 15%. A chosen piece becomes "
            "`[MASK]` (80%), a random piece (10%) or stays as it is (10%) — so the model cannot rely on "
            "seeing `[MASK]`, and must keep a good representation of every piece. It is asked for the "
            "original piece at every chosen position.")


def _resample() -> None:
    st.session_state["bert_seed"] = int(st.session_state.get("bert_seed", 0)) + 1


c1, c2, c3 = st.columns([1, 1, 2])
c1.number_input("Seed", min_value=0, max_value=10**9, step=1, key="bert_seed")
c2.button("Resample", key="bert_resample", icon=":material/casino:", on_click=_resample, help="Draw again with the next seed")
c3.toggle("Random 15% draw", value=True, key="bert_draw", help="Off: only the pieces you click are masked")
legend_chips()
outcome_names = []
for i, o in enumerate(result.outcome.tolist()):
    outcome_names.append("clicked" if i in clicked and o == MASKED else OUTCOME_NAMES[o])
masking_chips(tokens, result.input_tokens, outcome_names, result.segment_ids.tolist())
eligible = [i for i in range(n) if not result.special[i]]
st.pills("Click any piece to mask it", eligible, selection_mode="multi", key=clicked_key,
         format_func=lambda i: f"{i} {tokens[i]}", help="Clicked pieces always become [MASK]")
counts = {name: int((result.outcome == k).sum()) for k, name in ((MASKED, "[MASK]"), (RANDOM, "random"), (KEPT, "kept"))}
n_chosen = sum(counts.values())
st.markdown(f"**This draw (seed {seed}):** {n_chosen} of {len(eligible)} eligible pieces chosen — "
            f"{counts['[MASK]']} → [MASK], {counts['random']} → random, {counts['kept']} kept"
            + (f" ({len(clicked)} clicked)" if clicked else "") + ".")

stats = masking_stats(tuple(bool(s) for s in result.special.tolist()), 10_000, seed)
final = stats.final()
st.plotly_chart(masking_stats_figure(stats.chosen_rate, stats.mask_share, stats.random_share, stats.kept_share,
                                     title=f"10,000 draws on this input ({stats.totals['eligible']:,} eligible pieces)"),
                key="bert_stats", config=PLOT)
se = np.sqrt(0.15 * 0.85 / max(stats.totals["eligible"], 1))
st.caption(f"After 10,000 draws: chosen {final['chosen']:.2%} (target 15%, standard error {se:.2%}); of the chosen, "
           f"[MASK] {final['[MASK]']:.2%}, random {final['random']:.2%}, kept {final['kept']:.2%} (targets 80/10/10).")

# ------------------------------------------------------------------------------------
# 3. Predictions
# ------------------------------------------------------------------------------------
st.subheader("3 · What the model predicts at every chosen position")
chosen = np.flatnonzero(result.outcome != NOT_CHOSEN)
masked = result.masked
rows = [PredictionRow(position=int(i), original=tokens[i], shown=result.input_tokens[i], outcome=outcome_names[i],
                      top_tokens=result.top_tokens[i], top_probs=masked.top_probs[i].tolist(),
                      original_prob=float(masked.target_probs[i]), original_rank=int(masked.target_rank[i]))
        for i in chosen]
if not rows:
    st.info(f"No piece was chosen in this draw (this happens with probability 0.85^{len(eligible)} = "
            f"{0.85 ** len(eligible):.1%}). Resample, or click a piece above to mask it.")
else:
    hits = sum(r.original_rank == 0 for r in rows)
    st.markdown(f"The model reads the corrupted input and predicts a distribution over all {cfg.vocab_size:,} "
                f"pieces at each chosen position — **{hits} of {len(rows)}** right at top-1. Green bar: the "
                "original piece. It must predict it even where it was *kept* or replaced by a *random* piece.")
    st.plotly_chart(predictions_figure(rows[:16]), key="bert_predictions", config=PLOT)
    if len(rows) > 16:
        st.caption(f"The first 16 of {len(rows)} chosen positions are drawn; the table has them all.")
    st.dataframe([{"position": r.position, "original": r.original, "model read": r.shown, "outcome": r.outcome,
                   "P(original)": round(r.original_prob, 4), "rank of original": r.original_rank + 1,
                   **{f"top {k + 1}": f"{t} ({p:.0%})" for k, (t, p) in enumerate(zip(r.top_tokens, r.top_probs))}}
                  for r in rows], hide_index=True)

# ------------------------------------------------------------------------------------
# 4. Attention around special tokens
# ------------------------------------------------------------------------------------
st.subheader("4 · Attention to and from [MASK], [CLS] and [SEP], every layer and head")
att = masked.attention  # (layers, heads, L, L) on the corrupted input
specials = [(i, result.input_tokens[i]) for i in range(n) if result.input_tokens[i] in ("[CLS]", "[SEP]", "[MASK]")]
focus = st.segmented_control("Token", [i for i, _ in specials], default=specials[0][0], key="bert_focus",
                             format_func=lambda i: f"{result.input_tokens[i]} · {i}")
focus = specials[0][0] if focus is None else focus
st.plotly_chart(special_attention_figure(att, result.input_tokens, focus, "from",
                                         title=f"From {result.input_tokens[focus]} at {focus}: where it looks "
                                               "(each row sums to 1)"),
                key="bert_from", config=PLOT)
st.plotly_chart(special_attention_figure(att, result.input_tokens, focus, "to",
                                         title=f"To {result.input_tokens[focus]} at {focus}: how much each piece "
                                               "gives it"),
                key="bert_to", config=PLOT)
groups = {name: np.array([t == name for t in result.input_tokens]) for name in ("[CLS]", "[SEP]", "[MASK]")}
groups = {k: v for k, v in groups.items() if v.any()}
groups["other tokens"] = ~np.any(np.stack(list(groups.values())), axis=0)
st.plotly_chart(attention_share_figure(att, groups, title="Share of all attention landing on each kind of token"),
                key="bert_share", config=PLOT)
st.caption("Rows of each heatmap are layer·head; a white line separates layers. Clark et al. (2019) found that "
           "many heads of the full-size BERT park their attention on [SEP] and on punctuation when they have "
           "nothing better to do.")
with st.expander("Every head's full attention matrix (layers × heads)"):
    payload = grid_payload(att, result.input_tokens, max_thumb=96, min_thumb=96)
    st.plotly_chart(payload.figure(), key="bert_grid", config=PLOT)
    st.caption("Each thumbnail: rows are queries, columns keys, in token order; darkest = that head's largest weight.")

# ------------------------------------------------------------------------------------
# 5. Next sentence
# ------------------------------------------------------------------------------------
st.subheader("5 · Next-sentence prediction")
st.markdown("From the `[CLS]` vector the model predicts whether B is the sentence that really followed A "
            "(**IsNext**, half of the training pairs) or a random sentence from another chapter (**NotNext**):")
st.latex(r"P(\text{IsNext}) = \mathrm{softmax}\big(W_{\text{nsp}} \tanh(W_p\, h_{\texttt{[CLS]}} + b_p)\big)_0")
if (text_b or "").strip():
    st.metric("Your pair: P(B follows A)", f"{plain.p_is_next:.1%}")
else:
    st.caption("Type a sentence B above to score your own pair.")


def _more_pairs() -> None:
    st.session_state["bert_nsp_seed"] = int(st.session_state.get("bert_nsp_seed", 0)) + 1


st.button("Draw other pairs", key="bert_nsp_draw", on_click=_more_pairs, icon=":material/casino:")
try:
    pairs = nsp_examples(SMALL_BERT, int(st.session_state.get("bert_nsp_seed", 0)))
except Exception as exc:  # the corpus package may be missing
    pairs = []
    st.info(f"No held-out pairs available: {exc}")
if pairs:
    labels = [f"{k + 1}. {'IsNext' if nxt else 'NotNext'}" for k, (_, _, nxt, _) in enumerate(pairs)]
    st.plotly_chart(nsp_figure(labels, [p for *_, p in pairs], [nxt for _, _, nxt, _ in pairs],
                               title="Held-out pairs: green = B really follows A, red = B is random"),
                    key="bert_nsp", config=PLOT)
    correct = sum((p >= 0.5) == nxt for _, _, nxt, p in pairs)
    st.table(pd.DataFrame([{"pair": k + 1, "A": a, "B": b, "truth": "IsNext" if nxt else "NotNext",
                            "P(IsNext)": f"{p:.0%}", "model right": "yes" if (p >= 0.5) == nxt else "no"}
                           for k, (a, b, nxt, p) in enumerate(pairs)]), hide_index=True)
    st.caption(f"{correct} of {len(pairs)} right here; on all held-out pairs "
               f"{training.get('heldout', {}).get('nsp_accuracy', float('nan')):.1%} (chance 50%).")

# ------------------------------------------------------------------------------------
# 6. Fine-tuning
# ------------------------------------------------------------------------------------
st.subheader("6 · How BERT is fine-tuned: one small head on top")
st.markdown("Fine-tuning adds one layer on top of the pre-trained encoder and trains it on labelled "
            "examples (§4). Shown here on this model and on your input above:")
trained = set(cfg.trained_heads)
heads = training.get("heads", {})
f1, f2, f3 = st.tabs(["Sentence classification ([CLS])", "Token tagging (every piece)", "Answer span (start/end)"])
with f1:
    st.latex(r"P(c \mid \text{sentence}) = \mathrm{softmax}(W_c\, \mathrm{pooled}_{\texttt{[CLS]}})")
    ok = "classifier" in trained
    if ok:
        st.success(f"Trained: {md_escape(cfg.class_task)} — on held-out sentences it finds the right testament "
                   f"for {heads.get('classifier_balanced_accuracy', float('nan')):.1%} of each class on average "
                   f"(balanced accuracy; chance 50%; plain accuracy {heads.get('classifier_accuracy', float('nan')):.1%}).")
    else:
        st.warning("This head is **not trained** (random initial weights): its output means nothing yet.")
    st.plotly_chart(class_figure(cfg.class_labels, plain.class_probs.tolist(), ok,
                                 title="Your input: P(class) from [CLS]"), key="bert_class", config=PLOT)
with f2:
    st.latex(r"P(t \mid \text{piece}_i) = \mathrm{softmax}(W_t\, h_i)")
    ok = "tagger" in trained
    if ok:
        st.success(f"Trained: {md_escape(cfg.tag_task)} — on held-out pieces it finds "
                   f"{heads.get('tagger_recall', float('nan')):.0%} of the Capitalised ones and is right "
                   f"{heads.get('tagger_precision', float('nan')):.0%} of the times it says so "
                   f"(F1 {heads.get('tagger_f1', float('nan')):.2f}; accuracy "
                   f"{heads.get('tagger_accuracy', float('nan')):.1%} against "
                   f"{heads.get('tagger_majority_baseline', float('nan')):.1%} for always answering “lower-case”). "
                   "The model reads lower-cased text, so it must recognise names from the pieces and their context.")
    else:
        st.warning("This head is **not trained** (random initial weights): its output means nothing yet.")
    st.plotly_chart(tag_figure(tokens, plain.tag_probs[:, -1], cfg.tag_labels[-1], ok,
                               title=f"Your input: P({cfg.tag_labels[-1]}) per piece"), key="bert_tags", config=PLOT)
with f3:
    st.latex(r"\text{start}_i = S \cdot h_i \qquad \text{end}_j = E \cdot h_j \qquad "
             r"\text{answer} = \arg\max_{i \le j} \; S\cdot h_i + E \cdot h_j")
    from models.inference.bert import best_span  # noqa: E402

    ok = "span" in trained
    if not ok:
        st.warning("This head is **not trained** (random initial weights): on SQuAD the question is segment A, "
                   "the passage segment B, and S and E are learned from answer spans. The scores below show the "
                   "computation, not an answer.")
    allowed = (result.segment_ids == 1) & ~result.special if (text_b or "").strip() else ~result.special
    i, j, _ = best_span(plain.span_start, plain.span_end, allowed)
    st.plotly_chart(span_figure(tokens, plain.span_start, plain.span_end, (i, j),
                                title="Start and end scores per piece; shaded: the highest-scoring span"),
                    key="bert_span", config=PLOT)
    if i >= 0:
        st.caption(f"Highest-scoring span: pieces {i}–{j}.")

st.divider()
st.markdown("**Pre-training loss** (§3.1): at the chosen positions M, cross-entropy against the original "
            "pieces, plus the next-sentence cross-entropy:")
st.latex(r"\mathcal{L} = -\frac{1}{|M|}\sum_{i\in M}\log P(x_i \mid \tilde{x}) \;-\; \log P(\text{IsNext}_{\text{true}} \mid \tilde{x})")
