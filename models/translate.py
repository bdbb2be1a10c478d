"""Translate a sentence with a seq2seq or Transformer checkpoint and return the full decoding trace.

`python -m models.translate --model NAME [--beam K] [--mode soft|hard|local] [--json] "sentence"`

A Transformer checkpoint (``tf-en-fr``, or the toy ``tf-copy``/``tf-reverse`` that read digits
"3 1 4 1 5") gives a :class:`TransformerTranslation`: token strings plus the encoder
self-attention, the masked decoder self-attention and the cross-attention of every layer
and head, the top-k next tokens per step and, with ``--beam`` > 1, the beam per step.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from corpora.text import detokenize, tokenize
from models.checkpoint import LoadedSeq2Seq
from models.decode import beam_search, greedy_decode
from models.seq2seq import SOFT, AttentionMode
from models.trace import BeamCandidate, DecodingTrace
from models.vocab import EOS, EOS_ID

MAX_BEAM = 8


class InputError(ValueError):
    """The input cannot be translated; the message says why in plain words."""


@dataclass
class SourceInput:
    tokens: list[str]  # as the model reads them, ending with </s>
    ids: list[int]
    unknown: list[bool]
    dropped: int  # tokens cut off past the model's limit


def prepare_source(text: str, loaded: LoadedSeq2Seq) -> SourceInput:
    """Tokenize, cut to the model's length limit, map to ids; unknown words are flagged."""
    tokens = tokenize(text)
    if not tokens:
        raise InputError("There is nothing to translate: type an English sentence.")
    limit = loaded.model.cfg.max_src_len - 1
    kept, dropped = tokens[:limit], max(0, len(tokens) - limit)
    ids = loaded.src_vocab.encode(kept) + [EOS_ID]
    unknown = [t not in loaded.src_vocab for t in kept] + [False]
    return SourceInput(kept + [EOS], ids, unknown, dropped)


def translate(
    loaded: LoadedSeq2Seq, text: str, beam: int = 1, mode: AttentionMode = SOFT, topk: int = 5
) -> DecodingTrace:
    """Greedy (beam=1) or beam-search translation of ``text`` as a DecodingTrace."""
    if not 1 <= beam <= MAX_BEAM:
        raise InputError(f"The beam width must be between 1 and {MAX_BEAM}.")
    if mode.kind != "soft" and loaded.model.cfg.attention == "none":
        raise InputError("Hard and local attention need a model with attention.")
    source = prepare_source(text, loaded)
    if beam == 1:
        hypotheses, steps = [greedy_decode(loaded.model, source.ids, loaded.tgt_vocab, mode, topk)], []
    else:
        hypotheses, steps = beam_search(loaded.model, source.ids, loaded.tgt_vocab, beam, mode, topk)
    return DecodingTrace(
        model=loaded.name, kind=loaded.kind, mode=mode.kind, search="greedy" if beam == 1 else "beam",
        beam_width=beam, src_tokens=source.tokens, src_unknown=source.unknown,
        input_tokens_dropped=source.dropped, hypotheses=hypotheses, beam_steps=steps,
    )


def translation_text(tokens: Sequence[str]) -> str:
    """Display text of target tokens (without </s>)."""
    return detokenize([t for t in tokens if t != EOS])


# --------------------------------------------------------------------------------------
# Transformer checkpoints
# --------------------------------------------------------------------------------------

