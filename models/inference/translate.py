"""Translate text with a checkpoint and return its family's trace; walk one head for a text.

* An RNN seq2seq checkpoint gives a :class:`~models.inference.traces.Seq2seqDecodeTrace`.
* A Transformer checkpoint (a translation model, task "en-fr" whatever its language pair: ``tf-en-fr``,
  ``tf-bible``, ``tf-hsk`` that reads Chinese; or the toy ``tf-copy``/``tf-reverse`` that read digits
  "3 1 4 1 5") gives a :class:`~models.inference.traces.TransformerDecodeTrace`: token strings plus the
  encoder self-attention, the masked decoder self-attention and the cross-attention of every
  layer and head, the top-k next tokens per step and, with a beam > 1, the beam per step.

Input that cannot be used raises :class:`InputError` with a plain-words message. The command
line is ``python -m models.translate`` (:mod:`cli.translate`).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from corpora.text import normalize, tokenize
from models.checkpoints import (
    LoadedSeq2Seq,
    LoadedTransformer,
    load_seq2seq,
    load_transformer,
    read_config,
    typical_confidence,
    wrong_output_fit,
)
from models.inference import transformer as tf_decode
from models.inference.common import DEFAULT_LENGTH_PENALTY, InputError, length_normalised, max_output_len
from models.inference.generate import prepare_prompt
from models.inference.head import head_walkthrough
from models.inference.notices import mean_log_prob, scope_notice, translation_notices
from models.inference.seq2seq import beam_search, greedy_decode
from models.inference.traces import BeamCandidate, TransformerDecodeTrace, Seq2seqDecodeTrace, HeadWalkthrough
from models.nn.rnn_seq2seq import SOFT, AttentionMode
from models.nn.transformer import HeadMask
from models.text.segment import segment
from models.text.vocab import EOS, SPECIALS, encode_source

MAX_BEAM = 8
MAX_LENGTH_PENALTY = 2.0
#: A Transformer translation checkpoint's task, whatever its language pair (words in, </s> appended); the
#: languages are in its training record's src_lang / tgt_lang (tf-hsk, the studio's runs).
TRANSLATION = "en-fr"


@dataclass
class SourceInput:
    tokens: list[str]  # as the model reads them, ending with </s>
    ids: list[int]
    unknown: list[bool]
    dropped: int  # tokens cut off past the model's limit


def source_language(loaded: LoadedSeq2Seq | LoadedTransformer) -> str:
    """The checkpoint's source language (its training record's ``src_lang``; the grammar models: "en")."""
    return str(loaded.training.get("src_lang", "en"))


def source_tokens(text: str, loaded: LoadedSeq2Seq | LoadedTransformer) -> list[str]:
    """``text`` as the checkpoint reads it: Chinese segmented against its source vocabulary by forward
    maximum matching (:mod:`models.text.segment`), other languages by :func:`corpora.text.tokenize`.
    Chinese punctuation that the vocabulary lacks is left out: the HSK sources carry none, so a
    model would read "。" as an unknown word."""
    if source_language(loaded) != "zh":
        return tokenize(text)
    itos = loaded.src_itos if isinstance(loaded, LoadedTransformer) else loaded.src_vocab.itos
    words = frozenset(itos[len(SPECIALS) :])  # "<pad>" typed is text, never the symbol
    return [
        tok
        for tok in segment(normalize(text), words).tokens
        if tok in words or not all(unicodedata.category(ch).startswith("P") for ch in tok)
    ]


def prepare_source(text: str, loaded: LoadedSeq2Seq) -> SourceInput:
    """Tokenize (by the source language), cut to the model's length limit, map to ids; unknown
    words are flagged."""
    tokens = source_tokens(text, loaded)
    if not tokens:
        if source_language(loaded) == "zh":
            raise InputError("There is nothing to translate: type a Chinese sentence.", "err.nothing_to_translate_zh")
        raise InputError("There is nothing to translate: type an English sentence.", "err.nothing_to_translate")
    limit = loaded.model.cfg.max_src_len - 1
    kept, dropped = tokens[:limit], max(0, len(tokens) - limit)
    ids = encode_source(loaded.src_vocab.stoi, kept, limit)
    unknown = [t not in loaded.src_vocab for t in kept] + [False]
    return SourceInput(kept + [EOS], ids, unknown, dropped)


def _check_search(beam: int, length_penalty: float) -> None:
    if not 1 <= beam <= MAX_BEAM:
        raise InputError(f"The beam width must be between 1 and {MAX_BEAM}.", "err.beam", max=MAX_BEAM)
    if not 0 <= length_penalty <= MAX_LENGTH_PENALTY:
        raise InputError(
            f"The length penalty α must be between 0 and {MAX_LENGTH_PENALTY:g}.", "err.alpha", max=MAX_LENGTH_PENALTY
        )


def translate(
    loaded: LoadedSeq2Seq,
    text: str,
    beam: int = 1,
    mode: AttentionMode = SOFT,
    topk: int = 5,
    length_penalty: float = DEFAULT_LENGTH_PENALTY,
    forced: Sequence[int] = (),
) -> Seq2seqDecodeTrace:
    """Greedy (beam=1) or beam-search translation of ``text`` as a Seq2seqDecodeTrace; hypotheses are
    ranked by Σ log p / ((5 + |y|) / 6)^α with α = ``length_penalty``. ``forced`` output ids
    (greedy only) start the output whatever the model prefers (:mod:`models.inference.what_if`)."""
    _check_search(beam, length_penalty)
    if forced and beam != 1:
        raise ValueError("forced tokens continue greedily: beam must be 1")
    if mode.weighting != "soft" and loaded.model.cfg.attention == "none":
        raise InputError("Hard attention needs a model with attention.", "err.hard_needs_attention")
    source = prepare_source(text, loaded)
    if beam == 1:
        hypotheses = [greedy_decode(loaded.model, source.ids, loaded.tgt_vocab, mode, topk, length_penalty, forced)]
        steps: list[list[BeamCandidate]] = []
    else:
        hypotheses, steps = beam_search(loaded.model, source.ids, loaded.tgt_vocab, beam, mode, topk, length_penalty)
    best = hypotheses[0]
    notices = translation_notices(
        source.tokens[:-1],
        source.unknown[:-1],
        source.dropped,
        best.finished,
        mean_log_prob(best.log_prob, len(best.tokens)),
        typical_confidence(loaded.name),
        scope_notice(loaded.training, len(loaded.src_vocab) - 4),
        [math.log(max(float(q), 1e-45)) for q in best.token_probs],
        wrong_output_fit(loaded.name),
    )
    return Seq2seqDecodeTrace(
        model=loaded.name,
        attention_variant=loaded.attention_variant,
        mode=mode.weighting,
        search="greedy" if beam == 1 else "beam",
        beam_width=beam,
        src_tokens=source.tokens,
        src_unknown=source.unknown,
        input_tokens_dropped=source.dropped,
        hypotheses=hypotheses,
        beam_steps=steps,
        length_penalty=length_penalty,
        notices=notices,
    )


# --------------------------------------------------------------------------------------
# Transformer checkpoints
# --------------------------------------------------------------------------------------


def prepare_transformer_source(text: str, loaded: LoadedTransformer) -> SourceInput:
    """Tokenize for a Transformer checkpoint, cut to its limit, map to ids.

    Translation models: the source as :func:`source_tokens` reads it (Chinese segmented), unknown
    words read as <unk> (flagged), </s> appended. Toy copy/reverse models read digits only: anything
    else is an InputError naming the token.
    """
    tokens = source_tokens(text, loaded) if loaded.task == TRANSLATION else tokenize(text)
    if not tokens:
        if loaded.task == TRANSLATION and source_language(loaded) == "zh":
            raise InputError("There is nothing to translate: type a Chinese sentence.", "err.nothing_to_translate_zh")
        if loaded.task == TRANSLATION:
            raise InputError("There is nothing to translate: type an English sentence.", "err.nothing_to_translate")
        raise InputError(
            "There is nothing to read: type a few digits separated by spaces, e.g. 3 1 4 1 5.",
            "err.nothing_to_read_digits",
        )
    limit = loaded.max_src_tokens
    if loaded.task != TRANSLATION:
        symbols = [t for t in loaded.src_itos if not t.startswith("<")]
        bad = next((t for t in tokens if t not in symbols or t not in loaded.src_stoi), None)
        if bad is not None:
            shown = bad if len(bad) <= 20 else bad[:19] + "…"
            raise InputError(
                f"The {loaded.task} model reads the symbols {' '.join(symbols)} separated by spaces; "
                f"“{shown}” is not one of them.",
                "err.symbols",
                task=loaded.task,
                symbols=" ".join(symbols),
                shown=shown,
            )
    kept, dropped = tokens[:limit], max(0, len(tokens) - limit)
    if loaded.task == TRANSLATION:
        unknown = [t not in loaded.src_stoi for t in kept] + [False]
        return SourceInput(kept + [EOS], encode_source(loaded.src_stoi, kept, limit), unknown, dropped)
    return SourceInput(kept, [loaded.src_stoi[t] for t in kept], [False] * len(kept), dropped)


def decode_len(loaded: LoadedTransformer, source: SourceInput) -> int:
    return max_output_len(len(source.ids), loaded.config.max_len - 1)


def translate_transformer(
    loaded: LoadedTransformer,
    text: str,
    beam: int = 1,
    topk: int = 5,
    length_penalty: float = DEFAULT_LENGTH_PENALTY,
    forced: Sequence[int] = (),
    head_mask: HeadMask | None = None,
) -> TransformerDecodeTrace:
    """Greedy (beam=1) or beam-search decoding of ``text`` with a Transformer checkpoint; the same
    ranking rule as :func:`translate`. What-if runs (:mod:`models.inference.what_if`): ``forced``
    output ids (greedy only) start the output; ``head_mask`` switches heads off."""
    _check_search(beam, length_penalty)
    if forced and beam != 1:
        raise ValueError("forced tokens continue greedily: beam must be 1")
    source = prepare_transformer_source(text, loaded)
    max_len = decode_len(loaded, source)
    if beam == 1:
        trace = tf_decode.greedy_decode(
            loaded.encoder_decoder,
            source.ids,
            max_len=max_len,
            top_k=topk,
            itos=loaded.tgt_itos,
            forced=forced,
            head_mask=head_mask,
        )
    else:
        result = tf_decode.beam_search(
            loaded.encoder_decoder,
            source.ids,
            beam_width=beam,
            max_len=max_len,
            top_k=topk,
            itos=loaded.tgt_itos,
            length_penalty=length_penalty,
            head_mask=head_mask,
        )
        trace = replace(
            result.best,
            beam_steps=result.tree(loaded.tgt_itos),
            hypotheses=[
                (loaded.tgt_tokens(h), length_normalised(s, len(h), length_penalty)) for h, s in result.finished
            ],
        )
    n_read = len(source.tokens) - (1 if loaded.task == TRANSLATION else 0)  # without the appended </s>
    notices = translation_notices(
        source.tokens[:n_read],
        source.unknown[:n_read],
        source.dropped,
        trace.finished,
        mean_log_prob(trace.score, len(trace.output_ids)),
        typical_confidence(loaded.name),
        scope_notice(loaded.training, len([t for t in loaded.src_itos if not t.startswith("<")])),
        [float(v) for v in trace.token_log_probs],
        wrong_output_fit(loaded.name),
    )
    return replace(
        trace,
        model=loaded.name,
        label=loaded.label,
        task=loaded.task,
        src_tokens=source.tokens,
        src_unknown=source.unknown,
        input_tokens_dropped=source.dropped,
        length_penalty=length_penalty,
        notices=notices,
    )


#: A checkpoint's translator: (text, beam, mode, topk, α) → its decoding trace (:func:`load_translator`).
Translator = Callable[[str, int, AttentionMode, int, float], "Seq2seqDecodeTrace | TransformerDecodeTrace"]


def load_translator(model: str) -> Translator:
    """The translator of checkpoint ``model`` (a name or folder), by the family its config names: the
    Transformer's :func:`translate_transformer` or the RNN's :func:`translate`, with the arguments
    ``(text, beam, mode, topk, length_penalty)``; the one way ``python -m models.translate`` and the
    benchmarks run a checkpoint. ``mode`` (hard: one-hot at the argmax weight) is the RNN's: a
    Transformer's attention stays soft. A Transformer language model is refused (InputError)."""
    if read_config(model).get("family") == "transformer":
        loaded = load_transformer(model)
        if loaded.architecture != "encoder-decoder":
            raise InputError(f"{model} is a language model: use python -m models.generate --model {model}")
        return lambda text, beam, mode, topk, alpha: translate_transformer(loaded, text, beam, topk, alpha)
    seq = load_seq2seq(model)
    return lambda text, beam, mode, topk, alpha: translate(seq, text, beam, mode, topk, alpha)


