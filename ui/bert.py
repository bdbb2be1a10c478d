"""BERT pieces shared by the BERT pages: cached models, cached per-input results, chips, the
explanations and captions of the BERT masking page.

Models live in ``st.cache_resource`` (shared, read-only); per-input results in
``st.cache_data(max_entries=...)`` with hashable arguments, returning numpy dataclasses.
"""
from __future__ import annotations

import html
import zlib
from collections.abc import Collection, Sequence

import numpy as np
import streamlit as st

from corpora.masking import INDEPENDENT, KEPT, MASKED, OUTCOME_NAMES, RANDOM, REFERENCE, RULES
from ui.export import PLOT
from ui.state import boolean, labels, number_in, url_check
from ui.tokens import md_escape
from viz_core.bert import OUTCOME_BG, OUTCOME_COLORS, SPECIAL_COLOR, nsp_figure, nsp_table

SMALL_BERT = "bert-small"
MAX_CHARS = 10_000


# --------------------------------------------------------------------------------------
# The small BERT
# --------------------------------------------------------------------------------------

@st.cache_resource(show_spinner="Loading the small BERT …")
def _load_small(name: str):
    from models.checkpoints import load_bert
    from models.device import configure_threads

    configure_threads()
    return load_bert(name)


def load_small_bert(name: str = SMALL_BERT):
    """The shared read-only LoadedBert, or a one-line error message."""
    from ui.checkpoints import load_or_message

    return load_or_message(_load_small, name, ". Train it: `python -m models.train --preset bert-small`.")


def clean_text(text: str | None) -> str:
    """Text as typed, cut to MAX_CHARS, with lone surrogates dropped (they break the tokenizer)."""
    text = (text or "")[:MAX_CHARS]
    return "".join(ch for ch in text if not 0xD800 <= ord(ch) <= 0xDFFF)


@st.cache_data(max_entries=64, show_spinner=False)
def analyse(name: str, text_a: str, text_b: str, seed: int, draw: bool, clicked: tuple[int, ...], rule: str,
            top_k: int = 5):
    """MaskedAnalysis (models.inference.bert.analyse_masked) of the typed pair, cached per input."""
    from models.inference.bert import analyse_masked

    return analyse_masked(_load_small(name), clean_text(text_a), clean_text(text_b), seed, draw, clicked, top_k,
                          rule=rule)


@st.cache_data(max_entries=32, show_spinner=False)
def masking_stats(special: tuple[bool, ...], n_draws: int, seed: int, rule: str):
    from corpora.masking import masking_statistics

    return masking_statistics(special, n_draws=n_draws, seed=seed, rule=rule)


@st.cache_data(max_entries=8, show_spinner="Drawing sentence pairs …")
def nsp_examples(name: str, seed: int, n: int = 8) -> list[tuple[str, str, bool, float]]:
    """``n`` held-out IsNext/NotNext pairs with the model's P(IsNext): (a, b, is_next, p)."""
    from corpora.bert_data import heldout_text_pairs
    from models.inference.bert import nsp_on_pairs

    return nsp_on_pairs(_load_small(name), heldout_text_pairs(n, seed))


@st.cache_data(ttl=60)
def example_pairs() -> list[tuple[str, str]]:
    """A few held-out consecutive sentence pairs for the example picker (never training text)."""
    try:
        from corpora.bert_data import heldout_text_pairs

        return [(a, b) for a, b, is_next in heldout_text_pairs(40, seed=7) if is_next][:8]
    except Exception:  # the corpus package may be missing: the page still works on typed text
        return []


# --------------------------------------------------------------------------------------
# Real models
# --------------------------------------------------------------------------------------

@st.cache_resource(show_spinner="Loading the model …", max_entries=3)
def _load_real(path: str):
    from models.device import configure_threads
    from models.inference.hf_adapter import load_hf_model

    configure_threads()
    return load_hf_model(path or None)


def load_real_model(path: str):
    """The shared HFModel for ``path`` ('' = the installed MiniLM-L6), or a one-line error message."""
    from models.inference.hf_adapter import ModelDirError

    try:
        return _load_real(path)
    except ModelDirError as exc:
        return str(exc)


@st.cache_data(max_entries=3, show_spinner="Running the model …")
def real_trace(path: str, text: str, text_b: str, max_tokens: int):
    """Every layer's attention of ``text`` (raises ValueError for empty text)."""
    from models.inference.hf_adapter import run_hf

    return run_hf(_load_real(path), clean_text(text), clean_text(text_b) or None, max_tokens=max_tokens)


