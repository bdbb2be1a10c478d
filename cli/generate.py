"""`python -m models.generate --model tf-lm [--temperature T] [--top-k K] [--max-new N] [--seed S] [--json] "prompt"`."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cli.output import print_trace
from models.checkpoints import CheckpointError, load_transformer
from models.device import configure_threads
from models.inference.common import InputError
from models.inference.generate import MAX_NEW, generate_text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Continue a prompt with the decoder-only language model.")
    parser.add_argument("prompt", nargs="?", default="", help="text to continue (empty: a new verse)")
    parser.add_argument("--model", default="tf-lm", help="checkpoint name or folder")
    parser.add_argument("--temperature", type=float, default=1.0, help="0 = greedy; higher = more random")
    parser.add_argument("--top-k", type=int, default=None, help="sample among the k most probable tokens")
    parser.add_argument("--max-new", type=int, default=20, help=f"new tokens, 1–{MAX_NEW}")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the sampler")
    parser.add_argument("--json", action="store_true", help="print the per-step trace as JSON")
    args = parser.parse_args(argv)
    try:
        configure_threads()
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