@dataclass
class TransformerTranslation:
    """A Transformer decoding of one input, with token strings for display.

    ``src_tokens`` as the encoder reads them (ending with </s> for English→French);
    ``tgt_tokens`` the output (ending with the end token when finished); the decoder's query
    positions are ``decoder_tokens`` = start token + tgt_tokens[:-1]. Attention arrays:
    encoder (layers, heads, S, S), decoder self (layers, heads, T, T) — zero above the
    diagonal, the look-ahead mask — and cross (layers, heads, T, S). Row t of ``topk_*`` is
    step t's most probable next tokens; ``beam_steps`` lists, per step, the beam's kept
    hypotheses as candidates (parent, token, log-probs, finished) for the beam tree.
    """

    model: str
    label: str
    task: str
    search: str
    beam_width: int
    src_tokens: list[str]
    src_unknown: list[bool]
    input_tokens_dropped: int
    tgt_tokens: list[str]
    decoder_tokens: list[str]
    token_probs: np.ndarray
    topk_tokens: list[list[str]]
    topk_probs: np.ndarray
    encoder_attention: np.ndarray
    decoder_self_attention: np.ndarray
    cross_attention: np.ndarray
    log_prob: float
    finished: bool
    beam_steps: list[list[BeamCandidate]] = field(default_factory=list)
    hypotheses: list[tuple[list[str], float]] = field(default_factory=list)

    @property
    def n_layers(self) -> int:
        return int(self.encoder_attention.shape[0])

    @property
    def n_heads(self) -> int:
        return int(self.encoder_attention.shape[1])

    @property
    def text(self) -> str:
        return translation_text([t for t in self.tgt_tokens if t not in END_TOKENS])

    def to_dict(self) -> dict:
        return {
            "model": self.model, "label": self.label, "task": self.task, "search": self.search,
            "beam_width": self.beam_width, "src_tokens": self.src_tokens, "src_unknown": self.src_unknown,
            "input_tokens_dropped": self.input_tokens_dropped, "tgt_tokens": self.tgt_tokens,
            "decoder_tokens": self.decoder_tokens, "text": self.text,
            "token_probs": self.token_probs.tolist(),
            "topk": [[{"token": t, "prob": float(p)} for t, p in zip(toks, probs)]
                     for toks, probs in zip(self.topk_tokens, self.topk_probs)],
            "encoder_attention": self.encoder_attention.tolist(),
            "decoder_self_attention": self.decoder_self_attention.tolist(),
            "cross_attention": self.cross_attention.tolist(),
            "log_prob": self.log_prob, "finished": self.finished,
            "beam_steps": [[c.to_dict() for c in step] for step in self.beam_steps],
            "hypotheses": [{"tokens": toks, "score": score} for toks, score in self.hypotheses],
        }


END_TOKENS = frozenset({EOS, "<eos>"})


def prepare_transformer_source(text: str, loaded) -> SourceInput:  # loaded: LoadedTransformer
    """Tokenize for a Transformer checkpoint, cut to its limit, map to ids.

    English→French: unknown words read as <unk> (flagged), </s> appended. Toy copy/reverse
    models read digits only: anything else is an InputError naming the token.
    """
    tokens = tokenize(text)
    if not tokens:
        if loaded.task == "en-fr":
            raise InputError("There is nothing to translate: type an English sentence.")
        raise InputError("There is nothing to read: type a few digits separated by spaces, e.g. 3 1 4 1 5.")
    limit = loaded.max_src_tokens
    if loaded.task != "en-fr":
        symbols = [t for t in loaded.src_itos if not t.startswith("<")]
        bad = next((t for t in tokens if t not in symbols or t not in loaded.src_stoi), None)
        if bad is not None:
            shown = bad if len(bad) <= 20 else bad[:19] + "…"
            raise InputError(f"The {loaded.task} model reads the symbols {' '.join(symbols)} separated by spaces; "
                             f"“{shown}” is not one of them.")
    kept, dropped = tokens[:limit], max(0, len(tokens) - limit)
    if loaded.task == "en-fr":
        from models.transformer_train import encode_source

        ids = encode_source(loaded.src_stoi, kept, limit)
        unknown = [t not in loaded.src_stoi for t in kept] + [False]
        return SourceInput(kept + [EOS], ids, unknown, dropped)
    return SourceInput(kept, [loaded.src_stoi[t] for t in kept], [False] * len(kept), dropped)


