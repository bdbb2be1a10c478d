"""`python -m models.translate --model NAME [--beam K] [--length-penalty α] [--mode soft|hard] [--json] "sentence"`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cli.output import print_trace
from models.checkpoints import CheckpointError
from models.device import configure_threads
from models.inference.common import DEFAULT_LENGTH_PENALTY, InputError
from models.inference.traces import TransformerDecodeTrace, Seq2seqDecodeTrace
from models.inference.translate import MAX_BEAM, load_translator
from models.nn.rnn_seq2seq import AttentionMode


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Translate a sentence with a seq2seq or Transformer checkpoint "
        "(English; Chinese for the HSK models)."
    )
    parser.add_argument("sentence")
    parser.add_argument("--model", default="s2s-bahdanau", help="checkpoint name or folder")
    parser.add_argument("--beam", type=int, default=1, help=f"beam width 1–{MAX_BEAM} (1 = greedy)")
    parser.add_argument(
        "--mode",
        choices=["soft", "hard"],
        default="soft",
        help="soft: as trained; hard: one-hot at the argmax weight (a decoding-time variant)",
    )
    parser.add_argument(
        "--length-penalty",
        type=float,
        default=DEFAULT_LENGTH_PENALTY,
        help="α of the beam's ranking rule Σ log p / ((5 + |y|) / 6)^α (0 = raw Σ log p)",
    )
    parser.add_argument("--topk", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the whole decoding trace as JSON")
    args = parser.parse_args(argv)
    trace: TransformerDecodeTrace | Seq2seqDecodeTrace
    try:
        configure_threads()
        run = load_translator(args.model)
        trace = run(args.sentence, args.beam, AttentionMode(args.mode), args.topk, args.length_penalty)
    except (CheckpointError, InputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return print_trace(trace, trace.text, args.json, [n.text for n in trace.notices])


if __name__ == "__main__":
    raise SystemExit(main())