@st.cache_data(max_entries=6, show_spinner=False)
def real_grid(path: str, text: str, text_b: str, max_tokens: int, scale: str):
    """The layers × heads mosaic of :func:`real_trace`'s attention, built once per input and shade
    (choosing another head reruns the page without rebuilding it)."""
    from viz_core.attention_grid import grid_payload

    trace = real_trace(path, text, text_b, max_tokens)
    return grid_payload(trace.attention, trace.tokens, max_thumb=96, min_thumb=64, scale=scale)


# --------------------------------------------------------------------------------------
# Chips and small helpers
# --------------------------------------------------------------------------------------

_CHIP = ("display:inline-block;margin:3px 3px;padding:3px 8px;border-radius:8px;font-size:1.2rem;"
         "font-family:ui-monospace,monospace;border:3px solid {border};background:{bg};color:{fg};"
         "text-align:center;line-height:1.25")


def masking_chips(original: Sequence[str], shown: Sequence[str], outcomes: Sequence[str],
                  segment_ids: Sequence[int] | None = None) -> None:
    """Tokens as chips, colour-coded by outcome; a changed token shows "original → shown"; the
    position under each chip. All text is HTML-escaped."""
    chips = []
    for i, (o, s, kind) in enumerate(zip(original, shown, outcomes)):
        special = o in ("[CLS]", "[SEP]", "[PAD]")
        border = SPECIAL_COLOR if special else OUTCOME_COLORS.get(kind, "#9aa7b8")
        bg = "#eceff1" if special else OUTCOME_BG.get(kind, "#f4f6f9")
        text = html.escape(o) if o == s else f"{html.escape(o)}<br>→&nbsp;{html.escape(s)}"
        seg = f" · {'AB'[segment_ids[i]]}" if segment_ids is not None and segment_ids[i] in (0, 1) else ""
        chips.append(f'<span style="{_CHIP.format(border=border, bg=bg, fg="#111")}">{text}'
                     f'<br><small style="color:#666;font-size:0.75rem">{i}{seg}</small></span>')
    st.html(f'<div style="line-height:1.4">{"".join(chips)}</div>')


def legend_chips() -> None:
    """The colour key of the masking outcomes."""
    items = [("[MASK]", "chosen → [MASK] (80%)"), ("random", "chosen → random token (10%)"),
             ("kept", "chosen → kept as is (10%)"), ("not chosen", "not chosen (85%)")]
    chips = [f'<span style="{_CHIP.format(border=OUTCOME_COLORS[k], bg=OUTCOME_BG[k], fg="#111")}">{html.escape(t)}</span>'
             for k, t in items]
    chips.append(f'<span style="{_CHIP.format(border=SPECIAL_COLOR, bg="#eceff1", fg="#111")}">[CLS] [SEP]: never chosen</span>')
    st.html(f'<div>{"".join(chips)}</div>')


# --------------------------------------------------------------------------------------
# The BERT masking page: state, explanations and captions
# --------------------------------------------------------------------------------------

def model_summary(config, training: dict) -> None:
    """The small BERT's vocabulary, input length, held-out scores and how it was trained."""
    st.markdown(f"**Model:** {training.get('label', SMALL_BERT)} — WordPiece vocabulary of {config.vocab_size:,} "
                f"pieces, at most {config.max_len} pieces per input.")
    held = training.get("heldout", {})
    if held:
        st.markdown(f"**On held-out chapters:** the original piece is the top prediction at "
                    f"**{held['mlm_top1']:.1%}** of the chosen positions and among the top 5 at "
                    f"**{held['mlm_top5']:.1%}**; next sentence right on **{held['nsp_accuracy']:.1%}** of "
                    f"pairs (chance 50%). Masking: {RULES[held.get('masking_rule', INDEPENDENT)]}, as measured when "
                    "it was trained.")
        st.caption(f"Pre-trained for {training.get('seconds', '?')} s ({training.get('steps', '?')} steps) "
                   f"by `{training.get('command', 'python -m models.train --preset bert-small')}`.")
    st.caption("How ours differs from BERT: segments A and B are single sentences of at most "
               f"{config.max_len} pieces in all, where BERT packs spans of several sentences into 512 pieces; "
               f"{config.n_layers} layers of width {config.d_model} instead of 12 × 768; trained without dropout "
               "on one Bible translation for minutes, not on books and Wikipedia for days.")


def linked_masking_settings() -> tuple[int, bool, str]:
    """This run's masking seed, random-draw switch and rule: the widgets' values, or on a first run
    the link's (checked by ui.state.url_check, with a notice when refused)."""
    seed = url_check("bert_seed", number_in(0, 10**9), "seed")
    draw = url_check("bert_draw", boolean, "random-draw switch")
    rule = url_check("bert_rule", labels(RULES.values()), "masking rule")
    return (int(st.session_state.get("bert_seed", int(float(seed or 0)))),
            bool(st.session_state.get("bert_draw", (draw or "true").lower() == "true")),
            st.session_state.get("bert_rule", next((r for r, lab in RULES.items() if lab == rule), REFERENCE)))