def head_view(loaded: LoadedTransformer, text: str, site: str, layer: int, head: int, query: int) -> HeadWalkthrough:
    """Walk one head of a Transformer checkpoint through QKᵀ → ÷√d_k → + mask → softmax → ·V.

    Encoder–decoder: ``text`` is translated greedily first; the decoder's inputs are the start
    token and the output so far. Language model: the prompt (after ``<s>``) is the sequence.
    ``layer``, ``head`` and ``query`` are clamped to the available ones. The walkthrough comes
    back with its axes' token strings.
    """
    cfg = loaded.config
    if loaded.architecture == "decoder-only":
        site = "lm"
        tokens, ids, _, dropped = prepare_prompt(text, loaded, 0)
        src_ids, tgt_ids, keys, queries = None, ids, tokens, tokens
    else:
        if site not in ("encoder", "decoder", "cross"):
            raise InputError(f"unknown attention {site!r}", "err.unknown_attention", attention=repr(site))
        source = prepare_transformer_source(text, loaded)
        trace = tf_decode.greedy_decode(loaded.encoder_decoder, source.ids, max_len=decode_len(loaded, source))
        dec_ids = trace.decoder_input_ids if trace.output_ids else [cfg.bos_id]
        src_ids, tgt_ids, dropped = source.ids, dec_ids, source.dropped
        dec_tokens = loaded.tgt_tokens(dec_ids)
        keys = source.tokens if site in ("encoder", "cross") else dec_tokens
        queries = source.tokens if site == "encoder" else dec_tokens
    n_layers = cfg.num_decoder_layers if site in ("decoder", "cross", "lm") else cfg.num_encoder_layers
    layer = min(max(0, layer), n_layers - 1)
    head = min(max(0, head), cfg.n_heads - 1)
    query = min(max(0, query), len(queries) - 1)
    walk = head_walkthrough(loaded.model, site, layer, head, query, src_ids=src_ids, tgt_ids=tgt_ids)
    return replace(
        walk,
        model=loaded.name,
        label=loaded.label,
        n_layers=n_layers,
        n_heads=cfg.n_heads,
        key_tokens=list(keys),
        query_tokens=list(queries),
        input_tokens_dropped=dropped,
    )
