"""Translate a sentence with a seq2seq checkpoint and return the full decoding trace.

`python -m models.translate --model NAME [--beam K] [--mode soft|hard|local] [--json] "sentence"`
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from corpora.text import detokenize, tokenize
from models.checkpoint import LoadedSeq2Seq
from models.decode import beam_search, greedy_decode
from models.seq2seq import SOFT, AttentionMode
from models.trace import DecodingTrace
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


def main(argv: Sequence[str] | None = None) -> int:
    from models.checkpoint import CheckpointError, load_seq2seq

    parser = argparse.ArgumentParser(description="Translate an English sentence with a seq2seq checkpoint.")
    parser.add_argument("sentence")
    parser.add_argument("--model", default="s2s-bahdanau", help="checkpoint name or folder")
    parser.add_argument("--beam", type=int, default=1, help=f"beam width 1–{MAX_BEAM} (1 = greedy)")
    parser.add_argument("--mode", choices=["soft", "hard", "local"], default="soft")
    parser.add_argument("--window", type=int, default=2, help="local attention half-width D")
    parser.add_argument("--topk", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the whole decoding trace as JSON")
    args = parser.parse_args(argv)
    try:
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