def click_key(text_a: str, text_b: str) -> str:
    """Session key of the clicked pieces of this input pair (new text, no stale clicks)."""
    return f"bert_click_{zlib.crc32(repr((text_a, text_b)).encode('utf-8', 'replace'))}"


def input_notes(result, max_len: int) -> None:
    """Warn when a MaskedAnalysis's input was cut to ``max_len`` pieces or has [UNK] pieces."""
    if result.dropped:
        st.warning(f"The input is longer than the {max_len} pieces this model reads: {result.dropped} pieces were "
                   "cut, longest segment first (as BERT truncates pairs).")
    if result.n_unknown:
        st.info(f"{result.n_unknown} piece(s) are [UNK]: characters the WordPiece vocabulary never saw "
                "(emoji, Chinese, most symbols). The model reads them all as the same unknown piece.")


def explain_pieces() -> None:
    """How WordPiece splits the text, and what [CLS], [SEP] and ## mean."""
    st.markdown("The text is lower-cased and split into words, then each word into the longest pieces of the "
                "vocabulary; a piece that continues a word starts with **##**. `[CLS]` opens the input, `[SEP]` "
                "closes each segment. Under each piece: its **position** and its **segment** (A or B).")


def explain_embedding() -> None:
    """The input embedding as the sum of token, segment and position vectors."""
    st.markdown("**The input embedding** of each piece is the sum of three learned vectors — its token, its "
                "segment and its position — followed by LayerNorm:")
    st.latex(r"E_i \;=\; \mathrm{LayerNorm}\big(E_{\text{token}}[x_i] + E_{\text{segment}}[s_i] + "
             r"E_{\text{position}}[i]\big)")


def embedding_check(plain) -> None:
    """Caption: how far the drawn sum token + segment + position is from the model's own sum."""
    st.caption(f"Largest difference between the drawn sum and the model's own sum over all pieces: "
               f"{plain.embedding_sum_error:.1e} "
               "(blue negative, red positive).")


def explain_masking(rule: str) -> None:
    """The 15% / 80-10-10 masking rule in use and why it is not all [MASK]."""
    chosen = ("Each sequence of n pieces gets exactly max(1, round(0.15·n)) **chosen** pieces, drawn among all "
              "but `[CLS]`/`[SEP]` — as BERT's released code does; a random replacement comes from the whole "
              "vocabulary." if rule == REFERENCE else
              "Each piece except `[CLS]`/`[SEP]` is **chosen** independently with probability 15%, so a short "
              "sequence may get no prediction at all; a random replacement is never a special piece.")
    st.markdown(f"{chosen} A chosen piece becomes `[MASK]` (80%), a random piece (10%) or stays as it is (10%) — "
                "so the model cannot rely on seeing `[MASK]`, and must keep a good representation of every piece. "
                "It is asked for the original piece at every chosen position.")


def outcome_labels(outcome: np.ndarray, clicked: Collection[int]) -> list[str]:
    """The outcome name of every position; a clicked piece that became [MASK] is "clicked"."""
    return ["clicked" if i in clicked and o == MASKED else OUTCOME_NAMES[o] for i, o in enumerate(outcome.tolist())]


def masking_summary(outcome: np.ndarray, n_eligible: int, seed: int, n_clicked: int) -> None:
    """This draw's counts: chosen pieces and how many became [MASK], random or stayed."""
    counts = {name: int((outcome == k).sum()) for k, name in ((MASKED, "[MASK]"), (RANDOM, "random"), (KEPT, "kept"))}
    st.markdown(f"**This draw (seed {seed}):** {sum(counts.values())} of {n_eligible} eligible pieces chosen — "
                f"{counts['[MASK]']} → [MASK], {counts['random']} → random, {counts['kept']} kept"
                + (f" ({n_clicked} clicked)" if n_clicked else "") + ".")


def masking_stats_caption(stats, rule: str) -> None:
    """The rates after all draws of a MaskingStats against their targets (15% or the fixed count, 80/10/10)."""
    final = stats.final()
    se = np.sqrt(0.15 * 0.85 / max(stats.totals["eligible"], 1))
    target = ("the same count every draw: round(0.15·n) of this input's pieces" if rule == REFERENCE else
              f"target 15%, standard error {se:.2%}")
    st.caption(f"After 10,000 draws: chosen {final['chosen']:.2%} ({target}); of the chosen, [MASK] "
               f"{final['[MASK]']:.2%}, random {final['random']:.2%}, kept {final['kept']:.2%} (targets 80/10/10).")