def _beam_candidates(beam, itos: Sequence[str]) -> list[list[BeamCandidate]]:
    """The transformer's BeamSteps as beam-tree candidates: per step the kept hypotheses and
    those that finished, by cumulative log-probability; ``parent`` = index in the previous beam."""
    steps: list[list[BeamCandidate]] = []
    previous: list[list[int]] = [[]]
    prev_scores: list[float] = [0.0]
    for step in beam.beams:
        rows = [(h, s, False) for h, s in zip(step.hypotheses, step.scores)] + \
               [(h, s, True) for h, s in zip(step.finished, step.finished_scores)]
        rows.sort(key=lambda r: -r[1])
        cands = []
        for hyp, score, finished in rows:
            parent = previous.index(hyp[:-1]) if hyp[:-1] in previous else 0
            cands.append(BeamCandidate(parent, itos[hyp[-1]], score - prev_scores[parent], score, True, finished))
        steps.append(cands)
        previous, prev_scores = [list(h) for h in step.hypotheses], list(step.scores)
    return steps


def translate_transformer(loaded, text: str, beam: int = 1, topk: int = 5) -> TransformerTranslation:
    """Greedy (beam=1) or beam-search decoding of ``text`` with a Transformer checkpoint."""
    from models.transformer import beam_search as tf_beam
    from models.transformer import greedy_decode as tf_greedy

    if not 1 <= beam <= MAX_BEAM:
        raise InputError(f"The beam width must be between 1 and {MAX_BEAM}.")
    source = prepare_transformer_source(text, loaded)
    max_len = min(loaded.config.max_len - 1, 2 * len(source.ids) + 10)
    steps: list[list[BeamCandidate]] = []
    hypotheses: list[tuple[list[str], float]] = []
    if beam == 1:
        trace = tf_greedy(loaded.model, source.ids, max_len=max_len, top_k=topk)
    else:
        result = tf_beam(loaded.model, source.ids, beam_width=beam, max_len=max_len, top_k=topk)
        trace = result.best
        steps = _beam_candidates(result, loaded.tgt_itos)
        hypotheses = [(loaded.tgt_tokens(h), float(s)) for h, s in result.finished]
    out = loaded.tgt_tokens(trace.output_ids)
    n_layers, n_heads = trace.encoder_attention.shape[:2]
    empty = np.zeros((n_layers, n_heads, 0, len(source.ids)), dtype=np.float32)
    return TransformerTranslation(
        model=loaded.name, label=loaded.label, task=loaded.task, search="greedy" if beam == 1 else "beam",
        beam_width=beam, src_tokens=source.tokens, src_unknown=source.unknown,
        input_tokens_dropped=source.dropped, tgt_tokens=out,
        decoder_tokens=loaded.tgt_tokens(trace.decoder_input_ids) if out else [],
        token_probs=np.array([np.exp(s.log_prob) for s in trace.steps], dtype=np.float32),
        topk_tokens=[loaded.tgt_tokens(s.top_ids.tolist()) for s in trace.steps],
        topk_probs=np.stack([s.top_probs for s in trace.steps]).astype(np.float32) if trace.steps
        else np.zeros((0, topk), dtype=np.float32),
        encoder_attention=trace.encoder_attention.astype(np.float32),
        decoder_self_attention=trace.decoder_self_attention().astype(np.float32),
        cross_attention=trace.cross_attention().astype(np.float32) if trace.steps else empty,
        log_prob=float(trace.score), finished=bool(trace.output_ids) and trace.output_ids[-1] == loaded.config.eos_id,
        beam_steps=steps, hypotheses=hypotheses,
    )


@dataclass
class HeadView:
    """One head's walkthrough for one query of a text, with the token strings of its axes."""

    model: str
    label: str
    kind: str  # encoder | decoder | cross | lm
    n_layers: int
    n_heads: int
    key_tokens: list[str]
    query_tokens: list[str]
    input_tokens_dropped: int
    walk: object  # models.transformer.HeadWalkthrough


