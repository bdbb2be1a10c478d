"""`python -m models.generate --model tf-lm [--temperature T] [--top-k K] [--max-new N] [--seed S] [--json] "prompt"`;
with a Transformer-XL checkpoint (``--model xl-lm``) the prompt is read in segments and every new token is
generated with the memory carried over (``--mem-len M``, ``--seg-len L``)."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cli.output import print_trace
from models.checkpoints import CheckpointError, family_of, load_transformer, load_txl
from models.device import configure_threads
from models.inference.common import InputError
from models.inference.generate import MAX_NEW, generate_text
from models.inference.traces import display_text
from models.inference.transformer_xl import generate_with_memory


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Continue a prompt with the decoder-only language model.")
    parser.add_argument("prompt", nargs="?", default="", help="text to continue (empty: a new verse)")
    parser.add_argument("--model", default="tf-lm", help="checkpoint name or folder")
    parser.add_argument("--temperature", type=float, default=1.0, help="0 = greedy; higher = more random")
    parser.add_argument("--top-k", type=int, default=None, help="sample among the k most probable tokens")
    parser.add_argument("--max-new", type=int, default=20, help=f"new tokens, 1–{MAX_NEW}")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the sampler")
    parser.add_argument("--mem-len", type=int, default=64, help="Transformer-XL: memory length M (0 = none)")
    parser.add_argument("--seg-len", type=int, default=32, help="Transformer-XL: segment length L of the prompt")
    parser.add_argument("--json", action="store_true", help="print the per-step trace as JSON")
    args = parser.parse_args(argv)
    try:
        configure_threads()
        if family_of(args.model) == "transformer-xl":
            xl = generate_with_memory(load_txl(args.model), args.prompt, args.max_new, args.mem_len, args.seg_len,
                                      args.temperature, args.top_k, args.seed)
            return print_trace(xl, display_text(xl.tokens[1:]), args.json,
                               [f"memory length {xl.mem_len}, prompt read in segments of {xl.seg_len}"])
        result = generate_text(load_transformer(args.model), args.prompt, args.max_new, args.temperature,
                               args.top_k, args.seed)
    except (CheckpointError, InputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    dropped = result.input_tokens_dropped
    notes = [f"prompt cut to the model's context; its first {dropped} tokens dropped"] if dropped else []
    return print_trace(result, result.text, args.json, notes)


if __name__ == "__main__":
    raise SystemExit(main())
