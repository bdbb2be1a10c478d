"""What-if decoding: force the next output token, or switch off one Transformer head.

* Forcing (both families): the original output up to step t, then the user's token at step t,
  then greedy decoding to the end. Every step's attention, top-k and p(y_t) are the model's own
  numbers, computed from the forced prefix; the trace marks step t as ``forced_step`` and
  carries a notice saying what the model itself preferred there.
* Head ablation (Transformer): one head of one layer of the encoder self-, decoder self- or
  cross-attention has its output zeroed before W^O for the whole run — head masking, Michel et
  al. (2019), "Are Sixteen Heads Really Better than One?".

A typed token the model's target vocabulary does not hold raises :class:`InputError` with a
plain-words message (never mapped to <unk>).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from corpora.text import tokenize
from models.checkpoints import LoadedSeq2Seq, LoadedTransformer
from models.inference.common import DEFAULT_LENGTH_PENALTY, InputError
from models.inference.traces import END_TOKENS, START_TOKENS, TransformerDecodeTrace, Seq2seqDecodeTrace, Notice
from models.inference.translate import translate, translate_transformer
from models.nn.rnn_seq2seq import SOFT, AttentionMode
from models.nn.transformer import HeadMask

#: The attentions a head can be switched off in.
ABLATION_SITES = ("encoder", "decoder", "cross")
#: Symbols that are inputs only: never an output a step could be forced to.
NEVER_OUTPUT = START_TOKENS | {"<pad>"}


def typed_token(text: str) -> str:
    """The one output token a user typed, tokenized as the corpus is (lowercase; an end token
    such as ``</s>`` as typed); anything but exactly one token is an :class:`InputError`."""
    stripped = text.strip()
    if stripped in END_TOKENS:
        return stripped
    tokens = tokenize(stripped)
    if len(tokens) != 1:
        if not tokens:
            raise InputError(
                "Type one output token: a single word or punctuation mark (or </s> to stop here).", "err.one_token"
            )
        raise InputError(
            f"Type one output token: a single word or punctuation mark (or </s> to stop here); "
            f"“{stripped[:40]}” reads as {len(tokens)} tokens.",
            "err.one_token_many",
            typed=stripped[:40],
            n=len(tokens),
        )
    return tokens[0]


def forced_ids(tokens: Sequence[str], stoi: Mapping[str, int]) -> list[int]:
    """The ids of ``tokens`` in the target vocabulary ``stoi``. A token it does not hold, or a
    start or padding symbol, is an :class:`InputError` naming close words it knows."""
    ids = []
    for token in tokens:
        if token in NEVER_OUTPUT:
            raise InputError(
                f"“{token}” cannot be forced: the start and padding symbols are never outputs.",
                "err.never_output",
                token=token,
            )
        if token not in stoi:
            words = [w for w in stoi if not w.startswith("<")]
            close = difflib.get_close_matches(token, words, n=3)
            shown = token if len(token) <= 20 else token[:19] + "…"
            message = (
                f"“{shown}” is not in this model's output vocabulary ({len(words):,} words), so it "
                "cannot be forced (it is not mapped to <unk>)."
            )
            if close:
                raise InputError(
                    f"{message} Close words it knows: {', '.join(close)}.",
                    "err.not_in_vocab_close",
                    shown=shown,
                    n=len(words),
                    close=", ".join(close),
                )
            raise InputError(message, "err.not_in_vocab", shown=shown, n=len(words))
        ids.append(stoi[token])
    return ids


def percent(p: float) -> str:
    """A probability as a percentage that never shows a non-zero value as 0.0%."""
    return f"{p:.1%}" if p >= 0.001 or p == 0 else f"{p:.1e}"


def _forced_notice(
    step: int, token: str, top_tokens: Sequence[str], top_probs: np.ndarray, p_forced: float, original: str | None
) -> Notice:
    """What the model itself preferred at the forced step (string id ``notice.forced`` or, when it
    replaced another token, ``notice.forced_instead``)."""
    replaced = original is not None and original != token
    instead = f" instead of “{original}”" if replaced else ""
    args = {
        "step": step + 1,
        "token": token,
        "original": original,
        "top": top_tokens[0],
        "p_top": percent(float(top_probs[0])),
        "p": percent(p_forced),
    }
    return Notice(
        "forced",
        "info",
        f"What-if: step {step + 1} was forced to “{token}”{instead}. At that step the model ranked "
        f"“{top_tokens[0]}” first (p = {percent(float(top_probs[0]))}) and gave “{token}” "
        f"p = {percent(p_forced)}; "
        "every later step is greedy again, computed from the forced prefix.",
        "notice.forced_instead" if replaced else "notice.forced",
        args,
    )


def _with_forced(notice: Notice, notices: Sequence[Notice]) -> list[Notice]:
    """The forced-step notice first; the confidence notice is left out (a forced token's low
    probability says nothing about the input)."""
    return [notice, *(n for n in notices if n.topic != "confidence")]


def _check_prefix(prefix: Sequence[str], step: int) -> None:
    if not 0 <= step <= len(prefix):
        raise InputError(
            f"Step {step + 1} is not a step of this output ({len(prefix)} tokens).",
            "err.no_step",
            step=step + 1,
            n=len(prefix),
        )


def what_if_translation(
    loaded: LoadedSeq2Seq,
    text: str,
    original: Sequence[str],
    step: int,
    token: str,
    mode: AttentionMode = SOFT,
    topk: int = 5,
    length_penalty: float = DEFAULT_LENGTH_PENALTY,
) -> Seq2seqDecodeTrace:
    """RNN seq2seq: ``original``[:step] (the output shown), ``token`` forced at ``step``, then greedy."""
    _check_prefix(original, step)
    prefix = list(original[:step]) + [token]
    trace = translate(loaded, text, 1, mode, topk, length_penalty, forced=forced_ids(prefix, loaded.tgt_vocab.stoi))
    hyp = trace.best
    was = original[step] if step < len(original) else None
    notice = _forced_notice(step, token, hyp.topk_tokens[step], hyp.topk_probs[step], float(hyp.token_probs[step]), was)
    return replace(trace, notices=_with_forced(notice, trace.notices))


def what_if_transformer(
    loaded: LoadedTransformer,
    text: str,
    original: Sequence[str],
    step: int,
    token: str,
    topk: int = 5,
) -> TransformerDecodeTrace:
    """Transformer: ``original``[:step] (the output shown), ``token`` forced at ``step``, then greedy."""
    _check_prefix(original, step)
    prefix = list(original[:step]) + [token]
    trace = translate_transformer(loaded, text, 1, topk, forced=forced_ids(prefix, loaded.tgt_stoi))
    was = original[step] if step < len(original) else None
    notice = _forced_notice(
        step, token, trace.topk_tokens[step], trace.topk_probs[step], float(trace.token_probs[step]), was
    )
    return replace(trace, notices=_with_forced(notice, trace.notices))


def _one_head_off(loaded: LoadedTransformer, site: str, layer: int, head: int) -> HeadMask:
    if site not in ABLATION_SITES:
        raise InputError(
            f"Pick the encoder self-, decoder self- or cross-attention, not “{site[:20]}”.",
            "err.attention_kind",
            attention=site[:20],
        )
    try:
        return HeadMask.one_head_off(loaded.config, site, layer, head)
    except ValueError as exc:
        raise InputError(f"This model has no such head: {exc}.", "err.no_head", reason=str(exc)) from exc


def ablated_translation(
    loaded: LoadedTransformer,
    text: str,
    site: str,
    layer: int,
    head: int,
    beam: int = 1,
    topk: int = 5,
    length_penalty: float = DEFAULT_LENGTH_PENALTY,
) -> TransformerDecodeTrace:
    """The same decoding as :func:`~models.inference.translate.translate_transformer` with head
    ``head`` of ``layer`` in attention ``site`` switched off (Michel et al. 2019 head masking)."""
    trace = translate_transformer(
        loaded, text, beam, topk, length_penalty, head_mask=_one_head_off(loaded, site, layer, head)
    )
    return replace(trace, ablated_head=(site, layer, head))


def ablated_scoring(
    loaded: LoadedTransformer,
    text: str,
    output: Sequence[str],
    site: str,
    layer: int,
    head: int,
    topk: int = 5,
) -> TransformerDecodeTrace:
    """The original ``output`` teacher-forced through the model with one head switched off: the
    same queries and keys as the original run, so every change of attention and of p(y_t) is that
    head's doing (Michel et al. 2019 measure a head's importance by such a change of the loss)."""
    trace = translate_transformer(
        loaded,
        text,
        1,
        topk,
        forced=forced_ids(output, loaded.tgt_stoi),
        head_mask=_one_head_off(loaded, site, layer, head),
    )
    return replace(trace, forced_step=None, ablated_head=(site, layer, head))