def head_view(loaded, text: str, kind: str, layer: int, head: int, query: int) -> HeadView:
    """Walk one head of a Transformer checkpoint through QKᵀ → ÷√d_k → + mask → softmax → ·V.

    Encoder–decoder: ``text`` is translated greedily first; the decoder's inputs are the start
    token and the output so far. Language model: the prompt (after ``<s>``) is the sequence.
    ``query`` is clamped to the available positions.
    """
    from models.transformer import greedy_decode as tf_greedy
    from models.transformer import head_walkthrough

    cfg = loaded.config
    if loaded.kind == "decoder-only":
        from models.generate import prepare_prompt

        kind = "lm"
        tokens, ids, _, dropped = prepare_prompt(text, loaded, 0)
        src_ids, tgt_ids, keys, queries = None, ids, tokens, tokens
    else:
        if kind not in ("encoder", "decoder", "cross"):
            raise InputError(f"unknown attention {kind!r}")
        source = prepare_transformer_source(text, loaded)
        trace = tf_greedy(loaded.model, source.ids, max_len=min(cfg.max_len - 1, 2 * len(source.ids) + 10))
        dec_ids = trace.decoder_input_ids if trace.output_ids else [cfg.bos_id]
        src_ids, tgt_ids, dropped = source.ids, dec_ids, source.dropped
        dec_tokens = loaded.tgt_tokens(dec_ids)
        keys = source.tokens if kind in ("encoder", "cross") else dec_tokens
        queries = source.tokens if kind == "encoder" else dec_tokens
    n_layers = cfg.num_decoder_layers if kind in ("decoder", "cross", "lm") else cfg.num_encoder_layers
    layer = min(max(0, layer), n_layers - 1)
    head = min(max(0, head), cfg.n_heads - 1)
    query = min(max(0, query), len(queries) - 1)
    walk = head_walkthrough(loaded.model, kind, layer, head, query, src_ids=src_ids, tgt_ids=tgt_ids)
    return HeadView(loaded.name, loaded.label, kind, n_layers, cfg.n_heads, list(keys), list(queries), dropped, walk)


def main(argv: Sequence[str] | None = None) -> int:
    from models.checkpoint import CheckpointError, checkpoint_path, load_seq2seq, read_json

    parser = argparse.ArgumentParser(description="Translate an English sentence with a seq2seq or Transformer checkpoint.")
    parser.add_argument("sentence")
    parser.add_argument("--model", default="s2s-bahdanau", help="checkpoint name or folder")
    parser.add_argument("--beam", type=int, default=1, help=f"beam width 1–{MAX_BEAM} (1 = greedy)")
    parser.add_argument("--mode", choices=["soft", "hard", "local"], default="soft")
    parser.add_argument("--window", type=int, default=2, help="local attention half-width D")
    parser.add_argument("--topk", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the whole decoding trace as JSON")
    args = parser.parse_args(argv)
    try:
        family = read_json(checkpoint_path(args.model) / "config.json").get("family")
        if family == "transformer":
            from models.transformer_train import load_transformer

            tf = load_transformer(args.model)
            if tf.kind != "encoder-decoder":
                raise InputError(f"{args.model} is a language model: use python -m models.generate --model {args.model}")
            tf_trace = translate_transformer(tf, args.sentence, args.beam, args.topk)
            if args.json:
                print(json.dumps(tf_trace.to_dict(), ensure_ascii=False))
            else:
                if tf_trace.input_tokens_dropped:
                    print(f"note: input cut to the model's limit; {tf_trace.input_tokens_dropped} tokens dropped",
                          file=sys.stderr)
                print(tf_trace.text)
            return 0
        loaded = load_seq2seq(args.model)
        trace = translate(loaded, args.sentence, args.beam, AttentionMode(args.mode, args.window), args.topk)
    except (CheckpointError, InputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(trace.to_dict(), ensure_ascii=False))
    else:
        if trace.input_tokens_dropped:
            print(f"note: input cut to the model's limit; {trace.input_tokens_dropped} tokens dropped", file=sys.stderr)
        print(translation_text(trace.tgt_tokens))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