def explain_special_attention() -> None:
    """Caption of the attention to and from the special tokens."""
    st.caption("Rows of each heatmap are layer·head; a white line separates layers. Clark et al. (2019) found "
               "that many heads of the full-size BERT park their attention on [SEP] and on punctuation when they "
               "have nothing better to do.")


def explain_nsp() -> None:
    """Next-sentence prediction from the [CLS] vector."""
    st.markdown("From the `[CLS]` vector the model predicts whether B is the sentence that really followed A "
                "(**IsNext**, half of the training pairs) or a random sentence from another chapter (**NotNext**):")
    st.latex(r"P(\text{IsNext}) = \mathrm{softmax}\big(W_{\text{nsp}} \tanh(W_p\, h_{\texttt{[CLS]}} + b_p)\big)_0")


def held_out_pairs(seed: int, training: dict) -> None:
    """The model's P(IsNext) on held-out pairs drawn with ``seed``: chart, table, and how many it
    got right against the held-out accuracy in ``training``."""
    try:
        pairs = nsp_examples(SMALL_BERT, seed)
    except Exception as exc:  # the corpus package may be missing
        st.info(f"No held-out pairs available: {exc}")
        return
    if not pairs:
        return
    labels = [f"{k + 1}. {'IsNext' if nxt else 'NotNext'}" for k, (_, _, nxt, _) in enumerate(pairs)]
    st.plotly_chart(nsp_figure(labels, [p for *_, p in pairs], [nxt for _, _, nxt, _ in pairs],
                               title="Held-out pairs: green = B really follows A, red = B is random"),
                    key="bert_nsp", config=PLOT)
    correct = sum((p >= 0.5) == nxt for _, _, nxt, p in pairs)
    st.table(nsp_table(pairs), hide_index=True)
    st.caption(f"{correct} of {len(pairs)} right here; on all held-out pairs "
               f"{training.get('heldout', {}).get('nsp_accuracy', float('nan')):.1%} (chance 50%).")


_HEAD_FORMULAS = {
    "classifier": r"P(c \mid \text{sentence}) = \mathrm{softmax}(W_c\, \mathrm{pooled}_{\texttt{[CLS]}})",
    "tagger": r"P(t \mid \text{piece}_i) = \mathrm{softmax}(W_t\, h_i)",
    "span": r"\text{start}_i = S \cdot h_i \qquad \text{end}_j = E \cdot h_j \qquad "
            r"\text{answer} = \arg\max_{i \le j} \; S\cdot h_i + E \cdot h_j",
}


def fine_tuning_note(head: str, config, scores: dict) -> bool:
    """The formula of fine-tuning head ``head`` ("classifier", "tagger" or "span") and, from the
    held-out ``scores``, how well it does, or that it is not trained; returns whether it is trained."""
    nan = float("nan")
    trained = head in set(config.trained_heads)
    st.latex(_HEAD_FORMULAS[head])
    if head == "span" and not trained:
        st.warning("This head is **not trained** (random initial weights): on SQuAD the question is segment "
                   "A, the passage segment B, and S and E are learned from answer spans. The scores below show "
                   "the computation, not an answer.")
    elif not trained:
        st.warning("This head is **not trained** (random initial weights): its output means nothing yet.")
    elif head == "classifier":
        st.success(f"Trained: {md_escape(config.class_task)} — on held-out sentences it finds the right "
                   f"testament for {scores.get('classifier_balanced_accuracy', nan):.1%} of each class on "
                   f"average (balanced accuracy; chance 50%; plain accuracy "
                   f"{scores.get('classifier_accuracy', nan):.1%}).")
    elif head == "tagger":
        st.success(f"Trained: {md_escape(config.tag_task)} — on held-out pieces it finds "
                   f"{scores.get('tagger_recall', nan):.0%} of the Capitalised ones and is right "
                   f"{scores.get('tagger_precision', nan):.0%} of the times it says so "
                   f"(F1 {scores.get('tagger_f1', nan):.2f}; accuracy "
                   f"{scores.get('tagger_accuracy', nan):.1%} against "
                   f"{scores.get('tagger_majority_baseline', nan):.1%} for always answering “lower-case”). "
                   "The model reads lower-cased text, so it must recognise names from the pieces and their "
                   "context.")
    return trained


def explain_loss() -> None:
    """The pre-training loss: masked-LM cross-entropy plus next-sentence cross-entropy."""
    st.markdown("**Pre-training loss** (§3.1): at the chosen positions M, cross-entropy against the original "
                "pieces, plus the next-sentence cross-entropy:")
    st.latex(r"\mathcal{L} = -\frac{1}{|M|}\sum_{i\in M}\log P(x_i \mid \tilde{x}) \;-\; "
             r"\log P(\text{IsNext}_{\text{true}} \mid \tilde{x})")
